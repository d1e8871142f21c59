/* error.c -- the per-thread record of the last error (chorus_last_error)
 * and err_set, which every library floor fails through. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

const char *chorus_last_error(void) { return last_error; }

void chorus_set_last_error(const char *msg) {
  size_t n = strlen(msg);
  if (n >= sizeof last_error) n = sizeof last_error - 1;
  memcpy(last_error, msg, n);
  last_error[n] = 0;
}

chorus_result_t err_set(chorus_result_t r, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  chorus_set_last_error(msg);
  return r;
}
