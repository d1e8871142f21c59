/* bootstrap.c -- the root service, the hello/table exchange, and tagged
 * setup messages between ranks over short-lived TCP connections. */
#include "bootstrap.h"

#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "boot_msg.h"
#include "error.h"
#include "plan.h" /* PLAN_MAX_RANKS */
#include "params.h"
#include "transport/transport.h"
#include "log.h"

/* The root's answer to a hello: 0 and the table; -1 refused; when ranks
 * are missing at its deadline, BOOT_STATUS_MISSING + the lowest missing rank
 * and then how many are missing. */
#define BOOT_STATUS_MISSING 0x1000
/* Connections a receive still accepts once its time is up (queued ones). */
#define BOOT_LATE_ACCEPTS 256
/* How much longer than the root a rank waits for its answer. */
#define BOOT_VERDICT_S 2.0

typedef struct pending {
  struct pending *next;
  int from;
  uint32_t tag;
  size_t len;
  char data[];
} pending_t;

struct boot {
  int rank, nranks;
  uint8_t secret[16];
  int lfd;
  net_addr_t addr;
  boot_peer_t *peers;
  pending_t *queue;
  pthread_mutex_t lock;
};

void boot_host_id(char *buf, size_t len) {
  char host[64] = "", bootid[40] = "", ns[40] = "";
  gethostname(host, sizeof host);
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f) {
    if (!fgets(bootid, sizeof bootid, f)) bootid[0] = 0;
    fclose(f);
    bootid[strcspn(bootid, "\n")] = 0;
  }
  ssize_t n = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
  ns[n > 0 ? n : 0] = 0;
  snprintf(buf, len, "%s|%s|%s", host, bootid, ns);
}

int boot_same_machine(const char *a, const char *b) {
  const char *ea = strrchr(a, '|'), *eb = strrchr(b, '|');
  if (!ea || !eb) return !strcmp(a, b);
  return ea - a == eb - b && !memcmp(a, b, (size_t)(ea - a));
}

/* --- message validation (boot_msg.h) --- */

const char *boot_addr_check(const net_addr_t *a) {
  if (a->sa.ss_family == AF_INET)
    return a->len == sizeof(struct sockaddr_in) ? NULL : "an IPv4 address of the wrong length";
  if (a->sa.ss_family == AF_INET6)
    return a->len == sizeof(struct sockaddr_in6) ? NULL : "an IPv6 address of the wrong length";
  return "an address that is neither IPv4 nor IPv6";
}

const char *boot_peer_check(const boot_peer_t *p) {
  if (!memchr(p->hostid, 0, sizeof p->hostid)) return "a host id without its terminator";
  return boot_addr_check(&p->addr);
}

const char *boot_id_check(const boot_id_t *id) {
  if (id->magic != BOOT_MAGIC) return "the unique id is not one chorus made";
  if (boot_addr_check(&id->root)) return "the unique id holds no valid root address (corrupted?)";
  return NULL;
}

/* The order of the checks decides what the log line says: a stranger gets
 * "wrong magic", a chorus of another build "version", a rank of another
 * communicator "secret". */
const char *boot_hello_check(const void *buf, size_t len, const uint8_t secret[16], boot_hello_t *out) {
  if (len < sizeof *out) return "a truncated hello";
  memmove(out, buf, sizeof *out); /* buf may be out itself */
  if (out->magic != BOOT_MAGIC) return "wrong magic (not a chorus bootstrap hello)";
  if (out->version != BOOT_VERSION) return "another bootstrap protocol version (ranks of different chorus builds?)";
  if (memcmp(out->secret, secret, 16) != 0) return "it did not present the communicator's secret";
  return boot_peer_check(&out->self);
}

const char *boot_msg_hdr_check(const void *buf, size_t len, const uint8_t secret[16], int nranks, boot_msg_hdr_t *out) {
  if (len < sizeof *out) return "a truncated message header";
  memmove(out, buf, sizeof *out); /* buf may be out itself */
  if (out->magic != BOOT_MAGIC) return "wrong magic (not a chorus setup message)";
  if (out->version != BOOT_VERSION) return "another bootstrap protocol version (ranks of different chorus builds?)";
  if (memcmp(out->secret, secret, 16) != 0) return "it did not present the communicator's secret";
  if (out->from < 0 || out->from >= nranks) return "a sender rank out of range";
  if (out->len > BOOT_MSG_MAX) return "a message longer than the bootstrap accepts";
  return NULL;
}

/* "1.2.3.4:5678" of the other end of fd, for log lines. */
static void peer_str(int fd, char *buf, size_t len) {
  net_addr_t a = {.len = sizeof a.sa};
  if (getpeername(fd, &a.sa.s, &a.len) != 0) snprintf(buf, len, "?");
  else net_addr_str(&a, buf, len);
}

/* --- the root service --- */

typedef struct {
  int lfd;
  uint8_t secret[16];
} root_args_t;

static void *root_main(void *arg) {
  root_args_t a = *(root_args_t *)arg;
  free(arg);
  int nranks = -1, got = 0, *fds = NULL;
  boot_peer_t *table = NULL;
  double timeout = (double)param_int(PARAM_TIMEOUT), deadline = 0;
  while (nranks < 0 || got < nranks) {
    int fd;
    /* Wait forever for the first rank; afterwards the others must come
     * within the timeout of it: the ranks that joined wait for the table a
     * little longer (BOOT_VERDICT_S), so they hear from here who is missing
     * instead of timing out on their own. */
    double left = deadline - tr_now();
    if ((nranks >= 0 && left <= 0) || net_accept(a.lfd, nranks < 0 ? 0 : left, &fd) != chorus_success) {
      LOG_WARN_("BOOT", "root: %d of %d ranks arrived within %.0f s; giving up", got, nranks, timeout);
      break;
    }
    boot_hello_t h;
    char from[64];
    peer_str(fd, from, sizeof from);
    char cut[160];
    const char *why;
    if (net_recv_all(fd, &h, sizeof h, 5.0) != chorus_success)
      snprintf(cut, sizeof cut, "no complete hello (%s)", chorus_last_error()), why = cut;
    else why = boot_hello_check(&h, sizeof h, a.secret, &h);
    if (why) {
      LOG_WARN_("BOOT", "root: refused a connection from %s: %s", from, why);
      close(fd);
      continue;
    }
    if (nranks < 0) {
      if (h.nranks <= 0 || h.nranks > PLAN_MAX_RANKS) {
        LOG_WARN_("BOOT", "root: refused a connection from %s: %d ranks is out of range", from, h.nranks);
        close(fd);
        continue;
      }
      nranks = h.nranks;
      deadline = tr_now() + timeout;
      fds = malloc(sizeof *fds * nranks);
      table = calloc((size_t)nranks, sizeof *table);
      if (!fds || !table) break;
      for (int i = 0; i < nranks; i++) fds[i] = -1;
    }
    int32_t status = 0;
    if (h.nranks != nranks || h.rank < 0 || h.rank >= nranks || fds[h.rank] >= 0) {
      LOG_WARN_("BOOT", "root: rank %d of %d conflicts with the %d ranks announced", h.rank, h.nranks, nranks);
      status = -1;
      net_send_all(fd, &status, sizeof status, 5.0);
      close(fd);
      continue;
    }
    fds[h.rank] = fd;
    table[h.rank] = h.self;
    got++;
  }
  if (nranks > 0 && got == nranks) {
    int32_t status = 0;
    for (int own = 0; own < 2; own++) /* other processes first, as for the verdict below */
      for (int i = 0; i < nranks; i++) {
        if ((table[i].pid == (int32_t)getpid()) != own) continue;
        if (net_send_all(fds[i], &status, sizeof status, timeout) != chorus_success ||
            net_send_all(fds[i], table, sizeof *table * nranks, timeout) != chorus_success)
          LOG_WARN_("BOOT", "root: could not send the table to rank %d", i);
      }
  } else if (fds) {
    /* The verdict for those that came: the lowest missing rank and how many are missing. */
    int32_t verdict[2] = {-1, nranks - got};
    for (int i = 0; i < nranks && verdict[0] < 0; i++)
      if (fds[i] < 0) verdict[0] = i;
    LOG_WARN_("BOOT", "root: rank %d%s never joined", verdict[0], verdict[1] > 1 ? " and others" : "");
    verdict[0] += BOOT_STATUS_MISSING;
    /* Ranks of other processes first: one in this process may exit on the
     * verdict, and this thread with it (the fault benchmark saw rank 1 wait
     * for a verdict that rank 0's exit had cut off). */
    for (int own = 0; own < 2; own++)
      for (int i = 0; i < nranks; i++)
        if (fds[i] >= 0 && (table[i].pid == (int32_t)getpid()) == own) net_send_all(fds[i], verdict, sizeof verdict, 1.0);
  }
  for (int i = 0; fds && i < nranks; i++)
    if (fds[i] >= 0) close(fds[i]);
  free(fds);
  free(table);
  close(a.lfd);
  return NULL;
}

chorus_result_t boot_root_start(boot_id_t *id, const net_addr_t *listen_addr) {
  net_addr_t la = *listen_addr;
  int lfd;
  TRY(net_listen(&la, &lfd));
  root_args_t *a = malloc(sizeof *a);
  if (!a) {
    close(lfd);
    return err_set(chorus_out_of_memory, "bootstrap: out of memory");
  }
  a->lfd = lfd;
  memcpy(a->secret, id->secret, 16);
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, root_main, a);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    free(a);
    close(lfd);
    return err_set(chorus_system_error, "bootstrap: cannot start the root thread: %s", strerror(rc));
  }
  /* Connect to the address we listen on; a wildcard listener is reached on loopback. */
  if (!id->root.len) {
    id->root = la;
  }
  return chorus_success;
}

chorus_result_t boot_id_create(boot_id_t *id) {
  memset(id, 0, sizeof *id);
  id->magic = BOOT_MAGIC;
  if (getrandom(id->secret, sizeof id->secret, 0) != sizeof id->secret)
    return err_set(chorus_system_error, "getrandom: %s", strerror(errno));
  net_addr_t a;
  TRY(net_pick_addr(&a, NULL, 0));
  return boot_root_start(id, &a);
}

/* --- ranks --- */

chorus_result_t boot_init(boot_t **out, const boot_id_t *id, int rank, int nranks, double timeout_s) {
  chorus_result_t res = chorus_success;
  int fd = -1;
  *out = NULL;
  const char *bad = boot_id_check(id);
  if (bad) return err_set(chorus_invalid_argument, "rank %d: %s", rank, bad);
  boot_t *b = calloc(1, sizeof *b);
  if (!b) return err_set(chorus_out_of_memory, "bootstrap: out of memory");
  pthread_mutex_init(&b->lock, NULL);
  b->rank = rank, b->nranks = nranks, b->lfd = -1;
  memcpy(b->secret, id->secret, 16);
  b->peers = calloc((size_t)nranks, sizeof *b->peers);
  if (!b->peers) {
    res = err_set(chorus_out_of_memory, "bootstrap: out of memory");
    goto cleanup;
  }
  /* Listen on the interface the rules choose, in the family of the root. */
  CHECK(net_pick_addr(&b->addr, NULL, 0));
  if (b->addr.sa.ss_family == AF_INET) ((struct sockaddr_in *)&b->addr.sa)->sin_port = 0;
  else ((struct sockaddr_in6 *)&b->addr.sa)->sin6_port = 0;
  CHECK(net_listen(&b->addr, &b->lfd));

  boot_hello_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .rank = rank, .nranks = nranks};
  memcpy(h.secret, id->secret, 16);
  boot_host_id(h.self.hostid, sizeof h.self.hostid);
  h.self.pid = (int)getpid();
  h.self.addr = b->addr;
  char rs[64];
  net_addr_str(&id->root, rs, sizeof rs);
  res = net_connect(&id->root, timeout_s, NET_RETRY_REFUSED, &fd); /* the root may not be up yet */
  if (res != chorus_success) {
    res = err_set(res, "rank %d: cannot reach the bootstrap root at %s within %.0f s (%s)", rank, rs, timeout_s,
                  chorus_last_error());
    goto cleanup;
  }
  CHECK(net_send_all(fd, &h, sizeof h, timeout_s));
  int32_t status;
  res = net_recv_all(fd, &status, sizeof status, timeout_s + BOOT_VERDICT_S);
  if (res != chorus_success) {
    res = err_set(res, "rank %d: the bootstrap root at %s did not answer within %.0f s: not every rank joined",
                  rank, rs, timeout_s);
    goto cleanup;
  }
  int32_t missing;
  if (status >= BOOT_STATUS_MISSING && net_recv_all(fd, &missing, sizeof missing, 1.0) == chorus_success) {
    res = err_set(chorus_timeout,
                  "rank %d: rank %d%s never joined the bootstrap root at %s within %.0f s (CHORUS_TIMEOUT) of "
                  "the first rank (it died, hangs, or was not started)",
                  rank, status - BOOT_STATUS_MISSING, missing > 1 ? " and others" : "", rs, timeout_s);
    goto cleanup;
  }
  if (status != 0) {
    res = err_set(chorus_invalid_argument, "rank %d of %d: the root refused it (rank taken or sizes differ)", rank,
                  nranks);
    goto cleanup;
  }
  CHECK(net_recv_all(fd, b->peers, sizeof *b->peers * nranks, timeout_s));
  for (int r = 0; r < nranks; r++) {
    if ((bad = boot_peer_check(&b->peers[r]))) {
      res = err_set(chorus_remote_error, "rank %d: the bootstrap root at %s sent a bad entry for rank %d: %s", rank,
                    rs, r, bad);
      goto cleanup;
    }
  }
  LOG_INFO_("BOOT", "rank %d of %d joined through root %s", rank, nranks, rs);
cleanup:
  if (fd >= 0) close(fd);
  if (res != chorus_success) boot_destroy(b);
  else *out = b;
  return res;
}

void boot_destroy(boot_t *b) {
  if (!b) return;
  if (b->lfd >= 0) close(b->lfd);
  for (pending_t *p = b->queue, *n; p; p = n) {
    n = p->next;
    free(p);
  }
  pthread_mutex_destroy(&b->lock);
  free(b->peers);
  free(b);
}

const boot_peer_t *boot_peer(const boot_t *b, int rank) { return &b->peers[rank]; }
const uint8_t *boot_secret(const boot_t *b) { return b->secret; }
const net_addr_t *boot_addr(const boot_t *b) { return &b->addr; }

chorus_result_t boot_send(boot_t *b, int peer, uint32_t tag, const void *data, size_t len) {
  return boot_send_within(b, peer, tag, data, len, (double)param_int(PARAM_TIMEOUT));
}

chorus_result_t boot_send_within(boot_t *b, int peer, uint32_t tag, const void *data, size_t len, double timeout) {
  int fd;
  /* Every rank listened before its hello: a refusal means the peer is gone. */
  chorus_result_t res = net_connect(&b->peers[peer].addr, timeout, NET_LISTENING, &fd);
  if (res != chorus_success) return err_set(res, "rank %d: cannot reach rank %d: %s", b->rank, peer, chorus_last_error());
  boot_msg_hdr_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .from = b->rank, .tag = tag, .len = (uint32_t)len};
  memcpy(h.secret, b->secret, 16);
  /* Header and body in one write where they fit a small buffer: the
   * receiver then has the whole message as soon as it has the header. */
  char one[4096];
  if (sizeof h + len <= sizeof one) {
    memcpy(one, &h, sizeof h);
    if (len) memcpy(one + sizeof h, data, len);
    res = net_send_all(fd, one, sizeof h + len, timeout);
  } else {
    res = net_send_all(fd, &h, sizeof h, timeout);
    if (res == chorus_success && len) res = net_send_all(fd, data, len, timeout);
  }
  close(fd);
  return res;
}

/* Up to BOOT_FANOUT connections in flight at once (well under the usual
 * 1024 open files). A message this small fits in a fresh socket's buffer,
 * so one non-blocking send finishes it once the connection is up. */
#define BOOT_FANOUT 256

int boot_send_all_within(boot_t *b, uint32_t tag, const void *data, size_t len, double timeout) {
  size_t n = sizeof(boot_msg_hdr_t) + len;
  char *msg = malloc(n);
  if (!msg) return 0;
  boot_msg_hdr_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .from = b->rank, .tag = tag, .len = (uint32_t)len};
  memcpy(h.secret, b->secret, 16);
  memcpy(msg, &h, sizeof h);
  if (len) memcpy(msg + sizeof h, data, len);
  int reached = 0;
  struct pollfd fds[BOOT_FANOUT];
  for (int first = 0; first < b->nranks; first += BOOT_FANOUT) {
    int k = 0;
    for (int r = first; r < b->nranks && r < first + BOOT_FANOUT; r++) {
      if (r == b->rank) continue;
      const net_addr_t *a = &b->peers[r].addr;
      int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) continue;
      if (connect(fd, (const struct sockaddr *)&a->sa, a->len) != 0 && errno != EINPROGRESS) {
        close(fd);
        continue;
      }
      fds[k++] = (struct pollfd){.fd = fd, .events = POLLOUT};
    }
    double deadline = tr_now() + timeout;
    for (int open = k; open > 0;) {
      int ms = (int)((deadline - tr_now()) * 1e3);
      if (ms < 0 || poll(fds, (nfds_t)k, ms) <= 0) break;
      for (int i = 0; i < k; i++) {
        if (fds[i].fd < 0 || !fds[i].revents) continue;
        int e = 0;
        socklen_t el = sizeof e;
        if ((fds[i].revents & POLLOUT) && getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && !e &&
            send(fds[i].fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)n)
          reached++;
        close(fds[i].fd);
        fds[i].fd = -1, open--;
      }
    }
    for (int i = 0; i < k; i++)
      if (fds[i].fd >= 0) close(fds[i].fd);
  }
  free(msg);
  return reached;
}

int boot_probe(boot_t *b, int peer, double timeout) {
  chorus_result_t res = boot_send_within(b, peer, BOOT_TAG_PROBE, NULL, 0, timeout);
  return res == chorus_success ? 1 : res == chorus_remote_error ? 0 : -1;
}

static int take_pending(boot_t *b, int peer, uint32_t tag, int keep, int *from, void *data, size_t *len) {
  for (pending_t **pp = &b->queue; *pp; pp = &(*pp)->next) {
    pending_t *p = *pp;
    if ((peer >= 0 && p->from != peer) || p->tag != tag) continue;
    size_t n = p->len < *len ? p->len : *len;
    memcpy(data, p->data, n);
    *len = p->len;
    if (from) *from = p->from;
    if (!keep) {
      *pp = p->next;
      free(p);
    }
    return 1;
  }
  return 0;
}

/* A queued BOOT_TAG_FAILED message becomes this wait's error; so does a
 * queued mismatch report (its text is the reporter's to give). */
static int failure_pending(boot_t *b, int peer, uint32_t tag) {
  char text[600];
  size_t len = sizeof text - 1;
  int from;
  if (peer < 0 || tag == BOOT_TAG_FAILED || tag == BOOT_TAG_MISMATCH) return 0;
  if (take_pending(b, -1, BOOT_TAG_FAILED, 1, &from, text, &len)) {
    text[len < sizeof text ? len : sizeof text - 1] = 0;
    err_set(chorus_remote_error, "rank %d failed while this rank waited for rank %d: %s", from, peer, text);
    return 1;
  }
  len = sizeof text;
  if (take_pending(b, -1, BOOT_TAG_MISMATCH, 1, &from, text, &len)) {
    err_set(chorus_remote_error, "rank %d found that the ranks made different calls while this rank waited for "
            "rank %d", from, peer);
    return 1;
  }
  return 0;
}

/* peer -1: from any rank. Accepts what is already queued on the listener
 * even when the time is up, so a short timeout still sees sent messages. */
static chorus_result_t take(boot_t *b, int peer, uint32_t tag, int keep, int *from, void *data, size_t *len,
                            double timeout_s) {
  chorus_result_t res = chorus_success;
  if (timeout_s < 0) { /* boot_peek_queued */
    if (pthread_mutex_trylock(&b->lock) != 0) return chorus_timeout;
    timeout_s = 0;
  } else pthread_mutex_lock(&b->lock);
  double deadline = tr_now() + timeout_s;
  int late = 0;
  while (!take_pending(b, peer, tag, keep, from, data, len)) {
    if (failure_pending(b, peer, tag)) {
      res = chorus_remote_error;
      break;
    }
    double left = deadline - tr_now();
    int fd;
    /* Past the deadline, whatever is already queued is still taken (the
     * message wanted may sit behind others: a cause queued before an ASK). */
    if ((left <= 0 && late++ >= BOOT_LATE_ACCEPTS) ||
        net_accept(b->lfd, left > 1e-3 ? left : 1e-3, &fd) != chorus_success) {
      if (peer >= 0)
        res = err_set(chorus_timeout, "rank %d: no setup message %#x from rank %d within %.0f s", b->rank, tag, peer,
                      timeout_s);
      else
        res = err_set(chorus_timeout, "rank %d: no message %#x within %.1f s", b->rank, tag, timeout_s);
      break;
    }
    boot_msg_hdr_t h;
    char who[64];
    peer_str(fd, who, sizeof who);
    char cut[160];
    const char *why;
    if (net_recv_all(fd, &h, sizeof h, 5.0) != chorus_success)
      snprintf(cut, sizeof cut, "no complete header (%s)", chorus_last_error()), why = cut;
    else why = boot_msg_hdr_check(&h, sizeof h, b->secret, b->nranks, &h);
    if (why) {
      LOG_WARN_("BOOT", "rank %d: refused a connection from %s: %s", b->rank, who, why);
      close(fd);
      continue;
    }
    pending_t *p = malloc(sizeof *p + h.len);
    if (!p) {
      close(fd);
      res = err_set(chorus_out_of_memory, "bootstrap: out of memory");
      break;
    }
    p->from = h.from, p->tag = h.tag, p->len = h.len;
    /* Its header is here, so its body is on the way: not a wait on the
     * peer's progress, and a short wait (a rank that looks every 10 ms for
     * other news) must not cut it off and lose it. */
    res = net_recv_all(fd, p->data, h.len, timeout_s > 5.0 ? timeout_s : 5.0);
    close(fd);
    if (res != chorus_success) { /* the sender died or hung mid-message: name it, whoever was awaited */
      res = err_set(res, "rank %d: message %#x from rank %d was cut off (rank %d died or hangs): %s", b->rank,
                    h.tag, h.from, h.from, chorus_last_error());
      free(p);
      break;
    }
    /* Keep arrival order for messages with the same (peer, tag). */
    p->next = NULL;
    pending_t **tailp = &b->queue;
    while (*tailp) tailp = &(*tailp)->next;
    *tailp = p;
  }
  pthread_mutex_unlock(&b->lock);
  return res;
}

chorus_result_t boot_recv(boot_t *b, int peer, uint32_t tag, void *data, size_t *len, double timeout_s) {
  return take(b, peer, tag, 0, NULL, data, len, timeout_s);
}

chorus_result_t boot_recv_any(boot_t *b, uint32_t tag, int *from, void *data, size_t *len, double timeout_s) {
  return take(b, -1, tag, 0, from, data, len, timeout_s);
}

chorus_result_t boot_peek_any(boot_t *b, uint32_t tag, int *from, void *data, size_t *len, double timeout_s) {
  return take(b, -1, tag, 1, from, data, len, timeout_s > 0 ? timeout_s : 0);
}

chorus_result_t boot_peek_queued(boot_t *b, uint32_t tag, int *from, void *data, size_t *len) {
  return take(b, -1, tag, 1, from, data, len, -1);
}

int boot_scan_queued(boot_t *b, uint32_t lo, uint32_t hi, boot_scan_fn fn, void *arg) {
  if (pthread_mutex_trylock(&b->lock) != 0) return 0;
  int r = 0;
  for (pending_t *p = b->queue; p && !r; p = p->next)
    if (p->tag >= lo && p->tag <= hi) r = fn(arg, p->from, p->tag, p->data, p->len);
  pthread_mutex_unlock(&b->lock);
  return r;
}
