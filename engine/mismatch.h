/* mismatch.h -- when ranks make different calls, every rank says which:
 * both calls, in full. Every step carries a tag that hashes its call's
 * descriptor (comm_desc_t), so the first step of a different call is
 * noticed by the rank that receives it, and every connection set-up message
 * carries the call that makes it (comm_connect), so ranks whose plans never
 * meet (different roots) notice while they connect; that rank asks the sender over
 * the bootstrap (which still works while the connections are aborted) what
 * its call was, and tells the other ranks, which it warned before the abort
 * that woke them. */
#ifndef CHORUS_MISMATCH_H
#define CHORUS_MISMATCH_H

#include "comm.h"

static inline uint32_t tag_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (uint32_t)h;
}

/* Record call number c->seq as `d` (tag computed) in the history. */
void mismatch_record(chorus_comm_t *c, comm_desc_t *d);

/* This rank, making call `self`, received a step tagged `seen` from `peer`
 * on channel `ch`: fail the communicator with both calls (asking the peer,
 * at most half of CHORUS_TIMEOUT). Returns the error. */
chorus_result_t mismatch_report(chorus_comm_t *c, int ch, int peer, const comm_desc_t *self, uint32_t seen);

/* The tag of the agreement round that comes before call number seq (the
 * same on every rank: its steps meet whatever the calls were). */
uint32_t mismatch_agree_tag(uint32_t seq);

/* The agreement round found that rank `peer` made call `theirs` where this
 * rank made `self`: fail the communicator with both, without aborting its
 * connections (every rank found it in the same round). Returns the error. */
chorus_result_t mismatch_disagreed(chorus_comm_t *c, const comm_desc_t *self, int peer, const comm_desc_t *theirs);

/* An abort woke this rank, which has failed: take a mismatch report meant
 * for it (answering a peer that asks), which then becomes its error; waits
 * only when told one is coming (50 ms otherwise). */
void mismatch_listen(chorus_comm_t *c);

/* "allreduce #7 of 1024 x float32, sum, ring on 1 channel" */
void mismatch_desc_str(const comm_desc_t *d, char *buf, size_t len);

#endif
