/* kern_avx2.c -- the kernels for AVX2 + FMA + F16C; built with those flags
 * (see CMakeLists.txt) and only called when the CPU has them. */
#define KB_ISA KB_AVX2
#define KB_TABLE kern_ops_avx2
#define KB_ISA_NAME "avx2"
#include "kern_body.h"
