/* doctor.h -- `chorus doctor`: the library, settings, host, interfaces,
 * buffer memory and a measured-against-predicted self-test, each finding
 * with advice (doctor.c). */
#ifndef CHORUS_DOCTOR_H
#define CHORUS_DOCTOR_H

int cmd_doctor(int argc, char **argv);

/* One finding, printed with its advice; a problem (problem = 1) makes the
 * doctor exit 1, a note does not. For the parts in doctor_rsh.c. */
void doctor_finding(int problem, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Problems so far; *notes gets the notes. */
int doctor_count(int *notes);

#endif
