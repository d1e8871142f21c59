/* kern_cuda_body.h -- the CUDA collective kernel's device code, included by
 * kern_cuda.cu (nvcc) and, with KCU_EMULATE defined, by the CPU emulation
 * that runs this very code with one host thread per block
 * (tests/unit/kern_emu.cc), so that the op interpretation, the geometry and
 * the step protocol are tested on machines without a GPU. One block per
 * channel runs this rank's flat program (kern_cuda.h) op by op over the
 * slices of the buffer, with the geometry of geom.h and the arithmetic of
 * reduce.h; its op interpretation follows exec.c's run_op/op_send/op_recv
 * line for line, so that the verifier's proof of a plan holds for both. */
#ifndef CHORUS_KERN_CUDA_BODY_H
#define CHORUS_KERN_CUDA_BODY_H

#include <stdint.h>
#include <string.h>

#include "geom.h"
#include "kern_cuda.h"
#include "reduce.h"

#ifndef KCU_EMULATE
#define KCU_POLL_HINT() ((void)0)

/* ---- memory order ------------------------------------------------------- */

static __device__ __forceinline__ uint32_t ld_acquire(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
static __device__ __forceinline__ void st_release(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ uint64_t ld_volatile64(const uint64_t *p) {
  return *(const volatile uint64_t *)p;
}
static __device__ __forceinline__ uint32_t ld_abort(const volatile uint32_t *p) { return *p; }
static __device__ __forceinline__ void st_abort(const volatile uint32_t *p) { *(volatile uint32_t *)p = 1u; }
static __device__ __forceinline__ uint64_t now_ns(void) {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Loads from slots go through L2 (ld.global.cg): a slot is rewritten by
 * another SM between steps, and an L1 line kept from the last visit would be
 * stale. */
template <typename T> static __device__ __forceinline__ T ld_slot(const T *p);
template <> __device__ __forceinline__ uint8_t ld_slot(const uint8_t *p) { return __ldcg(p); }
template <> __device__ __forceinline__ int8_t ld_slot(const int8_t *p) { return (int8_t)__ldcg((const uint8_t *)p); }
template <> __device__ __forceinline__ uint16_t ld_slot(const uint16_t *p) { return __ldcg(p); }
template <> __device__ __forceinline__ uint32_t ld_slot(const uint32_t *p) { return __ldcg(p); }
template <> __device__ __forceinline__ int32_t ld_slot(const int32_t *p) { return __ldcg(p); }
template <> __device__ __forceinline__ uint64_t ld_slot(const uint64_t *p) {
  return __ldcg((const unsigned long long *)p);
}
template <> __device__ __forceinline__ int64_t ld_slot(const int64_t *p) {
  return (int64_t)__ldcg((const unsigned long long *)p);
}
template <> __device__ __forceinline__ float ld_slot(const float *p) { return __ldcg(p); }
template <> __device__ __forceinline__ double ld_slot(const double *p) { return __ldcg(p); }
template <> __device__ __forceinline__ uint4 ld_slot(const uint4 *p) { return __ldcg(p); }

#else

/* ---- memory order and loads, emulated: one host thread per block --------
 * (KCU_EMULATE: blockDim.x is 1, so __syncthreads orders nothing but the
 * compiler; release/acquire are C11's; a waiting thread yields its core). */

static inline uint32_t ld_acquire(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void st_release(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline uint64_t ld_volatile64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
template <typename T> static inline T ld_slot(const T *p) { return *p; } /* ordered by the acquire of head */
static inline uint32_t ld_abort(const volatile uint32_t *p) { return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED); }
static inline void st_abort(const volatile uint32_t *p) { __atomic_store_n((uint32_t *)p, 1u, __ATOMIC_RELAXED); }
static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif

/* ---- the arithmetic: one functor per (dtype, op) from reduce.h ---------- */

#define KCU_FN_(name, T, fn)                                                                                           \
  struct name {                                                                                                        \
    typedef T type;                                                                                                    \
    static __device__ __forceinline__ T apply(T a, T b) { return fn(a, b); }                                           \
  };
#define KCU_FNS_(tag, T)                                                                                               \
  KCU_FN_(fsum_##tag, T, red_sum_##tag)                                                                                \
  KCU_FN_(fprod_##tag, T, red_prod_##tag)                                                                              \
  KCU_FN_(fmin_##tag, T, red_min_##tag)                                                                                \
  KCU_FN_(fmax_##tag, T, red_max_##tag)
KCU_FNS_(i8, int8_t)
KCU_FNS_(u8, uint8_t)
KCU_FNS_(i32, int32_t)
KCU_FNS_(u32, uint32_t)
KCU_FNS_(i64, int64_t)
KCU_FNS_(u64, uint64_t)
KCU_FNS_(f16, uint16_t)
KCU_FNS_(bf16, uint16_t)
KCU_FNS_(f32, float)
KCU_FNS_(f64, double)

/* Run `body` templated on the functor for (dt, op); avg reduces as sum. */
#define KCU_DISPATCH_(dt, op, CALL)                                                                                    \
  switch (dt) {                                                                                                        \
  case 0: KCU_OPS_(i8, op, CALL) break;                                                                                \
  case 1: KCU_OPS_(u8, op, CALL) break;                                                                                \
  case 2: KCU_OPS_(i32, op, CALL) break;                                                                               \
  case 3: KCU_OPS_(u32, op, CALL) break;                                                                               \
  case 4: KCU_OPS_(i64, op, CALL) break;                                                                               \
  case 5: KCU_OPS_(u64, op, CALL) break;                                                                               \
  case 6: KCU_OPS_(f16, op, CALL) break;                                                                               \
  case 7: KCU_OPS_(bf16, op, CALL) break;                                                                              \
  case 8: KCU_OPS_(f32, op, CALL) break;                                                                               \
  case 9: KCU_OPS_(f64, op, CALL) break;                                                                               \
  default: break;                                                                                                      \
  }
#define KCU_OPS_(tag, op, CALL)                                                                                        \
  switch (op) {                                                                                                        \
  case 0:                                                                                                              \
  case 4: CALL(fsum_##tag); break;                                                                                     \
  case 1: CALL(fprod_##tag); break;                                                                                    \
  case 2: CALL(fmin_##tag); break;                                                                                     \
  case 3: CALL(fmax_##tag); break;                                                                                     \
  default: break;                                                                                                      \
  }

static __device__ __forceinline__ int aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* Vectors in flight per thread: loads of KCU_UNROLL vectors are issued
 * before the first is used, so that one block per SM keeps enough bytes in
 * flight to cover HBM's latency. */
#define KCU_UNROLL 2

/* The elements of two 16-byte vectors combined; memcpy, not a cast, reads
 * them as T (no aliasing rules broken; registers on the device). */
template <class F> static __device__ __forceinline__ uint4 vec_apply(uint4 x, uint4 y) {
  typedef typename F::type T;
  enum { PER = 16 / sizeof(T) };
  T tx[PER], ty[PER], tz[PER];
  memcpy(tx, &x, 16);
  memcpy(ty, &y, 16);
#pragma unroll
  for (int e = 0; e < PER; e++) tz[e] = F::apply(tx[e], ty[e]);
  uint4 z;
  memcpy(&z, tz, 16);
  return z;
}

/* Block-wide: d1[i] (and d2[i] when not NULL) = a[i] (op) b[i] for i < n,
 * a in local memory, b in a slot (b_slot) or local memory. 16-byte vector
 * loads and stores when every pointer allows them, elements otherwise and
 * for the tail. */
template <class F>
static __device__ void blk_reduce(void *d1, void *d2, const void *a, const void *b, size_t n, int b_slot) {
  typedef typename F::type T;
  const size_t per = 16 / sizeof(T);
  size_t nv = 0;
  if (aligned16(a) && aligned16(b) && (!d1 || aligned16(d1)) && (!d2 || aligned16(d2))) {
    nv = n / per;
    const uint4 *va = (const uint4 *)a, *vb = (const uint4 *)b;
    const size_t bd = blockDim.x;
    size_t i = threadIdx.x;
    for (; i + (KCU_UNROLL - 1) * bd < nv; i += KCU_UNROLL * bd) {
      uint4 x[KCU_UNROLL], y[KCU_UNROLL];
#pragma unroll
      for (int u = 0; u < KCU_UNROLL; u++) {
        x[u] = va[i + u * bd];
        y[u] = b_slot ? ld_slot(vb + i + u * bd) : vb[i + u * bd];
      }
#pragma unroll
      for (int u = 0; u < KCU_UNROLL; u++) {
        uint4 z = vec_apply<F>(x[u], y[u]);
        if (d1) ((uint4 *)d1)[i + u * bd] = z;
        if (d2) ((uint4 *)d2)[i + u * bd] = z;
      }
    }
    for (; i < nv; i += bd) {
      uint4 z = vec_apply<F>(va[i], b_slot ? ld_slot(vb + i) : vb[i]);
      if (d1) ((uint4 *)d1)[i] = z;
      if (d2) ((uint4 *)d2)[i] = z;
    }
  }
  const T *ta = (const T *)a, *tb = (const T *)b;
  for (size_t i = nv * per + threadIdx.x; i < n; i += blockDim.x) {
    T z = F::apply(ta[i], b_slot ? ld_slot(tb + i) : tb[i]);
    if (d1) ((T *)d1)[i] = z;
    if (d2) ((T *)d2)[i] = z;
  }
}

/* Block-wide copy of `bytes` from src (a slot when src_slot) to d1 and d2
 * (either may be NULL). */
static __device__ void blk_copy(void *d1, void *d2, const void *src, size_t bytes, int src_slot) {
  size_t nv = 0;
  if (aligned16(src) && (!d1 || aligned16(d1)) && (!d2 || aligned16(d2))) {
    nv = bytes / 16;
    const uint4 *s = (const uint4 *)src;
    const size_t bd = blockDim.x;
    size_t i = threadIdx.x;
    for (; i + (KCU_UNROLL - 1) * bd < nv; i += KCU_UNROLL * bd) {
      uint4 v[KCU_UNROLL];
#pragma unroll
      for (int u = 0; u < KCU_UNROLL; u++) v[u] = src_slot ? ld_slot(s + i + u * bd) : s[i + u * bd];
#pragma unroll
      for (int u = 0; u < KCU_UNROLL; u++) {
        if (d1) ((uint4 *)d1)[i + u * bd] = v[u];
        if (d2) ((uint4 *)d2)[i + u * bd] = v[u];
      }
    }
    for (; i < nv; i += bd) {
      uint4 v = src_slot ? ld_slot(s + i) : s[i];
      if (d1) ((uint4 *)d1)[i] = v;
      if (d2) ((uint4 *)d2)[i] = v;
    }
  }
  const uint8_t *s = (const uint8_t *)src;
  for (size_t i = nv * 16 + threadIdx.x; i < bytes; i += blockDim.x) {
    uint8_t v = src_slot ? ld_slot(s + i) : s[i];
    if (d1) ((uint8_t *)d1)[i] = v;
    if (d2) ((uint8_t *)d2)[i] = v;
  }
}

/* Block-wide avg finalisation: x[i] = x[i] / by. */
static __device__ void blk_divide(void *x, size_t n, int dt, int by) {
  switch (dt) {
#define KCU_DIVC_(k, tag, T)                                                                                           \
  case k: {                                                                                                            \
    T *p = (T *)x;                                                                                                     \
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) p[i] = red_div_##tag(p[i], by);                               \
  } break;
    KCU_DIVC_(0, i8, int8_t)
    KCU_DIVC_(1, u8, uint8_t)
    KCU_DIVC_(2, i32, int32_t)
    KCU_DIVC_(3, u32, uint32_t)
    KCU_DIVC_(4, i64, int64_t)
    KCU_DIVC_(5, u64, uint64_t)
    KCU_DIVC_(6, f16, uint16_t)
    KCU_DIVC_(7, bf16, uint16_t)
    KCU_DIVC_(8, f32, float)
    KCU_DIVC_(9, f64, double)
#undef KCU_DIVC_
  default: break;
  }
}

static __device__ void blk_reduce_any(void *d1, void *d2, const void *a, const void *b, size_t n, int dt, int op,
                                      int b_slot) {
#define KCU_CALL_(F) blk_reduce<F>(d1, d2, a, b, n, b_slot)
  KCU_DISPATCH_(dt, op, KCU_CALL_)
#undef KCU_CALL_
}

/* ---- one channel --------------------------------------------------------- */

/* A block's shared memory. */
struct kcu_shared_t {
  uint64_t slen[KCU_MAX_SCRATCH + 1]; /* lengths of scratch chunks; the last carries a wait's meta */
  uint32_t pos[KCU_MAX_CONNS];        /* next step of each connection */
  int rc;                             /* the verdict of the last wait */
};

typedef struct {
  const kcu_args_t *a;
  const kcu_prog_t *p;
  int ch, k;
  size_t part_off, part_len, ce, base;
  char *scratch;
  uint64_t *slen;  /* shared memory: lengths of scratch chunks */
  uint32_t *pos;   /* shared memory: next step of each connection */
  int *rc;         /* shared memory: the block's verdict of the last wait */
  int op_index;
} kcu_chan_t;

/* The first failure of this rank's kernel is recorded; every failure sets
 * the abort word so that every rank's kernel stops. Thread 0 only. */
static __device__ int fail(kcu_chan_t *x, int code, int peer, int sending, uint32_t tag_seen, uint64_t waited) {
  volatile kcu_status_t *s = x->a->status;
  if (atomicCAS(x->a->claim, 0u, 1u) == 0u) {
    s->tag_seen = tag_seen;
    s->channel = x->ch;
    s->op_index = x->op_index;
    s->peer = peer;
    s->sending = sending;
    s->waited_ns = waited;
    __threadfence_system();
    s->code = (uint32_t)code;
  }
  st_abort(x->a->abort);
  __threadfence_system();
  return code;
}

/* Thread 0: poll until *word - target >= 0 (wrapping), the abort word or the
 * deadline. The abort word and the clock are read every 1024 polls (the
 * abort word is in host memory, across PCIe). */
static __device__ int wait_for(kcu_chan_t *x, const uint32_t *word, uint32_t target, int peer, int sending) {
  uint64_t t0 = 0;
  for (uint32_t spins = 0; (int32_t)(ld_acquire(word) - target) < 0;) {
    KCU_POLL_HINT();
    if ((++spins & 1023u) == 0) {
      if (ld_abort(x->a->abort)) return fail(x, KCU_ABORTED, peer, sending, 0, 0);
      uint64_t t = now_ns();
      if (!t0) t0 = t;
      else if (x->a->timeout_ns && t - t0 > x->a->timeout_ns) return fail(x, KCU_TIMEOUT, peer, sending, 0, t - t0);
    }
  }
  return KCU_OK;
}

/* Block-wide: wait for room in the send connection (oslot) and/or data in
 * the receive connection (islot, meta). Every thread returns the verdict. */
static __device__ int blk_wait(kcu_chan_t *x, int in, int out, char **islot, uint64_t *meta, char **oslot) {
  if (threadIdx.x == 0) {
    int rc = KCU_OK;
    if (in >= 0) {
      const kcu_conn_t *c = &x->p->conns[in];
      rc = wait_for(x, &c->ring->head, x->pos[in] + 1, c->peer, 0);
      if (rc == KCU_OK) x->slen[KCU_MAX_SCRATCH] = ld_volatile64(&c->ring->meta[x->pos[in] % GEOM_NSTEPS]);
    }
    if (rc == KCU_OK && out >= 0) {
      const kcu_conn_t *c = &x->p->conns[out];
      rc = wait_for(x, &c->ring->tail, x->pos[out] - GEOM_NSTEPS + 1, c->peer, 1);
    }
    *x->rc = rc;
  }
  __syncthreads();
  int rc = *x->rc;
  if (rc != KCU_OK) return rc;
  if (in >= 0) {
    const kcu_conn_t *c = &x->p->conns[in];
    *islot = c->slots + (size_t)(x->pos[in] % GEOM_NSTEPS) * x->a->step_bytes;
    *meta = x->slen[KCU_MAX_SCRATCH];
  }
  if (out >= 0) {
    const kcu_conn_t *c = &x->p->conns[out];
    *oslot = c->slots + (size_t)(x->pos[out] % GEOM_NSTEPS) * x->a->step_bytes;
  }
  __syncthreads(); /* everyone has read the shared verdict and meta before thread 0 writes them again */
  return KCU_OK;
}

/* Block-wide, after the data of a step is written: publish it. */
static __device__ void blk_post(kcu_chan_t *x, int out, uint32_t flags) {
  __threadfence_system(); /* each thread's slot writes before the flag (cross-GPU peers too) */
  __syncthreads();
  if (threadIdx.x == 0) {
    kcu_ring_t *r = x->p->conns[out].ring;
    uint32_t pos = x->pos[out];
    *(volatile uint64_t *)&r->meta[pos % GEOM_NSTEPS] = (uint64_t)flags | (uint64_t)x->a->tag << 32;
    st_release(&r->head, pos + 1);
    x->pos[out] = pos + 1;
  }
  __syncthreads();
}

/* Block-wide, after every thread is done reading a received slot. */
static __device__ void blk_release(kcu_chan_t *x, int in) {
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t pos = x->pos[in] + 1;
    st_release(&x->p->conns[in].ring->tail, pos);
    x->pos[in] = pos;
  }
  __syncthreads();
}

/* exec.c's chunk(): the address and length of chunk c of a buffer. */
static __device__ char *chunk(kcu_chan_t *x, int buf, int c, size_t *len) {
  const kcu_args_t *a = x->a;
  if (buf == KCU_BUF_SCRATCH) {
    *len = x->slen[c];
    return x->scratch + (size_t)c * x->ce * a->es;
  }
  int u = c / x->k, q = c % x->k;
  size_t pos, n = geom_chunk_len(x->part_len, x->base, q, x->ce, &pos);
  *len = n * a->es;
  char *b = buf == KCU_BUF_INPUT ? (char *)a->in : (char *)a->out;
  return b + ((size_t)u * a->count + x->part_off + pos) * a->es;
}

/* exec.c's op_send. */
static __device__ int op_send(kcu_chan_t *x, int out, const char *src, size_t len) {
  size_t off = 0, p = geom_piece(len, x->a->step_bytes, x->a->steps_per_chunk, GEOM_MIN_STEP);
  do {
    size_t n = len - off < p ? len - off : p;
    char *slot = NULL, *unused_in = NULL;
    uint64_t unused_meta = 0;
    int rc = blk_wait(x, -1, out, &unused_in, &unused_meta, &slot);
    if (rc != KCU_OK) return rc;
    blk_copy(slot, NULL, src + off, n, 0);
    off += n;
    blk_post(x, out, (uint32_t)n | (off < len ? KCU_MORE : 0));
  } while (off < len);
  return KCU_OK;
}

/* exec.c's op_recv: src == NULL: dst = in; else dst = src (+) in (dst may be
 * NULL); the result also goes to `out` when out >= 0. expect == (size_t)-1:
 * the length is not known (a scratch destination). */
static __device__ int op_recv(kcu_chan_t *x, int in, int out, const char *src, char *dst, size_t expect, size_t *got) {
  const kcu_args_t *a = x->a;
  size_t off = 0, cap = expect == (size_t)-1 ? x->ce * a->es : expect;
  int peer = x->p->conns[in].peer;
  for (;;) {
    char *islot = NULL, *oslot = NULL;
    uint64_t meta = 0;
    int rc = blk_wait(x, in, out, &islot, &meta, &oslot);
    if (rc != KCU_OK) return rc;
    /* A verdict every thread reaches alike from the same meta: no barrier needed. */
    if ((uint32_t)(meta >> 32) != a->tag) {
      if (threadIdx.x == 0) fail(x, KCU_MISMATCH, peer, 0, (uint32_t)(meta >> 32), 0);
      return KCU_MISMATCH;
    }
    uint32_t flags = (uint32_t)meta;
    size_t n = flags & ~KCU_MORE;
    if (off + n > cap || n % a->es) {
      if (threadIdx.x == 0) fail(x, KCU_OVERFLOW, peer, 0, 0, 0);
      return KCU_OVERFLOW;
    }
    if (!src) blk_copy(dst ? dst + off : NULL, oslot, islot, n, 1);
    else blk_reduce_any(oslot && dst ? dst + off : (oslot ? oslot : dst + off), oslot && dst ? oslot : NULL,
                        src + off, islot, n / a->es, a->dt, a->op, 1);
    if (oslot) blk_post(x, out, flags);
    blk_release(x, in);
    off += n;
    if (!(flags & KCU_MORE)) break;
  }
  if (expect != (size_t)-1 && off != expect) {
    if (threadIdx.x == 0) fail(x, KCU_SHORT, peer, 0, 0, 0);
    return KCU_SHORT;
  }
  *got = off;
  return KCU_OK;
}

/* exec.c's run_op. */
static __device__ int run_op(kcu_chan_t *x, const kcu_op_t *op) {
  size_t slen = 0, dlen = 0, got = 0;
  const char *src = NULL;
  char *dst = NULL;
  int code = op->code;
  int reads_src = code == KCU_OP_SEND || code == KCU_OP_COPY || code == KCU_OP_RECV_REDUCE ||
                  code == KCU_OP_RECV_REDUCE_SEND || code == KCU_OP_RECV_REDUCE_COPY_SEND;
  int writes_dst = code == KCU_OP_RECV || code == KCU_OP_RECV_REDUCE || code == KCU_OP_COPY ||
                   code == KCU_OP_RECV_COPY_SEND || code == KCU_OP_RECV_REDUCE_COPY_SEND;
  if (reads_src) src = chunk(x, op->src_buf, op->src_chunk, &slen);
  if (writes_dst) dst = chunk(x, op->dst_buf, op->dst_chunk, &dlen);
  int dscratch = writes_dst && op->dst_buf == KCU_BUF_SCRATCH;
  int rc = KCU_OK;
  switch (code) {
  case KCU_OP_SEND: return op_send(x, op->send_conn, src, slen);
  case KCU_OP_COPY:
    if (dst != src) blk_copy(dst, NULL, src, slen, 0);
    got = slen;
    break;
  case KCU_OP_RECV:
  case KCU_OP_RECV_COPY_SEND:
    rc = op_recv(x, op->recv_conn, code == KCU_OP_RECV ? -1 : op->send_conn, NULL, dst, dscratch ? (size_t)-1 : dlen,
                 &got);
    break;
  case KCU_OP_RECV_REDUCE:
  case KCU_OP_RECV_REDUCE_COPY_SEND:
  case KCU_OP_RECV_REDUCE_SEND:
    rc = op_recv(x, op->recv_conn, code == KCU_OP_RECV_REDUCE ? -1 : op->send_conn, src,
                 code == KCU_OP_RECV_REDUCE_SEND ? NULL : dst, slen, &got);
    break;
  default:
    if (threadIdx.x == 0) fail(x, KCU_BAD_OP, -1, 0, 0, 0);
    return KCU_BAD_OP;
  }
  __syncthreads(); /* the op's writes (a scratch chunk, an output chunk) before any later op reads them */
  if (dscratch && threadIdx.x == 0) x->slen[op->dst_chunk] = got;
  __syncthreads();
  return rc;
}

static __global__ void __launch_bounds__(KCU_THREADS, 1) kcu_run(kcu_args_t a) {
#ifndef KCU_EMULATE
  __shared__ kcu_shared_t shared;
  kcu_shared_t *sh = &shared;
#else
  kcu_shared_t *sh = kcu_emu_shared(); /* one per emulated block, seen by its threads */
#endif
  uint64_t *s_slen = sh->slen;
  uint32_t *s_pos = sh->pos;
  const kcu_prog_t *p = a.prog;
  kcu_chan_t x;
  x.a = &a, x.p = p, x.ch = (int)blockIdx.x, x.k = p->nchunks;
  x.slen = s_slen, x.pos = s_pos, x.rc = &sh->rc, x.op_index = -1;
  geom_part(a.count, a.chan_elems, x.ch, &x.part_off, &x.part_len);
  if (!x.part_len) return;
  x.ce = geom_chunk_elems(x.part_len, x.k, a.es, a.ce_max);
  x.scratch = a.scratch ? a.scratch + (size_t)x.ch * a.scratch_stride : NULL;
  /* Positions: a sender's is its head, a receiver's its tail (each the only writer). */
  for (int i = (int)threadIdx.x; i < p->nconns; i += (int)blockDim.x)
    if (p->conns[i].channel == x.ch)
      s_pos[i] = ld_acquire(p->conns[i].is_send ? &p->conns[i].ring->head : &p->conns[i].ring->tail);
  for (int i = (int)threadIdx.x; i < p->scratch_chunks && i < KCU_MAX_SCRATCH; i += (int)blockDim.x) s_slen[i] = 0;
  __syncthreads();
  const kcu_chan_prog_t *prog = &p->chan[x.ch];
  const kcu_op_t *ops = p->ops + prog->first;
  size_t per_iter = (size_t)x.k * x.ce;
  for (x.base = 0; x.base < x.part_len; x.base += per_iter) {
    for (uint32_t i = 0; i < prog->count; i++) {
      x.op_index = (int)i;
      if (run_op(&x, &ops[i]) != KCU_OK) return;
    }
  }
  if (a.divide > 0) blk_divide((char *)a.out + x.part_off * a.es, x.part_len, a.dt, a.divide);
}

/* ---- the standalone fused reduce-copy ----------------------------------- */

static __global__ void __launch_bounds__(KCU_THREADS, 1)
    kcu_reduce_copy_kernel(void *d1, void *d2, const void *a, const void *b, size_t count, int dt, int op, size_t es) {
  /* Block i takes a contiguous, 16-byte-aligned share, as a channel would. */
  size_t per = (count + gridDim.x - 1) / gridDim.x;
  per = (per * es + 15) / 16 * 16 / es;
  size_t first = (size_t)blockIdx.x * per;
  if (first >= count) return;
  size_t n = count - first < per ? count - first : per;
  size_t o = first * es;
  blk_reduce_any((char *)d1 + o, d2 ? (char *)d2 + o : NULL, (const char *)a + o, (const char *)b + o, n, dt, op, 1);
}

#endif
