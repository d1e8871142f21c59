/* test_hostile.c -- hostile TCP clients against the bootstrap: while a
 * 2-rank communicator forms (ranks as threads, chorus_comm_init_rank), raw
 * clients connect to the root's port (found in the unique id) with a wrong
 * secret, a wrong magic, another protocol version, a truncated hello, a
 * megabyte of garbage, random bytes, or nothing at all; then, before the
 * first collective, to each rank's own bootstrap listener with the same and
 * with headers that announce an oversized message or a sender out of range.
 * Every one must be refused with a log line, and the real communicator must
 * still form and compute a correct allreduce. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot_msg.h"
#include "chorus.h"
#include "comm.h"
#include "test.h"

enum { NRANKS = 2 };

/* --- raw clients --- */

static int dial(const net_addr_t *a) {
  int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, &a->sa.s, a->len) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Send what the client sends; errors (the server closing first) are fine.
 * Unless wait is set, only what the kernel takes now: a listener that has not
 * accepted yet reads nothing. */
static void spit(int fd, const void *buf, size_t len, int wait) {
  const char *p = buf;
  while (len) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
    if (n <= 0) return;
    p += n, len -= (size_t)n;
  }
}

/* 1 when the server closed the connection within timeout_s without sending
 * anything, 0 when it sent bytes or kept it open. */
static int refused_by_close(int fd, double timeout_s) {
  struct pollfd p = {fd, POLLIN, 0};
  if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0) return 0;
  char c;
  ssize_t n = recv(fd, &c, 1, 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

typedef enum {
  BAD_SECRET = 0,
  BAD_MAGIC,
  BAD_VERSION,
  TRUNCATED,
  OVERSIZED_GARBAGE,
  RANDOM_BYTES,
  SILENT,
  HDR_OVERSIZED_LEN, /* rank listeners only: the secret, but a length past BOOT_MSG_MAX */
  HDR_FROM_OUT_OF_RANGE,
  NUM_CASES
} hostile_t;

static const char *const case_names[NUM_CASES] = {"wrong secret",   "wrong magic",  "other version",
                                                  "truncated",      "1 MiB garbage", "random bytes",
                                                  "silent",         "oversized len", "sender out of range"};

/* A message for the root (a hello) or for a rank (a header), spoiled as c says. */
static size_t build(hostile_t c, int to_root, const uint8_t secret[16], uint8_t *buf, size_t cap) {
  if (c == OVERSIZED_GARBAGE || c == RANDOM_BYTES) {
    size_t n = c == OVERSIZED_GARBAGE ? cap : 200;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(rand() >> 7);
    return n;
  }
  if (c == SILENT) return 0;
  size_t n;
  uint32_t *magic, *version;
  uint8_t *sec;
  if (to_root) {
    boot_hello_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .rank = 1, .nranks = NRANKS};
    snprintf(h.self.hostid, sizeof h.self.hostid, "intruder");
    memcpy(buf, &h, n = sizeof h);
    magic = (uint32_t *)(buf + offsetof(boot_hello_t, magic));
    version = (uint32_t *)(buf + offsetof(boot_hello_t, version));
    sec = buf + offsetof(boot_hello_t, secret);
  } else {
    boot_msg_hdr_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .from = 0, .tag = 0x10000001u, .len = 296};
    if (c == HDR_OVERSIZED_LEN) h.len = 0xffffffffu;
    if (c == HDR_FROM_OUT_OF_RANGE) h.from = 7;
    memcpy(buf, &h, n = sizeof h);
    magic = (uint32_t *)(buf + offsetof(boot_msg_hdr_t, magic));
    version = (uint32_t *)(buf + offsetof(boot_msg_hdr_t, version));
    sec = buf + offsetof(boot_msg_hdr_t, secret);
  }
  memcpy(sec, secret, 16);
  if (c == BAD_SECRET) sec[3] ^= 0x40;
  if (c == BAD_MAGIC) *magic = 0x47455420u; /* "GET " */
  if (c == BAD_VERSION) *version = BOOT_VERSION + 7;
  if (c == TRUNCATED) n /= 3;
  return n;
}

static uint8_t big[1 << 20];

/* Connect one client of each case; wait for each to be refused when wait is
 * set (the server is accepting now), else leave them queued. Returns the
 * number of clients sent. */
static int attack(const net_addr_t *a, int to_root, const uint8_t secret[16], int wait) {
  int sent = 0;
  for (int c = 0; c < NUM_CASES; c++) {
    if (to_root && c >= HDR_OVERSIZED_LEN) continue;
    int fd = dial(a);
    CHECK_TRUE(fd >= 0);
    if (fd < 0) continue;
    size_t n = build((hostile_t)c, to_root, secret, big, sizeof big);
    spit(fd, big, n, wait);
    if (c == TRUNCATED || c == SILENT || !wait) shutdown(fd, SHUT_WR);
    if (wait) {
      int ok = refused_by_close(fd, 8.0);
      if (!ok) fprintf(stderr, "  %s: not refused\n", case_names[c]);
      CHECK_TRUE(ok);
    }
    close(fd);
    sent++;
  }
  return sent;
}

/* --- the ranks --- */

typedef struct {
  chorus_unique_id_t id;
  int rank;
  chorus_result_t res;
  chorus_comm_t *comm;
  int wrong;
} rank_t;

static void *join_main(void *arg) {
  rank_t *r = arg;
  r->res = chorus_comm_init_rank(&r->comm, NRANKS, r->id, r->rank);
  return NULL;
}

static void *allreduce_main(void *arg) {
  rank_t *r = arg;
  enum { N = 70001 };
  int32_t *in = malloc(N * 4), *out = malloc(N * 4);
  for (int i = 0; i < N; i++) in[i] = r->rank * 1000 + i % 97;
  r->res = chorus_run_allreduce(in, out, N, chorus_int32, chorus_sum, r->comm, NULL);
  for (int i = 0; i < N && r->res == chorus_success; i++) r->wrong += out[i] != 1000 + 2 * (i % 97);
  free(in);
  free(out);
  return NULL;
}

/* Lines of the log holding needle; a NULL needle prints the log instead. */
static int count_lines(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[2048];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    if (!needle) fputs(line, stdout);
    else if (strstr(line, needle)) n++;
  }
  fclose(f);
  return n;
}

static void hostile_clients_are_refused_and_the_communicator_still_forms(void) {
  /* The log lines are the contract too: capture stderr. */
  char logpath[] = "/tmp/chorus-hostile-XXXXXX";
  int logfd = mkstemp(logpath);
  CHECK_TRUE(logfd >= 0);
  if (logfd < 0) return;
  fflush(stderr);
  int saved = dup(2);
  dup2(logfd, 2);

  chorus_unique_id_t id;
  CHECK_TRUE(chorus_get_unique_id(&id) == chorus_success);
  boot_id_t bid;
  memcpy(&bid, id.internal, sizeof bid);
  srand(7);
  /* Before any rank: the root waits for the first hello. */
  int at_root = attack(&bid.root, 1, bid.secret, 1);
  rank_t ranks[NRANKS];
  pthread_t th[NRANKS];
  for (int r = 0; r < NRANKS; r++) ranks[r] = (rank_t){.id = id, .rank = r};
  pthread_create(&th[0], NULL, join_main, &ranks[0]);
  usleep(200 * 1000);
  /* Rank 0 is waiting for its table: the root counts arrivals now. */
  at_root += attack(&bid.root, 1, bid.secret, 1);
  pthread_create(&th[1], NULL, join_main, &ranks[1]);
  for (int r = 0; r < NRANKS; r++) pthread_join(th[r], NULL);
  int formed = 1;
  for (int r = 0; r < NRANKS; r++) {
    if (ranks[r].res != chorus_success) fprintf(stderr, "  rank %d: %s\n", r, chorus_last_error());
    CHECK_TRUE(ranks[r].res == chorus_success);
    formed &= ranks[r].res == chorus_success;
  }
  int at_ranks = 0;
  if (formed) {
    /* The ranks' listeners accept only while connections are made, at the
     * first collective: these wait in the backlog and come first. */
    for (int r = 0; r < NRANKS; r++)
      at_ranks += attack(&boot_peer(ranks[r].comm->boot, r)->addr, 0, bid.secret, 0);
    for (int r = 0; r < NRANKS; r++) pthread_create(&th[r], NULL, allreduce_main, &ranks[r]);
    for (int r = 0; r < NRANKS; r++) pthread_join(th[r], NULL);
    for (int r = 0; r < NRANKS; r++) {
      CHECK_TRUE(ranks[r].res == chorus_success);
      CHECK_EQ_INT(ranks[r].wrong, 0);
    }
    for (int r = 0; r < NRANKS; r++) chorus_comm_destroy(ranks[r].comm);
  }

  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(logfd);
  count_lines(logpath, NULL); /* the log stays visible in the test's output */
  CHECK_EQ_INT(at_root, 2 * SILENT + 2);
  CHECK_EQ_INT(count_lines(logpath, "root: refused a connection from"), at_root);
  if (formed) {
    CHECK_EQ_INT(at_ranks, NRANKS * NUM_CASES);
    int lines = 0;
    for (int r = 0; r < NRANKS; r++) {
      char needle[64];
      snprintf(needle, sizeof needle, "rank %d: refused a connection from", r);
      lines += count_lines(logpath, needle);
    }
    CHECK_EQ_INT(lines, at_ranks);
  }
  unlink(logpath);
}

/* A rank that dies in the middle of a setup message (a valid header, then
 * the connection closes) fails the wait that reads it, naming that rank --
 * even when the wait was for another rank. */
static void message_cut_off_names_its_sender(void) {
  chorus_unique_id_t id;
  CHECK_TRUE(chorus_get_unique_id(&id) == chorus_success);
  boot_id_t bid;
  memcpy(&bid, id.internal, sizeof bid);
  rank_t ranks[NRANKS];
  pthread_t th[NRANKS];
  for (int r = 0; r < NRANKS; r++) ranks[r] = (rank_t){.id = id, .rank = r};
  for (int r = 0; r < NRANKS; r++) pthread_create(&th[r], NULL, join_main, &ranks[r]);
  for (int r = 0; r < NRANKS; r++) pthread_join(th[r], NULL);
  if (ranks[0].res != chorus_success || ranks[1].res != chorus_success) {
    CHECK_TRUE(0);
    return;
  }
  int fd = dial(&boot_peer(ranks[0].comm->boot, 0)->addr);
  CHECK_TRUE(fd >= 0);
  boot_msg_hdr_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .from = 1, .tag = 0x7fff0001u, .len = 296};
  memcpy(h.secret, bid.secret, 16);
  spit(fd, &h, sizeof h, 0);
  close(fd); /* 296 bytes promised, none sent */
  /* Rank 0 alone starts its first collective: it reads the cut-off message
   * first, while it waits for rank 1's connection descriptor. */
  allreduce_main(&ranks[0]);
  CHECK_TRUE(ranks[0].res != chorus_success);
  CHECK_CONTAINS(chorus_last_error(), "from rank 1 was cut off");
  for (int r = 0; r < NRANKS; r++) chorus_comm_destroy(ranks[r].comm);
}

/* A unique id that was corrupted in transit is refused with a reason, before
 * any connection is tried. */
static void corrupted_unique_id_is_refused(void) {
  chorus_unique_id_t id;
  memset(&id, 0, sizeof id);
  boot_id_t bid = {.magic = BOOT_MAGIC};
  bid.root.sa.ss_family = AF_INET;
  bid.root.len = 3; /* no IPv4 address is 3 bytes long */
  memcpy(id.internal, &bid, sizeof bid);
  chorus_comm_t *c = NULL;
  CHECK_EQ_INT(chorus_comm_init_rank(&c, 1, id, 0), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "no valid root address");
  CHECK_TRUE(c == NULL);
}

int main(int argc, char **argv) {
  setenv("CHORUS_TIMEOUT", "10", 0);
  static const test_case_t tests[] = {TEST(hostile_clients_are_refused_and_the_communicator_still_forms),
                                      TEST(corrupted_unique_id_is_refused),
                                      TEST(message_cut_off_names_its_sender), {NULL, NULL}};
  return test_run_all_(tests, argc, argv);
}
int test_failed_, test_skipped_;
