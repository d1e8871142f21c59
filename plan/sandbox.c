/* sandbox.c -- the Lua host: a state with only safe libraries, a counting
 * allocator that caps memory, an instruction hook that caps time, text
 * chunks only, a fresh _ENV per script, and `require` limited to the
 * sandbox's library folders. Everything that runs Lua goes through here. */
#include "sandbox.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "pattern.h"

#define SBX_DEFAULT_MEM ((size_t)256 << 20)
#define SBX_DEFAULT_INSTR 100000000LL
#define SBX_HOOK_EVERY 1000
#define SBX_MAX_SCRIPT_BYTES ((size_t)4 << 20)

struct sbx {
  lua_State *L;
  size_t mem_used, mem_peak, mem_limit;
  long long instr_limit, instr_count;
  int mem_refused;     /* the allocator refused a request in this call */
  char mem_where[256]; /* script position of the refused request */
  char libdirs[SBX_MAX_LIBDIRS][1024];
  int nlibdirs;
  int template_ref; /* registry ref: the globals every environment copies */
  int loaded_ref;   /* registry ref: modules loaded by require */
  char err[4096];
};

static const char *const denied_libs[] = {"io", "os", "debug", "package", NULL};
static const char *const denied_funcs[] = {"dofile", "loadfile", "collectgarbage", NULL};

chorus_result_t sbx_fail(sbx_t *s, chorus_result_t r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  return r;
}

const char *sbx_error(sbx_t *s) { return s->err; }
lua_State *sbx_state(sbx_t *s) { return s->L; }
size_t sbx_mem_used(const sbx_t *s) { return s->mem_used; }
size_t sbx_mem_peak(const sbx_t *s) { return s->mem_peak; }

/* Where a Lua function is running now, as "file:line", for messages raised
 * from C where luaL_where cannot see the script (hooks, the allocator). */
static void script_position(lua_State *L, char *buf, size_t len) {
  lua_Debug ar;
  buf[0] = 0;
  for (int level = 0; level < 8 && lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar)) break;
    if (ar.currentline > 0) {
      snprintf(buf, len, "%s:%d", ar.short_src, ar.currentline);
      return;
    }
  }
}

static void *sbx_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sbx_t *s = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    free(ptr);
    s->mem_used -= old;
    return NULL;
  }
  if (nsize > old && s->mem_used - old + nsize > s->mem_limit) {
    /* Refuse: Lua raises a memory error, which no message handler sees, so
     * remember where the script was to name it in the message. */
    if (!s->mem_refused && s->L) script_position(s->L, s->mem_where, sizeof s->mem_where);
    s->mem_refused = 1;
    return NULL;
  }
  void *q = realloc(ptr, nsize);
  if (!q) return NULL;
  s->mem_used = s->mem_used - old + nsize;
  if (s->mem_used > s->mem_peak) s->mem_peak = s->mem_used;
  return q;
}

static void ran_too_long(lua_State *L, const sbx_t *s) {
  char where[256];
  script_position(L, where, sizeof where);
  luaL_error(L, "%s%sscript ran too long: more than %I instructions in one call (an endless loop?)", where,
             where[0] ? ": " : "", (lua_Integer)s->instr_limit);
}

static void sbx_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  sbx_t *s = *(sbx_t **)lua_getextraspace(L);
  s->instr_count += SBX_HOOK_EVERY;
  if (s->instr_count > s->instr_limit) ran_too_long(L, s);
}

/* Pattern matching runs in C, where the hook cannot see it: its steps count
 * as instructions, so that many costly matches in a loop still end. */
static void sbx_charge_pattern(lua_State *L, void *ud, long long steps) {
  sbx_t *s = ud;
  s->instr_count += steps;
  if (s->instr_count > s->instr_limit) ran_too_long(L, s);
}

/* The traceback handler of every protected call. */
static int sbx_msgh(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static int denied_index(lua_State *L) {
  const char *lib = lua_tostring(L, lua_upvalueindex(1));
  const char *key = lua_tostring(L, 2);
  return luaL_error(L, "%s.%s is not available: Chorus scripts have no file, process or debug access", lib,
                    key ? key : "?");
}

static int denied_call(lua_State *L) {
  return luaL_error(L, "%s is not available: Chorus scripts have no file access and cannot load code",
                    lua_tostring(L, lua_upvalueindex(1)));
}

/* setmetatable(t, mt) refusing finalizers: Lua runs __gc with hooks off
 * (lgc.c's GCTM clears allowhook), so an endless loop in one would escape
 * the instruction cap and hang the process at the next collection or at
 * sbx_destroy. Lua only marks a table for finalization when its metatable
 * has __gc at this call, so checking here suffices. */
static int safe_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE && (lua_pushliteral(L, "__gc"), lua_rawget(L, 2)) != LUA_TNIL)
    return luaL_error(L, "setmetatable: __gc finalizers are not available in Chorus scripts (they would run "
                         "outside the instruction limit)");
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1)); /* the base library's setmetatable */
  lua_insert(L, 1);
  lua_call(L, 2, 1);
  return 1;
}

/* pcall and xpcall that cannot swallow the end of the instruction budget:
 * `while true do pcall(function() while true do end end) end` caught each
 * "ran too long" and started over, forever. Once the budget is spent, an
 * error passes through them to the sandbox's own protected call. */
static int budget_spent(lua_State *L) {
  const sbx_t *s = *(sbx_t **)lua_getextraspace(L);
  return s->instr_count > s->instr_limit;
}

static int safe_pcall(lua_State *L) {
  luaL_checkany(L, 1);
  int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (status != LUA_OK && budget_spent(L)) return lua_error(L);
  lua_pushboolean(L, status == LUA_OK);
  lua_insert(L, 1);
  return lua_gettop(L);
}

static int safe_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 1); /* f, msgh, args -> msgh, f, args */
  lua_pushvalue(L, 2);
  lua_replace(L, 1);
  lua_replace(L, 2);
  int status = lua_pcall(L, n - 2, LUA_MULTRET, 1);
  if (status != LUA_OK && budget_spent(L)) return lua_error(L);
  lua_pushboolean(L, status == LUA_OK);
  lua_replace(L, 1);
  return lua_gettop(L);
}

/* load(chunk [, name [, mode [, env]]]) that only ever accepts text. */
static int safe_load(lua_State *L) {
  size_t len;
  const char *code = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "=(load)");
  if (luaL_loadbufferx(L, code, len, name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (!lua_isnoneornil(L, 4)) {
    lua_pushvalue(L, 4);
    lua_setupvalue(L, -2, 1);
  }
  return 1;
}

static int valid_module_name(const char *name) {
  if (!*name) return 0;
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_') return 0;
  return 1;
}

static chorus_result_t load_text(sbx_t *s, const char *code, size_t len, const char *name);

static int read_file(const char *path, char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      if (cap >= SBX_MAX_SCRIPT_BYTES) {
        free(buf);
        buf = NULL;
        errno = EFBIG;
        break;
      }
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  if (!buf) return -1;
  *out = buf;
  *len = n;
  return 0;
}

/* The name errors show for a script: the path as given, or its last two
 * components when it is too long for Lua's short source names. */
static void display_name(const char *path, char *buf, size_t len) {
  const char *shown = path;
  if (strlen(path) > 50) {
    const char *last = strrchr(path, '/');
    if (last) {
      const char *p = last;
      while (p > path && p[-1] != '/') p--;
      if (p > path) p = p - 1;
      while (p > path && p[-1] != '/') p--;
      shown = p;
    }
  }
  snprintf(buf, len, "@%s", shown);
}

static int sbx_require(lua_State *L) {
  sbx_t *s = *(sbx_t **)lua_getextraspace(L);
  const char *name = luaL_checkstring(L, 1);
  if (!valid_module_name(name))
    return luaL_error(L, "require: '%s' is not a module name (letters, digits and _ only)", name);
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->loaded_ref);
  lua_getfield(L, -1, name);
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  for (int i = 0; i < s->nlibdirs; i++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.lua", s->libdirs[i], name);
    char *code;
    size_t len;
    if (read_file(path, &code, &len) != 0) continue;
    char chunkname[1100];
    display_name(path, chunkname, sizeof chunkname);
    int rc = luaL_loadbufferx(L, code, len, chunkname, "t");
    free(code);
    if (rc != LUA_OK) return lua_error(L);
    sbx_push_env(s);
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
    return 1;
  }
  return luaL_error(L, "require: no module '%s' in %s (modules load only from the algorithm library)", name,
                    s->nlibdirs ? s->libdirs[0] : "(no library folder)");
}

static int script_print(lua_State *L) {
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    if (i > 1) fputc('\t', stderr);
    fputs(luaL_tolstring(L, i, NULL), stderr);
    lua_pop(L, 1);
  }
  fputc('\n', stderr);
  return 0;
}

/* Build the template of globals: safe libraries, denials with clear
 * messages, the restricted load/require/print. */
static void build_template(sbx_t *s) {
  lua_State *L = s->L;
  luaL_requiref(L, "_G", luaopen_base, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
  lua_pop(L, 5);
  /* Lua's own matcher backtracks in C without the hook (a pattern like
   * ("a*"):rep(30).."b" runs for years); ours counts its steps. The string
   * table is also the string metatable's __index, so s:find(...) gets it. */
  pat_limits_t lim = {.charge = sbx_charge_pattern, .ud = s};
  lua_getglobal(L, LUA_STRLIBNAME);
  pat_install(L, -1, &lim);
  lua_pop(L, 1);
  lua_newtable(L); /* the template */
  lua_pushglobaltable(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
  lua_pushnil(L);
  lua_setfield(L, -2, "_G"); /* each environment gets its own _G */
  for (int i = 0; denied_funcs[i]; i++) {
    lua_pushstring(L, denied_funcs[i]);
    lua_pushcclosure(L, denied_call, 1);
    lua_setfield(L, -2, denied_funcs[i]);
  }
  for (int i = 0; denied_libs[i]; i++) {
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, denied_libs[i]);
    lua_pushcclosure(L, denied_index, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, denied_libs[i]);
  }
  lua_pushcfunction(L, safe_load);
  lua_setfield(L, -2, "load");
  lua_getfield(L, -1, "setmetatable");
  lua_pushcclosure(L, safe_setmetatable, 1);
  lua_setfield(L, -2, "setmetatable");
  lua_pushcfunction(L, safe_pcall);
  lua_setfield(L, -2, "pcall");
  lua_pushcfunction(L, safe_xpcall);
  lua_setfield(L, -2, "xpcall");
  lua_pushcfunction(L, sbx_require);
  lua_setfield(L, -2, "require");
  lua_pushcfunction(L, script_print);
  lua_setfield(L, -2, "print");
  lua_getfield(L, -1, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump"); /* string.dump would hand out bytecode */
  lua_pop(L, 1);
  s->template_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  s->loaded_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

void sbx_push_env(sbx_t *s) {
  lua_State *L = s->L;
  lua_newtable(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->template_ref);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    /* env, template, key, value: library tables are copied one level so
     * that one script's changes to string or math stay its own. */
    if (lua_type(L, -1) == LUA_TTABLE && !lua_getmetatable(L, -1)) {
      lua_newtable(L);
      lua_pushnil(L);
      while (lua_next(L, -3)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
      }
      lua_remove(L, -2);
    } else if (lua_type(L, -1) == LUA_TTABLE) {
      lua_pop(L, 1); /* the metatable lua_getmetatable pushed */
    }
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "_G");
}

void sbx_define(sbx_t *s, const char *name) {
  lua_State *L = s->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->template_ref);
  lua_insert(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

chorus_result_t sbx_create(sbx_t **out, const sbx_opts_t *opts) {
  *out = NULL;
  sbx_t *s = calloc(1, sizeof *s);
  if (!s) return chorus_out_of_memory;
  s->mem_limit = opts && opts->mem_limit ? opts->mem_limit : SBX_DEFAULT_MEM;
  s->instr_limit = opts && opts->instr_limit ? opts->instr_limit : SBX_DEFAULT_INSTR;
  for (int i = 0; opts && i < opts->nlibdirs && i < SBX_MAX_LIBDIRS; i++)
    snprintf(s->libdirs[s->nlibdirs++], sizeof s->libdirs[0], "%s", opts->libdirs[i]);
  s->L = lua_newstate(sbx_alloc, s);
  if (!s->L) {
    free(s);
    return chorus_out_of_memory;
  }
  *(sbx_t **)lua_getextraspace(s->L) = s;
  lua_sethook(s->L, sbx_hook, LUA_MASKCOUNT, SBX_HOOK_EVERY);
  build_template(s);
  *out = s;
  return chorus_success;
}

void sbx_destroy(sbx_t *s) {
  if (!s) return;
  if (s->L) lua_close(s->L);
  free(s);
}

chorus_result_t sbx_call(sbx_t *s, int nargs, int nresults) {
  lua_State *L = s->L;
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, sbx_msgh);
  lua_insert(L, base);
  s->instr_count = 0;
  s->mem_refused = 0;
  int rc = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  if (rc == LUA_OK) return chorus_success;
  if (rc == LUA_ERRMEM || s->mem_refused) {
    lua_pop(L, 1);
    return sbx_fail(s, chorus_script_error, "%s%sscript exceeded its memory limit (%zu MiB)", s->mem_where,
                    s->mem_where[0] ? ": " : "", s->mem_limit >> 20);
  }
  sbx_fail(s, chorus_script_error, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error)");
  lua_pop(L, 1);
  return chorus_script_error;
}

static chorus_result_t load_text(sbx_t *s, const char *code, size_t len, const char *name) {
  lua_State *L = s->L;
  s->mem_refused = 0;
  int rc = luaL_loadbufferx(L, code, len, name, "t");
  if (rc != LUA_OK) {
    sbx_fail(s, chorus_script_error, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "cannot load");
    lua_pop(L, 1);
    return chorus_script_error;
  }
  sbx_push_env(s);
  lua_setupvalue(L, -2, 1);
  return sbx_call(s, 0, 1);
}

chorus_result_t sbx_run_string(sbx_t *s, const char *code, size_t len, const char *name) {
  char chunkname[1100];
  snprintf(chunkname, sizeof chunkname, "=%s", name);
  return load_text(s, code, len, chunkname);
}

chorus_result_t sbx_run_file(sbx_t *s, const char *path) {
  char *code;
  size_t len;
  if (read_file(path, &code, &len) != 0)
    return sbx_fail(s, chorus_invalid_argument, "%s: cannot read: %s", path, strerror(errno));
  char chunkname[1100];
  display_name(path, chunkname, sizeof chunkname);
  chorus_result_t r = load_text(s, code, len, chunkname);
  free(code);
  return r;
}

typedef struct {
  const char *name;
  double scale;
} unit_t;

static const unit_t bw_units[] = {
    {"bps", 1.0 / 8},  {"b/s", 1.0 / 8},     {"Kb/s", 1e3 / 8},     {"Mb/s", 1e6 / 8},
    {"Gb/s", 1e9 / 8}, {"Tb/s", 1e12 / 8},   {"Gbps", 1e9 / 8},     {"B/s", 1},
    {"KB/s", 1e3},     {"MB/s", 1e6},        {"GB/s", 1e9},         {"TB/s", 1e12},
    {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {NULL, 0}};
static const unit_t time_units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {NULL, 0}};
static const unit_t size_units[] = {{"B", 1},           {"KB", 1e3},          {"MB", 1e6},
                                    {"GB", 1e9},        {"KiB", 1024.0},      {"MiB", 1048576.0},
                                    {"GiB", 1073741824.0}, {"", 1},           {NULL, 0}};

int sbx_parse_unit(const char *text, int kind, double *out, char *err, size_t errlen) {
  const unit_t *units = kind == 'b' ? bw_units : kind == 't' ? time_units : size_units;
  const char *what = kind == 'b' ? "a bandwidth" : kind == 't' ? "a time" : "a size";
  const char *examples = kind == 'b' ? "400Gb/s, 25GB/s" : kind == 't' ? "1.5us, 2ms" : "4MiB, 512KB";
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || errno) {
    snprintf(err, errlen, "'%s' is not %s (expected a number and a unit, e.g. %s)", text, what, examples);
    return -1;
  }
  while (*end == ' ') end++;
  for (const unit_t *u = units; u->name; u++) {
    if (!strcmp(end, u->name)) {
      if (v < 0) {
        snprintf(err, errlen, "'%s': %s cannot be negative", text, what);
        return -1;
      }
      *out = v * u->scale;
      return 0;
    }
  }
  snprintf(err, errlen, "'%s': unknown unit '%s' for %s (e.g. %s)", text, end, what, examples);
  return -1;
}
