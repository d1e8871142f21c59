/* plan_bench.c -- plans and verifies one algorithm for one rank count (all
 * ranks' programs) and prints one CSV row: time to plan, time to verify, ops,
 * peak resident memory of the process. scripts/bench/plan.sh runs it once
 * per configuration, each in its own process so peak memory is its own. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "planner.h"
#include "verify.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: plan_bench ALGO COLLECTIVE NRANKS [NODES]\n");
    return 2;
  }
  planner_req_t req = {.algo = argv[1], .nranks = atoi(argv[3])};
  if (chorus_coll_parse(argv[2], &req.coll) != chorus_success) {
    fprintf(stderr, "plan_bench: unknown collective %s\n", argv[2]);
    return 2;
  }
  plan_shape_t shape;
  int nodes = argc > 4 ? atoi(argv[4]) : 1;
  if (plan_shape_init(&shape, req.nranks, nodes, NULL) != chorus_success) {
    fprintf(stderr, "plan_bench: bad shape\n");
    return 2;
  }
  req.shape = &shape;
  plan_t *p;
  planner_err_t err;
  double t0 = now();
  if (planner_build(&req, &p, &err) != chorus_success) {
    fprintf(stderr, "plan_bench: %s\n", err.msg);
    return 1;
  }
  double t1 = now();
  verify_opts_t vo = {.inplace = 2};
  verify_result_t vr;
  chorus_result_t r = verify_plan(p, &vo, &vr);
  double t2 = now();
  if (r != chorus_success) {
    fprintf(stderr, "plan_bench: %s\n", vr.msg);
    return 1;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%s,%s,%d,%d,%zu,%.3f,%.3f,%.3f,%.1f\n", argv[1], argv[2], req.nranks, nodes, p->nops, t1 - t0, t2 - t1,
         t2 - t0, (double)ru.ru_maxrss / 1024.0);
  plan_destroy(p);
  plan_shape_fini(&shape);
  return 0;
}
