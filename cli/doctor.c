/* doctor.c -- `chorus doctor`: what the engine finds on this host, and what
 * looks wrong, each finding with plain advice. Sections: the library and
 * its build, the settings (which are set, which are risky or contradict
 * each other), the host (CPUs, NUMA nodes, identity), the network
 * interfaces and the one sockets would use, the memory the buffers take,
 * and a self-test: a 2-rank ring allreduce over shared memory and over
 * sockets, run as `chorus perf` children and set beside `chorus sim` on the
 * local topology (a calibrated one with --topo). Under a launcher of 2 or
 * more ranks it checks the hosts instead: every rank joins one communicator
 * (a rank that never comes is named), and one rank per host measures
 * connection time, latency and bandwidth to every other host, set beside the
 * cost model's prediction for that pair. Exit 1 when a finding is a problem
 * (not only a note). */
#define _GNU_SOURCE /* dladdr */
#include "doctor.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap.h"
#include "chorus.h"
#include "cost.h"
#include "doctor_rsh.h"
#include "kernels.h"
#include "launcher.h"
#include "params.h"
#include "plan.h"
#include "planner.h"
#include "transport/net.h"
#include "transport/transport.h"
#include "tune.h"

static int problems, notes;
/* Under a launcher, the lines of ranks other than 0 start with who they are. */
static char who[160];

void doctor_finding(int problem, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("  %s%s ", who, problem ? "PROBLEM:" : "note:   ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (problem) problems++;
  else notes++;
}

int doctor_count(int *n) {
  *n = notes;
  return problems;
}

#define finding doctor_finding

static void check_settings(void) {
  printf("\nsettings (set in the environment are marked env):\n");
  param_list(stdout);
  printf("\n");
  const char *lvl = param_str(PARAM_DEBUG);
  if (strcasecmp(lvl, "NONE") && strcasecmp(lvl, "WARN") && strcasecmp(lvl, "INFO") && strcasecmp(lvl, "TRACE"))
    finding(1, "CHORUS_DEBUG=%s is not a level; use NONE, WARN, INFO or TRACE (WARN is used now)", lvl);
  long timeout = param_int(PARAM_TIMEOUT);
  if (timeout < 5)
    finding(1, "CHORUS_TIMEOUT=%ld s: a loaded machine or a slow first connection can exceed it and fail calls "
            "that would have finished; use 30 or more unless a test needs it short", timeout);
  long buff = param_int(PARAM_BUFFSIZE);
  if (buff < 64 * 1024)
    finding(1, "CHORUS_BUFFSIZE=%ld is below 64 KiB: every step is tiny and bandwidth collapses; the default is "
            "4 MiB", buff);
  if (param_int(PARAM_SPIN) == 0)
    finding(0, "CHORUS_SPIN=0: every wait sleeps at once, adding a futex wake-up (tens of us) to each step of "
            "small messages");
  if (param_int(PARAM_SHM_DISABLE))
    finding(0, "CHORUS_SHM_DISABLE=1: ranks on one host talk through TCP; expect several times less bandwidth "
            "than shared memory");
  long nch = param_int(PARAM_NCHANNELS), cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (nch > cores)
    finding(1, "CHORUS_NCHANNELS=%ld is above the %ld CPUs: each channel is a thread per rank, so they take "
            "turns on the cores; leave it unset or use at most %ld", nch, cores, cores);
  if (nch > 0 && param_is_set(PARAM_ALGO) && !strcmp(param_str(PARAM_ALGO), "rd"))
    finding(0, "CHORUS_ALGO=rd with CHORUS_NCHANNELS=%ld: recursive doubling is latency-bound; channels add "
            "threads, not bandwidth", nch);
  /* CHORUS_ALGO (one name, a list, ^exclusions), CHORUS_NCHANNELS, CHORUS_PROTO
   * and the tuning file: what a communicator checks before its first call. */
  if (tune_check_settings() != chorus_success) finding(1, "%s; every communicator would fail", chorus_last_error());
  if (param_is_set(PARAM_ALGOS) && access(param_str(PARAM_ALGOS), R_OK) != 0)
    finding(1, "CHORUS_ALGOS=%s is not a readable folder; the planner finds no scripts", param_str(PARAM_ALGOS));
  if (param_str(PARAM_TOPO)[0]) {
    /* perf and the tuner warn and fall back to the rules on a topology they
     * cannot load: a setting that silently does nothing. */
    sim_cost_t *c;
    char err[1024];
    if (sim_cost_create(&c, param_str(PARAM_TOPO), "", (size_t)param_int(PARAM_BUFFSIZE), err, sizeof err) !=
        chorus_success)
      finding(1, "CHORUS_TOPO=%s cannot be loaded (%s): the tuner would fall back to its rules and this self-test "
              "has nothing to predict with; point it at a topology file (chorus calibrate writes one) or unset it",
              param_str(PARAM_TOPO), err);
    else
      sim_cost_destroy(c);
  }
  const char *dir = param_str(PARAM_HANG_DIR);
  if (access(dir, W_OK) != 0)
    finding(1, "CHORUS_HANG_DIR=%s is not writable: hang reports would be lost; point it at a folder you can "
            "write", dir);
}

static void check_host(void) {
  char host[BOOT_HOSTID_LEN];
  boot_host_id(host, sizeof host);
  int numa = 0;
  DIR *d = opendir("/sys/devices/system/node");
  if (d) {
    for (struct dirent *e; (e = readdir(d));)
      if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') numa++;
    closedir(d);
  }
  printf("\nhost: identity %s, %ld CPUs online, %d NUMA node%s\n", host, sysconf(_SC_NPROCESSORS_ONLN),
         numa ? numa : 1, numa == 1 || !numa ? "" : "s");
}

static void check_interfaces(void) {
  printf("\nnetwork interfaces (up, with an address):\n");
  struct ifaddrs *ifs;
  if (getifaddrs(&ifs) != 0) {
    finding(1, "getifaddrs failed: cannot list interfaces");
    return;
  }
  const char *rules = param_str(PARAM_SOCKET_IFNAME);
  int matched = 0, real = 0;
  for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
    int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    char a[INET6_ADDRSTRLEN] = "?";
    inet_ntop(fam, fam == AF_INET ? (void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
                                  : (void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
              a, sizeof a);
    int lo = (i->ifa_flags & IFF_LOOPBACK) != 0, virt = net_is_virtual(i->ifa_name);
    int match = rules[0] && net_if_match(rules, i->ifa_name);
    matched += match;
    real += !lo && !virt;
    printf("  %-12s %-40s %s%s%s\n", i->ifa_name, a, lo ? "loopback" : virt ? "virtual" : "",
           rules[0] ? (match ? " (matches CHORUS_SOCKET_IFNAME)" : "") : "", "");
  }
  freeifaddrs(ifs);
  net_addr_t addr;
  char ifname[64] = "", as[80] = "";
  if (net_pick_addr(&addr, ifname, sizeof ifname) != chorus_success) {
    finding(1, "sockets have no interface: %s. Unset CHORUS_SOCKET_IFNAME or name an interface listed above "
            "(prefixes like eth, ^docker to exclude, =eth0 exact)", chorus_last_error());
    return;
  }
  net_addr_str(&addr, as, sizeof as);
  printf("  sockets would use: %s %s\n", ifname, as);
  if (rules[0] && !matched)
    finding(1, "CHORUS_SOCKET_IFNAME=%s matches no interface", rules);
  if (!strncmp(ifname, "lo", 2))
    finding(real ? 1 : 0, "sockets would use the loopback interface: other hosts cannot reach this one%s",
            real ? "; unset CHORUS_SOCKET_IFNAME or choose a real interface" : " (fine for one host)");
  else if (net_is_virtual(ifname))
    finding(real ? 1 : 0, "sockets would use %s, a virtual interface (container or VM bridge)%s", ifname,
            real ? ": peers on other hosts usually cannot reach it; set CHORUS_SOCKET_IFNAME to a real one"
                 : "; fine when every host is on this bridge (network namespaces, containers)");
}

static void check_memory(void) {
  long buff = param_int(PARAM_BUFFSIZE), cores = sysconf(_SC_NPROCESSORS_ONLN);
  long nch = param_int(PARAM_NCHANNELS) > 0 ? param_int(PARAM_NCHANNELS) : 2;
  /* A ring has 2 peers per channel; alltoall (direct) has all of them. Each
   * connection keeps one ring of slots at the receiver (shm) or one per end
   * (sockets). */
  double ring = (double)buff * nch * 2 * 2, a2a = (double)buff * nch * 2 * (cores > 1 ? cores - 1 : 1);
  printf("\nmemory per rank for connection buffers (CHORUS_BUFFSIZE %ld x channels %ld x 2 directions):\n"
         "  ring-like algorithms (2 peers): %.1f MiB; all-to-all among %ld local ranks: %.1f MiB\n",
         buff, nch, ring / (1 << 20), cores, a2a / (1 << 20));
}

/* A child of the self-test: chorus sim or chorus perf, which take seconds;
 * the deadline is for one that hangs. */
#define SELFTEST_DEADLINE_S 120.0

/* busbw of the first data row of chorus perf / sim output (column 8). */
static double first_busbw(const char *text) {
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (*l == '#' || *l == '\n') continue;
    double v[8];
    if (sscanf(l, "%lf %lf %*s %*s %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6) return v[5];
  }
  return -1;
}

#define SELFTEST_TRIES 3

static void self_test(const char *topo, int calibrated) {
  char exe[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = 0;
  printf("\nself-test: 2-rank ring allreduce of 4 MiB, measured (chorus perf) against predicted (chorus sim "
         "--topo %s):\n", topo);
  static char out[65536];
  char *perf[] = {exe, "perf", "allreduce", "-n", "2", "-a", "ring", "-c", "1", "-b", "4M", "-e", "4M",
                  "-w", "3", "-i", "20", "--inplace", "0", NULL};
  char *sim[] = {exe, "sim", "allreduce", "--topo", (char *)topo, "-n", "2", "-a", "ring", "-c", "1", "-b", "4M",
                 "-e", "4M", NULL};
  int rc = doctor_run_capture(sim, NULL, out, sizeof out, SELFTEST_DEADLINE_S);
  double pred = rc == 0 ? first_busbw(out) : -1;
  if (pred <= 0) {
    finding(1, "chorus sim --topo %s failed (exit %d): %.200s", topo, rc, out);
    return;
  }
  const char *names[] = {"shared memory", "sockets (CHORUS_SHM_DISABLE=1)"};
  char *envs[2][2] = {{NULL, NULL}, {"CHORUS_SHM_DISABLE=1", NULL}};
  for (int t = 0; t < 2; t++) {
    rc = doctor_run_capture(perf, envs[t], out, sizeof out, SELFTEST_DEADLINE_S);
    double meas = rc == 0 ? first_busbw(out) : -1;
    if (rc != 0 || meas <= 0) {
      finding(1, "the %s self-test failed (exit %d): %.300s", names[t], rc, out);
      continue;
    }
    /* One sample can land in a busy second (a false problem at -88 %, clean
     * on the next three runs): a gap is measured again, up to
     * SELFTEST_TRIES times, and the best measurement judged. */
    int tries = 1;
    for (; t == 0 && tries < SELFTEST_TRIES && fabs(meas - pred) / pred > 0.20; tries++) {
      if (doctor_run_capture(perf, envs[t], out, sizeof out, SELFTEST_DEADLINE_S) != 0) break;
      double again = first_busbw(out);
      if (fabs(again - pred) < fabs(meas - pred)) meas = again;
    }
    if (t == 1) {
      printf("  %-32s measured %7.2f GB/s busbw\n", names[t], meas);
      continue;
    }
    double gap = (meas - pred) / pred * 100;
    printf("  %-32s measured %7.2f GB/s busbw, predicted %7.2f (%+.0f%%)%s\n", names[t], meas, pred, gap,
           tries > 1 ? " (the closest of several measurements)" : "");
    if (gap < -20 || gap > 20)
      finding(calibrated,
              "%s is %.0f%% %s the prediction: %s", names[t], gap < 0 ? -gap : gap, gap < 0 ? "below" : "above",
              !calibrated
                  ? "the shipped local topology is not calibrated to this machine; run chorus calibrate -n 2 "
                    "--out my.lua and chorus doctor --topo my.lua (a loaded machine also measures low)"
                  : "this machine moves data slower or faster than its calibration says (other load, a "
                    "changed setting, or a stale calibration: run chorus calibrate again)");
  }
}

/* --- several hosts, under a launcher --- */

#define HOSTS_MSG ((size_t)4 << 20) /* bytes of a bandwidth message, as the self-test's */
#define HOSTS_PINGS 50
#define HOSTS_PING_BUDGET_S 0.5 /* of round trips past the fifth */
#define HOSTS_BUDGET_S 0.5 /* per direction of a pair, after its first message */
#define HOSTS_MAX_REPS 8
/* A pair's latency is a problem when it is this many times what is
 * expected and at least this much above it, in each of HOSTS_LAT_TRIES
 * measurements of the pair and its two floors: on a machine whose cores
 * other work keeps busy, a blocking call costs 50 us one second and 2 ms
 * the next (BENCHMARKS.md, "chorus doctor: latency"). */
#define HOSTS_LAT_FACTOR 3.0
#define HOSTS_LAT_EXCESS_S 200e-6
#define HOSTS_LAT_TRIES 3

typedef struct {
  const char *topo;  /* --topo, or NULL */
  const char *sets;  /* --set, or NULL */
  const char *hosts; /* --hosts: host names in rank order, or NULL */
  double tolerance;  /* percent below the prediction that is a problem */
} hosts_opts_t;

/* What each rank tells the others about itself. */
typedef struct {
  char name[64];
  char hostid[BOOT_HOSTID_LEN];
  char ifname[32];
  char addr[64];
  double join_s;
  int32_t pid, pad;
} rank_info_t;

/* Rank and size from the launcher's environment, read in the order
 * chorus_comm_init_env reads them; 0 when no launcher is recognised. */
static int launcher_size(int *rank) {
  launcher_env_t l;
  if (!launcher_env(&l)) return 0;
  *rank = atoi(l.rank);
  return atoi(l.size);
}

/* Item i of a comma-separated list into buf ("" past the end); returns how many items it has. */
static int list_item(const char *list, int i, char *buf, size_t len) {
  int n = 0;
  buf[0] = 0;
  for (const char *p = list; p && *p; n++) {
    size_t k = strcspn(p, ",");
    if (n == i) snprintf(buf, len, "%.*s", (int)k, p);
    p += k + (p[k] == ',');
  }
  return n;
}

/* The host rank k was to come from: --hosts when given, else the launcher's ranks per host. */
static void expected_host(int k, int nranks, const char *hosts, char *buf, size_t len) {
  char item[128];
  int n = hosts ? list_item(hosts, 0, item, sizeof item) : 0;
  if (n > 0 && nranks % n == 0) {
    list_item(hosts, k / (nranks / n), item, sizeof item);
    snprintf(buf, len, "host %s", item);
    return;
  }
  launcher_env_t l;
  launcher_env(&l);
  int ppn = l.local_size;
  if (ppn > 0) {
    snprintf(buf, len, "the launch's host %d, ranks %d-%d by %s=%d", k / ppn, k / ppn * ppn, k / ppn * ppn + ppn - 1,
             l.local_size_var, ppn);
    return;
  }
  snprintf(buf, len, "a host the launcher does not name; --hosts LIST names them");
}

static void root_str(char *buf, size_t len) {
  launcher_env_t l;
  launcher_env(&l);
  if (param_is_set(PARAM_ROOT))
    snprintf(buf, len, "%s", param_str(PARAM_ROOT));
  else if (l.master_addr)
    snprintf(buf, len, "%s:%s (MASTER_ADDR:MASTER_PORT)", l.master_addr, l.master_port ? l.master_port : "29500");
  else
    snprintf(buf, len, "the root the launcher names");
}

/* The communicator did not form: say who is missing, or what could not be reached. */
static void join_failed(int nranks, const hosts_opts_t *o) {
  char msg[1024], host[256], root[300];
  snprintf(msg, sizeof msg, "%s", chorus_last_error());
  const char *m = msg, *colon = strstr(msg, ": ");
  if (!strncmp(m, "rank ", 5) && colon) m = colon + 2; /* the rank is already in `who` */
  root_str(root, sizeof root);
  int k;
  if (strstr(m, "never joined") && sscanf(m, "rank %d", &k) == 1) {
    expected_host(k, nranks, o->hosts, host, sizeof host);
    finding(1,
            "rank %d%s (expected from %s) never joined: the bootstrap root %s waited %ld s (CHORUS_TIMEOUT) "
            "after the first rank; it died, hangs, or was not started. Start it, or make the launcher's rank "
            "count (WORLD_SIZE) match the ranks started; if it runs, check that its host reaches the root (ping "
            "it; a firewall may drop the port) on the interface it picks (CHORUS_SOCKET_IFNAME), and raise "
            "CHORUS_TIMEOUT when hosts start far apart",
            k, strstr(m, " and others") ? " and others" : "", host, root, param_int(PARAM_TIMEOUT));
  } else if (strstr(m, "cannot reach the bootstrap root")) {
    finding(1,
            "%s. The root is %s: it must be rank 0's host and a free port, reachable from this host (ping "
            "it; a firewall may drop the port), and rank 0 must have started",
            m, root);
  } else {
    finding(1, "joining the communicator of %d ranks through %s failed: %s", nranks, root, m);
  }
}

/* The cost model's seconds for one message of `bytes` from rank `from` to
 * rank `to`: a plan of one send and its receive, replayed on the topology as
 * the tuner replays a collective. */
static double predict_p2p(sim_cost_t *cost, int nranks, int from, int to, size_t bytes) {
  plan_t *p;
  if (plan_create(&p, chorus_broadcast, nranks, 1, from, NULL) != chorus_success) return -1;
  plan_op_t send = {.code = PLAN_OP_SEND,
                    .src_buf = PLAN_BUF_INPUT,
                    .src_chunk = 0,
                    .dst_chunk = -1,
                    .recv_peer = -1,
                    .send_peer = to};
  plan_op_t recv = {.code = PLAN_OP_RECV,
                    .dst_buf = PLAN_BUF_OUTPUT,
                    .src_chunk = -1,
                    .dst_chunk = 0,
                    .recv_peer = from,
                    .send_peer = -1};
  /* Programs go in rank order. */
  int ok = from < to
               ? plan_append(p, from, 0, &send) == chorus_success && plan_append(p, to, 0, &recv) == chorus_success
               : plan_append(p, to, 0, &recv) == chorus_success && plan_append(p, from, 0, &send) == chorus_success;
  char err[512];
  double t = ok ? sim_cost_time(cost, p, bytes, chorus_uint8, err, sizeof err) : -1;
  plan_destroy(p);
  return t;
}

/* The topology that describes this job: --topo, else CHORUS_TOPO, else the
 * namespace testbed's shape when hosts hold equal runs of ranks (as the
 * tuner picks it). *trusted: the user described the machine, so a gap is a
 * problem, not a guess that missed. */
static sim_cost_t *hosts_cost(const hosts_opts_t *o, int nranks, int nh, const int *host_of, char *desc, size_t len,
                              int *trusted) {
  const char *file = o->topo ? o->topo : param_str(PARAM_TOPO)[0] ? param_str(PARAM_TOPO) : NULL;
  char sets[512] = "";
  *trusted = file != NULL || o->sets != NULL;
  if (!file) {
    int ppn = nranks / nh, ok = ppn * nh == nranks;
    for (int r = 0; ok && r < nranks; r++)
      ok = host_of[r] == r / ppn;
    if (!ok) {
      snprintf(desc, len, "none");
      finding(0,
              "no shipped topology describes %d ranks on %d uneven hosts: nothing is predicted; give one with "
              "--topo FILE (chorus calibrate writes one)",
              nranks, nh);
      return NULL;
    }
    file = "netns";
    snprintf(sets, sizeof sets, "hosts=%d,ppn=%d%s%s", nh, ppn, o->sets ? "," : "", o->sets ? o->sets : "");
  } else if (o->sets) {
    snprintf(sets, sizeof sets, "%s", o->sets);
  }
  snprintf(desc, len, "%s%s%s", file, sets[0] ? " --set " : "", sets);
  sim_cost_t *c;
  char err[2048];
  if (sim_cost_create(&c, file, sets, (size_t)param_int(PARAM_BUFFSIZE), err, sizeof err) != chorus_success) {
    finding(1, "the topology %s cannot be loaded: %s", desc, err);
    return NULL;
  }
  if (sim_cost_nranks(c) < nranks) {
    finding(1,
            "the topology %s places %d ranks, the job has %d: nothing is predicted; give one that places them "
            "all",
            desc, sim_cost_nranks(c), nranks);
    sim_cost_destroy(c);
    return NULL;
  }
  return c;
}

/* One direction of a pair. The sender times `reps` messages and the
 * receiver's acknowledgement; reps comes from the time of a first message,
 * so that a slow link still finishes in about HOSTS_BUDGET_S. They go in
 * two blocks, each acknowledged, and the faster block counts: a block the
 * scheduler interrupted (another process on a loaded machine) says nothing
 * about the link. */
static chorus_result_t p2p_bulk(chorus_comm_t *c, int sender, int peer, char *big, double *gbps) {
  int64_t word = 0;
  if (!sender) {
    TRY(chorus_recv(big, HOSTS_MSG, chorus_uint8, peer, c, NULL));
    TRY(chorus_send(&word, 1, chorus_int64, peer, c, NULL));
    TRY(chorus_recv(&word, 1, chorus_int64, peer, c, NULL));
    if (word < 1 || word > HOSTS_MAX_REPS) return chorus_remote_error;
    for (int64_t done = 0, blk = word > 1 ? word / 2 : 1; done < word; done += blk) {
      if (blk > word - done) blk = word - done;
      for (int64_t i = 0; i < blk; i++)
        TRY(chorus_recv(big, HOSTS_MSG, chorus_uint8, peer, c, NULL));
      TRY(chorus_send(&word, 1, chorus_int64, peer, c, NULL));
    }
    return chorus_success;
  }
  double t = tr_now();
  TRY(chorus_send(big, HOSTS_MSG, chorus_uint8, peer, c, NULL));
  TRY(chorus_recv(&word, 1, chorus_int64, peer, c, NULL));
  double first = tr_now() - t;
  int64_t reps = first * HOSTS_MAX_REPS < HOSTS_BUDGET_S ? HOSTS_MAX_REPS : (int64_t)(HOSTS_BUDGET_S / first);
  if (reps < 1) reps = 1;
  word = reps;
  TRY(chorus_send(&word, 1, chorus_int64, peer, c, NULL));
  *gbps = 0;
  for (int64_t done = 0, blk = reps > 1 ? reps / 2 : 1; done < reps; done += blk) {
    if (blk > reps - done) blk = reps - done;
    t = tr_now();
    for (int64_t i = 0; i < blk; i++)
      TRY(chorus_send(big, HOSTS_MSG, chorus_uint8, peer, c, NULL));
    TRY(chorus_recv(&word, 1, chorus_int64, peer, c, NULL));
    double rate = (double)blk * HOSTS_MSG / (tr_now() - t) / 1e9;
    if (rate > *gbps) *gbps = rate;
  }
  return chorus_success;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Round trips of 8 bytes with `peer`: the first opens both connections
 * (its time is *conn), then up to HOSTS_PINGS more, timed one by one, and no
 * more than HOSTS_PING_BUDGET_S of them past the fifth (a slow path still
 * ends in time: the `first` side decides, and the word it sends says
 * whether another follows); *lat is half the median (a round trip the
 * machine preempted is an outlier to drop, not a cost to average in). */
static chorus_result_t ping_pong(chorus_comm_t *c, int first, int peer, double *conn, double *lat) {
  int64_t word = 1;
  double rtt[HOSTS_PINGS], start = 0;
  int n = 0;
  for (int i = -1; word; i++) {
    double t = tr_now();
    if (i == 0) start = t;
    if (first) {
      word = i + 1 < HOSTS_PINGS && (i < 5 || t - start < HOSTS_PING_BUDGET_S);
      TRY(chorus_send(&word, 1, chorus_int64, peer, c, NULL));
      TRY(chorus_recv(&word, 1, chorus_int64, peer, c, NULL));
    } else {
      TRY(chorus_recv(&word, 1, chorus_int64, peer, c, NULL));
      TRY(chorus_send(&word, 1, chorus_int64, peer, c, NULL));
      if (i + 1 >= HOSTS_PINGS) word = 0; /* a peer that never says stop */
    }
    if (i < 0)
      *conn = tr_now() - t;
    else
      rtt[n++] = tr_now() - t;
  }
  if (!n) return err_set(chorus_remote_error, "the peer ended the round trips before the first");
  qsort(rtt, (size_t)n, sizeof rtt[0], cmp_double);
  *lat = rtt[n / 2] / 2;
  return chorus_success;
}

/* A pair of hosts, one rank each: round trips (connection time and
 * latency), then bandwidth one way and the other. The `first` side
 * measures connection and latency; each side measures the direction it
 * sends. */
static chorus_result_t p2p_pair(chorus_comm_t *c, int first, int peer, char *big, double *conn, double *lat,
                                double *gbps) {
  TRY(ping_pong(c, first, peer, conn, lat));
  TRY(p2p_bulk(c, first, peer, big, gbps));
  return p2p_bulk(c, !first, peer, big, gbps);
}

/* chorus doctor --pingpong: the blocking call's own cost on this host. Two
 * processes (this one and a child forked before any thread exists, as
 * chorus perf forks) join a communicator of their own and ping-pong 8
 * bytes as a pair of hosts does; with CHORUS_SHM_DISABLE=1 they go through
 * the socket transport and its proxy threads over loopback, with no
 * network in between. Prints "pingpong half-round-trip-us=X". */
static int doctor_pingpong(void) {
  int idp[2];
  if (pipe(idp) != 0) return fprintf(stderr, "chorus doctor --pingpong: pipe: %s\n", strerror(errno)), 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return fprintf(stderr, "chorus doctor --pingpong: fork: %s\n", strerror(errno)), 1;
  chorus_unique_id_t id;
  chorus_comm_t *c = NULL;
  double conn = 0, lat = 0;
  if (pid == 0) {
    close(idp[1]);
    if (read(idp[0], &id, sizeof id) != (ssize_t)sizeof id) _exit(1);
    close(idp[0]);
    if (chorus_comm_init_rank(&c, 2, id, 1) != chorus_success) {
      fprintf(stderr, "chorus doctor --pingpong: rank 1: %s\n", chorus_last_error());
      _exit(1);
    }
    chorus_result_t res = ping_pong(c, 0, 0, &conn, &lat);
    chorus_comm_destroy(c);
    _exit(res == chorus_success ? 0 : 1);
  }
  close(idp[0]);
  chorus_result_t res = chorus_get_unique_id(&id);
  if (res == chorus_success && write(idp[1], &id, sizeof id) != (ssize_t)sizeof id) res = chorus_system_error;
  close(idp[1]);
  if (res == chorus_success) res = chorus_comm_init_rank(&c, 2, id, 0);
  if (res == chorus_success) res = ping_pong(c, 1, 1, &conn, &lat);
  if (c) chorus_comm_destroy(c);
  /* The child's calls end within CHORUS_TIMEOUT of ours; then it is killed. */
  int st = 1;
  for (double end = tr_now() + (double)param_int(PARAM_TIMEOUT) + 2; waitpid(pid, &st, WNOHANG) != pid;) {
    if (tr_now() > end) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      break;
    }
    usleep(1000);
  }
  if (res != chorus_success) {
    fprintf(stderr, "chorus doctor --pingpong: %s\n", chorus_last_error());
    return 1;
  }
  printf("pingpong half-round-trip-us=%.3f connect-ms=%.3f\n", lat * 1e6, conn * 1e3);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* chorus doctor --probe: one line for the starter of --hosts (doctor_rsh.c):
 * this chorus's version, the host, and the interface and address its
 * sockets would use. */
static int doctor_probe(void) {
  char host[80] = "?", ifname[64] = "-", as[80] = "-";
  gethostname(host, sizeof host - 1);
  for (char *p = host; *p; p++)
    if (*p == ' ') *p = '_';
  net_addr_t addr;
  int ok = net_pick_addr(&addr, ifname, sizeof ifname) == chorus_success;
  if (ok) net_addr_str(&addr, as, sizeof as);
  char *port = strrchr(as, ':'); /* the port is 0: the address alone */
  if (ok && port && strchr(as, '.')) *port = 0;
  printf("chorus-doctor-probe version=%d host=%s if=%s addr=%s%s%s\n", chorus_version(), host, ok ? ifname : "-",
         ok ? as : "-", ok ? "" : " error=", ok ? "" : chorus_last_error());
  return 0;
}

/* This host's floor for small messages between hosts: chorus doctor
 * --pingpong over sockets (or shared memory), run from this process, which
 * has threads: so fork and exec, never fork alone. Seconds, or 0 with err.
 * It must end well inside CHORUS_TIMEOUT, which the other ranks wait for it
 * at most. */
static double host_floor(int sockets, char *err, size_t len) {
  char exe[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return snprintf(err, len, "cannot find this program's path"), 0;
  exe[n] = 0;
  char *argv[] = {exe, "doctor", "--pingpong", NULL};
  /* Its own communicator, not the launcher's. */
  char *env[] = {"CHORUS_SHM_DISABLE=0", "RANK",        "WORLD_SIZE",  "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                 "SLURM_PROCID",         "MASTER_ADDR", "MASTER_PORT", "CHORUS_ROOT",          NULL};
  if (sockets) env[0] = "CHORUS_SHM_DISABLE=1";
  char out[4096];
  double limit = (double)param_int(PARAM_TIMEOUT) / 2;
  int rc = doctor_run_capture(argv, env, out, sizeof out, limit < 10 ? limit : 10);
  const char *l = strstr(out, "half-round-trip-us=");
  double us = 0;
  if (rc != 0 || !l || sscanf(l, "half-round-trip-us=%lf", &us) != 1 || us <= 0) {
    out[strcspn(out, "\n")] = 0;
    snprintf(err, len, "chorus doctor --pingpong %s (%.200s)", rc == 124 ? "timed out" : "failed", out);
    return 0;
  }
  return us * 1e-6;
}

/* A hosts x hosts table; cell(i, j, buf) fills one cell, "" for none. */
static void print_matrix(int nh, const char *const *names, void (*cell)(int, int, char *, size_t, void *), void *ctx) {
  printf("    %-10s", "from \\ to");
  for (int j = 0; j < nh; j++)
    printf(" %15.15s", names[j]);
  printf("\n");
  for (int i = 0; i < nh; i++) {
    printf("    %-10.10s", names[i]);
    for (int j = 0; j < nh; j++) {
      char buf[64] = "-";
      if (i != j) cell(i, j, buf, sizeof buf, ctx);
      printf(" %15s", buf);
    }
    printf("\n");
  }
}

typedef struct {
  int nh;
  const double *meas, *pred; /* [nh * nh] */
  double scale;
  const char *fmt;
  int symmetric; /* measured at [min][max] only */
} cells_t;

static void fmt_cell(int i, int j, char *buf, size_t len, void *ctx) {
  const cells_t *t = ctx;
  int k = t->symmetric && i > j ? j * t->nh + i : i * t->nh + j;
  char m[24] = "?", p[24] = "";
  if (t->meas[k] > 0) snprintf(m, sizeof m, t->fmt, t->meas[k] * t->scale);
  if (t->pred && t->pred[k] > 0) snprintf(p, sizeof p, t->fmt, t->pred[k] * t->scale);
  snprintf(buf, len, "%s%s%s", m, p[0] ? "/" : "", p);
}

/* Rank 0's report of the measurements, with a finding for each pair that is
 * far below its prediction or far below the other pairs. */
/* The --hosts report's inputs and what it derives: measured bandwidth,
 * latency, connect time, the pairs' and hosts' floors and tries (rank 0's
 * matrix m), and the predictions. */
typedef struct {
  const hosts_opts_t *o;
  int nranks, nh;
  const int *lead;
  const rank_info_t *info;
  const char **names;
  const double *bw, *lat, *conn, *pfloor, *floor_s, *tries;
  double *pbw, *plat, *elat; /* predicted bandwidth and latency, expected latency */
  double pmin, pmax;         /* the model's latencies */
  char desc[700];            /* the cost model's topology */
  int trusted, have_cost;
} hosts_view_t;

/* The cost model's bandwidth and latency for every pair of hosts, and what
 * a small message should cost: the larger of the model's prediction and the
 * two hosts' own blocking call. The model has a link's latency and a fixed
 * cost per step, but not the hand-offs of a blocking call between the
 * caller, the executor and the socket proxy threads, whose wake-ups depend
 * on how busy the cores are at the moment; the floor measures exactly that,
 * on each host, now. A pair far above it spends the difference between the
 * hosts. */
static void hosts_predict(hosts_view_t *v, const int *host_of) {
  int nh = v->nh, nranks = v->nranks;
  const int *lead = v->lead;
  double *pbw = v->pbw, *plat = v->plat, *elat = v->elat;
  sim_cost_t *cost = hosts_cost(v->o, nranks, nh, host_of, v->desc, sizeof v->desc, &v->trusted);
  v->have_cost = cost != NULL;
  for (int a = 0; cost && a < nh; a++)
    for (int b = 0; b < nh; b++) {
      if (a == b) continue;
      double t = predict_p2p(cost, nranks, lead[a], lead[b], HOSTS_MSG);
      pbw[a * nh + b] = t > 0 ? HOSTS_MSG / t / 1e9 : 0;
      t = predict_p2p(cost, nranks, lead[a], lead[b], sizeof(int64_t));
      plat[a * nh + b] = t > 0 ? t : 0;
    }
  sim_cost_destroy(cost);
  double pmin = 0, pmax = 0;
  for (int a = 0; a < nh; a++)
    for (int b = a + 1; b < nh; b++) {
      int k = a * nh + b;
      double f = v->pfloor[k];
      elat[k] = f > 0 ? (plat[k] > f ? plat[k] : f) : 0;
      if (v->have_cost && plat[k] > 0)
        pmin = pmin && pmin < plat[k] ? pmin : plat[k], pmax = pmax > plat[k] ? pmax : plat[k];
    }
  v->pmin = pmin, v->pmax = pmax;
}

/* The matrices: bandwidth, latency (with each host's floor and the pairs
 * measured again), connect time. */
static void hosts_tables(const hosts_view_t *v) {
  int nh = v->nh;
  const char **names = v->names;
  const double *bw = v->bw, *lat = v->lat, *conn = v->conn, *floor_s = v->floor_s, *tries = v->tries;
  double pmin = v->pmin, pmax = v->pmax;
  printf("\npoint to point between hosts, one rank each (measured/predicted; predicted by the cost model on %s):\n",
         v->desc);
  printf("  bandwidth, GB/s, of 4 MiB messages (a row sends to a column):\n");
  print_matrix(nh, names, fmt_cell, &(cells_t){nh, bw, v->have_cost ? v->pbw : NULL, 1, "%.3f", 0});
  printf("  latency, us, half a round trip of 8 bytes (measured/expected: the larger of the model's prediction and "
         "the two hosts' own blocking call):\n");
  print_matrix(nh, names, fmt_cell, &(cells_t){nh, lat, v->elat, 1e6, "%.0f", 1});
  printf("    each host's own blocking call (8 bytes between 2 local processes over sockets, no network), us:");
  for (int h = 0; h < nh; h++)
    printf(floor_s[h] > 0 ? " %s %.0f" : " %s ?", names[h], floor_s[h] * 1e6);
  int again = 0;
  for (int a = 0; a < nh; a++)
    for (int b = a + 1; b < nh; b++)
      if (tries[a * nh + b] > 1) {
        printf(again++ ? ", %s <-> %s %.0f times"
                       : "\n    measured again, floors and pair, as the first looked slow: %s <-> %s %.0f times",
               names[a], names[b], tries[a * nh + b]);
      }
  if (pmax > pmin + 0.05e-6)
    printf("\n    the cost model predicts %.1f-%.1f us (link latency and a fixed cost per step)", pmin * 1e6,
           pmax * 1e6);
  else if (pmax > 0)
    printf("\n    the cost model predicts %.1f us (link latency and a fixed cost per step)", pmax * 1e6);
  printf("\n");
  printf("  connecting, ms: the first round trip, which opens both directions:\n");
  print_matrix(nh, names, fmt_cell, &(cells_t){nh, conn, NULL, 1e3, "%.1f", 1});

}

/* A pair far below its prediction, or under half the median pair, is a
 * problem; where every transfer from (or to) one host is slow, that host's
 * side is named. */
static void hosts_judge_bandwidth(const hosts_view_t *v, int *slow, double *sorted) {
  const hosts_opts_t *o = v->o;
  int nh = v->nh, trusted = v->trusted;
  const int *lead = v->lead;
  const rank_info_t *info = v->info;
  const char **names = v->names;
  const double *bw = v->bw, *pbw = v->pbw;
  double median = 0;
  int *out_slow = slow + nh * nh, *in_slow = out_slow + nh;
  /* The median pair: a pair far below the others is wrong whatever the model says. */
  int n = 0;
  for (int k = 0; k < nh * nh; k++)
    if (bw[k] > 0) sorted[n++] = bw[k];
  qsort(sorted, (size_t)n, sizeof sorted[0], cmp_double);
  if (n) median = sorted[n / 2];
  for (int a = 0; a < nh; a++)
    for (int b = 0; b < nh; b++) {
      int k = a * nh + b;
      double gap = pbw[k] > 0 ? (bw[k] - pbw[k]) / pbw[k] * 100 : 0;
      slow[k] = a != b && ((pbw[k] > 0 && gap < -o->tolerance && trusted) || (n > 2 && bw[k] < median / 2));
      out_slow[a] += slow[k], in_slow[b] += slow[k];
    }
  for (int a = 0; a < nh; a++)
    for (int b = 0; b < nh; b++) {
      int k = a * nh + b;
      if (a == b || bw[k] <= 0) continue;
      double gap = pbw[k] > 0 ? (bw[k] - pbw[k]) / pbw[k] * 100 : 0;
      char where[300] = "";
      if (out_slow[a] == nh - 1 && (nh > 2 || !in_slow[a]))
        snprintf(where, sizeof where,
                 " Every transfer from host %d is slow: look first at its sending side "
                 "(egress shaping on %s, its NIC).",
                 a, info[lead[a]].ifname);
      else if (in_slow[b] == nh - 1 && nh > 2)
        snprintf(where, sizeof where,
                 " Every transfer to host %d is slow: look first at its receiving side "
                 "(%s, its NIC).",
                 b, info[lead[b]].ifname);
      char what[600];
      int named = strcmp(names[0], "host 0") != 0;
      snprintf(what, sizeof what, "host %d (%s%s%s %s) -> host %d (%s%s%s %s): %.3f GB/s", a, named ? names[a] : "",
               named ? ", " : "", info[lead[a]].ifname, info[lead[a]].addr, b, named ? names[b] : "", named ? ", " : "",
               info[lead[b]].ifname, info[lead[b]].addr, bw[k]);
      const char *advice = "Check that link: its speed (ethtool), shaping or policing (tc qdisc show), errors and "
                           "other traffic (ip -s link), and that sockets use the intended interface "
                           "(CHORUS_SOCKET_IFNAME)";
      if (slow[k] && pbw[k] > 0 && gap < -o->tolerance && trusted)
        finding(1,
                "%s, %.0f%% below the predicted %.3f GB/s.%s %s; if the links really are this fast, describe "
                "them (chorus calibrate) and pass that topology with --topo",
                what, -gap, pbw[k], where, advice);
      else if (slow[k])
        finding(1, "%s, under half the median pair's %.3f GB/s.%s %s", what, median, where, advice);
      else if (pbw[k] > 0 && gap < -o->tolerance)
        finding(0,
                "%s, %.0f%% below the %.3f GB/s the default %s predicts: it assumes its default link rate; "
                "give the real one (--set rate=25Gb/s) or a calibrated topology (--topo)",
                what, -gap, pbw[k], v->desc);
    }
}

/* A pair whose latency is far above what its hosts' own calls cost. */
static void hosts_judge_latency(const hosts_view_t *v) {
  int nh = v->nh;
  const int *lead = v->lead;
  const rank_info_t *info = v->info;
  const char **names = v->names;
  const double *lat = v->lat, *floor_s = v->floor_s, *tries = v->tries, *plat = v->plat, *elat = v->elat;
  for (int a = 0; a < nh; a++)
    for (int b = a + 1; b < nh; b++) {
      int k = a * nh + b;
      if (elat[k] <= 0 || lat[k] <= 0 || lat[k] < HOSTS_LAT_FACTOR * elat[k] || lat[k] - elat[k] < HOSTS_LAT_EXCESS_S)
        continue;
      finding(1,
              "host %d (%s, %s) <-> host %d (%s, %s): latency %.0f us, %.1fx the %.0f us expected (the cost model "
              "says %.0f us; a blocking call costs host %d %.0f us and host %d %.0f us with no network; the best "
              "of %.0f measurement%s): the path between them adds %.0f us. Look for a slow path: the route (ip "
              "route get %s, traceroute), a shaping, policing or delay rule (tc qdisc show, tc filter show), "
              "packet loss and retransmissions (ss -ti, nstat -az TcpRetransSegs), interrupt moderation (ethtool "
              "-c), or a firewall or proxy in between; collectives of small messages pay it at every step",
              a, names[a], info[lead[a]].addr, b, names[b], info[lead[b]].addr, lat[k] * 1e6, lat[k] / elat[k],
              elat[k] * 1e6, plat[k] * 1e6, a, floor_s[a] * 1e6, b, floor_s[b] * 1e6, tries[k],
              tries[k] == 1 ? "" : "s", (lat[k] - elat[k]) * 1e6, info[lead[b]].addr);
    }
}

/* A pair that took more than a second to connect. */
static void hosts_judge_connect(const hosts_view_t *v) {
  int nh = v->nh;
  const double *conn = v->conn;
  for (int a = 0; a < nh; a++)
    for (int b = a + 1; b < nh; b++)
      if (conn[a * nh + b] > 1.0)
        finding(0,
                "connecting host %d and host %d took %.1f s: look for slow name resolution, a firewall dropping "
                "the first packets (retries), or a loaded host",
                a, b, conn[a * nh + b]);
}

static void hosts_report(const hosts_opts_t *o, int nranks, int nh, const int *lead, const rank_info_t *info,
                         const double *m) {
  hosts_view_t v = {.o = o, .nranks = nranks, .nh = nh, .lead = lead, .info = info, .bw = m, .lat = m + nh * nh,
                    .conn = m + 2 * nh * nh, .pfloor = m + 3 * nh * nh, .floor_s = m + 4 * nh * nh};
  v.tries = v.floor_s + nh;
  double *pred = calloc((size_t)nh * nh * 3, sizeof *pred); /* pbw, plat, elat */
  double *sorted = calloc((size_t)nh * nh, sizeof *sorted);
  int *host_of = calloc((size_t)nranks, sizeof *host_of);
  const char **names = calloc((size_t)nh, sizeof *names);
  char(*labels)[24] = calloc((size_t)nh, sizeof *labels);
  int *slow = calloc((size_t)nh * nh + 2 * (size_t)nh, sizeof *slow);
  if (!pred || !sorted || !host_of || !names || !labels || !slow) {
    finding(1, "out of memory for the report of %d hosts", nh);
  } else {
    v.pbw = pred, v.plat = pred + nh * nh, v.elat = pred + 2 * nh * nh, v.names = names;
    for (int r = 0; r < nranks; r++)
      for (int h = 0; h < nh; h++)
        if (!strcmp(info[r].hostid, info[lead[h]].hostid)) host_of[r] = h;
    for (int h = 0; h < nh; h++) {
      char name[128];
      if (!o->hosts || list_item(o->hosts, h, name, sizeof name) != nh) snprintf(name, sizeof name, "host %d", h);
      snprintf(labels[h], sizeof labels[h], "%.23s", name);
      names[h] = labels[h];
    }
    hosts_predict(&v, host_of);
    hosts_tables(&v);
    hosts_judge_bandwidth(&v, slow, sorted);
    hosts_judge_latency(&v);
    hosts_judge_connect(&v);
  }
  free(pred);
  free(sorted);
  free(host_of);
  free(names);
  free(labels);
  free(slow);
}

/* The self-test's latency: the blocking call between 2 local processes,
 * over shared memory and over sockets, shown beside the model's shared
 * memory step. Not judged: on one host nothing but the load sits between
 * them, and the load is what moves it (BENCHMARKS.md, "chorus doctor:
 * latency"). */
static void self_test_latency(const char *topo) {
  char err[2][512];
  double shm = host_floor(0, err[0], sizeof err[0]), sock = host_floor(1, err[1], sizeof err[1]), pred = -1;
  sim_cost_t *cost;
  char cerr[1024];
  if (sim_cost_create(&cost, topo, "", (size_t)param_int(PARAM_BUFFSIZE), cerr, sizeof cerr) == chorus_success) {
    if (sim_cost_nranks(cost) >= 2) pred = predict_p2p(cost, 2, 0, 1, sizeof(int64_t));
    sim_cost_destroy(cost);
  }
  printf("  8-byte blocking send/recv, half a round trip between 2 local processes (the floor of small "
         "messages):\n");
  if (shm > 0) printf("    shared memory %7.1f us%s", shm * 1e6, pred > 0 ? "" : "\n");
  if (shm > 0 && pred > 0) printf(" (the model's step on %s: %.1f us)\n", topo, pred * 1e6);
  if (sock > 0)
    printf("    sockets       %7.1f us (the engine's proxy-thread hand-offs; a pair of hosts pays them too)\n",
           sock * 1e6);
  for (int t = 0; t < 2; t++)
    if ((t ? sock : shm) <= 0)
      finding(0, "the %s latency self-test failed: %s", t ? "sockets" : "shared memory", err[t]);
}

/* Host h's floor, measured by its lead (lead_h) while the other ranks wait;
 * every rank gets it in *out (0 when it could not be measured). */
static chorus_result_t shared_floor(chorus_comm_t *c, int rank, int lead_h, int h, double *out) {
  double mine = 0;
  if (rank == lead_h) {
    char err[512];
    mine = host_floor(1, err, sizeof err);
    if (mine <= 0)
      finding(0, "host %d's own blocking call could not be measured: %s; its latencies are shown, not judged", h,
              err);
  }
  return chorus_run_allreduce(&mine, out, 1, chorus_float64, chorus_sum, c, NULL);
}

/* The hosts of the job: rank 0 prints the per-rank table; one rank per host
 * measures every pair, one pair at a time (a barrier between pairs, so that
 * no two transfers share a link and every wait stays far below
 * CHORUS_TIMEOUT); rank 0 prints the matrices. */
/* Rank 0: the ranks, their hosts and interfaces, and what the interfaces
 * say (loopback across hosts, hosts on different interfaces). */
static void hosts_list(const hosts_opts_t *o, const rank_info_t *info, const int *lead, int nranks, int nh,
                       double first_s) {
  double slowest = 0;
  for (int r = 0; r < nranks; r++)
    slowest = info[r].join_s > slowest ? info[r].join_s : slowest;
  printf("  %d ranks on %d host%s joined in %.3f s (the slowest rank's wait), the first collective in "
         "%.3f s\n  %-5s %-5s %-20s %-10s %-24s %-8s %s\n",
         nranks, nh, nh == 1 ? "" : "s", slowest, first_s, "rank", "host", "name", "interface", "address", "pid",
         "joined after");
  for (int r = 0; r < nranks; r++) {
    int h = 0;
    while (h < nh && strcmp(info[lead[h]].hostid, info[r].hostid))
      h++;
    char name[128];
    if (!o->hosts || list_item(o->hosts, h, name, sizeof name) != nh) snprintf(name, sizeof name, "%s", info[r].name);
    printf("  %-5d %-5d %-20.20s %-10s %-24s %-8d %.3f s\n", r, h, name, info[r].ifname, info[r].addr, info[r].pid,
           info[r].join_s);
  }
  for (int r = 0; r < nranks && nh > 1; r++)
    if (!strncmp(info[r].ifname, "lo", 2))
      finding(1,
              "rank %d uses the loopback interface (%s) while the job spans %d hosts: the others reach it "
              "only by luck; set CHORUS_SOCKET_IFNAME to the interface the hosts share",
              r, info[r].addr, nh);
  for (int h = 1; h < nh; h++)
    if (strcmp(info[lead[h]].ifname, info[lead[0]].ifname)) {
      finding(0,
              "the hosts use different interfaces (host 0 %s, host %d %s): fine when they are one network; "
              "otherwise name it with CHORUS_SOCKET_IFNAME",
              info[lead[0]].ifname, h, info[lead[h]].ifname);
      break;
    }
}

/* Hosts a and b (their lead ranks): bandwidth, connect time and latency,
 * into rank 0's m. 0 when measured, 1 when a rank failed (its finding is
 * made), -1 when this rank lost the others. */
static int measure_pair(chorus_comm_t *c, int rank, int a, int b, int nh, const int *lead, const rank_info_t *info,
                        char *big, const double *floors, double *m) {
  int side = rank == lead[a] ? 1 : rank == lead[b] ? 2 : 0, k = a * nh + b;
  /* [0] anyone failed, [1] the pair's latency (side 1) */
  double mv[2] = {0, 0}, av[2];
  if (side) {
    double conn = 0, lat = 0, gbps = 0;
    chorus_result_t res = p2p_pair(c, side == 1, side == 1 ? lead[b] : lead[a], big, &conn, &lat, &gbps);
    if (res != chorus_success) {
      mv[0] = 1;
      finding(1,
              "measuring between host %d (rank %d, %s) and host %d (rank %d, %s) failed: %s. Check that "
              "the two reach each other (ping the address), a firewall, and CHORUS_SOCKET_IFNAME",
              a, lead[a], info[lead[a]].addr, b, lead[b], info[lead[b]].addr, chorus_last_error());
    } else if (side == 1) {
      m[k] = gbps, m[2 * nh * nh + k] = conn, mv[1] = lat;
    } else {
      m[b * nh + a] = gbps;
    }
  }
  if (chorus_run_allreduce(mv, av, 2, chorus_float64, chorus_sum, c, NULL) != chorus_success) return -1;
  if (av[0] > 0) return 1;
  /* A latency far above the two floors is measured again, floors and
   * pair, up to HOSTS_LAT_TRIES times: a delay on the path stays, a busy
   * moment of a loaded machine passes. The pair keeps its best latency
   * and the highest floors, so a problem is one every measurement saw. */
  double lat = av[1], pf = floors[a] > 0 && floors[b] > 0 ? (floors[a] + floors[b]) / 2 : 0;
  int tries = 1;
  while (pf > 0 && lat > HOSTS_LAT_FACTOR * pf + HOSTS_LAT_EXCESS_S && tries < HOSTS_LAT_TRIES) {
    double fa, fb;
    tries++;
    if (shared_floor(c, rank, lead[a], a, &fa) != chorus_success ||
        shared_floor(c, rank, lead[b], b, &fb) != chorus_success)
      return -1;
    if (fa > 0 && fb > 0 && (fa + fb) / 2 > pf) pf = (fa + fb) / 2;
    mv[0] = mv[1] = 0;
    if (side) {
      double conn, again = 0;
      chorus_result_t res = ping_pong(c, side == 1, side == 1 ? lead[b] : lead[a], &conn, &again);
      if (res != chorus_success) {
        mv[0] = 1;
        finding(1, "measuring the latency between host %d and host %d again failed: %s", a, b,
                chorus_last_error());
      } else if (side == 1) {
        mv[1] = again;
      }
    }
    if (chorus_run_allreduce(mv, av, 2, chorus_float64, chorus_sum, c, NULL) != chorus_success) return -1;
    if (av[0] > 0) return 1;
    if (av[1] < lat) lat = av[1];
  }
  if (rank == 0) m[nh * nh + k] = lat, m[3 * nh * nh + k] = pf, m[4 * nh * nh + nh + k] = tries;
  return 0;
}

static void hosts_check(const hosts_opts_t *o, chorus_comm_t *c, int rank, int nranks, rank_info_t *mine) {
  rank_info_t *info = calloc((size_t)nranks, sizeof *info);
  int *lead = calloc((size_t)nranks, sizeof *lead), nh = 0;
  char *big = malloc(HOSTS_MSG);
  double *m = NULL, *sum = NULL, *floors = NULL;
  if (!info || !lead || !big) {
    finding(1, "out of memory for %d ranks", nranks);
    goto cleanup;
  }
  memset(big, 0x5a, HOSTS_MSG);
  double t = tr_now();
  chorus_result_t res = chorus_run_allgather(mine, info, sizeof *mine, chorus_uint8, c, NULL);
  double first_s = tr_now() - t;
  if (res != chorus_success) {
    finding(1,
            "the first collective (an allgather of what each rank knows) failed: %s. Every rank joined, so "
            "the connections between them fail: check that each host reaches the others' addresses below "
            "(firewall, routes) and CHORUS_SOCKET_IFNAME",
            chorus_last_error());
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++) {
    int h = 0;
    while (h < nh && strcmp(info[lead[h]].hostid, info[r].hostid))
      h++;
    if (h == nh) lead[nh++] = r;
  }
  if (rank == 0) hosts_list(o, info, lead, nranks, nh, first_s);
  if (nh < 2) {
    if (rank == 0) finding(0, "every rank is on one host: there are no pairs of hosts to measure");
    goto cleanup;
  }
  /* Measures: bandwidth, latency, connection time and the floor a pair's
   * latency is judged against (nh x nh each), each host's floor (nh), and
   * how many times each pair's latency was measured (nh x nh). Rank 0 holds
   * what every rank knows; the others add what only they measured. */
  size_t nm = (size_t)nh * nh * 5 + (size_t)nh; /* bw, lat, conn, pf, floors, tries */
  m = calloc(nm, sizeof *m);
  sum = calloc(nm, sizeof *sum);
  floors = calloc((size_t)nh, sizeof *floors);
  if (!m || !sum || !floors) {
    finding(1, "out of memory for %d hosts", nh);
    goto cleanup;
  }
  t = tr_now();
  for (int h = 0; h < nh; h++)
    if ((res = shared_floor(c, rank, lead[h], h, &floors[h])) != chorus_success) goto lost;
  if (rank == 0)
    for (int h = 0; h < nh; h++)
      m[4 * nh * nh + h] = floors[h];
  for (int a = 0; a < nh; a++)
    for (int b = a + 1; b < nh; b++) {
      int r = measure_pair(c, rank, a, b, nh, lead, info, big, floors, m);
      if (r < 0) goto lost;
      if (r > 0) goto cleanup;
    }
  res = chorus_run_allreduce(m, sum, nm, chorus_float64, chorus_sum, c, NULL);
  if (res != chorus_success) {
    finding(1, "collecting the measurements failed: %s", chorus_last_error());
    goto cleanup;
  }
  if (rank == 0) {
    printf("\nmeasured %d host%s and %d pair%s of hosts in %.1f s\n", nh, nh == 1 ? "" : "s", nh * (nh - 1) / 2,
           nh == 2 ? "" : "s", tr_now() - t);
    hosts_report(o, nranks, nh, lead, info, sum);
  }
  goto cleanup;
lost:
  finding(1, "rank %d lost the others while measuring the hosts: %s", rank, chorus_last_error());
cleanup:
  free(floors);
  free(info);
  free(lead);
  free(big);
  free(m);
  free(sum);
}

static void print_library(void) {
  int v = chorus_version();
  Dl_info info = {0};
  dladdr((void *)&cmd_doctor, &info);
  printf("chorus %d.%d.%d, kernels %s, library %s\n", v / 10000, v / 100 % 100, v % 100, kern_isa(),
         info.dli_fname ? info.dli_fname : "?");
  char runtime[320];
  tune_runtime_versions(runtime, sizeof runtime);
  printf("running with %s\n", runtime);
  printf("algorithm scripts: %s\n", planner_algos_dir());
}

/* chorus doctor under a launcher: every rank joins; rank 0 also checks its
 * own host, prints the tables and the verdict, which every rank exits with. */
static int doctor_hosts(const hosts_opts_t *o, int rank, int nranks) {
  rank_info_t mine = {.pid = (int32_t)getpid()};
  gethostname(mine.name, sizeof mine.name - 1);
  boot_host_id(mine.hostid, sizeof mine.hostid);
  net_addr_t addr;
  if (net_pick_addr(&addr, mine.ifname, sizeof mine.ifname) == chorus_success)
    net_addr_str(&addr, mine.addr, sizeof mine.addr);
  char *port = strrchr(mine.addr, ':'); /* the address is what matters, not a port */
  if (port && strchr(mine.addr, '.')) *port = 0;
  if (rank != 0) snprintf(who, sizeof who, "rank %d (%s %s): ", rank, mine.name, mine.addr);
  chorus_comm_t *c = NULL;
  double t = tr_now();
  chorus_result_t res = chorus_comm_init_env(&c);
  mine.join_s = tr_now() - t;
  if (rank == 0) {
    print_library();
    check_settings();
    check_host();
    check_interfaces();
    check_memory();
    printf("\nhosts: %d ranks from the launcher, joining through ", nranks);
    char root[300];
    root_str(root, sizeof root);
    printf("%s (CHORUS_TIMEOUT %ld s)\n", root, param_int(PARAM_TIMEOUT));
  }
  int32_t mine_p, all_p = 0;
  if (res != chorus_success) {
    join_failed(nranks, o);
  } else {
    hosts_check(o, c, rank, nranks, &mine);
    mine_p = problems;
    /* One verdict for every rank, so that a launcher's exit status is rank 0's. */
    if (chorus_run_allreduce(&mine_p, &all_p, 1, chorus_int32, chorus_sum, c, NULL) != chorus_success) all_p = 1;
    chorus_comm_destroy(c);
  }
  if (rank == 0 || problems)
    printf("\n%s%d problem%s, %d note%s\n", who, problems, problems == 1 ? "" : "s", notes, notes == 1 ? "" : "s");
  return problems || all_p ? 1 : 0;
}

int cmd_doctor(int argc, char **argv) {
  /* The self-test's prediction: --topo, else CHORUS_TOPO (a calibration the
   * user keeps there), else the shipped local topology. */
  const char *topo = param_str(PARAM_TOPO)[0] ? param_str(PARAM_TOPO) : "local-cpu";
  int selftest = 1, calibrated = param_str(PARAM_TOPO)[0] != 0, local = 0;
  hosts_opts_t ho = {.tolerance = 20};
  doctor_rsh_opts_t ro = {.rsh = NULL};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: chorus doctor [--topo FILE] [--no-selftest]\n"
             "       LAUNCHER chorus doctor [--topo FILE] [--set K=V,..] [--hosts H0,H1,..] [--tolerance PCT]\n"
             "       chorus doctor --hosts H0,H1,.. [--rsh CMD] [--chorus PATH] [--topo FILE] [--set K=V,..]\n"
             "                     [--tolerance PCT]\n\n"
             "Lists the library, every CHORUS_* setting, the host, the network interfaces and the one\n"
             "sockets would use, the memory buffers take, and runs a 2-rank allreduce over shared memory\n"
             "and sockets beside the prediction on FILE (default the shipped local-cpu topology; give\n"
             "a calibrated one from chorus calibrate). Each finding comes with advice; exit 1 when one\n"
             "is a problem.\n\n"
             "Under a launcher of 2 or more ranks (mpirun, srun, torchrun-style RANK/WORLD_SIZE/MASTER_ADDR)\n"
             "it checks the hosts instead: every rank joins one communicator within CHORUS_TIMEOUT (a rank\n"
             "that never joins is named, with the host it was expected from), then one rank per host\n"
             "measures its own blocking call (8 bytes between two local processes over sockets), and the\n"
             "connection time, latency and 4 MiB bandwidth to every other host, one pair at a time; rank 0\n"
             "prints hosts x hosts tables beside the cost model's prediction: on --topo FILE, else\n"
             "CHORUS_TOPO, else the namespace-testbed topology netns with hosts=H,ppn=P (--set adds to its\n"
             "parameters: --set rate=10Gb/s). A pair more than PCT percent (default 20) below a predicted\n"
             "bandwidth you gave (--topo, --set or CHORUS_TOPO), or under half the median pair, is a\n"
             "problem; so is a latency 3x and 200 us above the larger of the model's and the two hosts'\n"
             "own blocking call. --hosts names the hosts in rank order. --local checks only this host.\n\n"
             "With --hosts and no launcher, the doctor starts itself on every host through the remote\n"
             "shell CMD (--rsh, else CHORUS_RSH, default 'ssh -o BatchMode=yes'; its words, then the host,\n"
             "then the command: 'ip netns exec' makes network namespaces the hosts): first a probe of each\n"
             "host (a host that does not answer within CHORUS_TIMEOUT, whose shell fails, or that has no\n"
             "chorus at PATH -- --chorus, default this program's path -- is named), then one rank per host\n"
             "that answered with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT/CHORUS_SECRET and this\n"
             "environment's CHORUS_* settings; it prints rank 0's report and every other rank's findings,\n"
             "kills the remote shells it started that outlive their deadline, and exits 1 when something\n"
             "is wrong. (--probe and --pingpong are the parts it runs on the hosts.)\n");
      return 0;
    } else if (!strcmp(argv[i], "--topo") && i + 1 < argc) {
      topo = argv[++i];
      ho.topo = topo;
      calibrated = 1; /* the user's own description of this machine: a gap is a problem */
    } else if (!strcmp(argv[i], "--no-selftest")) {
      selftest = 0;
    } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
      ho.sets = argv[++i];
    } else if (!strcmp(argv[i], "--hosts") && i + 1 < argc) {
      ho.hosts = argv[++i];
    } else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
      char *end;
      ro.tolerance = argv[++i];
      ho.tolerance = strtod(argv[i], &end);
      if (*end || ho.tolerance <= 0 || ho.tolerance >= 100) {
        fprintf(stderr, "chorus doctor: --tolerance '%s': expected a percentage between 0 and 100\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--local")) {
      local = 1;
    } else if (!strcmp(argv[i], "--rsh") && i + 1 < argc) {
      ro.rsh = argv[++i];
    } else if (!strcmp(argv[i], "--chorus") && i + 1 < argc) {
      ro.chorus = argv[++i];
    } else if (!strcmp(argv[i], "--probe")) {
      return doctor_probe();
    } else if (!strcmp(argv[i], "--pingpong")) {
      return doctor_pingpong();
    } else {
      fprintf(stderr, "chorus doctor: unknown argument '%s' (chorus doctor --help)\n", argv[i]);
      return 2;
    }
  }
  problems = notes = 0;
  who[0] = 0;
  int rank = 0, world = local ? 0 : launcher_size(&rank);
  if (world >= 2) return doctor_hosts(&ho, rank, world);
  if (ho.hosts && !local) {
    /* No launcher: this doctor starts the others through the remote shell. */
    ro.hosts = ho.hosts, ro.topo = ho.topo, ro.sets = ho.sets;
    if (!ro.rsh) ro.rsh = param_str(PARAM_RSH);
    print_library();
    return doctor_rsh(&ro);
  }
  print_library();
  check_settings();
  check_host();
  check_interfaces();
  check_memory();
  if (selftest) self_test(topo, calibrated), self_test_latency(topo);
  printf("\n%d problem%s, %d note%s\n", problems, problems == 1 ? "" : "s", notes, notes == 1 ? "" : "s");
  return problems ? 1 : 0;
}
