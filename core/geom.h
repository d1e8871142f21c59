/* geom.h -- the geometry: how a call's bytes become channels, slices, chunks
 * and steps, and the flow-control constants of a connection. One source for
 * the CPU executor (engine/exec.c), the CUDA kernel (engine/kernels/
 * kern_cuda_body.h, through the flat arguments engine/cuda_args.c fills)
 * and the simulator's replay (sim/sim.c): the simulator predicts the engine
 * because both cut a call here. Pure arithmetic on sizes; it knows nothing
 * of plans. The test geometry_shared holds the engine and the simulator to
 * the same list of moves.
 *
 * A connection has `nsteps` slots of step_bytes (GEOM_NSTEPS in the engine)
 * and holds GEOM_SLOT_CHUNKS chunks: the flow-control bound the verifier
 * proves plans deadlock-free under.
 *
 * A unit of `count` elements (one rank's buffer, or one of its nranks parts)
 * is split among channels in GEOM_ALIGN-byte parts; a channel walks its part
 * in slices (loop iterations) of k = plan->nchunks chunks of `ce` elements,
 *   ce = min(chunk_bytes, roundup64(ceil(part / k) * elsize)) / elsize,
 *   chunk_bytes = min(buffsize / GEOM_SLOT_CHUNKS, max_chunk);
 * a chunk moves as pieces (steps) of at most step_bytes, at least
 * min(steps_per_chunk, ceil(len / min_step)) of them, each rounded up to
 * GEOM_ALIGN bytes; an empty chunk still moves as one empty step.
 */
#ifndef CHORUS_CORE_GEOM_H
#define CHORUS_CORE_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "hd.h"

/* Slots per connection, and the chunks they hold: a chunk moves as
 * GEOM_NSTEPS / GEOM_SLOT_CHUNKS steps at most (NCCL's 8 steps, 2 chunks). */
#define GEOM_NSTEPS 8
#define GEOM_SLOT_CHUNKS 2
#define GEOM_STEPS_PER_CHUNK (GEOM_NSTEPS / GEOM_SLOT_CHUNKS)
/* Parts, chunks and steps are multiples of this (a cache line, and the
 * widest vector). */
#define GEOM_ALIGN 64u
/* No step under this when a chunk is large enough to be cut. */
#define GEOM_MIN_STEP (32u << 10)
/* Default bytes of slots per connection (CHORUS_BUFFSIZE). */
#define GEOM_DEFAULT_BUFFSIZE (4u << 20)
/* The largest chunk, whatever the buffer. A chunk is what a rank writes
 * into a peer's slots before that peer reads any of it (with 2 ranks the
 * ring's first op sends a whole chunk while the peer sends its own), so it
 * decides how far a step's lines travel: measured on the 2-core EPYC (1 MiB
 * L2 per core), 2 MiB chunks (the 4 MiB default's half) ran 2-rank
 * allreduce of 4-8 MiB at 0.7-0.9x the speed of 512 KiB chunks, the same at
 * 1-2 MiB, not measurably faster at 64-256 MiB. Smaller chunks lose: with
 * 256 KiB (and 64 KiB steps) the copies into the peer's slots ran at half
 * speed, as a slot is rewritten while the peer's cache still holds what it
 * read there. See BENCHMARKS.md, "CPU engine". */
#define GEOM_MAX_CHUNK (512u << 10)

/* A connection's buffer: what the engine reads from CHORUS_BUFFSIZE and the
 * simulator from its options (which may differ from the engine's, for a
 * what-if). */
typedef struct {
  size_t buffsize;     /* bytes of slots: at least 16 * nsteps * GEOM_ALIGN, a multiple of nsteps * GEOM_ALIGN */
  size_t chunk_bytes;  /* the largest chunk: min(buffsize / GEOM_SLOT_CHUNKS, max_chunk) */
  size_t step_bytes;   /* one slot: buffsize / nsteps */
  size_t min_step;     /* the smallest step a chunk is cut to */
  int nsteps;          /* slots */
  int steps_per_chunk; /* the most steps a chunk is cut into */
} geom_conn_t;

/* The buffer of `buffsize` bytes asked for, rounded as above; max_chunk is
 * rounded down to GEOM_ALIGN (at least GEOM_ALIGN). */
static inline geom_conn_t geom_conn(size_t buffsize, int nsteps, int steps_per_chunk, size_t min_step,
                                    size_t max_chunk) {
  geom_conn_t g;
  size_t unit = (size_t)nsteps * GEOM_ALIGN;
  if (buffsize < unit * 16) buffsize = unit * 16;
  buffsize -= buffsize % unit;
  if (max_chunk < GEOM_ALIGN) max_chunk = GEOM_ALIGN;
  max_chunk -= max_chunk % GEOM_ALIGN;
  g.buffsize = buffsize;
  g.chunk_bytes = buffsize / GEOM_SLOT_CHUNKS < max_chunk ? buffsize / GEOM_SLOT_CHUNKS : max_chunk;
  g.step_bytes = buffsize / (size_t)nsteps;
  g.min_step = min_step;
  g.nsteps = nsteps;
  g.steps_per_chunk = steps_per_chunk;
  return g;
}

/* The connection a plan needs (plan.h window): one that holds `window`
 * chunks, GEOM_SLOT_CHUNKS to nsteps. A chunk is then cut into at most
 * s = nsteps / window steps and is at most s steps long, so that window
 * chunks fit in the nsteps slots whatever the size (window 8 of 8 slots:
 * a chunk is one step). The default window changes nothing. */
static inline geom_conn_t geom_conn_window(geom_conn_t g, int window) {
  if (window <= GEOM_SLOT_CHUNKS) return g;
  int s = g.nsteps / window;
  if (s < 1) s = 1;
  if (s < g.steps_per_chunk) g.steps_per_chunk = s;
  size_t most = (size_t)s * g.step_bytes;
  if (most < g.chunk_bytes) g.chunk_bytes = most;
  return g;
}
/* The engine's connection for a CHORUS_BUFFSIZE of buffsize bytes. */
static inline geom_conn_t geom_conn_engine(size_t buffsize) {
  return geom_conn(buffsize, GEOM_NSTEPS, GEOM_STEPS_PER_CHUNK, GEOM_MIN_STEP, GEOM_MAX_CHUNK);
}

/* Elements of one channel's part of a unit: ceil(count / nch), rounded up to
 * GEOM_ALIGN bytes. */
static inline CHORUS_HD size_t geom_chan_elems(size_t count, int nch, size_t es) {
  size_t per = (count + (size_t)nch - 1) / (size_t)nch * es;
  per = (per + GEOM_ALIGN - 1) & ~(size_t)(GEOM_ALIGN - 1);
  return per / es;
}

/* The most elements of a chunk: chunk_bytes / es. */
static inline CHORUS_HD size_t geom_ce_max(size_t chunk_bytes, size_t es) { return chunk_bytes / es; }

/* Channel ch's part: its first element and length (0: the channel is idle). */
static inline CHORUS_HD void geom_part(size_t count, size_t chan_elems, int ch, size_t *off, size_t *len) {
  *off = (size_t)ch * chan_elems;
  *len = *off >= count ? 0 : count - *off;
  if (*len > chan_elems) *len = chan_elems;
}

/* Elements of one chunk for a part of part_len walked k chunks at a time,
 * capped at ce_max elements; at least 1. */
static inline CHORUS_HD size_t geom_chunk_elems(size_t part_len, int k, size_t es, size_t ce_max) {
  size_t want = (part_len + (size_t)k - 1) / (size_t)k * es;
  want = (want + GEOM_ALIGN - 1) & ~(size_t)(GEOM_ALIGN - 1);
  size_t ce = want / es < ce_max ? want / es : ce_max;
  return ce ? ce : 1;
}

/* Slices (loop iterations of k chunks of ce elements) of a part. */
static inline CHORUS_HD uint32_t geom_slices(size_t part_len, int k, size_t ce) {
  size_t per = (size_t)k * ce;
  return part_len ? (uint32_t)((part_len + per - 1) / per) : 0;
}

/* Chunk q of the slice starting at element `base` of the part: its first
 * element inside the part, and its length (0 past the end). */
static inline CHORUS_HD size_t geom_chunk_len(size_t part_len, size_t base, int q, size_t ce, size_t *pos) {
  *pos = base + (size_t)q * ce;
  size_t n = *pos >= part_len ? 0 : part_len - *pos;
  return n > ce ? ce : n;
}

/* Bytes per piece (step) of a chunk of len bytes: at most step, at least
 * min(max_pieces, ceil(len / min_step)) pieces, rounded up to GEOM_ALIGN. */
static inline CHORUS_HD size_t geom_piece(size_t len, size_t step, size_t max_pieces, size_t min_step) {
  size_t np = (len + step - 1) / step;
  size_t want = (len + min_step - 1) / min_step;
  if (want > max_pieces) want = max_pieces;
  if (np < want) np = want;
  if (np < 1) np = 1;
  size_t p = (len + np - 1) / np;
  p = (p + GEOM_ALIGN - 1) & ~(size_t)(GEOM_ALIGN - 1);
  return p > step ? step : p ? p : GEOM_ALIGN;
}

/* One step of a call: channel, slice, chunk of the slice (0..k-1), step of
 * the chunk, and the step's first byte in the unit and its bytes. The
 * engine's executor (exec_moves) and the simulator (sim_moves) list the
 * steps of a call as these, so that a test can compare them. */
typedef struct {
  int ch;
  uint32_t slice;
  int chunk;
  uint32_t step;
  size_t offset, bytes;
} geom_move_t;
/* Called for each step in order; nonzero stops the walk. */
typedef int (*geom_move_fn)(const geom_move_t *m, void *arg);

/* One call's cut: what both the engine and the simulator derive from the
 * count, the element size, the plan's channels and chunks per slice, and the
 * connection. */
typedef struct {
  size_t count, es, chan_elems, ce_max;
  int nchannels, k;
} geom_call_t;

static inline geom_call_t geom_call(size_t count, size_t es, int nchannels, int k, const geom_conn_t *conn) {
  geom_call_t g;
  g.count = count, g.es = es, g.nchannels = nchannels, g.k = k;
  g.chan_elems = geom_chan_elems(count, nchannels, es);
  g.ce_max = geom_ce_max(conn->chunk_bytes, es);
  return g;
}

/* One channel's share of a call. */
typedef struct {
  size_t part_off, part_len, ce; /* elements */
  uint32_t slices;
} geom_chan_t;

static inline geom_chan_t geom_chan(const geom_call_t *g, int ch) {
  geom_chan_t c;
  geom_part(g->count, g->chan_elems, ch, &c.part_off, &c.part_len);
  c.ce = geom_chunk_elems(c.part_len, g->k, g->es, g->ce_max);
  c.slices = geom_slices(c.part_len, g->k, c.ce);
  return c;
}

#endif
