/* plan.c -- the plan IR: creation, appending ops, fusion of plain sequences
 * into the fused forms, node shapes, and the text dump. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "error.h"

static const char *const op_names[PLAN_NUM_OPS] = {
    [PLAN_OP_SEND] = "send",
    [PLAN_OP_RECV] = "recv",
    [PLAN_OP_RECV_REDUCE] = "recv_reduce",
    [PLAN_OP_COPY] = "copy",
    [PLAN_OP_RECV_COPY_SEND] = "recv_copy_send",
    [PLAN_OP_RECV_REDUCE_SEND] = "recv_reduce_send",
    [PLAN_OP_RECV_REDUCE_COPY_SEND] = "recv_reduce_copy_send",
};

static const char *const buf_names[PLAN_NUM_BUFS] = {"in", "out", "scratch"};

const char *plan_op_name(plan_opcode_t code) {
  return (unsigned)code < PLAN_NUM_OPS ? op_names[code] : "bad-op";
}

const char *plan_buf_name(plan_buf_t b) {
  return (unsigned)b < PLAN_NUM_BUFS ? buf_names[b] : "bad-buf";
}

int plan_op_receives(plan_opcode_t code) {
  return code == PLAN_OP_RECV || code == PLAN_OP_RECV_REDUCE || code == PLAN_OP_RECV_COPY_SEND ||
         code == PLAN_OP_RECV_REDUCE_SEND || code == PLAN_OP_RECV_REDUCE_COPY_SEND;
}

int plan_op_sends(plan_opcode_t code) {
  return code == PLAN_OP_SEND || code == PLAN_OP_RECV_COPY_SEND || code == PLAN_OP_RECV_REDUCE_SEND ||
         code == PLAN_OP_RECV_REDUCE_COPY_SEND;
}

int plan_op_reads_src(plan_opcode_t code) {
  return code == PLAN_OP_SEND || code == PLAN_OP_RECV_REDUCE || code == PLAN_OP_COPY ||
         code == PLAN_OP_RECV_REDUCE_SEND || code == PLAN_OP_RECV_REDUCE_COPY_SEND;
}

int plan_op_writes_dst(plan_opcode_t code) {
  return code == PLAN_OP_RECV || code == PLAN_OP_RECV_REDUCE || code == PLAN_OP_COPY ||
         code == PLAN_OP_RECV_COPY_SEND || code == PLAN_OP_RECV_REDUCE_COPY_SEND;
}

void plan_coll_units(chorus_coll_t coll, int nranks, int *in_units, int *out_units) {
  *in_units = 1;
  *out_units = 1;
  if (coll == chorus_allgather) *out_units = nranks;
  if (coll == chorus_reducescatter) *in_units = nranks;
  if (coll == chorus_alltoall) *in_units = *out_units = nranks;
}

int plan_coll_rooted(chorus_coll_t coll) { return coll == chorus_broadcast || coll == chorus_reduce; }

int plan_coll_reduces(chorus_coll_t coll) {
  return coll == chorus_allreduce || coll == chorus_reduce || coll == chorus_reducescatter;
}

chorus_result_t plan_shape_init(plan_shape_t *s, int nranks, int nnodes, const int *sizes) {
  memset(s, 0, sizeof *s);
  if (nranks < 1 || nnodes < 1 || nnodes > nranks) return chorus_invalid_argument;
  s->nnodes = nnodes;
  s->node_size = malloc(sizeof(int) * (size_t)nnodes);
  s->node_first = malloc(sizeof(int) * (size_t)nnodes);
  s->rank_node = malloc(sizeof(int) * (size_t)nranks);
  s->node_nics = malloc(sizeof(int) * (size_t)nnodes);
  s->rank_nic = calloc((size_t)nranks, sizeof(int));
  if (!s->node_size || !s->node_first || !s->rank_node || !s->node_nics || !s->rank_nic) {
    plan_shape_fini(s);
    return chorus_out_of_memory;
  }
  int total = 0;
  for (int i = 0; i < nnodes; i++) {
    int sz = sizes ? sizes[i] : nranks / nnodes + (i < nranks % nnodes);
    if (sz < 1 || total + sz > nranks) {
      plan_shape_fini(s);
      return chorus_invalid_argument;
    }
    s->node_size[i] = sz;
    s->node_first[i] = total;
    s->node_nics[i] = 1;
    for (int r = total; r < total + sz; r++) s->rank_node[r] = i;
    total += sz;
  }
  if (total != nranks) {
    plan_shape_fini(s);
    return chorus_invalid_argument;
  }
  return chorus_success;
}

void plan_shape_fini(plan_shape_t *s) {
  free(s->node_size);
  free(s->node_first);
  free(s->rank_node);
  free(s->node_nics);
  free(s->rank_nic);
  memset(s, 0, sizeof *s);
}

chorus_result_t plan_shape_copy(plan_shape_t *dst, const plan_shape_t *src, int nranks) {
  TRY(plan_shape_init(dst, nranks, src->nnodes, src->node_size));
  if (!src->node_nics || !src->rank_nic) return chorus_success;
  chorus_result_t r = plan_shape_set_nics(dst, nranks, src->node_nics, src->rank_nic);
  if (r != chorus_success) plan_shape_fini(dst);
  return r;
}

chorus_result_t plan_shape_set_nics(plan_shape_t *s, int nranks, const int *node_nics, const int *rank_nic) {
  for (int i = 0; i < s->nnodes; i++)
    if (node_nics[i] < 1) return chorus_invalid_argument;
  for (int r = 0; r < nranks; r++)
    if (rank_nic[r] < 0 || rank_nic[r] >= node_nics[s->rank_node[r]]) return chorus_invalid_argument;
  memcpy(s->node_nics, node_nics, sizeof(int) * (size_t)s->nnodes);
  memcpy(s->rank_nic, rank_nic, sizeof(int) * (size_t)nranks);
  return chorus_success;
}

int plan_shape_has_nics(const plan_shape_t *s) {
  for (int i = 0; i < s->nnodes; i++)
    if (s->node_nics[i] > 1) return 1;
  return 0;
}

int plan_shape_even(const plan_shape_t *s) {
  for (int i = 1; i < s->nnodes; i++)
    if (s->node_size[i] != s->node_size[0]) return 0;
  return 1;
}

chorus_result_t plan_create(plan_t **out, chorus_coll_t coll, int nranks, int nchannels, int root,
                            const plan_shape_t *shape) {
  *out = NULL;
  if (nranks < 1 || nranks > PLAN_MAX_RANKS || nchannels < 1 || nchannels > PLAN_MAX_CHANNELS ||
      (unsigned)coll >= chorus_num_collectives || root < 0 || root >= nranks)
    return chorus_invalid_argument;
  plan_t *p = calloc(1, sizeof *p);
  if (!p) return chorus_out_of_memory;
  p->coll = coll;
  p->nranks = nranks;
  p->nchannels = nchannels;
  p->root = root;
  p->nchunks = 1;
  p->window = GEOM_SLOT_CHUNKS;
  plan_coll_units(coll, nranks, &p->in_units, &p->out_units);
  chorus_result_t r = shape ? plan_shape_copy(&p->shape, shape, nranks) : plan_shape_init(&p->shape, nranks, 1, NULL);
  if (r != chorus_success) goto fail;
  p->progs = calloc((size_t)nranks * (size_t)nchannels, sizeof *p->progs);
  if (!p->progs) {
    r = chorus_out_of_memory;
    goto fail;
  }
  *out = p;
  return chorus_success;
fail:
  plan_destroy(p);
  return r;
}

chorus_result_t plan_set_hubs(plan_t *p, int nhubs) {
  if (nhubs < 0 || nhubs > PLAN_MAX_HUBS) return chorus_invalid_argument;
  if (p->nops) return chorus_invalid_usage;
  plan_prog_t *progs = calloc((size_t)(p->nranks + nhubs) * (size_t)p->nchannels, sizeof *progs);
  if (!progs) return chorus_out_of_memory;
  free(p->progs);
  p->progs = progs;
  p->nhubs = nhubs;
  return chorus_success;
}

void plan_destroy(plan_t *p) {
  if (!p) return;
  plan_shape_fini(&p->shape);
  for (int i = 0; i < p->nfiles; i++) free(p->files[i]);
  free(p->progs);
  free(p->ops);
  free(p);
}

/* Large op arrays live on huge pages: a first touch of a 4 KiB page costs
 * about 12 us on the machines we measure on, which made page faults a
 * quarter of planning a 1024-rank ring; 2 MiB pages take that to nothing. */
#define PLAN_HUGE ((size_t)2 << 20)

static chorus_result_t grow_ops(plan_t *p) {
  size_t cap = p->ops_cap ? p->ops_cap * 2 : 1024;
  if (cap > UINT32_MAX) return chorus_out_of_memory;
  size_t bytes = cap * sizeof(plan_op_t);
  plan_op_t *ops;
  if (bytes < PLAN_HUGE) {
    ops = malloc(bytes);
  } else {
    bytes = (bytes + PLAN_HUGE - 1) & ~(PLAN_HUGE - 1);
    ops = aligned_alloc(PLAN_HUGE, bytes);
    if (ops) madvise(ops, bytes, MADV_HUGEPAGE);
  }
  if (!ops) return chorus_out_of_memory;
  if (p->nops) memcpy(ops, p->ops, p->nops * sizeof *ops);
  free(p->ops);
  p->ops = ops;
  p->ops_cap = cap;
  return chorus_success;
}

chorus_result_t plan_append(plan_t *p, int rank, int channel, const plan_op_t *op) {
  if (rank < 0 || rank >= plan_nparts(p) || channel < 0 || channel >= p->nchannels) return chorus_invalid_argument;
  plan_prog_t *prog = &p->progs[(size_t)rank * p->nchannels + channel];
  if (prog->count == 0) prog->first = (uint32_t)p->nops;
  /* Programs are contiguous: this op must extend the last program begun. */
  if (prog->first + prog->count != p->nops) return chorus_invalid_usage;
  if (p->nops == p->ops_cap) {
    TRY(grow_ops(p));
  }
  p->ops[p->nops++] = *op;
  prog->count++;
  return chorus_success;
}

chorus_result_t plan_join(plan_t *p, const plan_t *q) {
  if (q->coll != p->coll || q->nranks != p->nranks || q->nchannels != p->nchannels || q->nchunks != p->nchunks ||
      q->scratch_chunks != p->scratch_chunks || q->root != p->root || q->nhubs != p->nhubs || q->rail_nics != p->rail_nics ||
      q->hubs_in != p->hubs_in || q->window != p->window)
    return chorus_invalid_usage;
  uint8_t map[PLAN_MAX_FILES];
  for (int i = 0; i < q->nfiles; i++) map[i] = (uint8_t)plan_file_index(p, q->files[i]);
  while (p->ops_cap < p->nops + q->nops) {
    TRY(grow_ops(p));
  }
  size_t base = p->nops;
  for (size_t i = 0; i < q->nops; i++) {
    p->ops[base + i] = q->ops[i];
    if (q->ops[i].file < q->nfiles) p->ops[base + i].file = map[q->ops[i].file];
  }
  p->nops += q->nops;
  for (size_t k = 0; k < (size_t)plan_nparts(p) * p->nchannels; k++) {
    if (q->progs[k].count == 0) continue;
    if (p->progs[k].count != 0) return chorus_invalid_usage;
    p->progs[k] = (plan_prog_t){(uint32_t)(base + q->progs[k].first), q->progs[k].count};
  }
  return chorus_success;
}

int plan_file_index(plan_t *p, const char *path) {
  for (int i = 0; i < p->nfiles; i++)
    if (!strcmp(p->files[i], path)) return i;
  if (p->nfiles == PLAN_MAX_FILES) return PLAN_MAX_FILES - 1;
  p->files[p->nfiles] = strdup(path);
  if (!p->files[p->nfiles]) return 0;
  return p->nfiles++;
}

int plan_fuse_pair(plan_op_t *op, const plan_op_t *next) {
  if (next->code != PLAN_OP_SEND || next->src_buf != op->dst_buf || next->src_chunk != op->dst_chunk) return 0;
  if (op->code == PLAN_OP_RECV)
    op->code = PLAN_OP_RECV_COPY_SEND;
  else if (op->code == PLAN_OP_RECV_REDUCE)
    op->code = PLAN_OP_RECV_REDUCE_COPY_SEND;
  else
    return 0;
  op->send_peer = next->send_peer;
  return 1;
}

/* A scratch reference of op i, when it has one in range. */
static int scratch_ref(const plan_t *p, uint8_t buf, int32_t chunk) {
  return buf == PLAN_BUF_SCRATCH && chunk >= 0 && chunk < p->scratch_chunks;
}

size_t plan_fuse_dead_scratch(plan_t *p, int rank, int channel, uint8_t *live) {
  plan_prog_t *prog = &p->progs[(size_t)rank * p->nchannels + channel];
  plan_op_t *ops = p->ops + prog->first;
  size_t changed = 0;
  /* Backwards, so that live[c] says whether a later op reads scratch c
   * before writing it; at the end of the program every chunk is dead. */
  for (int64_t i = (int64_t)prog->count - 1; i >= 0; i--) {
    plan_op_t *op = &ops[i];
    if (op->code >= PLAN_NUM_OPS) continue;
    if (plan_op_writes_dst(op->code) && scratch_ref(p, op->dst_buf, op->dst_chunk)) {
      if (op->code == PLAN_OP_RECV_REDUCE_COPY_SEND && !live[op->dst_chunk]) {
        op->code = PLAN_OP_RECV_REDUCE_SEND;
        op->dst_buf = 0;
        op->dst_chunk = -1;
        changed++;
      } else {
        live[op->dst_chunk] = 0;
      }
    }
    if (plan_op_reads_src(op->code) && scratch_ref(p, op->src_buf, op->src_chunk)) live[op->src_chunk] = 1;
  }
  /* Leave live all 0 for the next program, touching only what was set. */
  for (uint32_t i = 0; i < prog->count; i++)
    if (scratch_ref(p, ops[i].src_buf, ops[i].src_chunk)) live[ops[i].src_chunk] = 0;
  return changed;
}

size_t plan_fuse(plan_t *p) {
  size_t fused = 0, w = 0;
  for (size_t pi = 0; pi < (size_t)plan_nparts(p) * p->nchannels; pi++) {
    plan_prog_t *prog = &p->progs[pi];
    size_t first = prog->first, end = first + prog->count;
    uint32_t new_first = (uint32_t)w;
    for (size_t i = first; i < end; i++) {
      plan_op_t op = p->ops[i];
      if (i + 1 < end && plan_fuse_pair(&op, &p->ops[i + 1])) {
        i++;
        fused++;
      }
      p->ops[w++] = op;
    }
    prog->first = new_first;
    prog->count = (uint32_t)(w - new_first);
  }
  p->nops = w;
  uint8_t *live = p->scratch_chunks > 0 ? calloc((size_t)p->scratch_chunks, 1) : NULL;
  if (live) {
    for (int r = 0; r < plan_nparts(p); r++)
      for (int ch = 0; ch < p->nchannels; ch++)
        fused += plan_fuse_dead_scratch(p, r, ch, live);
    free(live);
  }
  return fused;
}

static void format_ref(char *buf, size_t len, int b, int chunk) {
  snprintf(buf, len, "%s[%d]", plan_buf_name((plan_buf_t)b), chunk);
}

void plan_op_format(const plan_t *p, const plan_op_t *op, char *buf, size_t len) {
  char src[48], dst[48], peers[64];
  format_ref(src, sizeof src, op->src_buf, op->src_chunk);
  format_ref(dst, sizeof dst, op->dst_buf, op->dst_chunk);
  plan_opcode_t c = (plan_opcode_t)op->code;
  peers[0] = 0;
  if (plan_op_receives(c) && plan_op_sends(c))
    snprintf(peers, sizeof peers, " from %d to %d", op->recv_peer, op->send_peer);
  else if (plan_op_receives(c))
    snprintf(peers, sizeof peers, " from %d", op->recv_peer);
  else if (plan_op_sends(c))
    snprintf(peers, sizeof peers, " to %d", op->send_peer);
  switch (c) {
  case PLAN_OP_SEND:
  case PLAN_OP_RECV_REDUCE_SEND:
    snprintf(buf, len, "%s%s %s", plan_op_name(c), peers, src);
    break;
  case PLAN_OP_RECV:
  case PLAN_OP_RECV_COPY_SEND:
    snprintf(buf, len, "%s%s %s", plan_op_name(c), peers, dst);
    break;
  default:
    snprintf(buf, len, "%s%s %s -> %s", plan_op_name(c), peers, src, dst);
    break;
  }
}

const char *plan_file_name(const plan_t *p, int file) {
  if (file < 0 || file >= p->nfiles) return "?";
  const char *path = p->files[file];
  const char *s = strrchr(path, '/');
  if (!s) return path;
  /* Keep the folder of library modules: lib/ring.lua is not ring.lua. */
  if (s - path >= 4 && !strncmp(s - 4, "/lib", 4)) return s - 3;
  if (s - path == 3 && !strncmp(path, "lib", 3)) return path;
  return s + 1;
}

void plan_dump(const plan_t *p, int rank, FILE *f) {
  fprintf(f, "# plan %s %s nranks=%d nodes=%d channels=%d", p->algo, chorus_coll_name(p->coll), p->nranks,
          p->shape.nnodes, p->nchannels);
  if (plan_coll_rooted(p->coll)) fprintf(f, " root=%d", p->root);
  if (p->opts[0]) fprintf(f, " opts=%s", p->opts);
  if (p->nhubs) fprintf(f, " hubs=%d", p->nhubs);
  fprintf(f, "\n# chunks per unit %d; in %d chunks, out %d chunks, scratch %d chunks\n", p->nchunks,
          p->in_units * p->nchunks, p->out_units * p->nchunks, p->scratch_chunks);
  for (int r = 0; r < plan_nparts(p); r++) {
    if (rank >= 0 && r != rank) continue;
    for (int ch = 0; ch < p->nchannels; ch++) {
      const plan_prog_t *prog = plan_prog(p, r, ch);
      if (plan_is_hub(p, r))
        fprintf(f, "hub %d (participant %d) channel %d: %u ops\n", r - p->nranks, r, ch, prog->count);
      else
        fprintf(f, "rank %d channel %d: %u ops\n", r, ch, prog->count);
      const plan_op_t *ops = plan_prog_ops(p, r, ch);
      for (uint32_t i = 0; i < prog->count; i++) {
        char text[160];
        plan_op_format(p, &ops[i], text, sizeof text);
        if (ops[i].line > 0 && ops[i].file < p->nfiles)
          fprintf(f, "  %4u  %-44s %s:%d\n", i, text, plan_file_name(p, ops[i].file), ops[i].line);
        else
          fprintf(f, "  %4u  %s\n", i, text);
      }
    }
  }
}
