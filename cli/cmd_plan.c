/* cmd_plan.c -- `chorus plan`, `chorus check` and `chorus explain`: the
 * planner and verifier as a person uses them. Argument errors name the
 * argument and what a good value looks like. */
#include "cmd_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "page.h"
#include "planner.h"
#include "verify.h"

#define MAX_LIST 4096

typedef struct {
  int v[MAX_LIST];
  int n;
} int_list_t;

typedef struct {
  const char *cmd;
  const char *algo;
  const char *coll;   /* NULL: the default for the command */
  const char *ranks;  /* -n / --ranks */
  const char *nodes;  /* --nodes */
  const char *sizes;  /* --node-sizes */
  const char *ppn;    /* --ppn */
  const char *root;   /* --root */
  const char *channels;
  const char *opts;
  const char *html;   /* explain --html FILE */
  const char *json;   /* explain --json FILE */
  int rank;           /* plan --rank */
  int no_fuse;
  int verbose;
  int slots;
} args_t;

static int usage_error(const char *cmd, const char *fmt, const char *what) {
  fprintf(stderr, "chorus %s: ", cmd);
  fprintf(stderr, fmt, what);
  fprintf(stderr, " (chorus %s --help shows the options)\n", cmd);
  return 2;
}

/* "1-64", "2,4,8", "1-8,16": ascending integers. Returns 0 or -1. */
static int parse_list(const char *text, int lo, int hi, int_list_t *out) {
  out->n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    long a = strtol(p, &end, 10), b;
    if (end == p) return -1;
    b = a;
    if (*end == '-') {
      p = end + 1;
      b = strtol(p, &end, 10);
      if (end == p) return -1;
    }
    if (a < lo || b > hi || b < a || out->n + (b - a + 1) > MAX_LIST) return -1;
    for (long v = a; v <= b; v++) out->v[out->n++] = (int)v;
    if (*end == ',') end++;
    else if (*end) return -1;
    p = end;
  }
  return out->n > 0 ? 0 : -1;
}

static int parse_int(const char *text, int lo, int hi, int *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (end == text || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

static const char *help_plan =
    "usage: chorus plan ALGO|FILE -n N [--rank R] [--collective C] [--nodes K | --node-sizes A,B,.. | --ppn P]\n"
    "                   [--root R] [--channels C] [--opt k=v,..] [--no-fuse]\n"
    "Prints the ops the algorithm gives rank R (every rank without --rank; a hub i is rank N+i), channel by channel,\n"
    "with the script line that emitted each.\n";
static const char *help_check =
    "usage: chorus check ALGO|FILE [--collective C|all] [--ranks 1-64] [--nodes 1,2,4] [--ppn 3,4]\n"
    "                    [--root R|all] [--channels 1,2] [--opt k=v,..] [--slots K] [-v]\n"
    "Plans and verifies every combination: each rank count with each node shape (--nodes K: K nodes,\n"
    "as even as possible; --ppn P: P ranks per node, the last node may hold fewer), every root\n"
    "(rooted collectives, default all), each channel count. Exits 1 at the first failure of a\n"
    "collective, printing where the plan goes wrong. Defaults: every collective the script claims,\n"
    "--ranks 1-16 --nodes 1 --channels 1.\n";
static const char *help_explain =
    "usage: chorus explain ALGO|FILE -n N [--collective C] [--nodes K | --node-sizes A,B,.. | --ppn P]\n"
    "                      [--root R] [--channels C] [--opt k=v,..] [--html FILE] [--json FILE]\n"
    "Runs the algorithm round by round and prints which chunk moves from which rank to which,\n"
    "and what every rank holds after each round.\n"
    "  --html FILE  also write the rounds as one self-contained page to watch in a browser (play, step,\n"
    "               a slider; the ranks laid out as a ring, a tree or nodes; up to 64 ranks)\n"
    "  --json FILE  also write the rounds as JSON (what the page shows)\n";

static int parse_args(int argc, char **argv, args_t *a, const char *help) {
  memset(a, 0, sizeof *a);
  a->cmd = argv[0];
  a->rank = -1;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    const char **slot = NULL;
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      fputs(help, stdout);
      return 1;
    } else if (!strcmp(s, "-n") || !strcmp(s, "--ranks")) {
      slot = &a->ranks;
    } else if (!strcmp(s, "--collective") || !strcmp(s, "-C")) {
      slot = &a->coll;
    } else if (!strcmp(s, "--nodes")) {
      slot = &a->nodes;
    } else if (!strcmp(s, "--node-sizes")) {
      slot = &a->sizes;
    } else if (!strcmp(s, "--ppn")) {
      slot = &a->ppn;
    } else if (!strcmp(s, "--root") || !strcmp(s, "-r")) {
      slot = &a->root;
    } else if (!strcmp(s, "--channels") || !strcmp(s, "-c")) {
      slot = &a->channels;
    } else if (!strcmp(s, "--opt")) {
      slot = &a->opts;
    } else if (help == help_explain && (!strcmp(s, "--html") || !strcmp(s, "--json"))) {
      slot = !strcmp(s, "--html") ? &a->html : &a->json;
    } else if (!strcmp(s, "--rank") || !strcmp(s, "--slots")) {
      if (i + 1 >= argc) return usage_error(a->cmd, "%s needs a value", s);
      int *dst = !strcmp(s, "--rank") ? &a->rank : &a->slots;
      if (parse_int(argv[++i], 0, PLAN_MAX_RANKS, dst))
        return usage_error(a->cmd, "%s needs a whole number", s);
      continue;
    } else if (!strcmp(s, "--no-fuse")) {
      a->no_fuse = 1;
      continue;
    } else if (!strcmp(s, "-v") || !strcmp(s, "--verbose")) {
      a->verbose = 1;
      continue;
    } else if (s[0] == '-') {
      return usage_error(a->cmd, "unknown option '%s'", s);
    } else if (!a->algo) {
      a->algo = s;
      continue;
    } else {
      return usage_error(a->cmd, "unexpected argument '%s'", s);
    }
    if (i + 1 >= argc) return usage_error(a->cmd, "%s needs a value", s);
    if (*slot) return usage_error(a->cmd, "%s is given twice (algorithm options go in one: --opt a=1,b=2)", s);
    *slot = argv[++i];
  }
  if (!a->algo) return usage_error(a->cmd, "%s", "name an algorithm (ring, tree, ...) or a .lua file");
  return 0;
}

/* The collective a single-plan command uses: --collective, else allreduce
 * when the script has it, else its first. */
static int pick_collective(const args_t *a, const planner_t *pl, chorus_coll_t *out) {
  if (a->coll) {
    if (chorus_coll_parse(a->coll, out) != chorus_success) {
      usage_error(a->cmd, "--collective: '%s' is not a collective (allreduce, broadcast, reduce, allgather, "
                          "reducescatter, alltoall)", a->coll);
      return -1;
    }
    return 0;
  }
  unsigned m = planner_collectives(pl);
  if (m & (1u << chorus_allreduce)) {
    *out = chorus_allreduce;
    return 0;
  }
  for (int c = 0; c < chorus_num_collectives; c++)
    if (m & (1u << c)) {
      *out = (chorus_coll_t)c;
      return 0;
    }
  return -1;
}

/* One shape from --nodes K, --node-sizes, or --ppn P for n ranks. */
static int single_shape(const args_t *a, int n, plan_shape_t *shape) {
  if (a->sizes) {
    int_list_t l;
    char *copy = strdup(a->sizes);
    int sizes[MAX_LIST], k = 0;
    for (char *t = strtok(copy, ","); t && k < MAX_LIST; t = strtok(NULL, ",")) {
      if (parse_int(t, 1, PLAN_MAX_RANKS, &sizes[k])) {
        free(copy);
        return usage_error(a->cmd, "--node-sizes: '%s' is not a list of positive counts (e.g. 3,2,3)", a->sizes);
      }
      k++;
    }
    free(copy);
    (void)l;
    if (plan_shape_init(shape, n, k, sizes) != chorus_success)
      return usage_error(a->cmd, "--node-sizes: %s does not add up to the rank count", a->sizes);
    return 0;
  }
  int nodes = 1;
  if (a->nodes && parse_int(a->nodes, 1, PLAN_MAX_RANKS, &nodes))
    return usage_error(a->cmd, "--nodes: '%s' is not a node count", a->nodes);
  if (a->ppn) {
    int ppn;
    if (parse_int(a->ppn, 1, PLAN_MAX_RANKS, &ppn)) return usage_error(a->cmd, "--ppn: '%s' is not a count", a->ppn);
    nodes = (n + ppn - 1) / ppn;
    int sizes[MAX_LIST];
    if (nodes > MAX_LIST) return usage_error(a->cmd, "--ppn: '%s' gives too many nodes", a->ppn);
    for (int i = 0; i < nodes; i++) sizes[i] = i < nodes - 1 ? ppn : n - ppn * (nodes - 1);
    plan_shape_init(shape, n, nodes, sizes);
    return 0;
  }
  if (nodes > n) return usage_error(a->cmd, "--nodes: %s nodes for fewer ranks", a->nodes);
  plan_shape_init(shape, n, nodes, NULL);
  return 0;
}

/* Open the planner and build the one plan plan/explain ask for. */
static int build_single(const args_t *a, plan_t **out) {
  *out = NULL;
  int n;
  if (!a->ranks || parse_int(a->ranks, 1, PLAN_MAX_RANKS, &n))
    return usage_error(a->cmd, "-n: give the number of ranks (got '%s')", a->ranks ? a->ranks : "nothing");
  planner_err_t err;
  planner_t *pl;
  if (planner_open(&pl, a->algo, NULL, &err) != chorus_success) {
    fprintf(stderr, "chorus %s: %s\n", a->cmd, err.msg);
    return 1;
  }
  int rc = 2;
  plan_shape_t shape = {0};
  planner_req_t req = {.nranks = n, .opts = a->opts, .no_fuse = a->no_fuse};
  if (pick_collective(a, pl, &req.coll)) goto done;
  if (a->root && parse_int(a->root, 0, n - 1, &req.root)) {
    usage_error(a->cmd, "--root: '%s' is not a rank of this communicator", a->root);
    goto done;
  }
  if (a->channels && parse_int(a->channels, 1, PLAN_MAX_CHANNELS, &req.nchannels)) {
    usage_error(a->cmd, "--channels: '%s' is not a channel count (1 to 64)", a->channels);
    goto done;
  }
  if (single_shape(a, n, &shape)) goto done;
  req.shape = &shape;
  if (planner_plan(pl, &req, out, &err) != chorus_success) {
    fprintf(stderr, "chorus %s: %s\n", a->cmd, err.msg);
    rc = 1;
    goto done;
  }
  rc = 0;
done:
  plan_shape_fini(&shape);
  planner_close(pl);
  return rc;
}

int cmd_plan(int argc, char **argv) {
  args_t a;
  int rc = parse_args(argc, argv, &a, help_plan);
  if (rc) return rc == 1 ? 0 : rc;
  plan_t *p;
  rc = build_single(&a, &p);
  if (rc) return rc;
  if (a.rank >= plan_nparts(p)) { /* a hub's program: --rank nranks + i */
    if (p->nhubs)
      fprintf(stderr, "chorus plan: --rank %d out of range (nranks %d, then hubs %d-%d)\n", a.rank, p->nranks,
              p->nranks, plan_nparts(p) - 1);
    else
      fprintf(stderr, "chorus plan: --rank %d out of range (nranks %d)\n", a.rank, p->nranks);
    plan_destroy(p);
    return 2;
  }
  plan_dump(p, a.rank, stdout);
  plan_destroy(p);
  return 0;
}

/* --json and --html: the rounds as JSON, and the page with them inside. */
static int write_pages(const args_t *a, const plan_t *p) {
  char *json = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&json, &len);
  if (!mem) return fprintf(stderr, "chorus explain: out of memory\n"), 1;
  verify_result_t res;
  chorus_result_t r = verify_explain_json(p, mem, &res);
  fclose(mem);
  int rc = 0;
  if (r != chorus_success) {
    fprintf(stderr, "chorus explain: %s\n", res.msg);
    rc = 1;
  }
  if (!rc && a->json) {
    FILE *f = fopen(a->json, "w");
    int bad = !f || fwrite(json, 1, len, f) != len;
    if (f) bad |= fclose(f) != 0;
    if (bad) rc = (fprintf(stderr, "chorus explain: --json %s: %s\n", a->json, strerror(errno)), 1);
  }
  if (!rc && a->html) {
    const char *mark = "@CHORUS_EXPLAIN_JSON@", *data = json;
    rc = page_write("explain", "--html", a->html, explain_page, explain_page_len, 1, &mark, &data, &len);
  }
  free(json);
  return rc;
}

int cmd_explain(int argc, char **argv) {
  args_t a;
  int rc = parse_args(argc, argv, &a, help_explain);
  if (rc) return rc == 1 ? 0 : rc;
  plan_t *p;
  rc = build_single(&a, &p);
  if (rc) return rc;
  verify_result_t res;
  chorus_result_t r = verify_explain(p, stdout, &res);
  if (r == chorus_success && (a.html || a.json)) rc = write_pages(&a, p);
  plan_destroy(p);
  if (r != chorus_success) {
    fprintf(stderr, "chorus explain: %s\n", res.msg);
    return 1;
  }
  return rc;
}

typedef struct {
  long verified, declined;
  char first_decline[2048];
} check_stats_t;

/* Check one (collective, channels, ranks, shape): every root. Returns 0, or
 * 1 after printing the failure. */
static int check_shape(planner_t *pl, const args_t *a, planner_req_t *req, const int_list_t *roots,
                       check_stats_t *st) {
  int nroots = plan_coll_rooted(req->coll) ? roots->n : 1;
  for (int ri = 0; ri < nroots; ri++) {
    req->root = plan_coll_rooted(req->coll) ? roots->v[ri] : 0;
    if (req->root >= req->nranks) continue;
    plan_t *p;
    planner_err_t err;
    chorus_result_t r = planner_plan(pl, req, &p, &err);
    if (r != chorus_success && err.unsupported) {
      if (!st->declined++) snprintf(st->first_decline, sizeof st->first_decline, "%s", err.msg);
      continue;
    }
    if (r != chorus_success) {
      fprintf(stderr, "FAIL %s\n", err.msg);
      return 1;
    }
    verify_opts_t vo = {.slots = a->slots};
    verify_result_t vr;
    r = verify_plan(p, &vo, &vr);
    plan_destroy(p);
    if (r != chorus_success) {
      fprintf(stderr, "FAIL %s\n", vr.msg);
      return 1;
    }
    st->verified++;
    if (a->verbose) {
      char root[32] = "";
      if (plan_coll_rooted(req->coll)) snprintf(root, sizeof root, " root=%d", req->root);
      printf("ok   %s %s nranks=%d nodes=%d%s channels=%d\n", planner_name(pl), chorus_coll_name(req->coll),
             req->nranks, req->shape->nnodes, root, req->nchannels);
    }
  }
  return 0;
}

/* Build the list of shapes for n ranks: one per --nodes count (skipping
 * counts above n) and one per --ppn. */
static int shapes_for(const int_list_t *nodes, const int_list_t *ppns, int n, plan_shape_t *shapes, int max) {
  int k = 0;
  for (int i = 0; i < nodes->n && k < max; i++)
    if (nodes->v[i] <= n && plan_shape_init(&shapes[k], n, nodes->v[i], NULL) == chorus_success) k++;
  for (int i = 0; i < ppns->n && k < max; i++) {
    int ppn = ppns->v[i], cnt = (n + ppn - 1) / ppn;
    int *sizes = malloc(sizeof(int) * (size_t)cnt);
    for (int j = 0; j < cnt; j++) sizes[j] = j < cnt - 1 ? ppn : n - ppn * (cnt - 1);
    if (plan_shape_init(&shapes[k], n, cnt, sizes) == chorus_success) k++;
    free(sizes);
  }
  return k;
}

int cmd_check(int argc, char **argv) {
  args_t a;
  int rc = parse_args(argc, argv, &a, help_check);
  if (rc) return rc == 1 ? 0 : rc;
  int_list_t *ranks = malloc(sizeof *ranks), *nodes = malloc(sizeof *nodes), *ppns = malloc(sizeof *ppns),
             *roots = malloc(sizeof *roots), *chans = malloc(sizeof *chans);
  planner_t *pl = NULL;
  rc = 2;
  if (!ranks || !nodes || !ppns || !roots || !chans) goto done;
  if (parse_list(a.ranks ? a.ranks : "1-16", 1, 65536, ranks)) {
    usage_error(a.cmd, "--ranks: '%s' is not a rank range (e.g. 1-64 or 2,4,8)", a.ranks);
    goto done;
  }
  nodes->n = ppns->n = 0;
  if (a.nodes && parse_list(a.nodes, 1, 65536, nodes)) {
    usage_error(a.cmd, "--nodes: '%s' is not a list of node counts (e.g. 1,2,4)", a.nodes);
    goto done;
  }
  if (a.ppn && parse_list(a.ppn, 1, 65536, ppns)) {
    usage_error(a.cmd, "--ppn: '%s' is not a list of ranks-per-node counts (e.g. 2,3)", a.ppn);
    goto done;
  }
  if (!a.nodes && !a.ppn) parse_list("1", 1, 1, nodes);
  if (parse_list(a.channels ? a.channels : "1", 1, PLAN_MAX_CHANNELS, chans)) {
    usage_error(a.cmd, "--channels: '%s' is not a list of channel counts (1 to 64)", a.channels);
    goto done;
  }
  int max_rank = ranks->v[ranks->n - 1];
  if (!a.root || !strcmp(a.root, "all")) {
    roots->n = 0;
    for (int r = 0; r < max_rank && r < MAX_LIST; r++) roots->v[roots->n++] = r;
  } else if (parse_list(a.root, 0, 65535, roots)) {
    usage_error(a.cmd, "--root: '%s' is not a root, a list of roots, or 'all'", a.root);
    goto done;
  }
  planner_err_t err;
  if (planner_open(&pl, a.algo, NULL, &err) != chorus_success) {
    fprintf(stderr, "chorus check: %s\n", err.msg);
    rc = 1;
    goto done;
  }
  unsigned colls = planner_collectives(pl);
  if (a.coll && strcmp(a.coll, "all")) {
    chorus_coll_t c;
    if (chorus_coll_parse(a.coll, &c) != chorus_success) {
      usage_error(a.cmd, "--collective: '%s' is not a collective", a.coll);
      goto done;
    }
    if (!(colls & (1u << c))) {
      fprintf(stderr, "chorus check: %s does not implement %s\n", planner_name(pl), a.coll);
      rc = 1;
      goto done;
    }
    colls = 1u << c;
  }
  rc = 0;
  for (int c = 0; c < chorus_num_collectives; c++) {
    if (!(colls & (1u << c))) continue;
    check_stats_t st = {0};
    int failed = 0;
    for (int ci = 0; ci < chans->n && !failed; ci++) {
      for (int ni = 0; ni < ranks->n && !failed; ni++) {
        plan_shape_t shapes[64];
        int nshapes = shapes_for(nodes, ppns, ranks->v[ni], shapes, 64);
        for (int si = 0; si < nshapes; si++) {
          planner_req_t req = {.coll = (chorus_coll_t)c, .nranks = ranks->v[ni], .shape = &shapes[si],
                               .nchannels = chans->v[ci], .opts = a.opts};
          if (!failed) failed = check_shape(pl, &a, &req, roots, &st);
          plan_shape_fini(&shapes[si]);
        }
      }
    }
    printf("%s %-13s %s: %ld plans verified", failed ? "FAIL" : "ok  ", chorus_coll_name((chorus_coll_t)c),
           planner_name(pl), st.verified);
    if (st.declined) printf(", %ld shapes declined (%s)", st.declined, st.first_decline);
    printf("\n");
    if (failed) rc = 1;
  }
done:
  planner_close(pl);
  free(ranks);
  free(nodes);
  free(ppns);
  free(roots);
  free(chans);
  return rc;
}
