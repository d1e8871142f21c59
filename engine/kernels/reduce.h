/* reduce.h -- the reduction arithmetic of Chorus, element by element: one
 * static inline function per (dtype, op), shared by the CPU kernels and the
 * CUDA kernels, so that every path computes exactly the same bits.
 *
 * Semantics, for every path that includes this header:
 * - Integers wrap on sum and prod (computed in unsigned arithmetic, so signed
 *   overflow is never undefined behaviour).
 * - fp16 and bf16 are stored as uint16_t and computed in float; the result is
 *   rounded once, to nearest even. For sum and prod of two values this is the
 *   correctly rounded result: float carries at least 2p+2 bits of either
 *   format's precision p, so rounding twice (to float, then to 16 bits) never
 *   differs from rounding once.
 * - min and max propagate NaN: if a is NaN the result is a, else if b is NaN
 *   it is b. Between -0 and +0 they return b. This is exactly what the x86
 *   MINPS/MAXPS instructions give followed by a blend of a where a is NaN, so
 *   the vector paths match it bit for bit.
 * - NaN payloads: a NaN operand of sum or prod comes out quiet with its
 *   payload; when both operands are NaN which payload wins is unspecified
 *   (the compiler may swap the operands of a commutative operation, and GPUs
 *   give a canonical NaN). min and max always return one of their operands.
 * - avg reduces as sum; dividing by the number of ranks is a separate step
 *   (red_div_*).
 */
#ifndef CHORUS_KERNELS_REDUCE_H
#define CHORUS_KERNELS_REDUCE_H

#include <stdint.h>

#include "hd.h" /* CHORUS_HD */

/* ---- bit casts ---------------------------------------------------------- */

static inline CHORUS_HD uint32_t red_f32_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  union {
    float f;
    uint32_t u;
  } v;
  v.f = f;
  return v.u;
#endif
}

static inline CHORUS_HD float red_bits_f32(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  union {
    float f;
    uint32_t u;
  } v;
  v.u = u;
  return v.f;
#endif
}

/* ---- fp16 (IEEE binary16) and bf16 conversions -------------------------- */

/* fp16 -> float is exact. A NaN keeps its sign and payload and comes out
 * quiet, as the F16C instruction VCVTPH2PS gives it. */
static inline CHORUS_HD float red_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t ex = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (ex == 0x1f) /* Inf, NaN */
    return red_bits_f32(sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0));
  if (ex != 0) /* normal: rebias 15 -> 127 */
    return red_bits_f32(sign | ((ex + 112u) << 23) | (man << 13));
  if (man == 0) return red_bits_f32(sign); /* +-0 */
  /* subnormal: man * 2^-24, normalised by shifting the leading one up to bit 10 */
  uint32_t e = 113u; /* biased exponent of 2^-14 */
  while (!(man & 0x400u)) {
    man <<= 1;
    e--;
  }
  return red_bits_f32(sign | (e << 23) | ((man & 0x3ffu) << 13));
}

/* float -> fp16, round to nearest even; overflow gives Inf, values below half
 * the smallest subnormal give 0 of the same sign. A NaN keeps its sign and the
 * top 10 bits of its payload and comes out quiet, as VCVTPS2PH gives it. */
static inline CHORUS_HD uint16_t red_f32_to_f16(float f) {
  uint32_t x = red_f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ex = (x >> 23) & 0xffu;
  uint32_t man = x & 0x7fffffu;
  if (ex == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x0200u | (man >> 13) : 0));
  int e = (int)ex - 112; /* fp16 biased exponent */
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    /* result is subnormal (or 0): shift the 24-bit significand right so that
     * its units are 2^-24, rounding to nearest even on the bits shifted out */
    if (e < -10) return sign; /* below 2^-25: rounds to 0 (exactly 2^-25 is e == -10) */
    uint32_t m = man | 0x800000u;
    uint32_t shift = (uint32_t)(14 - e); /* 14..24 */
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++; /* may carry into the smallest normal: correct */
    return (uint16_t)(sign | q);
  }
  uint32_t q = ((uint32_t)e << 10) | (man >> 13);
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++; /* a carry into the exponent (up to Inf) is correct */
  return (uint16_t)(sign | q);
}

/* bf16 -> float is a shift. */
static inline CHORUS_HD float red_bf16_to_f32(uint16_t h) {
  return red_bits_f32((uint32_t)h << 16);
}

/* float -> bf16, round to nearest even (subnormals kept, not flushed -- which is
 * why the vector paths do this in integer arithmetic rather than with
 * VCVTNEPS2BF16, which flushes them). A NaN keeps its sign and top payload
 * bits and comes out quiet. */
static inline CHORUS_HD uint16_t red_f32_to_bf16(float f) {
  uint32_t x = red_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* ---- element-wise operations -------------------------------------------- */

/* Integer types: S is the signed (or unsigned) storage type, U the unsigned
 * type of the same width in which sum and prod wrap. The casts back to S are
 * modular on every compiler Chorus targets (GCC, Clang, NVCC). red_div
 * truncates toward zero (as NCCL's avg does) and needs n >= 1; a is promoted
 * before dividing, so n need not fit in S. */
#define RED_INT_OPS_(tag, S, U)                                                                                        \
  static inline CHORUS_HD S red_sum_##tag(S a, S b) {                                                                  \
    return (S)(U)((U)a + (U)b);                                                                                        \
  }                                                                                                                    \
  static inline CHORUS_HD S red_prod_##tag(S a, S b) {                                                                 \
    return (S)(U)((U)a * (U)b);                                                                                        \
  }                                                                                                                    \
  static inline CHORUS_HD S red_min_##tag(S a, S b) {                                                                  \
    return a < b ? a : b;                                                                                              \
  }                                                                                                                    \
  static inline CHORUS_HD S red_max_##tag(S a, S b) {                                                                  \
    return a > b ? a : b;                                                                                              \
  }                                                                                                                    \
  static inline CHORUS_HD S red_div_##tag(S a, int n) {                                                                \
    return (S)(a / n);                                                                                                 \
  }

/* The 8-bit products are promoted to int by C; 255 * 255 fits, and the cast to
 * the unsigned 8-bit type wraps. (uint32_t is unsigned int, so no promotion
 * surprise at 32 bits either.) */
RED_INT_OPS_(i8, int8_t, uint8_t)
RED_INT_OPS_(u8, uint8_t, uint8_t)
RED_INT_OPS_(i32, int32_t, uint32_t)
RED_INT_OPS_(u32, uint32_t, uint32_t)
RED_INT_OPS_(i64, int64_t, uint64_t)
RED_INT_OPS_(u64, uint64_t, uint64_t)

/* Floating types. x != x is the NaN test that works on host and device alike
 * and survives without -ffast-math. */
#define RED_FLT_OPS_(tag, T)                                                                                           \
  static inline CHORUS_HD T red_sum_##tag(T a, T b) {                                                                  \
    return a + b;                                                                                                      \
  }                                                                                                                    \
  static inline CHORUS_HD T red_prod_##tag(T a, T b) {                                                                 \
    return a * b;                                                                                                      \
  }                                                                                                                    \
  static inline CHORUS_HD T red_min_##tag(T a, T b) {                                                                  \
    return a != a ? a : (a < b ? a : b);                                                                               \
  }                                                                                                                    \
  static inline CHORUS_HD T red_max_##tag(T a, T b) {                                                                  \
    return a != a ? a : (a > b ? a : b);                                                                               \
  }                                                                                                                    \
  static inline CHORUS_HD T red_div_##tag(T a, int n) {                                                                \
    return a / (T)n;                                                                                                   \
  }

RED_FLT_OPS_(f32, float)
RED_FLT_OPS_(f64, double)

/* 16-bit floats: through float, one rounding on the way back. */
#define RED_HALF_OPS_(tag, TO_F, FROM_F)                                                                               \
  static inline CHORUS_HD uint16_t red_sum_##tag(uint16_t a, uint16_t b) {                                             \
    return FROM_F(red_sum_f32(TO_F(a), TO_F(b)));                                                                      \
  }                                                                                                                    \
  static inline CHORUS_HD uint16_t red_prod_##tag(uint16_t a, uint16_t b) {                                            \
    return FROM_F(red_prod_f32(TO_F(a), TO_F(b)));                                                                     \
  }                                                                                                                    \
  static inline CHORUS_HD uint16_t red_min_##tag(uint16_t a, uint16_t b) {                                             \
    return FROM_F(red_min_f32(TO_F(a), TO_F(b)));                                                                      \
  }                                                                                                                    \
  static inline CHORUS_HD uint16_t red_max_##tag(uint16_t a, uint16_t b) {                                             \
    return FROM_F(red_max_f32(TO_F(a), TO_F(b)));                                                                      \
  }                                                                                                                    \
  static inline CHORUS_HD uint16_t red_div_##tag(uint16_t a, int n) {                                                  \
    return FROM_F(red_div_f32(TO_F(a), n));                                                                            \
  }

RED_HALF_OPS_(f16, red_f16_to_f32, red_f32_to_f16)
RED_HALF_OPS_(bf16, red_bf16_to_f32, red_f32_to_bf16)

/* avg reduces as sum: the division by the number of ranks is red_div_*. */
#define red_avg_i8 red_sum_i8
#define red_avg_u8 red_sum_u8
#define red_avg_i32 red_sum_i32
#define red_avg_u32 red_sum_u32
#define red_avg_i64 red_sum_i64
#define red_avg_u64 red_sum_u64
#define red_avg_f16 red_sum_f16
#define red_avg_bf16 red_sum_bf16
#define red_avg_f32 red_sum_f32
#define red_avg_f64 red_sum_f64

#endif
