/* exp.h -- `chorus exp`: run an experiment (experiments/NAME.lua) that
 * measures collectives with the engine on a testbed (local processes, or
 * network-namespace hosts made by scripts/testbed), predicts the same runs
 * with the simulator on the topology describing that testbed, and writes
 * the comparison: compare.csv, a report with tables and crossovers, plots.
 * Measuring and predicting run as `chorus perf` and `chorus sim` child
 * processes of this binary, so exp links neither the simulator nor an
 * engine communicator itself. */
#ifndef CHORUS_EXP_H
#define CHORUS_EXP_H

int cmd_exp(int argc, char **argv);

#endif
