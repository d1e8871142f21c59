/* stream.h -- streams. A host stream is a thread that runs queued batches
 * of calls in order; a CUDA stream wraps a cudaStream_t, on which a call's
 * kernel is launched by the calling thread. The public calls
 * (chorus_stream_*) are chorus.h's; these are what api.c and group.c use. */
#ifndef CHORUS_STREAM_H
#define CHORUS_STREAM_H

#include "chorus.h"
#include "comm.h"

/* Queue n calls of communicator c on host stream s (copied); the stream's
 * thread runs them in order. */
chorus_result_t stream_push(chorus_stream_t *s, chorus_comm_t *c, const comm_call_t *calls, int n);
/* CUDA stream s: remember that c launched on it, so that synchronize asks c
 * for its kernels' verdict. */
chorus_result_t stream_note_cuda(chorus_stream_t *s, chorus_comm_t *c);
/* The cudaStream_t of s; NULL for a host stream or no stream. */
void *stream_cuda(const chorus_stream_t *s);

#endif
