/* test_pattern.c -- the bounded pattern matcher: the same answers as Lua's
 * own string library on generated and hand-picked cases, and an error, not
 * a hang, for patterns that backtrack without end. */
#include <stdint.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "pattern.h"
#include "sandbox.h"
#include "test.h"
#include "test_sbx.h"

/* The harness, run in a plain state: RUN(lib, name, ...) calls lib[name]
 * under pcall and describes what came back (types and values; all of a
 * gmatch's iterations), CMP runs it for Lua's string library and ours. It
 * uses no pattern function itself. */
static const char harness[] =
    "local function repr(...)\n"
    "  local t = {}\n"
    "  for i = 1, select('#', ...) do\n"
    "    local v = select(i, ...)\n"
    "    local ty = math.type(v) or type(v)\n"
    "    t[i] = ty .. ':' .. (ty == 'string' and string.format('%q', v) or tostring(v))\n"
    "  end\n"
    "  return table.concat(t, ' ')\n"
    "end\n"
    "local function run(lib, name, ...)\n"
    "  local f = lib[name]\n"
    "  if name == 'gmatch' then\n"
    "    local ok, it = pcall(f, ...)\n"
    "    if not ok then return 'error: ' .. tostring(it) end\n"
    "    local out = {}\n"
    "    for _ = 1, 60 do\n"
    "      local r = table.pack(pcall(it))\n"
    "      if not r[1] then out[#out + 1] = 'error: ' .. tostring(r[2]) break end\n"
    "      if r[2] == nil then break end\n"
    "      out[#out + 1] = repr(table.unpack(r, 2, r.n))\n"
    "    end\n"
    "    return table.concat(out, ' | ')\n"
    "  end\n"
    "  local r = table.pack(pcall(f, ...))\n"
    "  if not r[1] then return 'error: ' .. tostring(r[2]) end\n"
    "  return repr(table.unpack(r, 2, r.n))\n"
    "end\n"
    "function CMP(name, ...) return run(string, name, ...), run(P, name, ...) end\n"
    "REPF = function(...)\n"
    "  local t = table.pack(...)\n"
    "  if t[1] == 'b' then return false end\n"
    "  if t[1] == 'c' then return nil end\n"
    "  if t[1] == 'x' then return {} end\n"
    "  for i = 1, t.n do t[i] = (math.type(t[i]) or type(t[i])) .. tostring(t[i]) end\n"
    "  return '<' .. table.concat(t, ',') .. '>'\n"
    "end\n"
    "REPT = { a = 'A', b = false, c = 7, ab = 'AB', [''] = 'E', [1] = 'one', [3] = 3.5, x = {} }\n";

static lua_State *diff_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_newtable(L);
  pat_install(L, -1, NULL);
  lua_setglobal(L, "P");
  if (luaL_dostring(L, harness) != LUA_OK) {
    fprintf(stderr, "  harness: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return NULL;
  }
  return L;
}

typedef struct {
  int cases, errors, messages_differ, mismatches;
} diff_stats_t;

/* "error: [file:line: ]message" less the position, for comparing messages. */
static const char *error_text(const char *r) {
  r += strlen("error: ");
  const char *c = strstr(r, "]:");
  if (*r == '[' && c && (c = strstr(c + 2, ": "))) r = c + 2;
  return r;
}

/* Compare the two results CMP left on the stack (pops them). */
static void diff_compare(lua_State *L, diff_stats_t *st, const char *what) {
  const char *lua = lua_tostring(L, -2), *ours = lua_tostring(L, -1);
  int lua_err = !strncmp(lua, "error", 5), our_err = !strncmp(ours, "error", 5);
  st->cases++;
  if (lua_err && our_err) {
    st->errors++;
    if (strcmp(error_text(lua), error_text(ours)) && st->messages_differ++ < 3)
      fprintf(stderr, "  other wording: %s\n    lua:  %s\n    ours: %s\n", what, error_text(lua), error_text(ours));
  } else if (strcmp(lua, ours)) {
    if (st->mismatches++ < 10) fprintf(stderr, "  mismatch: %s\n    lua:  %s\n    ours: %s\n", what, lua, ours);
    test_failed_++;
  }
  lua_pop(L, 2);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state % n);
}
static const char *pick(const char *const *list, int n) {
  return list[rnd((unsigned)n)];
}
#define PICK(list) pick(list, (int)(sizeof list / sizeof list[0]))

typedef struct {
  char buf[128];
  size_t len;
} text_t;

static void put(text_t *t, const char *s, size_t n) {
  if (t->len + n >= sizeof t->buf) return;
  memcpy(t->buf + t->len, s, n);
  t->len += n;
}
static void puts_(text_t *t, const char *s) {
  put(t, s, strlen(s));
}

/* Single-character classes, the items a quantifier may follow. */
static const char *const classes[] = {"a",      "a",      "b",   "b",    "c",       "x",     " ",     "1",     ".",
                                      ".",      "%a",     "%d",  "%s",   "%w",      "%p",    "%l",    "%u",    "%x",
                                      "%c",     "%g",     "%A",  "%D",   "%S",      "%W",    "%P",    "%U",    "%.",
                                      "%%",     "%(",     "%]",  "%-",   "%z",      "%$",    "[abc]", "[^ab]", "[a-c]",
                                      "[%a_]",  "[%d%-]", "[]]", "[^]]", "[a-]",    "[-a]",  "[%]]",  "[^%s]", "[b-a]",
                                      "[a%-c]", "[%w%p]", "[(]", "[.]",  "[^%a%d]", "[]a-]", "$",     "^"};
static const char *const quants[] = {"", "", "", "*", "+", "-", "?"};
/* Items that take no quantifier, malformed ones among them. */
static const char *const specials[] = {
    "%b()", "%b()", "%bab", "%b\"\"", "%f[%a]", "%f[%A]", "%f[^a]", "%f[%w_]", "%f[b]", "%1", "%1", "%2",  "%0",
    "()",   "%b(",  "%f",   "%fa",    "[a",     "[%",     "[^",     "(",       ")",     "%",  "[]", "%f[a"};
static const char *const subject_chars[] = {"a", "a", "a", "b", "b", "c", " ", "(", ")", "[",  "]",  "%", "-",
                                            "^", "$", ".", "x", "1", "9", "A", "Z", "_", "\n", "\"", "\0"};
static const char *const soup_chars[] = {"a", "b", ".", "%", "(", ")", "[", "]", "^",
                                         "$", "*", "+", "-", "?", "1", "f", "b", "%a"};

static void gen_items(text_t *t, int depth) {
  int n = (int)rnd(5);
  for (int i = 0; i < n; i++) {
    unsigned k = rnd(10);
    if (k < 6) {
      puts_(t, PICK(classes));
      puts_(t, PICK(quants));
    } else if (k < 8 && depth < 2) {
      puts_(t, "(");
      gen_items(t, depth + 1);
      puts_(t, ")");
    } else {
      puts_(t, PICK(specials));
    }
  }
}

static void gen_pattern(text_t *t) {
  t->len = 0;
  if (rnd(6) == 0) { /* a random soup, for the malformed cases */
    int n = (int)rnd(9);
    for (int i = 0; i < n; i++)
      puts_(t, PICK(soup_chars));
    return;
  }
  if (rnd(4) == 0) puts_(t, "^");
  gen_items(t, 0);
  if (rnd(5) == 0) puts_(t, "$");
}

static void gen_subject(text_t *t) {
  t->len = 0;
  int n = (int)rnd(15);
  for (int i = 0; i < n; i++) {
    const char *c = PICK(subject_chars);
    put(t, c, *c ? strlen(c) : 1); /* "\0" is one NUL byte */
  }
}

static void push_init(lua_State *L) {
  if (rnd(3) == 0)
    lua_pushnil(L);
  else
    lua_pushinteger(L, (lua_Integer)rnd(36) - 18);
}

static void describe(char *buf, size_t len, const char *fn, const text_t *s, const text_t *p) {
  char es[300], ep[300];
  size_t j = 0;
  for (size_t i = 0; i < s->len && j < sizeof es - 5; i++)
    j += (size_t)snprintf(es + j, 5, (unsigned char)s->buf[i] < 32 ? "\\%d" : "%c", s->buf[i]);
  es[j] = 0;
  j = 0;
  for (size_t i = 0; i < p->len && j < sizeof ep - 5; i++)
    j += (size_t)snprintf(ep + j, 5, (unsigned char)p->buf[i] < 32 ? "\\%d" : "%c", p->buf[i]);
  ep[j] = 0;
  snprintf(buf, len, "%s subject \"%s\" pattern \"%s\"", fn, es, ep);
}

/* Run one (subject, pattern) pair through find, match, gmatch and gsub
 * with random extra arguments. */
static void diff_pair(lua_State *L, diff_stats_t *st, const text_t *s, const text_t *p) {
  static const char *const templates[] = {"x", "%0", "<%1>", "%2", "%%", "%", "a%1b%0", "%9", "%x", "", "[%1|%2]"};
  char what[800];
  for (int op = 0; op < 4; op++) {
    static const char *const names[] = {"find", "match", "gmatch", "gsub"};
    lua_getglobal(L, "CMP");
    lua_pushstring(L, names[op]);
    lua_pushlstring(L, s->buf, s->len);
    lua_pushlstring(L, p->buf, p->len);
    int nargs = 3;
    if (op == 0) {
      push_init(L);
      unsigned plain = rnd(3);
      if (plain == 0)
        lua_pushnil(L);
      else
        lua_pushboolean(L, plain == 1);
      nargs += 2;
    } else if (op < 3) {
      push_init(L);
      nargs++;
    } else {
      unsigned k = rnd(14);
      if (k < 11)
        lua_pushstring(L, templates[k]);
      else if (k == 11)
        lua_getglobal(L, "REPF");
      else if (k == 12)
        lua_getglobal(L, "REPT");
      else
        lua_pushinteger(L, 42);
      if (rnd(2))
        lua_pushnil(L);
      else
        lua_pushinteger(L, (lua_Integer)rnd(5) - 1);
      nargs += 2;
    }
    if (lua_pcall(L, nargs, 2, 0) != LUA_OK) {
      fprintf(stderr, "  harness failed: %s\n", lua_tostring(L, -1));
      test_failed_++;
      lua_pop(L, 1);
      continue;
    }
    describe(what, sizeof what, names[op], s, p);
    diff_compare(L, st, what);
  }
}

static void generated_cases_agree_with_lua(void) {
  lua_State *L = diff_state();
  CHECK_TRUE(L != NULL);
  if (!L) return;
  diff_stats_t st = {0};
  text_t s, p;
  const int pairs = 4000;
  for (int i = 0; i < pairs; i++) {
    gen_subject(&s);
    gen_pattern(&p);
    diff_pair(L, &st, &s, &p);
  }
  printf("  %d generated pairs, %d calls compared, %d raised errors in both (%d with other wording), %d "
         "mismatches\n",
         pairs, st.cases, st.errors, st.messages_differ, st.mismatches);
  CHECK_EQ_INT(st.mismatches, 0);
  CHECK_TRUE(st.errors > 100 && st.errors < st.cases / 2); /* both kinds of outcome are exercised */
  lua_close(L);
}

/* Hand-picked cases: each a table {name, args..., n = count}. */
static const char tricky[] =
    "return {\n"
    "  {'find', 'hello world', 'o w', n = 3}, {'find', 'hello', 'l', -2, n = 4}, {'find', 'hello', 'l', -100, n = 4},\n"
    "  {'find', 'hello', '', 10, n = 4}, {'find', 'hello', '', 6, n = 4}, {'find', 'hello', '', 0, n = 4},\n"
    "  {'find', 'a.b', '.', 1, true, n = 5}, {'find', 'a+b', '+', nil, true, n = 5}, {'find', 'a+b', 'a+', n = 3},\n"
    "  {'find', 'a\\0b', '\\0', n = 3}, {'find', 'a\\0b', '%z', n = 3}, {'find', 'a\\0b', '[\\0]', n = 3},\n"
    "  {'find', 'a\\0b\\0c', 'b\\0c', n = 3}, {'find', 123, 2, n = 3}, {'find', 'x', 'x', 1.0, n = 4},\n"
    "  {'find', 'x', 'x', 1.5, n = 4}, {'find', nil, 'x', n = 3}, {'find', 'x', {}, n = 3},\n"
    "  {'find', 'abc', '^b', n = 3}, {'find', 'abc', '^a', n = 3}, {'find', 'abc', 'c$', n = 3},\n"
    "  {'find', 'a$c', 'a$c', n = 3}, {'find', 'a^c', 'a^c', n = 3}, {'find', '^a', '^^a', n = 3},\n"
    "  {'find', 'abc', '(', n = 3}, {'find', 'abc', '(x', n = 3}, {'find', 'abc', ')', n = 3},\n"
    "  {'find', 'abc', 'a%', n = 3}, {'find', 'b', 'a%', n = 3}, {'find', 'abc', '[a', n = 3},\n"
    "  {'find', 'abc', '[^', n = 3}, {'find', 'abc', '[]', n = 3}, {'find', 'a]', '[]]', n = 3},\n"
    "  {'find', 'abc', '%b', n = 3}, {'find', 'abc', '%ba', n = 3}, {'find', 'abc', '%f', n = 3},\n"
    "  {'find', 'abc', '%fa', n = 3}, {'find', 'abc', '%f[a', n = 3}, {'find', 'abc', '%1', n = 3},\n"
    "  {'find', 'abc', '(a)%2', n = 3}, {'find', 'aa', '(a)%1', n = 3}, {'find', 'abab', '(ab)%1', n = 3},\n"
    "  {'find', 'abc', '(a%1)', n = 3}, {'find', 'abc', '%0', n = 3}, {'find', 'aa', '()%1', n = 3},\n"
    "  {'find', 'hello', '()ll()', n = 3}, {'match', 'hello', '()ll()', n = 3}, {'match', 'hello', '(h)(e)(l)', n = "
    "3},\n"
    "  {'match', 'key = value', '(%w+)%s*=%s*(%w+)', n = 3}, {'match', '  400Gb/s ', '^%s*([%d.]+)%s*(.-)%s*$', n = "
    "3},\n"
    "  {'match', 'f(a(b)c)d', '%b()', n = 3}, {'match', 'f(a(b)c', '%b()', n = 3}, {'match', '\"q\"x\"', '%b\"\"', n = "
    "3},\n"
    "  {'match', 'THE (quick) fox', '%f[%a]%a+', n = 3}, {'match', 'THE (quick) fox', '%f[%a]%a+', 5, n = 4},\n"
    "  {'match', 'THE (quick) fox', '%f[%A]', n = 3}, {'match', 'abc', '%f[%z]', n = 3}, {'match', 'abc', '%f[%Z]', n "
    "= 3},\n"
    "  {'match', 'abc', '%f[^\\0]', n = 3}, {'match', '', '%f[%z]', n = 3}, {'match', 'ab', '.-b', n = 3},\n"
    "  {'match', 'aaab', 'a-b', n = 3}, {'match', 'aaab', 'a-', n = 3}, {'match', 'aaab', 'a*', n = 3},\n"
    "  {'match', 'aaab', 'a+?', n = 3}, {'match', 'aaab', 'a?a?a?a?b', n = 3}, {'match', '', 'a*', n = 3},\n"
    "  {'match', '', '', n = 3}, {'match', 'abc', '', 4, n = 4}, {'match', 'abc', '', 5, n = 4},\n"
    "  {'match', 'abc', 'c', -1, n = 4}, {'match', '[x]', '[[]', n = 3}, {'match', '-', '[a-]', n = 3},\n"
    "  {'match', '-', '[-a]', n = 3}, {'match', 'b', '[a-c-e]', n = 3}, {'match', '-', '[a-c-e]', n = 3},\n"
    "  {'match', '%', '[%%]', n = 3}, {'match', ']', '[%]]', n = 3}, {'match', 'x', '[^%]]', n = 3},\n"
    "  {'match', '\\200\\255', '[\\128-\\255]+', n = 3}, {'match', '\\255', '%A', n = 3}, {'match', 'a', '%q', n = "
    "3},\n"
    "  {'match', 'Q', '%Q', n = 3}, {'match', 'z', '%z', n = 3}, {'match', 'abc', '((a)(b))', n = 3},\n"
    "  {'match', 'abc', '(a)()(b)', n = 3}, {'match', ('a'):rep(40), ('(a)'):rep(32), n = 3},\n"
    "  {'match', ('a'):rep(40), ('(a)'):rep(33), n = 3}, {'match', ('a'):rep(150), ('a?'):rep(150), n = 3},\n"
    "  {'match', 'ab', '(a)(', n = 3}, {'match', 'ab', 'a)', n = 3},\n"
    "  {'gmatch', 'hello world from lua', '%a+', n = 3}, {'gmatch', 'k1=v1, k2=v2', '(%w+)=(%w+)', n = 3},\n"
    "  {'gmatch', 'abc', '', n = 3}, {'gmatch', 'abc', 'x*', n = 3}, {'gmatch', 'abc', '()', n = 3},\n"
    "  {'gmatch', '^a^b', '^.', n = 3}, {'gmatch', 'abcabc', 'b', 3, n = 4}, {'gmatch', 'abcabc', 'b', -2, n = 4},\n"
    "  {'gmatch', 'abc', '.', 10, n = 4}, {'gmatch', 'abc', '', 4, n = 4}, {'gmatch', 'abc', '%', n = 3},\n"
    "  {'gsub', 'hello world', 'o', '0', n = 4}, {'gsub', 'hello world', '(o)', '[%1]', n = 4},\n"
    "  {'gsub', 'hello world', '%w+', '%0 %0', 1, n = 5}, {'gsub', 'hello', '', '-', n = 4},\n"
    "  {'gsub', 'abc', 'x*', '-', n = 4}, {'gsub', 'abc', '^', '>', n = 4}, {'gsub', 'abc', '$', '<', n = 4},\n"
    "  {'gsub', 'abc', '^a', 'A', n = 4}, {'gsub', 'aaa', '^a', 'A', n = 4}, {'gsub', 'abc', '%w', '%%', n = 4},\n"
    "  {'gsub', 'abc', '%w', '%', n = 4}, {'gsub', 'abc', '%w', '%x', n = 4}, {'gsub', 'abc', '%w', '%1', n = 4},\n"
    "  {'gsub', 'abc', '%w', '%2', n = 4}, {'gsub', 'abc', '()', '%1', n = 4}, {'gsub', 'abc', '(', 'x', n = 4},\n"
    "  {'gsub', 'abc', '(', REPF, n = 4}, {'gsub', 'abc', '(', REPT, n = 4}, {'gsub', 'abc', '%w', REPF, n = 4},\n"
    "  {'gsub', 'abc', '%w', REPT, n = 4}, {'gsub', 'ab ab', '%w+', REPT, n = 4}, {'gsub', 'abx', '%w', REPF, n = 4},\n"
    "  {'gsub', 'abc', '(%w)(%w)', REPF, n = 4}, {'gsub', 'abc', '()', REPT, n = 4}, {'gsub', 'abc', '', REPT, n = "
    "4},\n"
    "  {'gsub', 'abc', '%w', 5, n = 4}, {'gsub', 'abc', '%w', nil, n = 4}, {'gsub', 'abc', '%w', true, n = 4},\n"
    "  {'gsub', 'abc', '%w', 'x', 0, n = 5}, {'gsub', 'abc', '%w', 'x', -3, n = 5}, {'gsub', 'abc', '%w', 'x', 2.0, n "
    "= 5},\n"
    "  {'gsub', 'abc', '%w', 'x', 2.5, n = 5}, {'gsub', 123, '2', 'x', n = 4}, {'gsub', 123, '4', 'x', n = 4},\n"
    "  {'gsub', 'a.b', '%.', '%%', n = 4}, {'gsub', 'abc', '.', {a = 1, b = true}, n = 4},\n"
    "  {'gsub', 'hello world', '(o)(r?)', '<%2%1>', n = 4}, {'gsub', 'abc', 'b*', '-', n = 4},\n"
    "  {'gsub', ('x'):rep(20), 'x', 'yy', 7, n = 5}, {'gsub', 'abc', '.', function() error('boom') end, n = 4},\n"
    "}\n";

static void hand_picked_cases_agree_with_lua(void) {
  lua_State *L = diff_state();
  CHECK_TRUE(L != NULL);
  if (!L) return;
  CHECK_TRUE(luaL_dostring(L, tricky) == LUA_OK);
  int n = (int)luaL_len(L, -1);
  diff_stats_t st = {0};
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    int top = lua_gettop(L);
    lua_getfield(L, top, "n");
    int nargs = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_getglobal(L, "CMP");
    for (int a = 1; a <= nargs; a++)
      lua_rawgeti(L, top, a);
    char what[64];
    snprintf(what, sizeof what, "hand-picked case %d", i);
    if (lua_pcall(L, nargs, 2, 0) != LUA_OK) {
      fprintf(stderr, "  %s: harness failed: %s\n", what, lua_tostring(L, -1));
      test_failed_++;
      lua_settop(L, top - 1);
      continue;
    }
    diff_compare(L, &st, what);
    lua_settop(L, top - 1);
  }
  printf("  %d hand-picked cases, %d raised errors in both (%d with other wording), %d mismatches\n", st.cases,
         st.errors, st.messages_differ, st.mismatches);
  CHECK_TRUE(n > 100);
  CHECK_EQ_INT(st.mismatches, 0);
  lua_close(L);
}

static void exponential_pattern_ends_with_the_budget_error(void) {
  sbx_t *s = test_sbx_make(0, 0, NULL);
  CHECK_TRUE(s != NULL);
  if (!s) return;
  static const char *const bombs[] = {
      "local s, p = string.rep('a', 60), string.rep('a*', 30) .. 'b'\nreturn s:find(p)",
      "local s, p = string.rep('a', 60), string.rep('a*', 30) .. 'b'\nreturn string.match(s, p)",
      "local s, p = string.rep('a', 60), string.rep('a-', 30) .. 'b'\nreturn (s:gsub(p, 'x'))",
      "local s, p = string.rep('a', 60), string.rep('(a*)', 20) .. 'b'\nfor x in s:gmatch(p) do end",
      /* Quadratic ones: each start scans to the end. */
      "local s = string.rep('(', 200000)\nreturn s:find('%b()')",
      "local s = string.rep('a', 200000)\nreturn s:find('.-b')",
      "local s = string.rep('a', 2000000)\nreturn s:find(string.rep('a', 100000) .. 'b', 1, true)",
      /* Caught by pcall, the error still names the script line. */
      "local s, p = string.rep('a', 60), string.rep('a*', 30) .. 'b'\nlocal ok, e = pcall(string.find, s, p)\n"
      "error(e, 0)",
  };
  for (size_t i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
    double t0 = test_now();
    CHECK_EQ_INT(test_sbx_run(s, bombs[i]), chorus_script_error);
    double dt = test_now() - t0;
    printf("  bomb %zu: %.3f s: %.*s\n", i, dt, (int)strcspn(sbx_error(s), "\n"), sbx_error(s));
    CHECK_CONTAINS(sbx_error(s), "t.lua:2: pattern too costly: more than 10000000 matching steps");
    /* The audit's pattern (the first) well under a second, even under the
     * sanitizers; the others just end. */
    CHECK_TRUE(dt < (i == 0 ? 1.0 : 5.0));
  }
  /* The state stays usable, and ordinary patterns are far under the budget. */
  CHECK_EQ_INT(test_sbx_run(s, "local n, u = ('  400Gb/s '):match('^%s*([%d.]+)%s*(.-)%s*$')\n"
                      "assert(n == '400' and u == 'Gb/s')\n"
                      "assert(select(2, string.rep('ab ', 100000):gsub('%w+', '%0')) == 100000)"),
               chorus_success);
  sbx_destroy(s);
}

static void deep_patterns_end_with_the_depth_error(void) {
  sbx_t *s = test_sbx_make(0, 0, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "return string.rep('a', 300):match(string.rep('a?', 250))"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "t.lua:1: pattern too complex: more than 200 nested items");
  CHECK_EQ_INT(test_sbx_run(s, "return string.rep('a', 300):match(string.rep('(a)', 33))"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "too many captures");
  sbx_destroy(s);
}

static void many_costly_matches_count_against_the_instruction_budget(void) {
  /* Each call is under the pattern budget (about 4.5 million steps), but
   * their steps add up to the instruction limit. */
  sbx_t *s = test_sbx_make(0, 20000000, NULL);
  double t0 = test_now();
  CHECK_EQ_INT(test_sbx_run(s, "local s = string.rep('a', 3000)\nfor i = 1, 1000 do s:find('.-b') end"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "t.lua:2: script ran too long");
  CHECK_TRUE(test_now() - t0 < 5.0);
  sbx_destroy(s);
}

static void limits_are_configurable(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_newtable(L);
  pat_limits_t lim = {.max_steps = 1000, .max_depth = 10};
  pat_install(L, -1, &lim);
  lua_setglobal(L, "P");
  CHECK_TRUE(luaL_dostring(L, "return P.find(string.rep('a', 100), '.-b')") != LUA_OK);
  CHECK_CONTAINS(lua_tostring(L, -1), "more than 1000 matching steps");
  lua_pop(L, 1);
  CHECK_TRUE(luaL_dostring(L, "return P.match('aaaaaaaaaaaa', string.rep('a?', 12))") != LUA_OK);
  CHECK_CONTAINS(lua_tostring(L, -1), "more than 10 nested items");
  lua_pop(L, 1);
  CHECK_TRUE(luaL_dostring(L, "assert(P.match('abc', 'b') == 'b')") == LUA_OK);
  lua_close(L);
}

TEST_MAIN(TEST(generated_cases_agree_with_lua), TEST(hand_picked_cases_agree_with_lua),
          TEST(exponential_pattern_ends_with_the_budget_error), TEST(deep_patterns_end_with_the_depth_error),
          TEST(many_costly_matches_count_against_the_instruction_budget), TEST(limits_are_configurable))
