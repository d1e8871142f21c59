/* fuzz_util.h -- helpers the fuzz targets share: a scratch file for the
 * loaders that read scripts from disk, and the invariant check that turns a
 * loader that "lies" (accepts something inconsistent) into a crash the
 * fuzzer reports. */
#ifndef CHORUS_FUZZ_UTIL_H
#define CHORUS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A broken invariant: print it and abort, so that the fuzzer (or the
 * regression replay) fails with the reason. */
#define FUZZ_ASSERT(cond)                                                        \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                   \
    }                                                                            \
  } while (0)

/* With FUZZ_VERBOSE set, say what a loader answered (reading a replay). */
#define FUZZ_LOG(...)                               \
  do {                                              \
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, __VA_ARGS__); \
  } while (0)

/* Write data to a per-process scratch file named like "<dir>/<stem>.lua"
 * and put its path in path. Returns 0, or -1 when it cannot be written. */
static inline int fuzz_scratch_file(const uint8_t *data, size_t size, const char *stem, char *path, size_t len) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, len, "%s/chorus-fuzz-%d-%s.lua", dir && *dir ? dir : "/tmp", (int)getpid(), stem);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = size ? fwrite(data, 1, size, f) : 0;
  if (fclose(f) != 0 || n != size) {
    unlink(path);
    return -1;
  }
  return 0;
}

#endif
