/* kern_body.h -- the one loop body of the CPU kernels, included once per
 * instruction set by kern_portable.c, kern_avx2.c and kern_avx512.c, each
 * compiled with its own -m flags. The includer defines KB_ISA (one of the
 * KB_* values below), KB_TABLE (the kern_ops_t to define) and KB_ISA_NAME.
 *
 * Integer types use plain element loops that the compiler vectorises for the
 * translation unit's instruction set (the kernels are built at -O3). Floating
 * types on AVX2/AVX-512 use explicit vectors: fp32/fp64 directly, fp16 through
 * the F16C conversions, bf16 through integer shifts and round-to-nearest-even
 * in integer arithmetic (VCVTNEPS2BF16 would flush subnormals). Element
 * arithmetic is always reduce.h's, or the vector instruction that gives the
 * same bits (see reduce.h on min/max).
 */
#include <stdint.h>

#include "kern_isa.h"
#include "reduce.h"

#define KB_PORTABLE 0
#define KB_AVX2 1
#define KB_AVX512 2

#if KB_ISA != KB_PORTABLE
#include <immintrin.h>
#endif

/* Element types of alignment 1: the kernels accept pointers of any
 * alignment, and reading a misaligned int32_t through an int32_t * would be
 * undefined behaviour. */
typedef int8_t kb_i8 __attribute__((aligned(1)));
typedef uint8_t kb_u8 __attribute__((aligned(1)));
typedef int32_t kb_i32 __attribute__((aligned(1)));
typedef uint32_t kb_u32 __attribute__((aligned(1)));
typedef int64_t kb_i64 __attribute__((aligned(1)));
typedef uint64_t kb_u64 __attribute__((aligned(1)));
typedef uint16_t kb_f16 __attribute__((aligned(1)));
typedef uint16_t kb_bf16 __attribute__((aligned(1)));
typedef float kb_f32 __attribute__((aligned(1)));
typedef double kb_f64 __attribute__((aligned(1)));

/* The loops below carry no dependence from one element to the next even when
 * a destination equals a source (element i is read before it is written), so
 * the compiler may vectorise without run-time alias checks -- which would
 * otherwise send the in-place case (dst == a) down the scalar path. */
#if defined(__clang__)
#define KB_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define KB_IVDEP _Pragma("GCC ivdep")
#endif

/* ---- element loops (integers everywhere; every type on the portable path) */

#define KB_REDUCE_LOOP(op, tag)                                                                                        \
  static void kb_##op##_##tag(void *d1, void *d2, const void *pa, const void *pb, size_t n) {                          \
    const kb_##tag *a = pa, *b = pb;                                                                                   \
    kb_##tag *x = d1, *y = d2;                                                                                         \
    if (y) {                                                                                                           \
      KB_IVDEP for (size_t i = 0; i < n; i++) {                                                                        \
        kb_##tag r = red_##op##_##tag(a[i], b[i]);                                                                     \
        x[i] = r;                                                                                                      \
        y[i] = r;                                                                                                      \
      }                                                                                                                \
    } else {                                                                                                           \
      KB_IVDEP for (size_t i = 0; i < n; i++) x[i] = red_##op##_##tag(a[i], b[i]);                                     \
    }                                                                                                                  \
  }

#define KB_REDUCE_LOOPS(tag)                                                                                           \
  KB_REDUCE_LOOP(sum, tag) KB_REDUCE_LOOP(prod, tag) KB_REDUCE_LOOP(min, tag) KB_REDUCE_LOOP(max, tag)

#define KB_DIVIDE_LOOP(tag)                                                                                            \
  static void kb_div_##tag(void *px, size_t n, int d) {                                                                \
    kb_##tag *x = px;                                                                                                  \
    KB_IVDEP for (size_t i = 0; i < n; i++) x[i] = red_div_##tag(x[i], d);                                             \
  }

/* 8- and 32-bit integers divide through double, which vectorises where
 * integer division does not: for |a|, d < 2^53 the correctly rounded double
 * quotient truncates to the exact integer quotient (a non-integer a/d is at
 * least 1/d from the next integer, more than half an ulp of a/d), so this is
 * red_div_* exactly. */
#define KB_DIVIDE_VIA_DOUBLE(tag, T)                                                                                   \
  static void kb_div_##tag(void *px, size_t n, int d) {                                                                \
    kb_##tag *x = px;                                                                                                  \
    double dd = (double)d;                                                                                             \
    KB_IVDEP for (size_t i = 0; i < n; i++) x[i] = (T)((double)x[i] / dd);                                             \
  }

KB_REDUCE_LOOPS(i8)
KB_REDUCE_LOOPS(u8)
KB_REDUCE_LOOPS(i32)
KB_REDUCE_LOOPS(u32)
KB_REDUCE_LOOPS(i64)
KB_REDUCE_LOOPS(u64)
KB_DIVIDE_VIA_DOUBLE(i8, int8_t)
KB_DIVIDE_VIA_DOUBLE(u8, uint8_t)
KB_DIVIDE_VIA_DOUBLE(i32, int32_t)
KB_DIVIDE_VIA_DOUBLE(u32, uint32_t)
KB_DIVIDE_LOOP(i64)
KB_DIVIDE_LOOP(u64)

#if KB_ISA == KB_PORTABLE

KB_REDUCE_LOOPS(f16)
KB_REDUCE_LOOPS(bf16)
KB_REDUCE_LOOPS(f32)
KB_REDUCE_LOOPS(f64)
KB_DIVIDE_LOOP(f16)
KB_DIVIDE_LOOP(bf16)
KB_DIVIDE_LOOP(f32)
KB_DIVIDE_LOOP(f64)

#else /* AVX2 or AVX-512 */

/* ---- the vector vocabulary of each instruction set ----------------------
 * vf/vd: vectors of KB_NF floats / KB_ND doubles. ld_T/st_T move KB_NF (or
 * KB_ND) elements of storage type T to or from a float (double) vector;
 * ldm_T/stm_T do the same for the first r < lanes elements (AVX-512 only:
 * AVX2 finishes with scalar reduce.h code, which gives the same bits). */

#if KB_ISA == KB_AVX512
#define KB_NF 16
#define KB_ND 8
typedef __m512 kb_vf;
typedef __m512d kb_vd;
#define KB_RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static inline __mmask16 kb_mask16(size_t r) {
  return (__mmask16)((1u << r) - 1u);
}
static inline __mmask8 kb_mask8(size_t r) {
  return (__mmask8)((1u << r) - 1u);
}

static inline kb_vf kb_ld_f32(const void *p) {
  return _mm512_loadu_ps(p);
}
static inline void kb_st_f32(void *p, kb_vf v) {
  _mm512_storeu_ps(p, v);
}
static inline kb_vf kb_ldm_f32(const void *p, size_t r) {
  return _mm512_maskz_loadu_ps(kb_mask16(r), p);
}
static inline void kb_stm_f32(void *p, kb_vf v, size_t r) {
  _mm512_mask_storeu_ps(p, kb_mask16(r), v);
}

static inline kb_vd kb_ld_f64(const void *p) {
  return _mm512_loadu_pd(p);
}
static inline void kb_st_f64(void *p, kb_vd v) {
  _mm512_storeu_pd(p, v);
}
static inline kb_vd kb_ldm_f64(const void *p, size_t r) {
  return _mm512_maskz_loadu_pd(kb_mask8(r), p);
}
static inline void kb_stm_f64(void *p, kb_vd v, size_t r) {
  _mm512_mask_storeu_pd(p, kb_mask8(r), v);
}

static inline kb_vf kb_ld_f16(const void *p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(p));
}
static inline void kb_st_f16(void *p, kb_vf v) {
  _mm256_storeu_si256(p, _mm512_cvtps_ph(v, KB_RNE));
}
static inline kb_vf kb_ldm_f16(const void *p, size_t r) {
  return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(kb_mask16(r), p));
}
static inline void kb_stm_f16(void *p, kb_vf v, size_t r) {
  _mm256_mask_storeu_epi16(p, kb_mask16(r), _mm512_cvtps_ph(v, KB_RNE));
}

static inline kb_vf kb_widen_bf16(__m256i h) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
/* reduce.h's red_f32_to_bf16, sixteen at a time */
static inline __m256i kb_narrow_bf16(kb_vf v) {
  __m512i x = _mm512_castps_si512(v);
  __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  __m512i rne = _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
  __m512i nan = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40));
  __mmask16 isnan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(isnan, rne, nan));
}
static inline kb_vf kb_ld_bf16(const void *p) {
  return kb_widen_bf16(_mm256_loadu_si256(p));
}
static inline void kb_st_bf16(void *p, kb_vf v) {
  _mm256_storeu_si256(p, kb_narrow_bf16(v));
}
static inline kb_vf kb_ldm_bf16(const void *p, size_t r) {
  return kb_widen_bf16(_mm256_maskz_loadu_epi16(kb_mask16(r), p));
}
static inline void kb_stm_bf16(void *p, kb_vf v, size_t r) {
  _mm256_mask_storeu_epi16(p, kb_mask16(r), kb_narrow_bf16(v));
}

static inline kb_vf kb_vsum_f(kb_vf a, kb_vf b) {
  return _mm512_add_ps(a, b);
}
static inline kb_vf kb_vprod_f(kb_vf a, kb_vf b) {
  return _mm512_mul_ps(a, b);
}
/* MINPS gives b when either is NaN (and between zeros); a NaN a then wins: reduce.h's red_min */
static inline kb_vf kb_vmin_f(kb_vf a, kb_vf b) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_min_ps(a, b), a);
}
static inline kb_vf kb_vmax_f(kb_vf a, kb_vf b) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), _mm512_max_ps(a, b), a);
}
static inline kb_vf kb_vdiv_f(kb_vf a, float d) {
  return _mm512_div_ps(a, _mm512_set1_ps(d));
}
static inline kb_vd kb_vsum_d(kb_vd a, kb_vd b) {
  return _mm512_add_pd(a, b);
}
static inline kb_vd kb_vprod_d(kb_vd a, kb_vd b) {
  return _mm512_mul_pd(a, b);
}
static inline kb_vd kb_vmin_d(kb_vd a, kb_vd b) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), _mm512_min_pd(a, b), a);
}
static inline kb_vd kb_vmax_d(kb_vd a, kb_vd b) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q), _mm512_max_pd(a, b), a);
}
static inline kb_vd kb_vdiv_d(kb_vd a, double d) {
  return _mm512_div_pd(a, _mm512_set1_pd(d));
}

#else /* KB_AVX2 */
#define KB_NF 8
#define KB_ND 4
typedef __m256 kb_vf;
typedef __m256d kb_vd;
#define KB_RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static inline kb_vf kb_ld_f32(const void *p) {
  return _mm256_loadu_ps(p);
}
static inline void kb_st_f32(void *p, kb_vf v) {
  _mm256_storeu_ps(p, v);
}
static inline kb_vd kb_ld_f64(const void *p) {
  return _mm256_loadu_pd(p);
}
static inline void kb_st_f64(void *p, kb_vd v) {
  _mm256_storeu_pd(p, v);
}
static inline kb_vf kb_ld_f16(const void *p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(p));
}
static inline void kb_st_f16(void *p, kb_vf v) {
  _mm_storeu_si128(p, _mm256_cvtps_ph(v, KB_RNE));
}
static inline kb_vf kb_ld_bf16(const void *p) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(p)), 16));
}
/* reduce.h's red_f32_to_bf16, eight at a time */
static inline void kb_st_bf16(void *p, kb_vf v) {
  __m256i x = _mm256_castps_si256(v);
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  __m256i rne = _mm256_srli_epi32(_mm256_add_epi32(x, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
  __m256i nan = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
  __m256i isnan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  __m256i r = _mm256_blendv_epi8(rne, nan, isnan); /* each lane <= 0xffff: packus keeps it */
  _mm_storeu_si128(p, _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}

static inline kb_vf kb_vsum_f(kb_vf a, kb_vf b) {
  return _mm256_add_ps(a, b);
}
static inline kb_vf kb_vprod_f(kb_vf a, kb_vf b) {
  return _mm256_mul_ps(a, b);
}
static inline kb_vf kb_vmin_f(kb_vf a, kb_vf b) {
  return _mm256_blendv_ps(_mm256_min_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}
static inline kb_vf kb_vmax_f(kb_vf a, kb_vf b) {
  return _mm256_blendv_ps(_mm256_max_ps(a, b), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}
static inline kb_vf kb_vdiv_f(kb_vf a, float d) {
  return _mm256_div_ps(a, _mm256_set1_ps(d));
}
static inline kb_vd kb_vsum_d(kb_vd a, kb_vd b) {
  return _mm256_add_pd(a, b);
}
static inline kb_vd kb_vprod_d(kb_vd a, kb_vd b) {
  return _mm256_mul_pd(a, b);
}
static inline kb_vd kb_vmin_d(kb_vd a, kb_vd b) {
  return _mm256_blendv_pd(_mm256_min_pd(a, b), a, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
}
static inline kb_vd kb_vmax_d(kb_vd a, kb_vd b) {
  return _mm256_blendv_pd(_mm256_max_pd(a, b), a, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
}
static inline kb_vd kb_vdiv_d(kb_vd a, double d) {
  return _mm256_div_pd(a, _mm256_set1_pd(d));
}

#endif

/* ---- the vector loops ----------------------------------------------------
 * One macro per (element type, op): full vectors, then the tail -- masked on
 * AVX-512, scalar reduce.h on AVX2. V is kb_vf or kb_vd, N its lanes, S the
 * vector op's suffix (f or d). */

#if KB_ISA == KB_AVX512
#define KB_TAIL(op, tag, T, V, S, a, b, x, y, i, n)                                                                    \
  if (i < n) {                                                                                                         \
    size_t r_ = n - i;                                                                                                 \
    V v_ = kb_v##op##_##S(kb_ldm_##tag(a + i, r_), kb_ldm_##tag(b + i, r_));                                           \
    kb_stm_##tag(x + i, v_, r_);                                                                                       \
    if (y) kb_stm_##tag(y + i, v_, r_);                                                                                \
  }
#define KB_DIV_TAIL(tag, S, DT, x, i, n, d)                                                                            \
  if (i < n) kb_stm_##tag(x + i, kb_vdiv_##S(kb_ldm_##tag(x + i, n - i), (DT)d), n - i);
#else
#define KB_TAIL(op, tag, T, V, S, a, b, x, y, i, n)                                                                    \
  for (; i < n; i++) {                                                                                                 \
    T r_ = red_##op##_##tag(a[i], b[i]);                                                                               \
    x[i] = r_;                                                                                                         \
    if (y) y[i] = r_;                                                                                                  \
  }
#define KB_DIV_TAIL(tag, S, DT, x, i, n, d)                                                                            \
  for (; i < n; i++)                                                                                                   \
    x[i] = red_div_##tag(x[i], d);
#endif

#define KB_REDUCE_VEC(op, tag, T, V, N, S)                                                                             \
  static void kb_##op##_##tag(void *d1, void *d2, const void *pa, const void *pb, size_t n) {                          \
    const kb_##tag *a = pa, *b = pb;                                                                                   \
    kb_##tag *x = d1, *y = d2;                                                                                         \
    size_t i = 0;                                                                                                      \
    for (; i + N <= n; i += N) {                                                                                       \
      V v = kb_v##op##_##S(kb_ld_##tag(a + i), kb_ld_##tag(b + i));                                                    \
      kb_st_##tag(x + i, v);                                                                                           \
      if (y) kb_st_##tag(y + i, v);                                                                                    \
    }                                                                                                                  \
    KB_TAIL(op, tag, T, V, S, a, b, x, y, i, n)                                                                        \
  }

#define KB_DIVIDE_VEC(tag, V, N, S, DT)                                                                                \
  static void kb_div_##tag(void *px, size_t n, int d) {                                                                \
    kb_##tag *x = px;                                                                                                  \
    size_t i = 0;                                                                                                      \
    for (; i + N <= n; i += N)                                                                                         \
      kb_st_##tag(x + i, kb_vdiv_##S(kb_ld_##tag(x + i), (DT)d));                                                      \
    KB_DIV_TAIL(tag, S, DT, x, i, n, d)                                                                                \
  }

#define KB_REDUCE_VECS(tag, T, V, N, S)                                                                                \
  KB_REDUCE_VEC(sum, tag, T, V, N, S)                                                                                  \
  KB_REDUCE_VEC(prod, tag, T, V, N, S) KB_REDUCE_VEC(min, tag, T, V, N, S) KB_REDUCE_VEC(max, tag, T, V, N, S)

/* red_div_* divides by the divisor converted to the element's float type
 * (float for fp16/bf16), exactly as the vectors do. */
KB_REDUCE_VECS(f32, float, kb_vf, KB_NF, f)
KB_REDUCE_VECS(f64, double, kb_vd, KB_ND, d)
KB_REDUCE_VECS(f16, uint16_t, kb_vf, KB_NF, f)
KB_REDUCE_VECS(bf16, uint16_t, kb_vf, KB_NF, f)
KB_DIVIDE_VEC(f32, kb_vf, KB_NF, f, float)
KB_DIVIDE_VEC(f64, kb_vd, KB_ND, d, double)
KB_DIVIDE_VEC(f16, kb_vf, KB_NF, f, float)
KB_DIVIDE_VEC(bf16, kb_vf, KB_NF, f, float)

#endif /* vector ISAs */

/* ---- the table ---------------------------------------------------------- */

#define KB_ROW(tag)                                                                                                    \
  {                                                                                                                    \
    [chorus_sum] = kb_sum_##tag, [chorus_prod] = kb_prod_##tag, [chorus_min] = kb_min_##tag,                           \
    [chorus_max] = kb_max_##tag, [chorus_avg] = kb_sum_##tag                                                           \
  }

const kern_ops_t KB_TABLE = {
    .name = KB_ISA_NAME,
    .reduce =
        {
            [chorus_int8] = KB_ROW(i8),
            [chorus_uint8] = KB_ROW(u8),
            [chorus_int32] = KB_ROW(i32),
            [chorus_uint32] = KB_ROW(u32),
            [chorus_int64] = KB_ROW(i64),
            [chorus_uint64] = KB_ROW(u64),
            [chorus_float16] = KB_ROW(f16),
            [chorus_bfloat16] = KB_ROW(bf16),
            [chorus_float32] = KB_ROW(f32),
            [chorus_float64] = KB_ROW(f64),
        },
    .divide =
        {
            [chorus_int8] = kb_div_i8,
            [chorus_uint8] = kb_div_u8,
            [chorus_int32] = kb_div_i32,
            [chorus_uint32] = kb_div_u32,
            [chorus_int64] = kb_div_i64,
            [chorus_uint64] = kb_div_u64,
            [chorus_float16] = kb_div_f16,
            [chorus_bfloat16] = kb_div_bf16,
            [chorus_float32] = kb_div_f32,
            [chorus_float64] = kb_div_f64,
        },
};
