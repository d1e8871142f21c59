/* sim_out.c -- what a simulation shows besides its time: the per-link report
 * (bytes, busy time, utilisation, busiest first) and the per-rank Gantt chart
 * as SVG. The Chrome trace is written while the simulation runs (sim.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_out.h"
#include "topo_route.h"
#include "topo_view.h"

typedef struct {
  int res;
  double bytes, busy;
} link_row_t;

static int cmp_rows(const void *a, const void *b) {
  const link_row_t *x = a, *y = b;
  if (x->busy != y->busy) return x->busy > y->busy ? -1 : 1;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  return x->res - y->res;
}

void sim_print_links(const sim_t *s, const sim_result_t *r, FILE *f, int top) {
  const topo_t *t = sim_topo(s);
  int nres = topo_nres_all(t);
  link_row_t *rows = malloc(sizeof *rows * (nres + 1));
  if (!rows) return;
  int n = 0;
  for (int i = 0; i < nres; i++) {
    double bytes, busy;
    sim_res_stats(s, i, &bytes, &busy);
    if (bytes > 0) rows[n++] = (link_row_t){i, bytes, busy};
  }
  qsort(rows, n, sizeof *rows, cmp_rows);
  fprintf(f, "# links: %d of %d carried data in %.3f us, busiest first\n", n, nres, r->time * 1e6);
  fprintf(f, "#%-47s %12s %14s %11s %6s %6s\n", " link", "capacity", "bytes", "busy (us)", "busy%", "util%");
  int shown = top > 0 && top < n ? top : n;
  for (int i = 0; i < shown; i++) {
    char name[256], cap[32];
    topo_res_name(t, rows[i].res, name, sizeof name);
    double c = topo_res_cap(t, rows[i].res);
    topo_fmt_bw(c, cap, sizeof cap);
    double util = c > 0 && r->time > 0 ? 100.0 * rows[i].bytes / (c * r->time) : NAN;
    fprintf(f, " %-47s %12s %14.0f %11.3f %6.1f ", name, cap, rows[i].bytes, rows[i].busy * 1e6,
            r->time > 0 ? 100.0 * rows[i].busy / r->time : 0);
    if (isnan(util)) fprintf(f, "%6s\n", "-");
    else fprintf(f, "%6.1f\n", util);
  }
  if (shown < n) fprintf(f, "# ... %d more links (--links=all shows every one)\n", n - shown);
  free(rows);
}

static const char *op_color(int code) {
  switch (code) {
  case PLAN_OP_SEND: return "#4e79a7";
  case PLAN_OP_RECV: return "#59a14f";
  case PLAN_OP_RECV_REDUCE: return "#e15759";
  case PLAN_OP_COPY: return "#bab0ac";
  case PLAN_OP_RECV_COPY_SEND: return "#76b7b2";
  case PLAN_OP_RECV_REDUCE_SEND: return "#f28e2b";
  case PLAN_OP_RECV_REDUCE_COPY_SEND: return "#b07aa1";
  default: return "#000000";
  }
}

void sim_write_timeline(const sim_t *s, const sim_result_t *r, FILE *f, const char *title) {
  size_t n;
  const sim_span_t *sp = sim_spans(s, &n);
  int maxrank = -1, maxch = 0;
  for (size_t i = 0; i < n; i++) {
    if (sp[i].rank > maxrank) maxrank = sp[i].rank;
    if (sp[i].channel > maxch) maxch = sp[i].channel;
  }
  int rows = (maxrank + 1) * (maxch + 1);
  if (rows < 1) rows = 1;
  const double left = 130, width = 1000, rowh = 16, top = 50;
  double height = top + rows * rowh + 90;
  double T = r->time > 0 ? r->time : 1e-9;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"Helvetica,Arial\" "
             "font-size=\"11\">\n", left + width + 20, height);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">%s</text>\n", left, title);
  fprintf(f, "<text x=\"%.0f\" y=\"36\" fill=\"#555\">each row is one rank and channel; a bar is one op, pale where "
             "it waits for data or a free slot</text>\n", left);
  for (int row = 0; row < rows; row++) {
    double y = top + row * rowh;
    if (row % 2) fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\"/>\n", left, y, width, rowh);
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">rank %d ch %d</text>\n", left - 6, y + rowh - 4,
            row / (maxch + 1), row % (maxch + 1));
  }
  for (size_t i = 0; i < n; i++) {
    int row = sp[i].rank * (maxch + 1) + sp[i].channel;
    double y = top + row * rowh + 2, h = rowh - 4;
    double x0 = left + width * sp[i].t0 / T, xw = left + width * sp[i].t_work / T, x1 = left + width * sp[i].t1 / T;
    const char *c = op_color(sp[i].code);
    if (xw > x0)
      fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" fill-opacity=\"0.25\"/>\n", x0,
              y, xw - x0, h, c);
    double w = x1 - xw < 0.3 ? 0.3 : x1 - xw;
    fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>rank %d ch %d %s: %.3f-%.3f us "
               "(waited %.3f us)</title></rect>\n",
            xw, y, w, h, c, sp[i].rank, sp[i].channel, plan_op_name(sp[i].code), sp[i].t0 * 1e6, sp[i].t1 * 1e6,
            (sp[i].t_work - sp[i].t0) * 1e6);
  }
  double ya = top + rows * rowh + 4;
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"black\"/>\n", left, ya, left + width, ya);
  double step = pow(10, floor(log10(T * 1e6 / 5)));
  if (T * 1e6 / step > 10) step *= 2;
  for (double u = 0; u <= T * 1e6 + 1e-12; u += step) {
    double x = left + width * u / (T * 1e6);
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\"/>"
               "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, ya, x, ya + 4, x, ya + 16, u);
  }
  fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">time (us)</text>\n", left + width / 2, ya + 30);
  double lx = left, ly = ya + 48;
  for (int code = 0; code < PLAN_NUM_OPS; code++) {
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
            lx, ly, op_color(code), lx + 16, ly + 9, plan_op_name(code));
    lx += 24 + 7.0 * strlen(plan_op_name(code));
  }
  fprintf(f, "</svg>\n");
}
