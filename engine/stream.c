/* stream.c -- streams (stream.h): the chorus_stream_* calls and the queue
 * behind them. */
#include "stream.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_exec.h"
#include "error.h"
#include "exec.h"

/* A host stream is a thread running queued batches in order. A CUDA stream
 * wraps a cudaStream_t: a call plans and launches its kernel on the calling
 * thread and returns; synchronize waits for the cudaStream_t and then asks
 * every communicator that launched on it for its kernels' verdict. */

#define STREAM_COMMS 64

typedef struct task {
  struct task *next;
  chorus_comm_t *comm;
  int ncalls;
  comm_call_t calls[];
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

chorus_result_t stream_note_cuda(chorus_stream_t *s, chorus_comm_t *c) {
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

chorus_result_t stream_push(chorus_stream_t *s, chorus_comm_t *c, const comm_call_t *calls, int n) {
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

void *stream_cuda(const chorus_stream_t *s) { return s ? s->cu : NULL; }
