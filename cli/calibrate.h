/* calibrate.h -- `chorus calibrate`: measure this testbed's point-to-point
 * links and local rates with the engine, fit them (fit.h), and write a
 * topology whose parameter defaults are the fitted values. */
#ifndef CHORUS_CALIBRATE_H
#define CHORUS_CALIBRATE_H

/* The subcommand: argv[0] is "calibrate". Returns the process exit status
 * (0 success, 1 a measurement or fit failed, 2 bad arguments). */
int cmd_calibrate(int argc, char **argv);

#endif
