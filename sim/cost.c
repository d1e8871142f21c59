/* cost.c -- the simulator as the engine tuner's cost model (cost.h). */
#include "cost.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim.h"
#include "topo.h"

struct sim_cost {
  topo_t *t;
  sim_opts_t o;
};

chorus_result_t sim_cost_create(sim_cost_t **out, const char *file, const char *sets, size_t buffsize, char *err,
                                size_t errlen) {
  *out = NULL;
  sim_cost_t *c = calloc(1, sizeof *c);
  if (!c) return chorus_out_of_memory;
  topo_err_t e;
  chorus_result_t res = topo_load(&c->t, file, sets ? sets : "", &e);
  if (res != chorus_success) {
    snprintf(err, errlen, "%s", e.msg);
    free(c);
    return res;
  }
  c->o.buffsize = buffsize;
  c->o.proto = TOPO_PROTO_SIMPLE;
  *out = c;
  return chorus_success;
}

void sim_cost_destroy(sim_cost_t *c) {
  if (!c) return;
  topo_destroy(c->t);
  free(c);
}

int sim_cost_nranks(const sim_cost_t *c) { return c->t->nranks; }

int sim_cost_proto_parse(const char *name) {
  return topo_proto_parse(name);
}

const char *sim_cost_proto_name(int proto) {
  return proto >= 0 && proto < TOPO_NUM_PROTOS ? topo_proto_name((topo_proto_id_t)proto) : NULL;
}

void sim_cost_set_proto(sim_cost_t *c, int proto) {
  if (proto >= 0 && proto < TOPO_NUM_PROTOS) c->o.proto = proto;
}

double sim_cost_time(sim_cost_t *c, const plan_t *p, size_t count, chorus_dtype_t dt, char *err, size_t errlen) {
  sim_t *s;
  if (sim_create(&s, c->t, p, &c->o, err, errlen) != chorus_success) return -1;
  sim_result_t r;
  chorus_result_t res = sim_run(s, count, dt, &r, err, errlen);
  sim_destroy(s);
  if (res != chorus_success) return -1;
  int k = c->o.calls;
  return k > 1 ? (r.time * k - r.first) / (k - 1) : r.time;
}

void sim_cost_set_calls(sim_cost_t *c, int calls) { c->o.calls = calls > 1 ? calls : 1; }
