/* exp_report.h -- what `chorus exp` measured and predicted, and how it is
 * reported: the experiment as read from its script (exp_t, exp_run_t), each
 * run's joined points (exp_points_t: the repeats of every size, their median
 * and interquartile range, the prediction), the state of the machine while
 * it ran (exp_env_t), and the writers of compare.csv, report.md,
 * crossovers.csv and the gnuplot plots (exp_report.c). exp.c reads the
 * script, runs the children and fills these; exp_report.c only reads them. */
#ifndef CHORUS_EXP_REPORT_H
#define CHORUS_EXP_REPORT_H

#include <stddef.h>

#define EXP_MAX_RUNS 512
#define EXP_MAX_POINTS 64
#define EXP_MAX_REPEATS 15

/* TESTBED_PUBLISHED: the measurements are published figures read from the
 * experiment's `data` CSV (experiments/published/), not run here. */
typedef enum { TESTBED_NONE, TESTBED_LOCAL, TESTBED_NETNS, TESTBED_PUBLISHED } testbed_t;

typedef struct {
  char coll[32], algo[64], set[512], label[160], model[16];
  char topology[256]; /* this run's own topology; "" for the experiment's */
  int nranks, channels, measure;
  /* The fidelity targets: median |error| (%) from 1 MiB up and below. */
  double target_large, target_small;
} exp_run_t;

typedef struct {
  char path[1200], name[128], description[512];
  testbed_t testbed;
  int hosts, ppn;
  char rate[32], delay[32];
  char topology[1024], minb[32], maxb[32], factor[32], dtype[32];
  char data[1200]; /* TESTBED_PUBLISHED: the CSV of published points */
  /* The cut the predicted library makes, for `chorus sim` (--max-chunk,
   * --steps-per-chunk): "" and 0 are the engine's own (core/geom.h). */
  char max_chunk[32];
  int steps_per_chunk;
  /* The protocol the runs are predicted with (chorus sim -p): simple, LL,
   * LL128, or auto (per size the fastest, as NCCL's tuner picks); "" is
   * chorus sim's default. */
  char proto[16];
  int warmup, iters, repeats, calibrate;
  double crossover_ratio; /* a predicted crossing is on target within this factor of the measured one */
  exp_run_t runs[EXP_MAX_RUNS];
  int nruns;
} exp_t;

/* One run's points. Measured busbw per size and repeat (nrep of them; 0:
 * not measured); meas the median, lo..hi the interquartile range (the
 * spread a prediction is judged inside). A run whose measurement failed
 * keeps the repeats it completed. */
typedef struct {
  size_t bytes[EXP_MAX_POINTS];
  double reps[EXP_MAX_POINTS][EXP_MAX_REPEATS];
  double meas[EXP_MAX_POINTS], lo[EXP_MAX_POINTS], hi[EXP_MAX_POINTS], pred[EXP_MAX_POINTS];
  /* With a calibration per round, round k's prediction per size (npred of
   * them); pred is their median. */
  double preds[EXP_MAX_POINTS][EXP_MAX_REPEATS];
  int nnodes, npoints, nrep, predicted, npred;
  char failure[512]; /* empty, or what failed and where its log is */
  /* Published points: each point's class and the system's first source. */
  char cls[EXP_MAX_POINTS][32], source[256];
  /* The protocol each size was predicted with (the sim CSV's proto column;
   * the last round's), shown when the experiment's proto is auto. */
  char proto[EXP_MAX_POINTS][8];
} exp_points_t;

/* The machine while the experiment ran: load average before and after, and
 * a memory-copy probe (GB/s) before every round of repeats and at the end. */
typedef struct {
  double load_start, load_end;
  double probe[EXP_MAX_REPEATS + 1];
  int nprobe;
  long cores;
  char host[256], date[64];
  char calib_set[256]; /* where the topology's parameters came from */
  /* calibrate = true: one calibration before every round of repeats, the
   * topology it wrote (round 1: OUTDIR/calibrated.lua, round k:
   * OUTDIR/raw/calibrated.K.lua) and its streaming rates, as the report
   * shows them: the machine's speed, round by round. */
  int ncal;
  char cal_topo[EXP_MAX_REPEATS][1400];
  char cal_rates[EXP_MAX_REPEATS][128];
  char calib_warn[1024]; /* the calibration's "-- warning:" lines, one per line; "" when none */
} exp_env_t;

/* The verdict of one run against its targets. */
typedef struct {
  double large, small;   /* strict median |error| (%), NAN when no point */
  double inside;         /* share (0-1) of points predicted inside the measured IQR */
  int npoints, miss;
} exp_fidelity_t;

/* 1 when some run of e is measured (its testbed is used). */
int exp_measures(const exp_t *e);
/* Median of v[0..n) (sorts v). */
double exp_median(double *v, int n);
/* The p-quantile (0-1) of sorted v[0..n), linearly interpolated. */
double exp_quantile(const double *sorted, int n, double p);
/* Whether the machine was too busy or changed speed under the run; why says how. */
int exp_noisy(const exp_env_t *env, char *why, size_t len);
/* Writes compare.csv, report.md and crossovers.csv into outdir and prints the
 * tables; returns the number of missed targets (runs and crossings), -1 when
 * a file could not be written. reason gets the first miss in one line. */
int exp_report(const exp_t *e, const exp_points_t *pts, const exp_env_t *env, const char *outdir, const char *topo,
               char *reason, size_t reasonlen);
/* plot.gp, and the plots where gnuplot is installed. */
void exp_plots(const exp_t *e, const exp_points_t *pts, const char *outdir);

#endif
