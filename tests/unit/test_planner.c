/* test_planner.c -- the planner: scripts written to a temporary algorithm
 * folder, planned, and their ops, errors, context and cache checked. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "planner.h"
#include "test.h"
#include "verify.h"

static char dir[64];

static void write_script(const char *name, const char *code) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  FILE *f = fopen(path, "w");
  fputs(code, f);
  fclose(f);
}

static chorus_result_t plan_it(const char *algo, chorus_coll_t coll, int n, plan_t **p, planner_err_t *err) {
  planner_req_t req = {.algo = algo, .coll = coll, .nranks = n, .algos_dir = dir};
  return planner_build(&req, p, err);
}

static const char *ring_script =
    "return {\n"
    "  name = 'ring2', collectives = { 'allreduce' },\n"
    "  chunks = function(ctx) return ctx.nranks end,\n"
    "  program = function(ctx)\n"
    "    local n, r = ctx.nranks, ctx.rank\n"
    "    local nxt, prv = (r + 1) % n, (r - 1) % n\n"
    "    local function c(s) return (r - s) % n end\n"
    "    ctx:send(nxt, IN, c(0))\n"
    "    for s = 1, n - 2 do ctx:recv_reduce_send(prv, nxt, IN, c(s)) end\n"
    "    ctx:recv_reduce(prv, IN, c(n - 1), OUT, c(n - 1))\n"
    "    ctx:send(nxt, OUT, c(n - 1))\n"
    "    for s = n, 2 * n - 3 do ctx:recv(prv, OUT, c(s)); ctx:send(nxt, OUT, c(s)) end\n"
    "    ctx:recv(prv, OUT, c(2 * n - 2))\n"
    "  end,\n"
    "}\n";

static void a_ring_script_becomes_fused_ops_with_lines(void) {
  plan_t *p;
  planner_err_t err;
  CHECK_EQ_INT(plan_it("ring2", chorus_allreduce, 4, &p, &err), chorus_success);
  if (!p) return;
  CHECK_EQ_INT(p->nchunks, 4);
  CHECK_EQ_INT(p->nops, 4 * 7);
  const plan_op_t *o = plan_prog_ops(p, 1, 0);
  CHECK_EQ_INT(o[0].code, PLAN_OP_SEND);
  CHECK_EQ_INT(o[0].send_peer, 2);
  CHECK_EQ_INT(o[0].line, 8);
  CHECK_EQ_INT(o[1].code, PLAN_OP_RECV_REDUCE_SEND);
  CHECK_EQ_INT(o[3].code, PLAN_OP_RECV_REDUCE_COPY_SEND);
  CHECK_EQ_INT(o[3].line, 10);
  CHECK_EQ_INT(o[4].code, PLAN_OP_RECV_COPY_SEND);
  CHECK_EQ_INT(o[6].code, PLAN_OP_RECV);
  CHECK_CONTAINS(p->files[o[0].file], "ring2.lua");
  CHECK_CONTAINS(p->algo, "ring2");
  plan_destroy(p);
}

static void no_fuse_keeps_the_plain_ops(void) {
  plan_t *p;
  planner_err_t err;
  planner_req_t req = {.algo = "ring2", .coll = chorus_allreduce, .nranks = 4, .algos_dir = dir, .no_fuse = 1};
  CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_success);
  if (!p) return;
  CHECK_EQ_INT(plan_prog(p, 0, 0)->count, 10);
  plan_destroy(p);
}

static void bad_ops_are_errors_at_their_line(void) {
  write_script("badpeer", "return { name = 'badpeer', collectives = { 'allreduce' }, chunks = 2,\n"
                          "  program = function(ctx)\n"
                          "    if ctx.rank == 1 then ctx:send(ctx.nranks, IN, 0) end\n"
                          "  end }\n");
  write_script("badchunk", "return { name = 'badchunk', collectives = { 'allgather' }, chunks = 2,\n"
                           "  program = function(ctx)\n"
                           "    ctx:copy(IN, 0, OUT, 2 * ctx.nranks)\n"
                           "  end }\n");
  write_script("writein", "return { name = 'writein', collectives = { 'allreduce' }, chunks = 1,\n"
                          "  program = function(ctx)\n"
                          "    ctx:copy(OUT, 0, IN, 0)\n"
                          "  end }\n");
  write_script("early", "return { name = 'early', collectives = { 'allreduce' },\n"
                        "  chunks = function(ctx) ctx:send(1, IN, 0) return 1 end,\n"
                        "  program = function(ctx) end }\n");
  plan_t *p;
  planner_err_t err;
  CHECK_EQ_INT(plan_it("badpeer", chorus_allreduce, 4, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "badpeer.lua:3");
  CHECK_CONTAINS(err.msg, "peer 4 out of range");
  CHECK_CONTAINS(err.msg, "rank 1 channel 0");
  CHECK_EQ_INT(plan_it("badchunk", chorus_allgather, 3, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "chunk 6 out of range for out (6 chunks");
  CHECK_EQ_INT(plan_it("writein", chorus_allreduce, 2, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "IN is read-only");
  CHECK_EQ_INT(plan_it("early", chorus_allreduce, 2, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "only be emitted from program");
}

static void declarations_are_checked(void) {
  write_script("noprog", "return { name = 'noprog', collectives = { 'allreduce' }, chunks = 1 }\n");
  write_script("badcoll", "return { name = 'badcoll', collectives = { 'allfoo' }, chunks = 1, program = print }\n");
  write_script("notable", "return 42\n");
  write_script("syntax", "return {\n  name = 'syntax'\n  collectives = {}\n}\n");
  plan_t *p;
  planner_err_t err;
  CHECK_EQ_INT(plan_it("noprog", chorus_allreduce, 2, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "'program' must be a function");
  CHECK_EQ_INT(plan_it("badcoll", chorus_allreduce, 2, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "'allfoo' is not a collective");
  CHECK_EQ_INT(plan_it("notable", chorus_allreduce, 2, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "must return a table");
  CHECK_EQ_INT(plan_it("syntax", chorus_allreduce, 2, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "syntax.lua:3");
  CHECK_EQ_INT(plan_it("ring2", chorus_alltoall, 2, &p, &err), chorus_invalid_argument);
  CHECK_CONTAINS(err.msg, "does not implement alltoall (it implements allreduce)");
  CHECK_EQ_INT(plan_it("nosuch", chorus_allreduce, 2, &p, &err), chorus_invalid_argument);
  CHECK_CONTAINS(err.msg, "unknown algorithm 'nosuch'");
}

static void the_context_answers_the_shape(void) {
  /* The script reports what it sees through an error message. */
  write_script("probe", "return { name = 'probe', collectives = { 'broadcast' }, chunks = 3,\n"
                        "  program = function(ctx)\n"
                        "    if ctx.rank ~= 4 then return end\n"
                        "    local nr = ctx:node_ranks(1)\n"
                        "    error(string.format('saw %d/%d node=%d local=%d/%d nnodes=%d root=%d k=%d first=%d "
                        "of=%d opt=%s %d %s', ctx.rank, ctx.nranks, ctx.node, ctx.local_rank, ctx.local_size, "
                        "ctx.nnodes, ctx.root, ctx.chunks, nr[1], ctx:node_of(6), ctx:opt('inter', 'ring'), "
                        "ctx:opt('depth', 1) + 1, ctx.collective))\n"
                        "  end }\n");
  plan_shape_t shape;
  plan_shape_init(&shape, 7, 3, NULL);
  planner_req_t req = {.algo = "probe", .coll = chorus_broadcast, .nranks = 7, .algos_dir = dir, .shape = &shape,
                       .root = 5, .opts = "depth=4,inter=tree"};
  plan_t *p;
  planner_err_t err;
  CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "saw 4/7 node=1 local=1/2 nnodes=3 root=5 k=3 first=3 of=2 opt=tree 5 broadcast");
  plan_shape_fini(&shape);
}

/* An option given that no rank or channel reads is an error naming it and
 * what the script reads, whether one planner plans every rank or several
 * threads plan ranges of them (256 ranks and up: the reads are merged). */
static void an_option_nobody_reads_is_an_error(void) {
  write_script("optread", "return { name = 'optread', collectives = { 'allreduce' }, chunks = 1,\n"
                          "  program = function(ctx)\n"
                          "    if ctx.rank == ctx.nranks - 1 then ctx:opt('late', 0) end\n"
                          "    ctx:copy(IN, 0, OUT, 0) end }\n");
  for (int n = 4; n <= 300; n += 296) {
    plan_t *p = NULL;
    planner_err_t err;
    planner_req_t req = {.algo = "optread", .coll = chorus_allreduce, .nranks = n, .algos_dir = dir,
                         .opts = "late=1,lat=2"};
    CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_invalid_argument);
    CHECK_TRUE(p == NULL);
    CHECK_CONTAINS(err.msg, "algorithm optread does not read option 'lat' for this call");
    CHECK_CONTAINS(err.msg, "the options it reads: late");
    /* Read by the last rank alone (the last range when planned in parallel): enough. */
    req.opts = "late=1";
    CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_success);
    plan_destroy(p);
    req.opts = "late";
    CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_invalid_argument);
    CHECK_CONTAINS(err.msg, "option 'late' is not NAME=VALUE");
    req.opts = "late=1,late=2";
    CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_invalid_argument);
    CHECK_CONTAINS(err.msg, "option 'late' is given twice");
  }
}

static void supports_can_decline_a_shape(void) {
  write_script("picky", "return { name = 'picky', collectives = { 'allreduce' }, chunks = 1,\n"
                        "  supports = function(ctx) return ctx.nranks % 2 == 0, 'needs an even rank count' end,\n"
                        "  program = function(ctx) ctx:copy(IN, 0, OUT, 0) end }\n");
  plan_t *p;
  planner_err_t err;
  CHECK_EQ_INT(plan_it("picky", chorus_allreduce, 3, &p, &err), chorus_invalid_usage);
  CHECK_EQ_INT(err.unsupported, 1);
  CHECK_CONTAINS(err.msg, "needs an even rank count");
  CHECK_EQ_INT(plan_it("picky", chorus_allreduce, 1, &p, &err), chorus_invalid_usage);
}

static void the_cache_builds_once_per_key(void) {
  plan_cache_t *c = plan_cache_create();
  planner_req_t req = {.algo = "ring2", .coll = chorus_allreduce, .nranks = 4, .algos_dir = dir};
  const plan_t *a, *b, *d;
  planner_err_t err;
  CHECK_EQ_INT(plan_cache_get(c, &req, 0, &a, &err), chorus_success);
  CHECK_EQ_INT(plan_cache_get(c, &req, 0, &b, &err), chorus_success);
  CHECK_TRUE(a == b);
  req.nranks = 5;
  CHECK_EQ_INT(plan_cache_get(c, &req, 0, &d, &err), chorus_success);
  CHECK_TRUE(d != a && d->nranks == 5);
  CHECK_EQ_INT(plan_cache_size(c), 2);
  plan_cache_destroy(c);
}

static void a_scratch_sum_only_sent_on_becomes_recv_reduce_send(void) {
  /* A chain reduce to rank n-1 whose middle ranks add up in SCRATCH and
   * send it on, written the plain way: recv_reduce, then send. */
  write_script("chain", "return { name = 'chain', collectives = { 'reduce' }, chunks = 1, scratch = 1,\n"
                        "  program = function(ctx)\n"
                        "    local n, r = ctx.nranks, ctx.rank\n"
                        "    if r == 0 then ctx:send(1, IN, 0) return end\n"
                        "    if r < n - 1 then\n"
                        "      ctx:recv_reduce(r - 1, IN, 0, SCRATCH, 0)\n"
                        "      ctx:send(r + 1, SCRATCH, 0)\n"
                        "    else ctx:recv_reduce(r - 1, IN, 0, OUT, 0) end\n"
                        "  end }\n");
  plan_t *p;
  planner_err_t err;
  planner_req_t req = {.algo = "chain", .coll = chorus_reduce, .nranks = 4, .root = 3, .algos_dir = dir};
  CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_success);
  if (!p) return;
  const plan_op_t *o = plan_prog_ops(p, 1, 0);
  CHECK_EQ_INT(plan_prog(p, 1, 0)->count, 1);
  CHECK_EQ_INT(o[0].code, PLAN_OP_RECV_REDUCE_SEND);
  CHECK_EQ_INT(o[0].recv_peer, 0);
  CHECK_EQ_INT(o[0].send_peer, 2);
  CHECK_EQ_INT(o[0].line, 6);
  CHECK_EQ_INT(plan_prog_ops(p, 3, 0)[0].code, PLAN_OP_RECV_REDUCE);
  verify_result_t vr;
  CHECK_EQ_INT(verify_plan(p, NULL, &vr), chorus_success);
  plan_destroy(p);
  /* --no-fuse keeps the script's two ops. */
  req.no_fuse = 1;
  CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_success);
  if (!p) return;
  CHECK_EQ_INT(plan_prog(p, 1, 0)->count, 2);
  CHECK_EQ_INT(plan_prog_ops(p, 1, 0)[0].code, PLAN_OP_RECV_REDUCE);
  CHECK_EQ_INT(verify_plan(p, NULL, &vr), chorus_success);
  plan_destroy(p);
}

static void errors_in_declarations_name_the_shape(void) {
  write_script("badk", "return { name = 'badk', collectives = { 'allreduce' },\n"
                       "  chunks = function(ctx)\n"
                       "    if ctx.nnodes == 2 then local t = nil; return t.x end\n"
                       "    return 1 end,\n"
                       "  supports = function(ctx) if ctx.nranks == 5 then error('five') end return true end,\n"
                       "  program = function(ctx) ctx:copy(IN, 0, OUT, 0) end }\n");
  plan_shape_t shape;
  plan_shape_init(&shape, 4, 2, NULL);
  planner_req_t req = {.algo = "badk", .coll = chorus_allreduce, .nranks = 4, .algos_dir = dir, .shape = &shape};
  plan_t *p;
  planner_err_t err;
  CHECK_EQ_INT(planner_build(&req, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "badk allreduce nranks=4 nodes=2, chunks(ctx): ");
  CHECK_CONTAINS(err.msg, "badk.lua:3: attempt to index a nil value");
  plan_shape_fini(&shape);
  CHECK_EQ_INT(plan_it("badk", chorus_allreduce, 5, &p, &err), chorus_script_error);
  CHECK_CONTAINS(err.msg, "badk allreduce nranks=5 nodes=1, supports(ctx): ");
  CHECK_CONTAINS(err.msg, "badk.lua:5: five");
}

/* Every part of the key tells plans apart: collective, root (of a rooted
 * collective only), rank count and node sizes; and a long algorithm folder
 * does not cut the key short. */
static void the_cache_keys_collective_root_and_node_sizes(void) {
  plan_cache_t *c = plan_cache_create();
  planner_err_t err;
  const plan_t *a, *b;
  /* Shipped ring (CHORUS_ALGOS): broadcast roots 0 and 2 differ; allreduce ignores the root. */
  planner_req_t req = {.algo = "ring", .coll = chorus_broadcast, .nranks = 4};
  CHECK_EQ_INT(plan_cache_get(c, &req, 1, &a, &err), chorus_success);
  req.root = 2;
  CHECK_EQ_INT(plan_cache_get(c, &req, 1, &b, &err), chorus_success);
  CHECK_TRUE(a != b && a->root == 0 && b->root == 2);
  req.coll = chorus_allreduce;
  CHECK_EQ_INT(plan_cache_get(c, &req, 1, &a, &err), chorus_success);
  req.root = 3;
  CHECK_EQ_INT(plan_cache_get(c, &req, 1, &b, &err), chorus_success);
  CHECK_TRUE(a == b && a->coll == chorus_allreduce);
  CHECK_EQ_INT(plan_cache_size(c), 3);
  /* Two nodes of 3+3 and of 4+2: same node count, other plans. */
  plan_shape_t even, uneven;
  int sizes[] = {4, 2};
  plan_shape_init(&even, 6, 2, NULL);
  plan_shape_init(&uneven, 6, 2, sizes);
  req.nranks = 6;
  req.shape = &even;
  CHECK_EQ_INT(plan_cache_get(c, &req, 1, &a, &err), chorus_success);
  req.shape = &uneven;
  CHECK_EQ_INT(plan_cache_get(c, &req, 1, &b, &err), chorus_success);
  CHECK_TRUE(a != b && a->shape.node_size[0] == 3 && b->shape.node_size[0] == 4);
  plan_shape_fini(&even);
  plan_shape_fini(&uneven);
  /* A folder path longer than the key's fixed part used to be. */
  char deep[600];
  int len = snprintf(deep, sizeof deep, "%s/", dir);
  while (len < 400)
    len += snprintf(deep + len, sizeof deep - (size_t)len, "a-rather-long-folder-name/");
  deep[len - 1] = 0;
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s/ring2.lua %s/", deep, dir, deep);
  CHECK_TRUE(system(cmd) == 0);
  planner_req_t lreq = {.algo = "ring2", .coll = chorus_allreduce, .nranks = 4, .algos_dir = deep};
  CHECK_EQ_INT(plan_cache_get(c, &lreq, 1, &a, &err), chorus_success);
  lreq.nranks = 5;
  CHECK_EQ_INT(plan_cache_get(c, &lreq, 1, &b, &err), chorus_success);
  CHECK_TRUE(a != b && a->nranks == 4 && b->nranks == 5);
  CHECK_EQ_INT(plan_cache_size(c), 7);
  plan_cache_destroy(c);
}

int main(int argc, char **argv);
static int setup(void) {
  snprintf(dir, sizeof dir, "/tmp/chorus-planner-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  write_script("ring2", ring_script);
  return 0;
}

static void cleanup(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

#define main test_main
/* --- planning in parallel --- */

static plan_t *plan_threads(const char *algo, int n, int nnodes, int nch, const char *threads, planner_err_t *err) {
  plan_shape_t shape;
  if (plan_shape_init(&shape, n, nnodes, NULL) != chorus_success) return NULL;
  setenv("CHORUS_PLAN_THREADS", threads, 1);
  planner_req_t req = {.algo = algo, .coll = chorus_allreduce, .nranks = n, .shape = &shape, .nchannels = nch,
                       .algos_dir = strchr(algo, '/') || !strcmp(algo, "ring2") || !strcmp(algo, "late_fail") ? dir : NULL};
  plan_t *p = NULL;
  planner_build(&req, &p, err);
  unsetenv("CHORUS_PLAN_THREADS");
  plan_shape_fini(&shape);
  return p;
}

/* Every (rank, channel) program the same op for op, and each op's script
 * file the same file by name. */
static int same_plan(const plan_t *a, const plan_t *b) {
  if (a->nops != b->nops || a->nchunks != b->nchunks || a->scratch_chunks != b->scratch_chunks) return 0;
  for (int r = 0; r < a->nranks; r++)
    for (int ch = 0; ch < a->nchannels; ch++) {
      const plan_prog_t *x = plan_prog(a, r, ch), *y = plan_prog(b, r, ch);
      if (x->count != y->count) return 0;
      const plan_op_t *u = plan_prog_ops(a, r, ch), *v = plan_prog_ops(b, r, ch);
      for (uint32_t i = 0; i < x->count; i++) {
        plan_op_t o = u[i], q = v[i];
        if (strcmp(plan_file_name(a, o.file), plan_file_name(b, q.file))) return 0;
        o.file = q.file = 0;
        if (memcmp(&o, &q, sizeof o)) return 0;
      }
    }
  return 1;
}

static void parallel_planning_builds_what_one_planner_builds(void) {
  write_script("ring2", ring_script);
  const struct {
    const char *algo;
    int n, nnodes, nch;
  } cases[] = {{"ring", 256, 1, 1}, {"ring", 301, 1, 2}, {"tree", 517, 1, 1}, {"hybrid", 512, 64, 1},
               {"hybrid", 264, 33, 2}, {"rhd", 256, 1, 1}, {"ring2", 300, 1, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    planner_err_t e1, e3;
    plan_t *one = plan_threads(cases[i].algo, cases[i].n, cases[i].nnodes, cases[i].nch, "1", &e1);
    plan_t *three = plan_threads(cases[i].algo, cases[i].n, cases[i].nnodes, cases[i].nch, "3", &e3);
    CHECK_TRUE(one != NULL && three != NULL);
    if (!one || !three) fprintf(stderr, "  %s n=%d: %s / %s\n", cases[i].algo, cases[i].n, e1.msg, e3.msg);
    if (one && three && !same_plan(one, three)) {
      fprintf(stderr, "  %s n=%d nodes=%d channels=%d: the plans differ\n", cases[i].algo, cases[i].n,
              cases[i].nnodes, cases[i].nch);
      test_failed_++;
    }
    plan_destroy(one), plan_destroy(three);
  }
}

/* The first failing rank's error, whichever thread planned it. */
static void parallel_planning_reports_the_first_failing_rank(void) {
  write_script("late_fail", "return { name = 'late_fail', collectives = { 'allreduce' }, chunks = 1,\n"
                            "  program = function(ctx)\n"
                            "    if ctx.rank == 200 or ctx.rank == 400 then error('no program for rank ' .. ctx.rank) end\n"
                            "    ctx:copy(IN, 0, OUT, 0)\n"
                            "  end }\n");
  planner_err_t e1, e3;
  plan_t *one = plan_threads("late_fail", 512, 1, 1, "1", &e1);
  plan_t *three = plan_threads("late_fail", 512, 1, 1, "3", &e3);
  CHECK_TRUE(one == NULL && three == NULL);
  CHECK_CONTAINS(e3.msg, "no program for rank 200");
  CHECK_TRUE(!strcmp(e1.msg, e3.msg));
  plan_destroy(one), plan_destroy(three);
}

TEST_MAIN(TEST(a_ring_script_becomes_fused_ops_with_lines), TEST(no_fuse_keeps_the_plain_ops),
          TEST(bad_ops_are_errors_at_their_line), TEST(declarations_are_checked), TEST(the_context_answers_the_shape), TEST(an_option_nobody_reads_is_an_error),
          TEST(supports_can_decline_a_shape), TEST(the_cache_builds_once_per_key),
          TEST(a_scratch_sum_only_sent_on_becomes_recv_reduce_send), TEST(errors_in_declarations_name_the_shape),
          TEST(the_cache_keys_collective_root_and_node_sizes), TEST(parallel_planning_builds_what_one_planner_builds),
          TEST(parallel_planning_reports_the_first_failing_rank))
#undef main

int main(int argc, char **argv) {
  if (setup()) return 1;
  int rc = test_main(argc, argv);
  cleanup();
  return rc;
}
