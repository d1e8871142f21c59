/* kern_avx512.c -- the kernels for AVX-512 F/BW/DQ/VL (+ AVX2, FMA, F16C);
 * built with those flags (see CMakeLists.txt) and only called when the CPU
 * has them. */
#define KB_ISA KB_AVX512
#define KB_TABLE kern_ops_avx512
#define KB_ISA_NAME "avx512"
#include "kern_body.h"
