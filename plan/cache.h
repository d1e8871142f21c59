/* cache.h -- plans built once per communicator and shape: the planner's
 * results kept by everything that makes a plan what it is, so that a call
 * finds its plan without running Lua again. Thread-safe per cache. */
#ifndef CHORUS_PLAN_CACHE_H
#define CHORUS_PLAN_CACHE_H

#include <stddef.h>

#include "planner.h"

/* A cache of plans keyed by (collective, algorithm, nranks, node shape,
 * root, channels, options). Plans in it are owned by the cache. */
typedef struct plan_cache plan_cache_t;
plan_cache_t *plan_cache_create(void);
void plan_cache_destroy(plan_cache_t *c);
/* Return the cached plan for req, building (and verifying, when verify is 1)
 * it on first use. *out is borrowed from the cache. */
chorus_result_t plan_cache_get(plan_cache_t *c, const planner_req_t *req, int verify,
                               const plan_t **out, planner_err_t *err);
size_t plan_cache_size(const plan_cache_t *c);

#endif
