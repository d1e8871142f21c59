/* csv.h -- the plain CSV files chorus writes (perf --csv, sim --csv): a
 * header that names the columns, then rows of unquoted fields. */
#ifndef CHORUS_CLI_CSV_H
#define CHORUS_CLI_CSV_H

/* Split line in place at its commas, up to its end of line; field[i] point
 * into it. Returns the number of fields (at most max; empty fields count). */
int csv_split(char *line, char **field, int max);

/* The index of the column called name among a header's n fields, -1 when it
 * has none. */
int csv_column(char *const *header, int n, const char *name);

#endif
