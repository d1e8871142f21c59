/* csv.c -- splitting the plain CSV files chorus writes (csv.h). */
#include "csv.h"

#include <string.h>

int csv_split(char *line, char **field, int max) {
  int n = 0;
  for (char *p = line; n < max;) {
    field[n++] = p;
    char *c = strpbrk(p, ",\r\n");
    if (!c) break;
    int last = *c != ',';
    *c = 0;
    if (last) break;
    p = c + 1;
  }
  return n;
}

int csv_column(char *const *header, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(header[i], name)) return i;
  return -1;
}
