/* topo.c -- the topology loader: runs a topology script in the sandbox with
 * the declaration functions (device, link, rank, protocol, param), records
 * every declaration with the script line that made it, then resolves names,
 * checks what a script cannot check for itself (missing devices, duplicate
 * names, unreachable ranks) and builds the adjacency the router walks. */
#include "topo.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "error.h"
#include "params.h"
#include "sandbox.h"
#include "topo_route.h"

#ifndef CHORUS_SOURCE_TOPOLOGIES
#define CHORUS_SOURCE_TOPOLOGIES "topologies"
#endif

static const char *const kind_names[TOPO_NUM_KINDS] = {
    [TOPO_HOST] = "host", [TOPO_CORE] = "core",         [TOPO_GPU] = "gpu", [TOPO_CPU] = "cpu",
    [TOPO_NUMA] = "numa", [TOPO_PCIE] = "pcie",         [TOPO_NVSWITCH] = "nvswitch",
    [TOPO_NIC] = "nic",   [TOPO_SWITCH] = "switch",
};
static const char *const proto_names[TOPO_NUM_PROTOS] = {"simple", "LL", "LL128"};

const char *topo_kind_name(topo_kind_t k) { return (unsigned)k < TOPO_NUM_KINDS ? kind_names[k] : "?"; }
const char *topo_proto_name(topo_proto_id_t p) { return (unsigned)p < TOPO_NUM_PROTOS ? proto_names[p] : "?"; }

int topo_proto_parse(const char *name) {
  for (int i = 0; i < TOPO_NUM_PROTOS; i++)
    if (!strcasecmp(name, proto_names[i])) return i;
  return -1;
}

const char *topo_dir(void) {
  const char *e = param_str(PARAM_TOPOLOGIES);
  return *e ? e : CHORUS_SOURCE_TOPOLOGIES;
}

int topo_resolve(const char *file, char *path, size_t len, char *err, size_t errlen) {
  if (strchr(file, '/') || (strlen(file) > 4 && !strcmp(file + strlen(file) - 4, ".lua"))) {
    snprintf(path, len, "%s", file);
    if (access(path, R_OK) == 0) return 0;
  }
  snprintf(path, len, "%s/%s%s", topo_dir(), file,
           strlen(file) > 4 && !strcmp(file + strlen(file) - 4, ".lua") ? "" : ".lua");
  if (access(path, R_OK) == 0) return 0;
  char names[2048];
  topo_list(names, sizeof names);
  snprintf(err, errlen, "no topology '%s' (not a readable file, nor in %s, which has: %s)", file, topo_dir(),
           names[0] ? names : "nothing");
  return -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void topo_list(char *buf, size_t len) {
  buf[0] = 0;
  DIR *d = opendir(topo_dir());
  if (!d) return;
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".lua")) names[n++] = strndup(e->d_name, l - 4);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_str);
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    if (off < len) off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);
    free(names[i]);
  }
}

/* --- the builder the declaration functions fill --- */

/* Declarations live in C memory, outside the sandbox's cap: a runaway loop
 * of device{} or link{} would otherwise grow them until the process dies.
 * Far above real clusters (16k GPUs: about 50k devices, 200k links). */
#define TOPO_MAX_DEVS (1 << 20)
#define TOPO_MAX_LINKS (1 << 21)

typedef struct {
  char *a, *b; /* names of devices not declared yet (else NULL and l.a, l.b hold them), resolved after the script ran */
  topo_link_t l;
} pending_link_t;

typedef struct {
  char *dev;
  char *where;
} pending_rank_t;

typedef struct {
  char *key, *val;
  int used;
} set_t;

typedef struct {
  topo_t *t;
  int devcap;
  pending_link_t *links;
  int nlinks, linkcap;
  pending_rank_t *ranks;
  int nranks, rankcap;
  pending_rank_t *hubs;
  int nhubs, hubcap;
  int hostcap;
  /* Open-addressing name -> device index table (size a power of two). */
  int *slots;
  int nslots;
  int *hslots; /* host name -> index */
  int nhslots;
  set_t sets[64];
  int nsets;
  size_t params_off;
} builder_t;

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int name_find(const builder_t *b, const char *name) {
  if (!b->nslots) return -1;
  for (uint64_t i = hash_str(name) & (b->nslots - 1);; i = (i + 1) & (b->nslots - 1)) {
    int d = b->slots[i];
    if (d < 0) return -1;
    if (!strcmp(b->t->devs[d].name, name)) return d;
  }
}

static int name_insert(builder_t *b, int dev) {
  if ((b->t->ndevs + 1) * 2 > b->nslots) {
    int n = b->nslots ? b->nslots * 2 : 1024;
    int *s = malloc(sizeof *s * n);
    if (!s) return -1;
    for (int i = 0; i < n; i++) s[i] = -1;
    for (int i = 0; i < b->nslots; i++) {
      if (b->slots[i] < 0) continue;
      uint64_t j = hash_str(b->t->devs[b->slots[i]].name) & (n - 1);
      while (s[j] >= 0) j = (j + 1) & (n - 1);
      s[j] = b->slots[i];
    }
    free(b->slots);
    b->slots = s;
    b->nslots = n;
  }
  uint64_t j = hash_str(b->t->devs[dev].name) & (b->nslots - 1);
  while (b->slots[j] >= 0) j = (j + 1) & (b->nslots - 1);
  b->slots[j] = dev;
  return 0;
}

static int grow(void **arr, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int n = *cap ? *cap * 2 : 64;
  while (n < need) n *= 2;
  void *p = realloc(*arr, elem * n);
  if (!p) return -1;
  *arr = p;
  *cap = n;
  return 0;
}

/* The position to blame for a declaration: the innermost frame in the
 * topology file itself (the outermost Lua frame's source), so that a
 * declaration made by a builder in topologies/lib names the user's line that
 * called the builder; the innermost Lua frame when there is none. */
static void decl_where(lua_State *L, char *buf, size_t len) {
  lua_Debug ar;
  char main_src[LUA_IDSIZE] = "";
  char first[512] = "";
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
    snprintf(main_src, sizeof main_src, "%s", ar.short_src);
    if (!first[0]) snprintf(first, sizeof first, "%s:%d", ar.short_src, ar.currentline);
  }
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
    if (!strcmp(ar.short_src, main_src)) {
      snprintf(buf, len, "%s:%d", ar.short_src, ar.currentline);
      return;
    }
  }
  snprintf(buf, len, "%s", first[0] ? first : "?");
}

static int raise_at(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int raise_at(lua_State *L, const char *fmt, ...) {
  char where[512], msg[1024];
  decl_where(L, where, sizeof where);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lua_pushfstring(L, "%s: %s", where, msg);
  return lua_error(L);
}

static builder_t *self(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* Read a quantity field: a string with a unit, or a plain number (taken as
 * the base unit). Returns 1 when present. */
static int opt_unit(lua_State *L, int tab, const char *field, int kind, double *out, const char *what) {
  lua_getfield(L, tab, field);
  int present = !lua_isnil(L, -1);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    *out = lua_tonumber(L, -1);
    if (*out < 0) raise_at(L, "%s: %s = %g cannot be negative", what, field, *out);
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    char err[256];
    if (sbx_parse_unit(lua_tostring(L, -1), kind, out, err, sizeof err) != 0)
      raise_at(L, "%s: %s: %s", what, field, err);
  } else if (present) {
    raise_at(L, "%s: %s must be a string with a unit, not a %s", what, field, luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  return present;
}

static void check_fields(lua_State *L, int tab, const char *what, const char *const *allowed) {
  lua_pushnil(L);
  while (lua_next(L, tab)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      int ok = 0;
      for (int i = 0; allowed[i]; i++) ok |= !strcmp(k, allowed[i]);
      if (!ok) {
        char list[256] = "";
        size_t off = 0;
        for (int i = 0; allowed[i]; i++) off += snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", allowed[i]);
        raise_at(L, "%s: unknown field '%s' (fields: %s)", what, k, list);
      }
    } else if (lua_type(L, -1) != LUA_TNUMBER) {
      raise_at(L, "%s: field keys must be names", what);
    }
  }
}

static char *dup_where(lua_State *L) {
  char w[512];
  decl_where(L, w, sizeof w);
  return strdup(w);
}

/* Hosts by name: the last one (devices of a host come together), else an
 * open-addressing table like the devices'. */
static int host_index(builder_t *b, const char *name) {
  topo_t *t = b->t;
  if (t->nhosts && !strcmp(t->hosts[t->nhosts - 1], name)) return t->nhosts - 1;
  if (b->nhslots) {
    for (uint64_t i = hash_str(name) & (b->nhslots - 1);; i = (i + 1) & (b->nhslots - 1)) {
      int h = b->hslots[i];
      if (h < 0) break;
      if (!strcmp(t->hosts[h], name)) return h;
    }
  }
  if (grow((void **)&t->hosts, &b->hostcap, t->nhosts + 1, sizeof *t->hosts)) return -1;
  if (!(t->hosts[t->nhosts] = strdup(name))) return -1;
  if ((t->nhosts + 1) * 2 > b->nhslots) {
    int n = b->nhslots ? b->nhslots * 2 : 256;
    int *sl = malloc(sizeof *sl * n);
    if (!sl) return -1;
    for (int i = 0; i < n; i++) sl[i] = -1;
    free(b->hslots);
    b->hslots = sl;
    b->nhslots = n;
    for (int h = 0; h < t->nhosts; h++) {
      uint64_t j = hash_str(t->hosts[h]) & (n - 1);
      while (sl[j] >= 0) j = (j + 1) & (n - 1);
      sl[j] = h;
    }
  }
  uint64_t j = hash_str(name) & (b->nhslots - 1);
  while (b->hslots[j] >= 0) j = (j + 1) & (b->nhslots - 1);
  b->hslots[j] = t->nhosts;
  return t->nhosts++;
}

/* device{ name=, kind=, host=, reduce_bw=, copy_bw=, copy_local_bw=, op_overhead=, step_overhead=,
 * channel_wake=, forward=, forward_bw=, mem_bw=, llc=, cache=, llc_bw=, mem= } -> name */
static int l_device(lua_State *L) {
  static const char *const fields[] = {"name",    "kind",          "host",    "reduce_bw", "copy_bw",
                                       "copy_local_bw", "op_overhead", "step_overhead", "channel_wake", "forward",
                                       "forward_bw", "mem_bw", "llc",   "cache", "llc_bw", "mem",     NULL};
  builder_t *b = self(L);
  topo_t *t = b->t;
  luaL_checktype(L, 1, LUA_TTABLE);
  check_fields(L, 1, "device", fields);
  lua_getfield(L, 1, "name");
  if (lua_type(L, -1) != LUA_TSTRING || !lua_tostring(L, -1)[0]) raise_at(L, "device: give it a name = \"...\"");
  const char *name = lua_tostring(L, -1);
  char what[300];
  snprintf(what, sizeof what, "device %s", name);
  if (name_find(b, name) >= 0)
    raise_at(L, "%s: duplicate name (first declared at %s)", what, t->devs[name_find(b, name)].where);
  if (t->ndevs >= TOPO_MAX_DEVS) raise_at(L, "%s: more than %d devices (an endless loop?)", what, TOPO_MAX_DEVS);
  lua_getfield(L, 1, "kind");
  const char *kind = lua_tostring(L, -1);
  int k = -1;
  for (int i = 0; kind && i < TOPO_NUM_KINDS; i++)
    if (!strcmp(kind, kind_names[i])) k = i;
  if (k < 0)
    raise_at(L, "%s: kind '%s' is unknown (host, core, gpu, cpu, numa, pcie, nvswitch, nic, switch)", what,
             kind ? kind : "(none)");
  lua_pop(L, 1);
  topo_dev_t d = {.kind = (topo_kind_t)k, .host = -1, .mem = -1, .mem_res = -1};
  d.forward = !(k == TOPO_HOST || k == TOPO_CORE || k == TOPO_GPU);
  opt_unit(L, 1, "reduce_bw", 'b', &d.reduce_bw, what);
  opt_unit(L, 1, "copy_bw", 'b', &d.copy_bw, what);
  opt_unit(L, 1, "copy_local_bw", 'b', &d.copy_local_bw, what);
  opt_unit(L, 1, "op_overhead", 't', &d.op_overhead, what);
  opt_unit(L, 1, "step_overhead", 't', &d.step_overhead, what);
  opt_unit(L, 1, "channel_wake", 't', &d.channel_wake, what);
  if (opt_unit(L, 1, "mem_bw", 'b', &d.mem_bw, what) && !(d.mem_bw > 0))
    raise_at(L, "%s: mem_bw must be a bandwidth above 0", what);
  if (opt_unit(L, 1, "llc", 's', &d.llc, what) && d.mem_bw <= 0)
    raise_at(L, "%s: llc is the cache in front of a memory: give mem_bw too", what);
  int has_cache = opt_unit(L, 1, "cache", 's', &d.cache, what), has_llc_bw = opt_unit(L, 1, "llc_bw", 'b', &d.llc_bw, what);
  if (has_cache != has_llc_bw)
    raise_at(L, "%s: cache (the private caches in front of the llc) and llc_bw (the llc's rate past them) go together",
             what);
  if (has_cache && !(d.llc > d.cache && d.llc_bw > 0))
    raise_at(L, "%s: cache must be smaller than llc, and llc_bw a bandwidth above 0", what);
  lua_getfield(L, 1, "mem");
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING) raise_at(L, "%s: mem must be the name of a memory device", what);
    const char *mn = lua_tostring(L, -1);
    d.mem = name_find(b, mn);
    if (d.mem < 0) raise_at(L, "%s: mem = '%s': no such device is declared before it (declare the memory first)", what, mn);
    if (!(t->devs[d.mem].mem_bw > 0))
      raise_at(L, "%s: mem = '%s': that device has no mem_bw (declared at %s)", what, mn, t->devs[d.mem].where);
  }
  lua_pop(L, 1);
  if (d.copy_local_bw > 0 && d.mem < 0)
    raise_at(L, "%s: copy_local_bw is a rate of the memory model (a copy between a rank's own buffers): give mem too",
             what);
  lua_getfield(L, 1, "forward");
  if (!lua_isnil(L, -1)) d.forward = lua_toboolean(L, -1);
  if (opt_unit(L, 1, "forward_bw", 'b', &d.forward_bw, what) && !d.forward)
    raise_at(L, "%s: forward_bw is what routes through a device share, and no route passes through a %s", what,
             kind_names[k]);
  lua_getfield(L, 1, "host");
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING) raise_at(L, "%s: host must be a name", what);
    if ((d.host = host_index(b, lua_tostring(L, -1))) < 0) return luaL_error(L, "out of memory");
  }
  lua_pop(L, 2);
  if (grow((void **)&t->devs, &b->devcap, t->ndevs + 1, sizeof *t->devs)) return luaL_error(L, "out of memory");
  d.name = strdup(name);
  d.where = dup_where(L);
  t->devs[t->ndevs] = d;
  if (!d.name || !d.where || name_insert(b, t->ndevs)) return luaL_error(L, "out of memory");
  t->ndevs++;
  return 1; /* the name, still on the stack */
}

/* link{ a, b, bw=, lat=, duplex="full"|"half", count=1 } */
static int l_link(lua_State *L) {
  static const char *const fields[] = {"bw", "lat", "duplex", "count", NULL};
  builder_t *b = self(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  check_fields(L, 1, "link", fields);
  lua_rawgeti(L, 1, 1);
  lua_rawgeti(L, 1, 2);
  if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
    raise_at(L, "link: give the two device names first: link{ \"a\", \"b\", bw = ..., lat = ... }");
  const char *na = lua_tostring(L, -2), *nb = lua_tostring(L, -1);
  char what[600];
  snprintf(what, sizeof what, "link %s - %s", na, nb);
  if (!strcmp(na, nb)) raise_at(L, "%s: a link joins two different devices", what);
  topo_link_t l = {.a = -1, .b = -1};
  if (!opt_unit(L, 1, "bw", 'b', &l.bw, what)) raise_at(L, "%s: give its bandwidth, bw = \"25GB/s\"", what);
  if (l.bw <= 0) raise_at(L, "%s: bandwidth must be above zero", what);
  opt_unit(L, 1, "lat", 't', &l.lat, what);
  lua_getfield(L, 1, "duplex");
  if (!lua_isnil(L, -1)) {
    const char *dx = lua_tostring(L, -1);
    if (dx && !strcmp(dx, "half")) l.half = 1;
    else if (!dx || strcmp(dx, "full") != 0) raise_at(L, "%s: duplex must be \"full\" or \"half\"", what);
  }
  lua_getfield(L, 1, "count");
  int count = lua_isnil(L, -1) ? 1 : (int)lua_tointeger(L, -1);
  if (count < 1 || count > 1024) raise_at(L, "%s: count must be 1 to 1024", what);
  if (b->nlinks > TOPO_MAX_LINKS - count) raise_at(L, "%s: more than %d links (an endless loop?)", what, TOPO_MAX_LINKS);
  lua_pop(L, 2);
  char *where = dup_where(L);
  for (int i = 0; i < count; i++) {
    if (grow((void **)&b->links, &b->linkcap, b->nlinks + 1, sizeof *b->links)) return luaL_error(L, "out of memory");
    pending_link_t *p = &b->links[b->nlinks++];
    p->l = l;
    /* Devices are mostly declared before their links: resolve them now and
     * keep a copy of a name only for a device still to come (a large
     * cluster has 100k links; their names were most of the loader's
     * allocations). */
    p->l.a = name_find(b, na);
    p->l.b = name_find(b, nb);
    p->a = p->l.a < 0 ? strdup(na) : NULL;
    p->b = p->l.b < 0 ? strdup(nb) : NULL;
    p->l.where = i == 0 ? where : strdup(where);
  }
  return 0;
}

/* Append `count` placements of the device named by argument 1 to a list of
 * pending placements (ranks or hubs), all remembering the calling line. */
static int place(lua_State *L, pending_rank_t **list, int *n, int *cap, int count) {
  char *where = dup_where(L);
  for (int i = 0; i < count; i++) {
    if (grow((void **)list, cap, *n + 1, sizeof **list)) return luaL_error(L, "out of memory");
    (*list)[*n].dev = strdup(lua_tostring(L, 1));
    (*list)[*n].where = i == 0 ? where : strdup(where);
    (*n)++;
  }
  return 0;
}

/* rank(dev [, count]): place the next rank(s) on a device. */
static int l_rank(lua_State *L) {
  builder_t *b = self(L);
  if (lua_type(L, 1) != LUA_TSTRING) raise_at(L, "rank: give the device name: rank \"h0.gpu0\"");
  int count = (int)luaL_optinteger(L, 2, 1);
  if (count < 1 || count > PLAN_MAX_RANKS) raise_at(L, "rank %s: count must be 1 to %d", lua_tostring(L, 1), PLAN_MAX_RANKS);
  if (b->nranks > PLAN_MAX_RANKS - count) raise_at(L, "rank %s: more than %d ranks in all", lua_tostring(L, 1), PLAN_MAX_RANKS);
  return place(L, &b->ranks, &b->nranks, &b->rankcap, count);
}

/* hub(dev [, count]): declare the next hub(s), a switch that reduces
 * (plan.h: where a plan's hubs run, sim.c place_hubs). */
static int l_hub(lua_State *L) {
  builder_t *b = self(L);
  if (lua_type(L, 1) != LUA_TSTRING) raise_at(L, "hub: give the switch's device name: hub \"h0.nvsw\"");
  int count = (int)luaL_optinteger(L, 2, 1);
  if (count < 1 || b->nhubs > PLAN_MAX_HUBS - count)
    raise_at(L, "hub %s: count must be 1 or more, and %d hubs in all at most", lua_tostring(L, 1), PLAN_MAX_HUBS);
  return place(L, &b->hubs, &b->nhubs, &b->hubcap, count);
}

double topo_proto_size_lat(const topo_proto_t *pr, double bytes) {
  int n = pr->nsize;
  if (n == 0) return 0;
  if (bytes <= pr->size_bytes[0]) return pr->size_lat_s[0];
  if (bytes >= pr->size_bytes[n - 1]) return pr->size_lat_s[n - 1];
  int i = 1;
  while (pr->size_bytes[i] < bytes) i++;
  double x = (log(bytes) - log(pr->size_bytes[i - 1])) / (log(pr->size_bytes[i]) - log(pr->size_bytes[i - 1]));
  return pr->size_lat_s[i - 1] + x * (pr->size_lat_s[i] - pr->size_lat_s[i - 1]);
}

/* latency_by_size = "2KiB:0.37us 4KiB:0.41us ...": sizes ascending, each
 * with the latency a step of that size adds, apart by spaces, commas or
 * semicolons (spaces pass through --set, whose list is of commas). An
 * empty string: none. */
static void parse_size_lat(lua_State *L, topo_proto_t *pr, const char *text, const char *what) {
  pr->nsize = 0;
  char buf[2048];
  if (strlen(text) >= sizeof buf) raise_at(L, "%s: latency_by_size is too long", what);
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *item = strtok_r(buf, ", ;", &save); item; item = strtok_r(NULL, ", ;", &save)) {
    char *colon = strchr(item, ':');
    if (!colon) raise_at(L, "%s: latency_by_size: '%s' is not SIZE:TIME (as 4KiB:0.4us)", what, item);
    *colon = 0;
    if (pr->nsize == TOPO_SIZE_LAT_MAX)
      raise_at(L, "%s: latency_by_size: more than %d points", what, TOPO_SIZE_LAT_MAX);
    char err[256];
    double b, t;
    if (sbx_parse_unit(item, 's', &b, err, sizeof err) != 0) raise_at(L, "%s: latency_by_size: %s", what, err);
    if (sbx_parse_unit(colon + 1, 't', &t, err, sizeof err) != 0) raise_at(L, "%s: latency_by_size: %s", what, err);
    if (!(b > 0)) raise_at(L, "%s: latency_by_size: a size must be above 0, not '%s'", what, item);
    if (pr->nsize > 0 && b <= pr->size_bytes[pr->nsize - 1])
      raise_at(L, "%s: latency_by_size: sizes must grow ('%s' after %g B)", what, item, pr->size_bytes[pr->nsize - 1]);
    pr->size_bytes[pr->nsize] = b, pr->size_lat_s[pr->nsize] = t;
    pr->nsize++;
  }
}

/* protocol{ "LL", latency = "0.6us", net_latency = "2.7us", efficiency = 0.5, overhead = "1us",
 *           base = "6.6us", latency_by_size = "4KiB:0.4us 32KiB:0.3us" } */
static int l_protocol(lua_State *L) {
  static const char *const fields[] = {"latency",         "net_latency", "efficiency", "overhead", "base",
                                       "latency_by_size", "hub_latency", NULL};
  builder_t *b = self(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  check_fields(L, 1, "protocol", fields);
  lua_rawgeti(L, 1, 1);
  int p = lua_isstring(L, -1) ? topo_proto_parse(lua_tostring(L, -1)) : -1;
  if (p < 0) raise_at(L, "protocol: the first entry names it: simple, LL or LL128");
  lua_pop(L, 1);
  topo_proto_t *pr = &b->t->proto[p];
  char what[64];
  snprintf(what, sizeof what, "protocol %s", proto_names[p]);
  opt_unit(L, 1, "latency", 't', &pr->step_lat, what);
  opt_unit(L, 1, "overhead", 't', &pr->overhead, what);
  pr->has_net_lat = opt_unit(L, 1, "net_latency", 't', &pr->net_lat, what);
  opt_unit(L, 1, "base", 't', &pr->base, what);
  pr->has_hub_lat = opt_unit(L, 1, "hub_latency", 't', &pr->hub_lat, what);
  pr->declared = 1;
  lua_getfield(L, 1, "latency_by_size");
  if (lua_type(L, -1) == LUA_TSTRING) parse_size_lat(L, pr, lua_tostring(L, -1), what);
  else if (!lua_isnil(L, -1))
    raise_at(L, "%s: latency_by_size must be a string of SIZE:TIME points, not a %s", what, luaL_typename(L, -1));
  lua_pop(L, 1);
  lua_getfield(L, 1, "efficiency");
  if (!lua_isnil(L, -1)) {
    double e = lua_tonumber(L, -1);
    if (!(e > 0 && e <= 1)) raise_at(L, "%s: efficiency must be in (0, 1]", what);
    pr->efficiency = e;
  }
  lua_pop(L, 1);
  return 0;
}

/* routing "ecmp" | "dmodk": how switches pick among equally short next
 * hops (topo_t.routing); the default is ecmp. */
static int l_routing(lua_State *L) {
  builder_t *b = self(L);
  const char *m = luaL_checkstring(L, 1);
  if (!strcmp(m, "ecmp")) b->t->routing = TOPO_ROUTE_ECMP;
  else if (!strcmp(m, "dmodk")) b->t->routing = TOPO_ROUTE_DMODK;
  else raise_at(L, "routing '%s': ecmp (a switch hashes each flow over its equal next hops, as Ethernet does) or "
                   "dmodk (it takes the destination's port modulo their number, as InfiniBand's fat-tree routing does)", m);
  return 0;
}

/* Whether the "k=v,k=v" list already names parameter `name` (a whole key:
 * "overhead" is not "step_overhead"). */
static int params_has(const char *params, const char *name) {
  size_t n = strlen(name);
  for (const char *p = params; *p;) {
    if (!strncmp(p, name, n) && p[n] == '=') return 1;
    const char *c = strchr(p, ',');
    if (!c) break;
    p = c + 1;
  }
  return 0;
}

/* param(name, default): the --set value for name, converted to the type of
 * default, or default itself. */
static int l_param(lua_State *L) {
  builder_t *b = self(L);
  const char *name = luaL_checkstring(L, 1);
  if (lua_isnoneornil(L, 2)) raise_at(L, "param '%s': give a default value", name);
  lua_settop(L, 2);
  set_t *s = NULL;
  for (int i = 0; i < b->nsets; i++)
    if (!strcmp(b->sets[i].key, name)) s = &b->sets[i];
  if (s) {
    s->used = 1;
    if (lua_type(L, 2) == LUA_TNUMBER) {
      char *end;
      double v = strtod(s->val, &end);
      if (end == s->val || *end)
        raise_at(L, "--set %s=%s: parameter '%s' is a number (default %s)", name, s->val, name, lua_tostring(L, 2));
      if (v == (double)(long long)v) lua_pushinteger(L, (lua_Integer)v);
      else lua_pushnumber(L, v);
    } else if (lua_type(L, 2) == LUA_TBOOLEAN) {
      if (strcmp(s->val, "true") && strcmp(s->val, "false") && strcmp(s->val, "1") && strcmp(s->val, "0"))
        raise_at(L, "--set %s=%s: parameter '%s' is true or false", name, s->val, name);
      lua_pushboolean(L, !strcmp(s->val, "true") || !strcmp(s->val, "1"));
    } else {
      lua_pushstring(L, s->val);
    }
  } else {
    lua_pushvalue(L, 2);
  }
  topo_t *t = b->t;
  if (!params_has(t->params, name)) {
    const char *v = luaL_tolstring(L, -1, NULL);
    if (b->params_off < sizeof t->params)
      b->params_off += snprintf(t->params + b->params_off, sizeof t->params - b->params_off, "%s%s=%s",
                                b->params_off ? "," : "", name, v);
    lua_pop(L, 1);
  }
  return 1;
}

static void define(sbx_t *s, builder_t *b, const char *name, lua_CFunction f) {
  lua_State *L = sbx_state(s);
  lua_pushlightuserdata(L, b);
  lua_pushcclosure(L, f, 1);
  sbx_define(s, name);
}

static int parse_sets(builder_t *b, const char *sets, topo_err_t *err) {
  if (!sets || !*sets) return 0;
  char *copy = strdup(sets), *save = NULL;
  for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv || b->nsets == 64) {
      snprintf(err->msg, sizeof err->msg, "--set: '%s' is not name=value", kv);
      free(copy);
      return -1;
    }
    *eq = 0;
    b->sets[b->nsets].key = strdup(kv);
    b->sets[b->nsets].val = strdup(eq + 1);
    b->nsets++;
  }
  free(copy);
  return 0;
}

/* Strip the traceback the sandbox appends: users need the first line. */
static void first_line(const char *msg, char *out, size_t len) {
  const char *tb = strstr(msg, "\nstack traceback:");
  size_t n = tb ? (size_t)(tb - msg) : strlen(msg);
  if (n >= len) n = len - 1;
  memcpy(out, msg, n);
  out[n] = 0;
}

/* Each host's NICs, and for each rank the NIC nearest it: a breadth-first
 * search from the rank's device through the forwarding devices of its host
 * (a NIC's route to another host is not "near"). */
static chorus_result_t resolve_nics(topo_t *t) {
  int nh = t->nhosts, nd = t->ndevs;
  t->host_nic_first = calloc((size_t)nh + 1, sizeof(int));
  t->rank_nic = malloc(sizeof(int) * ((size_t)t->nranks + 1));
  t->host_ranks = calloc((size_t)nh + 1, sizeof(int));
  if (!t->host_ranks) return chorus_out_of_memory;
  for (int r = 0; r < t->nranks; r++)
    if (t->devs[t->rank_dev[r]].host >= 0) t->host_ranks[t->devs[t->rank_dev[r]].host]++;
  int *hops = malloc(sizeof(int) * ((size_t)nd + 1)), *queue = malloc(sizeof(int) * ((size_t)nd + 1));
  int *stamp = calloc((size_t)nd + 1, sizeof(int));
  if (!t->host_nic_first || !t->rank_nic || !hops || !queue || !stamp) {
    free(hops), free(queue), free(stamp);
    return chorus_out_of_memory;
  }
  for (int d = 0; d < nd; d++)
    if (t->devs[d].kind == TOPO_NIC && t->devs[d].host >= 0) t->host_nic_first[t->devs[d].host + 1]++;
  for (int h = 0; h < nh; h++) t->host_nic_first[h + 1] += t->host_nic_first[h];
  int total = t->host_nic_first[nh];
  t->host_nic = malloc(sizeof(int) * ((size_t)total + 1));
  t->nic_proxy = malloc(sizeof(int) * ((size_t)total + 1));
  int *fill = calloc((size_t)nh + 1, sizeof(int)), *load = calloc((size_t)total + 1, sizeof(int));
  int *nic_index = malloc(sizeof(int) * ((size_t)nd + 1));
  chorus_result_t res = chorus_success;
  if (!t->host_nic || !t->nic_proxy || !fill || !load || !nic_index) {
    res = chorus_out_of_memory;
    goto done;
  }
  for (int d = 0; d < nd; d++) {
    nic_index[d] = -1;
    int h = t->devs[d].host;
    if (t->devs[d].kind != TOPO_NIC || h < 0) continue;
    nic_index[d] = t->host_nic_first[h] + fill[h]++;
    t->host_nic[nic_index[d]] = d;
    t->nic_proxy[nic_index[d]] = -1;
  }
  for (int r = 0; r < t->nranks; r++) {
    int src = t->rank_dev[r], h = t->devs[src].host;
    t->rank_nic[r] = -1;
    if (topo_host_nics(t, h) == 0) continue;
    /* Hop counts from the rank's device (stamp r + 1 marks this search). */
    int head = 0, tail = 0, best = -1, best_hops = 0;
    queue[tail++] = src, hops[src] = 0, stamp[src] = r + 1;
    while (head < tail) {
      int u = queue[head++];
      if (best >= 0 && hops[u] > best_hops) break;
      int k = nic_index[u];
      if (k >= 0 && t->devs[u].host == h) {
        if (best < 0 || load[k] < load[best] || (load[k] == load[best] && k < best)) best = k, best_hops = hops[u];
        continue; /* a NIC is where the host ends */
      }
      if (u != src && !t->devs[u].forward) continue;
      for (int i = t->adj_first[u]; i < t->adj_fwd_end[u]; i++) {
        int v = t->adj_peer[i];
        if (stamp[v] == r + 1 || t->devs[v].host != h) continue;
        stamp[v] = r + 1, hops[v] = hops[u] + 1;
        queue[tail++] = v;
      }
    }
    if (best < 0) continue; /* no NIC of its host within reach */
    load[best]++;
    if (t->nic_proxy[best] < 0) t->nic_proxy[best] = src;
    t->rank_nic[r] = best - t->host_nic_first[h];
  }
done:
  free(fill), free(load), free(nic_index), free(hops), free(queue), free(stamp);
  return res;
}

/* Every hub is reached from a rank of its own host (a switch inside a host
 * is reached only through that host's devices), or from rank 0 when it
 * belongs to no host. Nonzero, with the message, when one is not. */
static int check_hubs_reached(topo_t *t, topo_err_t *err) {
  if (!t->nhubs) return 0;
  int *first = malloc(sizeof *first * ((size_t)t->nhosts + 1)), bad = -1, from = 0;
  topo_router_t *r = NULL;
  if (!first || topo_router_create(&r, t, t->hub_dev[0]) != chorus_success) {
    free(first);
    snprintf(err->msg, sizeof err->msg, "%s: out of memory checking its hubs", t->path);
    return 1;
  }
  for (int h = 0; h < t->nhosts; h++) first[h] = -1;
  for (int k = t->nranks - 1; k >= 0; k--)
    if (t->devs[t->rank_dev[k]].host >= 0) first[t->devs[t->rank_dev[k]].host] = k;
  for (int i = 0; i < t->nhubs && bad < 0; i++) {
    int h = t->devs[t->hub_dev[i]].host;
    from = h >= 0 && first[h] >= 0 ? first[h] : 0;
    if ((i && topo_router_retarget(r, t->hub_dev[i]) != chorus_success) || topo_router_hops(r, t->rank_dev[from]) < 0)
      bad = i;
  }
  if (bad >= 0)
    snprintf(err->msg, sizeof err->msg, "%s: hub %d (%s) cannot be reached from rank %d (on %s)", t->hub_where[bad],
             bad, t->devs[t->hub_dev[bad]].name, from, t->devs[t->rank_dev[from]].name);
  topo_router_destroy(r);
  free(first);
  return bad >= 0;
}

/* The hubs a script declared (hub "dev"): each a switch of the topology. */
static chorus_result_t resolve_hubs(builder_t *b, topo_err_t *err) {
  topo_t *t = b->t;
  t->hub_dev = malloc(sizeof *t->hub_dev * (b->nhubs + 1));
  t->hub_where = calloc(b->nhubs + 1, sizeof *t->hub_where);
  if (!t->hub_dev || !t->hub_where) return chorus_out_of_memory;
  for (int i = 0; i < b->nhubs; i++) {
    int d = name_find(b, b->hubs[i].dev);
    t->hub_where[i] = b->hubs[i].where;
    b->hubs[i].where = NULL;
    t->nhubs++;
    if (d < 0) {
      snprintf(err->msg, sizeof err->msg, "%s: hub %d is '%s', which is not a declared device", t->hub_where[i], i,
               b->hubs[i].dev);
      return chorus_script_error;
    }
    if (t->devs[d].kind != TOPO_NVSWITCH && t->devs[d].kind != TOPO_SWITCH) {
      snprintf(err->msg, sizeof err->msg, "%s: hub %d is %s, a %s; a hub is a switch that reduces (kind nvswitch or switch)",
               t->hub_where[i], i, t->devs[d].name, topo_kind_name(t->devs[d].kind));
      return chorus_script_error;
    }
    t->hub_dev[i] = d;
  }
  return chorus_success;
}

static chorus_result_t resolve(builder_t *b, topo_err_t *err) {
  topo_t *t = b->t;
  t->links = calloc(b->nlinks ? b->nlinks : 1, sizeof *t->links);
  if (!t->links) return chorus_out_of_memory;
  for (int i = 0; i < b->nlinks; i++) {
    pending_link_t *p = &b->links[i];
    int a = p->a ? name_find(b, p->a) : p->l.a, d = p->b ? name_find(b, p->b) : p->l.b;
    if (a < 0 || d < 0) {
      const char *an = p->a ? p->a : t->devs[p->l.a].name, *bn = p->b ? p->b : t->devs[p->l.b].name;
      snprintf(err->msg, sizeof err->msg, "%s: link %s - %s: no device named '%s' is declared", p->l.where, an, bn,
               a < 0 ? an : bn);
      return chorus_script_error;
    }
    t->links[i] = p->l;
    t->links[i].a = a;
    t->links[i].b = d;
    p->l.where = NULL; /* now owned by t */
    t->nlinks++;
  }
  for (int d = 0; d < t->ndevs; d++)
    if (t->devs[d].mem_bw > 0) t->devs[d].mem_res = topo_nres(t) + t->nmems++;
  if (b->nranks == 0) {
    snprintf(err->msg, sizeof err->msg, "%s: the topology places no ranks (call rank \"device\" for each rank)", t->path);
    return chorus_script_error;
  }
  t->rank_dev = malloc(sizeof *t->rank_dev * b->nranks);
  t->rank_where = calloc(b->nranks, sizeof *t->rank_where);
  if (!t->rank_dev || !t->rank_where) return chorus_out_of_memory;
  for (int r = 0; r < b->nranks; r++) {
    int d = name_find(b, b->ranks[r].dev);
    t->rank_where[r] = b->ranks[r].where;
    b->ranks[r].where = NULL;
    t->nranks++;
    if (d < 0) {
      snprintf(err->msg, sizeof err->msg, "%s: rank %d is placed on '%s', which is not a declared device",
               t->rank_where[r], r, b->ranks[r].dev);
      return chorus_script_error;
    }
    t->rank_dev[r] = d;
  }
  TRY(resolve_hubs(b, err));
  /* Adjacency, counting sort by device. */
  t->adj_first = calloc(t->ndevs + 1, sizeof *t->adj_first);
  t->adj_link = malloc(sizeof(int) * (2 * t->nlinks + 1));
  t->adj_peer = malloc(sizeof(int) * (2 * t->nlinks + 1));
  if (!t->adj_first || !t->adj_link || !t->adj_peer) return chorus_out_of_memory;
  for (int l = 0; l < t->nlinks; l++) t->adj_first[t->links[l].a + 1]++, t->adj_first[t->links[l].b + 1]++;
  for (int d = 0; d < t->ndevs; d++) t->adj_first[d + 1] += t->adj_first[d];
  int *fill = calloc(t->ndevs ? t->ndevs : 1, sizeof *fill);
  if (!fill) return chorus_out_of_memory;
  for (int l = 0; l < t->nlinks; l++) {
    int a = t->links[l].a, d = t->links[l].b;
    int ia = t->adj_first[a] + fill[a]++, id = t->adj_first[d] + fill[d]++;
    t->adj_link[ia] = l, t->adj_peer[ia] = d;
    t->adj_link[id] = l, t->adj_peer[id] = a;
  }
  free(fill);
  /* Forwarding neighbours first (stable), so that routing walks only them. */
  t->adj_fwd_end = malloc(sizeof(int) * (t->ndevs + 1));
  int *tl = malloc(sizeof(int) * (2 * t->nlinks + 1)), *tp = malloc(sizeof(int) * (2 * t->nlinks + 1));
  if (!t->adj_fwd_end || !tl || !tp) {
    free(tl), free(tp);
    return chorus_out_of_memory;
  }
  for (int d = 0; d < t->ndevs; d++) {
    int k = t->adj_first[d];
    for (int pass = 0; pass < 2; pass++) {
      for (int i = t->adj_first[d]; i < t->adj_first[d + 1]; i++)
        if (t->devs[t->adj_peer[i]].forward == !pass) tl[k] = t->adj_link[i], tp[k] = t->adj_peer[i], k++;
      if (pass == 0) t->adj_fwd_end[d] = k;
    }
  }
  memcpy(t->adj_link, tl, sizeof(int) * 2 * t->nlinks);
  memcpy(t->adj_peer, tp, sizeof(int) * 2 * t->nlinks);
  free(tl), free(tp);
  /* Every rank must reach rank 0 (a router from rank 0's device sees them). */
  topo_router_t *r0;
  TRY(topo_router_create(&r0, t, t->rank_dev[0]));
  for (int r = 1; r < t->nranks; r++) {
    if (topo_router_hops(r0, t->rank_dev[r]) < 0) {
      snprintf(err->msg, sizeof err->msg,
               "%s: rank %d (on %s) cannot reach rank 0 (on %s): no path of links through switches, NICs or "
               "CPUs joins them",
               t->rank_where[r], r, t->devs[t->rank_dev[r]].name, t->devs[t->rank_dev[0]].name);
      topo_router_destroy(r0);
      return chorus_script_error;
    }
  }
  topo_router_destroy(r0);
  return check_hubs_reached(t, err) ? chorus_script_error : resolve_nics(t);
}

static void builder_fini(builder_t *b) {
  for (int i = 0; i < b->nlinks; i++) free(b->links[i].a), free(b->links[i].b), free(b->links[i].l.where);
  free(b->links);
  for (int i = 0; i < b->nranks; i++) free(b->ranks[i].dev), free(b->ranks[i].where);
  free(b->ranks);
  for (int i = 0; i < b->nhubs; i++) free(b->hubs[i].dev), free(b->hubs[i].where);
  free(b->hubs);
  free(b->slots);
  free(b->hslots);
  for (int i = 0; i < b->nsets; i++) free(b->sets[i].key), free(b->sets[i].val);
}

chorus_result_t topo_load(topo_t **out, const char *file, const char *sets, topo_err_t *err) {
  *out = NULL;
  err->msg[0] = 0;
  topo_t *t = calloc(1, sizeof *t);
  if (!t) return chorus_out_of_memory;
  builder_t b = {.t = t};
  sbx_t *s = NULL;
  chorus_result_t res = chorus_success;
  if (topo_resolve(file, t->path, sizeof t->path, err->msg, sizeof err->msg) != 0) {
    res = chorus_invalid_argument;
    goto fail;
  }
  const char *base = strrchr(t->path, '/');
  snprintf(t->name, sizeof t->name, "%.127s", base ? base + 1 : t->path);
  if (strlen(t->name) > 4 && !strcmp(t->name + strlen(t->name) - 4, ".lua")) t->name[strlen(t->name) - 4] = 0;
  /* Protocol defaults: the payload share of each wire format (Simple: all
   * of it; LL: 4 data bytes in 8; LL128: 120 in 128) and no latency of their
   * own. Shipped topologies declare per-step latencies for their hardware
   * with protocol{} (topologies/lib/cluster.lua). */
  t->proto[TOPO_PROTO_SIMPLE] = (topo_proto_t){.step_lat = 0, .efficiency = 1.0};
  t->proto[TOPO_PROTO_LL] = (topo_proto_t){.step_lat = 0, .efficiency = 0.5};
  t->proto[TOPO_PROTO_LL128] = (topo_proto_t){.step_lat = 0, .efficiency = 120.0 / 128.0};
  if (parse_sets(&b, sets, err) != 0) {
    res = chorus_invalid_argument;
    goto fail;
  }
  char libdir[1100];
  snprintf(libdir, sizeof libdir, "%s/lib", topo_dir());
  sbx_opts_t o = {.nlibdirs = 1};
  o.libdirs[0] = libdir;
  if ((res = sbx_create(&s, &o)) != chorus_success) goto fail;
  define(s, &b, "device", l_device);
  define(s, &b, "link", l_link);
  define(s, &b, "rank", l_rank);
  define(s, &b, "hub", l_hub);
  define(s, &b, "protocol", l_protocol);
  define(s, &b, "routing", l_routing);
  define(s, &b, "param", l_param);
  res = sbx_run_file(s, t->path);
  if (res != chorus_success) {
    first_line(sbx_error(s), err->msg, sizeof err->msg);
    goto fail;
  }
  for (int i = 0; i < b.nsets; i++) {
    if (!b.sets[i].used) {
      snprintf(err->msg, sizeof err->msg, "--set %.100s: %.700s takes no parameter '%.100s' (it takes: %.900s)", b.sets[i].key,
               t->path, b.sets[i].key, t->params[0] ? t->params : "none");
      res = chorus_invalid_argument;
      goto fail;
    }
  }
  if ((res = resolve(&b, err)) != chorus_success) goto fail;
  sbx_destroy(s);
  builder_fini(&b);
  *out = t;
  return chorus_success;
fail:
  if (res == chorus_out_of_memory && !err->msg[0]) snprintf(err->msg, sizeof err->msg, "%s: out of memory", t->path);
  sbx_destroy(s);
  builder_fini(&b);
  topo_destroy(t);
  return res;
}

void topo_destroy(topo_t *t) {
  if (!t) return;
  for (int i = 0; i < t->ndevs; i++) free(t->devs[i].name), free(t->devs[i].where);
  for (int i = 0; i < t->nlinks; i++) free(t->links[i].where);
  for (int i = 0; i < t->nhosts; i++) free(t->hosts[i]);
  for (int i = 0; t->rank_where && i < t->nranks; i++) free(t->rank_where[i]);
  for (int i = 0; t->hub_where && i < t->nhubs; i++) free(t->hub_where[i]);
  free(t->hub_dev);
  free(t->hub_where);
  free(t->devs);
  free(t->links);
  free(t->hosts);
  free(t->rank_dev);
  free(t->rank_where);
  free(t->adj_first);
  free(t->adj_link);
  free(t->adj_peer);
  free(t->adj_fwd_end);
  free(t->host_nic_first);
  free(t->host_nic);
  free(t->rank_nic);
  free(t->host_ranks);
  free(t->nic_proxy);
  free(t);
}

chorus_result_t topo_shape(const topo_t *t, int nranks, plan_shape_t *shape, int *contiguous) {
  if (nranks < 1 || nranks > t->nranks) return chorus_invalid_argument;
  int *sizes = malloc(sizeof *sizes * nranks);
  if (!sizes) return chorus_out_of_memory;
  int n = 0, ok = 1;
  char *seen = calloc(t->nhosts + 1, 1);
  if (!seen) {
    free(sizes);
    return chorus_out_of_memory;
  }
  for (int r = 0; r < nranks; r++) {
    int h = t->devs[t->rank_dev[r]].host;
    int prev = r ? t->devs[t->rank_dev[r - 1]].host : -2;
    if (r == 0 || h != prev || h < 0) {
      if (h >= 0 && seen[h]) ok = 0;
      if (h >= 0) seen[h] = 1;
      sizes[n++] = 1;
    } else {
      sizes[n - 1]++;
    }
  }
  free(seen);
  chorus_result_t res = plan_shape_init(shape, nranks, n, sizes);
  free(sizes);
  if (contiguous) *contiguous = ok;
  if (res != chorus_success) return res;
  /* The NICs: a node that is a host has that host's, each rank the one
   * nearest it; a node whose host has none (or no host) keeps one, all on 0. */
  for (int i = 0; i < shape->nnodes; i++) {
    int h = t->devs[t->rank_dev[shape->node_first[i]]].host, k = topo_host_nics(t, h);
    shape->node_nics[i] = k > 0 ? k : 1;
  }
  for (int r = 0; r < nranks; r++) shape->rank_nic[r] = t->rank_nic[r] > 0 ? t->rank_nic[r] : 0;
  return chorus_success;
}

int topo_default_channels(const topo_t *t, int nranks) {
  if (nranks < 1 || nranks > t->nranks) return 0;
  int h0 = t->devs[t->rank_dev[0]].host, hosts = 1, nics = INT_MAX;
  for (int r = 0; r < nranks; r++) {
    const topo_dev_t *d = &t->devs[t->rank_dev[r]];
    if (d->kind != TOPO_GPU) return 0;
    if (d->host != h0) hosts = 2;
    int k = topo_host_nics(t, d->host);
    if (k < nics) nics = k;
  }
  if (hosts > 1) return nics > 0 ? (2 * nics < PLAN_MAX_CHANNELS ? 2 * nics : PLAN_MAX_CHANNELS) : 2;
  for (int i = 0; i < t->ndevs; i++)
    if (t->devs[i].kind == TOPO_NVSWITCH && t->devs[i].host == h0) return 24;
  return 4;
}
