/* analytic.c -- the analytic ring (analytic.h): the ring reduced to one
 * rank by symmetry, replayed on a network of one resource per channel with
 * the ring's bottleneck share and its hops' mean latency. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "error.h"
#include "topo_route.h"

static chorus_result_t append(plan_t *p, int ch, int code, int sb, int sc, int db, int dc, int rp, int spr) {
  plan_op_t op = {.code = (uint8_t)code, .src_buf = (uint8_t)sb, .dst_buf = (uint8_t)db,
                  .src_chunk = sc, .dst_chunk = dc, .recv_peer = rp, .send_peer = spr};
  return plan_append(p, 0, ch, &op);
}

/* The ring's bottleneck: every resource's capacity divided by the ring
 * connections crossing it (channel c's ring is orders[c * n ..], each
 * connection routed as the event model routes it, with its own ECMP hash);
 * and the mean route latency (a piece crosses every hop once per lap). */
static chorus_result_t ring_bottleneck(const topo_t *t, int n, int nch, const int *orders, double *bw_out,
                                       double *lat_out, double *nic_share_out, char *err, size_t errlen) {
  int nres = topo_nres(t);
  int *uses = calloc(nres, sizeof *uses);
  int32_t *buf = malloc(sizeof *buf * topo_route_conn_cap(t));
  if (!uses || !buf) {
    free(uses), free(buf);
    return chorus_out_of_memory;
  }
  double lat = 0;
  long nic_hops = 0;
  chorus_result_t r = chorus_success;
  /* Each ring connection is its own (source, destination) pair. */
  topo_pathfinder_t *pf = NULL;
  r = topo_pathfinder_create(&pf, t);
  for (int ch = 0; ch < nch && r == chorus_success; ch++) {
    const int *ring = orders + (size_t)ch * (size_t)n;
    for (int i = 0; i < n && r == chorus_success; i++) {
      int src = ring[i], dst = ring[(i + 1) % n];
      double l;
      int len = topo_route_conn(pf, src, dst, ch, 0, buf, &l);
      if (len == -2) {
        r = chorus_out_of_memory;
        break;
      }
      if (len < 0) {
        snprintf(err, errlen, "rank %d cannot reach rank %d in %s", src, dst, t->path);
        r = chorus_invalid_argument;
        break;
      }
      lat += l / ((double)n * nch);
      for (int k = 0; k < len; k++) uses[buf[k]]++;
      nic_hops += topo_route_crosses(t, buf, len, TOPO_NIC);
    }
  }
  double bw = INFINITY;
  for (int q = 0; q < nres; q++) {
    double cap = topo_res_cap(t, q);
    if (uses[q] && cap > 0 && cap / uses[q] < bw) bw = cap / uses[q];
  }
  topo_pathfinder_destroy(pf);
  free(uses), free(buf);
  TRY(r);
  *bw_out = isinf(bw) ? 0 : bw;
  *lat_out = lat;
  /* The share of the hops through a NIC: the one rank that stands for all
   * moves its own steps when most are not (sim.h), and pays the protocol's
   * step latencies in that mix. */
  *nic_share_out = (double)nic_hops / ((double)n * nch);
  return chorus_success;
}

/* Rank 0's program of the n-rank ring (ring.lua), every peer mapped to
 * itself: by symmetry, what it receives is what it sent one step before. */
static chorus_result_t ring_plan(chorus_coll_t coll, int n, int nch, plan_t **out) {
  plan_t *p = NULL;
  chorus_result_t r;
  TRY(r = plan_create(&p, coll, 1, nch, 0, NULL));
  p->nchunks = coll == chorus_allreduce ? n : 1;
  plan_coll_units(coll, n, &p->in_units, &p->out_units);
  for (int ch = 0; ch < nch && r == chorus_success; ch++) {
    if (coll == chorus_allreduce) {
      r = append(p, ch, PLAN_OP_SEND, PLAN_BUF_INPUT, 0, 0, -1, -1, 0);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_REDUCE_SEND, PLAN_BUF_INPUT, (n - s) % n, 0, -1, 0, 0);
      if (r == chorus_success)
        r = append(p, ch, PLAN_OP_RECV_REDUCE_COPY_SEND, PLAN_BUF_INPUT, 1 % n, PLAN_BUF_OUTPUT, 1 % n, 0, 0);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_COPY_SEND, 0, -1, PLAN_BUF_OUTPUT, (1 - s + n) % n, 0, 0);
      if (r == chorus_success) r = append(p, ch, PLAN_OP_RECV, 0, -1, PLAN_BUF_OUTPUT, 2 % n, 0, -1);
    } else if (coll == chorus_allgather) {
      r = append(p, ch, PLAN_OP_SEND, PLAN_BUF_INPUT, 0, 0, -1, -1, 0);
      if (r == chorus_success) r = append(p, ch, PLAN_OP_COPY, PLAN_BUF_INPUT, 0, PLAN_BUF_OUTPUT, 0, -1, -1);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_COPY_SEND, 0, -1, PLAN_BUF_OUTPUT, (n - s) % n, 0, 0);
      if (r == chorus_success) r = append(p, ch, PLAN_OP_RECV, 0, -1, PLAN_BUF_OUTPUT, 1 % n, 0, -1);
    } else {
      r = append(p, ch, PLAN_OP_SEND, PLAN_BUF_INPUT, n - 1, 0, -1, -1, 0);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_REDUCE_SEND, PLAN_BUF_INPUT, (2 * n - 1 - s) % n, 0, -1, 0, 0);
      if (r == chorus_success)
        r = append(p, ch, PLAN_OP_RECV_REDUCE, PLAN_BUF_INPUT, 0, PLAN_BUF_OUTPUT, 0, 0, -1);
    }
  }
  if (r != chorus_success) {
    plan_destroy(p);
    return r;
  }
  *out = p;
  return chorus_success;
}

chorus_result_t sim_analytic_ring(const topo_t *t, chorus_coll_t coll, int n, int nch, const int *orders, size_t count,
                                  chorus_dtype_t dt, const sim_opts_t *o, sim_result_t *res, char *err,
                                  size_t errlen) {
  memset(res, 0, sizeof *res);
  if (coll != chorus_allreduce && coll != chorus_allgather && coll != chorus_reducescatter) {
    snprintf(err, errlen, "the analytic model covers ring allreduce, allgather and reducescatter, not %s "
                          "(use --model event)", chorus_coll_name(coll));
    return chorus_invalid_usage;
  }
  if (n < 2 || n > t->nranks || nch < 1 || nch > PLAN_MAX_CHANNELS) {
    snprintf(err, errlen, "the analytic ring needs 2..%d ranks and 1..%d channels", t->nranks, PLAN_MAX_CHANNELS);
    return chorus_invalid_argument;
  }
  for (int r = 0; r < n; r++) {
    const topo_dev_t *d = &t->devs[t->rank_dev[r]];
    if (nch > 1 && d->channel_wake > 0) {
      snprintf(err, errlen, "the analytic ring does not model a device's channel_wake with several channels (rank %d "
                            "is on %s): use --model event", r, d->name);
      return chorus_invalid_usage;
    }
  }
  double bw, lat, nic_share;
  TRY(ring_bottleneck(t, n, nch, orders, &bw, &lat, &nic_share, err, errlen));
  plan_t *p = NULL;
  chorus_result_t r = ring_plan(coll, n, nch, &p);
  sim_t *s = NULL;
  if (r == chorus_success) r = sim_create_fixed(&s, t, p, o, bw, lat, nic_share, err, errlen);
  if (r == chorus_success) r = sim_run(s, count, dt, res, err, errlen);
  sim_destroy(s);
  plan_destroy(p);
  return r;
}
