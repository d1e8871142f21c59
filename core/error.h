/* error.h -- one error style for library code: a function returns a
 * chorus_result_t and, when it fails, records what, where and why for
 * chorus_last_error() (per thread). `return err_set(r, ...)` does both;
 * CHECK propagates a failing result to the caller's cleanup path. */
#ifndef CHORUS_CORE_ERROR_H
#define CHORUS_CORE_ERROR_H

#include "chorus.h"

/* Record msg as this thread's last error. */
void chorus_set_last_error(const char *msg);

/* Format and record; returns r so that `return err_set(r, ...)` reads well. */
chorus_result_t err_set(chorus_result_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run call; on failure leave its result in `res` and jump to `cleanup`. */
#define CHECK(call)                          \
  do {                                       \
    res = (call);                            \
    if (res != chorus_success) goto cleanup; \
  } while (0)

#endif
