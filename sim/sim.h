/* sim.h -- the event simulator: replays a plan on a topology, every rank and
 * channel running its program exactly as the executor does, and predicts the
 * time of one collective call.
 *
 * Geometry (the executor's, engine/exec.c): a unit of `count` elements is
 * split among channels in 64-byte-aligned parts; a channel walks its part in
 * loop iterations of k = plan->nchunks chunks of ce elements, with
 *   ce = min(chunk_bytes, roundup64(ceil(part / k) * elsize)) / elsize,
 *   chunk_bytes = min(buffsize / GEOM_SLOT_CHUNKS, GEOM_MAX_CHUNK),
 *   step_bytes = buffsize / nsteps.
 * A chunk moves as pieces (steps) of at most step_bytes, cut into at least
 * min(steps_per_chunk, ceil(len / min_step)) pieces, each rounded up to 64
 * bytes; an empty chunk still moves as one empty step. Defaults are the
 * engine's: buffsize 4 MiB per connection (CHORUS_BUFFSIZE), 8 steps
 * (slots) per connection, at most 4 steps per chunk, 32 KiB smallest step.
 * A plan whose connections must hold more chunks (plan.h window, W > 2) has
 * chunks of at most nsteps / W steps, as the engine cuts them
 * (geom_conn_window).
 *
 * Timing model:
 *  - each (sender, receiver, channel) connection has `nsteps` slots in the
 *    receiver; a send waits for a free slot, then posts the step; posting
 *    costs the thread nothing (the copy engine / NIC moves it);
 *  - posted steps cross the connection's route one after another (FIFO): a
 *    step is a flow of bytes / efficiency(protocol) over the route's
 *    resources, sharing each with the other flows max-min fairly; it arrives
 *    (sits in the slot) the route's latency plus the protocol's step latency
 *    (its net latency on a route through a NIC) after its last byte left;
 *  - a receiving op takes arrived steps in order; for a fused op it also
 *    needs a free slot downstream; it spends its device's step_overhead and
 *    the protocol's overhead plus
 *    bytes / reduce_bw (reductions) or bytes / copy_bw (plain receives) of
 *    its device, then posts the result
 *    and frees the slot (the sender sees the free slot at once);
 *  - a rank with a step overhead (its device's or the protocol's) that has
 *    no memory model moves its own steps on routes without a NIC, as a GPU
 *    channel's thread block stores each step into the peer's buffer: after
 *    posting a step (a send, or a receive's forward) its thread waits until
 *    the step has left, so its steps' flows do not overlap its work or one
 *    another (NCCL's Simple protocol: flag wait, copy, fence, post per step);
 *  - every call costs the protocol's base (a fixed cost, NCCL's launch and
 *    set-up), added to its time after the replay;
 *  - a plan's hubs (plan.h: a switch that reduces) run on the topology's
 *    hubs, with their device's reduce_bw and no per-step overhead; what a
 *    rank sends a hub the switch pulls (the rank does not move it itself);
 *    steps to and from a hub pay no protocol latency or overhead, and a
 *    call with hubs pays the protocol's hub_latency instead of its base
 *    (NCCL times NVLS by one latency per call);
 *  - every op costs its device's op_overhead before it starts; a copy costs
 *    bytes / copy_bw;
 *  - a rank's channels end each call together (calls back to back: the
 *    next starts when the last of them has ended); with a channel_wake on
 *    its device, a rank of several channels starts each call that much
 *    late (its workers' wake-up) and ends it that much late when a worker,
 *    not channel 0, ended last;
 *  - the memory model: ranks on a device with `mem` are CPU threads that do
 *    their own data movement (a send copies each step into the slot before
 *    posting it, and a step between two ranks of one memory crosses no
 *    link); each work is a flow over the thread's rate for its class and
 *    the memory's mem_bw, charged the input/output buffer bytes it reads
 *    and writes, unless the call's buffers and the slots it touches fit in
 *    the memory's llc; where the memory names a `cache` (the cores' private
 *    caches) in front of its llc, a working set past the cache that fits in
 *    the llc shares llc_bw instead (sim/README.md).
 */
#ifndef CHORUS_SIM_H
#define CHORUS_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chorus.h"
#include "fold.h"
#include "plan.h"
#include "topo.h"

#define SIM_MAX_NSTEPS 64
/* NCCL's chunk for ring Simple: its 4 MiB connection buffer holds 8 steps
 * of 512 KiB and a chunk is 4 of them (ALLREDUCE_CHUNKSTEPS,
 * src/include/collectives.h), where the CPU engine caps chunks at 512 KiB
 * (core/geom.h). The default when every rank is on a GPU. */
#define SIM_GPU_MAX_CHUNK (2u << 20)

typedef struct {
  size_t buffsize;      /* bytes per connection; 0: GEOM_DEFAULT_BUFFSIZE */
  int nsteps;           /* slots per connection; 0: GEOM_NSTEPS */
  int steps_per_chunk;  /* most steps a chunk is cut into; 0: nsteps / GEOM_SLOT_CHUNKS */
  size_t min_step;      /* smallest step a chunk is cut to; 0: GEOM_MIN_STEP */
  size_t max_chunk;     /* largest chunk; 0: GEOM_MAX_CHUNK (the engine's cap), or
                         * SIM_GPU_MAX_CHUNK when every rank is on a GPU */
  int proto;            /* topo_proto_id_t */
  FILE *trace;          /* Chrome/Perfetto JSON events are written here (the caller opens and closes) */
  int span_ranks;       /* record op spans for the timeline of ranks 0 .. span_ranks-1 (0: none) */
  int calls;            /* calls replayed back to back, as chorus perf times its iterations (no barrier
                         * between them: a rank starts the next call when it has finished its part of
                         * this one, into slots its peers freed); 0 or 1: one call */
} sim_opts_t;

typedef struct {
  double time;          /* seconds per call: from the start until the last rank finished the last of
                         * o.calls calls, over o.calls (what chorus perf reports for as many iterations) */
  double first;         /* seconds until the last rank finished the first call (its latency alone) */
  uint64_t events;      /* events handled (flow ends, arrivals, thread wake-ups) */
  uint64_t steps;       /* steps moved */
  uint64_t flows;       /* flows started on the network */
  uint64_t recomputes;  /* max-min re-sharings over more than one flow */
  int peak_flows;
} sim_result_t;

/* One op as the timeline draws it. */
typedef struct {
  int32_t rank, channel;
  uint8_t code;
  double t0, t_work, t1; /* op began, first step could be worked on, op done */
} sim_span_t;

typedef struct sim sim_t;

/* Prepare to replay plan p on topology t: rank r of the plan runs on rank
 * r of the topology (p->nranks <= t->nranks), and every connection the plan
 * uses is routed once. Both are borrowed for the life of the simulator. */
chorus_result_t sim_create(sim_t **out, const topo_t *t, const plan_t *p, const sim_opts_t *o, char *err,
                           size_t errlen);
/* sim_create on the node fold f (plan/fold.h): f->plan's ranks are node
 * 0's of a job of f->nnodes nodes on ranks 0 .. nnodes * node_ranks - 1 of
 * t, every node running node 0's programs moved on; the sends to other
 * nodes get the share of the network their copies on every node leave
 * them (sim.c fold_resources). f is borrowed for the life of the
 * simulator. */
chorus_result_t sim_create_folded(sim_t **out, const topo_t *t, const plan_fold_t *f, const sim_opts_t *o, char *err,
                                  size_t errlen);
void sim_destroy(sim_t *s);

/* Simulate one call of `count` elements of dtype dt (count as the engine's
 * API takes it: per rank for allreduce, broadcast, reduce; per piece for
 * allgather, reducescatter, alltoall), or o.calls of them back to back.
 * Each sim_run starts from a fresh state: the same call gives the same
 * result whatever ran before it. */
chorus_result_t sim_run(sim_t *s, size_t count, chorus_dtype_t dt, sim_result_t *res, char *err, size_t errlen);

/* Where the next sim_run writes its trace (NULL: none): one simulator runs
 * every size of a sweep, the last one traced. */
void sim_set_trace(sim_t *s, FILE *trace);

/* The protocol (topo_proto_id_t) the next sim_run uses: chorus sim -p auto
 * runs every size under each and keeps the fastest. */
void sim_set_proto(sim_t *s, int proto);

/* After sim_run: per network resource (topo_nres), bytes carried and seconds
 * busy in that run; spans recorded (opts.span_ranks). */
void sim_res_stats(const sim_t *s, int res, double *bytes, double *busy);
const sim_span_t *sim_spans(const sim_t *s, size_t *n);
/* The topology the simulator was made with. */
const topo_t *sim_topo(const sim_t *s);

/* --- the geometry --- */

/* The steps a call of `count` elements of dt moves on every channel, in
 * order: the geometry the replay uses (core/geom.h, through this
 * simulator's chunk and piece functions), for the test that holds it to
 * the engine's (geometry_shared). Chunks are those of the plan's first
 * unit; fn returns nonzero to stop. Returns 0, 1 when fn stopped, -1 when
 * the options give no valid geometry. */
int sim_moves(sim_t *s, size_t count, chorus_dtype_t dt, geom_move_fn fn, void *arg);

#endif
