/* verify.h -- proves that a plan implements its collective.
 *
 * Every rank's program runs symbolically: each chunk of each buffer holds a
 * value (which input position it came from and the set of ranks whose
 * contribution it carries). Programs advance in synchronous rounds under the
 * engine's flow control (GEOM_SLOT_CHUNKS per connection): an op fires when
 * its message has arrived and its send has room, as of the round's start.
 * The verifier checks, and reports the first violation of:
 *   - reads of a chunk nothing wrote, writes to the input buffer, reductions
 *     of different positions or of a contribution already held;
 *   - buffers a rank does not have (reduce: only the root has an output);
 *   - deadlock (the wait-for cycle), receives no one sends, sends no one
 *     receives;
 *   - the collective's postcondition for every rank, chunk and channel.
 * It runs once out of place and, where the collective allows it, once in
 * place (input aliasing the output the way the engine's API does).
 */
#ifndef CHORUS_VERIFY_H
#define CHORUS_VERIFY_H

#include <stdio.h>

#include "plan.h"

typedef struct {
  int slots;       /* chunks per connection; 0 = GEOM_SLOT_CHUNKS */
  int inplace;     /* -1 both (default 0 means both too), 1 in place only, 2 out of place only */
} verify_opts_t;

typedef struct {
  char msg[2048];  /* "ring allreduce nranks=4: rank 3 channel 0 op 5 (ring.lua:22): ..." */
  int rank, channel, op; /* where (-1 when not one op) */
  long rounds;     /* rounds the programs took (out of place) */
  size_t peak_values;  /* most live symbolic values (for the benchmark) */
} verify_result_t;

/* Returns chorus_success, or chorus_verify_failed with res->msg. */
chorus_result_t verify_plan(const plan_t *p, const verify_opts_t *opts, verify_result_t *res);

#endif
