/* api.c -- the public calls: the collective and point-to-point entry
 * points, groups (held per thread, launched together),
 * and streams (a worker thread running queued batches in order). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "comm.h"
#include "exec.h"
#include "cuda_exec.h"
#include "kernels.h"

/* --- streams ---
 * A host stream is a thread running queued batches in order. A CUDA stream
 * wraps a cudaStream_t: a call plans and launches its kernel on the calling
 * thread and returns; synchronize waits for the cudaStream_t and then asks
 * every communicator that launched on it for its kernels' verdict. */

#define STREAM_COMMS 64

typedef struct task {
  struct task *next;
  chorus_comm_t *comm;
  int ncalls;
  call_t calls[];
} task_t;

struct chorus_stream {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond, done;
  task_t *head, *tail;
  int busy, quit;
  chorus_result_t error;
  char errmsg[1024];
  void *cu;     /* the cudaStream_t of a CUDA stream, NULL for a host stream */
  int owns_cu;  /* made by chorus_stream_create_cuda(..., NULL) */
  chorus_comm_t *comms[STREAM_COMMS]; /* CUDA: communicators launched on it since the last wait */
  int ncomms;
};

static void *stream_main(void *arg) {
  chorus_stream_t *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->head && !s->quit) pthread_cond_wait(&s->cond, &s->lock);
    if (!s->head) break;
    task_t *t = s->head;
    s->busy = 1;
    pthread_mutex_unlock(&s->lock);
    chorus_result_t r = exec_calls(t->comm, t->calls, t->ncalls);
    pthread_mutex_lock(&t->comm->lock);
    if (--t->comm->inflight == 0) pthread_cond_broadcast(&t->comm->idle);
    pthread_mutex_unlock(&t->comm->lock);
    pthread_mutex_lock(&s->lock);
    if (r != chorus_success && !s->error) {
      s->error = r;
      snprintf(s->errmsg, sizeof s->errmsg, "%s", chorus_last_error());
    }
    s->head = t->next;
    if (!s->head) s->tail = NULL;
    free(t);
    s->busy = 0;
    pthread_cond_broadcast(&s->done);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

chorus_result_t chorus_stream_create(chorus_stream_t **out) {
  if (!out) return err_set(chorus_invalid_argument, "chorus_stream_create: NULL argument");
  chorus_stream_t *s = calloc(1, sizeof *s);
  if (!s) return err_set(chorus_out_of_memory, "out of memory for a stream");
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->cond, NULL);
  pthread_cond_init(&s->done, NULL);
  if (pthread_create(&s->thread, NULL, stream_main, s) != 0) {
    free(s);
    return err_set(chorus_system_error, "cannot start a stream thread");
  }
  *out = s;
  return chorus_success;
}

static chorus_result_t stream_error(chorus_stream_t *s) {
  if (s->error) chorus_set_last_error(s->errmsg);
  return s->error;
}

chorus_result_t chorus_stream_create_cuda(chorus_stream_t **out, void *cuda_stream) {
  if (!out) return err_set(chorus_invalid_argument, "chorus_stream_create_cuda: NULL argument");
  if (!cuda_built()) return cuda_stream_new(&cuda_stream); /* says why */
  chorus_stream_t *s = calloc(1, sizeof *s);
  if (!s) return err_set(chorus_out_of_memory, "out of memory for a stream");
  pthread_mutex_init(&s->lock, NULL);
  s->cu = cuda_stream;
  if (!s->cu) {
    chorus_result_t r = cuda_stream_new(&s->cu);
    if (r != chorus_success) {
      pthread_mutex_destroy(&s->lock);
      free(s);
      return r;
    }
    s->owns_cu = 1;
  }
  *out = s;
  return chorus_success;
}

chorus_result_t chorus_stream_cuda_handle(const chorus_stream_t *s, void **cuda_stream) {
  if (!s || !cuda_stream) return err_set(chorus_invalid_argument, "chorus_stream_cuda_handle: NULL argument");
  if (!s->cu) return err_set(chorus_invalid_argument, "chorus_stream_cuda_handle: a host stream has no CUDA stream");
  *cuda_stream = s->cu;
  return chorus_success;
}

/* CUDA: the kernels' verdicts once the cudaStream_t is idle (s->lock held). */
static chorus_result_t cuda_verdict(chorus_stream_t *s) {
  chorus_result_t r = cuda_stream_sync(s->cu);
  if (r != chorus_success && !s->error) {
    s->error = r;
    snprintf(s->errmsg, sizeof s->errmsg, "%s", chorus_last_error());
  }
  for (int i = 0; i < s->ncomms; i++) {
    chorus_result_t e = cuda_comm_poll(s->comms[i]);
    if (e != chorus_success && !s->error) {
      s->error = e;
      snprintf(s->errmsg, sizeof s->errmsg, "%s", chorus_comm_error_string(s->comms[i]));
    }
  }
  s->ncomms = 0;
  return stream_error(s);
}

/* CUDA: remember a communicator that launched on s. */
static chorus_result_t cuda_note(chorus_stream_t *s, chorus_comm_t *c) {
  pthread_mutex_lock(&s->lock);
  int i = 0;
  while (i < s->ncomms && s->comms[i] != c) i++;
  chorus_result_t r = chorus_success;
  if (i == s->ncomms) {
    if (s->ncomms < STREAM_COMMS) s->comms[s->ncomms++] = c;
    else r = err_set(chorus_invalid_usage, "more than %d communicators launched on one CUDA stream between waits",
                     STREAM_COMMS);
  }
  pthread_mutex_unlock(&s->lock);
  return r;
}

chorus_result_t chorus_stream_synchronize(chorus_stream_t *s) {
  if (!s) return chorus_success;
  if (s->cu) {
    pthread_mutex_lock(&s->lock);
    chorus_result_t r = cuda_verdict(s);
    pthread_mutex_unlock(&s->lock);
    return r;
  }
  pthread_mutex_lock(&s->lock);
  while (s->head) pthread_cond_wait(&s->done, &s->lock);
  chorus_result_t r = stream_error(s);
  pthread_mutex_unlock(&s->lock);
  return r;
}

chorus_result_t chorus_stream_query(chorus_stream_t *s) {
  if (!s) return chorus_success;
  if (s->cu) {
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->ncomms && !s->error; i++) {
      chorus_result_t e = cuda_comm_poll(s->comms[i]); /* a kernel's failure shows while others still run */
      if (e != chorus_success) {
        s->error = e;
        snprintf(s->errmsg, sizeof s->errmsg, "%s", chorus_comm_error_string(s->comms[i]));
      }
    }
    chorus_result_t r = s->error ? stream_error(s) : cuda_stream_idle(s->cu) ? cuda_verdict(s) : chorus_in_progress;
    pthread_mutex_unlock(&s->lock);
    return r;
  }
  pthread_mutex_lock(&s->lock);
  chorus_result_t r = s->head ? chorus_in_progress : stream_error(s);
  if (s->head && s->error) r = stream_error(s);
  pthread_mutex_unlock(&s->lock);
  return r;
}

chorus_result_t chorus_stream_destroy(chorus_stream_t *s) {
  if (!s) return err_set(chorus_invalid_argument, "chorus_stream_destroy: stream is NULL");
  chorus_result_t r = chorus_stream_synchronize(s);
  if (s->cu) {
    if (s->owns_cu) cuda_stream_free(s->cu);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return r;
  }
  pthread_mutex_lock(&s->lock);
  s->quit = 1;
  pthread_cond_broadcast(&s->cond);
  pthread_mutex_unlock(&s->lock);
  pthread_join(s->thread, NULL);
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->cond);
  pthread_cond_destroy(&s->done);
  free(s);
  return r;
}

static chorus_result_t stream_push(chorus_stream_t *s, chorus_comm_t *c, const call_t *calls, int n) {
  task_t *t = malloc(sizeof *t + sizeof *calls * (size_t)n);
  if (!t) return err_set(chorus_out_of_memory, "out of memory for a queued call");
  t->next = NULL, t->comm = c, t->ncalls = n;
  memcpy(t->calls, calls, sizeof *calls * (size_t)n);
  pthread_mutex_lock(&c->lock);
  c->inflight++;
  pthread_mutex_unlock(&c->lock);
  pthread_mutex_lock(&s->lock);
  if (s->tail) s->tail->next = t;
  else s->head = t;
  s->tail = t;
  pthread_cond_signal(&s->cond);
  pthread_mutex_unlock(&s->lock);
  return chorus_success;
}

/* --- groups --- */

typedef struct {
  call_t call;
  chorus_stream_t *stream;
} held_t;

static _Thread_local int group_depth;
static _Thread_local held_t *held;
static _Thread_local int nheld, capheld;

chorus_result_t chorus_group_start(void) {
  group_depth++;
  return chorus_success;
}

typedef struct {
  chorus_comm_t *comm;
  call_t *calls;
  int n;
  chorus_result_t res;
  char msg[1024];
} batch_t;

static void *batch_main(void *arg) {
  batch_t *b = arg;
  b->res = exec_calls(b->comm, b->calls, b->n);
  if (b->res != chorus_success) snprintf(b->msg, sizeof b->msg, "%s", chorus_last_error());
  return NULL;
}

chorus_result_t chorus_group_end(void) {
  if (group_depth <= 0) return err_set(chorus_invalid_usage, "chorus_group_end without chorus_group_start");
  if (--group_depth > 0) return chorus_success;
  chorus_result_t res = chorus_success;
  int n = nheld;
  held_t *h = held;
  held = NULL, nheld = capheld = 0;
  /* One batch per communicator, in the order the calls were made. */
  batch_t *b = calloc((size_t)(n ? n : 1), sizeof *b);
  call_t *calls = malloc(sizeof *calls * (size_t)(n ? n : 1));
  chorus_stream_t **streams = calloc((size_t)(n ? n : 1), sizeof *streams);
  int nb = 0, used = 0;
  if (!b || !calls || !streams) {
    res = err_set(chorus_out_of_memory, "out of memory");
    goto cleanup;
  }
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < nb && b[k].comm != h[i].call.comm) k++;
    if (k < nb) continue;
    b[nb].comm = h[i].call.comm;
    b[nb].calls = calls + used;
    streams[nb] = h[i].stream;
    for (int q = i; q < n; q++)
      if (h[q].call.comm == b[nb].comm) calls[used++] = h[q].call, b[nb].n++;
    nb++;
  }
  int inline_ones = 0;
  for (int k = 0; k < nb; k++) {
    if (streams[k] && streams[k]->cu) {
      chorus_result_t r = cuda_note(streams[k], b[k].comm);
      if (r != chorus_success && res == chorus_success) res = r;
      streams[k] = NULL; /* launched like an inline batch: the kernels run on the CUDA stream */
    }
    if (streams[k]) {
      chorus_result_t r = stream_push(streams[k], b[k].comm, b[k].calls, b[k].n);
      if (r != chorus_success && res == chorus_success) res = r;
    } else {
      inline_ones++;
    }
  }
  if (inline_ones == 1) {
    for (int k = 0; k < nb; k++)
      if (!streams[k]) batch_main(&b[k]);
  } else if (inline_ones > 1) {
    /* Several communicators of this thread: each needs its own thread, or
     * the first would wait forever on the others. */
    pthread_t *th = calloc((size_t)nb, sizeof *th);
    int *started = calloc((size_t)nb, sizeof *started);
    if (!th || !started) {
      free(th);
      free(started);
      res = err_set(chorus_out_of_memory, "out of memory");
      goto cleanup;
    }
    for (int k = 0; k < nb; k++)
      if (!streams[k]) started[k] = pthread_create(&th[k], NULL, batch_main, &b[k]) == 0;
    for (int k = 0; k < nb; k++) {
      if (started[k]) pthread_join(th[k], NULL);
      else if (!streams[k]) b[k].res = err_set(chorus_system_error, "cannot start a thread for a group");
    }
    free(th);
    free(started);
  }
  for (int k = 0; k < nb; k++) {
    if (!streams[k] && b[k].res != chorus_success && res == chorus_success) {
      res = b[k].res;
      if (b[k].msg[0]) chorus_set_last_error(b[k].msg);
    }
  }
cleanup:
  free(b);
  free(calls);
  free(streams);
  free(h);
  return res;
}

static chorus_result_t submit(const call_t *kin, chorus_stream_t *s) {
  if (!kin->comm) return err_set(chorus_invalid_argument, "the communicator is NULL");
  call_t kc = *kin;
  const call_t *k = &kc;
  if (s && s->cu && !kc.comm->cuda)
    return err_set(chorus_invalid_argument, "a CUDA stream needs a communicator bound to a CUDA device "
                                            "(chorus_comm_init_all_cuda)");
  if (s && !s->cu && kc.comm->cuda)
    return err_set(chorus_invalid_argument, "a CUDA communicator needs a CUDA stream (chorus_stream_create_cuda) "
                                            "or NULL");
  if (s && s->cu) kc.cuda_stream = s->cu;
  if (group_depth > 0) {
    if (nheld == capheld) {
      int cap = capheld ? capheld * 2 : 16;
      held_t *nh = realloc(held, sizeof *nh * (size_t)cap);
      if (!nh) return err_set(chorus_out_of_memory, "out of memory for a group");
      held = nh, capheld = cap;
    }
    held[nheld++] = (held_t){*k, s};
    return chorus_success;
  }
  if (s && s->cu) {
    chorus_result_t r = cuda_note(s, k->comm);
    return r != chorus_success ? r : exec_calls(k->comm, k, 1);
  }
  if (s) return stream_push(s, k->comm, k, 1);
  return exec_calls(k->comm, k, 1);
}

chorus_result_t chorus_run_collective(chorus_coll_t coll, const void *sendbuf, void *recvbuf, size_t count,
                                      chorus_dtype_t dt, chorus_redop_t op, int root, chorus_comm_t *comm,
                                      chorus_stream_t *stream) {
  call_t k = {.kind = CALL_COLL, .coll = coll, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .dt = dt,
              .op = plan_coll_reduces(coll) ? op : chorus_sum, .root = plan_coll_rooted(coll) ? root : 0,
              .comm = comm};
  return submit(&k, stream);
}

chorus_result_t chorus_run_allreduce(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                     chorus_redop_t op, chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_allreduce, sendbuf, recvbuf, count, dt, op, 0, comm, stream);
}
chorus_result_t chorus_run_broadcast(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt, int root,
                                     chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_broadcast, sendbuf, recvbuf, count, dt, chorus_sum, root, comm, stream);
}
chorus_result_t chorus_run_reduce(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                  chorus_redop_t op, int root, chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_reduce, sendbuf, recvbuf, count, dt, op, root, comm, stream);
}
chorus_result_t chorus_run_allgather(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                     chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_allgather, sendbuf, recvbuf, count, dt, chorus_sum, 0, comm, stream);
}
chorus_result_t chorus_run_reducescatter(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                         chorus_redop_t op, chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_reducescatter, sendbuf, recvbuf, count, dt, op, 0, comm, stream);
}
chorus_result_t chorus_run_alltoall(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                    chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_alltoall, sendbuf, recvbuf, count, dt, chorus_sum, 0, comm, stream);
}

chorus_result_t chorus_send(const void *buf, size_t count, chorus_dtype_t dt, int peer, chorus_comm_t *comm,
                            chorus_stream_t *stream) {
  call_t k = {.kind = CALL_SEND, .sendbuf = buf, .count = count, .dt = dt, .root = peer, .comm = comm};
  return submit(&k, stream);
}
chorus_result_t chorus_recv(void *buf, size_t count, chorus_dtype_t dt, int peer, chorus_comm_t *comm,
                            chorus_stream_t *stream) {
  call_t k = {.kind = CALL_RECV, .recvbuf = buf, .count = count, .dt = dt, .root = peer, .comm = comm};
  return submit(&k, stream);
}
