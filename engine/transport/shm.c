/* shm.c -- the shared-memory transport between processes (or threads) of one
 * host. The receiver creates a POSIX shared segment holding the ring's
 * control block and its slots; the sender maps it and writes every step
 * straight into the receiver's slot (one copy). Both sides map with
 * MAP_POPULATE so that no page is first touched inside a collective. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "transport.h"

typedef struct {
  char name[64];
  int pid;
} shm_desc_t;

typedef struct {
  void *base;
  size_t size;
  char name[64];
  int owner; /* the receiver created the segment and unlinks it */
} shm_priv_t;

static size_t seg_size(size_t step_bytes) { return RING_SLOTS_OFFSET + (size_t)GEOM_NSTEPS * step_bytes; }

static chorus_result_t map_seg(const char *name, size_t size, int create, void **out) {
  int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
  if (fd < 0) {
    int e = errno;
    chorus_result_t r = err_set(chorus_system_error, "shm: shm_open(%s): %s", name, strerror(e));
    errno = e; /* the creator retries on EEXIST */
    return r;
  }
  if (create && ftruncate(fd, (off_t)size) != 0) {
    int e = errno;
    close(fd);
    shm_unlink(name);
    return err_set(chorus_system_error, "shm: ftruncate(%s, %zu): %s (is /dev/shm large enough?)", name, size,
                   strerror(e));
  }
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED) {
    if (create) shm_unlink(name);
    return err_set(chorus_system_error, "shm: mmap(%s, %zu): %s", name, size, strerror(e));
  }
  *out = p;
  return chorus_success;
}

static chorus_result_t shm_send_setup(tr_conn_t *c, const tr_args_t *a, void *desc, size_t *len) {
  shm_desc_t d = {.pid = (int)getpid()};
  memcpy(desc, &d, sizeof d);
  *len = sizeof d;
  return chorus_success;
}

static chorus_result_t shm_recv_setup(tr_conn_t *c, const tr_args_t *a, void *desc, size_t *len) {
  shm_priv_t *p = calloc(1, sizeof *p);
  if (!p) return err_set(chorus_out_of_memory, "shm: out of memory");
  c->priv = p;
  p->size = seg_size(a->step_bytes);
  /* A random part in the name: a process killed before its peer attached
   * leaves its segment behind, and a later process with the same pid must
   * not collide with it (CI hit "File exists" after pids wrapped). */
  chorus_result_t res;
  int tries = 0;
  do {
    uint32_t nonce;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce) nonce = (uint32_t)rand();
    snprintf(p->name, sizeof p->name, "/chorus-%d-%08x-%d-%d", (int)getpid(), nonce, a->peer, a->channel);
    res = map_seg(p->name, p->size, 1, &p->base);
  } while (res != chorus_success && errno == EEXIST && ++tries < 4);
  TRY(res);
  p->owner = 1;
  ring_ctrl_t *ctrl = p->base;
  memset(ctrl, 0, sizeof *ctrl);
  ctrl->consumer_pid = (int)getpid();
  c->ring = (ring_t){.ctrl = ctrl, .slots = (char *)p->base + RING_SLOTS_OFFSET, .step_bytes = a->step_bytes,
                     .stop = a->stop};
  shm_desc_t d = {.pid = (int)getpid()};
  snprintf(d.name, sizeof d.name, "%s", p->name);
  memcpy(desc, &d, sizeof d);
  *len = sizeof d;
  return chorus_success;
}

static chorus_result_t shm_send_connect(tr_conn_t *c, const tr_args_t *a, const void *desc, size_t len) {
  shm_desc_t d;
  if (len != sizeof d) return err_set(chorus_remote_error, "shm: rank %d sent a bad descriptor", a->peer);
  memcpy(&d, desc, sizeof d);
  shm_priv_t *p = calloc(1, sizeof *p);
  if (!p) return err_set(chorus_out_of_memory, "shm: out of memory");
  c->priv = p;
  snprintf(p->name, sizeof p->name, "%s", d.name);
  p->size = seg_size(a->step_bytes);
  TRY(map_seg(p->name, p->size, 0, &p->base));
  /* The receiver keeps the segment mapped; the name is no longer needed. */
  shm_unlink(p->name);
  ring_ctrl_t *ctrl = p->base;
  ctrl->producer_pid = (int)getpid();
  c->ring = (ring_t){.ctrl = ctrl, .slots = (char *)p->base + RING_SLOTS_OFFSET, .step_bytes = a->step_bytes,
                     .peer_pid = d.pid == (int)getpid() ? 0 : d.pid, .stop = a->stop};
  return chorus_success;
}

static chorus_result_t shm_recv_connect(tr_conn_t *c, const tr_args_t *a, const void *desc, size_t len) {
  shm_desc_t d;
  if (len != sizeof d) return err_set(chorus_remote_error, "shm: rank %d sent a bad descriptor", a->peer);
  memcpy(&d, desc, sizeof d);
  c->ring.peer_pid = d.pid == (int)getpid() ? 0 : d.pid;
  return chorus_success;
}

static void shm_free(tr_conn_t *c) {
  shm_priv_t *p = c->priv;
  if (!p) return;
  if (p->base) munmap(p->base, p->size);
  if (p->owner) shm_unlink(p->name); /* ENOENT when the sender already did */
  free(p);
  c->priv = NULL;
}

const transport_t shm_transport = {
    .name = "shm",
    .send_setup = shm_send_setup,
    .recv_setup = shm_recv_setup,
    .send_connect = shm_send_connect,
    .recv_connect = shm_recv_connect,
    .free = shm_free,
};
