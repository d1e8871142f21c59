/* test_kern_emu.c -- the CUDA kernel's own device code run on the CPU
 * (kern_emu.cc: a block is 3 host threads with a barrier for __syncthreads;
 * every block of every rank runs at once, as the GPU keeps them resident): shipped plans marshalled by
 * cuda_args.c, argument geometry from cuda_args_call, rings in host memory
 * used by several calls in a row (the counters carry the positions), small
 * slots so that calls take many loop iterations and several steps per
 * chunk; every collective, algorithm, type and op on 1 to 8 ranks and 1 and
 * 3 channels, outputs poisoned, against the host reference; the standalone
 * reduce-copy at odd alignments; a mismatched call and a missing peer end in
 * the kernel's status codes, not a hang. What this cannot show: blocks of
 * 512 threads and warps, the GPU's memory model (here C11's), the CUDA
 * runtime glue. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_ref.h"
#include "cuda_args.h"
#include "cache.h"
#include "planner.h"
#include "test.h"

void kcu_emu_block(const kcu_args_t *a, int block, int nblocks);
void kcu_emu_reduce_copy(void *d1, void *d2, const void *a, const void *b, size_t count, int dt, int op, int blocks);

#define MAXR 8
#define CHUNK (16u << 10) /* chunk_bytes: BUFFSIZE 32 KiB */
#define STEP (4u << 10)   /* step_bytes: 8 steps */

typedef struct {
  int n;
  kcu_ring_t *rings[MAXR][MAXR][PLAN_MAX_CHANNELS]; /* [src][dst][channel] */
  char *slots[MAXR][MAXR][PLAN_MAX_CHANNELS];
  uint32_t abort_word;
} emu_world_t;

/* The connection src -> dst on channel ch: zeroed counters, slots made once. */
static void conn_of(emu_world_t *w, int src, int dst, int ch, kcu_conn_t *c) {
  if (!w->rings[src][dst][ch]) {
    w->rings[src][dst][ch] = aligned_alloc(64, (sizeof(kcu_ring_t) + 63) / 64 * 64);
    memset(w->rings[src][dst][ch], 0, sizeof(kcu_ring_t));
    w->slots[src][dst][ch] = aligned_alloc(64, GEOM_NSTEPS * STEP);
  }
  c->ring = w->rings[src][dst][ch];
  c->slots = w->slots[src][dst][ch];
}

static void world_free(emu_world_t *w) {
  for (int a = 0; a < MAXR; a++)
    for (int b = 0; b < MAXR; b++)
      for (int c = 0; c < PLAN_MAX_CHANNELS; c++) free(w->rings[a][b][c]), free(w->slots[a][b][c]);
  memset(w, 0, sizeof *w);
}

typedef struct {
  const kcu_args_t *a;
  int block, nblocks;
} blk_arg_t;

static void *blk_main(void *p) {
  blk_arg_t *b = p;
  kcu_emu_block(b->a, b->block, b->nblocks);
  return NULL;
}

typedef struct {
  kcu_prog_t *prog[MAXR];
  kcu_args_t args[MAXR];
  kcu_status_t status[MAXR];
  uint32_t claim[MAXR];
  char *scratch[MAXR];
} emu_call_t;

/* Marshal p for every rank, fill the arguments, and run the kernels of the
 * ranks in `launch` (a bit mask) at once. tag_of[r]: rank r's call tag;
 * counts[r] its count. Returns 0, or -1 when marshalling failed. */
static int emu_run(emu_world_t *w, const plan_t *p, chorus_dtype_t dt, chorus_redop_t op, const size_t *counts,
                   const uint32_t *tag_of, char *const *in, char *const *out, int root, unsigned launch,
                   double timeout_s, emu_call_t *k) {
  int n = p->nranks;
  memset(k, 0, sizeof *k);
  for (int r = 0; r < n; r++) {
    size_t bytes;
    if (cuda_args_marshal(p, r, &k->prog[r], &bytes) != chorus_success) return -1;
    for (int i = 0; i < k->prog[r]->nconns; i++) {
      kcu_conn_t *c = &k->prog[r]->conns[i];
      if (c->is_send) conn_of(w, r, c->peer, c->channel, c);
      else conn_of(w, c->peer, r, c->channel, c);
    }
    int divide = op == chorus_avg && plan_coll_reduces(p->coll) && (p->coll != chorus_reduce || r == root) ? n : 0;
    geom_conn_t conn = geom_conn_window(geom_conn_engine(GEOM_SLOT_CHUNKS * CHUNK), p->window); /* as cuda_exec.c */
    geom_call_t g = geom_call(counts[r], chorus_dtype_size(dt), p->nchannels, p->nchunks, &conn);
    cuda_args_call(&k->args[r], k->prog[r], &g, &conn, p->scratch_chunks, dt, op, tag_of[r], divide, timeout_s);
    size_t sb = k->args[r].scratch_stride * (size_t)p->nchannels;
    k->scratch[r] = sb ? malloc(sb) : NULL;
    k->args[r].in = in[r], k->args[r].out = out[r], k->args[r].scratch = k->scratch[r], k->args[r].rank = r;
    k->args[r].status = &k->status[r], k->args[r].claim = &k->claim[r], k->args[r].abort = &w->abort_word;
  }
  pthread_t th[MAXR * 3];
  blk_arg_t ba[MAXR * 3];
  int nt = 0;
  for (int r = 0; r < n; r++)
    for (int ch = 0; r < 32 && (launch >> r & 1) && ch < p->nchannels; ch++) {
      ba[nt] = (blk_arg_t){&k->args[r], ch, p->nchannels};
      if (pthread_create(&th[nt], NULL, blk_main, &ba[nt]) == 0) nt++;
    }
  for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
  return 0;
}

static void emu_call_free(emu_call_t *k) {
  for (int r = 0; r < MAXR; r++) {
    free(k->prog[r]);
    free(k->scratch[r]);
  }
}

/* bruck on 5 to 8 ranks asks for connections of 3 and 4 chunks (plan.h window). */
static const char *const algos[] = {"ring", "tree", "rd", "rhd", "direct", "hybrid", "bruck"};

static void test_kernel_runs_every_collective_algorithm_dtype_op(void) {
  plan_cache_t *cache = plan_cache_create();
  size_t cap = 64u << 10;
  char *in[MAXR], *out[MAXR], *want[MAXR];
  for (int r = 0; r < MAXR; r++) in[r] = malloc(cap * MAXR), out[r] = malloc(cap * MAXR), want[r] = malloc(cap * MAXR);
  long cases = 0, bad = 0, failed = 0;
  /* The sanitizer builds stop at CHORUS_TEST_EMU_RANKS ranks (tests/cuda.cmake):
   * at 8 ranks and 3 channels 72 threads share 2 cores, and the warnings
   * build runs every rank count. */
  const char *env = getenv("CHORUS_TEST_EMU_RANKS");
  int maxr = env && atoi(env) >= 1 && atoi(env) <= MAXR ? atoi(env) : MAXR;
  if (maxr < MAXR) printf("  1 to %d ranks (CHORUS_TEST_EMU_RANKS)\n", maxr);
  for (int n = 1; n <= maxr; n++)
    for (int nch = 1; nch <= 3; nch += 2) {
      emu_world_t w = {.n = n};
      for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
        for (int coll = 0; coll < chorus_num_collectives; coll++) {
          int root = (int)(rnd() % (uint64_t)n);
          planner_req_t req = {.algo = algos[a], .coll = (chorus_coll_t)coll, .nranks = n, .root = root,
                               .nchannels = nch};
          planner_err_t err;
          const plan_t *p;
          if (plan_cache_get(cache, &req, 1, &p, &err) != chorus_success) continue;
          int reduces = plan_coll_reduces((chorus_coll_t)coll);
          for (int dt = 0; dt < chorus_num_dtypes; dt++)
            for (int op = 0; op < (reduces ? chorus_num_redops : 1); op++) {
              /* Mostly small; one in four large enough for several loop
               * iterations of 16 KiB chunks cut in 4 KiB steps. */
              size_t es = chorus_dtype_size((chorus_dtype_t)dt);
              size_t count = rnd() % 4 ? 1 + rnd() % 700 : 1 + rnd() % (cap / es / (size_t)n);
              int in_u, out_u;
              coll_units((chorus_coll_t)coll, n, &in_u, &out_u);
              size_t counts[MAXR];
              uint32_t tags[MAXR];
              for (int r = 0; r < n; r++) {
                counts[r] = count, tags[r] = (uint32_t)(cases + 1);
                for (size_t i = 0; i < count * (size_t)in_u; i++) gen((chorus_dtype_t)dt, (chorus_redop_t)op, in[r], i);
                memset(out[r], 0xa5, count * (size_t)out_u * es);
              }
              for (int r = 0; r < n; r++)
                coll_want((chorus_coll_t)coll, (chorus_dtype_t)dt, (chorus_redop_t)op, n, r, root, count, in, want[r]);
              emu_call_t k;
              if (emu_run(&w, p, (chorus_dtype_t)dt, (chorus_redop_t)op, counts, tags, in, out, root, 0xffu, 10, &k)) {
                fprintf(stderr, "  marshal: %s\n", chorus_last_error());
                failed++;
              }
              long wrong = 0;
              for (int r = 0; r < n; r++) {
                if (k.status[r].code) {
                  fprintf(stderr, "  %s %s n=%d nch=%d rank %d: kernel status %u at channel %d op %d\n", algos[a],
                          chorus_coll_name((chorus_coll_t)coll), n, nch, r, k.status[r].code, k.status[r].channel,
                          k.status[r].op_index);
                  failed++;
                }
                if (coll == chorus_reduce && r != root) continue;
                for (size_t i = 0; i < count * (size_t)out_u * es; i += es) wrong += memcmp(out[r] + i, want[r] + i, es) != 0;
              }
              if (wrong && bad < 10)
                fprintf(stderr, "  %s %s %s %s n=%d nch=%d count=%zu: %ld wrong\n", algos[a],
                        chorus_coll_name((chorus_coll_t)coll), chorus_dtype_name((chorus_dtype_t)dt),
                        chorus_redop_name((chorus_redop_t)op), n, nch, count, wrong);
              bad += wrong != 0;
              cases++;
              emu_call_free(&k);
              if (failed) goto done;
            }
        }
      world_free(&w);
    }
done:
  printf("  %ld calls\n", cases);
  CHECK_EQ_INT(failed, 0);
  CHECK_EQ_INT(bad, 0);
  CHECK_TRUE(cases > (maxr < MAXR ? 1000 : 3000));
  for (int r = 0; r < MAXR; r++) free(in[r]), free(out[r]), free(want[r]);
  plan_cache_destroy(cache);
}

/* Ranks whose calls differ (count, so the tag) stop with the mismatch and
 * the abort; a rank whose peer never runs times out; neither hangs. */
static void test_kernel_mismatch_and_timeout_end_with_a_status(void) {
  plan_cache_t *cache = plan_cache_create();
  planner_req_t req = {.algo = "ring", .coll = chorus_allreduce, .nranks = 2, .nchannels = 1};
  planner_err_t err;
  const plan_t *p;
  CHECK_EQ_INT(plan_cache_get(cache, &req, 1, &p, &err), chorus_success);
  char *in[2], *out[2];
  for (int r = 0; r < 2; r++) in[r] = calloc(1, 1 << 16), out[r] = calloc(1, 1 << 16);
  emu_world_t w = {.n = 2};
  emu_call_t k;
  size_t counts[2] = {1000, 2000};
  uint32_t tags[2] = {11, 12};
  double t0 = test_now();
  emu_run(&w, p, chorus_float32, chorus_sum, counts, tags, in, out, 0, 3u, 5, &k);
  int mism = k.status[0].code == KCU_MISMATCH || k.status[1].code == KCU_MISMATCH;
  CHECK_TRUE(mism);
  CHECK_TRUE(k.status[0].code != KCU_OK && k.status[1].code != KCU_OK); /* the other stops: abort or its own verdict */
  CHECK_EQ_INT(w.abort_word, 1);
  CHECK_TRUE(test_now() - t0 < 8);
  if (k.status[0].code == KCU_MISMATCH) CHECK_EQ_INT(k.status[0].tag_seen, 12);
  emu_call_free(&k);
  world_free(&w);

  emu_world_t w2 = {.n = 2};
  counts[1] = 1000;
  t0 = test_now();
  emu_run(&w2, p, chorus_float32, chorus_sum, counts, tags, in, out, 0, 1u, 0.5, &k); /* rank 1 never runs */
  double took = test_now() - t0;
  CHECK_EQ_INT(k.status[0].code, KCU_TIMEOUT);
  CHECK_EQ_INT(k.status[0].peer, 1);
  CHECK_TRUE(k.status[0].waited_ns >= 400000000ull);
  CHECK_TRUE(took >= 0.4 && took < 5);
  emu_call_free(&k);
  world_free(&w2);
  for (int r = 0; r < 2; r++) free(in[r]), free(out[r]);
  plan_cache_destroy(cache);
}

static void test_reduce_copy_kernel_at_odd_alignments(void) {
  size_t cap = 1u << 16;
  char *a = malloc(cap + 16), *b = malloc(cap + 16), *d1 = malloc(cap + 16), *d2 = malloc(cap + 16),
       *want = malloc(cap + 16);
  long bad = 0;
  for (int dt = 0; dt < chorus_num_dtypes; dt++)
    for (int op = 0; op < chorus_num_redops; op++)
      for (int shift = 0; shift < 3; shift++) {
        size_t es = chorus_dtype_size((chorus_dtype_t)dt), count = 1 + rnd() % (cap / es - 1);
        size_t off = shift == 0 ? 0 : shift == 1 ? es : 16 - es % 16;
        for (size_t i = 0; i < count; i++)
          gen((chorus_dtype_t)dt, (chorus_redop_t)op, a + off, i), gen((chorus_dtype_t)dt, (chorus_redop_t)op, b + off, i);
        memcpy(want, a + off, count * es);
        for (size_t i = 0; i < count; i++) ref_apply((chorus_dtype_t)dt, (chorus_redop_t)op, want, b + off, i);
        memset(d1, 0x5a, cap + 16), memset(d2, 0x5a, cap + 16);
        kcu_emu_reduce_copy(d1 + off, d2 + off, a + off, b + off, count, dt, op, 5);
        bad += memcmp(d1 + off, want, count * es) != 0 || memcmp(d2 + off, want, count * es) != 0;
        bad += (unsigned char)d1[off + count * es] != 0x5a; /* nothing past the end */
      }
  CHECK_EQ_INT(bad, 0);
  free(a), free(b), free(d1), free(d2), free(want);
}

int test_failed_, test_skipped_;

int main(int argc, char **argv) {
  uint64_t seed = getenv("CHORUS_TEST_SEED") ? strtoull(getenv("CHORUS_TEST_SEED"), NULL, 0) : (uint64_t)time(NULL);
  coll_rs = seed * 0x9e3779b97f4a7c15ull + 1;
  printf("seed %llu (CHORUS_TEST_SEED to repeat)\n", (unsigned long long)seed);
  static const test_case_t tests[] = {TEST(test_kernel_runs_every_collective_algorithm_dtype_op),
                                      TEST(test_kernel_mismatch_and_timeout_end_with_a_status),
                                      TEST(test_reduce_copy_kernel_at_odd_alignments), {NULL, NULL}};
  return test_run_all_(tests, argc, argv);
}
