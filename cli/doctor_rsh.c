/* doctor_rsh.c -- the processes `chorus doctor` starts, each under a
 * deadline (doctor_rsh.h), and `chorus doctor --hosts LIST` without a
 * launcher: the doctor becomes the launcher, as mpirun's rsh agent does. It
 * first probes every host through the remote shell (`RSH HOST chorus doctor
 * --probe`: does the shell get there, is chorus there, which address will
 * the host use), names each host that fails with the likely cause, then
 * starts one doctor rank per host that answered, rank 0 on the first, whose
 * probed address is the bootstrap root. */
#define _GNU_SOURCE /* execvpe */
#include "doctor_rsh.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chorus.h"
#include "doctor.h"
#include "params.h"
#include "transport/transport.h"

extern char **environ;

#define RSH_MAX_HOSTS 256
#define RSH_MAX_WORDS 32
#define RSH_OUT_CAP ((size_t)1 << 20)

/* environ with env applied ("NAME=VALUE" set, bare "NAME" removed), built
 * before fork: a child of a process with threads may not allocate. */
static char **child_environ(char *const env[]) {
  size_t n = 0, k = 0;
  while (environ[n])
    n++;
  for (size_t i = 0; env && env[i]; i++)
    n++;
  char **out = calloc(n + 1, sizeof *out);
  if (!out) return NULL;
  for (size_t i = 0; environ[i]; i++) {
    size_t len = strcspn(environ[i], "=");
    int replaced = 0;
    for (size_t j = 0; env && env[j] && !replaced; j++)
      replaced = strcspn(env[j], "=") == len && !strncmp(env[j], environ[i], len);
    if (!replaced) out[k++] = environ[i];
  }
  for (size_t j = 0; env && env[j]; j++)
    if (strchr(env[j], '=')) out[k++] = env[j];
  return out;
}

void doctor_child_start(doctor_child_t *ch, char *const argv[], char *const env[], size_t cap) {
  *ch = (doctor_child_t){.fd = -1, .status = -1, .cap = cap < 2 ? 2 : cap};
  ch->out = calloc(ch->cap, 1);
  if (!ch->out) return;
  char **envp = child_environ(env);
  int fd[2];
  if (!envp || pipe(fd) != 0) {
    snprintf(ch->out, ch->cap, "%s", envp ? strerror(errno) : "out of memory");
    free(envp);
    return;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(ch->out, ch->cap, "fork: %s", strerror(errno));
    close(fd[0]), close(fd[1]);
    free(envp);
    return;
  }
  if (pid == 0) {
    /* Only async-signal-safe calls from here to exec. */
    setpgid(0, 0); /* its own group: a deadline kills it and what it started, nothing else */
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execvpe(argv[0], argv, envp);
    static const char pre[] = "cannot run ", post[] = ": not found, or not executable\n";
    if (write(2, pre, sizeof pre - 1) < 0 || write(2, argv[0], strlen(argv[0])) < 0 ||
        write(2, post, sizeof post - 1) < 0)
      _exit(127);
    _exit(127);
  }
  free(envp);
  setpgid(pid, pid); /* also here, so that the group exists before any kill */
  close(fd[1]);
  fcntl(fd[0], F_SETFL, O_NONBLOCK);
  ch->pid = pid, ch->fd = fd[0], ch->running = 1;
}

/* Read what ch's pipe holds now; close it at end of file. */
static void child_drain(doctor_child_t *ch) {
  char buf[4096];
  for (;;) {
    ssize_t k = read(ch->fd, buf, sizeof buf);
    if (k > 0) {
      size_t keep = ch->cap - 1 - ch->len;
      if ((size_t)k < keep) keep = (size_t)k;
      memcpy(ch->out + ch->len, buf, keep);
      ch->len += keep;
      ch->out[ch->len] = 0;
      continue;
    }
    if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
      close(ch->fd);
      ch->fd = -1;
    }
    return;
  }
}

static void child_reaped(doctor_child_t *ch, int st) {
  ch->running = 0;
  ch->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

void doctor_children_wait(doctor_child_t *ch, int n, double timeout_s) {
  double end = tr_now() + timeout_s;
  struct pollfd *p = calloc((size_t)n, sizeof *p);
  for (;;) {
    int left = 0, nfd = 0;
    for (int i = 0; i < n; i++) {
      if (ch[i].running) {
        int st;
        if (waitpid(ch[i].pid, &st, WNOHANG) == ch[i].pid) child_reaped(&ch[i], st);
      }
      /* A child that exited may have left a grandchild holding its pipe:
       * take what is there and stop listening. */
      if (!ch[i].running && ch[i].fd >= 0) {
        child_drain(&ch[i]);
        if (ch[i].fd >= 0) close(ch[i].fd), ch[i].fd = -1;
      }
      left += ch[i].running;
      if (ch[i].running && ch[i].fd >= 0 && p) p[nfd++] = (struct pollfd){.fd = ch[i].fd, .events = POLLIN};
    }
    double now = tr_now();
    if (!left || now >= end) break;
    int ms = (int)((end - now) * 1000) + 1;
    if (ms > 50) ms = 50; /* children without an open pipe are polled by waitpid */
    int r = nfd ? poll(p, (nfds_t)nfd, ms) : usleep((useconds_t)ms * 1000);
    if (r < 0 && errno != EINTR) break;
    for (int i = 0; i < n; i++)
      if (ch[i].running && ch[i].fd >= 0) child_drain(&ch[i]);
  }
  free(p);
  for (int i = 0; i < n; i++) {
    if (!ch[i].running) continue;
    kill(-ch[i].pid, SIGKILL);
    kill(ch[i].pid, SIGKILL);
    int st;
    if (waitpid(ch[i].pid, &st, 0) == ch[i].pid) child_reaped(&ch[i], st);
    ch[i].running = 0, ch[i].timed_out = 1;
    if (ch[i].fd >= 0) {
      child_drain(&ch[i]);
      if (ch[i].fd >= 0) close(ch[i].fd), ch[i].fd = -1;
    }
  }
}

void doctor_child_fini(doctor_child_t *ch) {
  if (ch->fd >= 0) close(ch->fd);
  free(ch->out);
  *ch = (doctor_child_t){.fd = -1, .status = -1};
}

int doctor_run_capture(char *const argv[], char *const env[], char *out, size_t len, double timeout_s) {
  doctor_child_t ch;
  doctor_child_start(&ch, argv, env, len);
  if (ch.pid) doctor_children_wait(&ch, 1, timeout_s);
  snprintf(out, len, "%s", ch.out ? ch.out : "out of memory");
  int rc = ch.timed_out ? 124 : ch.status;
  doctor_child_fini(&ch);
  return rc;
}

/* --- the starter --- */

/* A word that goes through a remote shell unquoted: ssh joins its arguments
 * into one line the remote shell splits again, so only characters no shell
 * treats specially. */
static int plain_word(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:=+@%^-", *s)) return 0;
  return 1;
}

static int random_bytes(unsigned char *b, size_t n) {
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd < 0) return -1;
  ssize_t k = read(fd, b, n);
  close(fd);
  return k == (ssize_t)n ? 0 : -1;
}

/* The first line of text that says something, for a one-line finding. */
static void first_line(const char *text, char *buf, size_t len) {
  while (*text == '\n' || *text == ' ')
    text++;
  size_t k = strcspn(text, "\n");
  snprintf(buf, len, "%.*s", (int)(k < 300 ? k : 300), *text ? text : "no output");
}

typedef struct {
  char name[128];
  int ok;
  char ifname[64], addr[80], hostname[80];
  int version;
} rsh_host_t;

/* Probe every host at once; fill h[i] and name each host that fails. */
static void probe_hosts(char **rsh, int nrsh, const char *chorus, const char *rsh_text, rsh_host_t *h, int nh,
                        double timeout_s) {
  doctor_child_t *ch = calloc((size_t)nh, sizeof *ch);
  if (!ch) {
    doctor_finding(1, "out of memory for %d hosts", nh);
    return;
  }
  for (int i = 0; i < nh; i++) {
    char *argv[RSH_MAX_WORDS + 5];
    int k = 0;
    for (int w = 0; w < nrsh; w++)
      argv[k++] = rsh[w];
    argv[k++] = h[i].name, argv[k++] = (char *)chorus, argv[k++] = "doctor", argv[k++] = "--probe", argv[k] = NULL;
    doctor_child_start(&ch[i], argv, NULL, 16384);
  }
  doctor_children_wait(ch, nh, timeout_s);
  printf("  %-20s %-10s %-10s %-24s %s\n", "host", "answered", "interface", "address", "chorus");
  for (int i = 0; i < nh; i++) {
    const char *line = ch[i].out ? strstr(ch[i].out, "chorus-doctor-probe ") : NULL;
    char what[400];
    first_line(ch[i].out ? ch[i].out : "", what, sizeof what);
    if (line && !ch[i].timed_out && ch[i].status == 0 &&
        sscanf(line, "chorus-doctor-probe version=%d host=%79s if=%63s addr=%79s", &h[i].version, h[i].hostname,
               h[i].ifname, h[i].addr) == 4) {
      int v = h[i].version;
      printf("  %-20.20s %-10s %-10s %-24s %d.%d.%d (%s)\n", h[i].name, "yes", h[i].ifname, h[i].addr, v / 10000,
             v / 100 % 100, v % 100, h[i].hostname);
      if (!strcmp(h[i].addr, "-")) {
        const char *why = strstr(line, " error=");
        doctor_finding(1,
                       "host %s answered but has no network interface Chorus can use%s%s: unset "
                       "CHORUS_SOCKET_IFNAME or name an interface that host has",
                       h[i].name, why ? ":" : "", why ? why + 6 : "");
      } else {
        h[i].ok = 1;
      }
      if (v != chorus_version())
        doctor_finding(0,
                       "host %s runs chorus %d.%d.%d, this one %d.%d.%d: the ranks of one job must run the same "
                       "version; install one version everywhere",
                       h[i].name, v / 10000, v / 100 % 100, v % 100, chorus_version() / 10000,
                       chorus_version() / 100 % 100, chorus_version() % 100);
      continue;
    }
    printf("  %-20.20s %-10s\n", h[i].name, ch[i].timed_out ? "no (timeout)" : "no");
    if (ch[i].timed_out)
      doctor_finding(1,
                     "host %s did not answer within %.0f s through `%s %s`; its remote shell was killed. Is the "
                     "host up and reachable (ping %s)? Does the remote shell wait for a password or a host key "
                     "(run `%s %s true` once by hand; ssh needs keys for BatchMode)? CHORUS_TIMEOUT sets this wait",
                     h[i].name, timeout_s, rsh_text, h[i].name, h[i].name, rsh_text, h[i].name);
    else if (strstr(ch[i].out, chorus) &&
             (ch[i].status == 127 || strstr(ch[i].out, "No such file") || strstr(ch[i].out, "not found")))
      doctor_finding(1,
                     "chorus is not at %s on host %s (%s): install it at the same path on every host, or give "
                     "its path there with --chorus PATH",
                     chorus, h[i].name, what);
    else if (ch[i].status == 0 || (line && ch[i].status != 127))
      doctor_finding(1,
                     "the chorus on host %s did not answer the probe (exit %d: %s): it may be an older version "
                     "without `doctor --probe`; install this version there or give its path with --chorus PATH",
                     h[i].name, ch[i].status, what);
    else
      doctor_finding(1,
                     "cannot start a command on host %s through `%s` (exit %d: %s). Check the host name, and "
                     "that `%s %s true` works by hand; --rsh CMD or CHORUS_RSH names another remote shell",
                     h[i].name, rsh_text, ch[i].status, what, rsh_text, h[i].name);
  }
  for (int i = 0; i < nh; i++)
    doctor_child_fini(&ch[i]);
  free(ch);
}

/* Print a rank's output, indented under a header, when it has any. */
static void print_rank_output(int rank, const char *host, const doctor_child_t *ch) {
  if (!ch->out || !ch->out[0]) return;
  printf("\n--- rank %d on host %s:\n%s%s", rank, host, ch->out, ch->out[strlen(ch->out) - 1] == '\n' ? "" : "\n");
}

/* The remote shell's words (--rsh) into rsh, pointing into copy. The
 * count, or -1 after a message. */
static int split_rsh(const char *text, char *copy, size_t len, char **rsh) {
  int nrsh = 0;
  snprintf(copy, len, "%s", text);
  for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    if (nrsh == RSH_MAX_WORDS) {
      fprintf(stderr, "chorus doctor: --rsh '%s': more than %d words\n", text, RSH_MAX_WORDS);
      return -1;
    }
    rsh[nrsh++] = w;
  }
  if (!nrsh) {
    fprintf(stderr, "chorus doctor: --rsh is empty: give the remote shell, e.g. --rsh 'ssh -o BatchMode=yes'\n");
    return -1;
  }
  return nrsh;
}

/* The host names of --hosts into h. The count, or -1 after a message. */
static int split_hosts(const char *hosts, rsh_host_t *h) {
  int nh = 0;
  for (const char *p = hosts; *p;) {
    size_t k = strcspn(p, ",");
    if (k == 0 || k >= sizeof h[0].name) {
      fprintf(stderr, "chorus doctor: --hosts '%s': %s\n", hosts,
              k ? "a host name is longer than 127 characters" : "an empty host name");
      return -1;
    }
    if (nh == RSH_MAX_HOSTS) {
      fprintf(stderr, "chorus doctor: --hosts: more than %d hosts\n", RSH_MAX_HOSTS);
      return -1;
    }
    h[nh] = (rsh_host_t){0};
    snprintf(h[nh].name, sizeof h[nh].name, "%.*s", (int)k, p);
    nh++;
    p += k + (p[k] == ',');
  }
  return nh;
}

/* Everything that goes through the remote shell must mean the same there:
 * 0, or -1 after naming the option that would not. */
static int check_plain(const doctor_rsh_opts_t *o, const char *chorus) {
  const char *check[] = {chorus, o->hosts, o->topo, o->sets, o->tolerance};
  const char *check_name[] = {"--chorus (or this program's path)", "--hosts", "--topo", "--set", "--tolerance"};
  for (int i = 0; i < 5; i++)
    if (check[i] && !plain_word(check[i])) {
      fprintf(stderr,
              "chorus doctor: %s '%s' has a character a remote shell would interpret (a space, quote, $, *, ...): "
              "use letters, digits and _./,:=+@%%^- only\n",
              check_name[i], check[i]);
      return -1;
    }
  return 0;
}

/* CHORUS_* settings travel with the command, as mpirun -x does (not the
 * remote shell, the secret or the root, which the starter sets). */
static int forwarded(char **fwd, int cap) {
  int nfwd = 0;
  for (char **e = environ; *e && nfwd < cap; e++) {
    if (strncmp(*e, "CHORUS_", 7) || !strncmp(*e, "CHORUS_RSH=", 11) || !strncmp(*e, "CHORUS_SECRET=", 14) ||
        !strncmp(*e, "CHORUS_ROOT=", 12))
      continue;
    if (!plain_word(*e)) {
      doctor_finding(0, "%.200s is not passed to the hosts: it has a character a remote shell would interpret", *e);
      continue;
    }
    fwd[nfwd++] = *e;
  }
  return nfwd;
}

/* The job every rank joins: a fresh secret, a port, and rank 0's host's
 * address without its port. 0, or -1 after a finding. */
typedef struct {
  char secret[64], port[16], addr[80], ranks[16];
} rsh_job_t;
static int make_job(const rsh_host_t *first, int nup, rsh_job_t *j) {
  unsigned char rnd[18];
  if (random_bytes(rnd, sizeof rnd) != 0) {
    doctor_finding(1, "cannot read /dev/urandom for the job's secret");
    return -1;
  }
  for (int i = 0; i < 16; i++) snprintf(j->secret + 2 * i, 3, "%02x", rnd[i]);
  snprintf(j->port, sizeof j->port, "%d", 21000 + (rnd[16] << 8 | rnd[17]) % 20000);
  snprintf(j->addr, sizeof j->addr, "%s", first->addr);
  char *colon = strrchr(j->addr, ':');
  if (colon && strchr(j->addr, '.')) *colon = 0; /* a.b.c.d:port: the address alone */
  if (j->addr[0] == '[') {                       /* [v6]:port */
    memmove(j->addr, j->addr + 1, strlen(j->addr));
    if (strchr(j->addr, ']')) *strchr(j->addr, ']') = 0;
  }
  snprintf(j->ranks, sizeof j->ranks, "%d", nup);
  return 0;
}

/* Rank r's command line: the remote shell, the host, the job's variables,
 * the forwarded settings and `chorus doctor --hosts LIST ...`. */
static void rank_argv(const doctor_rsh_opts_t *o, char **rsh, int nrsh, char **fwd, int nfwd, const char *chorus,
                      const char *host, const char *list, const rsh_job_t *j, int r, char vars[5][128],
                      char **argv) {
  int k = 0;
  for (int w = 0; w < nrsh; w++) argv[k++] = rsh[w];
  snprintf(vars[0], 128, "RANK=%d", r);
  snprintf(vars[1], 128, "WORLD_SIZE=%s", j->ranks);
  snprintf(vars[2], 128, "MASTER_ADDR=%s", j->addr);
  snprintf(vars[3], 128, "MASTER_PORT=%s", j->port);
  snprintf(vars[4], 128, "CHORUS_SECRET=%s", j->secret);
  argv[k++] = (char *)host, argv[k++] = "env";
  for (int v = 0; v < 5; v++) argv[k++] = vars[v];
  for (int f = 0; f < nfwd; f++) argv[k++] = fwd[f];
  argv[k++] = (char *)chorus, argv[k++] = "doctor", argv[k++] = "--hosts", argv[k++] = (char *)list;
  if (o->topo) argv[k++] = "--topo", argv[k++] = (char *)o->topo;
  if (o->sets) argv[k++] = "--set", argv[k++] = (char *)o->sets;
  if (o->tolerance) argv[k++] = "--tolerance", argv[k++] = (char *)o->tolerance;
  argv[k] = NULL;
}

/* What became of each rank: a finding for one that hung or failed other
 * than by reporting problems; 1 when some rank reported problems. */
static int judge_ranks(const doctor_child_t *ch, const rsh_host_t *h, const int *up, int nup, double deadline) {
  int rc = 0;
  for (int r = 0; r < nup; r++) {
    if (ch[r].timed_out)
      doctor_finding(1,
                     "rank %d on host %s was still running after %.0f s: its remote shell and what it started "
                     "were killed. It hangs or waits for a peer: its output above says where; raise "
                     "CHORUS_TIMEOUT if the hosts are just slow",
                     r, h[up[r]].name, deadline);
    else if (ch[r].status != 0 && ch[r].status != 1)
      doctor_finding(1, "rank %d on host %s exited with status %d%s", r, h[up[r]].name, ch[r].status,
                     ch[r].status == 255 ? " (the remote shell failed after the probe: did the host go away?)" : "");
    else if (ch[r].status == 1)
      rc = 1; /* its problems are in its output */
  }
  return rc;
}

/* The nup hosts that answered run a doctor rank each, under the doctor's
 * own deadline; their output is printed and judged. */
static int run_ranks(const doctor_rsh_opts_t *o, char **rsh, int nrsh, char **fwd, int nfwd, const char *chorus,
                     const rsh_host_t *h, const int *up, int nup, const char *list, double timeout) {
  rsh_job_t j;
  if (make_job(&h[up[0]], nup, &j)) return 0;
  /* The doctor's own deadlines: joining (CHORUS_TIMEOUT), then per host a
   * floor and per pair round trips, bandwidth both ways and up to two
   * re-measurements, each bounded by a budget of a second or so. */
  double deadline = 2 * timeout + 10.0 * nup + 20.0 * nup * (nup - 1) / 2 + 30;
  printf("\nstarting %d doctor ranks (rank 0 on %s, bootstrap root %s:%s); every rank within %.0f s\n", nup,
         h[up[0]].name, j.addr, j.port, deadline);
  doctor_child_t *ch = calloc((size_t)nup, sizeof *ch);
  if (!ch) {
    doctor_finding(1, "out of memory for %d ranks", nup);
    return 0;
  }
  for (int r = 0; r < nup; r++) {
    char vars[5][128], *argv[RSH_MAX_WORDS + 64 + 20];
    rank_argv(o, rsh, nrsh, fwd, nfwd, chorus, h[up[r]].name, list, &j, r, vars, argv);
    doctor_child_start(&ch[r], argv, NULL, RSH_OUT_CAP);
  }
  doctor_children_wait(ch, nup, deadline);
  printf("\n--- rank 0 on host %s (the report):\n%s", h[up[0]].name, ch[0].out ? ch[0].out : "");
  for (int r = 1; r < nup; r++) print_rank_output(r, h[up[r]].name, &ch[r]);
  printf("\n");
  int rc = judge_ranks(ch, h, up, nup, deadline);
  for (int r = 0; r < nup; r++) doctor_child_fini(&ch[r]);
  free(ch);
  return rc;
}

int doctor_rsh(const doctor_rsh_opts_t *o) {
  char rsh_copy[1024], *rsh[RSH_MAX_WORDS];
  int nrsh = split_rsh(o->rsh, rsh_copy, sizeof rsh_copy, rsh);
  if (nrsh < 0) return 2;
  char self[1024];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "chorus doctor: cannot find this program's path (/proc/self/exe): give --chorus PATH\n");
    return 2;
  }
  self[n] = 0;
  const char *chorus = o->chorus ? o->chorus : self;
  static rsh_host_t h[RSH_MAX_HOSTS];
  int nh = split_hosts(o->hosts, h);
  if (nh < 0 || check_plain(o, chorus)) return 2;
  char *fwd[64];
  int nfwd = forwarded(fwd, 64);
  double timeout = (double)param_int(PARAM_TIMEOUT);
  printf("\nhosts by remote shell: %d host%s through `%s HOST %s doctor`, each probe within %.0f s "
         "(CHORUS_TIMEOUT)\n",
         nh, nh == 1 ? "" : "s", o->rsh, chorus, timeout);
  probe_hosts(rsh, nrsh, chorus, o->rsh, h, nh, timeout);

  int up[RSH_MAX_HOSTS], nup = 0;
  /* The hosts that answered, in the order given: never longer than --hosts. */
  static char list[RSH_MAX_HOSTS * sizeof h[0].name];
  size_t used = 0;
  for (int i = 0; i < nh; i++)
    if (h[i].ok) {
      up[nup++] = i;
      if (used) list[used++] = ',';
      size_t k = strlen(h[i].name);
      memcpy(list + used, h[i].name, k);
      used += k;
    }
  list[used] = 0;
  int rc = 0;
  if (nup < 2) {
    doctor_finding(nh >= 2 ? 1 : 0, "%s: there is no pair of hosts to measure%s",
                   nup ? "only one host answered" : "no host answered",
                   nh >= 2 ? "; fix the hosts named above and run again" : "");
  } else {
    if (nup < nh) printf("\nchecking the %d hosts that answered (%s); the others are named above\n", nup, list);
    rc = run_ranks(o, rsh, nrsh, fwd, nfwd, chorus, h, up, nup, list, timeout);
  }
  int notes, problems = doctor_count(&notes);
  printf("doctor --hosts: %d host%s of %d answered; %d problem%s found by the starter%s\n", nup, nup == 1 ? "" : "s",
         nh, problems, problems == 1 ? "" : "s", rc ? ", and the ranks found problems (above)" : "");
  return problems || rc ? 1 : 0;
}
