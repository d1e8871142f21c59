/* planner.h -- runs an algorithm script and builds its plan_t.
 *
 * An algorithm script returns a table:
 *   name         string
 *   collectives  list of collective names it implements
 *   chunks       number, or function(ctx) -> chunks per unit per loop
 *   scratch      number or function(ctx) -> scratch chunks (default 0)
 *   rails        true: each rank's traffic between nodes goes through its own
 *                nearest NIC on every channel (plan.h rail_nics; default false)
 *   hubs         number or function(ctx) -> hubs, participants beyond the
 *                ranks that hold only SCRATCH: a switch that reduces
 *                (default 0; plan.h)
 *   hubs_in      "node" (default: switches inside the nodes, NVSwitch) or
 *                "network" (switches between them, SHARP)
 *   window       number or function(ctx) -> chunks each connection must hold
 *                (2, the default, to 8: plan.h window), for a script that
 *                sends several chunks to a peer before it receives
 *   channels     number or function(ctx) -> default channel count (default 1)
 *   supports     optional function(ctx) -> ok [, reason]
 *   program      function(ctx) called once per (rank, channel)
 * The context `ctx` is a userdata documented in algos/README.md.
 */
#ifndef CHORUS_PLANNER_H
#define CHORUS_PLANNER_H

#include "chorus.h"
#include "plan.h"

typedef struct {
  const char *algo;       /* a shipped name ("ring") or a path to a .lua file */
  chorus_coll_t coll;
  int nranks;
  const plan_shape_t *shape; /* NULL: one node */
  int root;
  int nchannels;          /* 0: the script's default */
  const char *opts;       /* "k=v,k=v" handed to ctx:opt(); NULL for none */
  const char *algos_dir;  /* NULL: planner_algos_dir() */
  int no_fuse;            /* 1: keep the script's ops as written */
} planner_req_t;

typedef struct {
  char msg[2048];          /* what went wrong, naming script, line, rank */
  int unsupported;         /* 1: the script declined this shape (supports()) */
} planner_err_t;

/* A planner holds one loaded algorithm script in its own sandbox, so that
 * many shapes can be planned without loading it again (chorus check). */
typedef struct planner planner_t;

/* Load the script (name or path). On failure *out is NULL and err says why. */
chorus_result_t planner_open(planner_t **out, const char *algo, const char *algos_dir, planner_err_t *err);
void planner_close(planner_t *pl);
/* The script's declared name, its path, and its collectives as a bit mask
 * (bit chorus_coll_t). */
const char *planner_name(const planner_t *pl);
const char *planner_path(const planner_t *pl);
unsigned planner_collectives(const planner_t *pl);
/* Plan one request with an open planner (req->algo and req->algos_dir are
 * ignored); same contract as planner_build. */
chorus_result_t planner_plan(planner_t *pl, const planner_req_t *req, plan_t **out, planner_err_t *err);

/* Plan the programs of ranks lo .. hi-1 of the request only (the others,
 * and the hubs' when hi < req->nranks, stay empty): a node's share of a
 * job too large to plan whole (plan/fold.h). Same contract as planner_plan;
 * an option is checked as read when these ranks read it. */
chorus_result_t planner_plan_ranks(planner_t *pl, const planner_req_t *req, int lo, int hi, plan_t **out,
                                   planner_err_t *err);

/* Plan one request. On success *out owns a new plan (plan_destroy it).
 * On failure *out is NULL, err->msg says why, and the result is
 * chorus_script_error (the script failed), chorus_invalid_argument (the
 * request is wrong) or chorus_invalid_usage (the script declines the shape:
 * err->unsupported is 1). */
chorus_result_t planner_build(const planner_req_t *req, plan_t **out, planner_err_t *err);

/* The algorithm folder: $CHORUS_ALGOS, else the folder next to the running
 * binary's share/ or source tree, else the compiled-in source path. */
const char *planner_algos_dir(void);

/* Resolve an algorithm name or file to a path. Returns 0, or -1 with a message. */
int planner_resolve(const char *algo, const char *algos_dir, char *path, size_t len, char *err,
                    size_t errlen);

/* The shipped algorithm names (the .lua files of the algorithm folder),
 * sorted, comma-separated, into buf. */
void planner_list(const char *algos_dir, char *buf, size_t len);

#endif
