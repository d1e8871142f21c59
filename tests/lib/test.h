/* test.h -- the minimal test runner every C test in tests/ uses: a test is a
 * named function, TEST_MAIN runs them all (or the one named on the command
 * line), prints one line per test and the plain closing "N passed, N failed".
 * A test that lacks a resource calls TEST_SKIP(reason); a binary whose tests
 * all skipped exits 77 so ctest reports it as skipped. */
#ifndef CHORUS_TEST_H
#define CHORUS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic seconds, for the tests' own deadlines and timings. */
static inline double test_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  const char *name;
  void (*fn)(void);
} test_case_t;

extern int test_failed_;  /* failures in the running test */
extern int test_skipped_; /* the running test skipped */

#define CHECK_TRUE(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
      test_failed_++;                                                                 \
    }                                                                                 \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                            \
  do {                                                                                \
    long long a_ = (long long)(a), b_ = (long long)(b);                               \
    if (a_ != b_) {                                                                   \
      fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, \
              #a, a_, #b, b_);                                                        \
      test_failed_++;                                                                 \
    }                                                                                 \
  } while (0)

#define CHECK_CONTAINS(hay, needle)                                                   \
  do {                                                                                \
    const char *h_ = (hay), *n_ = (needle);                                           \
    if (!h_ || !strstr(h_, n_)) {                                                     \
      fprintf(stderr, "  %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
              h_ ? h_ : "(null)", n_);                                                \
      test_failed_++;                                                                 \
    }                                                                                 \
  } while (0)

#define TEST_SKIP(reason)                                                             \
  do {                                                                                \
    printf("  skipped: %s\n", reason);                                                \
    test_skipped_ = 1;                                                                \
    return;                                                                           \
  } while (0)

static inline int test_run_all_(const test_case_t *tests, int argc, char **argv) {
  int passed = 0, failed = 0, skipped = 0;
  for (const test_case_t *t = tests; t->name; t++) {
    if (argc > 1 && strcmp(argv[1], t->name) != 0) continue;
    test_failed_ = 0;
    test_skipped_ = 0;
    t->fn();
    if (test_failed_) {
      printf("FAIL %s\n", t->name);
      failed++;
    } else if (test_skipped_) {
      printf("SKIP %s\n", t->name);
      skipped++;
    } else {
      printf("ok   %s\n", t->name);
      passed++;
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (failed) return 1;
  if (passed == 0 && skipped > 0) return 77;
  return 0;
}

#define TEST_MAIN(...)                                                                \
  int test_failed_, test_skipped_;                                                    \
  int main(int argc, char **argv) {                                                   \
    static const test_case_t tests_[] = {__VA_ARGS__, {NULL, NULL}};                  \
    return test_run_all_(tests_, argc, argv);                                         \
  }

#define TEST(fn) {#fn, fn}

#endif
