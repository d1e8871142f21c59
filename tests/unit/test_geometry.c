/* test_geometry.c -- geometry_shared: the engine's executor and the
 * simulator cut a call into the same steps. For every shipped algorithm and
 * collective, 1 to 16 ranks, 1 to 4 channels, sizes from 0 bytes to 1 GiB
 * with odd counts of every data type, and three connection buffers, the
 * list of (channel, slice, chunk, step, offset, bytes) the executor would
 * move (exec_moves) must equal the one the simulator replays (sim_moves),
 * step for step. Both come from core/geom.h; this catches a future fork in
 * either. Each list must also cover the unit once: its bytes add up to the
 * count's. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "planner.h"
#include "sim.h"
#include "test.h"
#include "topo.h"

#define MAX_NAMES 32

typedef struct {
  geom_move_t *m;
  size_t n, cap;
} moves_t;

static int keep(const geom_move_t *m, void *arg) {
  moves_t *l = arg;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 4096;
    geom_move_t *nm = realloc(l->m, cap * sizeof *nm);
    if (!nm) return 1;
    l->m = nm, l->cap = cap;
  }
  l->m[l->n++] = *m;
  return 0;
}

typedef struct {
  const moves_t *want;
  size_t next, bytes;
  int mismatch;
  geom_move_t got, expected;
} cmp_t;

/* Compare the simulator's moves, as they come, with the engine's list. */
static int compare(const geom_move_t *m, void *arg) {
  cmp_t *c = arg;
  const geom_move_t *w = c->next < c->want->n ? &c->want->m[c->next] : NULL;
  if (!w || w->ch != m->ch || w->slice != m->slice || w->chunk != m->chunk || w->step != m->step ||
      w->offset != m->offset || w->bytes != m->bytes) {
    c->mismatch = 1, c->got = *m;
    if (w) c->expected = *w;
    return 1;
  }
  c->next++;
  c->bytes += m->bytes;
  return 0;
}

static int shipped_algos(char names[][64]) {
  const char *dir = getenv("CHORUS_ALGOS");
  DIR *d = opendir(dir ? dir : "algos");
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) && n < MAX_NAMES;) {
    size_t len = strlen(e->d_name);
    if (len > 4 && len < 60 && !strcmp(e->d_name + len - 4, ".lua")) {
      memcpy(names[n], e->d_name, len - 4);
      names[n++][len - 4] = 0;
    }
  }
  closedir(d);
  return n;
}

static void engine_and_simulator_cut_every_call_alike(void) {
  char algos[MAX_NAMES][64];
  int nalgos = shipped_algos(algos);
  CHECK_TRUE(nalgos >= 6); /* ring, tree, hybrid, rd, rhd, direct */
  topo_t *t;
  topo_err_t terr;
  CHECK_EQ_INT(topo_load(&t, "star", "nodes=16", &terr), chorus_success);
  if (!t) return;
  /* Bytes per unit: 0, around the 64-byte alignment, the 32 KiB smallest
   * step, a chunk, odd sizes in between, and 1 GiB. */
  static const size_t sizes[] = {0, 1, 63, 64, 65, 1000, 32767, 32769, 524289, 3000017, (size_t)1 << 30};
  static const size_t buffs[] = {GEOM_DEFAULT_BUFFSIZE, 32u << 10, (1u << 20) + 4096};
  moves_t eng = {0};
  long plans = 0, calls = 0;
  for (int a = 0; a < nalgos; a++) {
    for (int n = 1; n <= 16; n++) {
      for (int nch = 1; nch <= 4; nch++) {
        for (int coll = 0; coll < chorus_num_collectives; coll++) {
          planner_req_t req = {.algo = algos[a], .coll = (chorus_coll_t)coll, .nranks = n, .nchannels = nch};
          plan_t *p;
          planner_err_t perr;
          if (planner_build(&req, &p, &perr) != chorus_success) continue; /* not this script's collective or shape */
          if (p->nhubs) { /* a switch that reduces: the engine has no such geometry to share */
            plan_destroy(p);
            continue;
          }
          plans++;
          for (size_t b = 0; b < sizeof buffs / sizeof buffs[0]; b++) {
            sim_opts_t o = {.buffsize = buffs[b]};
            sim_t *s;
            char err[1024];
            if (sim_create(&s, t, p, &o, err, sizeof err) != chorus_success) {
              fprintf(stderr, "  %s %s n=%d: %s\n", algos[a], chorus_coll_name(coll), n, err);
              test_failed_++;
              continue;
            }
            /* The 1 GiB case once per plan (default buffer, float): it
             * has the most steps and the fewest surprises. */
            size_t nsizes = sizeof sizes / sizeof sizes[0] - (b == 0 ? 0 : 1);
            for (size_t z = 0; z < nsizes; z++) {
              for (int dt = 0; dt < chorus_num_dtypes; dt++) {
                if (sizes[z] >= ((size_t)1 << 30) && dt != chorus_float32) continue;
                size_t es = chorus_dtype_size((chorus_dtype_t)dt), count = sizes[z] / es + (sizes[z] > es ? 1 : 0);
                eng.n = 0;
                CHECK_EQ_INT(exec_moves(p, count, (chorus_dtype_t)dt, buffs[b], keep, &eng), 0);
                cmp_t c = {.want = &eng};
                CHECK_EQ_INT(sim_moves(s, count, (chorus_dtype_t)dt, compare, &c) == -1, 0);
                calls++;
                if (c.mismatch || c.next != eng.n) {
                  fprintf(stderr,
                          "  %s %s, %d ranks, %d channels, buffer %zu, %zu x %s: step %zu differs: engine "
                          "ch %d slice %u chunk %d step %u offset %zu bytes %zu; simulator ch %d slice %u chunk %d "
                          "step %u offset %zu bytes %zu (%zu steps in the engine's list)\n",
                          algos[a], chorus_coll_name(coll), n, nch, buffs[b], count,
                          chorus_dtype_name((chorus_dtype_t)dt), c.next, c.expected.ch, c.expected.slice,
                          c.expected.chunk, c.expected.step, c.expected.offset, c.expected.bytes, c.got.ch,
                          c.got.slice, c.got.chunk, c.got.step, c.got.offset, c.got.bytes, eng.n);
                  test_failed_++;
                  break;
                }
                /* Every byte of the unit moves once (chunks of a slice
                 * past the part's end move as empty steps). */
                if (c.bytes != count * es) {
                  fprintf(stderr, "  %s %s n=%d ch=%d: %zu bytes of steps for a unit of %zu\n", algos[a],
                          chorus_coll_name(coll), n, nch, c.bytes, count * es);
                  test_failed_++;
                }
              }
            }
            sim_destroy(s);
          }
          plan_destroy(p);
        }
      }
    }
  }
  printf("  %ld plans, %ld calls compared step by step\n", plans, calls);
  CHECK_TRUE(plans > 500);
  free(eng.m);
  topo_destroy(t);
}

TEST_MAIN(TEST(engine_and_simulator_cut_every_call_alike))
