/* exp_report.c -- the report of `chorus exp` (exp_report.h): compare.csv,
 * report.md, crossovers.csv and the plots, from the points exp.c joined.
 *
 * Fidelity is judged two ways, side by side: strictly, the median |error|
 * of the prediction against the measured median (the targets are judged on
 * this one), and the share of points whose prediction lies inside the
 * measured interquartile range (how often the model is as good as the
 * measurement can tell). A crossing is where the faster of two algorithms of
 * a group changes; sizes where the two cannot be told apart (measured: the
 * interquartile ranges overlap; predicted: within EXP_TIE) are ties and do
 * not make a crossing. */
#include "exp_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Two predictions closer than this (relative) are a tie. */
#define EXP_TIE 0.02
#define EXP_MAX_CROSS 16
/* The machine is noisy when its load average per core is over this before
 * the run, or the copy probe's slowest round is this much under its fastest. */
#define EXP_NOISY_LOAD 0.5
#define EXP_NOISY_PROBE 0.30

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double exp_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double exp_quantile(const double *sorted, int n, double p) {
  if (n == 1) return sorted[0];
  double x = p * (n - 1);
  int i = (int)x;
  if (i >= n - 1) return sorted[n - 1];
  return sorted[i] + (x - i) * (sorted[i + 1] - sorted[i]);
}

int exp_measures(const exp_t *e) {
  for (int i = 0; i < e->nruns; i++)
    if (e->runs[i].measure) return 1;
  return 0;
}

int exp_noisy(const exp_env_t *env, char *why, size_t len) {
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < env->nprobe; i++) lo = fmin(lo, env->probe[i]), hi = fmax(hi, env->probe[i]);
  int busy = env->cores > 0 && env->load_start / (double)env->cores > EXP_NOISY_LOAD;
  int changed = env->nprobe > 1 && hi > 0 && lo < (1.0 - EXP_NOISY_PROBE) * hi;
  if (busy)
    snprintf(why, len, "load average %.2f on %ld cores before the run (over %.1f per core)", env->load_start,
             env->cores, EXP_NOISY_LOAD);
  else if (changed)
    snprintf(why, len, "the memory-copy probe ran at %.1f-%.1f GB/s between repeats (the machine changed speed "
             "by more than %.0f%%)", lo, hi, EXP_NOISY_PROBE * 100);
  else
    snprintf(why, len, "load %.2f on %ld cores; copy probe %.1f-%.1f GB/s over %d rounds", env->load_start,
             env->cores, env->nprobe ? lo : 0.0, hi, env->nprobe);
  return busy || changed;
}

static void human_size(size_t b, char *out, size_t len) {
  if (b >= (1u << 30) && b % (1u << 30) == 0) snprintf(out, len, "%zuG", b >> 30);
  else if (b >= (1u << 20) && b % (1u << 20) == 0) snprintf(out, len, "%zuM", b >> 20);
  else if (b >= 1024 && b % 1024 == 0) snprintf(out, len, "%zuK", b >> 10);
  else snprintf(out, len, "%zu", b);
}

/* A --set list for a CSV cell: its commas become semicolons, so that the
 * files split on commas alone (awk, gnuplot, spreadsheets). */
static const char *csv_set(const char *set) {
  static char buf[4][512];
  static int next;
  char *b = buf[next++ % 4];
  snprintf(b, sizeof buf[0], "%s", set);
  for (char *p = b; *p; p++)
    if (*p == ',') *p = ';';
  return b;
}

static double error_pct(double pred, double meas) { return meas > 0 ? (pred - meas) / meas * 100.0 : NAN; }

/* --- fidelity --- */

static exp_fidelity_t fidelity(const exp_run_t *r, const exp_points_t *p) {
  double large[EXP_MAX_POINTS], small[EXP_MAX_POINTS];
  int nl = 0, ns = 0, inside = 0;
  for (int k = 0; k < p->npoints; k++) {
    double err = error_pct(p->pred[k], p->meas[k]);
    if (isnan(err)) continue;
    if (p->bytes[k] >= (1u << 20)) large[nl++] = fabs(err);
    else small[ns++] = fabs(err);
    inside += p->pred[k] >= p->lo[k] && p->pred[k] <= p->hi[k];
  }
  exp_fidelity_t f = {.large = nl ? exp_median(large, nl) : NAN, .small = ns ? exp_median(small, ns) : NAN,
                      .npoints = nl + ns};
  f.inside = f.npoints ? (double)inside / f.npoints : NAN;
  f.miss = (nl && f.large > r->target_large) || (ns && f.small > r->target_small);
  return f;
}

/* One line from the data on why a run misses: the regime with the larger
 * miss, the direction, and the parameters of the model that price it. */
static void explain_miss(const exp_points_t *p, const exp_fidelity_t *f, const exp_run_t *r, char *out, size_t len) {
  /* The regime that misses its target by more. */
  double over_small = isnan(f->small) ? -INFINITY : f->small - r->target_small;
  double over_large = isnan(f->large) ? -INFINITY : f->large - r->target_large;
  int small = over_small > over_large;
  double sum = 0;
  int n = 0;
  for (int k = 0; k < p->npoints; k++)
    if ((p->bytes[k] < (1u << 20)) == small && p->meas[k] > 0) sum += error_pct(p->pred[k], p->meas[k]), n++;
  double mean = n ? sum / n : 0;
  const char *dir = mean > 0 ? "fast" : "slow";
  if (small)
    snprintf(out, len, "below 1 MiB the model is %.0f%% too %s on average: the per-step fixed costs (op_overhead, "
             "step_lat, wake_lat) are %s-charged", fabs(mean), dir, mean > 0 ? "under" : "over");
  else
    snprintf(out, len, "from 1 MiB up the model is %.0f%% too %s on average: the streaming rates (copy_bw and "
             "reduce_bw in the cache, mem_bw past it, the link rate across hosts) are %s", fabs(mean), dir,
             mean > 0 ? "too high" : "too low");
}

/* --- crossovers: where the faster of two algorithms changes --- */

/* A run's set without its channels= item (the local testbed's topology is
 * told the channel count, which is the run's own). */
static void set_sans_channels(const char *set, char *out, size_t len) {
  size_t o = 0;
  out[0] = 0;
  for (const char *p = set; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (strncmp(p, "channels=", 9) && o + n + 2 < len) {
      if (o) out[o++] = ',';
      memcpy(out + o, p, n);
      out[o += n] = 0;
    }
    p += n + (end != NULL);
  }
}

/* Runs that differ only in algorithm or channels form a group. */
static int same_group(const exp_run_t *x, const exp_run_t *y) {
  char a[sizeof x->set], b[sizeof y->set];
  set_sans_channels(x->set, a, sizeof a);
  set_sans_channels(y->set, b, sizeof b);
  return !strcmp(x->coll, y->coll) && x->nranks == y->nranks && !strcmp(a, b);
}

/* A run's name inside its group: the algorithm, with the channels when the
 * group has runs of other channel counts. */
static const char *member_name(const exp_t *e, const exp_run_t *r) {
  static char buf[4][96];
  static int next;
  char *b = buf[next++ % 4];
  int mixed = 0;
  for (int i = 0; i < e->nruns; i++)
    if (same_group(&e->runs[i], r) && e->runs[i].channels != r->channels) mixed = 1;
  if (mixed) snprintf(b, sizeof buf[0], "%s/c%d", r->algo, r->channels);
  else snprintf(b, sizeof buf[0], "%s", r->algo);
  return b;
}

/* Per size, which of a and b is faster: +1 a, -1 b, 0 a tie (measured: the
 * interquartile ranges overlap; predicted: within EXP_TIE). */
static void winners(const exp_points_t *a, const exp_points_t *b, int measured, int *s) {
  for (int k = 0; k < a->npoints; k++) {
    if (measured) {
      s[k] = a->lo[k] > b->hi[k] ? 1 : a->hi[k] < b->lo[k] ? -1 : 0;
    } else {
      double d = a->pred[k] - b->pred[k], m = fmax(a->pred[k], b->pred[k]);
      s[k] = m > 0 && fabs(d) / m >= EXP_TIE ? (d > 0 ? 1 : -1) : 0;
    }
  }
}

/* The crossings: between consecutive sizes that are not ties and have
 * different winners, where the difference of x and y interpolates to zero
 * in log size. Returns how many (at most EXP_MAX_CROSS). */
static int crossings(const size_t *bytes, const double *x, const double *y, const int *s, int n, double *out) {
  int prev = -1, nc = 0;
  for (int k = 0; k < n; k++) {
    if (!s[k]) continue;
    if (prev >= 0 && s[prev] != s[k] && nc < EXP_MAX_CROSS) {
      double d0 = x[prev] - y[prev], d1 = x[k] - y[k];
      double t = d0 != d1 ? d0 / (d0 - d1) : 0.5;
      t = fmin(1.0, fmax(0.0, t));
      out[nc++] = exp(log((double)bytes[prev]) + t * (log((double)bytes[k]) - log((double)bytes[prev])));
    }
    prev = k;
  }
  return nc;
}

/* Pair each measured crossing with the nearest (in log size) predicted one
 * not yet taken; pm[i] is the predicted index or -1. */
static void pair_crossings(const double *m, int nm, const double *p, int np, int *pm) {
  int used[EXP_MAX_CROSS] = {0};
  for (int i = 0; i < nm; i++) {
    pm[i] = -1;
    double best = INFINITY;
    for (int j = 0; j < np; j++)
      if (!used[j] && fabs(log(p[j] / m[i])) < best) best = fabs(log(p[j] / m[i])), pm[i] = j;
    if (pm[i] >= 0) used[pm[i]] = 1;
  }
}

/* Whether two runs have the same prediction at every size: the same
 * schedule in the model (ring and hybrid on one node), not a pair to compare. */
static int same_prediction(const exp_points_t *a, const exp_points_t *b) {
  for (int k = 0; k < a->npoints; k++)
    if (fabs(a->pred[k] - b->pred[k]) > 1e-9 * fmax(a->pred[k], b->pred[k])) return 0;
  return 1;
}

typedef struct {
  FILE *csv, *md;
  int rows, misses;
} cross_out_t;

/* One crossing's row; judged: the pair was measured, so a crossing off
 * target counts as a miss (predicted only: listed, not judged). */
static void cross_row(const exp_t *e, const exp_run_t *a, const exp_run_t *b, double m, double p, const char *wrong,
                      int judged, cross_out_t *o) {
  double ratio = m > 0 && p > 0 ? p / m : NAN;
  int on = !isnan(ratio) && ratio <= e->crossover_ratio && ratio >= 1.0 / e->crossover_ratio;
  o->misses += judged && !on;
  if (!o->rows++) {
    fprintf(o->md, "\n## Crossovers\n\nEvery size where the faster of two algorithms changes (interpolated; sizes "
                   "where the two cannot be told apart are ties and make no crossing; none: no such crossing; -: "
                   "not measured). Target: each predicted crossing within %gx of the measured one.\n\n| collective | "
                   "ranks | set | algorithms | measured (B) | predicted (B) | predicted/measured | on target | "
                   "predicted winner wrong at |\n|---|---|---|---|---|---|---|---|---|\n",
            e->crossover_ratio);
    printf("\ncrossovers (where the faster algorithm changes):\n");
  }
  /* A pair that was not measured has no measured crossing to hold its
   * prediction against: "-", not a crossing at 0 bytes. */
  int measured = judged || m > 0;
  char ms[32] = "-", ps[32] = "none", rs[32] = "-";
  if (measured) snprintf(ms, sizeof ms, m > 0 ? "%.0f" : "none", m);
  if (p > 0) snprintf(ps, sizeof ps, "%.0f", p);
  if (!isnan(ratio)) snprintf(rs, sizeof rs, "%.2f", ratio);
  const char *verdict = !measured ? "not measured" : on ? "yes" : judged ? "**no**" : "not judged";
  fprintf(o->csv, "%s,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", a->coll, a->nranks, csv_set(a->set), member_name(e, a),
          member_name(e, b), !measured ? "" : m > 0 ? ms : "0", p > 0 ? ps : "0", isnan(ratio) ? "" : rs,
          measured ? (on ? "1" : "0") : "",
          wrong[0] ? wrong : "-");
  fprintf(o->md, "| %s | %d | %s | %s / %s | %s | %s | %s | %s | %s |\n", a->coll, a->nranks, a->set,
          member_name(e, a), member_name(e, b), ms, ps, rs, verdict, wrong[0] ? wrong : "-");
  if (measured)
    printf("  %s n=%d %s: %s vs %s: measured %s B, predicted %s B  (%s)%s%s\n", a->coll, a->nranks, a->set,
           member_name(e, a), member_name(e, b), ms, ps, on ? "within target" : judged ? "MISS" : "not judged",
           wrong[0] ? "; winner wrong at " : "", wrong);
  else
    printf("  %s n=%d %s: %s vs %s: predicted %s B (not measured)\n", a->coll, a->nranks, a->set, member_name(e, a),
           member_name(e, b), ps);
}

/* The crossings of one pair of runs, measured and predicted, paired. */
static void cross_pair(const exp_t *e, int i, int j, const exp_points_t *pts, cross_out_t *o) {
  const exp_points_t *a = &pts[i], *b = &pts[j];
  int sm[EXP_MAX_POINTS] = {0}, sp[EXP_MAX_POINTS];
  double mc[EXP_MAX_CROSS], pc[EXP_MAX_CROSS];
  int measured = a->nrep && b->nrep;
  if (measured) winners(a, b, 1, sm);
  winners(a, b, 0, sp);
  int nm = measured ? crossings(a->bytes, a->meas, b->meas, sm, a->npoints, mc) : 0;
  int np = crossings(a->bytes, a->pred, b->pred, sp, a->npoints, pc);
  char wrong[256] = "";
  for (int k = 0; k < a->npoints; k++)
    if (sm[k] && sp[k] && sm[k] != sp[k]) {
      char sz[32];
      human_size(a->bytes[k], sz, sizeof sz);
      snprintf(wrong + strlen(wrong), sizeof wrong - strlen(wrong), "%s%s", wrong[0] ? " " : "", sz);
    }
  int pm[EXP_MAX_CROSS], taken[EXP_MAX_CROSS] = {0};
  pair_crossings(mc, nm, pc, np, pm);
  for (int c = 0; c < nm; c++) {
    if (pm[c] >= 0) taken[pm[c]] = 1;
    cross_row(e, &e->runs[i], &e->runs[j], mc[c], pm[c] >= 0 ? pc[pm[c]] : 0, wrong, 1, o);
  }
  /* A predicted crossing the measurement does not have is a miss too. */
  for (int c = 0; c < np; c++)
    if (!taken[c]) cross_row(e, &e->runs[i], &e->runs[j], 0, pc[c], wrong, measured, o);
  /* No crossing, but the predicted winner is wrong somewhere: marked, not judged. */
  if (!nm && !np && wrong[0]) cross_row(e, &e->runs[i], &e->runs[j], 0, 0, wrong, 0, o);
}

/* Every pair of runs in a group; returns the crossings off target. */
static int write_crossovers(const exp_t *e, const exp_points_t *pts, FILE *csv, FILE *md) {
  cross_out_t o = {csv, md, 0, 0};
  fprintf(csv, "collective,nranks,set,algo_a,algo_b,measured_crossover_bytes,predicted_crossover_bytes,ratio,"
               "on_target,winner_wrong_at\n");
  char same[1024] = "";
  for (int i = 0; i < e->nruns; i++)
    for (int j = i + 1; j < e->nruns; j++) {
      if (!same_group(&e->runs[i], &e->runs[j]) || pts[i].npoints != pts[j].npoints || !pts[i].predicted ||
          !pts[j].predicted)
        continue;
      if (same_prediction(&pts[i], &pts[j])) {
        snprintf(same + strlen(same), sizeof same - strlen(same), "%s%s / %s (%d ranks)", same[0] ? ", " : "",
                 member_name(e, &e->runs[i]), member_name(e, &e->runs[j]), e->runs[i].nranks);
        continue;
      }
      cross_pair(e, i, j, pts, &o);
    }
  if (same[0])
    fprintf(md, "\nNot compared, the model predicts the same at every size (the same schedule on this topology): "
                "%s.\n", same);
  return o.misses;
}

/* --- the report --- */

static void write_header(const exp_t *e, const exp_env_t *env, const char *topo, FILE *csv, FILE *md) {
  fprintf(csv, "collective,algo,nranks,nnodes,size_bytes,measured_busbw_GBps,predicted_busbw_GBps,error_pct,"
               "measured_lo_GBps,measured_hi_GBps,set,channels,repeats,inside_spread,calib_set,label\n");
  fprintf(md, "# %s\n\n%s\n\n", e->name, e->description);
  if (!exp_measures(e)) {
    fprintf(md, "Predicted on %s, %s; topology `%s` (no testbed: nothing measured).\n", env->host, env->date, topo);
    return;
  }
  if (e->testbed == TESTBED_PUBLISHED) {
    fprintf(md, "Measured elsewhere: published figures from `%s`, every point with its source and what the source "
                "says of the system. Predicted on %s, %s, each system on its own topology; error = (predicted - "
                "published) / published.\n", strstr(e->data, "/experiments/") ? strstr(e->data, "/experiments/") + 1
                                                                                : e->data, env->host, env->date);
    return;
  }
  char why[256];
  int noisy = exp_noisy(env, why, sizeof why);
  fprintf(md, "Measured on %s, %s; testbed %s; topology `%s` (parameters from: %s); %d repeats of every run, "
              "interleaved across runs (median compared, interquartile range shown); error = (predicted - measured) "
              "/ measured.\n\nMachine: %s%s; load average %.2f before, %.2f after.\n",
          env->host, env->date, e->testbed == TESTBED_LOCAL ? "local processes" : "network namespaces", topo,
          env->calib_set, e->repeats, noisy ? "**noisy**: " : "quiet: ", why, env->load_start, env->load_end);
  if (env->ncal > 1) {
    fprintf(md, "\nCalibrated before every round of repeats (each round predicted on its own calibration; the "
                "prediction compared is their median):\n\n");
    for (int k = 0; k < env->ncal; k++)
      fprintf(md, "- round %d: %s\n", k + 1, env->cal_rates[k][0] ? env->cal_rates[k] : "no rates read");
  }
  /* A poor calibration fit is said, never used silently. */
  for (const char *w = env->calib_warn; *w;) {
    size_t n = strcspn(w, "\n");
    fprintf(md, "\n**Calibration warning**: %.*s.\n", (int)n, w);
    w += n + (w[n] == '\n');
  }
  fprintf(md, "\nFidelity is given two ways: **strict**, the median |error| against the measured median (the targets "
              "are judged on it), and **inside spread**, the share of points predicted inside the measured "
              "interquartile range.\n");
}

/* The protocol column's cell of row k (" LL |"), empty without the column. */
static const char *proto_cell(int pc, const exp_points_t *p, int k, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", pc ? " " : "", pc && k >= 0 ? p->proto[k] : "", pc ? " |" : "");
  return buf;
}

/* With -p auto, a column naming the protocol each size was predicted with. */
static void write_points(const exp_t *e, const exp_run_t *r, const exp_points_t *p, const exp_env_t *env, FILE *csv,
                         FILE *md) {
  int pc = !strcmp(e->proto, "auto");
  char cell[24];
  if (!r->measure) { /* predicted only: no measured columns to leave empty */
    printf("  %10s %12s%s\n", "size", "predicted", pc ? "  protocol" : "");
    fprintf(md, "\n| size | predicted busbw (GB/s) |%s\n|---:|---:|%s\n", pc ? " protocol |" : "", pc ? ":---|" : "");
    for (int k = 0; k < p->npoints && p->predicted; k++) {
      char sz[32];
      human_size(p->bytes[k], sz, sizeof sz);
      printf("  %10s %12.3f%s%s\n", sz, p->pred[k], pc ? "  " : "", pc ? p->proto[k] : "");
      fprintf(md, "| %s | %.3f |%s\n", sz, p->pred[k], proto_cell(pc, p, k, cell, sizeof cell));
      fprintf(csv, "%s,%s,%d,%d,%zu,,%.6f,,,,%s,%d,0,,%s,%s\n", r->coll, r->algo, r->nranks, p->nnodes, p->bytes[k],
              p->pred[k], csv_set(r->set), r->channels, env->calib_set, r->label);
    }
    return;
  }
  printf("  %10s %12s %12s %9s%s\n", "size", "measured", "predicted", "error", pc ? "  protocol" : "");
  fprintf(md, "\n| size | measured busbw (GB/s) | interquartile range | predicted busbw (GB/s) | error | inside |%s"
              "\n|---:|---:|---:|---:|---:|:---:|%s\n", pc ? " predicted protocol |" : "", pc ? ":---|" : "");
  for (int k = 0; k < p->npoints; k++) {
    char sz[32];
    human_size(p->bytes[k], sz, sizeof sz);
    if (p->nrep && p->predicted) {
      double err = error_pct(p->pred[k], p->meas[k]);
      int in = p->pred[k] >= p->lo[k] && p->pred[k] <= p->hi[k];
      printf("  %10s %12.3f %12.3f %8.1f%%%s%s\n", sz, p->meas[k], p->pred[k], err, pc ? "  " : "",
             pc ? p->proto[k] : "");
      fprintf(md, "| %s | %.3f | %.3f-%.3f | %.3f | %+.1f%% | %s |%s\n", sz, p->meas[k], p->lo[k], p->hi[k],
              p->pred[k], err, in ? "yes" : "", proto_cell(pc, p, k, cell, sizeof cell));
      fprintf(csv, "%s,%s,%d,%d,%zu,%.6f,%.6f,%.2f,%.6f,%.6f,%s,%d,%d,%d,%s,%s\n", r->coll, r->algo, r->nranks,
              p->nnodes, p->bytes[k], p->meas[k], p->pred[k], err, p->lo[k], p->hi[k], csv_set(r->set), r->channels,
              p->nrep, in, env->calib_set, r->label);
    } else if (p->nrep) {
      printf("  %10s %12.3f %12s %9s\n", sz, p->meas[k], "-", "-");
      fprintf(md, "| %s | %.3f | %.3f-%.3f | - | - | |%s\n", sz, p->meas[k], p->lo[k], p->hi[k],
              proto_cell(pc, p, -1, cell, sizeof cell));
    } else if (p->predicted) {
      printf("  %10s %12s %12.3f %9s\n", sz, "-", p->pred[k], "-");
      fprintf(md, "| %s | - | - | %.3f | - | |%s\n", sz, p->pred[k], proto_cell(pc, p, k, cell, sizeof cell));
      fprintf(csv, "%s,%s,%d,%d,%zu,,%.6f,,,,%s,%d,0,,%s,%s\n", r->coll, r->algo, r->nranks, p->nnodes, p->bytes[k],
              p->pred[k], csv_set(r->set), r->channels, env->calib_set, r->label);
    }
  }
}

/* One run's section; returns 1 when it misses its targets or failed. */
static int write_run(const exp_t *e, const exp_run_t *r, const exp_points_t *p, const exp_env_t *env, FILE *csv,
                     FILE *md, char *reason, size_t reasonlen) {
  int pub = e->testbed == TESTBED_PUBLISHED; /* a run is a published system: named, with its source */
  /* 0 channels: the default (the script's on that topology, or the tuner's). */
  char chans[48];
  if (r->channels > 0) snprintf(chans, sizeof chans, "%d channel%s", r->channels, r->channels == 1 ? "" : "s");
  else snprintf(chans, sizeof chans, "default channels");
  printf("\n%s%s%s %s, %d ranks on %d nodes%s%s, %s\n", pub ? r->label : "", pub ? ": " : "", r->coll, r->algo,
         r->nranks, p->nnodes, r->set[0] ? ", " : "", r->set, chans);
  fprintf(md, "\n## %s%s%s %s, %d ranks on %d nodes, %s%s%s%s%s\n", pub ? r->label : "", pub ? ": " : "", r->coll,
          r->algo, r->nranks, p->nnodes, chans, r->set[0] ? ", " : "", r->set, r->topology[0] ? ", topology " : "",
          r->topology);
  if (pub) fprintf(md, "\nSource: <%s>\n", p->source);
  if (p->failure[0]) {
    printf("  FAILED: %s\n", p->failure);
    fprintf(md, "\n**Failed**: %s%s\n", p->failure, p->nrep ? " The repeats it completed are below." : "");
    if (!reason[0]) snprintf(reason, reasonlen, "%s: %s", r->label, p->failure);
  }
  write_points(e, r, p, env, csv, md);
  if (!p->nrep || !p->predicted || pub) return p->failure[0] != 0; /* published: judged together, write_published */
  exp_fidelity_t f = fidelity(r, p);
  char large[16] = "n/a", small[16] = "n/a"; /* no point in that regime */
  if (!isnan(f.large)) snprintf(large, sizeof large, "%.1f%%", f.large);
  if (!isnan(f.small)) snprintf(small, sizeof small, "%.1f%%", f.small);
  printf("  strict median |error|: %s from 1 MiB up (target %g%%), %s below (target %g%%); %.0f%% of points "
         "inside the measured spread%s\n",
         large, r->target_large, small, r->target_small, f.inside * 100, f.miss ? "  MISS" : "  ok");
  fprintf(md, "\nStrict median |error|: %s from 1 MiB up (target %g%%), %s below (target %g%%): %s. "
              "Inside the measured spread: %.0f%% of %d points.\n",
          large, r->target_large, small, r->target_small, f.miss ? "**misses the target**" : "within the targets",
          f.inside * 100, f.npoints);
  if (f.miss) {
    char why[400];
    explain_miss(p, &f, r, why, sizeof why);
    fprintf(md, "Why: %s.\n", why);
    if (!reason[0])
      snprintf(reason, reasonlen, "%s misses its targets (%s from 1 MiB up, %s below): %s", r->label, large, small,
               why);
  }
  return f.miss || p->failure[0];
}

/* Published points are judged together: the median |error| over every
 * point and over each class of system, and no point off by more than a
 * factor (the targets of issue 20; experiments/README.md). Writes the table
 * to report.md and stdout; returns the number of targets missed. */
#define PUB_TARGET_ALL 10.0
#define PUB_TARGET_CLASS 15.0
#define PUB_MAX_RATIO 2.0
static int write_published(const exp_t *e, const exp_points_t *pts, FILE *md, char *reason, size_t reasonlen) {
  char cls[16][32];
  double err[16][EXP_MAX_RUNS], all[EXP_MAX_RUNS * 4];
  int ncls = 0, n[16] = {0}, nall = 0, misses = 0;
  char worst[256] = "";
  double worst_ratio = 1;
  for (int i = 0; i < e->nruns; i++) {
    const exp_points_t *p = &pts[i];
    if (!p->predicted || !p->nrep) continue;
    for (int k = 0; k < p->npoints; k++) {
      int c = 0;
      while (c < ncls && strcmp(cls[c], p->cls[k])) c++;
      if (c == ncls && ncls < 16) snprintf(cls[ncls++], sizeof cls[0], "%s", p->cls[k]);
      if (c == 16) continue;
      double ae = fabs(error_pct(p->pred[k], p->meas[k]));
      if (n[c] < EXP_MAX_RUNS) err[c][n[c]++] = ae;
      if (nall < EXP_MAX_RUNS * 4) all[nall++] = ae;
      double ratio = p->pred[k] > p->meas[k] ? p->pred[k] / p->meas[k] : p->meas[k] / p->pred[k];
      if (ratio > worst_ratio) {
        char sz[32];
        human_size(p->bytes[k], sz, sizeof sz);
        worst_ratio = ratio;
        snprintf(worst, sizeof worst, "%s at %s", e->runs[i].label, sz);
      }
    }
  }
  if (!nall) return 0;
  fprintf(md, "\n## All published points\n\n| class | points | median \\|error\\| | target |\n|---|---:|---:|---:|\n");
  printf("\npublished points: median |error| per class\n");
  for (int c = 0; c < ncls; c++) {
    double m = exp_median(err[c], n[c]);
    int miss = m > PUB_TARGET_CLASS;
    misses += miss;
    fprintf(md, "| %s | %d | %.1f%% | %g%%%s |\n", cls[c], n[c], m, PUB_TARGET_CLASS, miss ? " **miss**" : "");
    printf("  %-16s %3d points  %6.1f%%%s\n", cls[c], n[c], m, miss ? "  MISS" : "");
    if (miss && !reason[0])
      snprintf(reason, reasonlen, "class %s: median |error| %.1f%% (target %g%%)", cls[c], m, PUB_TARGET_CLASS);
  }
  double m = exp_median(all, nall);
  int miss = m > PUB_TARGET_ALL, far = worst_ratio > PUB_MAX_RATIO;
  misses += miss + far;
  fprintf(md, "| all | %d | %.1f%% | %g%%%s |\n\nThe worst point is off by a factor of %.2f (%s; a point beyond "
              "%gx is a miss).\n", nall, m, PUB_TARGET_ALL, miss ? " **miss**" : "", worst_ratio, worst,
          PUB_MAX_RATIO);
  printf("  %-16s %3d points  %6.1f%%%s\n  worst point: %.2fx (%s)%s\n", "all", nall, m, miss ? "  MISS" : "",
         worst_ratio, worst, far ? "  MISS" : "");
  if (miss && !reason[0])
    snprintf(reason, reasonlen, "median |error| over all %d points %.1f%% (target %g%%)", nall, m, PUB_TARGET_ALL);
  if (far && !reason[0])
    snprintf(reason, reasonlen, "%s is off by %.2fx (beyond %gx)", worst, worst_ratio, PUB_MAX_RATIO);
  return misses;
}

int exp_report(const exp_t *e, const exp_points_t *pts, const exp_env_t *env, const char *outdir, const char *topo,
               char *reason, size_t reasonlen) {
  char path[1500];
  FILE *f[3];
  static const char *const names[3] = {"compare.csv", "report.md", "crossovers.csv"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", outdir, names[i]);
    f[i] = fopen(path, "w");
    if (!f[i]) {
      fprintf(stderr, "chorus exp: cannot write %s: %s\n", path, strerror(errno));
      for (int j = 0; j < i; j++) fclose(f[j]);
      return -1;
    }
  }
  reason[0] = 0;
  write_header(e, env, topo, f[0], f[1]);
  int misses = 0;
  for (int i = 0; i < e->nruns; i++) misses += write_run(e, &e->runs[i], &pts[i], env, f[0], f[1], reason, reasonlen);
  if (e->testbed == TESTBED_PUBLISHED) misses += write_published(e, pts, f[1], reason, reasonlen);
  int cross = write_crossovers(e, pts, f[2], f[1]);
  if (cross && !reason[0]) snprintf(reason, reasonlen, "%d crossing%s off by more than %gx", cross,
                                    cross == 1 ? "" : "s", e->crossover_ratio);
  fprintf(f[1], "\n## Verdict\n\n%s\n",
          misses + cross   ? reason
          : exp_measures(e) ? "Every measured run and crossing meets its target."
                         : "Nothing was measured (predictions only): no target is judged.");
  for (int i = 0; i < 3; i++) fclose(f[i]);
  return misses + cross;
}

/* --- plots --- */

/* One .dat per run: size, measured median, predicted, error, IQR. */
static void write_dat(const exp_run_t *r, const exp_points_t *p, const char *outdir) {
  char dat[1600];
  snprintf(dat, sizeof dat, "%s/raw/%s.dat", outdir, r->label);
  FILE *d = fopen(dat, "w");
  if (!d) return;
  fprintf(d, "# size_bytes measured_busbw predicted_busbw error_pct measured_lo measured_hi\n");
  for (int k = 0; k < p->npoints; k++) {
    int m = p->nrep > 0 && p->predicted;
    fprintf(d, "%zu %.6f %.6f %.3f %.6f %.6f\n", p->bytes[k], p->nrep ? p->meas[k] : NAN,
            p->predicted ? p->pred[k] : NAN, m ? error_pct(p->pred[k], p->meas[k]) : NAN,
            p->nrep ? p->lo[k] : NAN, p->nrep ? p->hi[k] : NAN);
  }
  fclose(d);
}

/* x tics at the sizes, written 4K, 1M, 1G, and a margin of 40% beyond the
 * first and last size (a point on the border is half drawn, and its tic
 * label was left out). */
static void write_xtics(FILE *gp, const exp_points_t *p) {
  fprintf(gp, "set xtics (");
  for (int k = 0; k < p->npoints; k++) {
    char sz[32];
    human_size(p->bytes[k], sz, sizeof sz);
    fprintf(gp, "%s\"%s\" %zu", k ? ", " : "", sz, p->bytes[k]);
  }
  fprintf(gp, ")\n");
  if (p->npoints > 0)
    fprintf(gp, "set xrange [%.0f:%.0f]\n", (double)p->bytes[0] / 1.4, (double)p->bytes[p->npoints - 1] * 1.4);
}

/* One group's busbw and error plots, PNG and SVG. Measured: filled points on
 * solid lines, with the interquartile range as error bars; predicted: open
 * points on dashed lines; one colour per run (the PNG terminal draws no
 * dashes, so the point shapes tell measured from predicted). */
static void write_group(FILE *gp, const exp_t *e, const exp_points_t *pts, const int *members, int nm, int group,
                        int any_meas) {
  const exp_run_t *r = &e->runs[members[0]];
  for (int kind = 0; kind < 2; kind++) {
    if (kind == 1 && !any_meas) continue;
    const char *stem = kind ? "error" : "busbw";
    for (int term = 0; term < 2; term++) {
      fprintf(gp, "\nset terminal %s size 1000,600\nset output 'group%d-%s.%s'\n",
              term ? "svg dynamic" : "pngcairo", group, stem, term ? "svg" : "png");
      fprintf(gp, "set title '%s %s, %d ranks%s%s' noenhanced\nset logscale x 2\nset grid\n"
                  "set key outside right top noenhanced\n", e->name, r->coll, r->nranks, r->set[0] ? ", " : "",
              r->set);
      write_xtics(gp, &pts[members[0]]);
      fprintf(gp, "set xlabel 'size'\nset ylabel '%s'\nplot ",
              kind ? "(predicted - measured) / measured (%)" : "busbw (GB/s)");
      const char *sep = "";
      for (int m = 0; m < nm; m++) {
        const exp_run_t *x = &e->runs[members[m]];
        const exp_points_t *p = &pts[members[m]];
        if (kind == 0 && p->nrep) {
          fprintf(gp, "%s'raw/%s.dat' using 1:2:5:6 with yerrorlines lt %d dt 1 pt 7 ps 1.2 title '%s measured'", sep,
                  x->label, m + 1, member_name(e, x));
          sep = ", ";
        }
        if (kind == 0 && p->predicted) {
          fprintf(gp, "%s'raw/%s.dat' using 1:3 with linespoints lt %d dt 2 pt 6 ps 1.5 title '%s predicted'", sep,
                  x->label, m + 1, member_name(e, x));
          sep = ", ";
        }
        if (kind == 1 && p->nrep && p->predicted) {
          fprintf(gp, "%s'raw/%s.dat' using 1:4 with linespoints lt %d pt %d title '%s'", sep, x->label, m + 1,
                  5 + 2 * (m % 4), member_name(e, x));
          sep = ", ";
        }
      }
      fprintf(gp, "\n");
    }
  }
}

void exp_plots(const exp_t *e, const exp_points_t *pts, const char *outdir) {
  char path[1500];
  snprintf(path, sizeof path, "%s/plot.gp", outdir);
  FILE *gp = fopen(path, "w");
  if (!gp) return;
  fprintf(gp, "# gnuplot script written by chorus exp for %s: busbw (measured: filled points, solid, with the\n"
              "# interquartile range; predicted: open points, dashed; one colour per run) per group of runs, and\n"
              "# for a group with measured runs the error against size.\n",
          e->name);
  int done[EXP_MAX_RUNS] = {0}, group = 0, errors = 0;
  for (int i = 0; i < e->nruns; i++) {
    if (done[i]) continue;
    int members[EXP_MAX_RUNS], nm = 0, any_meas = 0;
    for (int j = i; j < e->nruns; j++)
      if (!done[j] && same_group(&e->runs[i], &e->runs[j])) {
        done[j] = 1, members[nm++] = j;
        any_meas |= pts[j].nrep > 0 && pts[j].predicted;
        write_dat(&e->runs[j], &pts[j], outdir);
      }
    write_group(gp, e, pts, members, nm, ++group, any_meas);
    errors |= any_meas;
  }
  fclose(gp);
  if (access("/usr/bin/gnuplot", X_OK) != 0) {
    printf("plots: %s written; gnuplot is not installed, so no PNG/SVG (apt-get install gnuplot-nox)\n", path);
    return;
  }
  char cmd[1600];
  snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot plot.gp > raw/gnuplot.log 2>&1", outdir);
  if (system(cmd) == 0)
    printf("plots: %s/group*-busbw.{png,svg}%s\n", outdir, errors ? ", group*-error.{png,svg}" : "");
  else printf("plots: gnuplot failed, see %s/raw/gnuplot.log\n", outdir);
}
