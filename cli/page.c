/* page.c -- a built-in page with its data (page.h). */
#include "page.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int page_write(const char *cmd, const char *opt, const char *path, const char *tmpl, size_t tmpl_len, int n,
               const char *const *marks, const char *const *data, const size_t *lens) {
  const char *at[8];
  const char *from = tmpl;
  for (int i = 0; i < n && i < 8; i++) {
    at[i] = strstr(from, marks[i]);
    if (!at[i]) return fprintf(stderr, "chorus %s: the built-in page has no %s\n", cmd, marks[i]), 1;
    from = at[i] + strlen(marks[i]);
  }
  FILE *f = fopen(path, "w");
  if (!f) return fprintf(stderr, "chorus %s: %s %s: %s\n", cmd, opt, path, strerror(errno)), 1;
  from = tmpl;
  for (int i = 0; i < n && i < 8; i++) {
    fwrite(from, 1, (size_t)(at[i] - from), f);
    for (size_t k = 0; k < lens[i]; k++) {
      if (data[i][k] == '<' && k + 1 < lens[i] && data[i][k + 1] == '/') fputs("<\\", f);
      else fputc(data[i][k], f);
    }
    from = at[i] + strlen(marks[i]);
  }
  fwrite(from, 1, tmpl_len - (size_t)(from - tmpl), f);
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad) return fprintf(stderr, "chorus %s: %s %s: %s\n", cmd, opt, path, strerror(errno)), 1;
  return 0;
}
