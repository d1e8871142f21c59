/* chorus.h -- the one public header of libchorus.
 *
 * Chorus is a collective-communication testbed: one set of algorithm scripts
 * (Lua, in algos/) drives a real collective engine and a discrete-event
 * simulator. This header is the library's contract; nothing else is installed.
 */
#ifndef CHORUS_H
#define CHORUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHORUS_VERSION_MAJOR 0
#define CHORUS_VERSION_MINOR 1
#define CHORUS_VERSION_PATCH 0
#define CHORUS_VERSION_CODE \
  (CHORUS_VERSION_MAJOR * 10000 + CHORUS_VERSION_MINOR * 100 + CHORUS_VERSION_PATCH)

/* Every public function returns one of these. chorus_result_string() gives a
 * fixed English sentence for each; the detail of the last failure on this
 * thread (what, where, why) is in chorus_last_error(). */
typedef enum {
  chorus_success = 0,
  chorus_invalid_argument,  /* a bad value passed by the caller */
  chorus_invalid_usage,     /* a call in the wrong state or order */
  chorus_script_error,      /* an algorithm or topology script failed */
  chorus_verify_failed,     /* a plan does not implement its collective */
  chorus_system_error,      /* the operating system refused (errno kept) */
  chorus_out_of_memory,
  chorus_remote_error,      /* a peer failed, left, or sent something wrong */
  chorus_timeout,
  chorus_internal_error,
  chorus_in_progress,
  chorus_num_results
} chorus_result_t;

const char *chorus_result_string(chorus_result_t r);

/* The message recorded by the last failing call on this thread, or "" when
 * none failed. The pointer is valid until the next failing call. */
const char *chorus_last_error(void);

/* Version of the loaded library, as CHORUS_VERSION_CODE. */
int chorus_version(void);

/* What this copy of the library was built with and runs on, as
 * space-separated key=value words: "isa=avx2 cuda=off transports=shm,socket"
 * (isa: the reduction kernels chosen for this CPU: avx512, avx2 or portable;
 * cuda: whether the CUDA kernels are built in, not whether a GPU is present).
 * Bindings print it when they load the library, so a wrong copy shows at
 * once. */
const char *chorus_build_info(void);

/* The collectives Chorus implements. */
typedef enum {
  chorus_allreduce = 0,
  chorus_broadcast,
  chorus_reduce,
  chorus_allgather,
  chorus_reducescatter,
  chorus_alltoall,
  chorus_num_collectives
} chorus_coll_t;

/* Name as used by scripts and the command line ("allreduce", ...). */
const char *chorus_coll_name(chorus_coll_t c);
/* Parse a name; returns chorus_invalid_argument when unknown. */
chorus_result_t chorus_coll_parse(const char *name, chorus_coll_t *out);

/* Element types, with the names nccl-tests users know in comments. */
typedef enum {
  chorus_int8 = 0,  /* int8 */
  chorus_uint8,     /* uint8 */
  chorus_int32,     /* int32 */
  chorus_uint32,    /* uint32 */
  chorus_int64,     /* int64 */
  chorus_uint64,    /* uint64 */
  chorus_float16,   /* half */
  chorus_bfloat16,  /* bfloat16 */
  chorus_float32,   /* float */
  chorus_float64,   /* double */
  chorus_num_dtypes
} chorus_dtype_t;

/* Reduction operators. avg is the sum divided by the number of ranks. */
typedef enum {
  chorus_sum = 0,
  chorus_prod,
  chorus_min,
  chorus_max,
  chorus_avg,
  chorus_num_redops
} chorus_redop_t;


/* ======================================================================
 * The engine: communicators, streams and collectives (libchorus).
 * ====================================================================== */

/* Element size in bytes, and the names nccl-tests uses ("float", "half",
 * "bfloat16", ...; also "fp32", "int8" ...). */
size_t chorus_dtype_size(chorus_dtype_t dt);
const char *chorus_dtype_name(chorus_dtype_t dt);
chorus_result_t chorus_dtype_parse(const char *name, chorus_dtype_t *out);
const char *chorus_redop_name(chorus_redop_t op);
chorus_result_t chorus_redop_parse(const char *name, chorus_redop_t *out);

/* What every rank of one communicator needs to find the others: the root's
 * address and port and a random 128-bit secret. Made once
 * (chorus_get_unique_id, which also starts the root service in this
 * process) and handed to every rank by the application. */
#define CHORUS_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[CHORUS_UNIQUE_ID_BYTES];
} chorus_unique_id_t;

typedef struct chorus_comm chorus_comm_t;
typedef struct chorus_stream chorus_stream_t;

chorus_result_t chorus_get_unique_id(chorus_unique_id_t *id);

/* Join as `rank` of `nranks`. Blocks until every rank has joined (or
 * CHORUS_TIMEOUT seconds pass). Connections are made when a collective first
 * needs them: shared memory inside a host, TCP between hosts. */
chorus_result_t chorus_comm_init_rank(chorus_comm_t **comm, int nranks, chorus_unique_id_t id, int rank);

/* All nranks ranks in this process, one communicator each (comms[i] is rank
 * i). Drive them from one thread with chorus_group_start/end, or one thread
 * per rank. */
chorus_result_t chorus_comm_init_all(chorus_comm_t **comms, int nranks);

/* Rank and size from the launcher's environment: Open MPI's
 * OMPI_COMM_WORLD_RANK/SIZE, Slurm's SLURM_PROCID/SLURM_NTASKS, or
 * torchrun-style RANK/WORLD_SIZE. Under a PMIx launcher (Open MPI's mpirun,
 * srun --mpi=pmix: PMIX_NAMESPACE is set) rank 0 makes a fresh id (random
 * secret, its own listener) and the others take it from the launcher's PMIx
 * server: nothing to pass by hand, across hosts too. Otherwise, or when
 * MASTER_ADDR or CHORUS_ROOT names one, the root is MASTER_ADDR:MASTER_PORT
 * (CHORUS_ROOT=host:port), where rank 0 listens, and the secret is
 * CHORUS_SECRET (32 hex digits) when set, else derived from the job id, root
 * host and port -- public values, which the INFO log says. chorus_invalid_usage
 * when no launcher is recognised. */
chorus_result_t chorus_comm_init_env(chorus_comm_t **comm);

/* All nranks ranks in this process, rank i bound to CUDA device devices[i]
 * (the same device for several ranks is allowed: one GPU can host a whole
 * small communicator). Collectives then take device buffers and run as one
 * CUDA kernel per call, one thread block per channel, on the CUDA stream of
 * the chorus stream given (chorus_stream_create_cuda), or on the
 * communicator's own with a NULL stream (the call then waits). Sets
 * CUDA_DEVICE_MAX_CONNECTIONS=32 unless the environment has it, so that
 * the ranks' streams do not queue behind each other; that only works
 * before the process's first CUDA call. chorus_invalid_usage when
 * libchorus was built without CUDA or there is no device. These
 * communicators run collectives only: send and recv on them return
 * chorus_invalid_usage. */
chorus_result_t chorus_comm_init_all_cuda(chorus_comm_t **comms, int nranks, const int *devices);
/* The CUDA device the communicator is bound to, -1 for a host one. */
chorus_result_t chorus_comm_cuda_device(const chorus_comm_t *comm, int *device);

/* Wait for the communicator's queued calls, then release it. */
chorus_result_t chorus_comm_destroy(chorus_comm_t *comm);
/* Stop every call in flight (they return an error, and so do the peers
 * waiting on this rank), then release the communicator. */
chorus_result_t chorus_comm_abort(chorus_comm_t *comm);
/* chorus_success, or the error that failed the communicator. */
chorus_result_t chorus_comm_get_async_error(chorus_comm_t *comm, chorus_result_t *err);
/* Why the communicator failed ("" when it has not). */
const char *chorus_comm_error_string(const chorus_comm_t *comm);
chorus_result_t chorus_comm_count(const chorus_comm_t *comm, int *nranks);
chorus_result_t chorus_comm_user_rank(const chorus_comm_t *comm, int *rank);
/* Hosts the ranks span (network namespaces count as hosts). */
chorus_result_t chorus_comm_nhosts(const chorus_comm_t *comm, int *nhosts);

/* A stream runs the calls enqueued on it in order, in its own thread. A
 * NULL stream instead blocks the caller until its call is done. */
chorus_result_t chorus_stream_create(chorus_stream_t **stream);
/* A stream for CUDA communicators, wrapping cuda_stream (a cudaStream_t;
 * NULL: a new non-blocking one, owned and destroyed with it). A call
 * enqueues its kernel and returns; synchronize and query report the
 * kernels' failures (timeouts, mismatched calls, aborts) as errors, and so
 * does chorus_comm_get_async_error as soon as a kernel records one. */
chorus_result_t chorus_stream_create_cuda(chorus_stream_t **stream, void *cuda_stream);
/* The cudaStream_t of a CUDA stream. */
chorus_result_t chorus_stream_cuda_handle(const chorus_stream_t *stream, void **cuda_stream);
/* Waits for the queued calls first. */
chorus_result_t chorus_stream_destroy(chorus_stream_t *stream);
/* Wait for every call enqueued so far; returns the first error among them. */
chorus_result_t chorus_stream_synchronize(chorus_stream_t *stream);
/* chorus_success when every enqueued call is done, chorus_in_progress while
 * some run, or the first error. */
chorus_result_t chorus_stream_query(chorus_stream_t *stream);

/* The collectives. Counts are elements: allreduce, broadcast and reduce move
 * `count` elements per rank; allgather takes `count` from each rank and
 * delivers nranks * count; reducescatter takes nranks * count and leaves
 * `count` at each rank; alltoall sends `count` elements to each peer. In
 * place: sendbuf == recvbuf (allgather: sendbuf == recvbuf + rank * count
 * elements; reducescatter: recvbuf == sendbuf + rank * count elements).
 * Buffers are borrowed until the call completes. Every rank of the
 * communicator must make the same calls in the same order; a rank whose call
 * differs (collective, count, type, op or root) makes the call fail on
 * every rank. */
chorus_result_t chorus_run_allreduce(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                     chorus_redop_t op, chorus_comm_t *comm, chorus_stream_t *stream);
chorus_result_t chorus_run_broadcast(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt, int root,
                                     chorus_comm_t *comm, chorus_stream_t *stream);
/* recvbuf is only used at the root. */
chorus_result_t chorus_run_reduce(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                  chorus_redop_t op, int root, chorus_comm_t *comm, chorus_stream_t *stream);
chorus_result_t chorus_run_allgather(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                     chorus_comm_t *comm, chorus_stream_t *stream);
chorus_result_t chorus_run_reducescatter(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                         chorus_redop_t op, chorus_comm_t *comm, chorus_stream_t *stream);
chorus_result_t chorus_run_alltoall(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                    chorus_comm_t *comm, chorus_stream_t *stream);
/* Any collective by its enum (op ignored where it does not reduce, root
 * where it has none). */
chorus_result_t chorus_run_collective(chorus_coll_t coll, const void *sendbuf, void *recvbuf, size_t count,
                                      chorus_dtype_t dt, chorus_redop_t op, int root, chorus_comm_t *comm,
                                      chorus_stream_t *stream);

/* Point to point. A send and its receive must have the same count and type.
 * Inside a group, every send and receive of the group progresses at once, so
 * exchanges in any pattern cannot deadlock. */
chorus_result_t chorus_send(const void *buf, size_t count, chorus_dtype_t dt, int peer, chorus_comm_t *comm,
                            chorus_stream_t *stream);
chorus_result_t chorus_recv(void *buf, size_t count, chorus_dtype_t dt, int peer, chorus_comm_t *comm,
                            chorus_stream_t *stream);

/* Calls between start and end (on this thread) are held and launched
 * together at end: per communicator in the order made, all point-to-point
 * calls of a communicator concurrently, and different communicators in
 * parallel (so one thread can drive every rank of chorus_comm_init_all).
 * Groups nest; only the outermost end launches. */
chorus_result_t chorus_group_start(void);
chorus_result_t chorus_group_end(void);

#ifdef __cplusplus
}
#endif
#endif
