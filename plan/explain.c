/* explain.c -- the explainer (explain.h): the verifier's out-of-place run,
 * printed round by round: which chunk moves from which rank to which, and
 * after each round what every rank holds. */
#include "explain.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "verify_run.h"

/* A value as explain shows it at chunk index `at`: for reductions the set
 * of ranks ("{0-3}", with "@in[5]" when it is another position than the
 * chunk it sits in), for data movement its origin ("r2.in[0]"). */
static void explain_value(const vrun_t *R, vval_t v, int at, char *buf, size_t len) {
  char set[EXPLAIN_CELL - 24];
  if (!v) {
    snprintf(buf, len, ".");
    return;
  }
  vrun_ranks_text(R, v, set, sizeof set);
  int pos = val_pos(R, v);
  if (plan_coll_reduces(R->p->coll) && pos == at)
    snprintf(buf, len, "{%s}", set);
  else if (plan_coll_reduces(R->p->coll))
    snprintf(buf, len, "{%s}@in[%d]", set, pos);
  else if (val_count(R, v) == 1)
    snprintf(buf, len, "r%s.in[%d]", set, pos);
  else
    snprintf(buf, len, "{%s}.in[%d]", set, pos);
}

/* "r3" for rank 3, "h0" for hub 0 (participant nranks). */
static const char *part_name(const vrun_t *R, int part, char *buf, size_t len) {
  snprintf(buf, len, "%s%d", part >= R->n ? "h" : "r", part >= R->n ? part - R->n : part);
  return buf;
}

static void explain_label(const vrun_t *R, int pi, char *buf, size_t len) {
  char who[16];
  part_name(R, pi / R->nch, who, sizeof who);
  if (R->nch > 1)
    snprintf(buf, len, "%s ch%d", who, pi % R->nch);
  else
    snprintf(buf, len, "%s", who);
}

static void explain_header(const vrun_t *R) {
  const plan_t *p = R->p;
  FILE *f = R->trace;
  fprintf(f, "%s %s%s%s%s: %d rank%s on %d node%s, %d channel%s, %d chunk%s per unit\n",
          p->algo[0] ? p->algo : "unnamed", chorus_coll_name(p->coll), p->opts[0] ? " (" : "", p->opts,
          p->opts[0] ? ")" : "", R->n, R->n > 1 ? "s" : "", p->shape.nnodes, p->shape.nnodes > 1 ? "s" : "", R->nch,
          R->nch > 1 ? "s" : "", R->k, R->k > 1 ? "s" : "");
  fprintf(f, "each rank and channel has in[0..%d] and out[0..%d]", R->in_chunks - 1, R->out_chunks - 1);
  if (p->scratch_chunks) fprintf(f, " and scratch[0..%d]", p->scratch_chunks - 1);
  fprintf(f, "; a connection buffers %d chunks\n", R->conns.slots);
  if (p->nhubs)
    fprintf(f, "h0%s%s: hub%s, a switch that reduces what it receives; it holds only scratch\n",
            p->nhubs > 1 ? "-h" : "", p->nhubs > 1 ? "..." : "", p->nhubs > 1 ? "s" : "");
  if (p->coll == chorus_broadcast)
    fprintf(f, "only the root's (rank %d) in holds data; the others receive it\n", p->root);
  else if (p->coll == chorus_reduce)
    fprintf(f, "every rank's in holds its own data; only the root (rank %d) has an out ('-' elsewhere)\n", p->root);
  else
    fprintf(f, "every rank's in holds its own data\n");
  fprintf(f, "each round, every rank runs its next op if its message has arrived and its send has room\n");
  char all[32] = "{0}";
  if (R->n > 1) snprintf(all, sizeof all, "{0-%d}", R->n - 1);
  if (plan_coll_reduces(p->coll))
    fprintf(f,
            "a value is the set of ranks whose data it holds: %s = reduced over all ranks; '.' = not written;\n"
            "@in[p] marks a value of input position p sitting in another chunk\n",
            all);
  else
    fprintf(f, "a value is the rank and input chunk it came from: r2.in[0] = rank 2's in[0]; '.' = not written\n");
}

/* "r1: out[3] = in[3] + from r0 -> {0-1}, sent to r2". */
static void explain_op_text(const vrun_t *R, int pi, const plan_op_t *op, vval_t v, char *buf, size_t len) {
  char who[32], val[EXPLAIN_CELL], expr[64] = "", dst[40] = "", to[16], from[16];
  unsigned f = R->opf[op->code];
  if (f & OPF_SEND) part_name(R, op->send_peer, to, sizeof to);
  if (f & OPF_RECV) part_name(R, op->recv_peer, from, sizeof from);
  explain_label(R, pi, who, sizeof who);
  const char *sb = plan_buf_name((plan_buf_t)op->src_buf), *db = plan_buf_name((plan_buf_t)op->dst_buf);
  explain_value(R, v, (f & OPF_DST) ? op->dst_chunk : op->src_chunk, val, sizeof val);
  if (op->code == PLAN_OP_SEND) {
    snprintf(buf, len, "%s -> %s  %s[%d] %s", who, to, sb, (int)op->src_chunk, val);
    return;
  }
  if (f & OPF_DST) snprintf(dst, sizeof dst, "%s[%d] = ", db, (int)op->dst_chunk);
  if ((f & OPF_SRC) && (f & OPF_RECV))
    snprintf(expr, sizeof expr, "%s[%d] + from %s", sb, (int)op->src_chunk, from);
  else if (f & OPF_RECV)
    snprintf(expr, sizeof expr, "from %s", from);
  else
    snprintf(expr, sizeof expr, "%s[%d]", sb, (int)op->src_chunk);
  char sent[40] = "";
  if (f & OPF_SEND) snprintf(sent, sizeof sent, ", sent to %s", to);
  snprintf(buf, len, "%s: %s%s -> %s%s", who, dst, expr, val, sent);
}

void explain_round_start(vrun_t *R) {
  R->nlines = 0;
  R->skipped = 0;
}

void explain_op(vrun_t *R, int pi, const plan_op_t *op, vval_t v) {
  if (pi / R->nch >= R->show_ranks) {
    R->skipped++;
    return;
  }
  explain_line_t *l = &R->lines[R->nlines++];
  explain_op_text(R, pi, op, v, l->text, sizeof l->text);
  l->name = plan_op_name((plan_opcode_t)op->code);
  unsigned f = R->opf[op->code];
  l->rank = pi / R->nch, l->ch = pi % R->nch;
  l->to = (f & OPF_SEND) ? op->send_peer : -1;
  l->from = (f & OPF_RECV) ? op->recv_peer : -1;
}

static void explain_print_ops(const vrun_t *R) {
  FILE *f = R->trace;
  int width = 40;
  for (size_t i = 0; i < R->nlines; i++)
    if ((int)strlen(R->lines[i].text) > width) width = (int)strlen(R->lines[i].text);
  fprintf(f, "round %ld:\n", R->round);
  for (size_t i = 0; i < R->nlines; i++)
    fprintf(f, "  %-*s  %s\n", width, R->lines[i].text, R->lines[i].name);
  if (R->skipped && R->show_ranks < R->n)
    fprintf(f, "  ... and %zu more ops on ranks %d-%d%s\n", R->skipped, R->show_ranks, R->n - 1,
            R->np > R->n ? " and the hubs" : "");
  else if (R->skipped)
    fprintf(f, "  ... and %zu more ops on hubs %d-%d\n", R->skipped, R->show_ranks - R->n, R->np - R->n - 1);
}

/* The table's columns: out chunks, then scratch chunks, at most
 * show_cols. Column i names buffer *b, chunk *c. */
static int explain_ncols(const vrun_t *R) {
  int all = R->out_chunks + R->p->scratch_chunks;
  return all < R->show_cols ? all : R->show_cols;
}

static void explain_col(const vrun_t *R, int i, int *b, int *c) {
  *b = i < R->out_chunks ? PLAN_BUF_OUTPUT : PLAN_BUF_SCRATCH;
  *c = i < R->out_chunks ? i : i - R->out_chunks;
}

/* Fill R->cells (row-major: shown programs by columns, with the column
 * headers as row 0) and return the rows shown. */
static int explain_fill(vrun_t *R, int ncols) {
  int ranks = R->np < R->show_ranks ? R->np : R->show_ranks, rows = ranks * R->nch;
  for (int i = 0; i < ncols; i++) {
    int b, c;
    explain_col(R, i, &b, &c);
    snprintf(R->cells[i], EXPLAIN_CELL, "%s[%d]", plan_buf_name((plan_buf_t)b), c);
  }
  for (int pi = 0; pi < rows; pi++)
    for (int i = 0; i < ncols; i++) {
      int b, c;
      explain_col(R, i, &b, &c);
      char *cell = R->cells[(size_t)(pi + 1) * ncols + i];
      if (b == PLAN_BUF_OUTPUT && ((R->p->coll == chorus_reduce && pi / R->nch != R->p->root) || pi / R->nch >= R->n))
        snprintf(cell, EXPLAIN_CELL, "-"); /* no output buffer: reduce's non-roots, hubs */
      else
        explain_value(R, vrun_slot_read(R, pi, b, c), c, cell, EXPLAIN_CELL);
    }
  return rows;
}

static void explain_table(vrun_t *R) {
  FILE *f = R->trace;
  int ncols = explain_ncols(R), rows = explain_fill(R, ncols), labw = 0, width[EXPLAIN_COLS];
  char label[32];
  for (int pi = 0; pi < rows; pi++) {
    explain_label(R, pi, label, sizeof label);
    if ((int)strlen(label) > labw) labw = (int)strlen(label);
  }
  for (int i = 0; i < ncols; i++) {
    width[i] = 0;
    for (int row = 0; row <= rows; row++) {
      int w = (int)strlen(R->cells[(size_t)row * ncols + i]);
      if (w > width[i]) width[i] = w;
    }
  }
  fprintf(f, "  after round %ld:\n", R->round);
  for (int row = 0; row <= rows; row++) {
    if (row)
      explain_label(R, row - 1, label, sizeof label);
    else
      label[0] = 0;
    fprintf(f, "    %-*s", labw, label);
    /* The last column is not padded: no trailing blanks in golden files. */
    for (int i = 0; i < ncols; i++)
      fprintf(f, "  %-*s", i + 1 < ncols ? width[i] : 0, R->cells[(size_t)row * ncols + i]);
    fprintf(f, "\n");
  }
  if (rows < (int)R->nprogs) {
    if (R->show_ranks < R->n)
      fprintf(f, "    (ranks %d-%d%s not shown)\n", R->show_ranks, R->n - 1, R->np > R->n ? " and the hubs" : "");
    else
      fprintf(f, "    (hubs %d-%d not shown)\n", R->show_ranks - R->n, R->np - R->n - 1);
  }
  if (ncols < R->out_chunks + R->p->scratch_chunks)
    fprintf(f, "    (%d more chunks not shown)\n", R->out_chunks + R->p->scratch_chunks - ncols);
}

/* A JSON string: the characters JSON needs escaped, escaped. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* JSON: the next text starts empty, in a fresh buffer (a memory stream
 * rewound would keep the longer text it held). */
static void explain_text_restart(vrun_t *R) {
  fclose(R->trace);
  free(R->round_text);
  R->round_text = NULL, R->round_text_len = 0;
  R->trace = open_memstream(&R->round_text, &R->round_text_len);
  if (!R->trace) R->trace = fopen("/dev/null", "w");
}

/* One round of the JSON: its ops, the cells after it, and its text. */
static void explain_json_round(vrun_t *R) {
  FILE *f = R->json;
  fflush(R->trace);
  fprintf(f, "%s\n  {\"round\": %ld, \"ops\": [", R->round > 1 ? "," : "", R->round);
  for (size_t i = 0; i < R->nlines; i++) {
    const explain_line_t *l = &R->lines[i];
    fprintf(f, "%s{\"rank\": %d, \"ch\": %d, \"to\": %d, \"from\": %d, \"name\": ", i ? ", " : "", l->rank, l->ch,
            l->to, l->from);
    json_str(f, l->name);
    fprintf(f, ", \"text\": ");
    json_str(f, l->text);
    fprintf(f, "}");
  }
  int ncols = explain_ncols(R), rows = (R->np < R->show_ranks ? R->np : R->show_ranks) * R->nch;
  fprintf(f, "],\n   \"cells\": [");
  for (int row = 1; row <= rows; row++) {
    fprintf(f, "%s[", row > 1 ? ", " : "");
    for (int i = 0; i < ncols; i++) {
      if (i) fputs(", ", f);
      json_str(f, R->cells[(size_t)row * ncols + i]);
    }
    fprintf(f, "]");
  }
  fprintf(f, "],\n   \"text\": ");
  json_str(f, R->round_text ? R->round_text : "");
  fprintf(f, "}");
  explain_text_restart(R);
}

void explain_round_end(vrun_t *R) {
  explain_print_ops(R);
  explain_table(R);
  if (R->json) explain_json_round(R);
}

/* The postcondition in words, for the closing line. */
static void explain_goal(const vrun_t *R, char *buf, size_t len) {
  int n = R->n, k = R->k, root = R->p->root;
  switch (R->p->coll) {
  case chorus_allreduce:
    snprintf(buf, len, "every rank holds in out[c] the reduction of in[c] over all %d ranks", n);
    break;
  case chorus_broadcast:
    snprintf(buf, len, "every rank holds in out[c] the root's (rank %d) in[c]", root);
    break;
  case chorus_reduce:
    snprintf(buf, len, "the root (rank %d) holds in out[c] the reduction of in[c] over all %d ranks", root, n);
    break;
  case chorus_allgather:
    snprintf(buf, len, "every rank holds in out[j*%d+c] rank j's in[c], for all %d ranks j", k, n);
    break;
  case chorus_reducescatter:
    snprintf(buf, len, "rank i holds in out[c] the reduction of in[i*%d+c] over all %d ranks", k, n);
    break;
  default:
    snprintf(buf, len, "rank i holds in out[j*%d+c] rank j's in[i*%d+c], for all %d ranks j", k, k, n);
    break;
  }
}

static chorus_result_t explain_setup(vrun_t *R) {
  int rows = (R->np < R->show_ranks ? R->np : R->show_ranks) * R->nch;
  R->cells = calloc((size_t)(rows + 1) * (size_t)R->show_cols, sizeof *R->cells);
  R->lines = calloc((size_t)rows, sizeof *R->lines);
  return R->cells && R->lines ? chorus_success : chorus_out_of_memory;
}

/* Run the plan round by round through the hooks, and say how it ended:
 * "done in N rounds: <the postcondition>" or "failed: <why>". */
static chorus_result_t explain_run(vrun_t *R, char *closing, size_t len) {
  chorus_result_t r = explain_setup(R);
  if (!r)
    r = vrun_all(R);
  else
    vrun_fail(R, -1, 0, "out of memory while explaining");
  R->res->rounds = R->rounds;
  if (!r) {
    char goal[256];
    explain_goal(R, goal, sizeof goal);
    snprintf(closing, len, "done in %ld round%s: %s%s", R->rounds, R->rounds == 1 ? "" : "s", goal,
             R->nch > 1 ? ", on every channel" : "");
  } else {
    snprintf(closing, len, "failed: %s", R->res->msg);
  }
  return r;
}

/* The symbolic run the explainer follows (the verifier's, out of place). */
static chorus_result_t explain_open(vrun_t *R, const plan_t *p, FILE *out, verify_result_t *res) {
  vrun_res_init(res);
  if (!p || !out) return chorus_invalid_argument;
  return vrun_open(R, p, res, p->window);
}

chorus_result_t verify_explain(const plan_t *p, FILE *out, verify_result_t *res) {
  verify_result_t local;
  if (!res) res = &local;
  vrun_t R;
  chorus_result_t r = explain_open(&R, p, out, res);
  if (r == chorus_invalid_argument && (!p || !out)) return r;
  if (r) {
    fprintf(out, "failed: %s\n", res->msg);
    return r;
  }
  R.trace = out;
  R.show_ranks = EXPLAIN_RANKS, R.show_cols = EXPLAIN_COLS;
  explain_header(&R);
  char closing[sizeof res->msg + 320];
  r = explain_run(&R, closing, sizeof closing);
  fprintf(out, "%s\n", closing);
  vrun_fini(&R);
  return r;
}

chorus_result_t verify_explain_json(const plan_t *p, FILE *out, verify_result_t *res) {
  verify_result_t local;
  if (!res) res = &local;
  vrun_t R;
  chorus_result_t r = explain_open(&R, p, out, res);
  if (r) return r;
  /* The text goes to a buffer: the header once, then each round's lines. */
  R.trace = open_memstream(&R.round_text, &R.round_text_len);
  R.json = out;
  R.show_ranks = EXPLAIN_JSON_RANKS, R.show_cols = EXPLAIN_JSON_COLS;
  if (!R.trace) {
    vrun_fini(&R);
    return chorus_out_of_memory;
  }
  explain_header(&R);
  fflush(R.trace);
  fprintf(out, "{\"algo\": ");
  json_str(out, p->algo[0] ? p->algo : "unnamed");
  fprintf(out, ", \"coll\": \"%s\", \"opts\": ", chorus_coll_name(p->coll));
  json_str(out, p->opts);
  fprintf(out, ", \"nranks\": %d, \"nnodes\": %d, \"nch\": %d, \"k\": %d, \"root\": %d, \"reduces\": %s,\n \"header\": ",
          R.n, p->shape.nnodes, R.nch, R.k, p->root, plan_coll_reduces(p->coll) ? "true" : "false");
  json_str(out, R.round_text ? R.round_text : "");
  explain_text_restart(&R);
  int ncols = explain_ncols(&R);
  fprintf(out, ",\n \"rank_node\": [");
  for (int i = 0; i < R.n; i++)
    fprintf(out, "%s%d", i ? ", " : "", p->shape.rank_node ? p->shape.rank_node[i] : 0);
  fprintf(out, "],\n \"in_chunks\": %d, \"out_chunks\": %d, \"cols\": [", R.in_chunks, R.out_chunks);
  for (int i = 0; i < ncols; i++) {
    int b, c;
    explain_col(&R, i, &b, &c);
    fprintf(out, "%s\"%s[%d]\"", i ? ", " : "", plan_buf_name((plan_buf_t)b), c);
  }
  fprintf(out, "],\n \"rounds\": [");
  char closing[sizeof res->msg + 320];
  r = explain_run(&R, closing, sizeof closing);
  fprintf(out, "],\n \"done\": ");
  json_str(out, closing);
  fprintf(out, "}\n");
  if (R.trace) fclose(R.trace);
  free(R.round_text);
  R.trace = NULL;
  vrun_fini(&R);
  return r;
}
