/* perf.h -- `chorus perf`: the nccl-tests style benchmark, forking its own
 * ranks or joining a launcher's. */
#ifndef CHORUS_PERF_H
#define CHORUS_PERF_H

int cmd_perf(int argc, char **argv);

#endif
