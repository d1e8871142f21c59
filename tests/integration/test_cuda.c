/* test_cuda.c -- the GPU engine on a real GPU (skips, exit 77, with the
 * reason when none answers): every collective x dtype x op x algorithm on 1
 * to 8 ranks of one GPU as threads of this process, driven from one thread
 * by groups on CUDA streams, outputs poisoned, inputs fresh and random each
 * run (the seed is printed), compared with a host reference computed with
 * reduce.h; in place and a multi-iteration size; the standalone reduce-copy
 * kernel at every alignment; and the failures: a mismatched call and a
 * missing peer end in errors on time, never a hang. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chorus.h"
#include "coll_ref.h"
#include "comm.h"
#include "exec.h"
#include "kern_cuda.h"
#include "planner.h"
#include "reduce.h"
#include "test.h"

static uint64_t seed;

static const char *const algos[] = {"ring", "tree", "rd", "rhd", "direct", "hybrid"};
#define NALGOS 6

#define CU(call)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "  %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                          \
      test_failed_++;                                                                                                  \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)

typedef struct {
  int n;
  chorus_comm_t *comms[8];
  chorus_stream_t *streams[8];
  char *din[8], *dout[8];
  char *hin[8], *hout[8], *want[8];
  size_t cap;
} world_t;

static int world_open(world_t *w, int n, size_t cap) {
  memset(w, 0, sizeof *w);
  w->n = n, w->cap = cap;
  int devs[8] = {0};
  if (chorus_comm_init_all_cuda(w->comms, n, devs) != chorus_success) {
    fprintf(stderr, "  init: %s\n", chorus_last_error());
    return -1;
  }
  for (int r = 0; r < n; r++) {
    if (chorus_stream_create_cuda(&w->streams[r], NULL) != chorus_success) return -1;
    if (cudaMalloc((void **)&w->din[r], cap) != cudaSuccess || cudaMalloc((void **)&w->dout[r], cap) != cudaSuccess)
      return -1;
    w->hin[r] = malloc(cap), w->hout[r] = malloc(cap), w->want[r] = malloc(cap);
    if (!w->hin[r] || !w->hout[r] || !w->want[r]) return -1;
  }
  return 0;
}

static void world_close(world_t *w) {
  for (int r = 0; r < w->n; r++) {
    if (w->streams[r]) chorus_stream_destroy(w->streams[r]);
    if (w->comms[r]) chorus_comm_destroy(w->comms[r]);
    cudaFree(w->din[r]);
    cudaFree(w->dout[r]);
    free(w->hin[r]);
    free(w->hout[r]);
    free(w->want[r]);
  }
}

static int algo_plans(const char *algo, chorus_coll_t coll, int n, int root) {
  planner_req_t req = {.algo = algo, .coll = coll, .nranks = n, .root = root};
  planner_err_t err;
  plan_t *p = NULL;
  if (planner_build(&req, &p, &err) != chorus_success) return 0;
  plan_destroy(p);
  return 1;
}

/* One collective on every rank; returns the wrong elements (-1: the call failed). */
static long run_case(world_t *w, const char *algo, chorus_coll_t coll, chorus_dtype_t dt, chorus_redop_t op,
                     size_t count, int root, int inplace) {
  int n = w->n;
  size_t es = chorus_dtype_size(dt);
  int in_u, out_u;
  coll_units(coll, n, &in_u, &out_u);
  size_t inb = count * es * (size_t)in_u, outb = count * es * (size_t)out_u;
  if (inb > w->cap || outb > w->cap) return -1;
  for (int r = 0; r < n; r++) {
    for (size_t i = 0; i < count * (size_t)in_u; i++) gen(dt, op, w->hin[r], i);
    memset(w->hout[r], 0xa5, outb); /* poison: an element never written is wrong */
    if (cudaMemcpy(w->din[r], w->hin[r], inb, cudaMemcpyHostToDevice) != cudaSuccess) return -1;
    if (cudaMemcpy(w->dout[r], w->hout[r], outb, cudaMemcpyHostToDevice) != cudaSuccess) return -1;
    if (inplace && cudaMemcpy(w->dout[r], w->hin[r], inb, cudaMemcpyHostToDevice) != cudaSuccess) return -1;
  }
  /* The reference. */
  for (int r = 0; r < n; r++) coll_want(coll, dt, op, n, r, root, count, w->hin, w->want[r]);
  for (int r = 0; r < n; r++) exec_force(w->comms[r], algo, 0);
  chorus_group_start();
  for (int r = 0; r < n; r++) {
    const void *in = inplace ? (const void *)w->dout[r] : w->din[r];
    chorus_run_collective(coll, in, w->dout[r], count, dt, op, root, w->comms[r], w->streams[r]);
  }
  chorus_result_t res = chorus_group_end();
  for (int r = 0; r < n; r++) {
    chorus_result_t s = chorus_stream_synchronize(w->streams[r]);
    if (s != chorus_success && res == chorus_success) res = s;
  }
  if (res != chorus_success) {
    fprintf(stderr, "  %s %s %s %s n=%d count=%zu: %s\n", algo, chorus_coll_name(coll), chorus_dtype_name(dt),
            chorus_redop_name(op), n, count, chorus_last_error());
    return -1;
  }
  long wrong = 0;
  for (int r = 0; r < n; r++) {
    if (coll == chorus_reduce && r != root) continue;
    if (cudaMemcpy(w->hout[r], w->dout[r], outb, cudaMemcpyDeviceToHost) != cudaSuccess) return -1;
    for (size_t i = 0; i < outb; i += es) wrong += memcmp(w->hout[r] + i, w->want[r] + i, es) != 0;
  }
  if (wrong)
    fprintf(stderr, "  %s %s %s %s n=%d count=%zu inplace=%d: %ld wrong\n", algo, chorus_coll_name(coll),
            chorus_dtype_name(dt), chorus_redop_name(op), n, count, inplace, wrong);
  return wrong;
}

static int gpu_ok;
static char why[256];

/* Every collective x dtype x op x algorithm on 1..8 ranks of GPU 0. */
static void test_every_collective_dtype_op_algorithm_on_1_to_8_ranks(void) {
  if (!gpu_ok) TEST_SKIP(why);
  long cases = 0, bad = 0;
  for (int n = 1; n <= 8; n++) {
    world_t w;
    if (world_open(&w, n, 8u << 20) != 0) {
      test_failed_++;
      world_close(&w);
      return;
    }
    for (int a = 0; a < NALGOS; a++)
      for (int coll = 0; coll < chorus_num_collectives; coll++) {
        int root = coll == chorus_broadcast || coll == chorus_reduce ? (int)(rnd() % (uint64_t)n) : 0;
        if (!algo_plans(algos[a], (chorus_coll_t)coll, n, root)) continue;
        int reduces = coll == chorus_allreduce || coll == chorus_reduce || coll == chorus_reducescatter;
        for (int dt = 0; dt < chorus_num_dtypes; dt++)
          for (int op = 0; op < (reduces ? chorus_num_redops : 1); op++) {
            size_t count = 1 + rnd() % 3000; /* odd sizes: vector bodies and scalar tails */
            long wr = run_case(&w, algos[a], (chorus_coll_t)coll, (chorus_dtype_t)dt, (chorus_redop_t)op, count,
                               root, 0);
            cases++;
            if (wr != 0) bad++;
            if (wr < 0) goto next_n; /* a failed communicator stays failed */
          }
      }
  next_n:
    world_close(&w);
  }
  printf("  %ld cases (seed %llu)\n", cases, (unsigned long long)seed);
  CHECK_EQ_INT(bad, 0);
  CHECK_TRUE(cases > 1000);
}

/* Sizes that take several loop iterations and several steps per chunk, in
 * place and out of place, with more channels than the default. */
static void test_large_and_in_place_calls_are_exact(void) {
  if (!gpu_ok) TEST_SKIP(why);
  long bad = 0, cases = 0;
  for (int n = 2; n <= 8; n *= 2) {
    world_t w;
    if (world_open(&w, n, 64u << 20) != 0) {
      test_failed_++;
      world_close(&w);
      return;
    }
    for (int a = 0; a < NALGOS; a++)
      for (int coll = 0; coll < 3; coll++) /* allreduce, broadcast, reduce: in place is sendbuf == recvbuf */
        for (int inplace = 0; inplace < 2; inplace++) {
          if (!algo_plans(algos[a], (chorus_coll_t)coll, n, n - 1)) continue;
          size_t count = (3u << 20) + rnd() % 1000; /* 12 MB of floats: several iterations of 512 KiB chunks */
          long wr = run_case(&w, algos[a], (chorus_coll_t)coll, chorus_float32, chorus_sum, count, n - 1, inplace);
          cases++;
          bad += wr != 0;
          if (wr < 0) break;
        }
    /* Alltoall in place reads a staged copy of its input (cuda_stage). */
    long wr = run_case(&w, "direct", chorus_alltoall, chorus_int32, chorus_sum, 100000 + rnd() % 100, 0, 1);
    cases++;
    bad += wr != 0;
    world_close(&w);
  }
  printf("  %ld cases\n", cases);
  CHECK_EQ_INT(bad, 0);
}

/* The fused reduce-copy alone: every dtype and op, at every alignment of
 * the 16-byte vectors (the scalar path too), both outputs equal. */
static void test_reduce_copy_kernel_every_dtype_op_and_alignment(void) {
  if (!gpu_ok) TEST_SKIP(why);
  size_t cap = 1u << 20;
  char *da, *db, *d1, *d2, *ha = malloc(cap), *hb = malloc(cap), *h1 = malloc(cap), *h2 = malloc(cap);
  CU(cudaMalloc((void **)&da, cap));
  CU(cudaMalloc((void **)&db, cap));
  CU(cudaMalloc((void **)&d1, cap));
  CU(cudaMalloc((void **)&d2, cap));
  long bad = 0;
  char err[256];
  for (int dt = 0; dt < chorus_num_dtypes; dt++)
    for (int op = 0; op < chorus_num_redops; op++)
      for (int shift = 0; shift < 3; shift++) {
        size_t es = chorus_dtype_size((chorus_dtype_t)dt), count = 1000 + rnd() % 5000;
        size_t off = shift == 0 ? 0 : shift == 1 ? es : 16 - es % 16; /* aligned, off by one element */
        for (size_t i = 0; i < count; i++) gen((chorus_dtype_t)dt, (chorus_redop_t)op, ha, i), gen((chorus_dtype_t)dt, (chorus_redop_t)op, hb, i);
        CU(cudaMemcpy(da + off, ha, count * es, cudaMemcpyHostToDevice));
        CU(cudaMemcpy(db + off, hb, count * es, cudaMemcpyHostToDevice));
        CU(cudaMemset(d1, 0x5a, cap));
        CU(cudaMemset(d2, 0x5a, cap));
        CHECK_EQ_INT(kcu_reduce_copy(d1 + off, d2 + off, da + off, db + off, count, dt, op, 7, NULL, err, sizeof err), 0);
        CU(cudaDeviceSynchronize());
        CU(cudaMemcpy(h1, d1 + off, count * es, cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(h2, d2 + off, count * es, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < count; i++) ref_apply((chorus_dtype_t)dt, (chorus_redop_t)op, ha, hb, i);
        bad += memcmp(h1, ha, count * es) != 0 || memcmp(h2, ha, count * es) != 0;
      }
  CHECK_EQ_INT(bad, 0);
  cudaFree(da), cudaFree(db), cudaFree(d1), cudaFree(d2);
  free(ha), free(hb), free(h1), free(h2);
}

/* Ranks whose calls differ (count) fail with the mismatch on time; a rank
 * whose peer never calls times out (CHORUS_TIMEOUT=5 here) with a message. */
static void test_mismatched_and_missing_peers_fail_on_time(void) {
  if (!gpu_ok) TEST_SKIP(why);
  world_t w;
  if (world_open(&w, 2, 1u << 20) != 0) {
    test_failed_++;
    world_close(&w);
    return;
  }
  double t0 = test_now();
  for (int r = 0; r < 2; r++) exec_force(w.comms[r], "ring", 0); /* the same plan on both: only the count differs */
  chorus_group_start();
  chorus_run_allreduce(w.din[0], w.dout[0], 1000, chorus_float32, chorus_sum, w.comms[0], w.streams[0]);
  chorus_run_allreduce(w.din[1], w.dout[1], 2000, chorus_float32, chorus_sum, w.comms[1], w.streams[1]);
  chorus_group_end();
  int failed = 0;
  for (int r = 0; r < 2; r++) failed += chorus_stream_synchronize(w.streams[r]) != chorus_success;
  CHECK_EQ_INT(failed, 2);
  /* The rank that saw the other's step says so; the other may only see the abort. */
  CHECK_TRUE(strstr(chorus_comm_error_string(w.comms[0]), "differs") ||
             strstr(chorus_comm_error_string(w.comms[1]), "differs"));
  CHECK_TRUE(test_now() - t0 < 30);
  world_close(&w);

  if (world_open(&w, 2, 1u << 20) != 0) {
    test_failed_++;
    world_close(&w);
    return;
  }
  t0 = test_now();
  CHECK_EQ_INT(chorus_run_allreduce(w.din[0], w.dout[0], 1000, chorus_float32, chorus_sum, w.comms[0], w.streams[0]),
               chorus_success); /* enqueued: the failure comes at the wait */
  chorus_result_t r = chorus_stream_synchronize(w.streams[0]);
  CHECK_EQ_INT(r, chorus_timeout);
  CHECK_CONTAINS(chorus_last_error(), "waited");
  chorus_result_t async;
  chorus_comm_get_async_error(w.comms[0], &async);
  CHECK_EQ_INT(async, chorus_timeout);
  double took = test_now() - t0;
  printf("  timed out after %.1f s\n", took);
  CHECK_TRUE(took >= 4 && took < 30);
  /* Host buffers are refused with a message, not handed to the kernel. */
  float host[4];
  CHECK_EQ_INT(chorus_run_allreduce(host, host, 4, chorus_float32, chorus_sum, w.comms[1], w.streams[1]),
               chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "host memory");
  world_close(&w);
}

int test_failed_, test_skipped_;

int main(int argc, char **argv) {
  setenv("CHORUS_TIMEOUT", "5", 1);
  /* Before the first CUDA call (chorus_comm_init_all_cuda would set it too
   * late here): every stream its own hardware queue, or two ranks' kernels
   * could queue behind each other. */
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    snprintf(why, sizeof why, "no CUDA device: %s", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    printf("skipped: %s\n", why);
    return 77;
  }
  gpu_ok = 1;
  seed = getenv("CHORUS_TEST_SEED") ? strtoull(getenv("CHORUS_TEST_SEED"), NULL, 0) : (uint64_t)time(NULL);
  coll_rs = seed * 0x9e3779b97f4a7c15ull + 1;
  printf("seed %llu (CHORUS_TEST_SEED to repeat)\n", (unsigned long long)seed);
  static const test_case_t tests[] = {TEST(test_every_collective_dtype_op_algorithm_on_1_to_8_ranks),
                                      TEST(test_large_and_in_place_calls_are_exact),
                                      TEST(test_reduce_copy_kernel_every_dtype_op_and_alignment),
                                      TEST(test_mismatched_and_missing_peers_fail_on_time),
                                      {NULL, NULL}};
  return test_run_all_(tests, argc, argv);
}
