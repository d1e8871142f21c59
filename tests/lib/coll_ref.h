/* coll_ref.h -- test inputs and host references for collectives, shared
 * by the GPU test (test_cuda.c) and the kernel emulation test
 * (test_kern_emu.c): values every order of reduction computes exactly, and
 * the expected output of every collective with reduce.h's arithmetic. */
#ifndef CHORUS_TEST_COLL_REF_H
#define CHORUS_TEST_COLL_REF_H

#include <stdint.h>
#include <string.h>

#include "chorus.h"
#include "reduce.h"

static uint64_t coll_rs = 1;
static inline uint64_t rnd(void) {
  coll_rs ^= coll_rs >> 12, coll_rs ^= coll_rs << 25, coll_rs ^= coll_rs >> 27;
  return coll_rs * 0x2545f4914f6cdd1dull;
}

/* A value of rank r's element i: integers of every bit pattern (sum and
 * prod wrap alike in any order), floats small integers so that every order
 * of reduction is exact. */
static inline void gen(chorus_dtype_t dt, chorus_redop_t op, void *p, size_t i) {
  int small = (int)(rnd() % 5) - 2;                      /* prod of 8: |x| <= 256, exact in bf16 */
  int mid = (int)(rnd() % 17) - 8;                       /* sums of 8: |x| <= 64 */
  int v = op == chorus_prod ? small : mid;
  uint64_t bits = rnd();
  switch (dt) {
  case chorus_int8:
  case chorus_uint8: ((uint8_t *)p)[i] = (uint8_t)bits; break;
  case chorus_int32:
  case chorus_uint32: ((uint32_t *)p)[i] = (uint32_t)bits; break;
  case chorus_int64:
  case chorus_uint64: ((uint64_t *)p)[i] = bits; break;
  case chorus_float16: ((uint16_t *)p)[i] = red_f32_to_f16((float)v); break;
  case chorus_bfloat16: ((uint16_t *)p)[i] = red_f32_to_bf16((float)v); break;
  case chorus_float32: ((float *)p)[i] = (float)v; break;
  default: ((double *)p)[i] = v; break;
  }
}

/* acc[i] = acc[i] (op) x[i], reduce.h's arithmetic. */
static inline void ref_apply(chorus_dtype_t dt, chorus_redop_t op, void *acc, const void *x, size_t i) {
#define R_(tag, T)                                                                                                     \
  {                                                                                                                    \
    T *a = (T *)acc, b = ((const T *)x)[i];                                                                            \
    a[i] = op == chorus_prod ? red_prod_##tag(a[i], b) : op == chorus_min ? red_min_##tag(a[i], b)                     \
           : op == chorus_max ? red_max_##tag(a[i], b) : red_sum_##tag(a[i], b);                                       \
  }                                                                                                                    \
  break;
  switch (dt) {
  case chorus_int8: R_(i8, int8_t)
  case chorus_uint8: R_(u8, uint8_t)
  case chorus_int32: R_(i32, int32_t)
  case chorus_uint32: R_(u32, uint32_t)
  case chorus_int64: R_(i64, int64_t)
  case chorus_uint64: R_(u64, uint64_t)
  case chorus_float16: R_(f16, uint16_t)
  case chorus_bfloat16: R_(bf16, uint16_t)
  case chorus_float32: R_(f32, float)
  default: R_(f64, double)
  }
#undef R_
}

static inline void ref_div(chorus_dtype_t dt, void *acc, size_t i, int n) {
  switch (dt) {
  case chorus_int8: ((int8_t *)acc)[i] = red_div_i8(((int8_t *)acc)[i], n); break;
  case chorus_uint8: ((uint8_t *)acc)[i] = red_div_u8(((uint8_t *)acc)[i], n); break;
  case chorus_int32: ((int32_t *)acc)[i] = red_div_i32(((int32_t *)acc)[i], n); break;
  case chorus_uint32: ((uint32_t *)acc)[i] = red_div_u32(((uint32_t *)acc)[i], n); break;
  case chorus_int64: ((int64_t *)acc)[i] = red_div_i64(((int64_t *)acc)[i], n); break;
  case chorus_uint64: ((uint64_t *)acc)[i] = red_div_u64(((uint64_t *)acc)[i], n); break;
  case chorus_float16: ((uint16_t *)acc)[i] = red_div_f16(((uint16_t *)acc)[i], n); break;
  case chorus_bfloat16: ((uint16_t *)acc)[i] = red_div_bf16(((uint16_t *)acc)[i], n); break;
  case chorus_float32: ((float *)acc)[i] = red_div_f32(((float *)acc)[i], n); break;
  default: ((double *)acc)[i] = red_div_f64(((double *)acc)[i], n); break;
  }
}

/* Units of input and output for a collective of n ranks. */
static inline void coll_units(chorus_coll_t coll, int n, int *in_u, int *out_u) {
  *in_u = coll == chorus_reducescatter || coll == chorus_alltoall ? n : 1;
  *out_u = coll == chorus_allgather || coll == chorus_alltoall ? n : 1;
}

/* What rank r must hold after the collective, from every rank's input. */
static inline void coll_want(chorus_coll_t coll, chorus_dtype_t dt, chorus_redop_t op, int n, int r, int root,
                             size_t count, char *const *in, char *want) {
  size_t unit = count * chorus_dtype_size(dt);
  switch (coll) {
  case chorus_allreduce:
  case chorus_reduce:
  case chorus_reducescatter: {
    size_t off = coll == chorus_reducescatter ? (size_t)r * unit : 0;
    memcpy(want, in[0] + off, unit);
    for (int q = 1; q < n; q++)
      for (size_t i = 0; i < count; i++) ref_apply(dt, op, want, in[q] + off, i);
    if (op == chorus_avg)
      for (size_t i = 0; i < count; i++) ref_div(dt, want, i, n);
    break;
  }
  case chorus_broadcast: memcpy(want, in[root], unit); break;
  case chorus_allgather:
    for (int q = 0; q < n; q++) memcpy(want + (size_t)q * unit, in[q], unit);
    break;
  default: /* alltoall */
    for (int q = 0; q < n; q++) memcpy(want + (size_t)q * unit, in[q] + (size_t)r * unit, unit);
    break;
  }
}

#endif
