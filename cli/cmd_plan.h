/* cmd_plan.h -- the planner's subcommands of the `chorus` command. Each takes
 * the arguments after the subcommand name and returns the exit status. */
#ifndef CHORUS_CMD_PLAN_H
#define CHORUS_CMD_PLAN_H

int cmd_plan(int argc, char **argv);    /* chorus plan ALGO -n N [--rank R] */
int cmd_check(int argc, char **argv);   /* chorus check ALGO|FILE ... */
int cmd_explain(int argc, char **argv); /* chorus explain ALGO -n N */

#endif
