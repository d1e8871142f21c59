/* tune.h -- which algorithm and how many channels a call uses when neither
 * the caller (chorus perf -a/-c), CHORUS_ALGO nor CHORUS_NCHANNELS says.
 *
 * CHORUS_TUNER=model (the default): the simulator's cost model (sim/cost.h)
 * predicts every candidate -- each shipped algorithm that plans the call,
 * on 1 channel and on 2 where every local rank has a second core -- on the
 * topology that describes this job (CHORUS_TOPO, e.g. one written by chorus
 * calibrate; by default local-cpu for one host, netns for hosts of equal
 * size), and the fastest is taken, cached per (collective, dtype, size
 * bucket of a power of two). Every rank asks the same deterministic model
 * the same questions, so all choose alike. CHORUS_ALGO with commas or a
 * leading ^ lists the candidates (or those to leave out).
 * CHORUS_TUNER=rules: the thresholds below, measured on the CPU engine. */
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

/* The model tuner of one communicator (NULL when CHORUS_TUNER=rules or the
 * topology cannot describe the job; why is logged at INFO). */
tune_t *tune_create(int nranks, int nhosts, int nlocal, const int *host_of, size_t buffsize);
void tune_destroy(tune_t *t);

/* Choose by the model: 0 with algo and *nchannels set, -1 when no candidate
 * could be predicted (the caller uses the rules). */
int tune_model_select(tune_t *t, chorus_coll_t coll, size_t count, chorus_dtype_t dt, size_t bytes, tune_plan_fn plan,
                      void *ctx, char *algo, size_t len, int *nchannels);

/* Whether CHORUS_ALGO is a list (commas, or ^ to exclude) rather than one
 * forced algorithm; and whether a name passes it. */
int tune_algo_is_list(const char *value);
int tune_algo_allowed(const char *value, const char *algo);

/* The algorithm to try when the chosen one declines the shape. */
const char *tune_fallback(chorus_coll_t coll);

#endif
