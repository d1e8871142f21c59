/* cuda_args.c -- marshal a plan into the CUDA kernel's flat program, and a
 * call into its arguments, with the CPU executor's geometry (core/geom.h). */
#include <stdlib.h>
#include <string.h>

#include "cuda_args.h"
#include "geom.h"
#include "error.h"
#include "params.h"

/* The kernel interprets plan op codes and buffers by value. */
_Static_assert((int)KCU_OP_SEND == (int)PLAN_OP_SEND && (int)KCU_OP_RECV == (int)PLAN_OP_RECV &&
                   (int)KCU_OP_RECV_REDUCE == (int)PLAN_OP_RECV_REDUCE && (int)KCU_OP_COPY == (int)PLAN_OP_COPY &&
                   (int)KCU_OP_RECV_COPY_SEND == (int)PLAN_OP_RECV_COPY_SEND &&
                   (int)KCU_OP_RECV_REDUCE_SEND == (int)PLAN_OP_RECV_REDUCE_SEND &&
                   (int)KCU_OP_RECV_REDUCE_COPY_SEND == (int)PLAN_OP_RECV_REDUCE_COPY_SEND &&
                   (int)KCU_NUM_OPS == (int)PLAN_NUM_OPS,
               "kernel op codes are the plan's");
_Static_assert((int)KCU_BUF_INPUT == (int)PLAN_BUF_INPUT && (int)KCU_BUF_OUTPUT == (int)PLAN_BUF_OUTPUT &&
                   (int)KCU_BUF_SCRATCH == (int)PLAN_BUF_SCRATCH,
               "kernel buffers are the plan's");
_Static_assert(KCU_MAX_CHANNELS >= PLAN_MAX_CHANNELS, "every plan's channels fit the kernel");

static int conn_index(kcu_prog_t *k, int peer, int channel, int is_send) {
  for (int i = 0; i < k->nconns; i++)
    if (k->conns[i].peer == peer && k->conns[i].channel == channel && k->conns[i].is_send == is_send) return i;
  if (k->nconns == KCU_MAX_CONNS) return -1;
  k->conns[k->nconns] = (kcu_conn_t){.ring = NULL, .slots = NULL, .peer = peer, .channel = channel, .is_send = is_send};
  return k->nconns++;
}

chorus_result_t cuda_args_marshal(const plan_t *p, int rank, kcu_prog_t **out, size_t *bytes) {
  *out = NULL;
  const char *coll = chorus_coll_name(p->coll);
  if (rank < 0 || rank >= p->nranks)
    return err_set(chorus_invalid_argument, "plan %s (%s, %d ranks): rank %d is not one of its ranks", p->algo, coll,
                   p->nranks, rank);
  if (p->nchannels < 1 || p->nchannels > KCU_MAX_CHANNELS)
    return err_set(chorus_invalid_argument, "plan %s (%s, %d ranks): %d channels; the CUDA kernel runs 1 to %d",
                   p->algo, coll, p->nranks, p->nchannels, KCU_MAX_CHANNELS);
  if (p->scratch_chunks < 0 || p->scratch_chunks > KCU_MAX_SCRATCH)
    return err_set(chorus_invalid_argument,
                   "plan %s (%s, %d ranks): %d scratch chunks per channel; the CUDA kernel holds at most %d", p->algo,
                   coll, p->nranks, p->scratch_chunks, KCU_MAX_SCRATCH);
  size_t nops = 0;
  for (int ch = 0; ch < p->nchannels; ch++) nops += plan_prog(p, rank, ch)->count;
  if (nops > KCU_MAX_OPS)
    return err_set(chorus_invalid_argument, "plan %s (%s, %d ranks): rank %d has %zu ops; the CUDA kernel runs at most %u",
                   p->algo, coll, p->nranks, rank, nops, KCU_MAX_OPS);
  *bytes = kcu_prog_bytes((uint32_t)nops);
  kcu_prog_t *k = calloc(1, *bytes);
  if (!k) return err_set(chorus_out_of_memory, "out of memory for a CUDA program of %zu ops", nops);
  k->nchannels = p->nchannels, k->nchunks = p->nchunks, k->scratch_chunks = p->scratch_chunks;
  k->nops = (uint32_t)nops;
  uint32_t n = 0;
  for (int ch = 0; ch < p->nchannels; ch++) {
    const plan_prog_t *pg = plan_prog(p, rank, ch);
    const plan_op_t *ops = plan_prog_ops(p, rank, ch);
    k->chan[ch] = (kcu_chan_prog_t){.first = n, .count = pg->count};
    for (uint32_t i = 0; i < pg->count; i++, n++) {
      const plan_op_t *o = &ops[i];
      kcu_op_t *d = &k->ops[n];
      if (o->code >= PLAN_NUM_OPS || o->src_buf >= PLAN_NUM_BUFS || o->dst_buf >= PLAN_NUM_BUFS) {
        free(k);
        return err_set(chorus_invalid_argument, "plan %s (%s, %d ranks): rank %d channel %d op %u: code %d or buffer "
                       "%d/%d is unknown to the CUDA kernel", p->algo, coll, p->nranks, rank, ch, i, o->code,
                       o->src_buf, o->dst_buf);
      }
      *d = (kcu_op_t){.code = o->code, .src_buf = o->src_buf, .dst_buf = o->dst_buf, .src_chunk = o->src_chunk,
                      .dst_chunk = o->dst_chunk, .recv_conn = -1, .send_conn = -1};
      int ri = plan_op_receives(o->code) ? conn_index(k, o->recv_peer, ch, 0) : -2;
      int si = plan_op_sends(o->code) ? conn_index(k, o->send_peer, ch, 1) : -2;
      if (ri == -1 || si == -1) {
        free(k);
        return err_set(chorus_invalid_argument,
                       "plan %s (%s, %d ranks): rank %d uses more than %d connections; the CUDA kernel holds at most %d",
                       p->algo, coll, p->nranks, rank, KCU_MAX_CONNS, KCU_MAX_CONNS);
      }
      if (ri >= 0) d->recv_conn = (int16_t)ri;
      if (si >= 0) d->send_conn = (int16_t)si;
    }
  }
  *out = k;
  return chorus_success;
}

void cuda_args_call(kcu_args_t *a, const kcu_prog_t *prog, const geom_call_t *g, const geom_conn_t *conn,
                    int scratch_chunks, chorus_dtype_t dt, chorus_redop_t op, uint32_t tag, int divide,
                    double timeout_s) {
  memset(a, 0, sizeof *a);
  a->prog = prog;
  a->count = g->count;
  a->es = (uint32_t)g->es;
  a->chan_elems = g->chan_elems;
  a->ce_max = g->ce_max;
  a->step_bytes = conn->step_bytes;
  a->steps_per_chunk = (uint64_t)conn->steps_per_chunk;
  a->tag = tag;
  a->dt = dt, a->op = op;
  a->divide = divide;
  a->timeout_ns = timeout_s > 0 ? (uint64_t)(timeout_s * 1e9) : 0;
  a->scratch_stride = (size_t)scratch_chunks * conn->chunk_bytes;
}
