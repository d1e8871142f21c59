/* cost.h -- the simulator as a cost model: the one header of sim/ the engine
 * includes (its tuner asks it for the predicted time of each candidate plan
 * and takes the fastest, so that the engine's choice is the simulator's
 * prediction). A cost model holds one loaded topology; each question replays
 * a plan in event mode, as `chorus sim` would, with the engine's geometry. */
#ifndef CHORUS_SIM_COST_H
#define CHORUS_SIM_COST_H

#include <stddef.h>

#include "chorus.h"
#include "plan.h"

typedef struct sim_cost sim_cost_t;

/* Load topology `file` (a path or a name in topologies/) with --set style
 * `sets` ("" for none) for plans with the engine's `buffsize` bytes per
 * connection. On failure *out is NULL and err says why (file:line). */
chorus_result_t sim_cost_create(sim_cost_t **out, const char *file, const char *sets, size_t buffsize, char *err,
                                size_t errlen);
void sim_cost_destroy(sim_cost_t *c);

/* Ranks the topology places. */
int sim_cost_nranks(const sim_cost_t *c);

/* Protocols as the simulator knows them (simple, LL, LL128): the id of a
 * name in any case, -1 when unknown; the name of an id, NULL past the last
 * (so a caller can list them). */
int sim_cost_proto_parse(const char *name);
const char *sim_cost_proto_name(int proto);

/* Predict with protocol `proto` (an id from sim_cost_proto_parse) from now
 * on; a new cost model predicts with simple. */
void sim_cost_set_proto(sim_cost_t *c, int proto);

/* Predicted seconds for one call of `count` elements of dt with plan p (as
 * chorus perf counts them); negative, with err, when it cannot be replayed.
 * With sim_cost_set_calls(c, K > 1): the time per call of K calls back to
 * back after the first, what a rank that times each call of such a loop
 * sees once it runs steadily (chorus calibrate times its calls so). */
double sim_cost_time(sim_cost_t *c, const plan_t *p, size_t count, chorus_dtype_t dt, char *err, size_t errlen);

/* Calls replayed back to back by sim_cost_time from now on (1: one call
 * alone, what a new cost model does). */
void sim_cost_set_calls(sim_cost_t *c, int calls);

#endif
