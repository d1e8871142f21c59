/* kernels.c -- the kernels' entry points: argument checks, then a call
 * through the table of the instruction set chosen at load time (the best the
 * CPU supports) or forced by kern_set_isa. */
#include "kernels.h"

#include <stdatomic.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "kern_isa.h"

#ifdef KERN_HAVE_X86
/* F16C is read from CPUID directly: not every compiler's
 * __builtin_cpu_supports knows its name. The AVX state being enabled by the
 * OS is implied by the builtin's "avx2" answer (it checks XCR0). */
static int kern_has_f16c(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  return (c & bit_F16C) != 0;
}
#endif

int kern_isa_supported(const char *name) {
  if (!name) return 0;
  if (strcmp(name, "portable") == 0) return 1;
#ifdef KERN_HAVE_X86
  __builtin_cpu_init();
  int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && kern_has_f16c();
  if (strcmp(name, "avx2") == 0) return avx2;
  if (strcmp(name, "avx512") == 0)
    return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return 0;
}

static const kern_ops_t *kern_best(void) {
#ifdef KERN_HAVE_X86
  if (kern_isa_supported("avx512")) return &kern_ops_avx512;
  if (kern_isa_supported("avx2")) return &kern_ops_avx2;
#endif
  return &kern_ops_portable;
}

/* NULL until the first call chooses; relaxed is enough: every value stored is
 * a pointer to a constant table, and any of them is correct to use. */
static _Atomic(const kern_ops_t *) kern_ops_current;

static inline const kern_ops_t *kern_ops(void) {
  const kern_ops_t *ops = atomic_load_explicit(&kern_ops_current, memory_order_relaxed);
  if (__builtin_expect(ops == NULL, 0)) {
    ops = kern_best();
    atomic_store_explicit(&kern_ops_current, ops, memory_order_relaxed);
  }
  return ops;
}

const char *kern_isa(void) {
  return kern_ops()->name;
}

int kern_set_isa(const char *name) {
  if (!kern_isa_supported(name)) return -1;
  const kern_ops_t *ops = &kern_ops_portable;
#ifdef KERN_HAVE_X86
  if (strcmp(name, "avx512") == 0) ops = &kern_ops_avx512;
  if (strcmp(name, "avx2") == 0) ops = &kern_ops_avx2;
#endif
  atomic_store_explicit(&kern_ops_current, ops, memory_order_relaxed);
  return 0;
}

/* memcpy on every instruction set: glibc's is itself chosen per CPU, and it
 * measured as fast as or faster than an AVX-512 loop of our own from 64 KiB
 * up, and faster at 256 MiB on 2 threads (non-temporal stores) -- see
 * BENCHMARKS.md, "Kernels and memory bandwidth". */
void kern_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memcpy(dst, src, bytes);
}

static int kern_valid(chorus_dtype_t dt, chorus_redop_t op) {
  return (unsigned)dt < chorus_num_dtypes && (unsigned)op < chorus_num_redops;
}

void kern_reduce(void *dst, const void *a, const void *b, size_t count, chorus_dtype_t dt, chorus_redop_t op) {
  if (count == 0 || !kern_valid(dt, op)) return;
  kern_ops()->reduce[dt][op](dst, NULL, a, b, count);
}

/* A result another core reads next (a peer's slot over shared memory) is
 * reduced tile by tile into memory of this core's own -- the kept result, or
 * a tile of this thread's -- and each tile then copied out with memcpy. The
 * slot's lines were last read by that core, and vector stores take each one
 * back with a read for ownership first; memcpy's string stores do not. In
 * scripts/bench/handoff_bench.c (2-vCPU EPYC, 2026-12-03, a 128 KiB step):
 * a reduction straight into the slot 6.0 GB/s, tiled 21.7 GB/s, a copy
 * 36 GB/s. 16 KiB tiles stay in L1: 2 KiB ones measured as slow as no
 * tiling (memcpy's vector path below its string-store threshold), 8-32
 * KiB alike. */
#define KERN_TILE_BYTES ((size_t)16 << 10)

static void reduce_then_copy(void *keep, void *out, const void *a, const void *b, size_t count, chorus_dtype_t dt,
                             chorus_redop_t op) {
  static _Thread_local _Alignas(64) unsigned char tile[KERN_TILE_BYTES];
  size_t es = chorus_dtype_size(dt), per = KERN_TILE_BYTES / es;
  kern_reduce_fn fn = kern_ops()->reduce[dt][op];
  for (size_t i = 0; i < count; i += per) {
    size_t n = count - i < per ? count - i : per;
    char *t = keep ? (char *)keep + i * es : (char *)tile;
    fn(t, NULL, (const char *)a + i * es, (const char *)b + i * es, n);
    memcpy((char *)out + i * es, t, n * es);
  }
}

void kern_reduce_out(void *out, const void *a, const void *b, size_t count, chorus_dtype_t dt, chorus_redop_t op) {
  if (count == 0 || !kern_valid(dt, op)) return;
  reduce_then_copy(NULL, out, a, b, count, dt, op);
}

void kern_reduce2(void *dst1, void *dst2, const void *a, const void *b, size_t count, chorus_dtype_t dt,
                  chorus_redop_t op) {
  if (count == 0 || !kern_valid(dt, op)) return;
  if (!dst1 || !dst2 || dst1 == dst2) {
    void *d = dst1 ? dst1 : dst2;
    if (d) kern_ops()->reduce[dt][op](d, NULL, a, b, count);
    return;
  }
  reduce_then_copy(dst1, dst2, a, b, count, dt, op);
}

void kern_divide(void *x, size_t count, chorus_dtype_t dt, int n) {
  if (count == 0 || n < 1 || (unsigned)dt >= chorus_num_dtypes) return;
  kern_ops()->divide[dt](x, count, n);
}
