/* plan.h -- the plan IR: what every rank does, per channel, for one loop
 * iteration of a collective. Produced by the planner (planner.h) from an
 * algorithm script, proved by the verifier (verify.h), and consumed alike by
 * the engine's executor and by the simulator.
 *
 * The IR is independent of message size. Each rank's buffers are cut into
 * *units* (one rank's share of the collective: `count` elements for allreduce,
 * broadcast and reduce; the per-rank piece for allgather, reducescatter and
 * alltoall), each channel takes a contiguous part of every unit, and that part
 * is walked in loop iterations of `nchunks` chunks. A buffer holds in_units (or
 * out_units) units, so a chunk index c in a buffer names unit c / nchunks and
 * chunk c % nchunks inside it. Scratch holds `scratch_chunks` chunks of the
 * same size, private to a rank, a channel and a loop iteration.
 *
 * Op semantics (the local operand is `src`, the local destination `dst`, the
 * received chunk `in`):
 *   SEND                   send src to send_peer
 *   RECV                   dst = in (from recv_peer)
 *   RECV_REDUCE            dst = src (+) in
 *   COPY                   dst = src
 *   RECV_COPY_SEND         dst = in; send in to send_peer
 *   RECV_REDUCE_SEND       send src (+) in to send_peer; nothing written
 *   RECV_REDUCE_COPY_SEND  dst = src (+) in; send dst to send_peer
 * A send has completed when its data sits in the receiver's slots: the
 * message is a snapshot of src at that moment. Connections are FIFO per
 * (sender, receiver, channel) and buffer at least `window` chunks
 * (GEOM_SLOT_CHUNKS unless the script asks for more); the engine and the
 * simulator size their steps so, and the verifier proves the absence of
 * deadlock under exactly that bound.
 */
#ifndef CHORUS_PLAN_H
#define CHORUS_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chorus.h"
#include "geom.h"

/* Chunks a connection buffers at least (GEOM_SLOT_CHUNKS) and the largest
 * chunk are the geometry's: core/geom.h. */

/* The most ranks, channels and chunks a plan may have. */
#define PLAN_MAX_RANKS (1 << 20)
#define PLAN_MAX_CHANNELS 64
#define PLAN_MAX_CHUNKS (1 << 24)

typedef enum {
  PLAN_OP_SEND = 0,
  PLAN_OP_RECV,
  PLAN_OP_RECV_REDUCE,
  PLAN_OP_COPY,
  PLAN_OP_RECV_COPY_SEND,
  PLAN_OP_RECV_REDUCE_SEND,
  PLAN_OP_RECV_REDUCE_COPY_SEND,
  PLAN_NUM_OPS
} plan_opcode_t;

typedef enum { PLAN_BUF_INPUT = 0, PLAN_BUF_OUTPUT, PLAN_BUF_SCRATCH, PLAN_NUM_BUFS } plan_buf_t;

/* One op: 24 bytes. Fields an op code does not use hold -1 (peers, chunks) or
 * 0 (buffers). `file` indexes plan_t.files; `line` is the script line that
 * emitted the op (0 when the op was built in C). */
typedef struct {
  uint8_t code;    /* plan_opcode_t */
  uint8_t src_buf; /* plan_buf_t */
  uint8_t dst_buf; /* plan_buf_t */
  uint8_t file;
  int32_t src_chunk;
  int32_t dst_chunk;
  int32_t recv_peer;
  int32_t send_peer;
  int32_t line;
} plan_op_t;

/* One (rank, channel) program: ops[first .. first+count-1] of plan_t.ops. */
typedef struct {
  uint32_t first;
  uint32_t count;
} plan_prog_t;

/* The node shape: ranks are numbered node by node, node i holding
 * node_size[i] consecutive ranks. Each node has node_nics[i] network
 * interfaces (NICs, in the order the node declares them; at least 1), and
 * each rank a NIC of its node it is nearest to (rank_nic), so that scripts
 * can give each channel its own NIC (a rail) as NCCL does; a node whose NICs
 * are not known has one, and every rank on NIC 0. */
typedef struct {
  int nnodes;
  int *node_size;  /* [nnodes] */
  int *node_first; /* [nnodes] first rank of each node */
  int *rank_node;  /* [nranks] node of each rank */
  int *node_nics;  /* [nnodes] NICs of each node, >= 1 */
  int *rank_nic;   /* [nranks] the NIC of its node each rank is nearest to, 0 .. node_nics - 1 */
} plan_shape_t;

#define PLAN_MAX_FILES 16
#define PLAN_MAX_HUBS 65536
enum { PLAN_HUBS_IN_NODES = 0, PLAN_HUBS_IN_NETWORK = 1 };

typedef struct {
  chorus_coll_t coll;
  char algo[64];   /* the script's declared name */
  char opts[128];  /* algorithm options as given ("inter=tree"), "" for none */
  int nranks;
  int nchannels;
  int root;        /* broadcast/reduce root; 0 otherwise */
  int nchunks;     /* chunks per unit per loop iteration */
  int in_units;    /* units in the input buffer (1 or nranks) */
  int out_units;   /* units in the output buffer (1 or nranks) */
  int scratch_chunks;
  /* Hubs: participants beyond the ranks, numbered nranks .. nranks+nhubs-1,
   * that hold no buffer of the collective, only SCRATCH -- a switch that
   * reduces what it receives (NVLink SHARP, SHARP in an InfiniBand switch).
   * Their programs follow the ranks' in progs. The simulator places hub i on
   * the topology's hub i; the engine cannot run a plan with hubs. */
  int nhubs;
  /* Where the hubs are: PLAN_HUBS_IN_NODES, switches inside the nodes (an
   * NVSwitch: hub i belongs to node i / (nhubs / nnodes)), or
   * PLAN_HUBS_IN_NETWORK, switches of the network between them (SHARP in
   * an InfiniBand switch). The script's 'hubs_in' ("node" or "network"). */
  int hubs_in;
  /* 1: each rank's traffic between nodes goes through its own nearest NIC
   * (its rail) on every channel, as a hierarchical script's rails do; 0:
   * channel c's through NIC c mod k, as NCCL binds a ring's channel to one
   * NIC per host (sim/topo_route.h). The script's 'rails' field. */
  int rail_nics;
  /* Chunks each connection must hold for the plan to run: GEOM_SLOT_CHUNKS
   * unless the script asks for more ('window', up to GEOM_NSTEPS), as a
   * script that sends several chunks to a peer before it receives does
   * (algos/bruck.lua). The verifier proves the plan under this bound, and
   * the engine and the simulator cut the call so that it holds: chunks of
   * at most nsteps / window steps (core/geom.h, geom_conn_window). */
  int window;
  plan_shape_t shape;
  int nfiles;
  char *files[PLAN_MAX_FILES]; /* script paths ops point into */
  plan_prog_t *progs;          /* [(nranks + nhubs) * nchannels], index rank * nchannels + channel */
  plan_op_t *ops;
  size_t nops;
  size_t ops_cap;
} plan_t;

/* Units of the input and output buffer for a collective of n ranks. */
void plan_coll_units(chorus_coll_t coll, int nranks, int *in_units, int *out_units);

/* Whether the collective uses a root. */
int plan_coll_rooted(chorus_coll_t coll);

/* Whether the collective reduces (allreduce, reduce, reducescatter). */
int plan_coll_reduces(chorus_coll_t coll);

/* Fill a shape of nranks on nnodes nodes with the given sizes (sizes may be
 * NULL: as even as possible, the first nodes one larger). Returns
 * chorus_invalid_argument with a message when sizes do not add up. */
chorus_result_t plan_shape_init(plan_shape_t *s, int nranks, int nnodes, const int *sizes);
void plan_shape_fini(plan_shape_t *s);
chorus_result_t plan_shape_copy(plan_shape_t *dst, const plan_shape_t *src, int nranks);
/* Set the NICs: node_nics[nnodes] (each >= 1) and rank_nic[nranks] (each
 * below its node's count); chorus_invalid_argument when one is out of range,
 * the shape unchanged. */
chorus_result_t plan_shape_set_nics(plan_shape_t *s, int nranks, const int *node_nics, const int *rank_nic);
/* 1 when some node has more than one NIC. */
int plan_shape_has_nics(const plan_shape_t *s);
/* 1 when every node holds the same number of ranks. */
int plan_shape_even(const plan_shape_t *s);

/* Create an empty plan (no ops yet, every program empty). */
chorus_result_t plan_create(plan_t **out, chorus_coll_t coll, int nranks, int nchannels, int root,
                            const plan_shape_t *shape);
void plan_destroy(plan_t *p);

/* Give an empty plan (no op appended yet) nhubs hubs; chorus_invalid_usage
 * once it has ops, chorus_invalid_argument when nhubs is out of range. */
chorus_result_t plan_set_hubs(plan_t *p, int nhubs);

/* Ranks and hubs: the participants that have programs. */
static inline int plan_nparts(const plan_t *p) { return p->nranks + p->nhubs; }
static inline int plan_is_hub(const plan_t *p, int part) { return part >= p->nranks; }

/* The program of one (rank, channel), and its ops. */
static inline const plan_prog_t *plan_prog(const plan_t *p, int rank, int channel) {
  return &p->progs[(size_t)rank * p->nchannels + channel];
}
static inline const plan_op_t *plan_prog_ops(const plan_t *p, int rank, int channel) {
  return p->ops + plan_prog(p, rank, channel)->first;
}

/* Append an op to the program of (rank, channel). Programs must be appended
 * in rank-major, channel-minor order, each one whole before the next: the
 * planner builds them that way so the ops array needs no reordering. */
chorus_result_t plan_append(plan_t *p, int rank, int channel, const plan_op_t *op);

/* Append q's programs (of ranks p has none of, the same collective, shape
 * and geometry) to p: the ops are copied after p's, their files registered
 * in p. chorus_invalid_usage when the two do not fit together. */
chorus_result_t plan_join(plan_t *p, const plan_t *q);

/* Register a script path; returns its index for plan_op_t.file (0 .. nfiles-1). */
int plan_file_index(plan_t *p, const char *path);

/* Replace plain sequences by the fused forms, in every program:
 *   RECV(a -> X);        SEND(X -> b)  =>  RECV_COPY_SEND(a -> X, b)
 *   RECV_REDUCE(a, S -> X); SEND(X -> b)  =>  RECV_REDUCE_COPY_SEND(a, S -> X, b)
 *   RECV_REDUCE_COPY_SEND(a, S -> SCRATCH x, b), x dead  =>  RECV_REDUCE_SEND(a, S, b)
 * The first two join an op with the very next one of the same program; the
 * third (plan_fuse_dead_scratch) drops a write no later op reads. None changes
 * what a buffer holds when any op reads it. Returns the number of fusions. */
size_t plan_fuse(plan_t *p);

/* The third form in the program of (rank, channel): a RECV_REDUCE_COPY_SEND
 * whose destination is a scratch chunk that no later op of the program reads
 * before writing it again (scratch lives one loop iteration, so a chunk is
 * dead at the program's end) becomes RECV_REDUCE_SEND, which forwards the sum
 * without writing it, as NCCL's recvReduceSend does. `live` is caller memory
 * of p->scratch_chunks bytes, all 0, and is left all 0. Returns the number of
 * ops changed. */
size_t plan_fuse_dead_scratch(plan_t *p, int rank, int channel, uint8_t *live);

/* Fuse `next` into `op` when the pair is one of the plain sequences above;
 * returns 1 when it did (then `next` is to be dropped). */
int plan_fuse_pair(plan_op_t *op, const plan_op_t *next);

/* The name messages use for a script file: its base name, with "lib/" kept
 * for library modules so that lib/ring.lua and ring.lua differ. */
const char *plan_file_name(const plan_t *p, int file);

/* Names ("send", "recv_reduce_copy_send", ...; "in", "out", "scratch"). */
const char *plan_op_name(plan_opcode_t code);
const char *plan_buf_name(plan_buf_t b);

/* Whether an op code receives / sends / reads src / writes dst. */
int plan_op_receives(plan_opcode_t code);
int plan_op_sends(plan_opcode_t code);
int plan_op_reads_src(plan_opcode_t code);
int plan_op_writes_dst(plan_opcode_t code);

/* Describe one op in one line ("recv_reduce_send from 0 to 2 in[3]"). */
void plan_op_format(const plan_t *p, const plan_op_t *op, char *buf, size_t len);

/* The text dump: a header, then every op of the given rank (all ranks when
 * rank < 0), channel by channel, with the script line that emitted it. */
void plan_dump(const plan_t *p, int rank, FILE *f);

#endif
