/* test_topo.c -- the topology loader and the router: every shipped
 * topology loads, parameters override, units parse, routes are shortest
 * and prefer fast links, ECMP spreads flows deterministically. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "topo.h"
#include "topo_route.h"

static int near(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

static void every_shipped_topology_loads(void) {
  DIR *d = opendir(topo_dir());
  CHECK_TRUE(d != NULL);
  if (!d) return;
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 5 || strcmp(e->d_name + l - 4, ".lua")) continue;
    topo_t *t;
    topo_err_t err;
    chorus_result_t r = topo_load(&t, e->d_name, NULL, &err);
    if (r != chorus_success) fprintf(stderr, "  %s: %s\n", e->d_name, err.msg);
    CHECK_EQ_INT(r, chorus_success);
    if (r == chorus_success) {
      CHECK_TRUE(t->nranks > 0);
      topo_destroy(t);
    }
    n++;
  }
  closedir(d);
  CHECK_TRUE(n >= 8);
}

static void set_overrides_parameters_and_units(void) {
  topo_t *t;
  topo_err_t err;
  CHECK_EQ_INT(topo_load(&t, "star", "nodes=5,bw=400Gb/s,lat=1.5us", &err), chorus_success);
  CHECK_EQ_INT(t->nranks, 5);
  CHECK_TRUE(near(t->links[0].bw, 50e9, 1e-12));
  CHECK_TRUE(near(t->links[0].lat, 1.5e-6, 1e-12));
  CHECK_CONTAINS(t->params, "nodes=5");
  topo_destroy(t);
  CHECK_EQ_INT(topo_load(&t, "star", "nodse=5", &err), chorus_invalid_argument);
  CHECK_CONTAINS(err.msg, "takes no parameter 'nodse'");
  CHECK_EQ_INT(topo_load(&t, "star", "nodes=many", &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "star.lua:9: --set nodes=many: parameter 'nodes' is a number");
  CHECK_EQ_INT(topo_load(&t, "nosuch", NULL, &err), chorus_invalid_argument);
  CHECK_CONTAINS(err.msg, "no topology 'nosuch'");
}

static void star_route_is_two_hops_with_both_latencies(void) {
  topo_t *t;
  topo_err_t err;
  CHECK_EQ_INT(topo_load(&t, "star", "nodes=4,lat=2us", &err), chorus_success);
  topo_router_t *r;
  CHECK_EQ_INT(topo_router_create(&r, t, t->rank_dev[3]), chorus_success);
  int32_t res[16];
  double lat;
  CHECK_EQ_INT(topo_router_hops(r, t->rank_dev[0]), 2);
  CHECK_EQ_INT(topo_router_route(r, t->rank_dev[0], 1, res, &lat), 2);
  CHECK_TRUE(near(lat, 4e-6, 1e-9));
  /* Up rank 0's link (a->b: n0 -> sw) and down rank 3's (b->a). */
  CHECK_EQ_INT(res[0], 2 * 0 + 0);
  CHECK_EQ_INT(res[1], 2 * 3 + 1);
  topo_router_destroy(r);
  topo_destroy(t);
}

static void routes_prefer_nvlink_over_an_equally_short_pcie_path(void) {
  topo_t *t;
  topo_err_t err;
  CHECK_EQ_INT(topo_load(&t, "dgx-h100", NULL, &err), chorus_success);
  /* GPUs 0 and 1 share a PCIe switch: two hops either way. */
  topo_router_t *r;
  CHECK_EQ_INT(topo_router_create(&r, t, t->rank_dev[1]), chorus_success);
  int32_t res[16];
  double lat;
  int n = topo_router_route(r, t->rank_dev[0], 7, res, &lat);
  CHECK_EQ_INT(n, 2);
  char name[256];
  topo_res_name(t, res[0], name, sizeof name);
  CHECK_CONTAINS(name, "h0.gpu0 -> h0.nvsw");
  topo_router_destroy(r);
  topo_destroy(t);
}

/* Across a two-spine fat tree, flows take either spine, each always the
 * same one, and different flows spread over both. */
static void ecmp_hashing_is_deterministic_and_spreads(void) {
  topo_t *t;
  topo_err_t err;
  CHECK_EQ_INT(topo_load(&t, "fat-tree", "nodes=8,leaf_ports=4,oversub=2", &err), chorus_success);
  topo_router_t *r;
  CHECK_EQ_INT(topo_router_create(&r, t, t->rank_dev[5]), chorus_success);
  int seen[2] = {0, 0};
  for (int ch = 0; ch < 32; ch++) {
    int32_t a[16], b[16];
    double la, lb;
    int na = topo_router_route(r, t->rank_dev[0], topo_flow_key(0, 5, ch), a, &la);
    int nb = topo_router_route(r, t->rank_dev[0], topo_flow_key(0, 5, ch), b, &lb);
    CHECK_EQ_INT(na, 4);
    CHECK_EQ_INT(nb, na);
    CHECK_TRUE(!memcmp(a, b, sizeof a[0] * na));
    char name[256];
    topo_res_name(t, a[1], name, sizeof name);
    if (strstr(name, "spine0")) seen[0]++;
    if (strstr(name, "spine1")) seen[1]++;
  }
  CHECK_EQ_INT(seen[0] + seen[1], 32);
  CHECK_TRUE(seen[0] > 0 && seen[1] > 0);
  topo_router_destroy(r);
  topo_destroy(t);
}

static void shape_follows_hosts(void) {
  topo_t *t;
  topo_err_t err;
  CHECK_EQ_INT(topo_load(&t, "dgx-cluster", "nodes=3", &err), chorus_success);
  plan_shape_t s;
  int contiguous;
  CHECK_EQ_INT(topo_shape(t, 24, &s, &contiguous), chorus_success);
  CHECK_EQ_INT(s.nnodes, 3);
  CHECK_EQ_INT(s.node_size[2], 8);
  CHECK_EQ_INT(contiguous, 1);
  plan_shape_fini(&s);
  CHECK_EQ_INT(topo_shape(t, 12, &s, &contiguous), chorus_success);
  CHECK_EQ_INT(s.nnodes, 2);
  CHECK_EQ_INT(s.node_size[1], 4);
  plan_shape_fini(&s);
  topo_destroy(t);
}

/* Each rank's NIC is the nearest of its host's: on a DGX node NIC i beside
 * GPU i (GPUs 2k and 2k+1 share a PCIe switch with NICs 2k and 2k+1: the
 * tie goes to the NIC with fewer ranks); a PCIe box with one NIC puts every
 * GPU on it; a topology without NICs leaves one per node. */
/* Channels as NCCL's search gives them: 2 per NIC across hosts (the fewest
 * NICs of the hosts used), 24 on one NVSwitch host, 4 on one PCIe host, and
 * none chosen for ranks that are not GPUs. */
static void default_channels_follow_the_topology(void) {
  static const struct {
    const char *topo, *sets;
    int n, want;
  } cases[] = {{"dgx-cluster", "nodes=2", 16, 16}, {"dgx-cluster", "nodes=2,nics=4", 16, 8},
               {"dgx-cluster", "nodes=2", 8, 24},  {"dgx-h100", NULL, 8, 24},
               {"pcie-8gpu", NULL, 8, 4},          {"star", "nodes=4", 4, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    topo_t *t;
    topo_err_t err;
    CHECK_EQ_INT(topo_load(&t, cases[k].topo, cases[k].sets, &err), chorus_success);
    if (!t) continue;
    CHECK_EQ_INT(topo_default_channels(t, cases[k].n), cases[k].want);
    topo_destroy(t);
  }
}

static void shape_knows_each_ranks_nic(void) {
  static const struct {
    const char *topo, *sets;
    int n, nics, nic_of_rank5;
  } cases[] = {{"dgx-cluster", "nodes=2", 16, 8, 5}, {"pcie-8gpu", NULL, 8, 1, 0}, {"star", "nodes=4", 4, 1, 0}};
  for (int k = 0; k < 3; k++) {
    topo_t *t;
    topo_err_t err;
    CHECK_EQ_INT(topo_load(&t, cases[k].topo, cases[k].sets, &err), chorus_success);
    if (!t) continue;
    plan_shape_t s;
    CHECK_EQ_INT(topo_shape(t, cases[k].n, &s, NULL), chorus_success);
    CHECK_EQ_INT(s.node_nics[s.nnodes - 1], cases[k].nics);
    CHECK_EQ_INT(plan_shape_has_nics(&s), cases[k].nics > 1);
    if (cases[k].n > 5) CHECK_EQ_INT(s.rank_nic[5], cases[k].nic_of_rank5);
    if (cases[k].nics == 8)
      for (int r = 0; r < cases[k].n; r++) CHECK_EQ_INT(s.rank_nic[r], r % 8);
    plan_shape_fini(&s);
    topo_destroy(t);
  }
}

TEST_MAIN(TEST(every_shipped_topology_loads), TEST(set_overrides_parameters_and_units),
          TEST(star_route_is_two_hops_with_both_latencies), TEST(routes_prefer_nvlink_over_an_equally_short_pcie_path),
          TEST(ecmp_hashing_is_deterministic_and_spreads), TEST(shape_follows_hosts),
          TEST(shape_knows_each_ranks_nic), TEST(default_channels_follow_the_topology))
