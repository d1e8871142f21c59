/* cuda_exec.c -- the GPU executor (cuda_exec.h): communicators of one
 * process bound to CUDA devices, each call marshalled (cuda_args.c) and
 * launched as one kernel on the caller's stream, the kernel's failures
 * turned into the communicator's error. Without CUDA only the refusals. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_args.h"
#include "cuda_exec.h"

#ifdef CHORUS_HAVE_CUDA
#include <cuda_runtime.h>

#include "transport/cuda_p2p.h"
#include "log.h"
#include "params.h"

/* The ranks of one chorus_comm_init_all_cuda: rings between them, made on
 * first use by whichever end gets there first, and the host-mapped words. */
typedef struct {
  pthread_mutex_t lock;
  int nranks, refs;
  int *device;        /* [nranks] */
  int *on_device;     /* [nranks] ranks sharing rank i's device */
  int *sms;           /* [nranks] multiprocessors of rank i's device */
  kcu_ring_t **counters; /* [dst]: nranks * PLAN_MAX_CHANNELS, index src * PLAN_MAX_CHANNELS + channel, made at attach */
  char **slots;          /* [(src * nranks + dst) * PLAN_MAX_CHANNELS + channel], made on first use */
  size_t step_bytes;
  uint32_t *abort_host;
  const volatile uint32_t *abort_dev;
  kcu_status_t *status_host, *status_dev; /* [nranks] */
} clique_t;

typedef struct {
  const plan_t *plan;
  kcu_prog_t *hprog;     /* pinned host copy, the source of the upload */
  kcu_prog_t *dprog;     /* device */
  char *scratch;         /* device, nchannels * scratch_stride */
  cudaEvent_t uploaded;  /* recorded after the upload: every launch waits on it (on the device) */
} prep_t;

struct cuda_rank {
  clique_t *q;
  int device;
  uint32_t *claim;    /* device: which block of this rank's kernel reports (kcu_args_t.claim) */
  void *setup_stream; /* zeroing at attach, before any kernel: never a kernel */
  void *call_stream;  /* calls made with a NULL chorus stream */
  prep_t prep[EXEC_MEMO];
  int nprep;
  int reported;
};

static chorus_result_t cu_err(chorus_comm_t *c, cudaError_t e, const char *what) {
  return comm_fail(c, e == cudaErrorMemoryAllocation ? chorus_out_of_memory : chorus_system_error,
                   "rank %d: CUDA device %d: %s: %s (%s)", c->rank, c->cuda ? c->cuda->device : -1, what,
                   cudaGetErrorString(e), cudaGetErrorName(e));
}

int cuda_built(void) { return 1; }

void cuda_versions(char *buf, size_t len) {
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaError_t e = cudaDriverGetVersion(&drv);
  if (e == cudaSuccess && drv > 0)
    snprintf(buf, len, "CUDA runtime %d.%d, driver %d.%d", rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
  else
    snprintf(buf, len, "CUDA runtime %d.%d, no driver (no NVIDIA GPU or driver on this machine)", rt / 1000,
             rt % 1000 / 10);
}

static void clique_unref(clique_t *q) {
  pthread_mutex_lock(&q->lock);
  int left = --q->refs;
  pthread_mutex_unlock(&q->lock);
  if (left > 0) return;
  for (size_t i = 0; q->slots && i < (size_t)q->nranks * q->nranks * PLAN_MAX_CHANNELS; i++)
    cup_free(q->device[i / PLAN_MAX_CHANNELS % q->nranks], q->slots[i]);
  for (int r = 0; q->counters && r < q->nranks; r++) cup_free(q->device[r], q->counters[r]);
  free(q->counters);
  cup_host_free(q->abort_host);
  cup_host_free(q->status_host);
  free(q->slots);
  free(q->device);
  free(q->on_device);
  free(q->sms);
  pthread_mutex_destroy(&q->lock);
  free(q);
}

chorus_result_t cuda_stream_new(void **stream) {
  cudaStream_t s;
  cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (e != cudaSuccess)
    return err_set(chorus_system_error, "creating a CUDA stream: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
  *stream = s;
  return chorus_success;
}

chorus_result_t cuda_stream_sync(void *stream) {
  cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess)
    return err_set(chorus_system_error, "waiting for a CUDA stream: %s (%s)", cudaGetErrorString(e),
                   cudaGetErrorName(e));
  return chorus_success;
}

int cuda_stream_idle(void *stream) { return cudaStreamQuery((cudaStream_t)stream) != cudaErrorNotReady; }

void cuda_stream_free(void *stream) {
  if (stream) cudaStreamDestroy((cudaStream_t)stream);
}

chorus_result_t cuda_attach(chorus_comm_t **comms, int nranks, const int *devices) {
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    /* Without a driver CUDA says "driver version is insufficient", which
     * sends people to upgrade a driver they do not have. */
    int drv = 0;
    if (cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0)
      return err_set(chorus_invalid_usage, "no CUDA device: this machine has no NVIDIA driver (no GPU, or the "
                                           "driver is not installed or loaded: nvidia-smi says which)");
    return err_set(chorus_invalid_usage, "no CUDA device: %s (%s)",
                   e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none",
                   e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
  }
  for (int r = 0; r < nranks; r++)
    if (devices[r] < 0 || devices[r] >= ndev)
      return err_set(chorus_invalid_argument, "rank %d: CUDA device %d does not exist (this machine has %d)", r,
                     devices[r], ndev);
  for (int a = 0; a < nranks; a++)
    for (int b = 0; b < nranks; b++) {
      chorus_result_t res = cup_enable_peer(devices[a], devices[b]);
      TRY(res);
    }
  clique_t *q = calloc(1, sizeof *q);
  if (!q) return err_set(chorus_out_of_memory, "out of memory");
  pthread_mutex_init(&q->lock, NULL);
  q->nranks = nranks;
  q->step_bytes = comms[0]->geom.step_bytes;
  q->device = calloc((size_t)nranks, sizeof *q->device);
  q->on_device = calloc((size_t)nranks, sizeof *q->on_device);
  q->sms = calloc((size_t)nranks, sizeof *q->sms);
  q->slots = calloc((size_t)nranks * nranks * PLAN_MAX_CHANNELS, sizeof *q->slots);
  q->counters = calloc((size_t)nranks, sizeof *q->counters);
  chorus_result_t res = chorus_success;
  if (!q->device || !q->on_device || !q->sms || !q->slots || !q->counters) {
    res = err_set(chorus_out_of_memory, "out of memory for %d CUDA ranks", nranks);
    goto fail;
  }
  void *dev;
  res = cup_host_mapped(64, (void **)&q->abort_host, &dev);
  if (res != chorus_success) goto fail;
  q->abort_dev = dev;
  res = cup_host_mapped(sizeof(kcu_status_t) * (size_t)nranks, (void **)&q->status_host, &dev);
  if (res != chorus_success) goto fail;
  q->status_dev = dev;
  for (int r = 0; r < nranks; r++) {
    q->device[r] = devices[r];
    for (int s = 0; s < nranks; s++) q->on_device[r] += devices[s] == devices[r];
    e = cudaDeviceGetAttribute(&q->sms[r], cudaDevAttrMultiProcessorCount, devices[r]);
    if (e != cudaSuccess) {
      res = err_set(chorus_system_error, "CUDA device %d: reading its multiprocessor count: %s", devices[r],
                    cudaGetErrorString(e));
      goto fail;
    }
  }
  for (int r = 0; r < nranks; r++) {
    struct cuda_rank *cr = calloc(1, sizeof *cr);
    if (!cr) {
      res = err_set(chorus_out_of_memory, "out of memory");
      goto fail;
    }
    cr->q = q, cr->device = devices[r];
    comms[r]->cuda = cr;
    q->refs++;
    cudaSetDevice(devices[r]);
    res = cuda_stream_new(&cr->setup_stream);
    if (res == chorus_success) res = cuda_stream_new(&cr->call_stream);
    if (res != chorus_success) goto fail;
    e = cudaMalloc((void **)&cr->claim, sizeof *cr->claim);
    if (e == cudaSuccess) e = cudaMemsetAsync(cr->claim, 0, sizeof *cr->claim, cr->setup_stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cr->setup_stream);
    if (e != cudaSuccess) {
      res = err_set(chorus_system_error, "CUDA device %d: allocating a status word: %s", devices[r],
                    cudaGetErrorString(e));
      goto fail;
    }
    /* Every connection's counters into this rank, now, while no kernel of
     * ours runs: zeroing later would be work on a stream, and a stream can
     * queue behind a kernel that waits for this very rank. */
    res = cup_counters_create(devices[r], (size_t)nranks * PLAN_MAX_CHANNELS * sizeof(kcu_ring_t), cr->setup_stream,
                              (void **)&q->counters[r]);
    if (res != chorus_success) goto fail;
    LOG_INFO_("INIT", "rank %d: CUDA device %d (%d multiprocessors, %d ranks on it)", r, devices[r], q->sms[r],
              q->on_device[r]);
  }
  return chorus_success;
fail:
  if (!q->refs) {
    q->refs = 1;
    clique_unref(q);
  }
  return res; /* the caller destroys the communicators, which drops the ranks attached */
}

int cuda_device_of(const chorus_comm_t *c) { return c->cuda->device; }

int cuda_max_channels(const chorus_comm_t *c) {
  const clique_t *q = c->cuda->q;
  int n = q->sms[c->rank] / q->on_device[c->rank];
  return n < 1 ? 1 : n > PLAN_MAX_CHANNELS ? PLAN_MAX_CHANNELS : n;
}

/* The connection (src -> dst, channel): counters made at attach, slots in
 * dst's memory on first use (an allocation, no stream work). */
static chorus_result_t conn_get(chorus_comm_t *c, int src, int dst, int ch, kcu_conn_t *cn) {
  clique_t *q = c->cuda->q;
  chorus_result_t res = chorus_success;
  pthread_mutex_lock(&q->lock);
  char **slots = &q->slots[((size_t)src * q->nranks + dst) * PLAN_MAX_CHANNELS + ch];
  if (!*slots) {
    res = cup_slots_create(q->device[dst], q->step_bytes, slots);
    if (res == chorus_success)
      LOG_INFO_("INIT", "rank %d: CUDA connection %d -> %d channel %d on device %d", c->rank, src, dst, ch,
                q->device[dst]);
  }
  cn->slots = *slots;
  cn->ring = q->counters[dst] + (size_t)src * PLAN_MAX_CHANNELS + ch;
  pthread_mutex_unlock(&q->lock);
  cudaSetDevice(c->cuda->device);
  return res;
}

/* This rank's flat program of p on the device, with its connections and
 * scratch. The upload is ordered on `stream` before the launch that
 * follows, and nothing here waits for a stream. */
static chorus_result_t prepare(chorus_comm_t *c, const plan_t *p, cudaStream_t stream, prep_t **out) {
  struct cuda_rank *cr = c->cuda;
  for (int i = 0; i < cr->nprep; i++)
    if (cr->prep[i].plan == p) return *out = &cr->prep[i], chorus_success;
  if (cr->nprep == EXEC_MEMO)
    return comm_fail(c, chorus_invalid_usage, "rank %d: more than %d plans on one CUDA communicator", c->rank, EXEC_MEMO);
  kcu_prog_t *k;
  size_t bytes;
  chorus_result_t res = cuda_args_marshal(p, c->rank, &k, &bytes);
  if (res != chorus_success) return comm_fail(c, res, "rank %d: %s", c->rank, chorus_last_error());
  for (int i = 0; i < k->nconns && res == chorus_success; i++) {
    kcu_conn_t *cn = &k->conns[i];
    res = cn->is_send ? conn_get(c, c->rank, cn->peer, cn->channel, cn) : conn_get(c, cn->peer, c->rank, cn->channel, cn);
  }
  if (res != chorus_success) {
    free(k);
    return comm_fail(c, res, "rank %d: %s", c->rank, chorus_last_error());
  }
  prep_t *pp = &cr->prep[cr->nprep];
  *pp = (prep_t){.plan = p};
  size_t sbytes = (size_t)p->nchannels * p->scratch_chunks * c->geom.chunk_bytes;
  cudaError_t e = cudaHostAlloc((void **)&pp->hprog, bytes, cudaHostAllocPortable);
  if (e == cudaSuccess) memcpy(pp->hprog, k, bytes);
  if (e == cudaSuccess) e = cudaMalloc((void **)&pp->dprog, bytes);
  if (e == cudaSuccess && sbytes) e = cudaMalloc((void **)&pp->scratch, sbytes);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&pp->uploaded, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaMemcpyAsync(pp->dprog, pp->hprog, bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaEventRecord(pp->uploaded, stream);
  free(k);
  if (e != cudaSuccess) {
    cudaFreeHost(pp->hprog);
    cudaFree(pp->dprog);
    cudaFree(pp->scratch);
    return cu_err(c, e, "uploading a plan's program");
  }
  cr->nprep++;
  *out = pp;
  return chorus_success;
}

/* A device pointer the kernel can use, or a message naming the argument. */
static chorus_result_t check_buffer(chorus_comm_t *c, const void *p, const char *name) {
  if (!p) return chorus_success;
  struct cudaPointerAttributes at;
  cudaError_t e = cudaPointerGetAttributes(&at, p);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return err_set(chorus_invalid_argument, "rank %d: %s %p is not memory CUDA knows: %s", c->rank, name, p,
                   cudaGetErrorString(e));
  }
  if (at.type == cudaMemoryTypeUnregistered || (at.type == cudaMemoryTypeHost && !at.devicePointer))
    return err_set(chorus_invalid_argument,
                   "rank %d: %s %p is host memory: a CUDA communicator takes device (or mapped) buffers", c->rank,
                   name, p);
  return chorus_success;
}

chorus_result_t cuda_stage(chorus_comm_t *c, const void *src, size_t bytes, void *stream, const void **out) {
  cudaStream_t s = stream ? (cudaStream_t)stream : (cudaStream_t)c->cuda->call_stream;
  void *p = NULL;
  cudaError_t e = cudaMallocAsync(&p, bytes, s);
  if (e == cudaSuccess) e = cudaMemcpyAsync(p, src, bytes, cudaMemcpyDeviceToDevice, s);
  if (e != cudaSuccess) return cu_err(c, e, "staging an overlapping input");
  /* cuda_exec_coll frees it in stream order after the kernel that reads it. */
  *out = p;
  return chorus_success;
}

chorus_result_t cuda_exec_coll(chorus_comm_t *c, const plan_t *p, const comm_call_t *k, const void *in, uint32_t tag) {
  struct cuda_rank *cr = c->cuda;
  clique_t *q = cr->q;
  cudaError_t e = cudaSetDevice(cr->device);
  if (e != cudaSuccess) return cu_err(c, e, "selecting the device");
  int cap = cuda_max_channels(c);
  if (p->nchannels > cap)
    return err_set(chorus_invalid_usage,
                   "rank %d: %d channels on CUDA device %d: its %d multiprocessors hold the blocks of its %d ranks "
                   "at once only with at most %d channels each (CHORUS_NCHANNELS)",
                   c->rank, p->nchannels, cr->device, q->sms[c->rank], q->on_device[c->rank], cap);
  chorus_result_t res = check_buffer(c, k->sendbuf, "sendbuf");
  if (res == chorus_success) res = check_buffer(c, k->recvbuf, "recvbuf");
  TRY(res);
  void *stream = k->cuda_stream ? k->cuda_stream : cr->call_stream;
  prep_t *pp = NULL;
  TRY(prepare(c, p, (cudaStream_t)stream, &pp));
  e = cudaStreamWaitEvent((cudaStream_t)stream, pp->uploaded, 0); /* a call on another stream than the upload's */
  if (e != cudaSuccess) return cu_err(c, e, "ordering the launch after the program's upload");
  int divide = k->op == chorus_avg && plan_coll_reduces(k->coll) && k->recvbuf &&
                       (k->coll != chorus_reduce || c->rank == k->root)
                   ? c->nranks
                   : 0;
  kcu_args_t a;
  geom_conn_t conn = geom_conn_window(c->geom, p->window); /* scratch_stride fits in pp->scratch: chunks no larger */
  geom_call_t g = geom_call(k->count, chorus_dtype_size(k->dt), p->nchannels, p->nchunks, &conn);
  cuda_args_call(&a, pp->dprog, &g, &conn, p->scratch_chunks, k->dt, k->op, tag, divide,
                 (double)param_int(PARAM_TIMEOUT));
  a.in = in, a.out = k->recvbuf, a.scratch = pp->scratch, a.rank = c->rank;
  a.status = &q->status_dev[c->rank];
  a.claim = cr->claim;
  a.abort = q->abort_dev;
  char err[256];
  if (kcu_launch(&a, p->nchannels, stream, err, sizeof err) != 0)
    return comm_fail(c, chorus_system_error, "rank %d: CUDA device %d: %s", c->rank, cr->device, err);
  if (in && in != k->sendbuf) { /* a copy cuda_stage made: freed once the kernel is done with it */
    e = cudaFreeAsync((void *)in, (cudaStream_t)stream);
    if (e != cudaSuccess) return cu_err(c, e, "freeing a staged input");
  }
  if (!k->cuda_stream) {
    res = cuda_stream_sync(stream);
    if (res != chorus_success) return comm_fail(c, res, "rank %d: %s", c->rank, chorus_last_error());
    return cuda_comm_poll(c);
  }
  return chorus_success;
}

static const char *doing(const kcu_status_t *s) { return s->sending ? "sent to" : "received from"; }

chorus_result_t cuda_comm_poll(chorus_comm_t *c) {
  struct cuda_rank *cr = c->cuda;
  if (!cr || cr->reported) return c->error;
  kcu_status_t *hs = &cr->q->status_host[c->rank];
  /* Written by a kernel over PCIe: the code last, so the fields are set once it is. */
  if (__atomic_load_n(&hs->code, __ATOMIC_ACQUIRE) == KCU_OK) return c->error;
  kcu_status_t s;
  memcpy(&s, hs, sizeof s);
  cr->reported = 1;
  switch (s.code) {
  case KCU_TIMEOUT:
    return comm_fail(c, chorus_timeout,
                     "rank %d channel %d: the CUDA kernel waited %.1f s while it %s rank %d (op %d; CHORUS_TIMEOUT): "
                     "the peer hangs, died, or made a different call",
                     c->rank, s.channel, (double)s.waited_ns * 1e-9, doing(&s), s.peer, s.op_index);
  case KCU_ABORTED:
    return comm_fail_after(c, c->error ? c->error : chorus_remote_error,
                           "rank %d channel %d: the CUDA kernel stopped while it %s rank %d: another rank failed or "
                           "the communicator was aborted",
                           c->rank, s.channel, doing(&s), s.peer);
  case KCU_MISMATCH:
    return comm_fail(c, chorus_invalid_usage,
                     "rank %d channel %d: rank %d's call differs from this rank's %s (step tag %08x): every rank must "
                     "make the same calls with the same count, type, op and root",
                     c->rank, s.channel, s.peer, chorus_coll_name(c->call_coll), s.tag_seen);
  case KCU_OVERFLOW:
  case KCU_SHORT:
    return comm_fail(c, chorus_invalid_usage,
                     "rank %d channel %d: rank %d's call differs from this rank's %s (%s data arrived than this rank's "
                     "chunk holds)",
                     c->rank, s.channel, s.peer, chorus_coll_name(c->call_coll), s.code == KCU_SHORT ? "less" : "more");
  default:
    return comm_fail(c, chorus_internal_error, "rank %d channel %d: the CUDA kernel failed with code %u at op %d",
                     c->rank, s.channel, s.code, s.op_index);
  }
}

void cuda_comm_abort(chorus_comm_t *c) {
  if (c->cuda) __atomic_store_n(c->cuda->q->abort_host, 1u, __ATOMIC_SEQ_CST);
}

void cuda_comm_release(chorus_comm_t *c) {
  struct cuda_rank *cr = c->cuda;
  if (!cr) return;
  cudaSetDevice(cr->device);
  /* Kernels of this rank may run on the caller's streams: wait for all of
   * them (every wait inside is bounded) before the memory goes. */
  cudaDeviceSynchronize();
  for (int i = 0; i < cr->nprep; i++) {
    cudaFree(cr->prep[i].dprog);
    cudaFree(cr->prep[i].scratch);
    cudaFreeHost(cr->prep[i].hprog);
    cudaEventDestroy(cr->prep[i].uploaded);
  }
  cudaFree(cr->claim);
  cuda_stream_free(cr->setup_stream);
  cuda_stream_free(cr->call_stream);
  clique_unref(cr->q);
  free(cr);
  c->cuda = NULL;
}

chorus_result_t cuda_buf_alloc(int device, size_t bytes, void *stream, void **out) {
  cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess) e = cudaMalloc(out, bytes ? bytes : 1);
  /* Touched once, before any timing. */
  if (e == cudaSuccess) e = cudaMemsetAsync(*out, 0, bytes ? bytes : 1, (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess)
    return err_set(e == cudaErrorMemoryAllocation ? chorus_out_of_memory : chorus_system_error,
                   "CUDA device %d: allocating %zu bytes: %s", device, bytes, cudaGetErrorString(e));
  return chorus_success;
}

void cuda_buf_free(void *p) {
  if (p) cudaFree(p);
}

chorus_result_t cuda_buf_copy(void *dst, const void *src, size_t bytes, int to_host, void *stream) {
  cudaError_t e = cudaMemcpyAsync(dst, src, bytes, to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice,
                                  (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess) return err_set(chorus_system_error, "CUDA copy of %zu bytes: %s", bytes, cudaGetErrorString(e));
  return chorus_success;
}

#else /* no CUDA */

static chorus_result_t none(void) {
  return err_set(chorus_invalid_usage, "this libchorus was built without CUDA (no nvcc when it was configured; "
                                       "reconfigure with nvcc on PATH and -DCHORUS_CUDA=ON)");
}
int cuda_built(void) { return 0; }
void cuda_versions(char *buf, size_t len) { snprintf(buf, len, "CUDA not built in"); }
chorus_result_t cuda_attach(chorus_comm_t **comms, int nranks, const int *devices) { return none(); }
int cuda_device_of(const chorus_comm_t *c) { return -1; }
int cuda_max_channels(const chorus_comm_t *c) { return 1; }
chorus_result_t cuda_exec_coll(chorus_comm_t *c, const plan_t *p, const comm_call_t *k, const void *in, uint32_t tag) {
  return none();
}
chorus_result_t cuda_stage(chorus_comm_t *c, const void *src, size_t bytes, void *stream, const void **out) {
  return none();
}
chorus_result_t cuda_comm_poll(chorus_comm_t *c) { return c->error; }
void cuda_comm_abort(chorus_comm_t *c) {}
void cuda_comm_release(chorus_comm_t *c) {}
chorus_result_t cuda_stream_new(void **stream) { return none(); }
chorus_result_t cuda_stream_sync(void *stream) { return none(); }
int cuda_stream_idle(void *stream) { return 1; }
void cuda_stream_free(void *stream) {}
chorus_result_t cuda_buf_alloc(int device, size_t bytes, void *stream, void **out) { return none(); }
void cuda_buf_free(void *p) {}
chorus_result_t cuda_buf_copy(void *dst, const void *src, size_t bytes, int to_host, void *stream) {
  return none();
}

#endif
