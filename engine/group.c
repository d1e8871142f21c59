/* group.c -- groups (group.h): calls held per thread between
 * chorus_group_start and chorus_group_end, then launched together. */
#include "group.h"

#include <pthread.h>
#include <stdlib.h>

#include "error.h"
#include "exec.h"
#include "stream.h"

typedef struct {
  comm_call_t call;
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
  comm_call_t *calls;
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
  comm_call_t *calls = malloc(sizeof *calls * (size_t)(n ? n : 1));
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
    if (stream_cuda(streams[k])) {
      chorus_result_t r = stream_note_cuda(streams[k], b[k].comm);
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

int group_active(void) { return group_depth > 0; }

chorus_result_t group_hold(const comm_call_t *k, chorus_stream_t *s) {
  if (nheld == capheld) {
    int cap = capheld ? capheld * 2 : 16;
    held_t *nh = realloc(held, sizeof *nh * (size_t)cap);
    if (!nh) return err_set(chorus_out_of_memory, "out of memory for a group");
    held = nh, capheld = cap;
  }
  held[nheld++] = (held_t){*k, s};
  return chorus_success;
}
