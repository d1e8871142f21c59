/* perf.c -- `chorus perf`: nccl-tests' columns for any collective, every
 * result checked against a reference this file computes on its own (scalar
 * arithmetic in double on inputs every rank can regenerate), and a CSV with
 * the simulator's schema. Ranks are forked here (-n), threads of one process
 * (--threads), or come from a launcher's environment (mpirun, srun,
 * torchrun). */
#include "perf.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "busbw.h"
#include "chorus.h"
#include "comm.h"
#include "csv.h"
#include "cuda_exec.h"
#include "exec.h"
#include "kernels.h"
#include "launcher.h"
#include "params.h"
#include "ranks.h"
#include "tune.h"

typedef struct {
  chorus_coll_t coll;
  int nranks;
  size_t minb, maxb;
  double factor;
  long step; /* -i-like additive step when > 0 */
  chorus_dtype_t dt;
  chorus_redop_t op;
  int root;
  char algo[64];
  int nchannels;
  int warmup, iters;
  int check;
  int threads;
  int device; /* -g: ranks as threads on this CUDA device (-1: host) */
  int inplace_mode; /* 0 both, 1 only out of place, 2 only in place */
  const char *csv;
  const char *trace;     /* --trace FILE: one more call of the last size, its ops recorded */
  const char *baseline;  /* --baseline FILE: compare with it, or write it when it does not exist */
  int baseline_new;      /* the file did not exist: this run writes it */
  double tolerance;      /* --tolerance: % slower than the baseline that fails the run */
  struct base_point *base; /* the baseline's rows, loaded before the ranks start */
  int nbase;
} perf_opts_t;

/* --- baselines: a --csv file of an earlier run ---------------------------- */

/* One row of a baseline: what identifies a point, and its bus bandwidth. */
typedef struct base_point {
  char coll[24], dtype[16], op[8];
  int nranks, root, inplace;
  size_t bytes;
  double busbw;
} base_point_t;

/* The columns a baseline must have, as --csv writes them. */
static const char *const base_cols[] = {"collective", "nranks", "dtype", "op", "root", "inplace", "size_bytes",
                                        "busbw_GBps"};
enum { BASE_NCOLS = 8 };

/* Read FILE (a --csv of an earlier run) into o->base; 0, or 2 after an
 * error naming the file and line. */
static int load_baseline(perf_opts_t *o) {
  FILE *f = fopen(o->baseline, "r");
  if (!f) {
    if (errno != ENOENT) return fprintf(stderr, "chorus perf: --baseline %s: %s\n", o->baseline, strerror(errno)), 2;
    o->baseline_new = 1;
    return 0;
  }
  char line[1024];
  int col[BASE_NCOLS], ncols = 0, lineno = 1, cap = 0, st = 0;
  if (!fgets(line, sizeof line, f)) {
    fclose(f);
    return fprintf(stderr, "chorus perf: --baseline %s: empty (a file written by --csv or --baseline expected)\n",
                   o->baseline), 2;
  }
  char *head[32];
  ncols = csv_split(line, head, 32);
  for (int k = 0; k < BASE_NCOLS; k++)
    if ((col[k] = csv_column(head, ncols, base_cols[k])) < 0) {
      fclose(f);
      return fprintf(stderr, "chorus perf: --baseline %s:1: no column '%s' (a file written by --csv expected)\n",
                     o->baseline, base_cols[k]), 2;
    }
  while (!st && fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '\n' || line[0] == '#') continue;
    char *field[32];
    int nf = csv_split(line, field, 32);
    if (nf < ncols) {
      st = (fprintf(stderr, "chorus perf: --baseline %s:%d: %d fields, the header has %d\n", o->baseline, lineno, nf,
                   ncols), 2);
      break;
    }
    base_point_t b = {0};
    char *end1, *end2, *end3, *end4, *end5;
    snprintf(b.coll, sizeof b.coll, "%s", field[col[0]]);
    b.nranks = (int)strtol(field[col[1]], &end1, 10);
    snprintf(b.dtype, sizeof b.dtype, "%s", field[col[2]]);
    snprintf(b.op, sizeof b.op, "%s", field[col[3]]);
    b.root = (int)strtol(field[col[4]], &end2, 10);
    b.inplace = (int)strtol(field[col[5]], &end3, 10);
    b.bytes = (size_t)strtoull(field[col[6]], &end4, 10);
    b.busbw = strtod(field[col[7]], &end5);
    if (*end1 || *end2 || *end3 || *end4 || *end5 || !*field[col[7]] || !(b.busbw >= 0)) {
      st = (fprintf(stderr, "chorus perf: --baseline %s:%d: not a row of numbers where the header says so\n",
                   o->baseline, lineno), 2);
      break;
    }
    if (o->nbase == cap) {
      cap = cap ? 2 * cap : 64;
      base_point_t *nb = realloc(o->base, sizeof *nb * (size_t)cap);
      if (!nb) {
        st = (fprintf(stderr, "chorus perf: out of memory\n"), 2);
        break;
      }
      o->base = nb;
    }
    o->base[o->nbase++] = b;
  }
  fclose(f);
  if (!st && !o->nbase)
    st = (fprintf(stderr, "chorus perf: --baseline %s: no rows (a file written by --csv expected)\n", o->baseline), 2);
  return st;
}

/* The baseline's busbw for this point, or -1 when it has none. */
static double baseline_busbw(const perf_opts_t *o, int nranks, int root, int inplace, size_t bytes) {
  for (int i = 0; i < o->nbase; i++) {
    const base_point_t *b = &o->base[i];
    if (b->nranks == nranks && b->root == root && b->inplace == inplace && b->bytes == bytes &&
        !strcmp(b->coll, chorus_coll_name(o->coll)) && !strcmp(b->dtype, chorus_dtype_name(o->dt)) &&
        !strcmp(b->op, chorus_redop_name(o->op)))
      return b->busbw;
  }
  return -1;
}

/* --- an independent reference: scalar conversions and arithmetic --- */

static float half_to_float(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(m | 1024), e - 25);
  return s ? -v : v;
}

static uint16_t float_to_half(float f) {
  /* Round to nearest even through frexp: the values here are small. */
  uint16_t s = signbit(f) ? 0x8000 : 0;
  f = fabsf(f);
  if (f == 0) return s;
  if (isinf(f) || f >= 65520.0f) return s | 0x7c00;
  int e;
  frexpf(f, &e); /* f = m * 2^e, m in [0.5,1) */
  int ue = e - 1;  /* f = 1.x * 2^ue */
  if (ue < -14) {
    float m = nearbyintf(ldexpf(f, 24));
    return s | (uint16_t)m;
  }
  float m = nearbyintf(ldexpf(f, 10 - ue)); /* 1024..2048 */
  if (m >= 2048) m /= 2, ue++;
  if (ue > 15) return s | 0x7c00;
  return s | (uint16_t)((ue + 15) << 10) | (uint16_t)((int)m - 1024);
}

static float bf16_to_float(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

static double get(const void *b, chorus_dtype_t dt, size_t i) {
  switch (dt) {
  case chorus_int8: return ((const int8_t *)b)[i];
  case chorus_uint8: return ((const uint8_t *)b)[i];
  case chorus_int32: return ((const int32_t *)b)[i];
  case chorus_uint32: return ((const uint32_t *)b)[i];
  case chorus_int64: return (double)((const int64_t *)b)[i];
  case chorus_uint64: return (double)((const uint64_t *)b)[i];
  case chorus_float16: return half_to_float(((const uint16_t *)b)[i]);
  case chorus_bfloat16: return bf16_to_float(((const uint16_t *)b)[i]);
  case chorus_float32: return ((const float *)b)[i];
  case chorus_float64: return ((const double *)b)[i];
  default: return 0;
  }
}

static void put(void *b, chorus_dtype_t dt, size_t i, double v) {
  switch (dt) {
  case chorus_int8: ((int8_t *)b)[i] = (int8_t)v; break;
  case chorus_uint8: ((uint8_t *)b)[i] = (uint8_t)v; break;
  case chorus_int32: ((int32_t *)b)[i] = (int32_t)v; break;
  case chorus_uint32: ((uint32_t *)b)[i] = (uint32_t)v; break;
  case chorus_int64: ((int64_t *)b)[i] = (int64_t)v; break;
  case chorus_uint64: ((uint64_t *)b)[i] = (uint64_t)v; break;
  case chorus_float16: ((uint16_t *)b)[i] = float_to_half((float)v); break;
  case chorus_bfloat16: ((uint16_t *)b)[i] = float_to_bf16((float)v); break;
  case chorus_float32: ((float *)b)[i] = (float)v; break;
  case chorus_float64: ((double *)b)[i] = v; break;
  default: break;
  }
}

static int is_signed(chorus_dtype_t dt) { return dt != chorus_uint8 && dt != chorus_uint32 && dt != chorus_uint64; }
static int is_float(chorus_dtype_t dt) { return dt >= chorus_float16; }

/* Rank r's input element i: small integers, so that every order of
 * summation gives the same bits in every type (sums stay below 2^7). */
static double input_value(chorus_redop_t op, chorus_dtype_t dt, int r, size_t i) {
  size_t h = (size_t)r * 7 + i * 3 + (i >> 7);
  switch (op) {
  case chorus_prod: return (r + i) % 7 == 0 ? 2 : 1;
  case chorus_min:
  case chorus_max: return (double)(h % 17) - (is_signed(dt) ? 8 : 0);
  default: return (double)(h % 4) - (is_signed(dt) && (i & 1) ? 1 : 0);
  }
}

static double reduce_ref(chorus_redop_t op, chorus_dtype_t dt, int nranks, size_t idx, int (*rank_of)(int, void *),
                         void *arg) {
  double acc = 0;
  for (int q = 0; q < nranks; q++) {
    double v = input_value(op, dt, rank_of(q, arg), idx);
    if (q == 0) acc = v;
    else if (op == chorus_prod) acc *= v;
    else if (op == chorus_min) acc = v < acc ? v : acc;
    else if (op == chorus_max) acc = v > acc ? v : acc;
    else acc += v;
  }
  if (op == chorus_avg) acc = is_float(dt) ? acc / nranks : trunc(acc / nranks);
  return acc;
}

static int ident(int q, void *arg) { return q; }

static int close_enough(double got, double want, chorus_dtype_t dt, chorus_redop_t op) {
  if (got == want) return 1;
  if (op != chorus_avg || !is_float(dt)) return 0;
  double tol = dt == chorus_float16 ? 1.0 / 1024 : dt == chorus_bfloat16 ? 1.0 / 128 : dt == chorus_float32 ? 1e-6 : 1e-14;
  return fabs(got - want) <= tol * fabs(want) + 1e-30;
}

/* --- one rank --- */

typedef struct {
  const perf_opts_t *o;
  chorus_comm_t *comm;
  chorus_comm_t *ctl;       /* the bookkeeping allreduces (host buffers): comm, or a host twin of a CUDA one */
  chorus_stream_t *stream;  /* CUDA: this rank's stream; NULL on the host */
  void *cu;                 /* CUDA: its cudaStream_t, for the copies */
  char *dsend, *drecv;      /* CUDA: the device buffers (send/recv are their host images) */
  int rank, nranks, nhosts;
  char *send, *recv;
  size_t sendcap, recvcap;
  FILE *csv;
  FILE *base_out; /* rank 0, when this run writes the baseline */
  int compared, slower; /* rank 0: points found in the baseline, and those slower beyond the tolerance */
  char used_algo[64]; /* what the timed calls of the last point ran (not the bookkeeping allreduces) */
  int used_nch;
  int failed;
  double sum_busbw; /* rank 0: the points' bus bandwidth, for the average */
  int npoints;
} rank_t;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static void units(chorus_coll_t c, int n, int *in_u, int *out_u) {
  *in_u = (c == chorus_reducescatter || c == chorus_alltoall) ? n : 1;
  *out_u = (c == chorus_allgather || c == chorus_alltoall) ? n : 1;
}

/* Fill this rank's input (for in place, inside the output where the API
 * says) and return the input and output pointers to pass. */
static void prepare(rank_t *R, size_t count, int inplace, const void **in, void **out) {
  const perf_opts_t *o = R->o;
  size_t es = chorus_dtype_size(o->dt);
  int in_u, out_u;
  units(o->coll, R->nranks, &in_u, &out_u);
  char *ib = R->send, *ob = R->recv;
  if (inplace) {
    if (o->coll == chorus_allgather) ib = ob + (size_t)R->rank * count * es;
    else if (o->coll == chorus_reducescatter) ib = R->send, ob = R->send + (size_t)R->rank * count * es;
    else ib = ob;
  }
  int has_in = o->coll != chorus_broadcast || R->rank == o->root;
  size_t nin = count * (size_t)in_u;
  if (has_in)
    for (size_t i = 0; i < nin; i++) put(ib, o->dt, i, input_value(o->op, o->dt, R->rank, i));
  /* Poison the output so that an element never written is counted wrong. */
  if (!(inplace && (o->coll == chorus_allgather || o->coll == chorus_reducescatter)) && !(inplace && has_in))
    memset(ob, 0x5a, count * (size_t)out_u * es);
  else if (inplace && o->coll == chorus_allgather) {
    memset(ob, 0x5a, (size_t)R->rank * count * es);
    memset(ob + (size_t)(R->rank + 1) * count * es, 0x5a, (size_t)(R->nranks - R->rank - 1) * count * es);
  }
  *in = ib;
  *out = ob;
}

static long check(rank_t *R, size_t count, const void *outp) {
  const perf_opts_t *o = R->o;
  int n = R->nranks, r = R->rank;
  long wrong = 0;
  switch (o->coll) {
  case chorus_allreduce:
    for (size_t i = 0; i < count; i++)
      wrong += !close_enough(get(outp, o->dt, i), reduce_ref(o->op, o->dt, n, i, ident, NULL), o->dt, o->op);
    break;
  case chorus_reduce:
    if (r != o->root) break;
    for (size_t i = 0; i < count; i++)
      wrong += !close_enough(get(outp, o->dt, i), reduce_ref(o->op, o->dt, n, i, ident, NULL), o->dt, o->op);
    break;
  case chorus_broadcast:
    for (size_t i = 0; i < count; i++) wrong += get(outp, o->dt, i) != input_value(o->op, o->dt, o->root, i);
    break;
  case chorus_allgather:
    for (int j = 0; j < n; j++)
      for (size_t i = 0; i < count; i++)
        wrong += get(outp, o->dt, (size_t)j * count + i) != input_value(o->op, o->dt, j, i);
    break;
  case chorus_reducescatter:
    for (size_t i = 0; i < count; i++)
      wrong += !close_enough(get(outp, o->dt, i), reduce_ref(o->op, o->dt, n, (size_t)r * count + i, ident, NULL),
                             o->dt, o->op);
    break;
  case chorus_alltoall:
    for (int j = 0; j < n; j++)
      for (size_t i = 0; i < count; i++)
        wrong += get(outp, o->dt, (size_t)j * count + i) != input_value(o->op, o->dt, j, (size_t)r * count + i);
    break;
  default: break;
  }
  return wrong;
}

/* The device address of a host-image pointer (itself on the host). */
static void *dev_of(const rank_t *R, const void *p) {
  if (!R->dsend || !p) return (void *)p;
  const char *c = p;
  if (c >= R->send && c < R->send + R->sendcap) return R->dsend + (c - R->send);
  return R->drecv + (c - R->recv);
}

/* One call, waited for. */
static chorus_result_t run_once(rank_t *R, const void *in, void *out, size_t count) {
  const perf_opts_t *o = R->o;
  chorus_result_t res = chorus_run_collective(o->coll, dev_of(R, in), dev_of(R, out), count, o->dt, o->op, o->root,
                                              R->comm, R->stream);
  if (res == chorus_success && R->stream) res = chorus_stream_synchronize(R->stream);
  return res;
}

static chorus_result_t run_point(rank_t *R, size_t count, int inplace, double *time_us, long *wrong) {
  const perf_opts_t *o = R->o;
  const void *in;
  void *out;
  *wrong = 0;
  if (o->check) {
    prepare(R, count, inplace, &in, &out);
    if (R->dsend) {
      TRY(cuda_buf_copy(R->dsend, R->send, R->sendcap, 0, R->cu));
      TRY(cuda_buf_copy(R->drecv, R->recv, R->recvcap, 0, R->cu));
    }
    TRY(run_once(R, in, out, count));
    if (R->dsend) {
      TRY(cuda_buf_copy(R->send, R->dsend, R->sendcap, 1, R->cu));
      TRY(cuda_buf_copy(R->recv, R->drecv, R->recvcap, 1, R->cu));
    }
    *wrong = check(R, count, out);
  } else {
    prepare(R, 0, inplace, &in, &out);
    size_t es = chorus_dtype_size(o->dt);
    if (inplace && o->coll == chorus_allgather) in = R->recv + (size_t)R->rank * count * es;
    if (inplace && o->coll == chorus_reducescatter) out = R->send + (size_t)R->rank * count * es;
  }
  for (int i = 0; i < o->warmup; i++) {
    TRY(run_once(R, in, out, count));
  }
  int32_t token = 1, sum;
  TRY(chorus_run_allreduce(&token, &sum, 1, chorus_int32, chorus_sum, R->ctl, NULL));
  double t0 = now_us();
  for (int i = 0; i < o->iters; i++) {
    TRY(chorus_run_collective(o->coll, dev_of(R, in), dev_of(R, out), count, o->dt, o->op, o->root, R->comm,
                            R->stream));
  }
  if (R->stream) TRY(chorus_stream_synchronize(R->stream)); /* CUDA: the calls were only enqueued */
  double t = (now_us() - t0) / (o->iters > 0 ? o->iters : 1);
  snprintf(R->used_algo, sizeof R->used_algo, "%s", exec_last(R->comm, &R->used_nch));
  /* The slowest rank's time, and every rank's wrong elements. */
  double tmax;
  TRY(chorus_run_allreduce(&t, &tmax, 1, chorus_float64, chorus_max, R->ctl, NULL));
  int64_t w = *wrong, wsum;
  TRY(chorus_run_allreduce(&w, &wsum, 1, chorus_int64, chorus_sum, R->ctl, NULL));
  *time_us = tmax;
  *wrong = (long)wsum;
  return chorus_success;
}

static void rank_free(rank_t *R) {
  if (R->stream) chorus_stream_destroy(R->stream);
  cuda_buf_free(R->dsend);
  cuda_buf_free(R->drecv);
  free(R->send);
  free(R->recv);
}

/* This rank's buffers (and on a GPU its stream and device buffers), sized
 * for the largest point. 0, or 1 after a message. */
static int rank_setup(rank_t *R, int per_rank_total) {
  const perf_opts_t *o = R->o;
  size_t es = chorus_dtype_size(o->dt);
  int in_u, out_u, n = R->nranks;
  units(o->coll, n, &in_u, &out_u);
  size_t maxcount = o->maxb / es / (per_rank_total ? (size_t)n : 1);
  R->sendcap = (maxcount * (size_t)in_u + 64) * es;
  R->recvcap = (maxcount * (size_t)out_u + 64) * es;
  if (posix_memalign((void **)&R->send, 4096, R->sendcap) || posix_memalign((void **)&R->recv, 4096, R->recvcap)) {
    fprintf(stderr, "chorus perf: rank %d: cannot allocate %zu + %zu bytes\n", R->rank, R->sendcap, R->recvcap);
    return 1;
  }
  memset(R->send, 0, R->sendcap); /* touch every page before timing */
  memset(R->recv, 0, R->recvcap);
  if (!R->ctl) R->ctl = R->comm;
  if (o->device >= 0) {
    chorus_result_t res = chorus_stream_create_cuda(&R->stream, NULL);
    if (res == chorus_success) res = chorus_stream_cuda_handle(R->stream, &R->cu);
    if (res == chorus_success) res = cuda_buf_alloc(o->device, R->sendcap, R->cu, (void **)&R->dsend);
    if (res == chorus_success) res = cuda_buf_alloc(o->device, R->recvcap, R->cu, (void **)&R->drecv);
    if (res != chorus_success) {
      fprintf(stderr, "chorus perf: rank %d: %s\n", R->rank, chorus_last_error());
      return 1;
    }
  }
  return 0;
}

/* Rank 0: the table's header, in nccl-tests' layout. */
static void print_header(const rank_t *R) {
  const perf_opts_t *o = R->o;
  int n = R->nranks;
  char where[48];
  if (o->device >= 0) snprintf(where, sizeof where, "CUDA device %d, protocol simple", o->device);
  printf("# chorus perf %s: %d ranks on %d hosts, dtype %s, op %s, algo %s, channels %s, warmup %d, iters %d, "
         "kernels %s\n",
         chorus_coll_name(o->coll), n, R->nhosts, chorus_dtype_name(o->dt), chorus_redop_name(o->op),
         o->algo[0] ? o->algo : "auto", o->nchannels ? "fixed" : "auto", o->warmup, o->iters,
         o->device >= 0 ? where : kern_isa());
  printf("#%76s%32s\n", "out-of-place", "in-place");
  printf("#%11s %13s %9s %7s %6s %8s %7s %7s %6s %8s %7s %7s %6s  %s\n", "size", "count", "type", "redop", "root",
         "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "algo/channels");
  printf("#%11s %13s %9s %7s %6s %8s %7s %7s %6s %8s %7s %7s %6s\n", "(B)", "(elements)", "", "", "", "(us)",
         "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  fflush(stdout);
}

/* One size, out of place and in place as asked: timed, checked, and on
 * rank 0 printed and written. *status becomes 1 when an element was
 * wrong. 0, or -1 when a call failed. */
static int measure_size(rank_t *R, size_t count, size_t bytes, int *status) {
  const perf_opts_t *o = R->o;
  int n = R->nranks, rooted = o->coll == chorus_broadcast || o->coll == chorus_reduce;
  double t[2] = {0, 0};
  long wrong[2] = {0, 0};
  int done[2] = {0, 0};
  for (int ip = 0; ip < 2; ip++) {
    if ((ip == 0 && o->inplace_mode == 2) || (ip == 1 && o->inplace_mode == 1)) continue;
    chorus_result_t res = run_point(R, count, ip, &t[ip], &wrong[ip]);
    if (res != chorus_success) {
      fprintf(stderr, "chorus perf: rank %d: %s of %zu bytes failed: %s: %s\n", R->rank,
              chorus_coll_name(o->coll), bytes, chorus_result_string(res), chorus_last_error());
      return -1;
    }
    done[ip] = 1;
    if (wrong[ip]) *status = 1;
  }
  if (R->rank == 0) {
    char cmp[160] = "";
    printf("%12zu %13zu %9s %7s %6d", bytes, count, chorus_dtype_name(o->dt),
           o->coll == chorus_allreduce || o->coll == chorus_reduce || o->coll == chorus_reducescatter
               ? chorus_redop_name(o->op)
               : "none",
           rooted ? o->root : -1);
    for (int ip = 0; ip < 2; ip++) {
      if (!done[ip]) {
        printf(" %8s %7s %7s %6s", "-", "-", "-", "-");
        continue;
      }
      double algbw = t[ip] > 0 ? (double)bytes / t[ip] / 1e3 : 0;
      double busbw = algbw * sim_bus_factor(o->coll, n);
      printf(" %8.2f %7.2f %7.2f %6ld", t[ip], algbw, busbw, wrong[ip]);
      R->sum_busbw += busbw;
      R->npoints++;
      FILE *outs[2] = {R->csv, R->base_out};
      for (int w = 0; w < 2; w++)
        if (outs[w])
          fprintf(outs[w], "%s,%s,%s,%d,%d,%s,%s,%d,%d,%zu,%zu,%.3f,%.4f,%.4f,%ld\n", chorus_coll_name(o->coll),
                  R->used_algo[0] ? R->used_algo : "none", tune_proto(), n, R->nhosts, chorus_dtype_name(o->dt),
                  chorus_redop_name(o->op), rooted ? o->root : -1, ip, bytes, count, t[ip], algbw, busbw, wrong[ip]);
      double base = o->nbase ? baseline_busbw(o, n, rooted ? o->root : -1, ip, bytes) : -1;
      if (base > 0) {
        double change = (busbw / base - 1) * 100;
        int slow = change < -o->tolerance;
        snprintf(cmp + strlen(cmp), sizeof cmp - strlen(cmp), "  %s %.2f %+.1f%%%s", ip ? "in" : "out", base, change,
                 slow ? " SLOWER" : "");
        R->compared++, R->slower += slow;
      }
    }
    /* What ran (the tuner's choice unless -a/-c fixed it), as the table's last column; then, with
     * --baseline, the baseline's busbw and the change, per out-of-place and in-place column. */
    printf("  %s/%d%s%s\n", R->used_algo[0] ? R->used_algo : "-", R->used_nch, cmp[0] ? "  | base" : "", cmp);
    fflush(stdout);
    if (R->csv) fflush(R->csv);
    if (R->base_out) fflush(R->base_out);
  }
  return 0;
}

/* --trace: one more call of the last size, out of place and untimed, after
 * the ranks line up; every rank records its ops into FILE.rank<r>. */
static chorus_result_t trace_call(rank_t *R, size_t count) {
  const perf_opts_t *o = R->o;
  const void *in;
  void *out;
  prepare(R, count, 0, &in, &out);
  int32_t token = 1, sum;
  TRY(chorus_run_allreduce(&token, &sum, 1, chorus_int32, chorus_sum, R->ctl, NULL));
  char part[1200];
  snprintf(part, sizeof part, "%s.rank%d", o->trace, R->rank);
  TRY(exec_trace_next(R->comm, part));
  TRY(chorus_run_collective(o->coll, in, out, count, o->dt, o->op, o->root, R->comm, NULL));
  return chorus_run_allreduce(&token, &sum, 1, chorus_int32, chorus_sum, R->ctl, NULL);
}

/* The ranks' trace parts (FILE.rank<r>) into FILE, one trace with a process
 * per rank; the parts go when all were there. Returns 0, or 1 after saying
 * which part is missing (ranks on other hosts write theirs there). */
static int trace_merge(const char *path, int nranks) {
  FILE *f = fopen(path, "w");
  if (!f) return fprintf(stderr, "chorus perf: --trace %s: %s\n", path, strerror(errno)), 1;
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
  int first = 1, missing = -1;
  char part[1200], line[1024];
  for (int r = 0; r < nranks; r++) {
    snprintf(part, sizeof part, "%s.rank%d", path, r);
    FILE *p = fopen(part, "r");
    if (!p) {
      missing = r;
      continue;
    }
    while (fgets(line, sizeof line, p)) {
      if (line[0] == ',') memmove(line, line + 1, strlen(line));
      if (line[0] != '{' || !strncmp(line, "{\"displayTimeUnit\"", 18)) continue;
      size_t len = strcspn(line, "\n");
      while (len && (line[len - 1] == ',' || line[len - 1] == ' ')) len--;
      line[len] = 0;
      fprintf(f, "%s\n%s", first ? "" : ",", line);
      first = 0;
    }
    fclose(p);
  }
  fprintf(f, "\n]}\n");
  int bad = fclose(f) != 0;
  if (missing >= 0)
    return fprintf(stderr, "chorus perf: --trace: no %s.rank%d here (ranks on other hosts write theirs there); %s "
                   "holds the ranks found\n", path, missing, path), 1;
  for (int r = 0; !bad && r < nranks; r++) {
    snprintf(part, sizeof part, "%s.rank%d", path, r);
    unlink(part);
  }
  return bad;
}

static int run_rank(rank_t *R) {
  const perf_opts_t *o = R->o;
  chorus_comm_count(R->comm, &R->nranks);
  chorus_comm_user_rank(R->comm, &R->rank);
  chorus_comm_nhosts(R->comm, &R->nhosts);
  exec_force(R->comm, o->algo, o->nchannels);
  int n = R->nranks;
  int per_rank_total = o->coll == chorus_allgather || o->coll == chorus_reducescatter || o->coll == chorus_alltoall;
  if (rank_setup(R, per_rank_total)) return 1;
  if (R->rank == 0) print_header(R);
  size_t es = chorus_dtype_size(o->dt), prev = 0, last_count = 0;
  int status = 0;
  for (size_t size = o->minb; size <= o->maxb;) {
    size_t count = size / es / (per_rank_total ? (size_t)n : 1);
    size_t bytes = count * es * (per_rank_total ? (size_t)n : 1);
    if (bytes != prev || size == o->minb) {
      if (measure_size(R, count, bytes, &status)) {
        rank_free(R);
        return 1;
      }
      prev = bytes, last_count = count;
    }
    size_t next = o->step > 0 ? size + (size_t)o->step : (size_t)((double)size * o->factor);
    if (next <= size) break;
    size = next;
  }
  if (o->trace && trace_call(R, last_count) != chorus_success) {
    fprintf(stderr, "chorus perf: rank %d: the traced call failed: %s\n", R->rank, chorus_last_error());
    rank_free(R);
    return 1;
  }
  if (R->rank == 0) {
    printf("# Out of bounds values : %s\n", status ? "some wrong (see #wrong)" : "0 OK");
    printf("# Avg bus bandwidth    : %.4f\n#\n", R->npoints ? R->sum_busbw / R->npoints : 0);
    if (o->baseline_new) {
      printf("# Baseline             : written to %s (the next run with --baseline %s compares with it)\n",
             o->baseline, o->baseline);
    } else if (o->baseline) {
      printf("# Baseline %s: %d of %d points compared, %d more than %.1f %% slower\n", o->baseline, R->compared,
             R->npoints, R->slower, o->tolerance);
      if (!R->compared)
        fprintf(stderr, "chorus perf: --baseline %s has no point of this run (%s, %s, %s, %d ranks, these sizes)\n",
                o->baseline, chorus_coll_name(o->coll), chorus_dtype_name(o->dt), chorus_redop_name(o->op), n);
      if (R->slower || !R->compared) status |= 1;
    }
  }
  rank_free(R);
  return status;
}

/* --- launching --- */

static int usage(FILE *f) {
  fprintf(f,
          "usage: chorus perf COLLECTIVE [-n ranks] [-b min] [-e max] [-f factor] [-d dtype] [-o op] [-r root]\n"
          "                  [-a algo] [-c channels] [-w warmup] [-i iters] [--csv FILE] [--threads] [-g device]\n"
          "                  [--inplace 0|1|both] [--no-check] [--baseline FILE [--tolerance P]]\n\n"
          "  COLLECTIVE   allreduce, broadcast, reduce, allgather, reducescatter, alltoall\n"
          "  -n N         fork N local ranks (default: the launcher's ranks, else 1)\n"
          "  --threads    run the N ranks as threads of this process instead\n"
          "  -g, --device D  run the N ranks as threads on CUDA device D (device buffers, one kernel per call)\n"
          "  -b, -e       smallest and largest size in bytes (K, M, G suffixes; default 8 and 64M)\n"
          "  -f F         multiply the size by F each step (default 2)\n"
          "  -d dtype     int8 uint8 int32 uint32 int64 uint64 half bfloat16 float double (default float)\n"
          "  -o op        sum prod min max avg (default sum)\n"
          "  -r root      root of broadcast and reduce (default 0)\n"
          "  -a algo      algorithm script (default: the tuner's choice)\n"
          "  -c N         channels (default: the tuner's choice)\n"
          "  -w, -i       warm-up and timed iterations (default 5 and 20)\n"
          "  --csv FILE   also write one row per measured point\n"
          "  --baseline FILE  compare each point's busbw with FILE (a --csv of an earlier run) and exit 1\n"
          "               when one is more than --tolerance slower; when FILE does not exist, write it\n"
          "  --tolerance P  percent slower than the baseline that fails the run (default 10)\n"
          "  --trace FILE one more call of the last size, every rank's ops (start, end, waits, peers, bytes) as a\n"
          "               Chrome/Perfetto trace; chorus timeline draws it beside chorus sim --trace\n\n"
          "Sizes follow nccl-tests: the bytes of one rank's buffer for allreduce, broadcast and reduce, the\n"
          "total for allgather, reducescatter and alltoall. Exits 1 when any element is wrong.\n");
  return f == stderr ? 2 : 0;
}

typedef struct {
  rank_t R;
  int status;
} thread_rank_t;

static void *thread_main(void *arg) {
  thread_rank_t *t = arg;
  t->status = run_rank(&t->R);
  return NULL;
}

static FILE *open_csv_at(const char *opt, const char *path) {
  if (!path) return NULL;
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "chorus perf: %s %s: %s\n", opt, path, strerror(errno));
    return NULL;
  }
  fprintf(f, "collective,algo,proto,nranks,nnodes,dtype,op,root,inplace,size_bytes,count,time_us,algbw_GBps,"
             "busbw_GBps,wrong\n");
  return f;
}

/* Rank 0's outputs: the --csv file, and the baseline when this run writes it. */
static void open_outputs(rank_t *R) {
  R->csv = open_csv_at("--csv", R->o->csv);
  if (R->o->baseline_new) R->base_out = open_csv_at("--baseline", R->o->baseline);
}

static void close_outputs(rank_t *R) {
  if (R->csv) fclose(R->csv);
  if (R->base_out) fclose(R->base_out);
  R->csv = R->base_out = NULL;
}

/* The options after the collective into o; returns -1 when they are fine,
 * else the exit status (2 for bad input, 0 after --help). */
static int parse_args(int argc, char **argv, perf_opts_t *op) {
  perf_opts_t o = *op;
  static const struct option longs[] = {{"csv", required_argument, NULL, 'C'},
                                        {"baseline", required_argument, NULL, 'B'},
                                        {"trace", required_argument, NULL, 'R'},
                                        {"tolerance", required_argument, NULL, 'O'},
                                        {"threads", no_argument, NULL, 'T'},
                                        {"device", required_argument, NULL, 'g'},
                                        {"no-check", no_argument, NULL, 'N'},
                                        {"inplace", required_argument, NULL, 'P'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  optind = 2;
  int c;
  while ((c = getopt_long(argc, argv, "n:b:e:f:d:o:r:a:c:w:i:g:h", longs, NULL)) != -1) {
    switch (c) {
    case 'n': {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (*end || end == optarg || v < 1 || v > 4096)
        return fprintf(stderr, "chorus perf: -n: '%s' is not a rank count (1 to 4096)\n", optarg), 2;
      o.nranks = (int)v;
      break;
    }
    case 'b':
      if (param_parse_bytes(optarg, &o.minb)) return fprintf(stderr, "chorus perf: -b: '%s' is not a size\n", optarg), 2;
      break;
    case 'e':
      if (param_parse_bytes(optarg, &o.maxb)) return fprintf(stderr, "chorus perf: -e: '%s' is not a size\n", optarg), 2;
      break;
    case 'f': o.factor = atof(optarg); break;
    case 'd':
      if (chorus_dtype_parse(optarg, &o.dt) != chorus_success)
        return fprintf(stderr, "chorus perf: -d: %s\n", chorus_last_error()), 2;
      break;
    case 'o':
      if (chorus_redop_parse(optarg, &o.op) != chorus_success)
        return fprintf(stderr, "chorus perf: -o: %s\n", chorus_last_error()), 2;
      break;
    case 'r': o.root = atoi(optarg); break;
    case 'a': snprintf(o.algo, sizeof o.algo, "%s", optarg); break;
    case 'c': o.nchannels = atoi(optarg); break;
    case 'w': o.warmup = atoi(optarg); break;
    case 'i': o.iters = atoi(optarg); break;
    case 'C': o.csv = optarg; break;
    case 'B': o.baseline = optarg; break;
    case 'R': o.trace = optarg; break;
    case 'O': {
      char *end;
      o.tolerance = strtod(optarg, &end);
      if (*end == '%') end++;
      if (*end || end == optarg || !(o.tolerance >= 0 && o.tolerance < 100))
        return fprintf(stderr, "chorus perf: --tolerance: '%s' is not a percentage (0 to 100)\n", optarg), 2;
      break;
    }
    case 'T': o.threads = 1; break;
    case 'g': {
      char *end;
      long d = strtol(optarg, &end, 10);
      if (*end || end == optarg || d < 0 || d > 1024)
        return fprintf(stderr, "chorus perf: -g: '%s' is not a CUDA device number\n", optarg), 2;
      o.device = (int)d, o.threads = 1;
      break;
    }
    case 'N': o.check = 0; break;
    case 'P': o.inplace_mode = !strcmp(optarg, "0") ? 1 : !strcmp(optarg, "1") ? 2 : 0; break;
    case 'h': return usage(stdout);
    default: return usage(stderr);
    }
  }
  if (o.factor <= 1 && o.minb != o.maxb) return fprintf(stderr, "chorus perf: -f must be above 1\n"), 2;
  if (o.minb > o.maxb) return fprintf(stderr, "chorus perf: -b %zu is above -e %zu\n", o.minb, o.maxb), 2;
  /* A size below one element is a call of count 0: measured (every rank
   * must agree on it too), but said, not silent. */
  if (o.minb < chorus_dtype_size(o.dt))
    printf("# -b %zu is less than one %s: sizes below %zu bytes are calls of 0 elements\n", o.minb,
           chorus_dtype_name(o.dt), chorus_dtype_size(o.dt));
  if (o.nchannels < 0 || o.nchannels > PLAN_MAX_CHANNELS)
    return fprintf(stderr, "chorus perf: -c must be 1..%d\n", PLAN_MAX_CHANNELS), 2;

  if (o.trace && o.device >= 0)
    return fprintf(stderr, "chorus perf: --trace records the CPU executor's ops; CUDA ranks (-g) are not traced\n"),
           2;
  /* The files the run will write must be writable before it starts, not only after. */
  const char *outs[2] = {o.csv, o.baseline};
  for (int w = 0; w < 2; w++) {
    if (!outs[w] || (w == 1 && access(outs[w], F_OK) == 0)) continue;
    FILE *f = fopen(outs[w], "a");
    if (!f) return fprintf(stderr, "chorus perf: %s %s: %s\n", w ? "--baseline" : "--csv", outs[w], strerror(errno)), 2;
    fclose(f);
    if (w == 1) unlink(outs[w]); /* load_baseline must still find it new */
  }
  *op = o;
  return -1;
}

/* One rank of a job a launcher started (mpirun, srun, torchrun). */
static int run_from_env(perf_opts_t *o) {
  rank_t R = {.o = o};
  chorus_result_t res = chorus_comm_init_env(&R.comm);
  if (res != chorus_success) {
    fprintf(stderr, "chorus perf: %s: %s\n", chorus_result_string(res), chorus_last_error());
    return 1;
  }
  int rank;
  chorus_comm_user_rank(R.comm, &rank);
  if (rank == 0) open_outputs(&R);
  int st = run_rank(&R);
  close_outputs(&R);
  int nranks = 1;
  chorus_comm_count(R.comm, &nranks);
  chorus_comm_destroy(R.comm);
  /* Rank 0 merges the parts it can see: its host's ranks (the traced call
   * ended with every rank's part written). */
  if (o->trace && !st && rank == 0) st = trace_merge(o->trace, nranks);
  return st;
}

/* --threads (and -g): the ranks as threads of this process. */
static int run_threads(perf_opts_t *o) {
  chorus_comm_t **comms = calloc((size_t)o->nranks, sizeof *comms);
  thread_rank_t *t = calloc((size_t)o->nranks, sizeof *t);
  pthread_t *th = calloc((size_t)o->nranks, sizeof *th);
  if (!comms || !t || !th) return fprintf(stderr, "chorus perf: out of memory\n"), 1;
  chorus_comm_t **ctls = NULL;
  chorus_result_t res;
  if (o->device >= 0) {
    /* The CUDA ranks, and host twins for the bookkeeping (times, counts). */
    int *devs = calloc((size_t)o->nranks, sizeof *devs);
    ctls = calloc((size_t)o->nranks, sizeof *ctls);
    res = chorus_out_of_memory;
    if (devs && ctls) {
      for (int r = 0; r < o->nranks; r++) devs[r] = o->device;
      res = chorus_comm_init_all_cuda(comms, o->nranks, devs);
      if (res == chorus_success) res = chorus_comm_init_all(ctls, o->nranks);
    }
    free(devs);
  } else {
    res = chorus_comm_init_all(comms, o->nranks);
  }
  if (res != chorus_success) {
    fprintf(stderr, "chorus perf: %s: %s\n", chorus_result_string(res),
            res == chorus_out_of_memory && !chorus_last_error()[0] ? "out of memory" : chorus_last_error());
    for (int r = 0; r < o->nranks; r++) /* whichever set was made before the other failed */
      if (comms[r]) chorus_comm_destroy(comms[r]);
    free(comms);
    free(ctls);
    free(t);
    free(th);
    return 1;
  }
  for (int r = 0; r < o->nranks; r++) {
    t[r].R = (rank_t){.o = o, .comm = comms[r], .ctl = ctls ? ctls[r] : NULL};
    if (r == 0) open_outputs(&t[r].R);
    pthread_create(&th[r], NULL, thread_main, &t[r]);
  }
  int st = 0;
  for (int r = 0; r < o->nranks; r++) {
    pthread_join(th[r], NULL);
    st |= t[r].status;
  }
  for (int r = 0; r < o->nranks; r++) chorus_comm_destroy(comms[r]);
  for (int r = 0; ctls && r < o->nranks; r++) chorus_comm_destroy(ctls[r]);
  free(ctls);
  close_outputs(&t[0].R);
  free(comms);
  free(t);
  free(th);
  return st;
}

/* A forked rank (-n N): its communicator is ranks_fork's. */
static int forked_rank(chorus_comm_t *comm, int rank, void *arg) {
  perf_opts_t *o = arg;
  rank_t R = {.o = o, .comm = comm};
  if (rank == 0) open_outputs(&R);
  int st = run_rank(&R);
  close_outputs(&R);
  return st;
}

int cmd_perf(int argc, char **argv) {
  perf_opts_t o = {.nranks = 0, .minb = 8, .maxb = 64u << 20, .factor = 2, .dt = chorus_float32, .op = chorus_sum,
                   .warmup = 5, .iters = 20, .check = 1, .device = -1, .tolerance = 10};
  if (argc < 2 || argv[1][0] == '-') {
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return usage(stdout);
    fprintf(stderr, "chorus perf: give the collective first (allreduce, broadcast, ...)\n");
    return usage(stderr);
  }
  if (chorus_coll_parse(argv[1], &o.coll) != chorus_success) {
    fprintf(stderr, "chorus perf: unknown collective '%s' (one of", argv[1]);
    for (int c = 0; c < chorus_num_collectives; c++) fprintf(stderr, " %s", chorus_coll_name((chorus_coll_t)c));
    fprintf(stderr, ")\n");
    return 2;
  }
  int st = parse_args(argc, argv, &o);
  if (st >= 0) return st;
  launcher_env_t launcher;
  int from_env = !o.nranks && launcher_env(&launcher);
  if (!o.nranks) o.nranks = 1;
  if (o.root < 0 || (!from_env && o.root >= o.nranks))
    return fprintf(stderr, "chorus perf: -r %d is not a rank of %d\n", o.root, o.nranks), 2;
  if (o.baseline && (st = load_baseline(&o))) {
    free(o.base); /* the rows read before the one that failed */
    return st;
  }
  if (from_env) st = run_from_env(&o);
  else if (o.threads) st = run_threads(&o);
  else st = ranks_fork("chorus perf", o.nranks, forked_rank, &o);
  free(o.base);
  if (o.trace && !st && !from_env) st = trace_merge(o.trace, o.nranks);
  return st;
}
