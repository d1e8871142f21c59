/* fuzz_topo.c -- sim/topo.c's loader on arbitrary text. A script the loader
 * refuses must say why; one it accepts must be a consistent topology (every
 * index in range, adjacency matching the links), and its node shape, routes
 * from every rank to rank 0 and its printed views must work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "topo.h"
#include "topo_route.h"
#include "topo_view.h"

static void check_topology(const topo_t *t) {
  FUZZ_ASSERT(t->nranks >= 1 && t->nranks <= PLAN_MAX_RANKS);
  for (int r = 0; r < t->nranks; r++) FUZZ_ASSERT(t->rank_dev[r] >= 0 && t->rank_dev[r] < t->ndevs);
  for (int l = 0; l < t->nlinks; l++) {
    const topo_link_t *k = &t->links[l];
    FUZZ_ASSERT(k->a >= 0 && k->a < t->ndevs && k->b >= 0 && k->b < t->ndevs && k->a != k->b);
    FUZZ_ASSERT(k->bw > 0 && k->lat >= 0);
  }
  FUZZ_ASSERT(t->adj_first[t->ndevs] == 2 * t->nlinks);
  for (int d = 0; d < t->ndevs; d++) {
    FUZZ_ASSERT(t->devs[d].host >= -1 && t->devs[d].host < t->nhosts);
    FUZZ_ASSERT(t->adj_first[d] <= t->adj_fwd_end[d] && t->adj_fwd_end[d] <= t->adj_first[d + 1]);
  }
  plan_shape_t shape;
  int contiguous;
  if (topo_shape(t, t->nranks, &shape, &contiguous) == chorus_success) plan_shape_fini(&shape);
  /* Routes from (at most 64) ranks to rank 0: the loader promised they exist. */
  topo_router_t *r0;
  if (topo_router_create(&r0, t, t->rank_dev[0]) != chorus_success) return;
  for (int r = 0; r < t->nranks && r < 64; r++) {
    int hops = topo_router_hops(r0, t->rank_dev[r]);
    FUZZ_ASSERT(hops >= 0);
    int32_t *res = malloc(sizeof *res * (size_t)(2 * hops + 1));
    double lat;
    if (res) {
      int n = topo_router_route(r0, t->rank_dev[r], topo_flow_key(r, 0, 0), res, &lat);
      FUZZ_ASSERT(n >= 0 && n <= 2 * hops + 1);
      for (int i = 0; i < n; i++) FUZZ_ASSERT(res[i] >= 0 && res[i] < topo_nres(t));
    }
    free(res);
  }
  topo_router_destroy(r0);
  static FILE *null;
  if (!null) null = fopen("/dev/null", "w");
  if (null) {
    topo_print(t, null, 8);
    topo_write_dot(t, null);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[1024];
  if (fuzz_scratch_file(data, size, "topo", path, sizeof path) != 0) return 0;
  topo_t *t;
  topo_err_t err;
  chorus_result_t r = topo_load(&t, path, NULL, &err);
  unlink(path);
  if (r != chorus_success) {
    FUZZ_ASSERT(t == NULL && err.msg[0]);
    FUZZ_LOG("refused: %s\n", err.msg);
    return 0;
  }
  FUZZ_LOG("loaded %s: %d devices, %d links, %d ranks\n", t->name, t->ndevs, t->nlinks, t->nranks);
  check_topology(t);
  topo_destroy(t);
  return 0;
}
