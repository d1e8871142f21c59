/* kern_portable.c -- the kernels for the baseline instruction set: the loop
 * body of kern_body.h as plain C (the compiler vectorises what the baseline
 * allows). Also the fallback on CPUs other than x86. */
#define KB_ISA KB_PORTABLE
#define KB_TABLE kern_ops_portable
#define KB_ISA_NAME "portable"
#include "kern_body.h"
