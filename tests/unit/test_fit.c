/* test_fit.c -- engine/fit: the alpha-beta line recovers known latency and
 * bandwidth from synthetic sweeps with deterministic noise, the two-piece fit
 * finds where an eager and a pipelined regime meet, the bootstrap interval
 * holds the true median and is the same on every run, and degenerate input
 * gets an error that names the problem instead of a NaN. */
#include <math.h>

#include "chorus.h"
#include "fit.h"
#include "test.h"

/* Deterministic multiplicative noise in [-amp, amp]: no RNG, same on every
 * platform. */
static double noise(int i, double amp) {
  return amp * sin(1.7 * i + 0.3);
}

static int sweep(double *x, double alpha, double bw, double amp, double *y) {
  int n = 0;
  for (double s = 8; s <= 64.0 * 1024 * 1024; s *= 2, n++) {
    x[n] = s;
    y[n] = (alpha + s / bw) * (1 + noise(n, amp));
  }
  return n;
}

static int within(double got, double want, double rel) {
  return fabs(got - want) <= rel * fabs(want);
}

static void line_recovers_alpha_and_bandwidth_within_1_percent(void) {
  double x[64], y[64], w[64], resid[64];
  const double alpha = 2e-6, bw = 10e9;
  int n = sweep(x, alpha, bw, 0.003, y);
  for (int i = 0; i < n; i++)
    w[i] = 1 / (y[i] * y[i]);
  fit_line_t f;
  CHECK_EQ_INT(fit_line(x, y, w, n, &f, resid), chorus_success);
  CHECK_TRUE(within(f.alpha, alpha, 0.01));
  CHECK_TRUE(within(f.bw, bw, 0.01));
  CHECK_TRUE(f.r2 > 0.999 && f.r2 <= 1);
  CHECK_TRUE(f.max_resid_rel < 0.01);
  CHECK_TRUE(f.alpha_se > 0 && f.bw_se > 0 && isfinite(f.alpha_se) && isfinite(f.bw_se));
  CHECK_TRUE(fabs(resid[3]) <= f.max_resid_rel);
  /* The true values lie inside the 95% intervals. */
  double t = fit_t_quantile(0.95, n - 2);
  CHECK_TRUE(t > 1.9 && t < 2.2);
  CHECK_TRUE(fabs(f.alpha - alpha) <= t * f.alpha_se);
  CHECK_TRUE(fabs(f.bw - bw) <= t * f.bw_se);
}

static void exact_line_has_r2_one_and_no_residual(void) {
  double x[64], y[64];
  int n = sweep(x, 5e-6, 3e9, 0, y);
  fit_line_t f;
  CHECK_EQ_INT(fit_line(x, y, NULL, n, &f, NULL), chorus_success);
  CHECK_TRUE(within(f.alpha, 5e-6, 1e-6) && within(f.bw, 3e9, 1e-9));
  CHECK_TRUE(f.max_resid_rel < 1e-9 && f.r2 > 1 - 1e-12);
}

static void two_piece_finds_the_break_between_eager_and_pipelined(void) {
  /* Below 64 KiB: 1 us + s / 5 GB/s; from 64 KiB: 20 us + s / 10 GB/s. */
  double x[64], y[64], w[64];
  int n = 0;
  for (double s = 8; s <= 64.0 * 1024 * 1024; s *= 2, n++) {
    x[n] = s;
    double t = s < 65536 ? 1e-6 + s / 5e9 : 20e-6 + s / 10e9;
    y[n] = t * (1 + noise(n, 0.002));
    w[n] = 1 / (y[n] * y[n]);
  }
  fit_line_t one;
  CHECK_EQ_INT(fit_line(x, y, w, n, &one, NULL), chorus_success);
  CHECK_TRUE(one.max_resid_rel > 0.05); /* one line does not fit */
  fit_two_piece_t f;
  CHECK_EQ_INT(fit_two_piece(x, y, w, n, 3, &f), chorus_success);
  CHECK_TRUE(f.break_x > 32768 && f.break_x < 65536);
  CHECK_EQ_INT((long)x[f.split], 65536);
  CHECK_TRUE(within(f.lo.alpha, 1e-6, 0.01) && within(f.lo.bw, 5e9, 0.01));
  CHECK_TRUE(within(f.hi.alpha, 20e-6, 0.01) && within(f.hi.bw, 10e9, 0.01));
  CHECK_TRUE(f.max_resid_rel < 0.01 && f.chisq < one.chisq);
  CHECK_TRUE(fit_f_test(one.chisq, f.chisq, 2, n - 4) < 1e-6);
}

static void f_test_keeps_one_line_when_two_pieces_gain_nothing(void) {
  double x[64], y[64], w[64];
  int n = sweep(x, 2e-6, 10e9, 0.003, y);
  for (int i = 0; i < n; i++)
    w[i] = 1 / (y[i] * y[i]);
  fit_line_t one;
  fit_two_piece_t two;
  CHECK_EQ_INT(fit_line(x, y, w, n, &one, NULL), chorus_success);
  CHECK_EQ_INT(fit_two_piece(x, y, w, n, 3, &two), chorus_success);
  CHECK_TRUE(fit_f_test(one.chisq, two.chisq, 2, n - 4) > 0.01);
  CHECK_TRUE(fit_f_test(1, 2, 2, 10) == 1); /* no gain */
}

static void bootstrap_interval_contains_the_true_median_and_repeats(void) {
  /* 101 values symmetric around 10 with deterministic spread: median 10. */
  double v[101];
  for (int i = 0; i < 101; i++)
    v[i] = 10 + sin(2.3 * i) * (1 + (i % 7) * 0.1);
  fit_ci_t a, b;
  CHECK_EQ_INT(fit_median_ci(v, 101, 2000, 0.95, 42, &a), chorus_success);
  CHECK_TRUE(a.lo <= 10 && 10 <= a.hi);
  CHECK_TRUE(a.lo <= a.median && a.median <= a.hi && a.hi - a.lo < 1);
  CHECK_EQ_INT(fit_median_ci(v, 101, 2000, 0.95, 42, &b), chorus_success);
  CHECK_TRUE(a.lo == b.lo && a.hi == b.hi && a.median == b.median); /* seeded: deterministic */
  CHECK_TRUE(v[0] == 10 + sin(0.0));                                /* input untouched */
}

static void bootstrap_of_constant_sample_is_a_point(void) {
  double v[5] = {3, 3, 3, 3, 3};
  fit_ci_t ci;
  CHECK_EQ_INT(fit_median_ci(v, 5, 500, 0.95, 1, &ci), chorus_success);
  CHECK_TRUE(ci.median == 3 && ci.lo == 3 && ci.hi == 3);
}

static void degenerate_input_is_an_error_not_a_nan(void) {
  double x[4] = {1024, 1024, 1024, 1024}, y[4] = {1e-6, 2e-6, 3e-6, 4e-6};
  fit_line_t f;
  CHECK_EQ_INT(fit_line(x, y, NULL, 1, &f, NULL), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "at least 2 points, got 1");
  CHECK_EQ_INT(fit_line(x, y, NULL, 4, &f, NULL), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "same size");
  double xs[3] = {1, 2, 3}, yn[3] = {1, NAN, 3}, wz[3] = {1, 0, 1};
  CHECK_EQ_INT(fit_line(xs, yn, NULL, 3, &f, NULL), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "point 1");
  CHECK_EQ_INT(fit_line(xs, y, wz, 3, &f, NULL), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "weight 1");
  /* Sizes spread, times constant: a line with slope 0, no bandwidth, no NaN. */
  double yc[3] = {2e-6, 2e-6, 2e-6};
  CHECK_EQ_INT(fit_line(xs, yc, NULL, 3, &f, NULL), chorus_success);
  CHECK_TRUE(f.bw == 0 && f.r2 == 1 && !isnan(f.alpha) && !isnan(f.alpha_se));
  fit_two_piece_t t;
  CHECK_EQ_INT(fit_two_piece(xs, yc, NULL, 3, 2, &t), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "at least 4 points");
  double xd[4] = {1, 3, 2, 4};
  CHECK_EQ_INT(fit_two_piece(xd, y, NULL, 4, 2, &t), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "must increase");
  fit_ci_t ci;
  double one[1] = {5};
  CHECK_EQ_INT(fit_median_ci(one, 1, 1000, 0.95, 1, &ci), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "at least 2 values");
  CHECK_EQ_INT(fit_median_ci(y, 4, 1000, 1.5, 1, &ci), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "level");
  CHECK_TRUE(fit_t_quantile(0.95, 0) == 0);
}

/* A copy kernel's rate by working set with three levels (48 GB/s to 4 MiB,
 * 14 to 64 MiB, 7 beyond, with 3 % noise and a mixed point at each step):
 * the boundaries fall between the runs; two levels, and a flat rate, give
 * two and none; a bad point is an error naming it. */
static void levels_find_the_caches_by_working_set(void) {
  double ws[16], rate[16];
  int n = 0;
  for (double w = 0.125; w <= 2048; w *= 2, n++) {
    ws[n] = w * 1048576;
    rate[n] = (w <= 4 ? 48e9 : w <= 64 ? 14e9 : 7e9) * (1 + noise(n, 0.03));
  }
  rate[6] = 28e9; /* 8 MiB: half in the private caches */
  fit_levels_t f;
  CHECK_EQ_INT(fit_levels(ws, rate, n, 1.25, &f), chorus_success);
  CHECK_EQ_INT(f.levels, 3);
  CHECK_TRUE(f.cache > 4 * 1048576.0 && f.cache < 16 * 1048576.0);
  CHECK_TRUE(f.llc > 64 * 1048576.0 && f.llc < 128 * 1048576.0);
  CHECK_TRUE(fabs(f.rate[1] / 14e9 - 1) < 0.05);
  for (int i = 0; i < n; i++) rate[i] = (ws[i] <= 32 * 1048576.0 ? 30e9 : 10e9) * (1 + noise(i, 0.03));
  CHECK_EQ_INT(fit_levels(ws, rate, n, 1.25, &f), chorus_success);
  CHECK_EQ_INT(f.levels, 2);
  CHECK_TRUE(f.llc > 32 * 1048576.0 && f.llc < 64 * 1048576.0);
  for (int i = 0; i < n; i++) rate[i] = 20e9 * (1 + noise(i, 0.05));
  CHECK_EQ_INT(fit_levels(ws, rate, n, 1.25, &f), chorus_success);
  CHECK_EQ_INT(f.levels, 0);
  rate[3] = 0;
  CHECK_EQ_INT(fit_levels(ws, rate, n, 1.25, &f), chorus_invalid_argument);
  CHECK_CONTAINS(chorus_last_error(), "rate 3");
}

TEST_MAIN(TEST(line_recovers_alpha_and_bandwidth_within_1_percent), TEST(exact_line_has_r2_one_and_no_residual),
          TEST(two_piece_finds_the_break_between_eager_and_pipelined),
          TEST(f_test_keeps_one_line_when_two_pieces_gain_nothing),
          TEST(bootstrap_interval_contains_the_true_median_and_repeats), TEST(bootstrap_of_constant_sample_is_a_point),
          TEST(degenerate_input_is_an_error_not_a_nan), TEST(levels_find_the_caches_by_working_set))
