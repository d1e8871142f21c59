/* geom.h -- the executor's geometry, shared by the CPU executor (exec.c) and
 * the CUDA kernel (kern_cuda.cu) so that both cut a buffer identically; the
 * simulator replays the same numbers. Pure arithmetic on sizes: it knows
 * nothing of plans.
 *
 * A unit of `count` elements is split among channels in GEOM_ALIGN-byte
 * parts; a channel walks its part in loop iterations of k chunks of `ce`
 * elements; a chunk moves as pieces (steps) of at most `step` bytes, at most
 * `max_pieces` of them, none under GEOM_MIN_STEP bytes when it is large enough.
 */
#ifndef CHORUS_KERNELS_GEOM_H
#define CHORUS_KERNELS_GEOM_H

#include <stddef.h>

#include "reduce.h" /* CHORUS_HD */

#define GEOM_ALIGN 64u
#define GEOM_MIN_STEP (32u << 10)

/* Elements of one channel's part of a unit: ceil(count / nch), rounded up to
 * GEOM_ALIGN bytes. */
static inline CHORUS_HD size_t geom_chan_elems(size_t count, int nch, size_t es) {
  size_t per = (count + (size_t)nch - 1) / (size_t)nch * es;
  per = (per + GEOM_ALIGN - 1) & ~(size_t)(GEOM_ALIGN - 1);
  return per / es;
}

/* Channel ch's part: its first element and length (0: the channel is idle). */
static inline CHORUS_HD void geom_part(size_t count, size_t chan_elems, int ch, size_t *off, size_t *len) {
  *off = (size_t)ch * chan_elems;
  *len = *off >= count ? 0 : count - *off;
  if (*len > chan_elems) *len = chan_elems;
}

/* Elements of one chunk for a part of part_len walked k chunks at a time,
 * capped at ce_max elements. */
static inline CHORUS_HD size_t geom_chunk_elems(size_t part_len, int k, size_t es, size_t ce_max) {
  size_t want = (part_len + (size_t)k - 1) / (size_t)k * es;
  want = (want + GEOM_ALIGN - 1) & ~(size_t)(GEOM_ALIGN - 1);
  return want / es < ce_max ? want / es : ce_max;
}

/* Chunk q of the loop iteration starting at element `base` of the part:
 * its first element inside the part, and its length (0 past the end). */
static inline CHORUS_HD size_t geom_chunk_len(size_t part_len, size_t base, int q, size_t ce, size_t *pos) {
  *pos = base + (size_t)q * ce;
  size_t n = *pos >= part_len ? 0 : part_len - *pos;
  return n > ce ? ce : n;
}

/* Bytes per piece of a chunk of len bytes. */
static inline CHORUS_HD size_t geom_piece(size_t len, size_t step, size_t max_pieces) {
  size_t np = (len + step - 1) / step;
  size_t want = (len + GEOM_MIN_STEP - 1) / GEOM_MIN_STEP;
  if (want > max_pieces) want = max_pieces;
  if (np < want) np = want;
  if (np < 1) np = 1;
  size_t p = (len + np - 1) / np;
  p = (p + GEOM_ALIGN - 1) & ~(size_t)(GEOM_ALIGN - 1);
  return p > step ? step : p ? p : GEOM_ALIGN;
}

#endif
