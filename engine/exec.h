/* exec.h -- the executor: runs this rank's program of a verified plan, one
 * thread per channel, looping it over the buffer in the geometry of
 * core/geom.h; and runs point-to-point calls, all of a group at once. */
#ifndef CHORUS_EXEC_H
#define CHORUS_EXEC_H

#include "comm.h"
#include "geom.h"
#include "plan.h"

/* Run calls of one communicator (a group's share, or one call): collectives
 * in order, then all point-to-point calls together. Takes c->lock. */
chorus_result_t exec_calls(chorus_comm_t *c, const comm_call_t *calls, int ncalls);

/* Benchmark hook: force the algorithm ("" for the tuner) and channels (0)
 * of every later collective on c. */
void exec_force(chorus_comm_t *c, const char *algo, int nchannels);
/* Benchmark hook: which calls c agrees on before any data moves
 * (tune_agree_t), instead of CHORUS_AGREE; -1: CHORUS_AGREE again.
 * chorus calibrate times the data path alone. */
void exec_agree(chorus_comm_t *c, int mode);
/* The algorithm (and *nchannels, when not NULL) the last collective on c
 * used, for reports. */
const char *exec_last(const chorus_comm_t *c, int *nchannels);

/* Record every op of the next collective on c (on every channel: start,
 * end, the time it waited for data or room, peers, bytes) and write them to
 * path as Chrome/Perfetto trace events, the simulator's format: pid = rank,
 * tid = channel, ts and dur in microseconds of CLOCK_MONOTONIC (so ranks of
 * one host line up), one event a line. Off otherwise: then each op pays one
 * untaken branch. The file is written when the call ends. */
chorus_result_t exec_trace_next(chorus_comm_t *c, const char *path);

/* The steps the executor moves for one call of `count` elements of dt with
 * plan p on connections of CHORUS_BUFFSIZE buffsize, channel by channel in
 * the order each channel's thread moves them: the call's cut and each
 * channel's part as exec_calls makes them, the slices of run_channel, the
 * chunks of `chunk` and the pieces of op_send. Chunks are those of the
 * plan's first unit; fn returns nonzero to stop. Returns 0, or 1 when fn
 * stopped. For the test that holds the simulator to it (geometry_shared). */
int exec_moves(const plan_t *p, size_t count, chorus_dtype_t dt, size_t buffsize, geom_move_fn fn, void *arg);

#endif
