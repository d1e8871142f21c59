/* fold.c -- one node for all (fold.h): node 0 planned, the shift checked
 * on a few other nodes, the peers folded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fold.h"

/* Node k's programs (planned as q) against node 0's (p0): the same ops,
 * every peer moved k nodes on; chunks may differ (the same sizes). */
static chorus_result_t check_shift(const plan_t *p0, const plan_t *q, int k, int n, int L, planner_err_t *err) {
  for (int l = 0; l < L; l++) {
    for (int ch = 0; ch < p0->nchannels; ch++) {
      const plan_prog_t *a = plan_prog(p0, l, ch), *b = plan_prog(q, k * L + l, ch);
      const plan_op_t *x = plan_prog_ops(p0, l, ch), *y = plan_prog_ops(q, k * L + l, ch);
      uint32_t i = 0;
      while (i < a->count && i < b->count && x[i].code == y[i].code && x[i].src_buf == y[i].src_buf &&
             x[i].dst_buf == y[i].dst_buf && plan_fold_shift(x[i].recv_peer, k, n, L) == y[i].recv_peer &&
             plan_fold_shift(x[i].send_peer, k, n, L) == y[i].send_peer)
        i++;
      if (i == a->count && i == b->count) continue;
      char what[160] = "its program ends there";
      if (i < a->count) {
        plan_op_format(p0, &x[i], what, sizeof what);
        if (x[i].line > 0)
          snprintf(what + strlen(what), sizeof what - strlen(what), " (%s:%d)", plan_file_name(p0, x[i].file),
                   (int)x[i].line);
      }
      snprintf(err->msg, sizeof err->msg,
               "algorithm %s is not the same on every node: op %u of rank %d channel %d (%s) is not that of rank %d "
               "moved %d node%s on; the analytic model replays one node for all only when every node runs node 0's "
               "programs so (rings are, trees are not): use --model event",
               p0->algo, i, l, ch, what, k * L + l, k, k == 1 ? "" : "s");
      return chorus_invalid_usage;
    }
  }
  return chorus_success;
}

/* The folded plan: node 0's programs, every peer the rank of node 0 in its
 * place, and where each send went. */
static chorus_result_t fold_peers(const plan_t *p0, int L, plan_fold_t *f, planner_err_t *err) {
  int nch = p0->nchannels;
  plan_t *q = NULL;
  TRY(plan_create(&q, p0->coll, L, nch, 0, NULL));
  snprintf(q->algo, sizeof q->algo, "%s", p0->algo);
  snprintf(q->opts, sizeof q->opts, "%s", p0->opts);
  /* Chunks are the whole job's: a unit is cut as it is for n ranks. */
  q->nchunks = p0->nchunks, q->in_units = p0->in_units, q->out_units = p0->out_units;
  q->scratch_chunks = p0->scratch_chunks, q->window = p0->window, q->rail_nics = p0->rail_nics;
  uint8_t files[PLAN_MAX_FILES];
  for (int i = 0; i < p0->nfiles; i++) files[i] = (uint8_t)plan_file_index(q, p0->files[i]);
  size_t npeer = (size_t)L * nch * L;
  f->peer_of = malloc(sizeof *f->peer_of * npeer);
  if (!f->peer_of) {
    plan_destroy(q);
    return chorus_out_of_memory;
  }
  for (size_t i = 0; i < npeer; i++) f->peer_of[i] = -1;
  chorus_result_t r = chorus_success;
  for (int l = 0; l < L && r == chorus_success; l++) {
    for (int ch = 0; ch < nch && r == chorus_success; ch++) {
      const plan_op_t *x = plan_prog_ops(p0, l, ch);
      int32_t *to = f->peer_of + ((size_t)l * nch + ch) * L;
      for (uint32_t i = 0; i < plan_prog(p0, l, ch)->count && r == chorus_success; i++) {
        plan_op_t op = x[i];
        if (op.file < p0->nfiles) op.file = files[op.file];
        if (op.recv_peer >= 0) op.recv_peer %= L;
        if (op.send_peer >= 0) {
          int32_t loc = op.send_peer % L;
          if (to[loc] >= 0 && to[loc] != op.send_peer) {
            snprintf(err->msg, sizeof err->msg,
                     "algorithm %s: rank %d channel %d sends to ranks %d and %d, which fold into one connection "
                     "(both are local rank %d of their node): use --model event",
                     p0->algo, l, ch, (int)to[loc], (int)op.send_peer, (int)loc);
            r = chorus_invalid_usage;
            break;
          }
          to[loc] = op.send_peer;
          op.send_peer = loc;
        }
        r = plan_append(q, l, ch, &op);
      }
    }
  }
  if (r != chorus_success) {
    plan_destroy(q);
    free(f->peer_of), f->peer_of = NULL;
    return r;
  }
  f->plan = q;
  return chorus_success;
}

chorus_result_t plan_fold(planner_t *pl, const planner_req_t *req, plan_fold_t *out, planner_err_t *err) {
  memset(out, 0, sizeof *out);
  memset(err, 0, sizeof *err);
  const plan_shape_t *sh = req->shape;
  if (!sh || !plan_shape_even(sh)) {
    snprintf(err->msg, sizeof err->msg,
             "the analytic model replays one node for all: it needs the same number of ranks on every node");
    return chorus_invalid_usage;
  }
  int n = sh->nnodes, L = sh->node_size[0];
  plan_t *p0 = NULL;
  TRY(planner_plan_ranks(pl, req, 0, L, &p0, err));
  chorus_result_t r = chorus_success;
  if (p0->nhubs > 0) {
    snprintf(err->msg, sizeof err->msg,
             "algorithm %s has hubs (switches that reduce), which the analytic model does not replay: use --model "
             "event",
             p0->algo);
    r = chorus_invalid_usage;
  }
  int check[3] = {1, n / 2, n - 1};
  for (int i = 0; i < 3 && r == chorus_success; i++) {
    int k = check[i];
    if (k < 1 || k >= n || (i > 0 && k == check[i - 1])) continue;
    plan_t *q = NULL;
    r = planner_plan_ranks(pl, req, k * L, (k + 1) * L, &q, err);
    if (r == chorus_success) r = check_shift(p0, q, k, n, L, err);
    plan_destroy(q);
  }
  if (r == chorus_success) r = fold_peers(p0, L, out, err);
  if (r == chorus_success) out->nnodes = n, out->node_ranks = L;
  plan_destroy(p0);
  return r;
}

void plan_fold_fini(plan_fold_t *f) {
  plan_destroy(f->plan);
  free(f->peer_of);
  memset(f, 0, sizeof *f);
}
