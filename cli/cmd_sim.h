/* cmd_sim.h -- the simulator's subcommands of the `chorus` command:
 * `chorus sim` (predict a collective on a described topology, in the columns
 * of `chorus perf`) and `chorus topo` (show, check or draw a topology). */
#ifndef CHORUS_CMD_SIM_H
#define CHORUS_CMD_SIM_H

int cmd_sim(int argc, char **argv);
int cmd_topo(int argc, char **argv);

#endif
