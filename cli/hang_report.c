/* hang_report.c -- `chorus hang-report`: merges the reports each rank writes
 * on a timeout or on SIGUSR1 (engine/hang.c, hang_dump; the format is in
 * engine/hang.h) into one picture and names the rank the others wait for. */
#include "hang_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan.h" /* PLAN_MAX_CHANNELS */

/* --- merging --- */

typedef struct {
  int present, rank, nranks, active, connecting;
  long long job, time; /* 0 in reports written before they carried them */
  long seq;
  char coll[32], reason[16];
  int nwait;
  int wait_peer[PLAN_MAX_CHANNELS];
  char wait_kind[PLAN_MAX_CHANNELS][8];
  char where[PLAN_MAX_CHANNELS][96];
} rank_rep_t;

static const char *field(const char *line, const char *key, char *buf, size_t len) {
  char pat[40];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *p = strstr(line, pat);
  if (!p) return NULL;
  p += strlen(pat);
  size_t n = strcspn(p, " \n");
  if (n >= len) n = len - 1;
  memcpy(buf, p, n);
  buf[n] = 0;
  return buf;
}

static long field_l(const char *line, const char *key, long dflt) {
  char b[32];
  return field(line, key, b, sizeof b) ? strtol(b, NULL, 10) : dflt;
}

static long long field_ll(const char *line, const char *key, long long dflt) {
  char b[32];
  return field(line, key, b, sizeof b) ? strtoll(b, NULL, 10) : dflt;
}

/* One report file into *r; 0, or -1 after saying why. */
static int read_report(const char *file, rank_rep_t *out) {
  FILE *f = fopen(file, "r");
  if (!f) {
    fprintf(stderr, "chorus hang-report: %s: %s\n", file, strerror(errno));
    return -1;
  }
  char line[1024];
  rank_rep_t r = {0};
  int ok = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "chorus-hang ", 12)) {
      r.rank = (int)field_l(line, "rank", -1);
      r.nranks = (int)field_l(line, "nranks", 0);
      r.job = field_ll(line, "job", 0);
      r.time = field_ll(line, "time", 0);
      field(line, "reason", r.reason, sizeof r.reason);
      ok = r.rank >= 0 && r.nranks > 0 && r.rank < r.nranks && r.nranks <= (1 << 20);
    } else if (!strncmp(line, "call ", 5)) {
      r.active = (int)field_l(line, "active", 0);
      r.seq = field_l(line, "seq", 0);
      r.connecting = (int)field_l(line, "connecting", 0);
      field(line, "coll", r.coll, sizeof r.coll);
    } else if (!strncmp(line, "channel ", 8) && r.nwait < PLAN_MAX_CHANNELS) {
      char code[32] = "?", op[16] = "?", kind[8] = "none";
      field(line, "code", code, sizeof code);
      field(line, "op", op, sizeof op);
      field(line, "waits", kind, sizeof kind);
      int i = r.nwait++;
      r.wait_peer[i] = (int)field_l(line, "peer", -1);
      snprintf(r.wait_kind[i], sizeof r.wait_kind[i], "%s", kind);
      snprintf(r.where[i], sizeof r.where[i], "ch %ld op %s %s", field_l(line, "ch", 0), op, code);
    }
  }
  fclose(f);
  if (!ok) {
    fprintf(stderr, "chorus hang-report: %s: not a Chorus hang report (no 'chorus-hang' line with rank and nranks)\n",
            file);
    return -1;
  }
  r.present = 1;
  *out = r;
  return 0;
}

/* Read every file; keep one job's reports: `job` when given (non-zero), else
 * the one with the newest report. Says what it left out. Fills *reps
 * (indexed by rank) and returns how many were kept, -1 when none. */
static int gather(char *const files[], int nfiles, long long job, FILE *out, rank_rep_t **reps, int *nranks) {
  rank_rep_t *all = calloc((size_t)(nfiles ? nfiles : 1), sizeof *all);
  if (!all) return -1;
  int n = 0;
  for (int i = 0; i < nfiles; i++)
    if (read_report(files[i], &all[n]) == 0) n++;
  if (!job)
    for (int i = 0, newest = -1; i < n; i++)
      if (newest < 0 || all[i].time > all[newest].time) newest = i, job = all[i].job;
  int kept = 0, other = 0, others_jobs = 0;
  long long seen_jobs[8];
  for (int i = 0; i < n; i++) {
    if (all[i].job != job) {
      other++;
      int known = 0;
      for (int k = 0; k < others_jobs && k < 8; k++) known |= seen_jobs[k] == all[i].job;
      if (!known && others_jobs < 8) seen_jobs[others_jobs++] = all[i].job;
      continue;
    }
    if (!*reps) {
      *nranks = all[i].nranks;
      *reps = calloc((size_t)all[i].nranks, sizeof **reps);
      if (!*reps) break;
    } else if (all[i].nranks != *nranks) {
      fprintf(stderr, "chorus hang-report: %s: rank %d of %d ranks, the other reports of job %lld have %d\n",
              files[i], all[i].rank, all[i].nranks, job, *nranks);
      continue;
    }
    if ((*reps)[all[i].rank].present && (*reps)[all[i].rank].time > all[i].time) continue; /* the newer one */
    if (!(*reps)[all[i].rank].present) kept++;
    (*reps)[all[i].rank] = all[i];
  }
  if (n && !kept) fprintf(stderr, "chorus hang-report: no report of job %lld among the %d read\n", job, n);
  if (kept) {
    fprintf(out, "job %lld", job);
    long long newest = 0;
    for (int r = 0; r < *nranks; r++)
      if ((*reps)[r].present && (*reps)[r].time > newest) newest = (*reps)[r].time;
    if (newest) {
      time_t t = (time_t)newest;
      char when[32];
      strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&t));
      fprintf(out, ", newest report %s", when);
    }
    if (other)
      fprintf(out, "; left out %d report%s of %d other job%s (older, or not named by --job)", other,
              other == 1 ? "" : "s", others_jobs, others_jobs == 1 ? "" : "s");
    fprintf(out, "\n");
  }
  free(all);
  return kept ? kept : -1;
}

int hang_merge(char *const files[], int nfiles, long long job, FILE *out) {
  rank_rep_t *reps = NULL;
  int nranks = 0, nread = gather(files, nfiles, job, out, &reps, &nranks);
  if (nread <= 0 || nranks <= 0) {
    free(reps);
    return 0;
  }
  long maxseq = 0;
  for (int r = 0; r < nranks; r++)
    if (reps[r].present && reps[r].seq > maxseq) maxseq = reps[r].seq;
  fprintf(out, "%d of %d ranks reported\n\n%6s %6s %-14s %-8s %s\n", nread, nranks, "rank", "call", "collective",
          "reason", "waits for");
  /* Who each rank waits for: the first channel that waits on a peer. */
  int *target = calloc((size_t)nranks, sizeof *target);
  int *waited = calloc((size_t)nranks, sizeof *waited);
  if (!target || !waited) {
    free(target), free(waited), free(reps);
    return nread;
  }
  for (int r = 0; r < nranks; r++) {
    rank_rep_t *p = &reps[r];
    target[r] = -1;
    if (!p->present) {
      fprintf(out, "%6d %6s %-14s %-8s %s\n", r, "-", "-", "-", "no report: not in a Chorus wait (computing, in no call, "
              "or dead)");
      continue;
    }
    char waits[512] = "";
    size_t len = 0;
    for (int i = 0; i < p->nwait; i++) {
      if (p->wait_peer[i] >= 0 && target[r] < 0) target[r] = p->wait_peer[i];
      len += (size_t)snprintf(waits + len, len < sizeof waits ? sizeof waits - len : 0, "%s%s: %s %d", i ? "; " : "",
                              p->where[i], !strcmp(p->wait_kind[i], "data") ? "data from" :
                              !strcmp(p->wait_kind[i], "room") ? "room at" : "running, peer",
                              p->wait_peer[i]);
    }
    fprintf(out, "%6d %6ld %-14s %-8s %s\n", r, p->seq, p->active ? p->coll : "(idle)", p->reason,
            p->nwait ? waits : p->connecting ? "peers to connect (connection set-up of this call)"
                       : p->active ? "(no channel op recorded)" : "nothing: between calls");
    if (target[r] >= 0 && target[r] < nranks) waited[target[r]]++;
  }
  fprintf(out, "\n");
  /* Verdict: follow each rank's wait edge to its end: a rank that waits on
   * no one (or wrote no report) is whom the others wait for; a loop means
   * the ranks wait on each other. */
  int verdicts = 0;
  for (int r = 0; r < nranks; r++) {
    if (!reps[r].present && waited[r]) {
      fprintf(out, "rank %d is waited for by %d rank%s and wrote no report: it is not inside a Chorus call (still "
              "computing, stuck elsewhere, or dead). Look at rank %d first.\n",
              r, waited[r], waited[r] == 1 ? "" : "s", r);
      verdicts++;
    }
  }
  for (int r = 0; r < nranks; r++) {
    if (reps[r].present && reps[r].seq < maxseq) {
      fprintf(out, "rank %d is at collective call %ld while others are at %ld: it is behind (a missing call, or a "
              "different order of calls).\n",
              r, reps[r].seq, maxseq);
      verdicts++;
    }
  }
  for (int r = 0; r < nranks && !verdicts; r++) {
    if (!reps[r].present || target[r] < 0) continue;
    int slow = r, fast = r, steps = 0;
    do { /* Floyd: the wait chain either ends or loops */
      slow = target[slow];
      fast = target[fast] >= 0 ? target[target[fast]] : -1;
      steps++;
    } while (slow >= 0 && fast >= 0 && slow != fast && steps < nranks + 1);
    if (slow >= 0 && slow == fast) {
      fprintf(out, "ranks wait on each other in a loop through rank %d: every rank is inside a call but none can "
              "move (calls that differ between ranks, or a peer whose progress stopped).\n",
              slow);
      verdicts++;
      break;
    }
  }
  if (!verdicts) {
    int best = -1;
    for (int r = 0; r < nranks; r++)
      if (best < 0 || waited[r] > waited[best]) best = r;
    if (best >= 0 && waited[best])
      fprintf(out, "most ranks wait for rank %d (%d of %d).\n", best, waited[best], nranks);
    else
      fprintf(out, "no rank waits on another.\n");
  }
  free(target);
  free(waited);
  free(reps);
  return nread;
}

int cmd_hang_report(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fprintf(argc < 2 ? stderr : stdout,
            "usage: chorus hang-report [--job J] FILE...\n\nMerges the hang reports ranks write on a timeout or on "
            "SIGUSR1\n(CHORUS_HANG_DIR/chorus-hang-*.txt, gathered from every host) and names the rank the\n"
            "others wait for. Reports of several jobs (communicators) are not mixed: it takes the job\n"
            "with the newest report, or job J, and says how many it left out.\n");
    return argc < 2 ? 2 : 0;
  }
  long long job = 0;
  int first = 1;
  if (!strcmp(argv[1], "--job")) {
    char *end;
    job = argc > 2 ? strtoll(argv[2], &end, 10) : 0;
    if (argc <= 2 || *end || job <= 0) {
      fprintf(stderr, "chorus hang-report: --job needs the number a report's 'job=' shows\n");
      return 2;
    }
    first = 3;
  }
  if (first >= argc) {
    fprintf(stderr, "chorus hang-report: no report files given\n");
    return 2;
  }
  return hang_merge(argv + first, argc - first, job, stdout) > 0 ? 0 : 1;
}
