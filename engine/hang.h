/* hang.h -- hang reports. When a wait times out (CHORUS_TIMEOUT), or when
 * the process gets SIGUSR1 while a call is running, each communicator of
 * the process writes where it is -- the call and its sequence number, each
 * channel's op, the peers it waits on and the slot counters of both of the
 * op's connections -- into CHORUS_HANG_DIR/chorus-hang-p<pid>-c<comm>-r<rank>.txt.
 * `chorus hang-report FILES...` (cli/hang_report.c) merges the reports of
 * all ranks into one picture and names the rank the others are waiting for. */
#ifndef CHORUS_HANG_H
#define CHORUS_HANG_H

#include <stdio.h>

#include "comm.h"

/* Track a communicator (at creation) and forget it (before it is freed).
 * The first registration installs the SIGUSR1 handler, unless the program
 * has one of its own. */
void hang_register(chorus_comm_t *c);
void hang_unregister(chorus_comm_t *c);

/* Write c's report now; reason is "timeout", "peer-failed" (a wait ended
 * because a peer failed or aborted) or "SIGUSR1". Only
 * async-signal-safe calls inside. Returns 0 when the file was written. */
int hang_dump(chorus_comm_t *c, const char *reason);

#endif
