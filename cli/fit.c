/* fit.c -- least-squares lines, two-piece lines and bootstrap medians on
 * GSL, for `chorus calibrate` (see fit.h for the contracts). Input is checked
 * here once so that GSL never sees a degenerate problem and callers never
 * see a NaN. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "error.h"
#include "params.h"

static chorus_result_t check_points(const char *who, const double *x, const double *y, const double *w, int n,
                                    int need) {
  if (!x || !y) return err_set(chorus_invalid_argument, "%s: no data", who);
  if (n < need) return err_set(chorus_invalid_argument, "%s: needs at least %d points, got %d", who, need, n);
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i]) || !isfinite(y[i]) || y[i] <= 0)
      return err_set(chorus_invalid_argument, "%s: point %d (%g, %g) is not finite with a positive value", who, i, x[i],
                     y[i]);
    if (w && (!isfinite(w[i]) || w[i] <= 0))
      return err_set(chorus_invalid_argument, "%s: weight %d (%g) is not a finite positive number", who, i, w[i]);
  }
  return chorus_success;
}

/* The fit proper, on checked input. */
static chorus_result_t line_fit(const double *x, const double *y, const double *w, int n, fit_line_t *f,
                                double *resid) {
  double xmin = x[0], xmax = x[0];
  for (int i = 1; i < n; i++)
    xmin = fmin(xmin, x[i]), xmax = fmax(xmax, x[i]);
  /* Relative spread: sizes that differ by rounding only are no spread. */
  if (xmax - xmin <= 1e-12 * fmax(fabs(xmax), 1.0))
    return err_set(chorus_invalid_argument,
                   "fit_line: all %d points have the same size (%g): a line needs at least two sizes", n, xmin);
  double *ones = NULL;
  if (!w) {
    ones = malloc(sizeof *ones * (size_t)n);
    if (!ones) return err_set(chorus_out_of_memory, "fit_line: out of memory");
    for (int i = 0; i < n; i++)
      ones[i] = 1;
    w = ones;
  }
  double c0, c1, cov00, cov01, cov11, chisq;
  int rc = gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
  if (rc || !isfinite(c0) || !isfinite(c1)) {
    free(ones);
    return err_set(chorus_invalid_argument, "fit_line: the least-squares problem is singular (%d points)", n);
  }
  memset(f, 0, sizeof *f);
  f->n = n;
  f->alpha = c0;
  f->slope = c1;
  f->chisq = chisq;
  /* gsl_fit_wlinear's covariance takes the weights as 1/variance; ours are
   * relative, so scale by the residual variance per degree of freedom. */
  if (n > 2) {
    double s2 = chisq / (n - 2);
    f->alpha_se = sqrt(fmax(cov00 * s2, 0));
    f->slope_se = sqrt(fmax(cov11 * s2, 0));
  }
  double sw = 0, swy = 0;
  for (int i = 0; i < n; i++)
    sw += w[i], swy += w[i] * y[i];
  double ybar = swy / sw, tss = 0;
  for (int i = 0; i < n; i++)
    tss += w[i] * (y[i] - ybar) * (y[i] - ybar);
  /* Constant data that the line fits exactly: R^2 is 1, not 0/0. */
  f->r2 = tss > 0 ? 1 - chisq / tss : (chisq <= 1e-30 ? 1 : 0);
  for (int i = 0; i < n; i++) {
    double r = (y[i] - (c0 + c1 * x[i])) / y[i];
    if (resid) resid[i] = r;
    f->max_resid_rel = fmax(f->max_resid_rel, fabs(r));
  }
  if (c1 > 0) {
    f->bw = 1 / c1;
    f->bw_se = f->slope_se / (c1 * c1);
  }
  free(ones);
  return chorus_success;
}

chorus_result_t fit_line(const double *x, const double *y, const double *w, int n, fit_line_t *out, double *resid) {
  if (!out) return err_set(chorus_invalid_argument, "fit_line: no result to fill");
  TRY(check_points("fit_line", x, y, w, n, 2));
  return line_fit(x, y, w, n, out, resid);
}

chorus_result_t fit_two_piece(const double *x, const double *y, const double *w, int n, int min_points,
                              fit_two_piece_t *out) {
  if (!out) return err_set(chorus_invalid_argument, "fit_two_piece: no result to fill");
  if (min_points < 2)
    return err_set(chorus_invalid_argument, "fit_two_piece: min_points %d: each piece needs at least 2 points",
                   min_points);
  TRY(check_points("fit_two_piece", x, y, w, n, 2 * min_points));
  for (int i = 1; i < n; i++)
    if (!(x[i] > x[i - 1]))
      return err_set(chorus_invalid_argument, "fit_two_piece: sizes must increase (point %d: %g after %g)", i, x[i],
                     x[i - 1]);
  int found = 0;
  for (int k = min_points; k <= n - min_points; k++) {
    fit_line_t lo, hi;
    if (line_fit(x, y, w, k, &lo, NULL) != chorus_success) return chorus_invalid_argument;
    if (line_fit(x + k, y + k, w ? w + k : NULL, n - k, &hi, NULL) != chorus_success) return chorus_invalid_argument;
    double c = lo.chisq + hi.chisq;
    /* Ties go to the earlier split: the result does not depend on rounding
     * in the last bits of equal residuals. */
    if (!found || c < out->chisq * (1 - 1e-12)) {
      found = 1;
      out->lo = lo;
      out->hi = hi;
      out->split = k;
      out->chisq = c;
    }
  }
  out->break_x = sqrt(fmax(x[out->split - 1], 0) * fmax(x[out->split], 0));
  if (out->break_x == 0) out->break_x = 0.5 * (x[out->split - 1] + x[out->split]);
  out->max_resid_rel = fmax(out->lo.max_resid_rel, out->hi.max_resid_rel);
  return chorus_success;
}

chorus_result_t fit_median_ci(const double *v, int n, int resamples, double level, unsigned long seed, fit_ci_t *out) {
  if (!v || !out) return err_set(chorus_invalid_argument, "fit_median_ci: no data");
  if (n < 2)
    return err_set(chorus_invalid_argument,
                   "fit_median_ci: needs at least 2 values for an interval, got %d (repeat the measurement)", n);
  if (resamples < 100)
    return err_set(chorus_invalid_argument, "fit_median_ci: %d resamples: use 100 or more", resamples);
  if (!(level > 0 && level < 1))
    return err_set(chorus_invalid_argument, "fit_median_ci: level %g is not in (0, 1)", level);
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return err_set(chorus_invalid_argument, "fit_median_ci: value %d (%g) is not finite", i, v[i]);
  double *s = malloc(sizeof *s * (size_t)n), *meds = malloc(sizeof *meds * (size_t)resamples);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!s || !meds || !rng) {
    free(s), free(meds);
    if (rng) gsl_rng_free(rng);
    return err_set(chorus_out_of_memory, "fit_median_ci: out of memory");
  }
  memcpy(s, v, sizeof *s * (size_t)n);
  gsl_sort(s, 1, (size_t)n);
  out->n = n;
  out->level = level;
  out->median = gsl_stats_median_from_sorted_data(s, 1, (size_t)n);
  gsl_rng_set(rng, seed);
  double *draw = malloc(sizeof *draw * (size_t)n);
  if (!draw) {
    free(s), free(meds), gsl_rng_free(rng);
    return err_set(chorus_out_of_memory, "fit_median_ci: out of memory");
  }
  for (int b = 0; b < resamples; b++) {
    for (int i = 0; i < n; i++)
      draw[i] = v[gsl_rng_uniform_int(rng, (unsigned long)n)];
    gsl_sort(draw, 1, (size_t)n);
    meds[b] = gsl_stats_median_from_sorted_data(draw, 1, (size_t)n);
  }
  gsl_sort(meds, 1, (size_t)resamples);
  out->lo = gsl_stats_quantile_from_sorted_data(meds, 1, (size_t)resamples, (1 - level) / 2);
  out->hi = gsl_stats_quantile_from_sorted_data(meds, 1, (size_t)resamples, 1 - (1 - level) / 2);
  free(draw);
  free(s);
  free(meds);
  gsl_rng_free(rng);
  return chorus_success;
}

double fit_t_quantile(double level, int dof) {
  if (dof < 1 || !(level > 0 && level < 1)) return 0;
  return gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, dof);
}

double fit_f_test(double chisq_small, double chisq_big, int extra, int dof_big) {
  if (extra < 1 || dof_big < 1 || !(chisq_small > chisq_big)) return 1;
  if (chisq_big <= 0) return 0; /* the bigger model is exact, the smaller is not */
  double F = ((chisq_small - chisq_big) / extra) / (chisq_big / dof_big);
  return gsl_cdf_fdist_Q(F, extra, dof_big);
}

/* Squared deviations of x[a .. b-1] from their mean, which goes to *mean. */
static double run_sse(const double *x, int a, int b, double *mean) {
  double s = 0, e = 0;
  for (int i = a; i < b; i++) s += x[i];
  *mean = s / (b - a);
  for (int i = a; i < b; i++) e += (x[i] - *mean) * (x[i] - *mean);
  return e;
}

chorus_result_t fit_levels(const double *ws, const double *rate, int n, double step, fit_levels_t *out) {
  memset(out, 0, sizeof *out);
  if (n < 2 || n > 64) return err_set(chorus_invalid_argument, "fit_levels: %d working sets (2 to 64)", n);
  double x[64];
  for (int i = 0; i < n; i++) {
    if (!(isfinite(rate[i]) && rate[i] > 0))
      return err_set(chorus_invalid_argument, "fit_levels: rate %d is %g, not a finite positive number", i, rate[i]);
    if (!(isfinite(ws[i]) && ws[i] > 0) || (i && !(ws[i] > ws[i - 1])))
      return err_set(chorus_invalid_argument, "fit_levels: working set %d (%g) is not positive and ascending", i, ws[i]);
    x[i] = log(rate[i]);
  }
  double lstep = log(step), best2 = INFINITY, best3 = INFINITY, m2[2] = {0}, m3[3] = {0};
  int b2 = -1, b3a = -1, b3b = -1;
  for (int i = 1; i < n; i++) {
    double m[2], e = run_sse(x, 0, i, &m[0]) + run_sse(x, i, n, &m[1]);
    if (m[0] - m[1] >= lstep && e < best2) best2 = e, b2 = i, m2[0] = m[0], m2[1] = m[1];
  }
  for (int i = 1; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double m[3], e = run_sse(x, 0, i, &m[0]) + run_sse(x, i, j, &m[1]) + run_sse(x, j, n, &m[2]);
      if (m[0] - m[1] >= lstep && m[1] - m[2] >= lstep && e < best3)
        best3 = e, b3a = i, b3b = j, m3[0] = m[0], m3[1] = m[1], m3[2] = m[2];
    }
  if (b3a > 0 && (b2 < 0 || best3 <= 0.5 * best2)) {
    out->levels = 3;
    out->cache = sqrt(ws[b3a - 1] * ws[b3a]);
    out->llc = sqrt(ws[b3b - 1] * ws[b3b]);
    for (int k = 0; k < 3; k++) out->rate[k] = exp(m3[k]);
  } else if (b2 > 0) {
    out->levels = 2;
    out->llc = sqrt(ws[b2 - 1] * ws[b2]);
    for (int k = 0; k < 2; k++) out->rate[k] = exp(m2[k]);
  }
  return chorus_success;
}
