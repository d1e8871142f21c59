/* hang_report.c -- `chorus hang-report`: merges the reports each rank writes
 * on a timeout or on SIGUSR1 (engine/hang.c, hang_dump; the format is in
 * engine/hang.h) into one picture and names the rank the others wait for. */
#include "hang_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h" /* PLAN_MAX_CHANNELS */

/* --- merging --- */

typedef struct {
  int present, rank, nranks, active, connecting;
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

static int read_report(const char *file, rank_rep_t **reps, int *nranks) {
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
  if (!*reps) {
    *nranks = r.nranks;
    *reps = calloc((size_t)r.nranks, sizeof **reps);
    if (!*reps) return -1;
  } else if (r.nranks != *nranks) {
    fprintf(stderr, "chorus hang-report: %s: rank %d of %d ranks, the other reports have %d (different jobs?)\n",
            file, r.rank, r.nranks, *nranks);
    return -1;
  }
  r.present = 1;
  (*reps)[r.rank] = r;
  return 0;
}

int hang_merge(char *const files[], int nfiles, FILE *out) {
  rank_rep_t *reps = NULL;
  int nranks = 0, nread = 0;
  for (int i = 0; i < nfiles; i++)
    if (read_report(files[i], &reps, &nranks) == 0) nread++;
  if (!nread) {
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
            "usage: chorus hang-report FILE...\n\nMerges the hang reports ranks write on a timeout or on SIGUSR1\n"
            "(CHORUS_HANG_DIR/chorus-hang-*.txt, gathered from every host) and names the rank the\n"
            "others wait for.\n");
    return argc < 2 ? 2 : 0;
  }
  return hang_merge(argv + 1, argc - 1, stdout) > 0 ? 0 : 1;
}
