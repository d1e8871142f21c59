/* kernels.h -- the CPU copy and reduction kernels the executor calls.
 *
 * One source (kern_body.h) is compiled three times -- for AVX-512, for AVX2
 * (with FMA and F16C) and for the baseline ("portable") -- and the best set
 * the CPU supports is chosen at load time. All sets compute the same bits:
 * the arithmetic is reduce.h's, and the vector fp16/bf16 conversions are
 * tested bit for bit against its scalar ones.
 *
 * Pointers may have any alignment (even below the element size) and counts
 * any value, 0 included. The functions take no locks, allocate nothing and
 * may be called from any number of threads at once.
 */
#ifndef CHORUS_KERNELS_H
#define CHORUS_KERNELS_H

#include <stddef.h>

#include "chorus.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = src, bytes long; regions do not overlap. */
void kern_copy(void *dst, const void *src, size_t bytes);

/* dst[i] = a[i] (op) b[i] for i < count; dst may equal a or b (but must not
 * partly overlap either). avg reduces as sum. Out-of-range dt or op: nothing
 * is written. */
void kern_reduce(void *dst, const void *a, const void *b, size_t count, chorus_dtype_t dt, chorus_redop_t op);

/* dst1[i] = dst2[i] = a[i] (op) b[i]; either dst may be NULL (both NULL:
 * nothing is done). Each dst may equal a or b. With both, dst2 is the
 * result another core reads next (a peer's slot): the result is reduced into
 * dst1 a tile at a time and each tile copied into dst2 (kernels.c says why). */
/* out[i] = a[i] (op) b[i] where out is read next by another core (a peer's
 * slot): reduced through a tile of this thread's and copied out, as
 * kern_reduce2 does. out may equal a or b. */
void kern_reduce_out(void *out, const void *a, const void *b, size_t count, chorus_dtype_t dt, chorus_redop_t op);

void kern_reduce2(void *dst1, void *dst2, const void *a, const void *b, size_t count, chorus_dtype_t dt,
                  chorus_redop_t op);

/* The avg finalisation: x[i] = x[i] / n. Integers: truncating division, as
 * NCCL. Floats: one correctly rounded division (n is converted to the
 * element's float type, exact for n <= 2^24). n < 1: nothing is done. */
void kern_divide(void *x, size_t count, chorus_dtype_t dt, int n);

/* The instruction set in use: "avx512", "avx2" or "portable". */
const char *kern_isa(void);

/* Force an instruction set by name (for tests and benchmarks): returns 0, or
 * -1 when the name is unknown or the CPU lacks it (the choice is unchanged).
 * The choice is process-wide. */
int kern_set_isa(const char *name);

/* Whether the CPU (and OS) can run the named instruction set. */
int kern_isa_supported(const char *name);

#ifdef __cplusplus
}
#endif
#endif
