/* replay_main.c -- runs a fuzz target's entry function on files, so that the
 * corpus and the crash inputs kept in tests/fuzz/regress replay as ordinary
 * tests in every build (gcc, ASan) without libFuzzer. Arguments are files or
 * folders (every regular file inside, in name order). Fails when an input
 * crashes the target, or when no input was found at all. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *b = realloc(buf, cap *= 2);
      if (!b) free(buf);
      buf = b;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return -1;
  }
  /* An exact-size copy: a read past the input is caught by ASan here too. */
  uint8_t *exact = malloc(n ? n : 1);
  if (exact) memcpy(exact, buf, n);
  free(buf);
  if (!exact) return -1;
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int replay_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "replay: cannot open folder %s\n", dir);
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **nn = realloc(names, sizeof *names * (cap = cap ? cap * 2 : 64));
      if (!nn) break;
      names = nn;
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_name);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (replay_file(path) != 0) rc = -1;
      else (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int count = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) continue; /* an empty regress/ folder may be absent */
    if (S_ISDIR(st.st_mode)) rc |= replay_dir(argv[i], &count) != 0;
    else if (replay_file(argv[i]) == 0) count++;
    else rc = 1;
  }
  printf("replayed %d inputs\n", count);
  if (count == 0) {
    fprintf(stderr, "replay: no input found\n");
    return 1;
  }
  return rc;
}
