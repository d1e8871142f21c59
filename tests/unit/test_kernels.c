/* test_kernels.c -- engine/kernels: reduce.h's fp16/bf16 conversions and
 * arithmetic against an independent reference (decode with ldexp, compute in
 * double or 64-bit integers, round once), and every instruction set's
 * kernels bit for bit against reduce.h's scalar code, for every dtype and op,
 * odd counts, misaligned pointers, in place, and with guard bytes around the
 * destination. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "reduce.h"
#include "test.h"

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static const char *const isa_names[] = {"portable", "avx2", "avx512"};
#define NISA 3

static const char *const dt_names[] = {"int8",   "uint8",   "int32",    "uint32",  "int64",
                                       "uint64", "float16", "bfloat16", "float32", "float64"};
static const char *const op_names[] = {"sum", "prod", "min", "max", "avg"};

typedef union {
  int8_t i8;
  uint8_t u8;
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  uint16_t h;
  float f;
  double d;
  unsigned char bytes[8];
} val_t;

static val_t get(const void *buf, size_t i, chorus_dtype_t dt) {
  val_t v;
  memset(&v, 0, sizeof v);
  size_t s = chorus_dtype_size(dt);
  memcpy(v.bytes, (const char *)buf + i * s, s);
  return v;
}

static void put(void *buf, size_t i, chorus_dtype_t dt, val_t v) {
  size_t s = chorus_dtype_size(dt);
  memcpy((char *)buf + i * s, v.bytes, s);
}

static float f32_of_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t bits_of_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* ---- the independent reference ------------------------------------------ */

/* The two 16-bit formats: mantissa bits, smallest and largest exponent, bias. */
typedef struct {
  int mbits, emin, emax, bias;
} fmt16_t;
static const fmt16_t FP16 = {10, -14, 15, 15};
static const fmt16_t BF16 = {7, -126, 127, 127};

/* Value of a 16-bit pattern, by the textbook formula. */
static double ref_decode16(uint16_t h, fmt16_t f) {
  int ebits = 15 - f.mbits;
  int e = (h >> f.mbits) & ((1 << ebits) - 1);
  int m = h & ((1 << f.mbits) - 1);
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == (1 << ebits) - 1) return m ? NAN : s * INFINITY;
  if (e == 0) return s * ldexp(m, f.emin - f.mbits);
  return s * ldexp(m + (1 << f.mbits), e - f.bias - f.mbits);
}

/* v rounded once to the 16-bit format, to nearest even (nearbyint in the
 * default rounding mode), as a bit pattern. NaN gives a quiet NaN. */
static uint16_t ref_encode16(double v, fmt16_t f) {
  int ebits = 15 - f.mbits;
  uint16_t inf = (uint16_t)(((1 << ebits) - 1) << f.mbits);
  if (isnan(v)) return (uint16_t)(inf | (1 << (f.mbits - 1)));
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isinf(a)) return sign | inf;
  if (a == 0) return sign;
  int e2;
  frexp(a, &e2);
  int e = e2 - 1 < f.emin ? f.emin : e2 - 1; /* exponent of the quantum's binade */
  double r = nearbyint(ldexp(a, f.mbits - e));
  if (r == ldexp(1, f.mbits + 1)) {
    r = ldexp(1, f.mbits);
    e++;
  }
  if (e > f.emax) return sign | inf;
  unsigned ri = (unsigned)r;
  if (ri < (1u << f.mbits)) return (uint16_t)(sign | ri); /* subnormal */
  return (uint16_t)(sign | ((unsigned)(e + f.bias) << f.mbits) | (ri - (1u << f.mbits)));
}

static int is_signed_int(chorus_dtype_t dt) {
  return dt == chorus_int8 || dt == chorus_int32 || dt == chorus_int64;
}
static int is_int(chorus_dtype_t dt) {
  return dt <= chorus_uint64;
}

/* Sign- or zero-extended value of an integer element. */
static int64_t ival(val_t v, chorus_dtype_t dt) {
  switch (dt) {
  case chorus_int8:
    return v.i8;
  case chorus_uint8:
    return v.u8;
  case chorus_int32:
    return v.i32;
  case chorus_uint32:
    return v.u32;
  default:
    return (int64_t)v.u64;
  }
}

static double fval(val_t v, chorus_dtype_t dt) {
  switch (dt) {
  case chorus_float16:
    return ref_decode16(v.h, FP16);
  case chorus_bfloat16:
    return ref_decode16(v.h, BF16);
  case chorus_float32:
    return v.f;
  default:
    return v.d;
  }
}

static val_t fenc(double x, chorus_dtype_t dt) {
  val_t r;
  memset(&r, 0, sizeof r);
  switch (dt) {
  case chorus_float16:
    r.h = ref_encode16(x, FP16);
    break;
  case chorus_bfloat16:
    r.h = ref_encode16(x, BF16);
    break;
  case chorus_float32:
    r.f = (float)x;
    break; /* double -> float: one rounding */
  default:
    r.d = x;
    break;
  }
  return r;
}

/* a (op) b by the reference: integers in 64-bit unsigned arithmetic truncated
 * to the width (wrapping is arithmetic mod 2^64, so truncation is exact),
 * comparisons on the extended values; floats in double, rounded once. For
 * float32 and the 16-bit formats double holds a sum or product well enough
 * that rounding it again is the correct rounding (53 >= 2p + 2 bits). */
static val_t ref_apply(chorus_dtype_t dt, chorus_redop_t op, val_t a, val_t b) {
  val_t r;
  memset(&r, 0, sizeof r);
  if (is_int(dt)) {
    int64_t x = ival(a, dt), y = ival(b, dt);
    uint64_t u;
    switch (op) {
    case chorus_prod:
      u = (uint64_t)x * (uint64_t)y;
      break;
    case chorus_min:
      u = (uint64_t)(is_signed_int(dt) ? (x < y ? x : y) : ((uint64_t)x < (uint64_t)y ? x : y));
      break;
    case chorus_max:
      u = (uint64_t)(is_signed_int(dt) ? (x > y ? x : y) : ((uint64_t)x > (uint64_t)y ? x : y));
      break;
    default:
      u = (uint64_t)x + (uint64_t)y;
      break;
    }
    r.u64 = u; /* little-endian: the low bytes are the truncated result */
    return r;
  }
  double x = fval(a, dt), y = fval(b, dt);
  switch (op) {
  case chorus_prod:
    return fenc(x * y, dt);
  case chorus_min:
    return isnan(x) ? a : isnan(y) ? b : x < y ? a : b;
  case chorus_max:
    return isnan(x) ? a : isnan(y) ? b : x > y ? a : b;
  default:
    return fenc(x + y, dt);
  }
}

/* x / n: truncating for integers, one rounding for floats. */
static val_t ref_divide(chorus_dtype_t dt, val_t a, int n) {
  val_t r;
  memset(&r, 0, sizeof r);
  if (is_int(dt)) {
    if (dt == chorus_uint64)
      r.u64 = a.u64 / (uint64_t)n;
    else
      r.u64 = (uint64_t)(ival(a, dt) / n);
    return r;
  }
  return fenc(fval(a, dt) / n, dt);
}

/* ---- reduce.h's scalar result, the one the kernels must equal bit for bit */

#define HDR_CASE(DT, tag, field)                                                                                       \
  case DT:                                                                                                             \
    switch (op) {                                                                                                      \
    case chorus_sum:                                                                                                   \
      r.field = red_sum_##tag(a.field, b.field);                                                                       \
      break;                                                                                                           \
    case chorus_prod:                                                                                                  \
      r.field = red_prod_##tag(a.field, b.field);                                                                      \
      break;                                                                                                           \
    case chorus_min:                                                                                                   \
      r.field = red_min_##tag(a.field, b.field);                                                                       \
      break;                                                                                                           \
    case chorus_max:                                                                                                   \
      r.field = red_max_##tag(a.field, b.field);                                                                       \
      break;                                                                                                           \
    default:                                                                                                           \
      r.field = red_avg_##tag(a.field, b.field);                                                                       \
      break;                                                                                                           \
    }                                                                                                                  \
    break;

static val_t hdr_apply(chorus_dtype_t dt, chorus_redop_t op, val_t a, val_t b) {
  val_t r;
  memset(&r, 0, sizeof r);
  switch (dt) {
    HDR_CASE(chorus_int8, i8, i8)
    HDR_CASE(chorus_uint8, u8, u8)
    HDR_CASE(chorus_int32, i32, i32)
    HDR_CASE(chorus_uint32, u32, u32)
    HDR_CASE(chorus_int64, i64, i64)
    HDR_CASE(chorus_uint64, u64, u64)
    HDR_CASE(chorus_float16, f16, h)
    HDR_CASE(chorus_bfloat16, bf16, h)
    HDR_CASE(chorus_float32, f32, f)
    HDR_CASE(chorus_float64, f64, d)
  default:
    break;
  }
  return r;
}

static int is_nan_val(val_t v, chorus_dtype_t dt) {
  return !is_int(dt) && isnan(fval(v, dt));
}

/* Same bits, or both NaN (the reference does not model NaN payloads; the
 * header-versus-kernel comparison does). */
static int same_value(val_t got, val_t want, chorus_dtype_t dt) {
  if (is_nan_val(want, dt)) return is_nan_val(got, dt);
  return memcmp(got.bytes, want.bytes, chorus_dtype_size(dt)) == 0;
}
static int same_bits(val_t got, val_t want, chorus_dtype_t dt) {
  return memcmp(got.bytes, want.bytes, chorus_dtype_size(dt)) == 0;
}

/* The kernels must give reduce.h's bits, NaN payloads included -- except for
 * sum and prod of two NaNs, where which payload wins is unspecified (see
 * reduce.h): then any NaN will do. */
static int same_as_header(val_t got, val_t hdr, val_t a, val_t b, chorus_dtype_t dt, chorus_redop_t op) {
  if (op != chorus_min && op != chorus_max && is_nan_val(a, dt) && is_nan_val(b, dt)) return is_nan_val(got, dt);
  return same_bits(got, hdr, dt);
}

/* Random elements: mostly moderate values (so sums and products are not all
 * overflow or wrap), with random bit patterns and the special values mixed in. */
static val_t random_val(chorus_dtype_t dt) {
  val_t v;
  memset(&v, 0, sizeof v);
  uint64_t r = rng();
  int kind = (int)(r % 10);
  r = rng();
  switch (dt) {
  case chorus_int8:
  case chorus_uint8:
  case chorus_int32:
  case chorus_uint32:
  case chorus_int64:
  case chorus_uint64:
    if (kind < 4) {
      v.u64 = r; /* any pattern: extremes, wrap */
    } else if (kind < 6) {
      static const int64_t special[] = {0, 1, -1, INT8_MIN, INT8_MAX, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX, 2};
      v.i64 = special[r % 10];
    } else {
      v.i64 = (int64_t)(r % 201) - 100;
    }
    return v;
  case chorus_float16:
  case chorus_bfloat16: {
    fmt16_t f = dt == chorus_float16 ? FP16 : BF16;
    if (kind < 4) {
      v.h = (uint16_t)r;
    } else {
      /* exponent within +-6 binades of 1 */
      unsigned e = (unsigned)(f.bias - 6 + (int)(r % 13));
      v.h = (uint16_t)(((r >> 8) & 0x8000) | (e << f.mbits) | ((r >> 20) & ((1u << f.mbits) - 1)));
    }
    return v;
  }
  case chorus_float32:
    if (kind < 2)
      v.u32 = (uint32_t)r;
    else if (kind < 3) {
      static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MIN, FLT_MAX, 1e-40f};
      v.f = special[r % 8];
    } else
      v.f = (float)ldexp((double)(r >> 40) * ((r & 1) ? -1 : 1), (int)((r >> 8) % 40) - 44);
    return v;
  default:
    if (kind < 2)
      v.u64 = r;
    else if (kind < 3) {
      static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, DBL_MAX, 5e-320};
      v.d = special[r % 8];
    } else
      v.d = ldexp((double)(r >> 11) * ((r & 1) ? -1 : 1), (int)((r >> 3) % 80) - 93);
    return v;
  }
}

static int set_isa_or_skip(const char *isa) {
  if (!kern_isa_supported(isa)) {
    printf("  (%s not supported here: not tested)\n", isa);
    return 0;
  }
  CHECK_EQ_INT(kern_set_isa(isa), 0);
  CHECK_TRUE(strcmp(kern_isa(), isa) == 0);
  return 1;
}

/* ---- conversions -------------------------------------------------------- */

/* Every fp16 and bf16 pattern decodes to the reference value, and converting
 * back gives the same pattern (NaNs: a quiet NaN of the same sign and top
 * payload). */
static void test_half_conversions_round_trip_every_pattern(void) {
  int bad = 0;
  for (unsigned u = 0; u < 65536; u++) {
    uint16_t h = (uint16_t)u;
    float f16 = red_f16_to_f32(h), b16 = red_bf16_to_f32(h);
    double r16 = ref_decode16(h, FP16), rb16 = ref_decode16(h, BF16);
    if (isnan(r16)) {
      bad += !isnan(f16);
      bad += red_f32_to_f16(f16) != (h | 0x0200);
    } else {
      bad += (double)f16 != r16 || !signbit(f16) != !signbit(r16);
      bad += red_f32_to_f16(f16) != h;
    }
    if (isnan(rb16)) {
      bad += !isnan(b16);
      bad += red_f32_to_bf16(b16) != (h | 0x0040);
    } else {
      bad += (double)b16 != rb16 || !signbit(b16) != !signbit(rb16);
      bad += red_f32_to_bf16(b16) != h;
    }
  }
  CHECK_EQ_INT(bad, 0);
}

/* Halfway between two neighbouring 16-bit values rounds to the even one;
 * just above or below rounds to the nearer. Covers subnormals, the carry into
 * the next binade and the overflow to Inf. */
static void check_halfway(fmt16_t f, uint16_t (*to16)(float), const char *name) {
  int bad = 0;
  uint16_t inf = (uint16_t)(((1u << (15 - f.mbits)) - 1) << f.mbits);
  for (unsigned h = 0; h < inf; h++) {
    double lo = ref_decode16((uint16_t)h, f), hi = ref_decode16((uint16_t)(h + 1), f);
    if (h + 1 == inf) hi = ldexp(1, f.emax + 1); /* the would-be next value: ties to it overflow */
    float mid = (float)((lo + hi) / 2);          /* exact in float: one bit more than the format */
    if ((double)mid != (lo + hi) / 2) {
      bad++;
      continue;
    }
    uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
    bad += to16(mid) != even;
    bad += to16(-mid) != (even | 0x8000);
    bad += to16(nextafterf(mid, 0)) != h;
    bad += to16(nextafterf(mid, INFINITY)) != h + 1;
  }
  if (bad) printf("  %s: %d halfway cases wrong\n", name, bad);
  CHECK_EQ_INT(bad, 0);
}

static void test_half_rounding_of_halfway_cases_is_to_even(void) {
  check_halfway(FP16, red_f32_to_f16, "fp16");
  check_halfway(BF16, red_f32_to_bf16, "bf16");
  /* a few by hand */
  CHECK_EQ_INT(red_f32_to_f16(65504.0f), 0x7bff);
  CHECK_EQ_INT(red_f32_to_f16(65519.0f), 0x7bff);
  CHECK_EQ_INT(red_f32_to_f16(65520.0f), 0x7c00);             /* halfway to 65536: even is Inf */
  CHECK_EQ_INT(red_f32_to_f16((float)ldexp(1, -25)), 0x0000); /* half the smallest subnormal: to even 0 */
  CHECK_EQ_INT(red_f32_to_f16((float)ldexp(3, -25)), 0x0002); /* 1.5 units: to even 2 */
  CHECK_EQ_INT(red_f32_to_f16(nextafterf((float)ldexp(1, -25), 1)), 0x0001);
  CHECK_EQ_INT(red_f32_to_f16(1e-30f), 0x0000);
  CHECK_EQ_INT(red_f32_to_f16(-1e-30f), 0x8000);
  CHECK_EQ_INT(red_f32_to_f16(1.0f), 0x3c00);
  CHECK_EQ_INT(red_f32_to_bf16(1.0f), 0x3f80);
  CHECK_EQ_INT(red_f32_to_bf16(FLT_MAX), 0x7f80);                  /* above bf16's max + half ulp */
  CHECK_EQ_INT(red_f32_to_bf16(f32_of_bits(0x00008000u)), 0x0000); /* subnormal tie to even */
  CHECK_EQ_INT(red_f32_to_bf16(f32_of_bits(0x00018000u)), 0x0002);
  CHECK_EQ_INT(red_f32_to_bf16(f32_of_bits(0x00008001u)), 0x0001); /* kept, not flushed */
}

static void test_half_conversion_of_nan_and_inf(void) {
  CHECK_EQ_INT(red_f32_to_f16(INFINITY), 0x7c00);
  CHECK_EQ_INT(red_f32_to_f16(-INFINITY), 0xfc00);
  CHECK_EQ_INT(red_f32_to_bf16(INFINITY), 0x7f80);
  CHECK_EQ_INT(red_f32_to_bf16(-INFINITY), 0xff80);
  /* a NaN whose payload lies only in the low bits stays NaN (not Inf) */
  CHECK_EQ_INT(red_f32_to_f16(f32_of_bits(0x7f800001u)), 0x7e00);
  CHECK_EQ_INT(red_f32_to_bf16(f32_of_bits(0x7f800001u)), 0x7fc0);
  CHECK_EQ_INT(red_f32_to_f16(f32_of_bits(0xffc00000u)), 0xfe00);
  CHECK_EQ_INT(red_f32_to_bf16(f32_of_bits(0xffc00000u)), 0xffc0);
  /* an all-ones-rounding NaN must not carry into the sign */
  CHECK_EQ_INT(red_f32_to_bf16(f32_of_bits(0x7fffffffu)), 0x7fff);
  CHECK_TRUE(isnan(red_f16_to_f32(0x7c01)));
  CHECK_EQ_INT(bits_of_f32(red_f16_to_f32(0x7c01)), 0x7fc02000u); /* comes out quiet */
  CHECK_TRUE(isinf(red_f16_to_f32(0xfc00)) && red_f16_to_f32(0xfc00) < 0);
  CHECK_TRUE(isnan(red_bf16_to_f32(0x7f81)));
}

/* Random floats (all patterns, subnormals and NaNs included) convert to the
 * once-rounded reference. */
static void test_half_conversion_matches_reference_on_random_floats(void) {
  int bad = 0;
  for (int i = 0; i < 1000000; i++) {
    uint32_t u = (uint32_t)rng();
    if (i & 1) u = (u & 0x87ffffffu) | 0x30000000u; /* bias toward fp16's range */
    float f = f32_of_bits(u);
    uint16_t r16 = red_f32_to_f16(f), rb = red_f32_to_bf16(f);
    if (isnan(f)) {
      bad += (r16 & 0x7e00) != 0x7e00 || (rb & 0x7fc0) != 0x7fc0;
      continue;
    }
    bad += r16 != ref_encode16(f, FP16);
    bad += rb != ref_encode16(f, BF16);
  }
  CHECK_EQ_INT(bad, 0);
}

/* reduce.h's fp16/bf16 sum and prod of every kind of pair are the
 * once-rounded exact result (within half an ulp, ties to even). */
static void test_half_arithmetic_is_correctly_rounded(void) {
  int bad = 0;
  for (int i = 0; i < 2000000; i++) {
    uint16_t a = (uint16_t)rng(), b = (uint16_t)rng();
    double fa = ref_decode16(a, FP16), fb = ref_decode16(b, FP16);
    double ba = ref_decode16(a, BF16), bb = ref_decode16(b, BF16);
    if (!isnan(fa + fb)) bad += red_sum_f16(a, b) != ref_encode16(fa + fb, FP16);
    if (!isnan(fa * fb)) bad += red_prod_f16(a, b) != ref_encode16(fa * fb, FP16);
    if (!isnan(ba + bb)) bad += red_sum_bf16(a, b) != ref_encode16(ba + bb, BF16);
    if (!isnan(ba * bb)) bad += red_prod_bf16(a, b) != ref_encode16(ba * bb, BF16);
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_integer_arithmetic_wraps(void) {
  CHECK_EQ_INT(red_sum_i8(127, 1), -128);
  CHECK_EQ_INT(red_prod_i8(-128, -1), -128);
  CHECK_EQ_INT(red_prod_u8(255, 255), 1);
  CHECK_EQ_INT(red_sum_i32(INT32_MAX, 1), INT32_MIN);
  CHECK_EQ_INT(red_prod_i32(INT32_MIN, -1), INT32_MIN);
  CHECK_TRUE(red_sum_u32(UINT32_MAX, 2) == 1);
  CHECK_TRUE(red_sum_i64(INT64_MAX, 1) == INT64_MIN);
  CHECK_TRUE(red_prod_i64(INT64_MIN, -1) == INT64_MIN);
  CHECK_TRUE(red_prod_u64(UINT64_MAX, UINT64_MAX) == 1);
  CHECK_EQ_INT(red_min_i8(-1, 1), -1);
  CHECK_EQ_INT(red_min_u8(255, 1), 1);
  CHECK_EQ_INT(red_div_i32(-7, 2), -3); /* truncation toward zero */
  CHECK_EQ_INT(red_div_i8(-128, 1000), 0);
  CHECK_EQ_INT(red_div_u8(200, 300), 0);
}

static void test_float_min_max_propagate_nan(void) {
  CHECK_TRUE(isnan(red_min_f32(NAN, 1.0f)));
  CHECK_TRUE(isnan(red_min_f32(1.0f, NAN)));
  CHECK_TRUE(isnan(red_max_f64(NAN, 1.0)));
  CHECK_TRUE(isnan(red_max_f64(1.0, NAN)));
  CHECK_TRUE(red_min_f32(-1.0f, 2.0f) == -1.0f);
  CHECK_TRUE(red_max_f32(-1.0f, 2.0f) == 2.0f);
  CHECK_TRUE(isnan(red_bf16_to_f32(red_max_bf16(0x7fc0, 0x3f80))));
  CHECK_TRUE(isnan(red_f16_to_f32(red_min_f16(0x3c00, 0xfe00))));
}

/* ---- the kernels -------------------------------------------------------- */

#define GUARD 64
static const size_t counts[] = {0, 1, 2, 3, 7, 31, 64, 1000, 4099};
/* byte offsets of dst, a, b from 64-byte alignment: aligned, below the
 * element size, element-aligned but not vector-aligned */
static const size_t offsets[][3] = {{0, 0, 0}, {1, 2, 3}, {3, 1, 0}, {8, 24, 40}, {5, 0, 7}};
#define NOFF (sizeof offsets / sizeof offsets[0])
#define MAXN 20011

typedef struct {
  unsigned char *a, *b, *d1, *d2; /* 64-byte aligned, GUARD bytes before and after */
} bufs_t;

static unsigned char *alloc_guarded(size_t bytes) {
  void *p = NULL;
  return posix_memalign(&p, 64, bytes + 2 * GUARD + 64) == 0 ? p : NULL;
}

/* Fills the guard zones and the destination with 0xA5 so that a write out of
 * bounds, or a missing write, is seen. */
static void poison(unsigned char *base, size_t bytes) {
  memset(base, 0xa5, bytes + 2 * GUARD + 64);
}

static int guards_intact(const unsigned char *base, size_t off, size_t bytes) {
  for (size_t i = 0; i < GUARD + off; i++)
    if (base[i] != 0xa5) return 0;
  for (size_t i = GUARD + off + bytes; i < bytes + 2 * GUARD + 64; i++)
    if (base[i] != 0xa5) return 0;
  return 1;
}

/* Checks dst (n elements) against the header's scalar result (bits) and the
 * reference (value). Returns the number of elements wrong. */
static int check_result(const void *dst, const void *a, const void *b, size_t n, chorus_dtype_t dt, chorus_redop_t op) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    val_t x = get(a, i, dt), y = get(b, i, dt), got = get(dst, i, dt);
    val_t h = hdr_apply(dt, op, x, y), r = ref_apply(dt, op, x, y);
    if (!same_as_header(got, h, x, y, dt, op) || !same_value(got, r, dt)) {
      if (bad < 3)
        fprintf(stderr, "  %s %s %s: element %zu of %zu: got %016llx header %016llx reference %016llx\n", kern_isa(),
                dt_names[dt], op_names[op], i, n, (unsigned long long)got.u64, (unsigned long long)h.u64,
                (unsigned long long)r.u64);
      bad++;
    }
  }
  return bad;
}

/* One (dtype, op, count, offsets) case in the ways the executor calls
 * reduce: out of place, in place on a, in place on b, reduce2 into both,
 * reduce2 with one NULL destination, and reduce_out (into a peer's slot),
 * out of place and in place. */
static int run_reduce_case(bufs_t *B, chorus_dtype_t dt, chorus_redop_t op, size_t n, const size_t off[3]) {
  size_t es = chorus_dtype_size(dt), bytes = n * es, cap = MAXN * 8;
  unsigned char *a = B->a + GUARD + off[1], *b = B->b + GUARD + off[2];
  unsigned char *d1 = B->d1 + GUARD + off[0], *d2 = B->d2 + GUARD + off[0];
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    put(a, i, dt, random_val(dt));
    put(b, i, dt, random_val(dt));
  }
  unsigned char *a0 = malloc(bytes + 1), *b0 = malloc(bytes + 1);
  memcpy(a0, a, bytes);
  memcpy(b0, b, bytes);

  /* out of place */
  poison(B->d1, cap);
  kern_reduce(d1, a, b, n, dt, op);
  bad += check_result(d1, a0, b0, n, dt, op);
  bad += !guards_intact(B->d1, off[0], bytes);
  bad += memcmp(a, a0, bytes) != 0 || memcmp(b, b0, bytes) != 0; /* sources untouched */

  /* reduce2 into both */
  poison(B->d1, cap);
  poison(B->d2, cap);
  kern_reduce2(d1, d2, a, b, n, dt, op);
  bad += check_result(d1, a0, b0, n, dt, op) + check_result(d2, a0, b0, n, dt, op);
  bad += !guards_intact(B->d1, off[0], bytes) + !guards_intact(B->d2, off[0], bytes);

  /* reduce2 with dst1 NULL, then with dst2 NULL */
  poison(B->d2, cap);
  kern_reduce2(NULL, d2, a, b, n, dt, op);
  bad += check_result(d2, a0, b0, n, dt, op) + !guards_intact(B->d2, off[0], bytes);
  poison(B->d1, cap);
  kern_reduce2(d1, NULL, a, b, n, dt, op);
  bad += check_result(d1, a0, b0, n, dt, op) + !guards_intact(B->d1, off[0], bytes);

  /* reduce_out: out of place, then in place on a and on b */
  poison(B->d2, cap);
  kern_reduce_out(d2, a, b, n, dt, op);
  bad += check_result(d2, a0, b0, n, dt, op) + !guards_intact(B->d2, off[0], bytes);
  bad += memcmp(a, a0, bytes) != 0 || memcmp(b, b0, bytes) != 0;
  kern_reduce_out(a, a, b, n, dt, op);
  bad += check_result(a, a0, b0, n, dt, op);
  memcpy(a, a0, bytes);
  kern_reduce_out(b, a, b, n, dt, op);
  bad += check_result(b, a0, b0, n, dt, op);
  memcpy(b, b0, bytes);

  /* in place: dst == a, then dst == b */
  kern_reduce(a, a, b, n, dt, op);
  bad += check_result(a, a0, b0, n, dt, op);
  memcpy(a, a0, bytes);
  kern_reduce2(b, d2, a, b, n, dt, op);
  bad += check_result(b, a0, b0, n, dt, op);
  memcpy(b, b0, bytes);

  free(a0);
  free(b0);
  return bad;
}

/* Several of the 16 KiB tiles kern_reduce2 and kern_reduce_out work in,
 * for every type (20011 int8 elements are two tiles, fp64 ten), with sum
 * and max, aligned and not, on the machine's own instruction set. */
static void test_reduce_across_tiles_every_dtype(void) {
  size_t cap = MAXN * 8;
  bufs_t B = {alloc_guarded(cap), alloc_guarded(cap), alloc_guarded(cap), alloc_guarded(cap)};
  for (int dt = 0; dt < chorus_num_dtypes; dt++)
    for (int op = chorus_sum; op <= chorus_max; op += chorus_max - chorus_sum) {
      int bad = 0;
      for (size_t o = 0; o < 2; o++) bad += run_reduce_case(&B, dt, op, MAXN, offsets[o]);
      if (bad) printf("  %s %s across tiles: %d wrong\n", dt_names[dt], op_names[op], bad);
      CHECK_EQ_INT(bad, 0);
    }
  free(B.a);
  free(B.b);
  free(B.d1);
  free(B.d2);
}

static void test_reduce_every_dtype_op_isa_count_and_alignment(void) {
  size_t cap = MAXN * 8;
  bufs_t B = {alloc_guarded(cap), alloc_guarded(cap), alloc_guarded(cap), alloc_guarded(cap)};
  int tested = 0;
  for (int k = 0; k < NISA; k++) {
    if (!set_isa_or_skip(isa_names[k])) continue;
    tested++;
    for (int dt = 0; dt < chorus_num_dtypes; dt++)
      for (int op = 0; op < chorus_num_redops; op++) {
        int bad = 0;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
          for (size_t o = 0; o < NOFF; o++)
            bad += run_reduce_case(&B, dt, op, counts[c], offsets[o]);
        if (bad) printf("  %s %s %s: %d wrong\n", isa_names[k], dt_names[dt], op_names[op], bad);
        CHECK_EQ_INT(bad, 0);
      }
  }
  CHECK_TRUE(tested >= 1);
  kern_set_isa(isa_names[0]);
  free(B.a);
  free(B.b);
  free(B.d1);
  free(B.d2);
}

/* Every fp16 and bf16 pattern through each ISA's vector conversions: a holds
 * all 65536 patterns, b random ones, and every op must give the header's bits
 * (NaN payloads included). With b = -0, sum is the round trip itself. */
static void test_vector_half_conversions_equal_scalar_bits(void) {
  uint16_t *a = malloc(65536 * 2), *b = malloc(65536 * 2), *d = malloc(65536 * 2);
  for (int k = 0; k < NISA; k++) {
    if (!set_isa_or_skip(isa_names[k])) continue;
    for (int dt = chorus_float16; dt <= chorus_bfloat16; dt++)
      for (int round = 0; round < 9; round++)
        for (int op = 0; op < 4; op++) {
          for (unsigned i = 0; i < 65536; i++) {
            a[i] = (uint16_t)i;
            b[i] = round == 0 ? 0x8000 : (uint16_t)rng();
          }
          kern_reduce(d, a, b, 65536, dt, op);
          int bad = 0;
          for (unsigned i = 0; i < 65536; i++) {
            val_t x = {.h = a[i]}, y = {.h = b[i]};
            val_t got = {.h = d[i]};
            bad += !same_as_header(got, hdr_apply(dt, op, x, y), x, y, dt, op);
          }
          if (bad)
            printf("  %s %s %s: %d of 65536 differ from reduce.h\n", isa_names[k], dt_names[dt], op_names[op], bad);
          CHECK_EQ_INT(bad, 0);
          if (round == 0 && op == chorus_sum) {
            int rt = 0;
            for (unsigned i = 0; i < 65536; i++) {
              int nan = isnan(ref_decode16((uint16_t)i, dt == chorus_float16 ? FP16 : BF16));
              uint16_t q = dt == chorus_float16 ? 0x0200 : 0x0040;
              rt += d[i] != (nan ? (uint16_t)(i | q) : (uint16_t)i);
            }
            CHECK_EQ_INT(rt, 0);
          }
        }
  }
  kern_set_isa(isa_names[0]);
  free(a);
  free(b);
  free(d);
}

static void test_divide_ints_truncate_and_floats_round_once(void) {
  size_t cap = MAXN * 8;
  unsigned char *base = alloc_guarded(cap), *orig = malloc(cap);
  static const int divisors[] = {1, 2, 3, 7, 8, 255, 1000, 65536};
  for (int k = 0; k < NISA; k++) {
    if (!set_isa_or_skip(isa_names[k])) continue;
    for (int dt = 0; dt < chorus_num_dtypes; dt++) {
      int bad = 0;
      for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (size_t o = 0; o < NOFF; o++)
          for (size_t v = 0; v < sizeof divisors / sizeof divisors[0]; v++) {
            size_t n = counts[c], bytes = n * chorus_dtype_size(dt);
            int div = divisors[v];
            poison(base, cap);
            unsigned char *x = base + GUARD + offsets[o][0];
            for (size_t i = 0; i < n; i++)
              put(x, i, dt, random_val(dt));
            memcpy(orig, x, bytes);
            kern_divide(x, n, dt, div);
            for (size_t i = 0; i < n; i++) {
              val_t in = get(orig, i, dt), got = get(x, i, dt);
              val_t want = ref_divide(dt, in, div);
              val_t hdr;
              memset(&hdr, 0, sizeof hdr);
              switch (dt) {
              case chorus_int8:
                hdr.i8 = red_div_i8(in.i8, div);
                break;
              case chorus_uint8:
                hdr.u8 = red_div_u8(in.u8, div);
                break;
              case chorus_int32:
                hdr.i32 = red_div_i32(in.i32, div);
                break;
              case chorus_uint32:
                hdr.u32 = red_div_u32(in.u32, div);
                break;
              case chorus_int64:
                hdr.i64 = red_div_i64(in.i64, div);
                break;
              case chorus_uint64:
                hdr.u64 = red_div_u64(in.u64, div);
                break;
              case chorus_float16:
                hdr.h = red_div_f16(in.h, div);
                break;
              case chorus_bfloat16:
                hdr.h = red_div_bf16(in.h, div);
                break;
              case chorus_float32:
                hdr.f = red_div_f32(in.f, div);
                break;
              default:
                hdr.d = red_div_f64(in.d, div);
                break;
              }
              if (!same_value(got, want, dt) || !same_bits(got, hdr, dt)) {
                if (bad < 3)
                  fprintf(stderr, "  %s %s / %d: element %zu: in %016llx got %016llx want %016llx\n", isa_names[k],
                          dt_names[dt], div, i, (unsigned long long)in.u64, (unsigned long long)got.u64,
                          (unsigned long long)want.u64);
                bad++;
              }
            }
            bad += !guards_intact(base, offsets[o][0], bytes);
          }
      if (bad) printf("  %s divide %s: %d wrong\n", isa_names[k], dt_names[dt], bad);
      CHECK_EQ_INT(bad, 0);
    }
  }
  kern_set_isa(isa_names[0]);
  /* by hand: truncation toward zero, as NCCL's avg */
  int32_t xi[4] = {-7, 7, INT32_MIN, INT32_MAX};
  kern_divide(xi, 4, chorus_int32, 2);
  CHECK_EQ_INT(xi[0], -3);
  CHECK_EQ_INT(xi[1], 3);
  CHECK_EQ_INT(xi[2], INT32_MIN / 2);
  CHECK_EQ_INT(xi[3], INT32_MAX / 2);
  float xf[3] = {1.0f, -3.0f, 0.0f};
  kern_divide(xf, 3, chorus_float32, 3);
  CHECK_TRUE(xf[0] == 1.0f / 3.0f && xf[1] == -1.0f && xf[2] == 0.0f);
  kern_divide(xf, 3, chorus_float32, 0); /* n < 1: nothing done */
  CHECK_TRUE(xf[1] == -1.0f);
  free(base);
  free(orig);
}

static void test_copy_any_size_and_alignment(void) {
  static const size_t sizes[] = {0, 1, 31, 32, 63, 64, 65, 127, 255, 256, 257, 4099, 100003};
  size_t cap = 100003 + 64;
  unsigned char *src = alloc_guarded(cap), *dst = alloc_guarded(cap);
  for (size_t i = 0; i < cap + 2 * GUARD + 64; i++)
    src[i] = (unsigned char)rng();
  for (int k = 0; k < NISA; k++) {
    if (!set_isa_or_skip(isa_names[k])) continue;
    int bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t o = 0; o < NOFF; o++) {
        poison(dst, cap);
        kern_copy(dst + GUARD + offsets[o][0], src + GUARD + offsets[o][1], sizes[s]);
        bad += memcmp(dst + GUARD + offsets[o][0], src + GUARD + offsets[o][1], sizes[s]) != 0;
        bad += !guards_intact(dst, offsets[o][0], sizes[s]);
      }
    CHECK_EQ_INT(bad, 0);
  }
  kern_set_isa(isa_names[0]);
  free(src);
  free(dst);
}

static void test_reduce2_with_both_null_and_bad_arguments_writes_nothing(void) {
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, d[4] = {9, 9, 9, 9};
  kern_reduce2(NULL, NULL, a, b, 4, chorus_float32, chorus_sum); /* must not crash */
  kern_reduce(d, a, b, 4, chorus_num_dtypes, chorus_sum);
  kern_reduce(d, a, b, 4, chorus_float32, chorus_num_redops);
  kern_reduce(d, a, b, 0, chorus_float32, chorus_sum);
  CHECK_TRUE(d[0] == 9 && d[3] == 9);
  kern_reduce2(d, d, a, b, 4, chorus_float32, chorus_sum); /* both the same buffer */
  CHECK_TRUE(d[0] == 2 && d[3] == 5);
  kern_reduce(d, a, b, 4, chorus_float32, chorus_avg); /* avg reduces as sum */
  CHECK_TRUE(d[0] == 2 && d[3] == 5);
}

static void test_dtype_sizes(void) {
  static const size_t want[] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
  for (int dt = 0; dt < chorus_num_dtypes; dt++)
    CHECK_EQ_INT(chorus_dtype_size(dt), want[dt]);
  CHECK_EQ_INT(chorus_dtype_size(chorus_num_dtypes), 0);
}

/* Must run first (it does, in TEST_MAIN's order and when named alone): the
 * choice made at first use is the best the CPU supports. */
static void test_isa_choice_is_the_best_supported_and_can_be_forced(void) {
  const char *first = kern_isa();
  const char *best = kern_isa_supported("avx512") ? "avx512" : kern_isa_supported("avx2") ? "avx2" : "portable";
  CHECK_TRUE(strcmp(first, best) == 0);
  CHECK_TRUE(kern_isa_supported("portable"));
  CHECK_TRUE(!kern_isa_supported("nosuch"));
  CHECK_EQ_INT(kern_set_isa("nosuch"), -1);
  CHECK_EQ_INT(kern_set_isa(NULL), -1);
  CHECK_TRUE(strcmp(kern_isa(), first) == 0); /* a refused choice changes nothing */
  CHECK_EQ_INT(kern_set_isa("portable"), 0);
  CHECK_TRUE(strcmp(kern_isa(), "portable") == 0);
  CHECK_EQ_INT(kern_set_isa(best), 0);
  CHECK_TRUE(strcmp(kern_isa(), best) == 0);
  printf("  best instruction set here: %s\n", best);
}

#ifdef CHORUS_TEST_NVCC
/* reduce.h compiled by nvcc as host code (reduce_nvcc.cu). */
void nvcc_apply(int dt, int op, const void *a, const void *b, void *r);
void nvcc_divide(int dt, void *v, int n);
float nvcc_f16_to_f32(uint16_t h);
float nvcc_bf16_to_f32(uint16_t h);
uint16_t nvcc_f32_to_f16(float f);
uint16_t nvcc_f32_to_bf16(float f);

/* Every dtype and op on random values (specials mixed in): nvcc's build of
 * reduce.h gives the C build's bits (either NaN for sum/prod of two NaNs),
 * and the same avg division. */
static void test_nvcc_arithmetic_equals_the_c_build_every_dtype_and_op(void) {
  long bad = 0, n = 0;
  for (int dt = 0; dt < chorus_num_dtypes; dt++)
    for (int op = 0; op < chorus_num_redops; op++)
      for (int i = 0; i < 20000; i++, n++) {
        val_t a = random_val((chorus_dtype_t)dt), b = random_val((chorus_dtype_t)dt), got;
        memset(&got, 0, sizeof got);
        nvcc_apply(dt, op, a.bytes, b.bytes, got.bytes);
        val_t want = hdr_apply((chorus_dtype_t)dt, (chorus_redop_t)op, a, b);
        if (!same_as_header(got, want, a, b, (chorus_dtype_t)dt, (chorus_redop_t)op)) {
          if (bad < 5) fprintf(stderr, "  %s %s differs\n", dt_names[dt], op_names[op]);
          bad++;
        }
      }
  for (int dt = 0; dt < chorus_num_dtypes; dt++)
    for (int i = 0; i < 20000; i++, n++) {
      int by = 1 + (int)(rng() % 1024);
      val_t v = random_val((chorus_dtype_t)dt), c = v;
      nvcc_divide(dt, v.bytes, by);
      switch ((chorus_dtype_t)dt) {
      case chorus_int8: c.i8 = red_div_i8(c.i8, by); break;
      case chorus_uint8: c.u8 = red_div_u8(c.u8, by); break;
      case chorus_int32: c.i32 = red_div_i32(c.i32, by); break;
      case chorus_uint32: c.u32 = red_div_u32(c.u32, by); break;
      case chorus_int64: c.i64 = red_div_i64(c.i64, by); break;
      case chorus_uint64: c.u64 = red_div_u64(c.u64, by); break;
      case chorus_float16: c.h = red_div_f16(c.h, by); break;
      case chorus_bfloat16: c.h = red_div_bf16(c.h, by); break;
      case chorus_float32: c.f = red_div_f32(c.f, by); break;
      default: c.d = red_div_f64(c.d, by); break;
      }
      bad += !same_value(v, c, (chorus_dtype_t)dt);
    }
  printf("  %ld cases\n", n);
  CHECK_EQ_INT(bad, 0);
}

/* nvcc's fp16/bf16: every pattern decodes as the C build does, conversions
 * of random floats round alike, and sum and prod of random pairs are the
 * float64 reference rounded once to nearest even. */
static void test_nvcc_half_arithmetic_is_correctly_rounded(void) {
  int bad = 0;
  for (uint32_t h = 0; h <= 0xffff; h++) {
    bad += bits_of_f32(nvcc_f16_to_f32((uint16_t)h)) != bits_of_f32(red_f16_to_f32((uint16_t)h));
    bad += bits_of_f32(nvcc_bf16_to_f32((uint16_t)h)) != bits_of_f32(red_bf16_to_f32((uint16_t)h));
  }
  for (int i = 0; i < 1000000; i++) {
    float f = f32_of_bits((uint32_t)rng());
    bad += nvcc_f32_to_f16(f) != red_f32_to_f16(f);
    bad += nvcc_f32_to_bf16(f) != red_f32_to_bf16(f);
  }
  for (int i = 0; i < 1000000; i++) {
    uint16_t a = (uint16_t)rng(), b = (uint16_t)rng(), r;
    double fa = ref_decode16(a, FP16), fb = ref_decode16(b, FP16);
    double ba = ref_decode16(a, BF16), bb = ref_decode16(b, BF16);
    if (!isnan(fa + fb)) nvcc_apply(chorus_float16, chorus_sum, &a, &b, &r), bad += r != ref_encode16(fa + fb, FP16);
    if (!isnan(fa * fb)) nvcc_apply(chorus_float16, chorus_prod, &a, &b, &r), bad += r != ref_encode16(fa * fb, FP16);
    if (!isnan(ba + bb)) nvcc_apply(chorus_bfloat16, chorus_sum, &a, &b, &r), bad += r != ref_encode16(ba + bb, BF16);
    if (!isnan(ba * bb)) nvcc_apply(chorus_bfloat16, chorus_prod, &a, &b, &r), bad += r != ref_encode16(ba * bb, BF16);
  }
  CHECK_EQ_INT(bad, 0);
}
#define NVCC_TESTS_ , TEST(test_nvcc_arithmetic_equals_the_c_build_every_dtype_and_op), \
                     TEST(test_nvcc_half_arithmetic_is_correctly_rounded)
#else
#define NVCC_TESTS_
#endif

TEST_MAIN(TEST(test_isa_choice_is_the_best_supported_and_can_be_forced), TEST(test_dtype_sizes),
          TEST(test_half_conversions_round_trip_every_pattern), TEST(test_half_rounding_of_halfway_cases_is_to_even),
          TEST(test_half_conversion_of_nan_and_inf), TEST(test_half_conversion_matches_reference_on_random_floats),
          TEST(test_half_arithmetic_is_correctly_rounded), TEST(test_integer_arithmetic_wraps),
          TEST(test_float_min_max_propagate_nan), TEST(test_reduce_every_dtype_op_isa_count_and_alignment), TEST(test_reduce_across_tiles_every_dtype),
          TEST(test_vector_half_conversions_equal_scalar_bits), TEST(test_divide_ints_truncate_and_floats_round_once),
          TEST(test_copy_any_size_and_alignment), TEST(test_reduce2_with_both_null_and_bad_arguments_writes_nothing) NVCC_TESTS_)
