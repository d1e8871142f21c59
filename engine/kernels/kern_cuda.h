/* kern_cuda.h -- the CUDA collective kernel's contract: the flat program it
 * runs (ops with connection indexes, no plan in sight), the device-memory
 * slot ring of one connection, the per-call arguments, the status a failing
 * kernel leaves for the host, and the host-side launchers. Plain C: the
 * engine marshals a plan into these structs (engine/cuda_args.c) without any
 * CUDA header; only kern_cuda.cu needs nvcc.
 *
 * Protocol (simple): a connection has GEOM_NSTEPS slots of step_bytes in the
 * receiver's device memory, and head/tail counters and per-step metadata
 * (kcu_ring_t) there too. The sender waits until tail lets slot `head` be reused,
 * writes the step, fences (__threadfence_system), writes the metadata and
 * publishes head + 1 with a release store; the receiver polls head with
 * acquire loads, reads the slot through L2 (never a stale L1 line), and
 * publishes tail + 1 once it is done with the slot. Every poll is bounded: a
 * global abort word and a deadline end it, and the kernel records why in a
 * kcu_status_t. The counters are the positions: a kernel starts from head
 * (sender) or tail (receiver), so nothing about a connection lives on the host
 * between calls.
 */
#ifndef CHORUS_KERN_CUDA_H
#define CHORUS_KERN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "geom.h" /* GEOM_NSTEPS slots per connection */

#ifdef __cplusplus
extern "C" {
#endif

#define KCU_MORE 0x80000000u   /* step metadata: more steps of this chunk follow */
#define KCU_MAX_CHANNELS 64
#define KCU_MAX_CONNS 256      /* connections one rank's program uses, all channels */
#define KCU_MAX_SCRATCH 256    /* scratch chunks per channel */
#define KCU_MAX_OPS (1u << 20) /* ops of one rank's program, all channels */
#define KCU_THREADS 512        /* threads per block (one block per channel) */

/* Op codes: the plan IR's, by value (cuda_args.c checks the mapping). */
enum {
  KCU_OP_SEND = 0,
  KCU_OP_RECV,
  KCU_OP_RECV_REDUCE,
  KCU_OP_COPY,
  KCU_OP_RECV_COPY_SEND,
  KCU_OP_RECV_REDUCE_SEND,
  KCU_OP_RECV_REDUCE_COPY_SEND,
  KCU_NUM_OPS
};
enum { KCU_BUF_INPUT = 0, KCU_BUF_OUTPUT, KCU_BUF_SCRATCH };

/* The counters of one connection, in the receiver's device memory. */
typedef struct {
  uint32_t head; /* steps posted by the sender */
  uint32_t pad0[31];
  uint32_t tail; /* steps released by the receiver */
  uint32_t pad1[31];
  uint64_t meta[GEOM_NSTEPS]; /* bytes | KCU_MORE in the low 32 bits, the call's tag in the high 32 */
} kcu_ring_t;

/* One connection of a program: its counters and slots (device pointers) and
 * which end this rank is. */
typedef struct {
  kcu_ring_t *ring;
  char *slots; /* GEOM_NSTEPS * step_bytes */
  int32_t peer, channel, is_send, pad;
} kcu_conn_t;

/* One op: 16 bytes; conn indexes are -1 when the op has no such side. */
typedef struct {
  uint8_t code, src_buf, dst_buf, pad;
  int32_t src_chunk, dst_chunk;
  int16_t recv_conn, send_conn;
} kcu_op_t;

typedef struct {
  uint32_t first, count; /* ops[first .. first+count-1] */
} kcu_chan_prog_t;

/* One rank's program of one plan, flat: copied to device memory once per
 * (plan, rank) and reused by every call. */
typedef struct {
  int32_t nchannels, nchunks, scratch_chunks, nconns;
  uint32_t nops, pad;
  kcu_chan_prog_t chan[KCU_MAX_CHANNELS];
  kcu_conn_t conns[KCU_MAX_CONNS];
  kcu_op_t ops[]; /* [nops] */
} kcu_prog_t;

static inline size_t kcu_prog_bytes(uint32_t nops) { return sizeof(kcu_prog_t) + (size_t)nops * sizeof(kcu_op_t); }

/* Why a kernel stopped (kcu_status_t.code). */
enum {
  KCU_OK = 0,
  KCU_TIMEOUT,   /* a wait passed the deadline */
  KCU_ABORTED,   /* the abort word was set (by the host or another rank's kernel) */
  KCU_MISMATCH,  /* a step carried another call's tag */
  KCU_OVERFLOW,  /* a peer sent more data than the chunk holds */
  KCU_SHORT,     /* a peer sent less data than the chunk holds */
  KCU_BAD_OP     /* an op code the kernel does not know */
};

/* Left by the first block of a rank's kernel that fails (host-mapped
 * memory, so the host reads it while kernels still run): the block that wins
 * the rank's claim word (device memory: device atomics on host memory are
 * not atomic everywhere) writes the fields, fences, and writes code last. */
typedef struct {
  uint32_t code, tag_seen;
  int32_t channel, op_index, peer, sending;
  uint64_t waited_ns;
} kcu_status_t;

/* One call of one rank. */
typedef struct {
  const kcu_prog_t *prog; /* device */
  const void *in;
  void *out;
  char *scratch;          /* device, per channel scratch_stride bytes: chunks, then uint64 lengths */
  size_t scratch_stride;
  uint64_t count;         /* elements per unit */
  uint64_t chan_elems;    /* geom_chan_elems */
  uint64_t ce_max;        /* elements: min(chunk_bytes, max chunk) / es */
  uint64_t step_bytes;
  uint64_t steps_per_chunk; /* the most steps a chunk is cut into: the plan's connection's (geom_conn_window) */
  uint64_t timeout_ns;    /* 0: no deadline */
  uint32_t es, tag;
  int32_t dt, op;         /* chorus_dtype_t, chorus_redop_t */
  int32_t divide;         /* avg: divide the output part by this at the end (0: not) */
  int32_t rank;
  kcu_status_t *status;   /* this rank's, host-mapped */
  uint32_t *claim;        /* this rank's, device memory, 0 until a block fails */
  const volatile uint32_t *abort; /* shared by the ranks of a process, host-mapped */
} kcu_args_t;

/* Launch one collective call: one block of KCU_THREADS per channel on
 * `stream` (a cudaStream_t). Returns 0, or -1 with the CUDA error in err. */
int kcu_launch(const kcu_args_t *a, int nchannels, void *stream, char *err, size_t errlen);

/* The fused reduce-copy of the engine's recv_reduce_copy_send, alone, over a
 * whole buffer: dst1 = dst2 = a (op) b (dst2 may be NULL), on `blocks` blocks.
 * For the benchmark and the GPU tests. Returns 0 or -1 with err. */
int kcu_reduce_copy(void *dst1, void *dst2, const void *a, const void *b, size_t count, int dt, int op, int blocks,
                    void *stream, char *err, size_t errlen);

/* The kernel's resource use, for a report: registers per thread, spilled
 * bytes, static shared memory. Returns 0 or -1 with err. */
int kcu_attributes(int *regs, int *spill_bytes, int *shared_bytes, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
