/* reduce_nvcc.cu -- engine/kernels/reduce.h compiled by nvcc as host code
 * (the CHORUS_HD functions in their non-__CUDA_ARCH__ form, under nvcc's
 * C++ front end), for test_kernels_nvcc to compare bit for bit with the C
 * build of the same header. No device code: it runs without a GPU. */
#include <stddef.h>
#include <string.h>

#include "reduce.h"

#define NV_OPS_(tag, T)                                                                                                \
  {                                                                                                                    \
    T x, y, z;                                                                                                         \
    memcpy(&x, a, sizeof x);                                                                                           \
    memcpy(&y, b, sizeof y);                                                                                           \
    switch (op) {                                                                                                      \
    case 0: z = red_sum_##tag(x, y); break;                                                                            \
    case 1: z = red_prod_##tag(x, y); break;                                                                           \
    case 2: z = red_min_##tag(x, y); break;                                                                            \
    case 3: z = red_max_##tag(x, y); break;                                                                            \
    default: z = red_avg_##tag(x, y); break;                                                                           \
    }                                                                                                                  \
    memcpy(r, &z, sizeof z);                                                                                           \
  }                                                                                                                    \
  break;

extern "C" void nvcc_apply(int dt, int op, const void *a, const void *b, void *r) {
  switch (dt) {
  case 0: NV_OPS_(i8, int8_t)
  case 1: NV_OPS_(u8, uint8_t)
  case 2: NV_OPS_(i32, int32_t)
  case 3: NV_OPS_(u32, uint32_t)
  case 4: NV_OPS_(i64, int64_t)
  case 5: NV_OPS_(u64, uint64_t)
  case 6: NV_OPS_(f16, uint16_t)
  case 7: NV_OPS_(bf16, uint16_t)
  case 8: NV_OPS_(f32, float)
  case 9: NV_OPS_(f64, double)
  default: break;
  }
}

#define NV_DIV_(k, tag, T)                                                                                             \
  case k: {                                                                                                            \
    T x;                                                                                                               \
    memcpy(&x, v, sizeof x);                                                                                           \
    x = red_div_##tag(x, n);                                                                                           \
    memcpy(v, &x, sizeof x);                                                                                           \
  } break;

extern "C" void nvcc_divide(int dt, void *v, int n) {
  switch (dt) {
    NV_DIV_(0, i8, int8_t)
    NV_DIV_(1, u8, uint8_t)
    NV_DIV_(2, i32, int32_t)
    NV_DIV_(3, u32, uint32_t)
    NV_DIV_(4, i64, int64_t)
    NV_DIV_(5, u64, uint64_t)
    NV_DIV_(6, f16, uint16_t)
    NV_DIV_(7, bf16, uint16_t)
    NV_DIV_(8, f32, float)
    NV_DIV_(9, f64, double)
  default: break;
  }
}

extern "C" float nvcc_f16_to_f32(uint16_t h) { return red_f16_to_f32(h); }
extern "C" float nvcc_bf16_to_f32(uint16_t h) { return red_bf16_to_f32(h); }
extern "C" uint16_t nvcc_f32_to_f16(float f) { return red_f32_to_f16(f); }
extern "C" uint16_t nvcc_f32_to_bf16(float f) { return red_f32_to_bf16(f); }
