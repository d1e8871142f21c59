/* cmd_sim.c -- `chorus sim` and `chorus topo`: argument parsing, planning
 * through the planner, the nccl-tests table and CSV, and the topology views.
 * Output on stdout is deterministic: the same inputs print the same bytes
 * (simulator speed goes to stderr, and only with --stats). */
#include "cmd_sim.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "busbw.h"
#include "planner.h"
#include "sim.h"
#include "sim_out.h"
#include "topo.h"
#include "topo_detect.h"
#include "topo_view.h"
#include "verify.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || v < 0 || errno) return -1;
  switch (*end) {
  case 'k': case 'K': v *= 1024, end++; break;
  case 'm': case 'M': v *= 1024 * 1024, end++; break;
  case 'g': case 'G': v *= 1024.0 * 1024 * 1024, end++; break;
  default: break;
  }
  if (*end == 'i') end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end) return -1;
  *out = (size_t)v;
  return 0;
}

/* --- chorus topo --- */

static int topo_usage(FILE *f) {
  fprintf(f, "usage: chorus topo show FILE [--set k=v,...] [--ranks N]\n"
             "       chorus topo dot FILE [--set k=v,...] [-o OUT.dot]\n"
             "       chorus topo check FILE [--set k=v,...]\n"
             "       chorus topo list\n"
             "       chorus topo detect [-o OUT.lua] [--xml HWLOC.xml]\n\n"
             "  FILE         a topology script, or the name of one in the topology folder\n"
             "               ($CHORUS_TOPOLOGIES, else the source tree's topologies/)\n"
             "  --set k=v    override what the script's param(k, default) returns\n"
             "  --ranks N    rows of the path matrix to show (default 32)\n"
             "show prints devices, link classes, protocols, ranks and the rank-to-rank path matrix;\n"
             "dot writes Graphviz (dot -Tsvg); check only loads and validates; detect writes this machine\n"
             "(or an hwloc XML export of another) as a topology script: packages, NUMA nodes, cores, cache,\n"
             "NVIDIA GPUs and NICs on their PCIe ports, NVLink where NVML reports it.\n");
  return f == stderr ? 2 : 0;
}

int cmd_topo(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return topo_usage(argc < 2 ? stderr : stdout);
  const char *sub = argv[1];
  if (!strcmp(sub, "list")) {
    char names[4096];
    topo_list(names, sizeof names);
    printf("%s: %s\n", topo_dir(), names[0] ? names : "(none)");
    return 0;
  }
  if (!strcmp(sub, "detect")) {
    const char *out = NULL, *xml = NULL;
    for (int i = 2; i < argc; i++) {
      if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
      else if (!strcmp(argv[i], "--xml") && i + 1 < argc) xml = argv[++i];
      else return fprintf(stderr, "chorus topo detect: unknown argument '%s' (-o FILE, --xml FILE)\n", argv[i]), 2;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) return fprintf(stderr, "chorus topo detect: -o %s: %s\n", out, strerror(errno)), 1;
    int rc = topo_detect(xml, f);
    if (out && fclose(f) != 0) return fprintf(stderr, "chorus topo detect: -o %s: %s\n", out, strerror(errno)), 1;
    if (rc == 0 && out) printf("# wrote %s (chorus topo show %s)\n", out, out);
    return rc == 0 ? 0 : 1;
  }
  if (strcmp(sub, "show") && strcmp(sub, "dot") && strcmp(sub, "check")) {
    fprintf(stderr, "chorus topo: unknown action '%s' (show, dot, check, list, detect)\n", sub);
    return 2;
  }
  const char *file = NULL, *sets = NULL, *out = NULL;
  int maxr = 32;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc) sets = argv[++i];
    else if (!strncmp(argv[i], "--set=", 6)) sets = argv[i] + 6;
    else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) maxr = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--help")) return topo_usage(stdout);
    else if (argv[i][0] == '-') return fprintf(stderr, "chorus topo: unknown option '%s'\n", argv[i]), 2;
    else if (!file) file = argv[i];
    else return fprintf(stderr, "chorus topo: one FILE only ('%s' is extra)\n", argv[i]), 2;
  }
  if (!file) return fprintf(stderr, "chorus topo %s: give a topology FILE (chorus topo list names them)\n", sub), 2;
  topo_t *t;
  topo_err_t err;
  if (topo_load(&t, file, sets, &err) != chorus_success) {
    fprintf(stderr, "chorus topo: %s\n", err.msg);
    return 1;
  }
  int rc = 0;
  if (!strcmp(sub, "show")) {
    topo_print(t, stdout, maxr);
  } else if (!strcmp(sub, "check")) {
    printf("%s: ok: %d devices, %d links, %d hosts, %d ranks\n", t->path, t->ndevs, t->nlinks, t->nhosts, t->nranks);
  } else {
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
      fprintf(stderr, "chorus topo dot: -o %s: %s\n", out, strerror(errno));
      rc = 1;
    } else {
      topo_write_dot(t, f);
      if (out) fclose(f);
    }
  }
  topo_destroy(t);
  return rc;
}

/* --- chorus sim --- */

/* -p auto: every size under each protocol, the fastest kept. */
#define PROTO_AUTO (-1)

typedef struct {
  chorus_coll_t coll;
  const char *topo, *sets, *algo, *opt, *csv, *trace, *timeline;
  size_t minb, maxb, buffsize, max_chunk;
  double factor;
  int nranks, nchannels, root, proto, analytic, links, links_all, verify, stats, steps_per_chunk, nsteps, calls;
  chorus_dtype_t dt;
  chorus_redop_t op;
} sim_args_t;

static int sim_usage(FILE *f) {
  fprintf(f,
          "usage: chorus sim COLLECTIVE --topo FILE [--set k=v,...] [-n ranks] [-b min] [-e max] [-f factor]\n"
          "                  [-d dtype] [-o op] [-r root] [-a algo] [--opt k=v] [-p proto] [-c channels]\n"
          "                  [--model event|analytic] [--csv FILE] [--trace FILE] [--links[=all]]\n"
          "                  [--timeline FILE.svg] [--buffsize B] [--steps N] [--steps-per-chunk K]\n"
          "                  [--max-chunk B] [--calls N] [--no-verify] [--stats]\n\n"
          "Predicts what `chorus perf` would print on the described cluster: the same columns, marked\n"
          "predicted, and the same CSV schema (plus a source column).\n"
          "  COLLECTIVE   allreduce, broadcast, reduce, allgather, reducescatter, alltoall\n"
          "  --topo FILE  topology script or name (chorus topo list); --set overrides its parameters\n"
          "  -n N         ranks 0..N-1 of the topology (default: all it places)\n"
          "  -b, -e, -f   sizes as chorus perf (default 8 to 64M, factor 2)\n"
          "  -a algo      algorithm script (default: ring where it applies)\n"
          "  -p proto     simple, LL, LL128 (default simple), or auto: per size the fastest of the three,\n"
          "               as NCCL's tuner picks (the CSV's proto column and a closing line name it)\n"
          "  -c N         channels (default: on GPUs, NCCL's count for the topology; else the script's)\n"
          "  --model M    event (default): every step replayed; analytic: node 0 replayed for all nodes, for\n"
          "               algorithms whose every node runs node 0's program moved on (ring, hybrid; not the\n"
          "               trees): any node count at the cost of one node\n"
          "  --trace F    Chrome/Perfetto JSON of the last size: a track per rank and channel, a slice\n"
          "               per op, and a network track per connection with one slice per step\n"
          "  --links      per-link bytes, busy time and utilisation of the last size, busiest first\n"
          "  --timeline F per-rank Gantt chart (SVG) of the last size, ranks 0..15\n"
          "  --buffsize B bytes per connection (default 4M: CHORUS_BUFFSIZE), --steps N slots per\n"
          "               connection (default 8), --steps-per-chunk K (default steps/2),\n"
          "               --max-chunk B largest chunk (default 512K, the engine's, or 2M, NCCL's,\n"
          "               when every rank is on a GPU; chunks are min(buffsize/2, B))\n"
          "  --calls N    replay N calls back to back, as chorus perf -i N times them (no barrier\n"
          "               between calls), and print the time per call (default 1: one call alone)\n"
          "  --no-verify  skip proving the plan first; --stats: simulator speed on stderr\n");
  return f == stderr ? 2 : 0;
}

static int parse_sim_args(int argc, char **argv, sim_args_t *a) {
  static const struct option longs[] = {
      {"topo", required_argument, NULL, 'T'},     {"set", required_argument, NULL, 'S'},
      {"model", required_argument, NULL, 'M'},    {"csv", required_argument, NULL, 'C'},
      {"trace", required_argument, NULL, 'R'},    {"links", optional_argument, NULL, 'L'},
      {"timeline", required_argument, NULL, 'G'}, {"opt", required_argument, NULL, 'O'},
      {"buffsize", required_argument, NULL, 'B'}, {"steps", required_argument, NULL, 'N'},
      {"steps-per-chunk", required_argument, NULL, 'K'}, {"no-verify", no_argument, NULL, 'V'},
      {"max-chunk", required_argument, NULL, 'H'}, {"calls", required_argument, NULL, 'I'},
      {"stats", no_argument, NULL, 'X'},          {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  optind = 2;
  int c;
  while ((c = getopt_long(argc, argv, "n:b:e:f:d:o:r:a:p:c:h", longs, NULL)) != -1) {
    switch (c) {
    case 'T': a->topo = optarg; break;
    case 'S': a->sets = optarg; break;
    case 'M':
      if (!strcmp(optarg, "analytic")) a->analytic = 1;
      else if (strcmp(optarg, "event")) return fprintf(stderr, "chorus sim: --model is event or analytic\n"), 2;
      break;
    case 'C': a->csv = optarg; break;
    case 'R': a->trace = optarg; break;
    case 'L':
      a->links = 1;
      if (optarg && !strcmp(optarg, "all")) a->links_all = 1;
      else if (optarg) return fprintf(stderr, "chorus sim: --links takes no value but 'all'\n"), 2;
      break;
    case 'G': a->timeline = optarg; break;
    case 'O':
      if (a->opt) return fprintf(stderr, "chorus sim: --opt is given twice: give the options in one, --opt a=1,b=2\n"), 2;
      a->opt = optarg;
      break;
    case 'B':
      if (parse_size(optarg, &a->buffsize)) return fprintf(stderr, "chorus sim: --buffsize: '%s' is not a size\n", optarg), 2;
      break;
    case 'H':
      if (parse_size(optarg, &a->max_chunk) || !a->max_chunk)
        return fprintf(stderr, "chorus sim: --max-chunk: '%s' is not a size\n", optarg), 2;
      break;
    case 'I': {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (end == optarg || *end || v < 1 || v > 100000)
        return fprintf(stderr, "chorus sim: --calls: '%s' is not a count of calls (1 to 100000)\n", optarg), 2;
      a->calls = (int)v;
      break;
    }
    case 'N': a->nsteps = atoi(optarg); break;
    case 'K': a->steps_per_chunk = atoi(optarg); break;
    case 'V': a->verify = 0; break;
    case 'X': a->stats = 1; break;
    case 'n': a->nranks = atoi(optarg); if (a->nranks < 1) return fprintf(stderr, "chorus sim: -n must be at least 1\n"), 2; break;
    case 'b': if (parse_size(optarg, &a->minb)) return fprintf(stderr, "chorus sim: -b: '%s' is not a size\n", optarg), 2; break;
    case 'e': if (parse_size(optarg, &a->maxb)) return fprintf(stderr, "chorus sim: -e: '%s' is not a size\n", optarg), 2; break;
    case 'f': a->factor = atof(optarg); break;
    case 'd':
      if (chorus_dtype_parse(optarg, &a->dt) != chorus_success)
        return fprintf(stderr, "chorus sim: -d: '%s' is not a data type (int8, uint8, int32, uint32, int64, uint64, "
                               "half, bfloat16, float, double)\n", optarg), 2;
      break;
    case 'o':
      if (chorus_redop_parse(optarg, &a->op) != chorus_success)
        return fprintf(stderr, "chorus sim: -o: '%s' is not a reduction op (sum, prod, min, max, avg)\n", optarg), 2;
      break;
    case 'r': a->root = atoi(optarg); break;
    case 'a': a->algo = optarg; break;
    case 'p':
      if (!strcasecmp(optarg, "auto")) a->proto = PROTO_AUTO;
      else if ((a->proto = topo_proto_parse(optarg)) < 0)
        return fprintf(stderr, "chorus sim: -p: unknown protocol '%s' (simple, LL, LL128, auto)\n", optarg), 2;
      break;
    case 'c':
      a->nchannels = atoi(optarg);
      if (a->nchannels < 1 || a->nchannels > PLAN_MAX_CHANNELS)
        return fprintf(stderr, "chorus sim: -c must be 1..%d\n", PLAN_MAX_CHANNELS), 2;
      break;
    case 'h': return sim_usage(stdout) == 0 ? -1 : 2;
    default: return sim_usage(stderr);
    }
  }
  if (optind < argc) return fprintf(stderr, "chorus sim: unexpected argument '%s'\n", argv[optind]), 2;
  if (!a->topo) return fprintf(stderr, "chorus sim: give the cluster with --topo FILE (chorus topo list names them)\n"), 2;
  if (a->factor <= 1 && a->minb != a->maxb) return fprintf(stderr, "chorus sim: -f must be above 1\n"), 2;
  if (a->minb > a->maxb) return fprintf(stderr, "chorus sim: -b %zu is above -e %zu\n", a->minb, a->maxb), 2;
  return 0;
}

/* The algorithm to use when -a is not given: ring where it implements the
 * collective, else the first shipped script (sorted) that does. */
static int default_algo(chorus_coll_t coll, char *buf, size_t len) {
  char names[2048];
  planner_list(planner_algos_dir(), names, sizeof names);
  char *save = NULL, *list = strdup(names);
  int found = 0;
  const char *order[2] = {"ring", NULL};
  for (int pass = 0; pass < 2 && !found; pass++) {
    for (char *nm = pass == 0 ? (char *)order[0] : strtok_r(list, ", ", &save); nm && !found;
         nm = pass == 0 ? NULL : strtok_r(NULL, ", ", &save)) {
      planner_t *pl;
      planner_err_t err;
      if (planner_open(&pl, nm, NULL, &err) != chorus_success) continue;
      if (planner_collectives(pl) & (1u << coll)) {
        snprintf(buf, len, "%s", nm);
        found = 1;
      }
      planner_close(pl);
    }
  }
  free(list);
  return found ? 0 : -1;
}

/* One `chorus sim` run: the arguments, what was loaded and made, and the
 * running totals. */
typedef struct {
  sim_args_t a;
  topo_t *t;
  int n, nch, contiguous, ch_topo; /* ch_topo: the channel count is the topology's default */
  char algo[256];
  sim_opts_t so;
  plan_t *p;
  sim_t *s;
  plan_shape_t shape;
  plan_fold_t fold; /* the analytic model: node 0 for all (plan/fold.h); plan NULL: none */
  FILE *csv, *trace;
  char err[2048];
  double t_plan, t_sim, sum_busbw;
  uint64_t events;
  int npoints;
  size_t prev;       /* bytes of the last point */
  char picked[1024]; /* -p auto: "SIZE PROTO, ..." of the sizes so far */
  sim_result_t res;
} sim_cmd_t;

/* The topology, the rank count and root checked against it, and the
 * algorithm (the default one when none is given). 0, or the exit status. */
static int load(sim_cmd_t *x) {
  sim_args_t *a = &x->a;
  topo_err_t terr;
  if (topo_load(&x->t, a->topo, a->sets, &terr) != chorus_success) {
    fprintf(stderr, "chorus sim: %s\n", terr.msg);
    return 1;
  }
  x->n = a->nranks ? a->nranks : x->t->nranks;
  if (x->n > x->t->nranks) {
    fprintf(stderr, "chorus sim: -n %d: %s places only %d ranks (its parameters may make more: chorus topo show)\n",
            x->n, x->t->path, x->t->nranks);
    return 2;
  }
  if (a->root < 0 || a->root >= x->n) {
    fprintf(stderr, "chorus sim: -r %d is not a rank of %d\n", a->root, x->n);
    return 2;
  }
  if (a->algo) snprintf(x->algo, sizeof x->algo, "%s", a->algo);
  else if (default_algo(a->coll, x->algo, sizeof x->algo) != 0) {
    fprintf(stderr, "chorus sim: no shipped algorithm implements %s\n", chorus_coll_name(a->coll));
    return 1;
  }
  return 0;
}

/* The analytic model: node 0's programs stand for every node's
 * (plan/fold.h), replayed on the share of the network their copies on
 * every node leave them. Not verified: the verifier proves whole plans
 * (chorus check proves the script on smaller shapes). */
static int prepare_fold(sim_cmd_t *x) {
  sim_args_t *a = &x->a;
  planner_t *pl;
  planner_err_t perr;
  planner_req_t req = {.coll = a->coll, .nranks = x->n, .shape = &x->shape, .root = a->root,
                       .nchannels = a->nchannels, .opts = a->opt};
  double t0 = wall();
  if (planner_open(&pl, x->algo, NULL, &perr) != chorus_success) return fprintf(stderr, "chorus sim: %s\n", perr.msg), 1;
  chorus_result_t r = plan_fold(pl, &req, &x->fold, &perr);
  planner_close(pl);
  if (r != chorus_success) return fprintf(stderr, "chorus sim: %s\n", perr.msg), 1;
  x->t_plan = wall() - t0;
  x->nch = x->fold.plan->nchannels;
  snprintf(x->algo, sizeof x->algo, "%s", x->fold.plan->algo);
  double t1 = wall();
  if (sim_create_folded(&x->s, x->t, &x->fold, &x->so, x->err, sizeof x->err) != chorus_success) {
    fprintf(stderr, "chorus sim: %s\n", x->err);
    return 1;
  }
  x->t_sim = wall() - t1;
  return 0;
}

/* The node shape, and for the event model the plan (verified unless
 * --no-verify) and one simulator for every size: --stats counts making it
 * as simulation time. 0 when ready. */
static int prepare(sim_cmd_t *x) {
  sim_args_t *a = &x->a;
  x->so = (sim_opts_t){.buffsize = a->buffsize, .nsteps = a->nsteps, .steps_per_chunk = a->steps_per_chunk,
                       .max_chunk = a->max_chunk, .proto = a->proto == PROTO_AUTO ? 0 : a->proto,
                       .span_ranks = a->timeline ? 16 : 0,
                       .calls = a->calls};
  if (topo_shape(x->t, x->n, &x->shape, &x->contiguous) != chorus_success) {
    fprintf(stderr, "chorus sim: out of memory\n");
    return 1;
  }
  /* No -c: GPU ranks get the channels NCCL's graph search would give them
   * (sim/topo.h); CPU ranks their script's default. */
  if (!a->nchannels && (a->nchannels = topo_default_channels(x->t, x->n)) > 0) x->ch_topo = 1;
  x->nch = a->nchannels;
  if (a->analytic) return prepare_fold(x);
  planner_req_t req = {.algo = x->algo, .coll = a->coll, .nranks = x->n, .shape = &x->shape, .root = a->root,
                       .nchannels = a->nchannels, .opts = a->opt};
  planner_err_t perr;
  double t0 = wall();
  if (planner_build(&req, &x->p, &perr) != chorus_success) {
    fprintf(stderr, "chorus sim: %s\n", perr.msg);
    return 1;
  }
  if (a->verify) {
    verify_opts_t vo = {.inplace = 2};
    verify_result_t vr;
    if (verify_plan(x->p, &vo, &vr) != chorus_success) {
      fprintf(stderr, "chorus sim: the plan is wrong: %s\n", vr.msg);
      return 1;
    }
  }
  x->t_plan = wall() - t0;
  x->nch = x->p->nchannels;
  snprintf(x->algo, sizeof x->algo, "%s", x->p->algo);
  double t1 = wall();
  if (sim_create(&x->s, x->t, x->p, &x->so, x->err, sizeof x->err) != chorus_success) {
    fprintf(stderr, "chorus sim: %s\n", x->err);
    return 1;
  }
  x->t_sim = wall() - t1;
  return 0;
}

/* The CSV's header (--csv) and the table's, in nccl-tests' layout. */
static int print_header(sim_cmd_t *x) {
  const sim_args_t *a = &x->a;
  if (a->csv) {
    if (!(x->csv = fopen(a->csv, "w"))) {
      fprintf(stderr, "chorus sim: --csv %s: %s\n", a->csv, strerror(errno));
      return 1;
    }
    fprintf(x->csv, "collective,algo,proto,nranks,nnodes,dtype,op,root,inplace,size_bytes,count,time_us,algbw_GBps,"
                    "busbw_GBps,wrong,source\n");
  }
  printf("# chorus sim %s: %d ranks on %d nodes, topology %s%s%s, dtype %s, op %s, algo %s, proto %s, channels %d, "
         "model %s%s\n",
         chorus_coll_name(a->coll), x->n, x->shape.nnodes, x->t->name, x->t->params[0] ? " " : "", x->t->params,
         chorus_dtype_name(a->dt), chorus_redop_name(a->op), x->algo,
         a->proto == PROTO_AUTO ? "auto (the fastest per size)" : topo_proto_name(a->proto), x->nch,
         a->analytic ? "analytic (one node for all)" : "event",
         a->calls > 1 ? ", calls back to back" : "");
  if (a->calls > 1) printf("# time: per call, over %d calls back to back\n", a->calls);
  if (x->ch_topo) printf("# channels: %d, as NCCL's search gives this topology (-c to choose)\n", x->nch);
  if (!x->contiguous)
    printf("# note: the ranks of some host are not consecutive; each run of them is planned as a node\n");
  printf("# predicted: no data moves, #wrong is N/A; in place costs the same as out of place in the model\n");
  printf("#%76s%32s\n", "out-of-place", "in-place");
  printf("#%11s %13s %9s %7s %6s %8s %7s %7s %6s %8s %7s %7s %6s\n", "size", "count", "type", "redop", "root", "time",
         "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  printf("#%11s %13s %9s %7s %6s %8s %7s %7s %6s %8s %7s %7s %6s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
         "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  return 0;
}

/* One size under protocol `proto` into x->res (traced into tr, or not). */
static chorus_result_t simulate(sim_cmd_t *x, size_t count, int proto, FILE *tr) {
  const sim_args_t *a = &x->a;
  double t0 = wall();
  chorus_result_t r;
  x->so.proto = proto;
  sim_set_proto(x->s, proto);
  sim_set_trace(x->s, tr);
  r = sim_run(x->s, count, a->dt, &x->res, x->err, sizeof x->err);
  x->t_sim += wall() - t0;
  x->events += x->res.events;
  return r;
}

/* One size: simulated (traced when it is the last and --trace asks), under
 * each protocol with -p auto, the fastest kept (and replayed last, so that
 * --links and --timeline show it); its row printed and written. 0, or 1
 * when it failed. */
static int run_point(sim_cmd_t *x, size_t count, size_t bytes, int last) {
  const sim_args_t *a = &x->a;
  FILE *tr = NULL;
  if (last && a->trace && !(tr = x->trace = fopen(a->trace, "w"))) {
    fprintf(stderr, "chorus sim: --trace %s: %s\n", a->trace, strerror(errno));
    return 1;
  }
  int proto = a->proto;
  chorus_result_t r = chorus_success;
  if (proto == PROTO_AUTO) {
    double best = INFINITY;
    for (int p = 0; p < TOPO_NUM_PROTOS && r == chorus_success; p++) {
      if (x->p->nhubs && !topo_proto_runs_hubs(&x->t->proto[p])) continue; /* NVLS: Simple alone */
      if ((r = simulate(x, count, p, NULL)) == chorus_success && x->res.time < best) best = x->res.time, proto = p;
    }
    if (r == chorus_success && (proto != TOPO_NUM_PROTOS - 1 || tr)) r = simulate(x, count, proto, tr);
    size_t used = strlen(x->picked);
    if (r == chorus_success && used + 48 < sizeof x->picked)
      snprintf(x->picked + used, sizeof x->picked - used, "%s%zu %s", used ? ", " : "", bytes, topo_proto_name(proto));
  } else {
    r = simulate(x, count, proto, tr);
  }
  if (r != chorus_success) {
    fprintf(stderr, "chorus sim: %s of %zu bytes: %s\n", chorus_coll_name(a->coll), bytes, x->err);
    return 1;
  }
  int rooted = plan_coll_rooted(a->coll);
  const char *redop = plan_coll_reduces(a->coll) ? chorus_redop_name(a->op) : "none";
  double us = x->res.time * 1e6;
  double algbw = us > 0 ? (double)bytes / us / 1e3 : 0;
  double busbw = algbw * sim_bus_factor(a->coll, x->n);
  printf("%12zu %13zu %9s %7s %6d", bytes, count, chorus_dtype_name(a->dt), redop, rooted ? a->root : -1);
  for (int ip = 0; ip < 2; ip++) {
    printf(" %8.2f %7.2f %7.2f %6s", us, algbw, busbw, "N/A");
    x->sum_busbw += busbw;
    x->npoints++;
    if (x->csv)
      fprintf(x->csv, "%s,%s,%s,%d,%d,%s,%s,%d,%d,%zu,%zu,%.3f,%.4f,%.4f,,predicted\n", chorus_coll_name(a->coll),
              x->algo, topo_proto_name(proto), x->n, x->shape.nnodes, chorus_dtype_name(a->dt),
              chorus_redop_name(a->op), rooted ? a->root : -1, ip, bytes, count, us, algbw, busbw);
  }
  printf("\n");
  x->prev = bytes;
  return 0;
}

/* Every size from -b to -e by -f; a size that gives the same bytes as the
 * one before (counts round down) is not repeated. */
static int sweep(sim_cmd_t *x) {
  const sim_args_t *a = &x->a;
  size_t es = chorus_dtype_size(a->dt);
  int per_rank_total = a->coll == chorus_allgather || a->coll == chorus_reducescatter || a->coll == chorus_alltoall;
  for (size_t size = a->minb; size <= a->maxb;) {
    size_t next = (size_t)((double)size * a->factor);
    int last = next <= size || next > a->maxb;
    size_t count = size / es / (per_rank_total ? (size_t)x->n : 1);
    size_t bytes = count * es * (per_rank_total ? (size_t)x->n : 1);
    if ((bytes != x->prev || size == a->minb) && run_point(x, count, bytes, last)) return 1;
    if (last) break;
    size = next;
  }
  if (x->trace) fclose(x->trace), x->trace = NULL;
  if (a->proto == PROTO_AUTO) printf("# protocol per size (-p auto): %s\n", x->picked);
  printf("# Out of bounds values : N/A (predicted)\n");
  printf("# Avg bus bandwidth    : %.4f\n#\n", x->npoints ? x->sum_busbw / x->npoints : 0);
  return 0;
}

/* What the last size shows besides its time: --links, --timeline, --stats. */
static int reports(sim_cmd_t *x) {
  const sim_args_t *a = &x->a;
  if (a->links) {
    if (a->analytic)
      printf("# --model analytic: the links of node 0 alone; its sends to other nodes run on a share of their "
             "own (sim/README.md)\n");
    sim_print_links(x->s, &x->res, stdout, a->links_all ? 0 : 20);
  }
  if (a->timeline) {
    FILE *f = fopen(a->timeline, "w");
    if (!f) {
      fprintf(stderr, "chorus sim: --timeline %s: %s\n", a->timeline, strerror(errno));
      return 1;
    }
    char title[512];
    snprintf(title, sizeof title, "chorus sim %s, %s, %d ranks on %s, %zu bytes: %.2f us predicted",
             chorus_coll_name(a->coll), x->algo, x->n, x->t->name, x->prev, x->res.time * 1e6);
    sim_write_timeline(x->s, &x->res, f, title);
    fclose(f);
  }
  if (a->stats)
    fprintf(stderr, "# sim stats: plan+verify %.3f s, simulation %.3f s, %llu events (%.2f M events/s), last size: %llu "
                    "steps, %llu flows, %llu max-min re-sharings, peak %d flows\n",
            x->t_plan, x->t_sim, (unsigned long long)x->events, x->t_sim > 0 ? x->events / x->t_sim / 1e6 : 0,
            (unsigned long long)x->res.steps, (unsigned long long)x->res.flows,
            (unsigned long long)x->res.recomputes, x->res.peak_flows);
  return 0;
}

int cmd_sim(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return sim_usage(argc < 2 ? stderr : stdout);
  sim_cmd_t *x = calloc(1, sizeof *x);
  if (!x) return fprintf(stderr, "chorus sim: out of memory\n"), 1;
  x->a = (sim_args_t){.minb = 8, .maxb = 64u << 20, .factor = 2, .dt = chorus_float32, .op = chorus_sum, .verify = 1};
  x->contiguous = 1;
  int status;
  if (chorus_coll_parse(argv[1], &x->a.coll) != chorus_success) {
    fprintf(stderr, "chorus sim: unknown collective '%s' (allreduce, broadcast, reduce, allgather, reducescatter, "
                    "alltoall)\n", argv[1]);
    status = 2;
  } else {
    int rc = parse_sim_args(argc, argv, &x->a);
    if (rc) status = rc < 0 ? 0 : rc;
    else if (!(status = load(x)))
      status = prepare(x) || print_header(x) || sweep(x) || reports(x);
  }
  if (x->csv) fclose(x->csv);
  if (x->trace) fclose(x->trace);
  sim_destroy(x->s);
  plan_destroy(x->p);
  plan_fold_fini(&x->fold);
  plan_shape_fini(&x->shape);
  topo_destroy(x->t);
  free(x);
  return status;
}
