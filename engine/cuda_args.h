/* cuda_args.h -- the engine's side of the CUDA kernel's contract: one rank's
 * program of a verified plan marshalled into the flat kcu_prog_t that the
 * kernel runs (kernels/kern_cuda.h), and one call's kcu_args_t. Plain C with
 * no CUDA dependency, so it is built and tested everywhere; the kernel and
 * its transports never see a plan. */
#ifndef CHORUS_CUDA_ARGS_H
#define CHORUS_CUDA_ARGS_H

#include "chorus.h"
#include "geom.h"
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

/* One call's geometry and arithmetic for a program with scratch_chunks
 * scratch chunks per channel (prog, the device copy, is only stored): the
 * call's cut g (geom_call, as the CPU executor makes it) on the
 * communicator's connections conn, type dt reduced with op; divide is the
 * avg divisor (0: none). Buffers, status and abort are the executor's to
 * fill. */
void cuda_args_call(kcu_args_t *a, const kcu_prog_t *prog, const geom_call_t *g, const geom_conn_t *conn,
                    int scratch_chunks, chorus_dtype_t dt, chorus_redop_t op, uint32_t tag, int divide,
                    double timeout_s);

#endif
