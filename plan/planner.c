/* planner.c -- turns an algorithm script into a plan_t. The script runs in a
 * sandbox; its program(ctx) is called once per (rank, channel) and emits ops
 * through the context, a userdata whose method table also carries the
 * current rank's fields. C validates every op as it is emitted, so a bad
 * peer or chunk is reported at the script line that made it. */
#include "planner.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "error.h"
#include "params.h"

#ifndef CHORUS_SOURCE_ALGOS
#define CHORUS_SOURCE_ALGOS "algos"
#endif

#define CTX_META "chorus.ctx"
/* Ops one (rank, channel) program may emit. Plans live in C memory, outside
 * the sandbox's cap, so a runaway loop of ctx:send would otherwise grow one
 * until the process dies. Far above real programs (ring on 1M ranks: 2M). */
#define PLANNER_MAX_PROG_OPS (1u << 22)

struct planner {
  sbx_t *sbx;
  char path[PATH_MAX];
  char algos_dir[PATH_MAX];
  char name[64];
  unsigned colls;
  int script_ref; /* registry: the script's table */
  int ctx_ref;    /* registry: the ctx userdata */
  int fields_ref; /* registry: the ctx method-and-field table */
  /* The plan being built, and the program being emitted. */
  plan_t *plan;
  int rank, channel;
  int emitting;          /* 1 only inside program(ctx) */
  int fuse;              /* fuse plain sequences as they are emitted */
  int chunks_known;      /* ctx.chunks is set */
  int in_chunks, out_chunks;
  const void *last_source; /* the function that emitted the last op -> file index */
  int last_file;
  chorus_result_t append_result;
  /* The algorithm options (plan_t.opts) ctx:opt read: bit i for the i-th
   * item given; and every name it asked for, given or not ("a b c"). */
  uint64_t opt_read;
  char opt_names[256];
};

static void set_err(planner_err_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(planner_err_t *err, const char *fmt, ...) {
  if (!err) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
}

const char *planner_algos_dir(void) {
  static char dir[PATH_MAX];
  const char *env = param_str(PARAM_ALGOS);
  if (*env) return env;
  if (dir[0]) return dir;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    /* An installed layout only: a build tree uses the compiled-in source
     * path, so a stray algos/ folder next to the build is never picked up. */
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/../share/chorus/algos", exe);
    char ring[PATH_MAX + 80];
    snprintf(ring, sizeof ring, "%s/ring.lua", probe);
    if (strlen(probe) < sizeof dir && access(ring, R_OK) == 0) {
      memcpy(dir, probe, strlen(probe) + 1);
      return dir;
    }
  }
  snprintf(dir, sizeof dir, "%s", CHORUS_SOURCE_ALGOS);
  return dir;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void planner_list(const char *algos_dir, char *buf, size_t len) {
  buf[0] = 0;
  DIR *d = opendir(algos_dir);
  if (!d) return;
  char *names[128];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 128) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".lua")) names[n++] = strndup(e->d_name, l - 4);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp_str);
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    if (names[i] && used + strlen(names[i]) + 3 < len)
      used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
    free(names[i]);
  }
}

int planner_resolve(const char *algo, const char *algos_dir, char *path, size_t len, char *err, size_t errlen) {
  size_t l = strlen(algo);
  if (strchr(algo, '/') || (l > 4 && !strcmp(algo + l - 4, ".lua"))) {
    if (access(algo, R_OK) != 0) {
      snprintf(err, errlen, "%s: cannot read the algorithm script: %s", algo, strerror(errno));
      return -1;
    }
    snprintf(path, len, "%s", algo);
    return 0;
  }
  for (const char *c = algo; *c; c++) {
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')) {
      snprintf(err, errlen, "'%s' is not an algorithm name (lower-case letters, digits, _), nor a .lua file", algo);
      return -1;
    }
  }
  snprintf(path, len, "%s/%s.lua", algos_dir, algo);
  if (access(path, R_OK) != 0) {
    char names[1024];
    planner_list(algos_dir, names, sizeof names);
    snprintf(err, errlen, "unknown algorithm '%s' (in %s: %s)", algo, algos_dir, names[0] ? names : "none");
    return -1;
  }
  return 0;
}

/* ---- the context ------------------------------------------------------ */

static planner_t *ctx_planner(lua_State *L) {
  /* The context is the only full userdata a script can hold, so a type
   * check suffices; luaL_testudata would cost a registry lookup per op. */
  planner_t **pp = lua_touserdata(L, 1);
  if (!pp || lua_type(L, 1) != LUA_TUSERDATA)
    luaL_error(L, "call context methods with a colon: ctx:send(peer, buf, chunk)");
  /* A script may keep the context and call it later (from a finalizer,
   * say) when no plan is being built. */
  if (!(*pp)->plan) luaL_error(L, "the context is only usable while a plan is being built");
  return *pp;
}

static planner_t *ctx_emitter(lua_State *L, const char *what) {
  planner_t *pl = ctx_planner(L);
  if (!pl->emitting)
    luaL_error(L, "%s: ops can only be emitted from program(ctx), not from chunks, scratch, channels or supports",
               what);
  return pl;
}

static int check_peer(lua_State *L, planner_t *pl, int arg, const char *what) {
  lua_Integer peer = luaL_checkinteger(L, arg);
  const plan_t *p = pl->plan;
  if (peer < 0 || peer >= plan_nparts(p)) {
    if (p->nhubs)
      luaL_error(L, "%s: peer %d out of range (nranks %d and %d hubs from ctx:hub(i); ranks count from 0)", what,
                 (int)peer, p->nranks, p->nhubs);
    luaL_error(L, "%s: peer %d out of range (nranks %d, ranks count from 0)", what, (int)peer, p->nranks);
  }
  if (peer == pl->rank) luaL_error(L, "%s: peer %d is this rank itself (use ctx:copy for local moves)", what, (int)peer);
  return (int)peer;
}

static int buf_chunks(planner_t *pl, int buf) {
  return buf == PLAN_BUF_INPUT ? pl->in_chunks : buf == PLAN_BUF_OUTPUT ? pl->out_chunks : pl->plan->scratch_chunks;
}

static void check_ref(lua_State *L, planner_t *pl, int arg, const char *what, int writes, uint8_t *buf, int32_t *chunk) {
  lua_Integer b = luaL_checkinteger(L, arg);
  if (b < 0 || b >= PLAN_NUM_BUFS) luaL_error(L, "%s: buffer must be IN, OUT or SCRATCH (got %d)", what, (int)b);
  if (writes && b == PLAN_BUF_INPUT) luaL_error(L, "%s: IN is read-only; write OUT or SCRATCH", what);
  if (b != PLAN_BUF_SCRATCH && plan_is_hub(pl->plan, pl->rank))
    luaL_error(L, "%s: a hub holds no %s buffer, only SCRATCH", what, plan_buf_name((plan_buf_t)b));
  lua_Integer c = luaL_checkinteger(L, arg + 1);
  int n = buf_chunks(pl, (int)b);
  if (c < 0 || c >= n)
    luaL_error(L, "%s: chunk %d out of range for %s (%d chunks, counting from 0)", what, (int)c,
               plan_buf_name((plan_buf_t)b), n);
  *buf = (uint8_t)b;
  *chunk = (int32_t)c;
}

static void emit(lua_State *L, planner_t *pl, plan_op_t *op) {
  lua_Debug ar;
  op->line = 0;
  op->file = 0;
  /* The line of the emitting call, and its file by way of the calling
   * function: "S" formats the source name on every call, so it is asked
   * only when the function differs from the last op's. */
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "fl", &ar)) {
    op->line = ar.currentline;
    const void *fn = lua_topointer(L, -1);
    if (fn != pl->last_source) {
      /* Anchor the function so its address cannot be reused by another
       * function (of another file) while it is the cached one. */
      pl->last_source = fn;
      lua_pushvalue(L, -1);
      lua_rawsetp(L, LUA_REGISTRYINDEX, &pl->last_source);
      lua_Debug src;
      lua_getinfo(L, ">S", &src); /* pops the function */
      pl->last_file = plan_file_index(pl->plan, src.short_src);
    } else {
      lua_pop(L, 1);
    }
    op->file = (uint8_t)pl->last_file;
  }
  /* Fuse as ops arrive: the pair's first op is the last one appended when
   * it belongs to this program. */
  plan_t *p = pl->plan;
  const plan_prog_t *prog = plan_prog(p, pl->rank, pl->channel);
  if (prog->count >= PLANNER_MAX_PROG_OPS)
    luaL_error(L, "rank %d channel %d emitted more than %d ops (an endless loop?)", pl->rank, pl->channel,
               (int)PLANNER_MAX_PROG_OPS);
  if (pl->fuse && prog->count > 0 && plan_fuse_pair(&p->ops[p->nops - 1], op)) return;
  chorus_result_t r = plan_append(p, pl->rank, pl->channel, op);
  if (r != chorus_success) {
    pl->append_result = r;
    luaL_error(L, "cannot record op: %s", chorus_result_string(r));
  }
}

static plan_op_t blank_op(plan_opcode_t code) {
  plan_op_t op = {.code = (uint8_t)code, .src_chunk = -1, .dst_chunk = -1, .recv_peer = -1, .send_peer = -1};
  return op;
}

static int ctx_send(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "send");
  plan_op_t op = blank_op(PLAN_OP_SEND);
  op.send_peer = check_peer(L, pl, 2, "send");
  check_ref(L, pl, 3, "send", 0, &op.src_buf, &op.src_chunk);
  emit(L, pl, &op);
  return 0;
}

static int ctx_recv(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "recv");
  plan_op_t op = blank_op(PLAN_OP_RECV);
  op.recv_peer = check_peer(L, pl, 2, "recv");
  check_ref(L, pl, 3, "recv", 1, &op.dst_buf, &op.dst_chunk);
  emit(L, pl, &op);
  return 0;
}

static int ctx_recv_reduce(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "recv_reduce");
  plan_op_t op = blank_op(PLAN_OP_RECV_REDUCE);
  op.recv_peer = check_peer(L, pl, 2, "recv_reduce");
  check_ref(L, pl, 3, "recv_reduce", 0, &op.src_buf, &op.src_chunk);
  if (lua_isnoneornil(L, 5)) {
    op.dst_buf = op.src_buf;
    op.dst_chunk = op.src_chunk;
    if (op.dst_buf == PLAN_BUF_INPUT)
      luaL_error(L, "recv_reduce: IN is read-only; give a destination (OUT or SCRATCH) as arguments 5 and 6");
  } else {
    check_ref(L, pl, 5, "recv_reduce", 1, &op.dst_buf, &op.dst_chunk);
  }
  emit(L, pl, &op);
  return 0;
}

static int ctx_copy(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "copy");
  plan_op_t op = blank_op(PLAN_OP_COPY);
  check_ref(L, pl, 2, "copy", 0, &op.src_buf, &op.src_chunk);
  check_ref(L, pl, 4, "copy", 1, &op.dst_buf, &op.dst_chunk);
  emit(L, pl, &op);
  return 0;
}

static int ctx_recv_copy_send(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "recv_copy_send");
  plan_op_t op = blank_op(PLAN_OP_RECV_COPY_SEND);
  op.recv_peer = check_peer(L, pl, 2, "recv_copy_send");
  op.send_peer = check_peer(L, pl, 3, "recv_copy_send");
  check_ref(L, pl, 4, "recv_copy_send", 1, &op.dst_buf, &op.dst_chunk);
  emit(L, pl, &op);
  return 0;
}

static int ctx_recv_reduce_send(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "recv_reduce_send");
  plan_op_t op = blank_op(PLAN_OP_RECV_REDUCE_SEND);
  op.recv_peer = check_peer(L, pl, 2, "recv_reduce_send");
  op.send_peer = check_peer(L, pl, 3, "recv_reduce_send");
  check_ref(L, pl, 4, "recv_reduce_send", 0, &op.src_buf, &op.src_chunk);
  emit(L, pl, &op);
  return 0;
}

static int ctx_recv_reduce_copy_send(lua_State *L) {
  planner_t *pl = ctx_emitter(L, "recv_reduce_copy_send");
  plan_op_t op = blank_op(PLAN_OP_RECV_REDUCE_COPY_SEND);
  op.recv_peer = check_peer(L, pl, 2, "recv_reduce_copy_send");
  op.send_peer = check_peer(L, pl, 3, "recv_reduce_copy_send");
  check_ref(L, pl, 4, "recv_reduce_copy_send", 0, &op.src_buf, &op.src_chunk);
  check_ref(L, pl, 6, "recv_reduce_copy_send", 1, &op.dst_buf, &op.dst_chunk);
  emit(L, pl, &op);
  return 0;
}

static int check_rank_arg(lua_State *L, planner_t *pl, const char *what) {
  lua_Integer r = luaL_checkinteger(L, 2);
  if (r < 0 || r >= pl->plan->nranks) luaL_error(L, "%s: rank %d out of range (nranks %d)", what, (int)r, pl->plan->nranks);
  return (int)r;
}

static int check_node_arg(lua_State *L, planner_t *pl, const char *what) {
  lua_Integer n = luaL_checkinteger(L, 2);
  if (n < 0 || n >= pl->plan->shape.nnodes)
    luaL_error(L, "%s: node %d out of range (nnodes %d)", what, (int)n, pl->plan->shape.nnodes);
  return (int)n;
}

/* ctx:hub(i): the participant number of hub i, a peer like a rank. */
static int ctx_hub(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 0 || i >= pl->plan->nhubs)
    luaL_error(L, "hub: hub %d out of range (the script declares %d hubs; they count from 0)", (int)i,
               pl->plan->nhubs);
  lua_pushinteger(L, pl->plan->nranks + i);
  return 1;
}

static int ctx_node_of(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  lua_pushinteger(L, pl->plan->shape.rank_node[check_rank_arg(L, pl, "node_of")]);
  return 1;
}

static int ctx_local_rank_of(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  int r = check_rank_arg(L, pl, "local_rank_of");
  lua_pushinteger(L, r - pl->plan->shape.node_first[pl->plan->shape.rank_node[r]]);
  return 1;
}

static int ctx_node_size(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  lua_pushinteger(L, pl->plan->shape.node_size[check_node_arg(L, pl, "node_size")]);
  return 1;
}

static int ctx_node_nics(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  lua_pushinteger(L, pl->plan->shape.node_nics[check_node_arg(L, pl, "node_nics")]);
  return 1;
}

static int ctx_nic_of(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  lua_pushinteger(L, pl->plan->shape.rank_nic[check_rank_arg(L, pl, "nic_of")]);
  return 1;
}

static int ctx_node_ranks(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  int node = check_node_arg(L, pl, "node_ranks");
  int first = pl->plan->shape.node_first[node], size = pl->plan->shape.node_size[node];
  lua_createtable(L, size, 0);
  for (int i = 0; i < size; i++) {
    lua_pushinteger(L, first + i);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* The item of a `sep`-separated list that starts at *o: its length; *o
 * moves to the next item (or the end). */
static size_t list_item(const char **o, char sep) {
  const char *s = *o, *end = strchr(s, sep);
  size_t len = end ? (size_t)(end - s) : strlen(s);
  *o = s + len + (end ? 1 : 0);
  return len;
}

/* Remember that the script reads option `name` (planner_t.opt_names). */
static void note_opt_name(char *names, size_t cap, const char *name, size_t nl) {
  for (const char *o = names; *o;) {
    const char *it = o;
    if (list_item(&o, ' ') == nl && !strncmp(it, name, nl)) return;
  }
  size_t used = strlen(names);
  if (used + nl + 2 < cap) snprintf(names + used, cap - used, "%s%.*s", used ? " " : "", (int)nl, name);
}

/* ctx:opt(name, default): the value of name in "k=v,k=v", as a number when
 * the default is one. */
static int ctx_opt(lua_State *L) {
  planner_t *pl = ctx_planner(L);
  const char *name = luaL_checkstring(L, 2);
  size_t nl = strlen(name);
  note_opt_name(pl->opt_names, sizeof pl->opt_names, name, nl);
  const char *o = pl->plan->opts;
  for (int i = 0; *o; i++) {
    const char *it = o;
    size_t len = list_item(&o, ',');
    if (len > nl && !strncmp(it, name, nl) && it[nl] == '=') {
      if (i < 64) pl->opt_read |= 1ull << i;
      lua_pushlstring(L, it + nl + 1, len - nl - 1);
      if (lua_type(L, 3) == LUA_TNUMBER) {
        if (!lua_stringtonumber(L, lua_tostring(L, -1)))
          return luaL_error(L, "option %s=%s is not a number", name, lua_tostring(L, -1));
      }
      return 1;
    }
  }
  lua_settop(L, 3);
  return 1;
}

static int ctx_newindex(lua_State *L) {
  return luaL_error(L, "the context is read-only (tried to set '%s')", luaL_optstring(L, 2, "?"));
}

static int ctx_tostring(lua_State *L) {
  planner_t *pl = *(planner_t **)lua_touserdata(L, 1);
  lua_pushfstring(L, "ctx(rank %d of %d, channel %d)", pl->rank, pl->plan ? pl->plan->nranks : 0, pl->channel);
  return 1;
}

static const luaL_Reg ctx_methods[] = {
    {"send", ctx_send},
    {"recv", ctx_recv},
    {"recv_reduce", ctx_recv_reduce},
    {"copy", ctx_copy},
    {"recv_copy_send", ctx_recv_copy_send},
    {"recv_reduce_send", ctx_recv_reduce_send},
    {"recv_reduce_copy_send", ctx_recv_reduce_copy_send},
    {"node_of", ctx_node_of},
    {"local_rank_of", ctx_local_rank_of},
    {"node_size", ctx_node_size},
    {"node_ranks", ctx_node_ranks},
    {"node_nics", ctx_node_nics},
    {"nic_of", ctx_nic_of},
    {"hub", ctx_hub},
    {"opt", ctx_opt},
    {NULL, NULL},
};

static void make_ctx(planner_t *pl) {
  lua_State *L = sbx_state(pl->sbx);
  planner_t **pp = lua_newuserdatauv(L, sizeof *pp, 0);
  *pp = pl;
  luaL_newmetatable(L, CTX_META);
  lua_newtable(L); /* methods and the current rank's fields */
  luaL_setfuncs(L, ctx_methods, 0);
  lua_pushvalue(L, -1);
  pl->fields_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ctx_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, ctx_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, "locked");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  pl->ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

static void set_field_int(lua_State *L, const char *name, int v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, name);
}

/* Point the context's fields at (rank, channel) of the plan being built. */
static void ctx_set_rank(planner_t *pl, int rank, int channel) {
  lua_State *L = sbx_state(pl->sbx);
  const plan_t *p = pl->plan;
  pl->rank = rank;
  pl->channel = channel;
  lua_rawgeti(L, LUA_REGISTRYINDEX, pl->fields_ref);
  set_field_int(L, "rank", rank);
  set_field_int(L, "channel", channel);
  if (plan_is_hub(p, rank)) { /* a hub is on no node: ctx.this_hub says which it is */
    set_field_int(L, "this_hub", rank - p->nranks);
    static const char *const none[] = {"node", "local_rank", "local_size"};
    for (int i = 0; i < 3; i++) {
      lua_pushnil(L);
      lua_setfield(L, -2, none[i]);
    }
  } else {
    int node = p->shape.rank_node[rank];
    lua_pushnil(L);
    lua_setfield(L, -2, "this_hub");
    set_field_int(L, "node", node);
    set_field_int(L, "local_rank", rank - p->shape.node_first[node]);
    set_field_int(L, "local_size", p->shape.node_size[node]);
  }
  lua_pop(L, 1);
}

static void ctx_set_plan(planner_t *pl) {
  lua_State *L = sbx_state(pl->sbx);
  const plan_t *p = pl->plan;
  lua_rawgeti(L, LUA_REGISTRYINDEX, pl->fields_ref);
  set_field_int(L, "nranks", p->nranks);
  set_field_int(L, "nchannels", p->nchannels);
  set_field_int(L, "root", p->root);
  set_field_int(L, "nnodes", p->shape.nnodes);
  set_field_int(L, "nhubs", p->nhubs);
  /* A table that lives for one plan: scripts keep what every rank and
   * channel of the plan shares (a ring built once) there. */
  lua_newtable(L);
  lua_setfield(L, -2, "memo");
  lua_pushstring(L, chorus_coll_name(p->coll));
  lua_setfield(L, -2, "collective");
  if (pl->chunks_known)
    set_field_int(L, "chunks", p->nchunks);
  else {
    lua_pushnil(L);
    lua_setfield(L, -2, "chunks");
  }
  lua_pop(L, 1);
  ctx_set_rank(pl, 0, 0);
}

/* ---- loading and planning ---------------------------------------------- */

static void push_script_field(planner_t *pl, const char *field) {
  lua_State *L = sbx_state(pl->sbx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, pl->script_ref);
  lua_getfield(L, -1, field);
  lua_remove(L, -2);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static chorus_result_t read_declaration(planner_t *pl, planner_err_t *err) {
  lua_State *L = sbx_state(pl->sbx);
  const char *file = base_name(pl->path);
  if (!lua_istable(L, -1)) {
    set_err(err, "%s: the script must return a table (name, collectives, chunks, program); it returned %s", file,
            luaL_typename(L, -1));
    return chorus_script_error;
  }
  pl->script_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  push_script_field(pl, "name");
  if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0 || lua_rawlen(L, -1) >= sizeof pl->name) {
    set_err(err, "%s: field 'name' must be a non-empty string of at most %zu characters", file, sizeof pl->name - 1);
    return chorus_script_error;
  }
  snprintf(pl->name, sizeof pl->name, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  push_script_field(pl, "collectives");
  if (!lua_istable(L, -1) || lua_rawlen(L, -1) == 0) {
    set_err(err, "%s: field 'collectives' must be a list of collective names, e.g. { \"allreduce\" }", file);
    return chorus_script_error;
  }
  for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
    lua_rawgeti(L, -1, i);
    chorus_coll_t c;
    if (lua_type(L, -1) != LUA_TSTRING || chorus_coll_parse(lua_tostring(L, -1), &c) != chorus_success) {
      set_err(err,
              "%s: collectives[%d] = '%s' is not a collective (allreduce, broadcast, reduce, allgather, "
              "reducescatter, alltoall)",
              file, (int)i, lua_tostring(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1));
      return chorus_script_error;
    }
    pl->colls |= 1u << c;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  push_script_field(pl, "program");
  int ok = lua_isfunction(L, -1);
  lua_pop(L, 1);
  if (!ok) {
    set_err(err, "%s: field 'program' must be a function(ctx) that emits one rank's ops", file);
    return chorus_script_error;
  }
  push_script_field(pl, "chunks");
  ok = lua_isfunction(L, -1) || lua_isinteger(L, -1);
  lua_pop(L, 1);
  if (!ok) {
    set_err(err, "%s: field 'chunks' must be a whole number or a function(ctx) returning one", file);
    return chorus_script_error;
  }
  return chorus_success;
}

chorus_result_t planner_open(planner_t **out, const char *algo, const char *algos_dir, planner_err_t *err) {
  *out = NULL;
  if (err) memset(err, 0, sizeof *err);
  if (!algos_dir) algos_dir = planner_algos_dir();
  planner_t *pl = calloc(1, sizeof *pl);
  if (!pl) return chorus_out_of_memory;
  pl->script_ref = pl->ctx_ref = pl->fields_ref = LUA_NOREF;
  chorus_result_t r = chorus_invalid_argument;
  char msg[1024];
  snprintf(pl->algos_dir, sizeof pl->algos_dir, "%s", algos_dir);
  if (planner_resolve(algo, algos_dir, pl->path, sizeof pl->path, msg, sizeof msg) != 0) {
    set_err(err, "%s", msg);
    goto fail;
  }
  char libdir[PATH_MAX + 8];
  snprintf(libdir, sizeof libdir, "%s/lib", algos_dir);
  sbx_opts_t so = {.libdirs = {libdir}, .nlibdirs = 1};
  r = sbx_create(&pl->sbx, &so);
  if (r != chorus_success) {
    set_err(err, "cannot create the Lua sandbox: %s", chorus_result_string(r));
    goto fail;
  }
  lua_State *L = sbx_state(pl->sbx);
  const char *names[] = {"IN", "OUT", "SCRATCH"};
  for (int b = 0; b < PLAN_NUM_BUFS; b++) {
    lua_pushinteger(L, b);
    sbx_define(pl->sbx, names[b]);
  }
  make_ctx(pl);
  r = sbx_run_file(pl->sbx, pl->path);
  if (r != chorus_success) {
    set_err(err, "%s", sbx_error(pl->sbx));
    goto fail;
  }
  r = read_declaration(pl, err);
  if (r != chorus_success) goto fail;
  *out = pl;
  return chorus_success;
fail:
  planner_close(pl);
  return r;
}

void planner_close(planner_t *pl) {
  if (!pl) return;
  sbx_destroy(pl->sbx);
  free(pl);
}

const char *planner_name(const planner_t *pl) { return pl->name; }
const char *planner_path(const planner_t *pl) { return pl->path; }
unsigned planner_collectives(const planner_t *pl) { return pl->colls; }

static void describe_request(const planner_t *pl, const plan_t *p, char *buf, size_t len) {
  int n = snprintf(buf, len, "%s %s nranks=%d nodes=%d", pl->name, chorus_coll_name(p->coll), p->nranks,
                   p->shape.nnodes);
  if (plan_coll_rooted(p->coll) && n > 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, " root=%d", p->root);
  if (p->nchannels > 1 && n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, " channels=%d", p->nchannels);
}

/* A declaration function (chunks, scratch, channels, supports) failed: its
 * answer may depend on the shape, so the message names the request too. */
static void call_err(planner_t *pl, const char *field, planner_err_t *err) {
  char what[256];
  describe_request(pl, pl->plan, what, sizeof what);
  set_err(err, "%s, %s(ctx): %s", what, field, sbx_error(pl->sbx));
}

/* Evaluate an optional integer declaration: a number, or function(ctx). */
static chorus_result_t eval_int_field(planner_t *pl, const char *field, int dflt, int lo, int hi, int *out,
                                      planner_err_t *err) {
  lua_State *L = sbx_state(pl->sbx);
  push_script_field(pl, field);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    *out = dflt;
    return chorus_success;
  }
  if (lua_isfunction(L, -1)) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, pl->ctx_ref);
    chorus_result_t r = sbx_call(pl->sbx, 1, 1);
    if (r != chorus_success) {
      call_err(pl, field, err);
      return r;
    }
  }
  int isnum;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  lua_pop(L, 1);
  if (!isnum || v < lo || v > hi) {
    set_err(err, "%s: '%s' must give a whole number from %d to %d", base_name(pl->path), field, lo, hi);
    return chorus_script_error;
  }
  *out = (int)v;
  return chorus_success;
}

static chorus_result_t check_supports(planner_t *pl, planner_err_t *err) {
  lua_State *L = sbx_state(pl->sbx);
  push_script_field(pl, "supports");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return chorus_success;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, pl->ctx_ref);
  chorus_result_t r = sbx_call(pl->sbx, 1, 2);
  if (r != chorus_success) {
    call_err(pl, "supports", err);
    return r;
  }
  int ok = lua_toboolean(L, -2);
  if (!ok) {
    char what[256];
    describe_request(pl, pl->plan, what, sizeof what);
    set_err(err, "%s: not supported: %s", what, lua_isstring(L, -1) ? lua_tostring(L, -1) : "the script declines this shape");
    if (err) err->unsupported = 1;
  }
  lua_pop(L, 2);
  return ok ? chorus_success : chorus_invalid_usage;
}

/* Run program(ctx) for ranks lo .. hi-1, every channel. */
static chorus_result_t run_programs(planner_t *pl, int lo, int hi, planner_err_t *err) {
  lua_State *L = sbx_state(pl->sbx);
  plan_t *p = pl->plan;
  /* Dead scratch writes are dropped program by program, as soon as each is
   * whole (plan_fuse_dead_scratch). */
  uint8_t *live = NULL;
  if (pl->fuse && p->scratch_chunks > 0 && !(live = calloc((size_t)p->scratch_chunks, 1))) {
    set_err(err, "out of memory for %d scratch chunks", p->scratch_chunks);
    return chorus_out_of_memory;
  }
  push_script_field(pl, "program");
  int prog_idx = lua_gettop(L);
  pl->emitting = 1;
  chorus_result_t r = chorus_success;
  /* The hubs' programs come with the last range of ranks. */
  int end = hi >= p->nranks ? plan_nparts(p) : hi;
  for (int rank = lo; rank < end && r == chorus_success; rank++) {
    for (int ch = 0; ch < p->nchannels; ch++) {
      ctx_set_rank(pl, rank, ch);
      lua_pushvalue(L, prog_idx);
      lua_rawgeti(L, LUA_REGISTRYINDEX, pl->ctx_ref);
      r = sbx_call(pl->sbx, 1, 0);
      if (r != chorus_success) {
        char what[256];
        describe_request(pl, p, what, sizeof what);
        if (plan_is_hub(p, rank))
          set_err(err, "%s, hub %d channel %d: %s", what, rank - p->nranks, ch, sbx_error(pl->sbx));
        else
          set_err(err, "%s, rank %d channel %d: %s", what, rank, ch, sbx_error(pl->sbx));
        if (pl->append_result != chorus_success) r = pl->append_result;
        break;
      }
      if (live) plan_fuse_dead_scratch(p, rank, ch, live);
    }
  }
  pl->emitting = 0;
  free(live);
  lua_settop(L, prog_idx - 1);
  return r;
}

/* The script's optional 'hubs' (a plan's switches that reduce) and
 * 'rails' (each rank's traffic between nodes through its own NIC). */
static chorus_result_t read_hubs_and_rails(planner_t *pl, plan_t *p, planner_err_t *err) {
  int nhubs;
  chorus_result_t r = eval_int_field(pl, "hubs", 0, 0, PLAN_MAX_HUBS, &nhubs, err);
  if (r != chorus_success) return r;
  if (nhubs && (r = plan_set_hubs(p, nhubs)) != chorus_success) {
    set_err(err, "cannot give the plan %d hubs: %s", nhubs, chorus_result_string(r));
    return r;
  }
  lua_State *L = sbx_state(pl->sbx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, pl->fields_ref);
  set_field_int(L, "nhubs", nhubs);
  lua_pop(L, 1);
  push_script_field(pl, "rails");
  int rails_type = lua_type(L, -1);
  p->rail_nics = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (rails_type != LUA_TNIL && rails_type != LUA_TBOOLEAN) {
    set_err(err, "%s: 'rails' must be true or false (each rank's traffic between nodes through its own NIC)",
            base_name(pl->path));
    return chorus_script_error;
  }
  push_script_field(pl, "hubs_in");
  const char *in = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  int in_type = lua_type(L, -1);
  p->hubs_in = in && !strcmp(in, "network") ? PLAN_HUBS_IN_NETWORK : PLAN_HUBS_IN_NODES;
  int ok = in_type == LUA_TNIL || (in && (!strcmp(in, "node") || !strcmp(in, "network")));
  lua_pop(L, 1);
  if (!ok) {
    set_err(err, "%s: 'hubs_in' must be \"node\" (a switch inside each node) or \"network\" (a switch between them)",
            base_name(pl->path));
    return chorus_script_error;
  }
  return chorus_success;
}

/* The options as given (plan_t.opts): NAME=VALUE items separated by
 * commas, each name once. */
static chorus_result_t check_opts_given(const planner_t *pl, const char *opts, planner_err_t *err) {
  for (const char *o = opts; *o;) {
    const char *it = o;
    size_t len = list_item(&o, ',');
    const char *eq = memchr(it, '=', len);
    if (!eq || eq == it) {
      set_err(err, "algorithm %s: option '%.*s' is not NAME=VALUE (give them as --opt a=1,b=2)", pl->name, (int)len, it);
      return chorus_invalid_argument;
    }
    size_t nl = (size_t)(eq - it);
    for (const char *q = opts; q < it;) {
      const char *earlier = q;
      list_item(&q, ',');
      if (!strncmp(earlier, it, nl + 1)) {
        set_err(err, "algorithm %s: option '%.*s' is given twice", pl->name, (int)nl, it);
        return chorus_invalid_argument;
      }
    }
  }
  return chorus_success;
}

/* Every option given was read by the script on some rank and channel (a
 * misspelt name would otherwise change nothing, silently): `read` has bit
 * i for the i-th item, `names` what the script asked for. */
static chorus_result_t check_opts_read(const char *algo, const char *opts, uint64_t read, const char *names,
                                       planner_err_t *err) {
  int i = 0;
  for (const char *o = opts; *o; i++) {
    const char *it = o;
    size_t len = list_item(&o, ',');
    if (i < 64 && !(read >> i & 1)) {
      const char *eq = memchr(it, '=', len);
      int nl = eq ? (int)(eq - it) : (int)len;
      set_err(err, "algorithm %s does not read option '%.*s' for this call (%s%s)", algo, nl, it,
              names[0] ? "the options it reads: " : "it reads no options", names);
      return chorus_invalid_argument;
    }
  }
  return chorus_success;
}

/* Plan the programs of ranks lo .. hi-1 (the others stay empty). */
static chorus_result_t plan_range(planner_t *pl, const planner_req_t *req, int lo, int hi, plan_t **out,
                                  planner_err_t *err) {
  *out = NULL;
  if (err) memset(err, 0, sizeof *err);
  if (!(pl->colls & (1u << req->coll))) {
    char list[256] = "";
    for (int c = 0; c < chorus_num_collectives; c++)
      if (pl->colls & (1u << c)) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                                          chorus_coll_name((chorus_coll_t)c));
    set_err(err, "algorithm %s does not implement %s (it implements %s)", pl->name, chorus_coll_name(req->coll), list);
    return chorus_invalid_argument;
  }
  if (req->nranks < 1 || req->nranks > PLAN_MAX_RANKS) {
    set_err(err, "nranks %d out of range (1 to %d)", req->nranks, PLAN_MAX_RANKS);
    return chorus_invalid_argument;
  }
  int root = plan_coll_rooted(req->coll) ? req->root : 0;
  if (root < 0 || root >= req->nranks) {
    set_err(err, "root %d out of range (nranks %d)", req->root, req->nranks);
    return chorus_invalid_argument;
  }
  if (req->nchannels < 0 || req->nchannels > PLAN_MAX_CHANNELS) {
    set_err(err, "channels %d out of range (1 to %d)", req->nchannels, PLAN_MAX_CHANNELS);
    return chorus_invalid_argument;
  }
  if (req->opts && strlen(req->opts) >= sizeof(((plan_t *)0)->opts)) {
    set_err(err, "algorithm options too long: '%s'", req->opts);
    return chorus_invalid_argument;
  }
  if (req->opts) TRY(check_opts_given(pl, req->opts, err));
  pl->opt_read = 0;
  pl->opt_names[0] = 0;
  /* Plan with one channel first: the script may choose the default count. */
  chorus_result_t r = plan_create(&pl->plan, req->coll, req->nranks, 1, root, req->shape);
  if (r != chorus_success) {
    set_err(err, "cannot create a plan of %d ranks: %s", req->nranks, chorus_result_string(r));
    return r;
  }
  plan_t *p = pl->plan;
  snprintf(p->algo, sizeof p->algo, "%s", pl->name);
  snprintf(p->opts, sizeof p->opts, "%s", req->opts ? req->opts : "");
  pl->chunks_known = 0;
  pl->last_source = NULL;
  pl->append_result = chorus_success;
  ctx_set_plan(pl);
  int nch = req->nchannels;
  if (nch == 0) {
    r = eval_int_field(pl, "channels", 1, 1, PLAN_MAX_CHANNELS, &nch, err);
    if (r != chorus_success) goto fail;
  }
  if (nch != 1) {
    plan_t *q;
    r = plan_create(&q, req->coll, req->nranks, nch, root, req->shape);
    if (r != chorus_success) goto fail;
    snprintf(q->algo, sizeof q->algo, "%s", p->algo);
    snprintf(q->opts, sizeof q->opts, "%s", p->opts);
    plan_destroy(p);
    pl->plan = p = q;
    ctx_set_plan(pl);
  }
  r = check_supports(pl, err);
  if (r != chorus_success) goto fail;
  r = eval_int_field(pl, "chunks", 1, 1, PLAN_MAX_CHUNKS, &p->nchunks, err);
  if (r != chorus_success) goto fail;
  if ((long long)p->nchunks * p->nranks > INT32_MAX) {
    set_err(err, "%s: %d chunks per unit times %d ranks is too many chunks", base_name(pl->path), p->nchunks, p->nranks);
    r = chorus_script_error;
    goto fail;
  }
  pl->chunks_known = 1;
  ctx_set_plan(pl);
  r = eval_int_field(pl, "scratch", 0, 0, PLAN_MAX_CHUNKS, &p->scratch_chunks, err);
  if (r != chorus_success) goto fail;
  r = read_hubs_and_rails(pl, p, err);
  if (r != chorus_success) goto fail;
  r = eval_int_field(pl, "window", GEOM_SLOT_CHUNKS, GEOM_SLOT_CHUNKS, GEOM_NSTEPS, &p->window, err);
  if (r != chorus_success) goto fail;
  pl->in_chunks = p->in_units * p->nchunks;
  pl->out_chunks = p->out_units * p->nchunks;
  pl->fuse = !req->no_fuse;
  r = run_programs(pl, lo, hi, err);
  if (r != chorus_success) goto fail;
  *out = p;
  pl->plan = NULL;
  return chorus_success;
fail:
  plan_destroy(pl->plan);
  pl->plan = NULL;
  return r;
}

/* Large plans are planned in parallel: each thread runs the programs of a
 * range of ranks in a planner of its own (its own Lua state, the script
 * loaded again), and the parts are joined in rank order. Programs are
 * functions of (rank, channel) and ctx alone, so the plan is the one a
 * single planner builds (tested), and so is the first error: the lowest
 * range's. Below PLANNER_PARALLEL_RANKS ranks one planner does it all. */
#define PLANNER_PARALLEL_RANKS 256
#define PLANNER_MAX_THREADS 8

typedef struct {
  const planner_t *main;
  const planner_req_t *req;
  int lo, hi;
  plan_t *plan;
  planner_err_t err;
  chorus_result_t res;
  uint64_t opt_read; /* the part's planner_t.opt_read and opt_names */
  char opt_names[256];
} plan_part_t;

static void *plan_part(void *arg) {
  plan_part_t *w = arg;
  planner_t *pl;
  w->res = planner_open(&pl, w->main->path, w->main->algos_dir, &w->err);
  if (w->res != chorus_success) return NULL;
  w->res = plan_range(pl, w->req, w->lo, w->hi, &w->plan, &w->err);
  w->opt_read = pl->opt_read;
  snprintf(w->opt_names, sizeof w->opt_names, "%s", pl->opt_names);
  planner_close(pl);
  return NULL;
}

/* Threads to plan a request with: CHORUS_PLAN_THREADS, else the CPUs this
 * process may run on, at most PLANNER_MAX_THREADS; 1 for small plans. */
static int plan_threads(const planner_req_t *req) {
  if (req->nranks < PLANNER_PARALLEL_RANKS) return 1;
  long n = param_int(PARAM_PLAN_THREADS);
  if (n == 0) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > PLANNER_MAX_THREADS) n = PLANNER_MAX_THREADS;
  return (int)n;
}

chorus_result_t planner_plan(planner_t *pl, const planner_req_t *req, plan_t **out, planner_err_t *err) {
  int nt = plan_threads(req);
  if (nt < 2) {
    TRY(plan_range(pl, req, 0, INT_MAX, out, err));
    chorus_result_t r = check_opts_read(pl->name, (*out)->opts, pl->opt_read, pl->opt_names, err);
    if (r != chorus_success) plan_destroy(*out), *out = NULL;
    return r;
  }
  plan_part_t part[PLANNER_MAX_THREADS];
  pthread_t tid[PLANNER_MAX_THREADS];
  int started[PLANNER_MAX_THREADS] = {0};
  for (int i = 0; i < nt; i++) {
    part[i] = (plan_part_t){.main = pl, .req = req, .lo = (int)((long long)req->nranks * i / nt),
                            .hi = (int)((long long)req->nranks * (i + 1) / nt)};
    memset(&part[i].err, 0, sizeof part[i].err);
  }
  for (int i = 1; i < nt; i++) started[i] = pthread_create(&tid[i], NULL, plan_part, &part[i]) == 0;
  part[0].res = plan_range(pl, req, part[0].lo, part[0].hi, &part[0].plan, &part[0].err);
  for (int i = 1; i < nt; i++) {
    if (started[i]) {
      pthread_join(tid[i], NULL);
    } else { /* no thread: plan that part here */
      plan_part(&part[i]);
    }
  }
  chorus_result_t r = chorus_success;
  int bad = -1;
  for (int i = 0; i < nt && bad < 0; i++)
    if (part[i].res != chorus_success) bad = i;
  if (bad >= 0) {
    r = part[bad].res;
    if (err) *err = part[bad].err;
  }
  for (int i = 1; i < nt && r == chorus_success; i++) {
    r = plan_join(part[0].plan, part[i].plan);
    if (r != chorus_success) set_err(err, "cannot join the parts of a plan of %d ranks: %s", req->nranks,
                                     chorus_result_string(r));
  }
  for (int i = 1; i < nt; i++) plan_destroy(part[i].plan);
  if (r == chorus_success) {
    uint64_t read = pl->opt_read;
    for (int i = 1; i < nt; i++) {
      read |= part[i].opt_read;
      for (const char *o = part[i].opt_names; *o;) {
        const char *it = o;
        note_opt_name(pl->opt_names, sizeof pl->opt_names, it, list_item(&o, ' '));
      }
    }
    r = check_opts_read(pl->name, part[0].plan->opts, read, pl->opt_names, err);
  }
  if (r != chorus_success) {
    plan_destroy(part[0].plan);
    return r;
  }
  *out = part[0].plan;
  return chorus_success;
}

chorus_result_t planner_plan_ranks(planner_t *pl, const planner_req_t *req, int lo, int hi, plan_t **out,
                                   planner_err_t *err) {
  *out = NULL;
  if (lo < 0 || hi > req->nranks || lo >= hi) {
    if (err) set_err(err, "ranks %d..%d of a plan of %d ranks: out of range", lo, hi - 1, req->nranks);
    return chorus_invalid_argument;
  }
  /* hi below nranks keeps the hubs' programs out (run_programs). */
  TRY(plan_range(pl, req, lo, hi, out, err));
  chorus_result_t r = check_opts_read(pl->name, (*out)->opts, pl->opt_read, pl->opt_names, err);
  if (r != chorus_success) plan_destroy(*out), *out = NULL;
  return r;
}

chorus_result_t planner_build(const planner_req_t *req, plan_t **out, planner_err_t *err) {
  planner_t *pl;
  *out = NULL;
  TRY(planner_open(&pl, req->algo, req->algos_dir, err));
  chorus_result_t r = planner_plan(pl, req, out, err);
  planner_close(pl);
  return r;
}
