/* error.h -- one error style for library code: a function returns a
 * chorus_result_t and, when it fails, records what, where and why for
 * chorus_last_error() (per thread). `return err_set(r, ...)` does both;
 * TRY returns a failing result to the caller, CHECK sends it to the
 * function's cleanup path. No other way of passing a failure on is used. */
#ifndef CHORUS_CORE_ERROR_H
#define CHORUS_CORE_ERROR_H

#include "chorus.h"

/* Record msg as this thread's last error. */
void chorus_set_last_error(const char *msg);

/* Format and record; returns r so that `return err_set(r, ...)` reads well. */
chorus_result_t err_set(chorus_result_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Evaluate call (a chorus_result_t); if it failed, return its result, whose
 * message the failing function has already recorded. */
#define TRY(call)                                    \
  do {                                               \
    chorus_result_t try_res_ = (call);               \
    if (try_res_ != chorus_success) return try_res_; \
  } while (0)

/* Run call; on failure leave its result in `res` and jump to `cleanup`. */
#define CHECK(call)                          \
  do {                                       \
    res = (call);                            \
    if (res != chorus_success) goto cleanup; \
  } while (0)

#endif
