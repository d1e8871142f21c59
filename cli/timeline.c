/* timeline.c -- `chorus timeline` (timeline.h): both traces go into one
 * self-contained page (cli/timeline_page.html, built in), which draws them. */
#include "timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"

/* The whole of a trace file, checked to be one (Chrome/Perfetto JSON with
 * traceEvents); NULL after saying why. */
static char *read_trace(const char *what, const char *path, size_t *len) {
  FILE *f = fopen(path, "r");
  if (!f) return fprintf(stderr, "chorus timeline: %s %s: %s\n", what, path, strerror(errno)), NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) {
      char *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
      if (!nb) free(buf);
      buf = nb, cap *= 2;
    }
  }
  fclose(f);
  if (!buf) return fprintf(stderr, "chorus timeline: %s %s: out of memory (over 1 GiB?)\n", what, path), NULL;
  buf[n] = 0;
  const char *p = buf + strspn(buf, " \t\r\n");
  if (*p != '{' || !strstr(buf, "\"traceEvents\"") || !strstr(buf, "\"ph\":\"X\"")) {
    fprintf(stderr, "chorus timeline: %s %s: not a trace with op events (write one with chorus perf --trace or "
            "chorus sim --trace)\n", what, path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

int cmd_timeline(int argc, char **argv) {
  const char *files[2] = {NULL, NULL}, *html = NULL;
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: chorus timeline MEASURED.json PREDICTED.json --html OUT.html\n\n"
             "Draws a measured trace (chorus perf --trace) and a predicted one (chorus sim --trace) of the\n"
             "same call on one time axis: for each rank and channel the measured ops above the predicted\n"
             "ones, each op's end compared with its predicted end (the difference coloured), and the\n"
             "ranks' and ops' largest differences listed. One self-contained page; open it in a browser.\n");
      return 0;
    } else if (!strcmp(argv[i], "--html") && i + 1 < argc) {
      html = argv[++i];
    } else if (argv[i][0] != '-' && nfiles < 2) {
      files[nfiles++] = argv[i];
    } else {
      fprintf(stderr, "chorus timeline: unexpected '%s' (chorus timeline --help)\n", argv[i]);
      return 2;
    }
  }
  if (nfiles != 2 || !html) {
    fprintf(stderr, "chorus timeline: give MEASURED.json PREDICTED.json --html OUT.html\n");
    return 2;
  }
  size_t len[2] = {0, 0};
  char *text[2] = {read_trace("measured", files[0], &len[0]), NULL};
  if (text[0]) text[1] = read_trace("predicted", files[1], &len[1]);
  if (!text[0] || !text[1]) {
    free(text[0]);
    return 1;
  }
  const char *marks[2] = {"@CHORUS_MEASURED_JSON@", "@CHORUS_PREDICTED_JSON@"};
  const char *data[2] = {text[0], text[1]};
  int rc = page_write("timeline", "--html", html, timeline_page, timeline_page_len, 2, marks, data, len);
  if (!rc) printf("chorus timeline: %s (measured %s, predicted %s)\n", html, files[0], files[1]);
  free(text[0]);
  free(text[1]);
  return rc;
}
