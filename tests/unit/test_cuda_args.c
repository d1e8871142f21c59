/* test_cuda_args.c -- engine/cuda_args.c: every shipped algorithm's verified
 * plans, for every collective, 1 to 8 ranks, 1 and 3 channels, marshalled
 * into the CUDA kernel's flat program and checked op by op against the plan
 * (code, buffers, chunks, and peers through the connection table); the
 * kernel's limits refused with messages naming the plan and the limit; and a
 * call's geometry equal to the CPU executor's. Runs without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "cuda_args.h"
#include "geom.h"
#include "params.h"
#include "cache.h"
#include "planner.h"
#include "test.h"

static const char *const algos[] = {"ring", "tree", "rd", "rhd", "direct", "hybrid"};

/* Every op of every (rank, channel) of p round-trips; returns the ops seen. */
static size_t check_plan(const plan_t *p) {
  size_t seen = 0;
  for (int r = 0; r < p->nranks; r++) {
    kcu_prog_t *k = NULL;
    size_t bytes = 0;
    chorus_result_t res = cuda_args_marshal(p, r, &k, &bytes);
    CHECK_EQ_INT(res, chorus_success);
    if (res != chorus_success) {
      fprintf(stderr, "  %s\n", chorus_last_error());
      continue;
    }
    CHECK_EQ_INT(k->nchannels, p->nchannels);
    CHECK_EQ_INT(k->nchunks, p->nchunks);
    CHECK_EQ_INT(k->scratch_chunks, p->scratch_chunks);
    CHECK_TRUE(bytes == kcu_prog_bytes(k->nops));
    /* Connections: each (peer, channel, direction) once, peers in range. */
    for (int i = 0; i < k->nconns; i++) {
      CHECK_TRUE(k->conns[i].ring == NULL && k->conns[i].slots == NULL);
      CHECK_TRUE(k->conns[i].peer >= 0 && k->conns[i].peer < p->nranks && k->conns[i].peer != r);
      for (int j = 0; j < i; j++)
        CHECK_TRUE(k->conns[j].peer != k->conns[i].peer || k->conns[j].channel != k->conns[i].channel ||
                   k->conns[j].is_send != k->conns[i].is_send);
    }
    uint32_t next = 0;
    for (int ch = 0; ch < p->nchannels; ch++) {
      const plan_prog_t *pg = plan_prog(p, r, ch);
      const plan_op_t *ops = plan_prog_ops(p, r, ch);
      CHECK_EQ_INT(k->chan[ch].first, next);
      CHECK_EQ_INT(k->chan[ch].count, pg->count);
      for (uint32_t i = 0; i < pg->count; i++) {
        const kcu_op_t *d = &k->ops[k->chan[ch].first + i];
        const plan_op_t *o = &ops[i];
        int bad = d->code != o->code || d->src_buf != o->src_buf || d->dst_buf != o->dst_buf ||
                  d->src_chunk != o->src_chunk || d->dst_chunk != o->dst_chunk;
        if (plan_op_receives(o->code)) {
          bad |= d->recv_conn < 0 || d->recv_conn >= k->nconns;
          if (!bad) {
            const kcu_conn_t *c = &k->conns[d->recv_conn];
            bad |= c->peer != o->recv_peer || c->channel != ch || c->is_send != 0;
          }
        } else {
          bad |= d->recv_conn != -1;
        }
        if (plan_op_sends(o->code)) {
          bad |= d->send_conn < 0 || d->send_conn >= k->nconns;
          if (!bad) {
            const kcu_conn_t *c = &k->conns[d->send_conn];
            bad |= c->peer != o->send_peer || c->channel != ch || c->is_send != 1;
          }
        } else {
          bad |= d->send_conn != -1;
        }
        if (bad) {
          char desc[160];
          plan_op_format(p, o, desc, sizeof desc);
          fprintf(stderr, "  %s %s n=%d rank %d ch %d op %u (%s) does not round-trip\n", p->algo,
                  chorus_coll_name(p->coll), p->nranks, r, ch, i, desc);
        }
        CHECK_TRUE(!bad);
        seen++;
      }
      next += pg->count;
    }
    CHECK_EQ_INT(k->nops, next);
    free(k);
  }
  return seen;
}

static void test_every_shipped_plan_round_trips_op_by_op(void) {
  plan_cache_t *cache = plan_cache_create();
  size_t ops = 0;
  int plans = 0;
  for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
    for (int coll = 0; coll < chorus_num_collectives; coll++)
      for (int n = 1; n <= 8; n++)
        for (int nch = 1; nch <= 3; nch += 2) {
          planner_req_t req = {.algo = algos[a], .coll = (chorus_coll_t)coll, .nranks = n, .root = n - 1,
                               .nchannels = nch};
          planner_err_t err;
          const plan_t *p;
          if (plan_cache_get(cache, &req, 1, &p, &err) != chorus_success) continue; /* declined shape */
          ops += check_plan(p);
          plans++;
        }
  printf("  %d plans, %zu ops\n", plans, ops);
  CHECK_TRUE(plans > 150); /* the shipped algorithms cover most shapes: a planner that plans nothing fails */
  plan_cache_destroy(cache);
}

static void test_limits_are_refused_with_the_plan_and_the_limit(void) {
  /* A rank that sends to more peers than the kernel holds connections. */
  int n = KCU_MAX_CONNS + 2;
  plan_t *p = NULL;
  CHECK_EQ_INT(plan_create(&p, chorus_broadcast, n, 1, 0, NULL), chorus_success);
  if (!p) return;
  snprintf(p->algo, sizeof p->algo, "fanout");
  p->nchunks = 1;
  for (int r = 0; r < n; r++) {
    if (r == 0) {
      for (int q = 1; q < n; q++) {
        plan_op_t o = {.code = PLAN_OP_SEND, .src_buf = PLAN_BUF_INPUT, .src_chunk = 0, .dst_chunk = -1,
                       .recv_peer = -1, .send_peer = q};
        CHECK_EQ_INT(plan_append(p, r, 0, &o), chorus_success);
      }
    } else {
      plan_op_t o = {.code = PLAN_OP_RECV, .dst_buf = PLAN_BUF_OUTPUT, .src_chunk = -1, .dst_chunk = 0,
                     .recv_peer = 0, .send_peer = -1};
      CHECK_EQ_INT(plan_append(p, r, 0, &o), chorus_success);
    }
  }
  kcu_prog_t *k = NULL;
  size_t bytes;
  CHECK_EQ_INT(cuda_args_marshal(p, 0, &k, &bytes), chorus_invalid_argument);
  CHECK_TRUE(k == NULL);
  CHECK_CONTAINS(chorus_last_error(), "plan fanout (broadcast, 258 ranks): rank 0 uses more than 256 connections");
  CHECK_EQ_INT(cuda_args_marshal(p, 5, &k, &bytes), chorus_success); /* a receiver has one */
  if (k) CHECK_EQ_INT(k->nconns, 1);
  free(k);
  k = NULL;
  CHECK_EQ_INT(cuda_args_marshal(p, n, &k, &bytes), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "rank 258 is not one of its ranks");
  p->scratch_chunks = KCU_MAX_SCRATCH + 1;
  CHECK_EQ_INT(cuda_args_marshal(p, 5, &k, &bytes), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "257 scratch chunks per channel; the CUDA kernel holds at most 256");
  p->scratch_chunks = 0;
  p->ops[p->progs[5 * p->nchannels].first].code = 42;
  CHECK_EQ_INT(cuda_args_marshal(p, 5, &k, &bytes), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "rank 5 channel 0 op 0: code 42");
  plan_destroy(p);
}

static void test_call_geometry_is_the_cpu_executors(void) {
  kcu_prog_t prog = {.nchannels = 3, .nchunks = 4};
  kcu_args_t a;
  /* 1000 floats on 3 channels: ceil(1000/3) = 334 elements, 1336 bytes,
   * rounded up to 64 bytes: 1344 bytes = 336 elements per channel. */
  geom_conn_t conn = geom_conn_engine(4u << 20); /* the default buffer: 512 KiB chunks and steps */
  geom_call_t g = geom_call(1000, 4, 3, 4, &conn);
  cuda_args_call(&a, &prog, &g, &conn, 2, chorus_float32, chorus_avg, 0xabcd, 4, 1.5);
  CHECK_EQ_INT(a.chan_elems, 336);
  CHECK_EQ_INT(a.es, 4);
  CHECK_EQ_INT(a.ce_max, (512u << 10) / 4); /* chunk capped at the plan's 512 KiB */
  CHECK_EQ_INT(a.step_bytes, 1u << 19);
  CHECK_EQ_INT(a.scratch_stride, 1u << 20); /* 2 chunks of 512 KiB */
  CHECK_EQ_INT(a.steps_per_chunk, GEOM_STEPS_PER_CHUNK);
  CHECK_EQ_INT(a.tag, 0xabcd);
  CHECK_EQ_INT(a.divide, 4);
  CHECK_EQ_INT(a.timeout_ns, 1500000000ull);
  CHECK_TRUE(a.prog == &prog);
  /* The last channel's part and its chunks, as exec.c cuts them. */
  size_t off, len;
  geom_part(1000, a.chan_elems, 2, &off, &len);
  CHECK_EQ_INT(off, 672);
  CHECK_EQ_INT(len, 328);
  size_t ce = geom_chunk_elems(len, 4, 4, a.ce_max);
  CHECK_EQ_INT(ce, 96); /* ceil(328/4) = 82 floats, 328 bytes, rounded to 384 */
  size_t pos;
  CHECK_EQ_INT(geom_chunk_len(len, 0, 3, ce, &pos), 40);
  CHECK_EQ_INT(pos, 288);
  CHECK_EQ_INT(geom_chunk_len(len, 0, 4, ce, &pos), 0);
  CHECK_EQ_INT(geom_piece(1u << 20, 1u << 19, 4, GEOM_MIN_STEP), 256u << 10); /* 4 pieces of a 1 MiB chunk */
  CHECK_EQ_INT(geom_piece(8, 1u << 19, 4, GEOM_MIN_STEP), 64);
  CHECK_EQ_INT(geom_piece(0, 1u << 19, 4, GEOM_MIN_STEP), 64);
  conn = geom_conn_engine(128u << 10); /* 64 KiB chunks of 16 KiB steps */
  g = geom_call(7, 8, 3, 4, &conn);
  cuda_args_call(&a, &prog, &g, &conn, 0, chorus_float64, chorus_sum, 1, 0, 0);
  CHECK_EQ_INT(a.ce_max, (64u << 10) / 8);
  CHECK_EQ_INT(a.step_bytes, 16u << 10);
  CHECK_EQ_INT(a.timeout_ns, 0);
  CHECK_EQ_INT(a.scratch_stride, 0);
  /* A plan whose connections hold 8 chunks (plan.h window): each chunk one
   * step of 16 KiB at most, so that 8 fit in the 8 slots. */
  geom_conn_t w8 = geom_conn_window(conn, 8);
  g = geom_call(1u << 20, 4, 1, 4, &w8);
  cuda_args_call(&a, &prog, &g, &w8, 2, chorus_float32, chorus_sum, 1, 0, 0);
  CHECK_EQ_INT(a.steps_per_chunk, 1);
  CHECK_EQ_INT(a.ce_max, (16u << 10) / 4);
  CHECK_EQ_INT(a.scratch_stride, 2 * (16u << 10));
  CHECK_EQ_INT(geom_conn_window(conn, 2).chunk_bytes, conn.chunk_bytes); /* the default changes nothing */
  CHECK_EQ_INT(geom_conn_window(conn, 3).steps_per_chunk, 2);           /* 3 chunks of 2 steps in 8 slots */
  CHECK_EQ_INT(geom_conn_window(conn, 3).chunk_bytes, 32u << 10);
}

TEST_MAIN(TEST(test_every_shipped_plan_round_trips_op_by_op), TEST(test_limits_are_refused_with_the_plan_and_the_limit),
          TEST(test_call_geometry_is_the_cpu_executors))
