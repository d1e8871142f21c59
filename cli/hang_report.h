/* hang_report.h -- `chorus hang-report FILES...`: the reports of all ranks
 * (written by engine/hang.c) merged into one picture that names the rank
 * the others are waiting for. */
#ifndef CHORUS_CLI_HANG_REPORT_H
#define CHORUS_CLI_HANG_REPORT_H

#include <stdio.h>

/* Merge report files into a picture on out; returns the number of files
 * read (0: none readable). */
int hang_merge(char *const files[], int nfiles, long long job, FILE *out);

/* `chorus hang-report FILES...`. */
int cmd_hang_report(int argc, char **argv);

#endif
