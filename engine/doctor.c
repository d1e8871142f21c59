/* doctor.c -- `chorus doctor`: what the engine finds on this host, and what
 * looks wrong, each finding with plain advice. Sections: the library and
 * its build, the settings (which are set, which are risky or contradict
 * each other), the host (CPUs, NUMA nodes, identity), the network
 * interfaces and the one sockets would use, the memory the buffers take,
 * and a self-test: a 2-rank ring allreduce over shared memory and over
 * sockets, run as `chorus perf` children and set beside `chorus sim` on the
 * local topology (a calibrated one with --topo). Exit 1 when a finding is a
 * problem (not only a note). */
#define _GNU_SOURCE /* dladdr */
#include "doctor.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap.h"
#include "chorus.h"
#include "kernels.h"
#include "params.h"
#include "planner.h"
#include "transport/net.h"
#include "tune.h"

static int problems, notes;

static void finding(int problem, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finding(int problem, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("  %s ", problem ? "PROBLEM:" : "note:   ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (problem) problems++;
  else notes++;
}

static int env_set(const char *name) { return getenv(name) != NULL; }

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
  if (nch > 0 && env_set("CHORUS_ALGO") && !strcmp(param_str(PARAM_ALGO), "rd"))
    finding(0, "CHORUS_ALGO=rd with CHORUS_NCHANNELS=%ld: recursive doubling is latency-bound; channels add "
            "threads, not bandwidth", nch);
  const char *algo = param_str(PARAM_ALGO);
  if (algo[0]) {
    char path[1024], err[1024];
    if (planner_resolve(algo, planner_algos_dir(), path, sizeof path, err, sizeof err) != 0)
      finding(1, "CHORUS_ALGO=%s: %s; every collective would fail", algo, err);
  }
  if (tune_check_settings() != chorus_success) finding(1, "%s; every communicator would fail", chorus_last_error());
  if (env_set("CHORUS_ALGOS") && access(param_str(PARAM_ALGOS), R_OK) != 0)
    finding(1, "CHORUS_ALGOS=%s is not a readable folder; the planner finds no scripts", param_str(PARAM_ALGOS));
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

/* Run argv, capturing its stdout into out; returns the exit status. */
static int run_capture(char *const argv[], char *const env[], char *out, size_t len) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    for (int i = 0; env && env[i]; i++) putenv(env[i]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fd[1]);
  size_t n = 0;
  ssize_t k;
  while ((k = read(fd[0], out + n, len - 1 - n)) > 0 && n + (size_t)k < len - 1) n += (size_t)k;
  out[n] = 0;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* busbw of the first data row of chorus perf / sim output (column 8). */
static double first_busbw(const char *text) {
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (*l == '#' || *l == '\n') continue;
    double v[8];
    if (sscanf(l, "%lf %lf %*s %*s %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6) return v[5];
  }
  return -1;
}

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
  int rc = run_capture(sim, NULL, out, sizeof out);
  double pred = rc == 0 ? first_busbw(out) : -1;
  if (pred <= 0) {
    finding(1, "chorus sim --topo %s failed (exit %d): %.200s", topo, rc, out);
    return;
  }
  const char *names[] = {"shared memory", "sockets (CHORUS_SHM_DISABLE=1)"};
  char *envs[2][2] = {{NULL, NULL}, {"CHORUS_SHM_DISABLE=1", NULL}};
  for (int t = 0; t < 2; t++) {
    rc = run_capture(perf, envs[t], out, sizeof out);
    double meas = rc == 0 ? first_busbw(out) : -1;
    if (rc != 0 || meas <= 0) {
      finding(1, "the %s self-test failed (exit %d): %.300s", names[t], rc, out);
      continue;
    }
    if (t == 1) {
      printf("  %-32s measured %7.2f GB/s busbw\n", names[t], meas);
      continue;
    }
    double gap = (meas - pred) / pred * 100;
    printf("  %-32s measured %7.2f GB/s busbw, predicted %7.2f (%+.0f%%)\n", names[t], meas, pred, gap);
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

int cmd_doctor(int argc, char **argv) {
  const char *topo = "local-cpu";
  int selftest = 1, calibrated = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: chorus doctor [--topo FILE] [--no-selftest]\n\n"
             "Lists the library, every CHORUS_* setting, the host, the network interfaces and the one\n"
             "sockets would use, the memory buffers take, and runs a 2-rank allreduce over shared memory\n"
             "and sockets beside the prediction on FILE (default the shipped local-cpu topology; give\n"
             "a calibrated one from chorus calibrate). Each finding comes with advice; exit 1 when one\n"
             "is a problem.\n");
      return 0;
    } else if (!strcmp(argv[i], "--topo") && i + 1 < argc) {
      topo = argv[++i];
      calibrated = 1; /* the user's own description of this machine: a gap is a problem */
    } else if (!strcmp(argv[i], "--no-selftest")) {
      selftest = 0;
    } else {
      fprintf(stderr, "chorus doctor: unknown argument '%s' (chorus doctor --help)\n", argv[i]);
      return 2;
    }
  }
  problems = notes = 0;
  int v = chorus_version();
  Dl_info info = {0};
  dladdr((void *)&cmd_doctor, &info);
  printf("chorus %d.%d.%d, kernels %s, library %s\n", v / 10000, v / 100 % 100, v % 100, kern_isa(),
         info.dli_fname ? info.dli_fname : "?");
  printf("algorithm scripts: %s\n", planner_algos_dir());
  check_settings();
  check_host();
  check_interfaces();
  check_memory();
  if (selftest) self_test(topo, calibrated);
  printf("\n%d problem%s, %d note%s\n", problems, problems == 1 ? "" : "s", notes, notes == 1 ? "" : "s");
  return problems ? 1 : 0;
}
