/* test_plan.c -- the plan IR: shapes, appending, fusion, formatting. */
#include "plan.h"
#include "test.h"

static plan_op_t op(plan_opcode_t code, int recv_peer, int send_peer, int sb, int sc, int db, int dc) {
  plan_op_t o = {.code = (uint8_t)code, .recv_peer = recv_peer, .send_peer = send_peer, .src_buf = (uint8_t)sb,
                 .src_chunk = sc, .dst_buf = (uint8_t)db, .dst_chunk = dc};
  return o;
}

static void uneven_shapes_put_the_extra_ranks_first(void) {
  plan_shape_t s;
  CHECK_EQ_INT(plan_shape_init(&s, 7, 3, NULL), chorus_success);
  CHECK_EQ_INT(s.node_size[0], 3);
  CHECK_EQ_INT(s.node_size[1], 2);
  CHECK_EQ_INT(s.node_size[2], 2);
  CHECK_EQ_INT(s.rank_node[3], 1);
  CHECK_EQ_INT(s.node_first[2], 5);
  CHECK_EQ_INT(plan_shape_even(&s), 0);
  plan_shape_fini(&s);
  int sizes[] = {2, 2};
  CHECK_EQ_INT(plan_shape_init(&s, 5, 2, sizes), chorus_invalid_argument);
  CHECK_EQ_INT(plan_shape_init(&s, 2, 3, NULL), chorus_invalid_argument);
}

static void programs_are_appended_whole_and_in_order(void) {
  plan_t *p;
  CHECK_EQ_INT(plan_create(&p, chorus_allreduce, 2, 1, 0, NULL), chorus_success);
  plan_op_t s = op(PLAN_OP_SEND, -1, 1, PLAN_BUF_INPUT, 0, 0, -1);
  CHECK_EQ_INT(plan_append(p, 0, 0, &s), chorus_success);
  CHECK_EQ_INT(plan_append(p, 1, 0, &s), chorus_success);
  /* Rank 0's program is closed once rank 1's began. */
  CHECK_EQ_INT(plan_append(p, 0, 0, &s), chorus_invalid_usage);
  CHECK_EQ_INT(plan_append(p, 2, 0, &s), chorus_invalid_argument);
  CHECK_EQ_INT(plan_prog(p, 1, 0)->count, 1);
  plan_destroy(p);
}

static void fusion_joins_recv_then_send_of_the_same_chunk(void) {
  plan_t *p;
  CHECK_EQ_INT(plan_create(&p, chorus_allreduce, 3, 1, 0, NULL), chorus_success);
  plan_op_t ops[] = {
      op(PLAN_OP_RECV, 0, -1, 0, -1, PLAN_BUF_OUTPUT, 1),
      op(PLAN_OP_SEND, -1, 2, PLAN_BUF_OUTPUT, 1, 0, -1), /* fuses: sends what was received */
      op(PLAN_OP_RECV_REDUCE, 0, -1, PLAN_BUF_INPUT, 0, PLAN_BUF_OUTPUT, 0),
      op(PLAN_OP_SEND, -1, 2, PLAN_BUF_OUTPUT, 2, 0, -1), /* does not: another chunk */
      op(PLAN_OP_RECV_REDUCE, 0, -1, PLAN_BUF_INPUT, 2, PLAN_BUF_OUTPUT, 2),
      op(PLAN_OP_SEND, -1, 2, PLAN_BUF_OUTPUT, 2, 0, -1), /* fuses */
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) plan_append(p, 1, 0, &ops[i]);
  CHECK_EQ_INT(plan_fuse(p), 2);
  const plan_prog_t *prog = plan_prog(p, 1, 0);
  const plan_op_t *o = plan_prog_ops(p, 1, 0);
  CHECK_EQ_INT(prog->count, 4);
  CHECK_EQ_INT(o[0].code, PLAN_OP_RECV_COPY_SEND);
  CHECK_EQ_INT(o[0].send_peer, 2);
  CHECK_EQ_INT(o[1].code, PLAN_OP_RECV_REDUCE);
  CHECK_EQ_INT(o[2].code, PLAN_OP_SEND);
  CHECK_EQ_INT(o[3].code, PLAN_OP_RECV_REDUCE_COPY_SEND);
  char text[128];
  plan_op_format(p, &o[3], text, sizeof text);
  CHECK_CONTAINS(text, "recv_reduce_copy_send from 0 to 2 in[2] -> out[2]");
  plan_destroy(p);
}

static void fusion_drops_scratch_writes_nothing_reads(void) {
  plan_t *p;
  CHECK_EQ_INT(plan_create(&p, chorus_reduce, 3, 1, 0, NULL), chorus_success);
  p->scratch_chunks = 3;
  enum { IN = PLAN_BUF_INPUT, OUT = PLAN_BUF_OUTPUT, SCR = PLAN_BUF_SCRATCH };
  plan_op_t ops[] = {
      /* 0+1: the sum in scratch[0] is only sent on, so it is never written. */
      op(PLAN_OP_RECV_REDUCE, 2, -1, IN, 0, SCR, 0),
      op(PLAN_OP_SEND, -1, 0, SCR, 0, 0, -1),
      /* 2+3: scratch[1] is read by op 4: the write stays. */
      op(PLAN_OP_RECV_REDUCE, 2, -1, IN, 0, SCR, 1),
      op(PLAN_OP_SEND, -1, 0, SCR, 1, 0, -1),
      op(PLAN_OP_COPY, -1, -1, SCR, 1, OUT, 0),
      /* 5+6: scratch[2] is written again (op 7) before op 8 reads it. */
      op(PLAN_OP_RECV_REDUCE, 2, -1, SCR, 1, SCR, 2),
      op(PLAN_OP_SEND, -1, 0, SCR, 2, 0, -1),
      op(PLAN_OP_RECV, 2, -1, 0, -1, SCR, 2),
      op(PLAN_OP_COPY, -1, -1, SCR, 2, OUT, 0),
      /* 9+10: an output is never dropped, read later or not. */
      op(PLAN_OP_RECV_REDUCE, 2, -1, IN, 0, OUT, 0),
      op(PLAN_OP_SEND, -1, 0, OUT, 0, 0, -1),
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    plan_append(p, 1, 0, &ops[i]);
  CHECK_EQ_INT(plan_fuse(p), 4 + 2);
  const plan_prog_t *prog = plan_prog(p, 1, 0);
  const plan_op_t *o = plan_prog_ops(p, 1, 0);
  CHECK_EQ_INT(prog->count, 7);
  CHECK_EQ_INT(o[0].code, PLAN_OP_RECV_REDUCE_SEND);
  CHECK_EQ_INT(o[0].send_peer, 0);
  CHECK_EQ_INT(o[0].dst_chunk, -1);
  CHECK_EQ_INT(o[1].code, PLAN_OP_RECV_REDUCE_COPY_SEND);
  CHECK_EQ_INT(o[2].code, PLAN_OP_COPY);
  CHECK_EQ_INT(o[3].code, PLAN_OP_RECV_REDUCE_SEND);
  CHECK_EQ_INT(o[3].src_buf, SCR);
  CHECK_EQ_INT(o[3].src_chunk, 1);
  CHECK_EQ_INT(o[4].code, PLAN_OP_RECV);
  CHECK_EQ_INT(o[6].code, PLAN_OP_RECV_REDUCE_COPY_SEND);
  CHECK_EQ_INT(o[6].dst_buf, OUT);
  char text[128];
  plan_op_format(p, &o[0], text, sizeof text);
  CHECK_CONTAINS(text, "recv_reduce_send from 2 to 0 in[0]");
  plan_destroy(p);
}

static void units_follow_the_collective(void) {
  int in, out;
  plan_coll_units(chorus_allgather, 5, &in, &out);
  CHECK_EQ_INT(in, 1);
  CHECK_EQ_INT(out, 5);
  plan_coll_units(chorus_reducescatter, 5, &in, &out);
  CHECK_EQ_INT(in, 5);
  CHECK_EQ_INT(out, 1);
  plan_coll_units(chorus_alltoall, 4, &in, &out);
  CHECK_EQ_INT(in * out, 16);
  CHECK_TRUE(plan_coll_rooted(chorus_reduce) && !plan_coll_rooted(chorus_allreduce));
  CHECK_TRUE(plan_coll_reduces(chorus_reducescatter) && !plan_coll_reduces(chorus_alltoall));
}

TEST_MAIN(TEST(uneven_shapes_put_the_extra_ranks_first), TEST(programs_are_appended_whole_and_in_order),
          TEST(fusion_joins_recv_then_send_of_the_same_chunk), TEST(fusion_drops_scratch_writes_nothing_reads),
          TEST(units_follow_the_collective))
