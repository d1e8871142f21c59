/* cuda_exec.h -- the GPU executor: communicators bound to CUDA devices, whose
 * collectives run as one kernel launch per call (kernels/kern_cuda.h) on the
 * caller's CUDA stream. Ranks of one process talk through device-memory slot
 * rings (transport/cuda_p2p.c). Built without CUDA, every entry fails with a
 * message saying so (cuda_built() is 0). */
#ifndef CHORUS_CUDA_EXEC_H
#define CHORUS_CUDA_EXEC_H

#include "comm.h"

/* Channels per call when neither the user nor CHORUS_NCHANNELS chose: each
 * is one thread block, and one block moves a fraction of what the GPU's
 * memory can, so a call spreads over up to 32 SMs; capped so that every
 * rank's blocks fit on the GPU at once (8 ranks on 132 SMs: 16). Idle
 * channels of a small call return at once. Chosen, not measured: the first
 * GPU run (scripts/gpu-check) is to tune it. */
#define CUDA_DEFAULT_CHANNELS 32

int cuda_built(void);

/* "CUDA runtime 13.0, driver 12.4" / "CUDA runtime 13.0, no driver (...)" /
 * "CUDA not built in": what this process would run CUDA with. */
void cuda_versions(char *buf, size_t len);

/* Bind comms[0..nranks-1] (made by chorus_comm_init_all) to devices[i]. */
chorus_result_t cuda_attach(chorus_comm_t **comms, int nranks, const int *devices);

/* The CUDA device of a communicator bound to one. */
int cuda_device_of(const chorus_comm_t *c);

/* The most channels a call may use so that the blocks of every rank sharing
 * this rank's GPU are resident together. */
int cuda_max_channels(const chorus_comm_t *c);

/* Launch one collective of a verified plan on the call's CUDA stream
 * (k->cuda_stream; NULL: the communicator's own, and wait for it). `in` is
 * the input to read (the caller's, or a staged copy made by cuda_stage). */
chorus_result_t cuda_exec_coll(chorus_comm_t *c, const plan_t *p, const comm_call_t *k, const void *in, uint32_t tag);

/* A device copy of `bytes` of src, in stream order on `stream` (NULL: the
 * communicator's own); cuda_exec_coll frees it after the kernel it feeds. */
chorus_result_t cuda_stage(chorus_comm_t *c, const void *src, size_t bytes, void *stream, const void **out);

/* Read this rank's kernel status; a failure recorded there fails the
 * communicator (once) with its message. Returns c->error. */
chorus_result_t cuda_comm_poll(chorus_comm_t *c);
/* Stop every kernel of the communicator's ranks (the shared abort word). */
void cuda_comm_abort(chorus_comm_t *c);
/* Wait for the device, then free this rank's GPU state (the last rank of a
 * process frees the rings). */
void cuda_comm_release(chorus_comm_t *c);

/* Streams: a new non-blocking cudaStream_t, wait for one, destroy one. */
chorus_result_t cuda_stream_new(void **stream);
chorus_result_t cuda_stream_sync(void *stream);
int cuda_stream_idle(void *stream); /* 1 when nothing is left to run (or it failed: sync says how) */
void cuda_stream_free(void *stream);

/* Device memory for tools and tests (chorus perf): allocate on `device` and
 * zero, free, and copy (to_host: device to host, else host to device), the
 * work done on `stream` (a cudaStream_t of the caller's rank) and waited
 * for: never on the legacy stream, whose queue may hold another rank's
 * kernel that waits for this one. */
chorus_result_t cuda_buf_alloc(int device, size_t bytes, void *stream, void **out);
void cuda_buf_free(void *p);
chorus_result_t cuda_buf_copy(void *dst, const void *src, size_t bytes, int to_host, void *stream);

#endif
