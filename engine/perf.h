/* perf.h -- the engine's subcommands: `chorus perf` (the nccl-tests style
 * benchmark, forking its own ranks or joining a launcher's) and `chorus
 * doctor` (the settings and what the engine finds on this machine). */
#ifndef CHORUS_PERF_H
#define CHORUS_PERF_H

int cmd_perf(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

#endif
