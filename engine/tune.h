/* tune.h -- which algorithm and how many channels a call uses when neither
 * the caller (chorus perf -a/-c), CHORUS_ALGO nor CHORUS_NCHANNELS says.
 *
 * In order, the first that answers decides:
 *  1. CHORUS_TUNING_FILE: pinned choices per collective and size range (the
 *     format is below). A pin beats the model and the rules; CHORUS_ALGO
 *     (one name, or a list that leaves the pinned algorithm out) and
 *     CHORUS_NCHANNELS beat the pin, as does chorus perf -a/-c.
 *  2. CHORUS_TUNER=model (the default): the simulator's cost model
 *     (sim/cost.h) predicts every candidate -- each shipped algorithm that
 *     plans the call, on 1 channel and on 2 where every local rank has a
 *     second core -- on the topology that describes this job, with the
 *     protocol the engine uses, and the fastest is taken, cached per
 *     (collective, dtype, size bucket of a power of two). The topology is
 *     CHORUS_TOPO when set (e.g. one written by chorus calibrate: it wins);
 *     else for one host local-cpu with what hwloc detects (--set
 *     ranks=,cores=,numa=,packages=); else netns for hosts of equal size.
 *     Every rank asks the same deterministic model the same questions, so
 *     all choose alike. CHORUS_ALGO with commas or a leading ^ lists the
 *     candidates (or those to leave out).
 *  3. CHORUS_TUNER=rules, or no model: the thresholds in tune.c, measured on
 *     the CPU engine.
 *
 * The tuning file: one pin a line, '#' starts a comment, blank lines are
 * skipped:
 *
 *     COLLECTIVE SIZES ALGORITHM [CHANNELS]
 *
 *     allreduce  0-32K   rd    1     # below 32 KiB: recursive doubling, 1 channel
 *     allreduce  1M-inf  tree  2     # 1 MiB and up: tree on 2 channels
 *     broadcast  *       ring        # every size; the tuner picks the channels
 *
 * COLLECTIVE is allreduce, broadcast, reduce, allgather, reducescatter or
 * alltoall. SIZES is LO-HI, the call's bytes (as chorus perf counts them)
 * from LO up to but not including HI, so that ranges tile (0-32K, 32K-1M,
 * 1M-inf); one size (4K) for exactly that size; or * for all. Sizes are
 * bytes with an optional K, M or G (powers of 1024) and B; HI may be inf.
 * ALGORITHM is a script in the algorithm folder (CHORUS_ALGOS, else algos/).
 * CHANNELS is 1 to PLAN_MAX_CHANNELS; without it the model (restricted to
 * ALGORITHM) or the rules choose the count. The ranges of one collective
 * must not overlap. A pin whose algorithm declines the call's shape falls
 * back as a tuned choice does (logged at INFO). */
#ifndef CHORUS_TUNE_H
#define CHORUS_TUNE_H

#include <stddef.h>

#include "chorus.h"
#include "plan.h"

/* nlocal: ranks on this host. algo receives a shipped algorithm name; *nchannels a channel count. */
void tune_select(chorus_coll_t coll, int nranks, int nlocal, size_t bytes, char *algo, size_t len, int *nchannels);

/* A candidate's plan, planned (and proved) but not connected: the caller's
 * plan cache. Returns chorus_success or why the algorithm cannot plan it. */
typedef chorus_result_t (*tune_plan_fn)(void *ctx, const char *algo, int nchannels, const plan_t **p);

typedef struct tune tune_t;

/* CHORUS_TUNING_FILE, CHORUS_PROTO, CHORUS_ALGO, CHORUS_NCHANNELS and
 * CHORUS_AGREE, read and checked once per process:
 * chorus_success, or chorus_invalid_argument with the message recorded for
 * chorus_last_error() each time it is asked (logged at WARN once), naming
 * the file and line of a bad pin, or the protocol. The communicator calls
 * it at creation so that a bad setting fails there, not at a call. */
chorus_result_t tune_check_settings(void);

/* What this process runs with, as found at run time: "hwloc API 2.8.0 at
 * run time (2.8.0 in the headers built with), CUDA runtime 13.0, no driver
 * (...)". The INFO log's second line and chorus doctor print it. */
void tune_runtime_versions(char *buf, size_t len);

/* The protocol calls use, as the simulator names it ("simple": the only
 * one the CPU engine implements that CHORUS_PROTO may allow). */
const char *tune_proto(void);

/* Which collective calls the ranks agree on before any data moves
 * (CHORUS_AGREE, checked with the other settings; exec.c, agree). */
typedef enum { TUNE_AGREE_NONE, TUNE_AGREE_ROOTED, TUNE_AGREE_ALL } tune_agree_t;
tune_agree_t tune_agree(void);

/* The model tuner of one communicator (NULL when CHORUS_TUNER=rules or the
 * topology cannot describe the job; why is logged at INFO). */
tune_t *tune_create(int nranks, int nhosts, int nlocal, const int *host_of, size_t buffsize);
void tune_destroy(tune_t *t);

/* Choose by the model: 0 with algo and *nchannels set, -1 when no candidate
 * could be predicted (the caller uses the rules). */
int tune_model_select(tune_t *t, chorus_coll_t coll, size_t count, chorus_dtype_t dt, size_t bytes, tune_plan_fn plan,
                      void *ctx, char *algo, size_t len, int *nchannels);

/* The choice for a call that neither the caller nor CHORUS_ALGO forces: a
 * pin of CHORUS_TUNING_FILE (logged at INFO the first time it is used:
 * "pinned by FILE:LINE"), else the model t (NULL: none), else the rules. */
void tune_choose(tune_t *t, chorus_coll_t coll, int nranks, int nlocal, size_t count, chorus_dtype_t dt, size_t bytes,
                 tune_plan_fn plan, void *ctx, char *algo, size_t len, int *nchannels);

/* Whether CHORUS_ALGO is a list (commas, or ^ to exclude) rather than one
 * forced algorithm; and whether a name passes it. */
int tune_algo_is_list(const char *value);
int tune_algo_allowed(const char *value, const char *algo);

/* The algorithm to try when the chosen one declines the shape. */
const char *tune_fallback(chorus_coll_t coll);

#endif
