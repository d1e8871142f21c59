/* hang.c -- hang reports: each rank writes where it waits (hang_dump), and
 * `chorus hang-report` (cli/hang_report.c) merges the files of all ranks.
 *
 * A report is written from a signal handler too, so hang_dump formats with
 * its own append helpers and write(2) only. The executor keeps per channel
 * the op it runs and that op's connections (comm_where_t, one store per op);
 * the report reads the slot counters of those connections, which say what
 * the op waits for: a receive whose ring has no unread step waits for data
 * from its peer, a send whose ring is full waits for the peer to take steps.
 *
 * Report format (one key=value list per line, the first word naming it):
 *   chorus-hang v=1 rank=R nranks=N pid=P comm=C job=J time=T reason=timeout|peer-failed|SIGUSR1
 * (job: the same number on every rank of one communicator; time: Unix seconds)
 *   call active=0|1 seq=S kind=collective|p2p coll=NAME count=K connecting=0|1
 *   channel ch=X op=I/N code=NAME recv_peer=P send_peer=Q in_pos=. in_head=. out_pos=. out_tail=. waits=data|room|none peer=P
 */
#include "hang.h"
#include "params.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HANG_MAX_COMMS 64

static chorus_comm_t *volatile registry[HANG_MAX_COMMS];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static char hang_dir[512];
static int handler_installed;

/* --- async-signal-safe formatting --- */

typedef struct {
  char buf[8192];
  size_t len;
} out_t;

static void put_s(out_t *o, const char *s) {
  while (s && *s && o->len < sizeof o->buf - 1) o->buf[o->len++] = *s++;
}

static void put_i(out_t *o, long long v) {
  char tmp[24];
  int n = 0;
  unsigned long long u = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
  do tmp[n++] = (char)('0' + u % 10);
  while ((u /= 10) && n < 23);
  if (v < 0) put_s(o, "-");
  while (n--) {
    char c[2] = {tmp[n], 0};
    put_s(o, c);
  }
}

static void put_kv(out_t *o, const char *key, long long v) {
  put_s(o, " ");
  put_s(o, key);
  put_s(o, "=");
  put_i(o, v);
}

static void put_ks(out_t *o, const char *key, const char *v) {
  put_s(o, " ");
  put_s(o, key);
  put_s(o, "=");
  put_s(o, v);
}

/* --- writing --- */

static void on_usr1(int sig) {
  int saved = errno;
  for (int i = 0; i < HANG_MAX_COMMS; i++) {
    chorus_comm_t *c = registry[i];
    if (c && c->call_active) hang_dump(c, "SIGUSR1");
  }
  errno = saved;
}

void hang_register(chorus_comm_t *c) {
  pthread_mutex_lock(&registry_lock);
  c->hang_slot = -1;
  if (!hang_dir[0]) snprintf(hang_dir, sizeof hang_dir, "%s", param_str(PARAM_HANG_DIR));
  for (int i = 0; i < HANG_MAX_COMMS; i++)
    if (!registry[i]) {
      registry[i] = c;
      c->hang_slot = i;
      break;
    }
  if (!handler_installed) {
    handler_installed = 1;
    struct sigaction old;
    /* Leave a program's own SIGUSR1 handler alone. */
    if (sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
      struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
      sigemptyset(&sa.sa_mask);
      sigaction(SIGUSR1, &sa, NULL);
    }
  }
  pthread_mutex_unlock(&registry_lock);
}

void hang_unregister(chorus_comm_t *c) {
  pthread_mutex_lock(&registry_lock);
  if (c->hang_slot >= 0 && c->hang_slot < HANG_MAX_COMMS && registry[c->hang_slot] == c) registry[c->hang_slot] = NULL;
  c->hang_slot = -1;
  pthread_mutex_unlock(&registry_lock);
}

int hang_dump(chorus_comm_t *c, const char *reason) {
  out_t *o = &(out_t){.len = 0};
  put_s(o, "chorus-hang");
  put_kv(o, "v", 1);
  put_kv(o, "rank", c->rank);
  put_kv(o, "nranks", c->nranks);
  put_kv(o, "pid", getpid());
  put_kv(o, "comm", c->hang_slot);
  put_kv(o, "job", c->job);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now); /* async-signal-safe */
  put_kv(o, "time", (long long)now.tv_sec);
  put_ks(o, "reason", reason);
  put_s(o, "\ncall");
  put_kv(o, "active", c->call_active);
  put_kv(o, "seq", c->call_kind == CALL_COLL ? (long long)c->seq : 0);
  put_ks(o, "kind", c->call_kind == CALL_COLL ? "collective" : "p2p");
  put_ks(o, "coll", c->call_kind == CALL_COLL ? chorus_coll_name((chorus_coll_t)c->call_coll) : "send/recv");
  put_kv(o, "count", (long long)c->call_count);
  put_kv(o, "connecting", c->connecting);
  put_s(o, "\n");
  for (int ch = 0; ch < PLAN_MAX_CHANNELS; ch++) {
    const comm_where_t *w = &c->where[ch];
    if (!w->active) continue;
    put_s(o, "channel");
    put_kv(o, "ch", ch);
    put_s(o, " op=");
    put_i(o, w->op_index);
    put_s(o, "/");
    put_i(o, w->op_count);
    put_ks(o, "code", plan_op_name((plan_opcode_t)w->op_code));
    put_kv(o, "recv_peer", w->recv_peer);
    put_kv(o, "send_peer", w->send_peer);
    const char *waits = "none";
    int peer = -1;
    tr_conn_t *in = w->conn_in, *out = w->conn_out;
    if (in && in->ring.ctrl) {
      uint32_t pos = in->ring.pos, head = __atomic_load_n(&in->ring.ctrl->head, __ATOMIC_RELAXED);
      put_kv(o, "in_pos", pos);
      put_kv(o, "in_head", head);
      if (head == pos) waits = "data", peer = w->recv_peer;
    }
    if (out && out->ring.ctrl) {
      uint32_t pos = out->ring.pos, tail = __atomic_load_n(&out->ring.ctrl->tail, __ATOMIC_RELAXED);
      put_kv(o, "out_pos", pos);
      put_kv(o, "out_tail", tail);
      if (peer < 0 && pos - tail >= GEOM_NSTEPS) waits = "room", peer = w->send_peer;
    }
    put_ks(o, "waits", waits);
    put_kv(o, "peer", peer);
    put_s(o, "\n");
  }
  /* chorus-hang-p<pid>-c<comm>-r<rank>.txt */
  out_t *path = &(out_t){.len = 0};
  put_s(path, hang_dir[0] ? hang_dir : "/tmp");
  put_s(path, "/chorus-hang-p");
  put_i(path, getpid());
  put_s(path, "-c");
  put_i(path, c->hang_slot);
  put_s(path, "-r");
  put_i(path, c->rank);
  put_s(path, ".txt");
  path->buf[path->len] = 0;
  int fd = open(path->buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  size_t off = 0;
  while (off < o->len) {
    ssize_t n = write(fd, o->buf + off, o->len - off);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) off += (size_t)n;
  }
  close(fd);
  if (off == o->len) {
    /* stderr is where a user watching a hung job looks first. */
    out_t *msg = &(out_t){.len = 0};
    put_s(msg, "chorus: rank ");
    put_i(msg, c->rank);
    put_s(msg, ": hang report written to ");
    put_s(msg, path->buf);
    put_s(msg, " (merge all ranks' reports with: chorus hang-report FILES)\n");
    ssize_t ignored = write(2, msg->buf, msg->len);
    (void)ignored;
  }
  return off == o->len ? 0 : -1;
}
