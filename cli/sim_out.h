/* sim_out.h -- `chorus sim`'s reports besides the table: the per-link
 * report and the per-rank Gantt chart. Both read a finished sim_run's
 * state through sim.h's accessors; neither changes it. */
#ifndef CHORUS_SIM_OUT_H
#define CHORUS_SIM_OUT_H

#include <stdio.h>

#include "sim.h"

/* Per-link bytes, busy time and utilisation, busiest first (at most `top`
 * rows; 0: all). */
void sim_print_links(const sim_t *s, const sim_result_t *r, FILE *f, int top);
/* A per-rank Gantt chart of the recorded spans, as SVG. */
void sim_write_timeline(const sim_t *s, const sim_result_t *r, FILE *f, const char *title);

#endif
