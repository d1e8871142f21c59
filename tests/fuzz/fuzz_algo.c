/* fuzz_algo.c -- the planner loading an arbitrary algorithm script and
 * planning it for a few shapes (1, 2, 3 and 8 ranks on one node, 4 ranks on
 * two nodes; rooted collectives with the last rank as root), then the
 * verifier on every plan made. A refusal must say why; a plan must hold
 * only peers and chunks in range. A script error stops the shapes early,
 * since an endless loop costs its full instruction budget every time. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "planner.h"
#include "verify.h"

static void check_plan(const plan_t *p) {
  FUZZ_ASSERT(p->nchunks >= 1);
  for (size_t i = 0; i < (size_t)p->nops; i++) {
    const plan_op_t *op = &p->ops[i];
    FUZZ_ASSERT(op->recv_peer >= -1 && op->recv_peer < plan_nparts(p));
    FUZZ_ASSERT(op->send_peer >= -1 && op->send_peer < plan_nparts(p));
    FUZZ_ASSERT(op->src_buf < PLAN_NUM_BUFS && op->dst_buf < PLAN_NUM_BUFS);
  }
  verify_result_t vr;
  if (verify_plan(p, NULL, &vr) != chorus_success) FUZZ_ASSERT(vr.msg[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[1024];
  if (fuzz_scratch_file(data, size, "algo", path, sizeof path) != 0) return 0;
  planner_t *pl;
  planner_err_t err;
  chorus_result_t r = planner_open(&pl, path, NULL, &err);
  unlink(path);
  if (r != chorus_success) {
    FUZZ_ASSERT(pl == NULL && err.msg[0]);
    FUZZ_LOG("refused: %s\n", err.msg);
    return 0;
  }
  static const int ranks[] = {1, 2, 3, 8, 4};
  int stop = 0;
  for (int c = 0; c < chorus_num_collectives && !stop; c++) {
    if (!(planner_collectives(pl) & (1u << c))) continue;
    for (size_t k = 0; k < sizeof ranks / sizeof ranks[0] && !stop; k++) {
      plan_shape_t shape;
      int two_nodes = k == 4, sizes[2] = {2, 2};
      if (plan_shape_init(&shape, ranks[k], two_nodes ? 2 : 1, two_nodes ? sizes : NULL) != chorus_success) continue;
      planner_req_t req = {.coll = (chorus_coll_t)c, .nranks = ranks[k], .shape = &shape, .root = ranks[k] - 1};
      plan_t *p;
      r = planner_plan(pl, &req, &p, &err);
      if (r == chorus_success) {
        FUZZ_LOG("planned %s %s nranks=%d: %zu ops\n", planner_name(pl), chorus_coll_name(req.coll), req.nranks,
                 p->nops);
        check_plan(p);
        plan_destroy(p);
      } else {
        FUZZ_ASSERT(p == NULL && err.msg[0]);
        FUZZ_LOG("not planned: %s\n", err.msg);
        stop = r == chorus_script_error;
      }
      plan_shape_fini(&shape);
    }
  }
  planner_close(pl);
  return 0;
}
