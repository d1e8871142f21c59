/* cuda_args.h -- the engine's side of the CUDA kernel's contract: one rank's
 * program of a verified plan marshalled into the flat kcu_prog_t that the
 * kernel runs (kernels/kern_cuda.h), and one call's kcu_args_t. Plain C with
 * no CUDA dependency, so it is built and tested everywhere; the kernel and
 * its transports never see a plan. */
#ifndef CHORUS_CUDA_ARGS_H
#define CHORUS_CUDA_ARGS_H

#include "chorus.h"
#include "kern_cuda.h"
#include "plan.h"

/* The flat program of `rank` in plan p (malloc'd, kcu_prog_bytes(nops)
 * long; the caller frees it). Connections are listed once per (peer,
 * channel, direction), in order of first use, with ring and slots NULL: the
 * executor fills the device pointers. Fails with chorus_invalid_argument and a
 * message naming the plan, the rank and the limit when the plan exceeds the
 * kernel's limits (KCU_MAX_CHANNELS, KCU_MAX_CONNS, KCU_MAX_SCRATCH,
 * KCU_MAX_OPS) or holds an op the kernel does not know. */
chorus_result_t cuda_args_marshal(const plan_t *p, int rank, kcu_prog_t **out, size_t *bytes);

/* One call's geometry and arithmetic for a program of nchannels channels and
 * scratch_chunks scratch chunks (prog, the device copy, is only stored):
 * count elements per unit of type dt reduced with op, chunk_bytes and
 * step_bytes the communicator's; divide is the avg divisor (0: none).
 * Buffers, status and abort are the executor's to fill. */
void cuda_args_call(kcu_args_t *a, const kcu_prog_t *prog, int nchannels, int scratch_chunks, size_t count, chorus_dtype_t dt, chorus_redop_t op,
                    size_t chunk_bytes, size_t step_bytes, uint32_t tag, int divide, double timeout_s);

#endif
