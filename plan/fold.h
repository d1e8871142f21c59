/* fold.h -- one node for all. When every node of a job runs node 0's
 * programs moved by its own place (rank k*L + l of node k does what rank l
 * of node 0 does, each peer moved k nodes on, modulo the node count), then
 * on a network that treats every node alike every node is in the same
 * state at every moment: node 0's L ranks stand for all of them. A send to
 * a rank of another node is then a send to the rank of node 0 in that
 * rank's place, which by the symmetry receives at that moment what its
 * counterpart does. The rail rings of hybrid.lua and the rail-aware rings
 * of ring.lua are so; a tree is not (a root is not a leaf).
 *
 * plan_fold plans node 0 alone, checks the shift on nodes 1, N/2 and N-1
 * against it, and gives the folded plan of L ranks with where each of its
 * sends really goes; the simulator (sim_create_folded) gives the sends
 * that leave the node the share of the network they would have. The cost
 * is one node's steps, whatever the node count.
 */
#ifndef CHORUS_FOLD_H
#define CHORUS_FOLD_H

#include "plan.h"
#include "planner.h"

typedef struct {
  plan_t *plan;     /* node 0's ranks 0 .. node_ranks-1, every peer folded into them */
  int nnodes, node_ranks;
  /* [(rank * nchannels + channel) * node_ranks + local]: the job's rank
   * that a send of that program to local peer `local` goes to; -1: none. */
  int32_t *peer_of;
} plan_fold_t;

/* Rank r moved k nodes on, in a job of n nodes of L ranks; -1 stays. */
static inline int32_t plan_fold_shift(int32_t r, int k, int n, int L) {
  return r < 0 ? r : (int32_t)(((r / L + k) % n) * L + r % L);
}

/* Fold req (a job of req->shape's nodes, every one of the same size) with
 * the open planner. chorus_invalid_usage, err saying where, when the
 * script's programs are not the same on every node as above, when the plan
 * has hubs, or when one program sends to two ranks that fold into one; the
 * planner's errors otherwise. */
chorus_result_t plan_fold(planner_t *pl, const planner_req_t *req, plan_fold_t *out, planner_err_t *err);
void plan_fold_fini(plan_fold_t *f);

#endif
