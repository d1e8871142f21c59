/* test_verify.c -- the verifier on plans built by hand in C: correct plans of
 * every collective pass, and each kind of fault is named with its rank,
 * channel, op and script line; explain prints the rounds. */
#include <stdlib.h>

#include "explain.h"
#include "plan.h"
#include "test.h"
#include "verify.h"

static plan_op_t op(plan_opcode_t code, int recv_peer, int send_peer, int sb, int sc, int db, int dc) {
  plan_op_t o = {.code = (uint8_t)code,
                 .recv_peer = recv_peer,
                 .send_peer = send_peer,
                 .src_buf = (uint8_t)sb,
                 .src_chunk = sc,
                 .dst_buf = (uint8_t)db,
                 .dst_chunk = dc};
  return o;
}
static plan_op_t send_(int to, int b, int c) {
  return op(PLAN_OP_SEND, -1, to, b, c, 0, -1);
}
static plan_op_t recv_(int from, int b, int c) {
  return op(PLAN_OP_RECV, from, -1, 0, -1, b, c);
}
static plan_op_t copy_(int sb, int sc, int db, int dc) {
  return op(PLAN_OP_COPY, -1, -1, sb, sc, db, dc);
}
static plan_op_t rr_(int from, int sb, int sc, int db, int dc) {
  return op(PLAN_OP_RECV_REDUCE, from, -1, sb, sc, db, dc);
}

enum { IN = PLAN_BUF_INPUT, OUT = PLAN_BUF_OUTPUT, SCR = PLAN_BUF_SCRATCH };

static plan_t *new_plan(chorus_coll_t coll, int n, int nch, int root, int k) {
  plan_t *p = NULL;
  if (plan_create(&p, coll, n, nch, root, NULL) != chorus_success) return NULL;
  p->nchunks = k;
  snprintf(p->algo, sizeof p->algo, "test");
  plan_file_index(p, "algos/t.lua");
  return p;
}

/* Append ops[0..count) as the program of (rank, channel); op i carries the
 * script line 10 + i of "t.lua", so messages name "t.lua:10 + i". */
static void add(plan_t *p, int rank, int ch, const plan_op_t *ops, int count) {
  for (int i = 0; i < count; i++) {
    plan_op_t o = ops[i];
    o.line = 10 + i;
    CHECK_EQ_INT(plan_append(p, rank, ch, &o), chorus_success);
  }
}
#define ADD(p, rank, ch, ...)                                                                                          \
  do {                                                                                                                 \
    plan_op_t ops_[] = {__VA_ARGS__};                                                                                  \
    add(p, rank, ch, ops_, (int)(sizeof ops_ / sizeof ops_[0]));                                                       \
  } while (0)

static chorus_result_t verify(const plan_t *p, int inplace, int slots, verify_result_t *res) {
  verify_opts_t o = {.slots = slots, .inplace = inplace};
  return verify_plan(p, &o, res);
}

/* The fused ring: reduce-scatter then all-gather, k = n chunks, 2n - 1 ops
 * per rank. */
static plan_t *ring_allreduce(int n, int nch) {
  plan_t *p = new_plan(chorus_allreduce, n, nch, 0, n);
  plan_op_t *ops = malloc(sizeof *ops * (size_t)(2 * n - 1));
  for (int r = 0; r < n; r++) {
    int nxt = (r + 1) % n, prv = (r + n - 1) % n, i = 0;
#define C(s) (((r - (s)) % n + n) % n)
    ops[i++] = send_(nxt, IN, C(0));
    for (int s = 1; s <= n - 2; s++)
      ops[i++] = op(PLAN_OP_RECV_REDUCE_SEND, prv, nxt, IN, C(s), 0, -1);
    ops[i++] = op(PLAN_OP_RECV_REDUCE_COPY_SEND, prv, nxt, IN, C(n - 1), OUT, C(n - 1));
    for (int s = n; s <= 2 * n - 3; s++)
      ops[i++] = op(PLAN_OP_RECV_COPY_SEND, prv, nxt, 0, -1, OUT, C(s));
    ops[i++] = recv_(prv, OUT, C(2 * n - 2));
#undef C
    for (int ch = 0; ch < nch; ch++)
      add(p, r, ch, ops, i);
  }
  free(ops);
  return p;
}

static void ring_allreduce_built_in_c_verifies(void) {
  const int sizes[] = {2, 4, 5};
  for (int i = 0; i < 3; i++)
    for (int nch = 1; nch <= 2; nch++) {
      int n = sizes[i];
      plan_t *p = ring_allreduce(n, nch);
      verify_result_t res;
      CHECK_EQ_INT(verify_plan(p, NULL, &res), chorus_success);
      CHECK_EQ_INT(res.msg[0], 0);
      /* Every rank fires one op per round: 2n - 1 rounds. */
      CHECK_EQ_INT(res.rounds, 2 * n - 1);
      CHECK_TRUE(res.peak_values > 0);
      plan_destroy(p);
    }
}

/* Every rank sends its part straight to every other rank. */
static void direct_plans_of_every_collective_verify(void) {
  int n = 3, k = 2;
  verify_result_t res;
  plan_t *p = new_plan(chorus_broadcast, n, 1, 1, k);
  ADD(p, 0, 0, recv_(1, OUT, 0), recv_(1, OUT, 1));
  ADD(p, 1, 0, send_(0, IN, 0), send_(0, IN, 1), send_(2, IN, 0), send_(2, IN, 1), copy_(IN, 0, OUT, 0),
      copy_(IN, 1, OUT, 1));
  ADD(p, 2, 0, recv_(1, OUT, 0), recv_(1, OUT, 1));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_success);
  CHECK_EQ_INT(res.msg[0], 0);
  plan_destroy(p);

  p = new_plan(chorus_reduce, n, 1, 2, k);
  ADD(p, 0, 0, send_(2, IN, 0), send_(2, IN, 1));
  ADD(p, 1, 0, send_(2, IN, 0), send_(2, IN, 1));
  ADD(p, 2, 0, rr_(0, IN, 0, OUT, 0), rr_(0, IN, 1, OUT, 1), rr_(1, OUT, 0, OUT, 0), rr_(1, OUT, 1, OUT, 1));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_success);
  plan_destroy(p);

  p = new_plan(chorus_allgather, n, 1, 0, k);
  for (int r = 0; r < n; r++) {
    int a = (r + 1) % n, b = (r + 2) % n;
    ADD(p, r, 0, send_(a, IN, 0), send_(a, IN, 1), send_(b, IN, 0), send_(b, IN, 1), copy_(IN, 0, OUT, r * k),
        copy_(IN, 1, OUT, r * k + 1), recv_(a, OUT, a * k), recv_(a, OUT, a * k + 1), recv_(b, OUT, b * k),
        recv_(b, OUT, b * k + 1));
  }
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_success);
  plan_destroy(p);

  p = new_plan(chorus_reducescatter, n, 1, 0, k);
  for (int r = 0; r < n; r++) {
    int a = (r + 1) % n, b = (r + 2) % n;
    ADD(p, r, 0, send_(a, IN, a * k), send_(a, IN, a * k + 1), send_(b, IN, b * k), send_(b, IN, b * k + 1),
        rr_(a, IN, r * k, OUT, 0), rr_(a, IN, r * k + 1, OUT, 1), rr_(b, OUT, 0, OUT, 0), rr_(b, OUT, 1, OUT, 1));
  }
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_success);
  plan_destroy(p);

  p = new_plan(chorus_alltoall, n, 1, 0, k);
  for (int r = 0; r < n; r++) {
    int a = (r + 1) % n, b = (r + 2) % n;
    ADD(p, r, 0, send_(a, IN, a * k), send_(a, IN, a * k + 1), send_(b, IN, b * k), send_(b, IN, b * k + 1),
        copy_(IN, r * k, OUT, r * k), copy_(IN, r * k + 1, OUT, r * k + 1), recv_(a, OUT, a * k),
        recv_(a, OUT, a * k + 1), recv_(b, OUT, b * k), recv_(b, OUT, b * k + 1));
  }
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_success);
  /* alltoall has no in-place form to check alone. */
  CHECK_EQ_INT(verify(p, 1, 0, &res), chorus_invalid_argument);
  CHECK_CONTAINS(res.msg, "no in-place form");
  plan_destroy(p);
}

static void missing_contribution_is_named(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, send_(1, IN, 0), recv_(1, OUT, 0));
  ADD(p, 1, 0, recv_(0, OUT, 0), send_(0, OUT, 0)); /* forwards rank 0's data without adding its own */
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 2, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg,
                 "test allreduce nranks=2 nodes=1: rank 0 channel 0 output chunk 0 lacks the contribution of rank 1 "
                 "(holds 0); written last by op 1 (t.lua:11, recv from 1 out[0])");
  CHECK_EQ_INT(res.rank, 0);
  CHECK_EQ_INT(res.channel, 0);
  CHECK_EQ_INT(res.op, 1);
  plan_destroy(p);
}

static void double_count_is_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, send_(1, IN, 0), rr_(1, IN, 0, OUT, 0)); /* adds its own data a second time */
  ADD(p, 1, 0, rr_(0, IN, 0, OUT, 0), send_(0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 2, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 0 channel 0 op 1 (t.lua:11, recv_reduce from 1 in[0] -> out[0]): double-counts the "
                          "contribution of rank 0");
  CHECK_CONTAINS(res.msg, "holds ranks 0-1");
  CHECK_EQ_INT(res.rank, 0);
  CHECK_EQ_INT(res.channel, 0);
  CHECK_EQ_INT(res.op, 1);
  plan_destroy(p);
}

static void reducing_different_positions_is_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 2);
  ADD(p, 0, 0, send_(1, IN, 1));
  ADD(p, 1, 0, rr_(0, IN, 0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 2, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 1 channel 0 op 0 (t.lua:10, recv_reduce from 0 in[0] -> out[0]): reduces in[0] of rank "
                          "1 (its in[0]) with in[1] of rank 0 (received from rank 0): different positions");
  plan_destroy(p);
}

static void output_of_the_wrong_position_is_caught(void) {
  plan_t *p = new_plan(chorus_broadcast, 2, 1, 0, 2);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0), copy_(IN, 1, OUT, 1), send_(1, IN, 1), send_(1, IN, 0));
  ADD(p, 1, 0, recv_(0, OUT, 0), recv_(0, OUT, 1)); /* the chunks arrive in the other order */
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "test broadcast nranks=2 nodes=1 root=0: rank 1 channel 0 output chunk 0 holds the data of "
                          "position in[1], expected in[0]; written last by op 0 (t.lua:10, recv from 0 out[0])");
  CHECK_EQ_INT(res.rank, 1);
  CHECK_EQ_INT(res.op, 0);
  plan_destroy(p);
}

static void output_from_the_wrong_rank_is_caught(void) {
  plan_t *p = new_plan(chorus_allgather, 3, 1, 0, 1);
  ADD(p, 0, 0, send_(1, IN, 0), send_(2, IN, 0), copy_(IN, 0, OUT, 0), recv_(1, OUT, 1), recv_(2, OUT, 2));
  ADD(p, 1, 0, send_(0, IN, 0), send_(2, IN, 0), copy_(IN, 0, OUT, 1), recv_(0, OUT, 0), recv_(2, OUT, 2));
  ADD(p, 2, 0, send_(0, IN, 0), send_(1, IN, 0), copy_(IN, 0, OUT, 2), recv_(0, OUT, 1), recv_(1, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 2 channel 0 output chunk 0 holds rank 1's data, expected rank 0's; written last by "
                          "op 4 (t.lua:14, recv from 1 out[0])");
  plan_destroy(p);
}

static void output_never_written_is_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 1, 1, 0, 2);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg,
                 "rank 0 channel 0 output chunk 1 was never written; no op of this rank and channel writes it");
  CHECK_EQ_INT(res.rank, 0);
  CHECK_EQ_INT(res.op, -1);
  plan_destroy(p);
}

static void send_nobody_receives_is_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0), send_(1, OUT, 0));
  ADD(p, 1, 0, copy_(IN, 0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg,
                 "rank 0 channel 0 op 1 (t.lua:11, send to 1 out[0]): sends out[0] to rank 1, which never receives it");
  CHECK_EQ_INT(res.op, 1);

  /* Three sends into a connection of two slots whose receiver finished. */
  plan_destroy(p);
  p = new_plan(chorus_allreduce, 2, 1, 0, 3);
  ADD(p, 0, 0, send_(1, IN, 0), send_(1, IN, 1), send_(1, IN, 2));
  ADD(p, 1, 0, copy_(IN, 0, OUT, 0));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 0 channel 0 op 2 (t.lua:12, send to 1 in[2]): send to rank 1, which finished without "
                          "receiving it");
  plan_destroy(p);
}

static void receive_nobody_sends_is_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0));
  ADD(p, 1, 0, rr_(0, IN, 0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 1 channel 0 op 0 (t.lua:10, recv_reduce from 0 in[0] -> out[0]): recv from rank 0, "
                          "which finished without sending it");
  CHECK_EQ_INT(res.rank, 1);
  plan_destroy(p);
}

/* Both ranks send three chunks before receiving any. */
static plan_t *send_three_then_receive(void) {
  plan_t *p = new_plan(chorus_allgather, 2, 1, 0, 3);
  for (int r = 0; r < 2; r++) {
    int q = 1 - r;
    ADD(p, r, 0, send_(q, IN, 0), send_(q, IN, 1), send_(q, IN, 2), copy_(IN, 0, OUT, 3 * r),
        copy_(IN, 1, OUT, 3 * r + 1), copy_(IN, 2, OUT, 3 * r + 2), recv_(q, OUT, 3 * q), recv_(q, OUT, 3 * q + 1),
        recv_(q, OUT, 3 * q + 2));
  }
  return p;
}

static void deadlock_names_the_cycle(void) {
  plan_t *p = send_three_then_receive();
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "test allgather nranks=2 nodes=1: deadlock: rank 0 ch 0 op 2 (t.lua:12, send to 1 in[2]) "
                          "waits for rank 1 ch 0 op 2 (t.lua:12, send to 0 in[2]) waits for rank 0");
  CHECK_CONTAINS(res.msg, "holds 2 chunks");
  CHECK_EQ_INT(res.rank, 0);
  CHECK_EQ_INT(res.op, 2);
  plan_destroy(p);

  /* Rank 0 waits on rank 1, which waits on rank 2 and back: the cycle named
   * is 1 -> 2 -> 1, without the lead-in. */
  p = new_plan(chorus_allreduce, 3, 1, 0, 1);
  ADD(p, 0, 0, recv_(1, OUT, 0));
  ADD(p, 1, 0, recv_(2, OUT, 0));
  ADD(p, 2, 0, recv_(1, OUT, 0));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "deadlock: rank 1 ch 0 op 0 (t.lua:10, recv from 2 out[0]) waits for rank 2 ch 0 op 0 "
                          "(t.lua:10, recv from 1 out[0]) waits for rank 1");
  CHECK_TRUE(strstr(res.msg, "connection holds") == NULL);
  CHECK_EQ_INT(res.rank, 1);
  plan_destroy(p);
}

static void more_slots_lift_the_flow_control_deadlock(void) {
  plan_t *p = send_three_then_receive();
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 3, &res), chorus_success);
  CHECK_EQ_INT(verify(p, 0, 1, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "deadlock: rank 0 ch 0 op 1 ");
  CHECK_EQ_INT(verify(p, 0, -1, &res), chorus_invalid_argument);
  plan_destroy(p);
}

static void bad_peers_are_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0), send_(5, IN, 0));
  ADD(p, 1, 0, copy_(IN, 0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 0 channel 0 op 1 (t.lua:11, send to 5 in[0]): send peer 5 out of range (nranks 2, "
                          "ranks count from 0)");
  plan_destroy(p);

  p = new_plan(chorus_allreduce, 2, 2, 0, 1);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0));
  ADD(p, 0, 1, copy_(IN, 0, OUT, 0));
  ADD(p, 1, 0, copy_(IN, 0, OUT, 0));
  ADD(p, 1, 1, recv_(1, OUT, 0));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 1 channel 1 op 0 (t.lua:10, recv from 1 out[0]): recv peer 1 is this rank itself");
  CHECK_EQ_INT(res.channel, 1);
  plan_destroy(p);
}

static void chunks_out_of_range_are_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 2);
  ADD(p, 0, 0, send_(1, IN, 4));
  ADD(p, 1, 0, recv_(0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 0 channel 0 op 0 (t.lua:10, send to 1 in[4]): chunk 4 out of range for in (2 chunks, "
                          "counting from 0)");
  plan_destroy(p);

  p = new_plan(chorus_allreduce, 2, 1, 0, 2);
  ADD(p, 0, 0, copy_(IN, 0, SCR, 0));
  ADD(p, 1, 0, copy_(IN, 0, OUT, 0));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "chunk 0 out of range for scratch (0 chunks, counting from 0)");
  plan_destroy(p);
}

static void writes_to_the_input_are_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, send_(1, IN, 0));
  ADD(p, 1, 0, rr_(0, IN, 0, IN, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 1 channel 0 op 0 (t.lua:10, recv_reduce from 0 in[0] -> in[0]): writes in[0]: IN is "
                          "read-only");
  plan_destroy(p);
}

static void reads_of_unwritten_chunks_are_caught(void) {
  plan_t *p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  p->scratch_chunks = 1;
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0), send_(1, SCR, 0));
  ADD(p, 1, 0, recv_(0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 0 channel 0 op 1 (t.lua:11, send to 1 scratch[0]): reads scratch[0] before anything "
                          "wrote it");
  plan_destroy(p);

  /* In broadcast only the root's input holds data. */
  p = new_plan(chorus_broadcast, 2, 1, 0, 1);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0), send_(1, IN, 0));
  ADD(p, 1, 0, rr_(0, IN, 0, OUT, 0));
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "rank 1 channel 0 op 0 (t.lua:10, recv_reduce from 0 in[0] -> out[0]): reads in[0], which "
                          "holds no data: in broadcast only the root's input (rank 0) does");
  plan_destroy(p);
}

static void reduce_non_root_output_is_caught(void) {
  plan_t *p = new_plan(chorus_reduce, 2, 1, 0, 1);
  ADD(p, 0, 0, rr_(1, IN, 0, OUT, 0));
  ADD(p, 1, 0, copy_(IN, 0, OUT, 0), send_(0, OUT, 0));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg,
                 "test reduce nranks=2 nodes=1 root=0: rank 1 channel 0 op 0 (t.lua:10, copy in[0] -> out[0]): "
                 "touches out[0], but in reduce only the root (rank 0) has an output buffer");
  plan_destroy(p);
}

static void the_first_fault_is_reported_by_round_then_rank(void) {
  /* Rank 0's fault comes in round 2, ranks 1's and 2's in round 1. */
  plan_t *p = new_plan(chorus_allreduce, 3, 1, 0, 2);
  ADD(p, 0, 0, copy_(IN, 0, OUT, 0), send_(1, OUT, 1));
  ADD(p, 1, 0, send_(2, OUT, 0));
  ADD(p, 2, 0, send_(0, OUT, 1));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_EQ_INT(res.rank, 1);
  CHECK_CONTAINS(res.msg, "rank 1 channel 0 op 0 (t.lua:10, send to 2 out[0]): reads out[0] before anything wrote it");
  plan_destroy(p);
}

/* Rank 1 stages rank 0's chunk in out[1], its own slot, before sending its
 * in[0]: right out of place, wrong in place, where in[0] is out[1]. */
static void in_place_catches_input_overwritten_too_early(void) {
  plan_t *p = new_plan(chorus_allgather, 2, 1, 0, 1);
  ADD(p, 0, 0, send_(1, IN, 0), recv_(1, OUT, 1), copy_(IN, 0, OUT, 0));
  ADD(p, 1, 0, recv_(0, OUT, 1), copy_(OUT, 1, OUT, 0), send_(0, IN, 0), copy_(IN, 0, OUT, 1));
  verify_result_t res;
  CHECK_EQ_INT(verify(p, 2, 0, &res), chorus_success);
  CHECK_EQ_INT(verify(p, 1, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "test allgather nranks=2 nodes=1 in place: rank 0 channel 0 output chunk 1 holds rank 0's "
                          "data, expected rank 1's");
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, " in place: ");
  plan_destroy(p);

  /* Allreduce: rank 0 sends its in[0] after reducing into out[0], which in
   * place is the same chunk, so rank 1 counts itself twice. */
  p = new_plan(chorus_allreduce, 2, 1, 0, 1);
  ADD(p, 0, 0, rr_(1, IN, 0, OUT, 0), send_(1, IN, 0));
  ADD(p, 1, 0, send_(0, IN, 0), rr_(0, IN, 0, OUT, 0));
  CHECK_EQ_INT(verify(p, 2, 0, &res), chorus_success);
  CHECK_EQ_INT(verify(p, 0, 0, &res), chorus_verify_failed);
  CHECK_CONTAINS(res.msg, "test allreduce nranks=2 nodes=1 in place: rank 1 channel 0 op 1 (t.lua:11, recv_reduce "
                          "from 0 in[0] -> out[0]): double-counts the contribution of rank 1");
  plan_destroy(p);
}

static char *explain_text(const plan_t *p, chorus_result_t *r, verify_result_t *res) {
  char *text = NULL;
  size_t len = 0;
  *r = chorus_system_error;
  memset(res, 0, sizeof *res);
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  *r = verify_explain(p, f, res);
  fclose(f);
  return text;
}

static void explain_shows_the_rounds_of_a_two_rank_ring(void) {
  plan_t *p = ring_allreduce(2, 1);
  chorus_result_t r;
  verify_result_t res;
  char *text = explain_text(p, &r, &res);
  CHECK_EQ_INT(r, chorus_success);
  CHECK_EQ_INT(res.rounds, 3);
  CHECK_CONTAINS(text, "test allreduce: 2 ranks on 1 node, 1 channel, 2 chunks per unit\n");
  /* Op texts are padded to 40 columns, then two blanks and the op name. */
  CHECK_CONTAINS(text, "round 1:\n  r0 -> r1  in[0] {0}                       send\n"
                       "  r1 -> r0  in[1] {1}                       send\n");
  CHECK_CONTAINS(text, "round 2:\n"
                       "  r0: out[1] = in[1] + from r1 -> {0-1}, sent to r1  recv_reduce_copy_send\n"
                       "  r1: out[0] = in[0] + from r0 -> {0-1}, sent to r0  recv_reduce_copy_send\n");
  CHECK_CONTAINS(text, "  after round 2:\n"
                       "        out[0]  out[1]\n"
                       "    r0  .       {0-1}\n"
                       "    r1  {0-1}   .\n");
  CHECK_CONTAINS(text, "round 3:\n  r0: out[0] = from r1 -> {0-1}");
  CHECK_CONTAINS(text, "done in 3 rounds: every rank holds in out[c] the reduction of in[c] over all 2 ranks\n");
  free(text);
  plan_destroy(p);
}

static void explain_caps_large_runs_and_reports_failures(void) {
  plan_t *p = ring_allreduce(10, 1);
  chorus_result_t r;
  verify_result_t res;
  char *text = explain_text(p, &r, &res);
  CHECK_EQ_INT(r, chorus_success);
  CHECK_CONTAINS(text, "  ... and 2 more ops on ranks 8-9\n");
  CHECK_CONTAINS(text, "    (ranks 8-9 not shown)\n");
  CHECK_TRUE(strstr(text, "r8:") == NULL);
  free(text);
  plan_destroy(p);

  p = send_three_then_receive();
  text = explain_text(p, &r, &res);
  CHECK_EQ_INT(r, chorus_verify_failed);
  CHECK_CONTAINS(text, "failed: test allgather nranks=2 nodes=1: deadlock: ");
  CHECK_CONTAINS(text, "r0 -> r1  in[1] r0.in[1]");
  free(text);
  plan_destroy(p);
}

TEST_MAIN(TEST(ring_allreduce_built_in_c_verifies), TEST(direct_plans_of_every_collective_verify),
          TEST(missing_contribution_is_named), TEST(double_count_is_caught),
          TEST(reducing_different_positions_is_caught), TEST(output_of_the_wrong_position_is_caught),
          TEST(output_from_the_wrong_rank_is_caught), TEST(output_never_written_is_caught),
          TEST(send_nobody_receives_is_caught), TEST(receive_nobody_sends_is_caught), TEST(deadlock_names_the_cycle),
          TEST(more_slots_lift_the_flow_control_deadlock), TEST(bad_peers_are_caught),
          TEST(chunks_out_of_range_are_caught), TEST(writes_to_the_input_are_caught),
          TEST(reads_of_unwritten_chunks_are_caught), TEST(reduce_non_root_output_is_caught),
          TEST(the_first_fault_is_reported_by_round_then_rank), TEST(in_place_catches_input_overwritten_too_early),
          TEST(explain_shows_the_rounds_of_a_two_rank_ring), TEST(explain_caps_large_runs_and_reports_failures))
