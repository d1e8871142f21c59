/* fit.h -- the statistics `chorus calibrate` needs, on GSL: a weighted
 * least-squares alpha-beta line t(s) = alpha + s / B, a two-piece version of
 * it for data one line does not fit (an eager path for small messages and a
 * pipelined one for large), and the median of a sample with a bootstrap
 * confidence interval.
 *
 * Every function checks its input and returns chorus_invalid_argument with a
 * message (chorus_last_error) naming what is wrong -- too few points, sizes
 * all equal, a weight or value that is not a finite positive number -- so
 * that no NaN ever reaches a caller. Results are deterministic: the bootstrap
 * draws from GSL's MT19937 seeded by the caller.
 */
#ifndef CHORUS_FIT_H
#define CHORUS_FIT_H

#include "chorus.h"

/* A fitted line y = alpha + slope * x. In calibration x is bytes and y is
 * seconds, so slope is seconds per byte and bw = 1 / slope bytes per second.
 * Standard errors are scaled by the residual variance (the weights are taken
 * as relative, not as known variances); with two points they are 0 (no
 * degrees of freedom are left to estimate them). */
typedef struct {
  int n;               /* points fitted */
  double alpha, slope; /* intercept (s) and slope (s/B) */
  double alpha_se, slope_se;
  double bw, bw_se;     /* 1/slope and its standard error (delta method); 0 when slope <= 0 */
  double chisq;         /* weighted sum of squared residuals */
  double r2;            /* weighted coefficient of determination, 1 when the data are exactly a line */
  double max_resid_rel; /* max over points of |y - fit| / y */
} fit_line_t;

/* Weighted least squares of y on x over n points (gsl_fit_wlinear). w may be
 * NULL (all 1); each weight must be finite and > 0. y must be > 0 (the
 * relative residual divides by it). resid, when not NULL, receives n relative
 * residuals (y - fit) / y. Errors: n < 2, x without spread (all sizes the
 * same), non-finite input. */
chorus_result_t fit_line(const double *x, const double *y, const double *w, int n, fit_line_t *out, double *resid);

/* The line's value at x. */
static inline double fit_line_eval(const fit_line_t *f, double x) {
  return f->alpha + f->slope * x;
}

/* Two independent lines, lo over points [0, split) and hi over [split, n),
 * with the split chosen to minimise the total weighted residual (every split
 * that leaves both pieces min_points points is tried; min_points >= 2). x
 * must be increasing. break_x is the geometric middle of x[split-1] and
 * x[split]: where the data change from one regime to the other. Errors: x
 * not increasing, n < 2 * min_points, and those of fit_line. */
typedef struct {
  fit_line_t lo, hi;
  int split;
  double break_x;
  double chisq;         /* lo.chisq + hi.chisq */
  double max_resid_rel; /* the worse of the two pieces */
} fit_two_piece_t;

chorus_result_t fit_two_piece(const double *x, const double *y, const double *w, int n, int min_points,
                              fit_two_piece_t *out);

/* Median of v[0..n) and its bootstrap percentile interval at `level` (e.g.
 * 0.95): `resamples` resamples of n values drawn with replacement, GSL's
 * MT19937 seeded with `seed`, so that the same input gives the same
 * interval. v is not modified. Errors: n < 2 (no interval can be drawn from
 * one value), resamples < 100, level outside (0, 1), a non-finite value. A
 * sample with no spread gives lo == median == hi. */
typedef struct {
  int n;
  double median, lo, hi, level;
} fit_ci_t;

chorus_result_t fit_median_ci(const double *v, int n, int resamples, double level, unsigned long seed, fit_ci_t *out);

/* The levels of a memory hierarchy from a rate measured by working set
 * (ws ascending, rate > 0): the best split of the points into two or three
 * runs of like rates, least squares on log(rate), each run at least `step`
 * times slower than the one before (1.25: a level). Three runs (private
 * caches, last-level cache, memory) are taken when they halve the squared
 * error of the best two. A boundary lies halfway, in log, between the last
 * working set of a run and the first of the next; a run's rate is the
 * geometric mean of its points. levels 0: no step was found (the rate is
 * flat or rises). Errors: n < 2, a working set not ascending, a rate that
 * is not a finite positive number. */
typedef struct {
  int levels;          /* 0, 2 or 3 */
  double cache, llc;   /* boundaries (ws units): with 3 levels both, with 2 llc only */
  double rate[3];      /* each run's rate, fastest first */
} fit_levels_t;

chorus_result_t fit_levels(const double *ws, const double *rate, int n, double step, fit_levels_t *out);

/* The two-sided Student-t quantile for a confidence interval at `level` with
 * dof degrees of freedom (gsl_cdf_tdist_Pinv); 0 when dof < 1. A line's
 * parameter lies in value +- fit_t_quantile(level, n - 2) * se. */
double fit_t_quantile(double level, int dof);

/* The p-value of the F test that a model with `extra` more parameters (and
 * residual chisq_big, dof_big degrees of freedom left) fits better than one
 * with residual chisq_small: 1 when it does not (no gain, dof_big < 1). */
double fit_f_test(double chisq_small, double chisq_big, int extra, int dof_big);

#endif
