/* pattern.c -- Lua 5.4 patterns with a cost budget: find, match, gmatch and
 * gsub, written from the reference manual (section 6.4.1), for the sandbox.
 * A backtracking matcher over the pattern text, as the manual describes it;
 * every step and every nesting level is counted (see pattern.h). */
#include "pattern.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#define CAP_OPEN (-1) /* a capture whose ')' is not matched yet */
#define CAP_POS (-2)  /* a position capture, "()" */
/* Steps are passed to the charge callback in batches this large, so that a
 * call cut short by an error leaves little uncounted. */
#define PAT_CHARGE_EVERY 4096
#define PAT_SPECIALS "^$*+?.([%-"

typedef struct {
  lua_State *L;
  const pat_limits_t *lim;
  const char *src, *src_end; /* the subject */
  const char *pat_end;       /* the end of the pattern */
  long long steps, pending;  /* taken in this call; not yet charged */
  int depth;                 /* nesting of match_here */
  int ncap;
  struct {
    const char *at;
    ptrdiff_t len; /* or CAP_OPEN, CAP_POS */
  } cap[PAT_MAX_CAPTURES];
} pat_ms_t;

static const char *match_here(pat_ms_t *ms, const char *s, const char *p);

static void ms_flush(pat_ms_t *ms) {
  long long n = ms->pending;
  ms->pending = 0;
  if (n && ms->lim->charge) ms->lim->charge(ms->L, ms->lim->ud, n);
}

/* Raise "file:line: message", the line being the innermost Lua function
 * with one: the script that called us, even through pcall. The steps taken
 * so far are charged first. */
__attribute__((noreturn)) static void ms_error(pat_ms_t *ms, const char *fmt, ...) {
  lua_State *L = ms->L;
  ms_flush(ms);
  lua_Debug ar;
  int found = 0;
  for (int level = 1; level < 16 && lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      found = 1;
      break;
    }
  }
  if (!found) lua_pushliteral(L, "");
  va_list ap;
  va_start(ap, fmt);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 2);
  lua_error(L);
  __builtin_unreachable(); /* lua_error does not return: it unwinds to the protected call */
}

static void step(pat_ms_t *ms, long long n) {
  ms->steps += n;
  ms->pending += n;
  if (ms->pending >= PAT_CHARGE_EVERY) ms_flush(ms);
  if (ms->steps > ms->lim->max_steps)
    ms_error(ms,
             "pattern too costly: more than %I matching steps in one call (a pattern that backtracks "
             "without end? simplify it or match a shorter string)",
             (lua_Integer)ms->lim->max_steps);
}

static void ms_init(pat_ms_t *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
  ms->L = L;
  ms->lim = lua_touserdata(L, lua_upvalueindex(1));
  ms->src = s;
  ms->src_end = s + ls;
  ms->pat_end = p + lp;
  ms->steps = ms->pending = 0;
  ms->depth = ms->ncap = 0;
}

/* Does character c belong to class %cl? A letter that names no class, or
 * any other character, stands for itself. %z (the NUL byte) is deprecated
 * since 5.2 but Lua 5.4's library still accepts it, and so do we. */
static int class_has(int cl, int c) {
  int in;
  switch (tolower(cl)) {
  case 'a':
    in = isalpha(c);
    break;
  case 'c':
    in = iscntrl(c);
    break;
  case 'd':
    in = isdigit(c);
    break;
  case 'g':
    in = isgraph(c);
    break;
  case 'l':
    in = islower(c);
    break;
  case 'p':
    in = ispunct(c);
    break;
  case 's':
    in = isspace(c);
    break;
  case 'u':
    in = isupper(c);
    break;
  case 'w':
    in = isalnum(c);
    break;
  case 'x':
    in = isxdigit(c);
    break;
  case 'z':
    in = c == 0;
    break; /* not in the 5.4 manual, but Lua 5.4 keeps it */
  default:
    return cl == c;
  }
  in = in != 0;
  return isupper(cl) ? !in : in; /* %A is the complement of %a */
}

/* Does c belong to the set that opens at p ('[') and closes at close (']')?
 * Inside, %x is a class or an escaped character, a-z a range, anything
 * else itself; a leading ^ complements. */
static int set_has(int c, const char *p, const char *close) {
  int in = 1;
  p++;
  if (*p == '^') {
    in = 0;
    p++;
  }
  for (; p < close; p++) {
    int x = (unsigned char)*p;
    if (x == '%') {
      p++;
      if (class_has((unsigned char)*p, c)) return in;
    } else if (p + 2 < close && p[1] == '-') {
      if (x <= c && c <= (unsigned char)p[2]) return in;
      p += 2;
    } else if (x == c) {
      return in;
    }
  }
  return !in;
}

/* The end of the single-character class that starts at p: ".", "x", "%x"
 * or a set "[...]". The first character of a set, even ']', is a member. */
static const char *item_end(pat_ms_t *ms, const char *p) {
  switch (*p++) {
  case '%':
    if (p == ms->pat_end) ms_error(ms, "malformed pattern (ends with '%%')");
    return p + 1;
  case '[':
    if (p < ms->pat_end && *p == '^') p++;
    do {
      if (p == ms->pat_end) ms_error(ms, "malformed pattern (missing ']')");
      if (*p++ == '%' && p < ms->pat_end) p++;
    } while (p == ms->pat_end || *p != ']');
    return p + 1;
  default:
    return p;
  }
}

/* Does the subject character at s match the class [p, ep)? */
static int one_matches(const pat_ms_t *ms, const char *s, const char *p, const char *ep) {
  if (s >= ms->src_end) return 0;
  int c = (unsigned char)*s;
  switch (*p) {
  case '.':
    return 1;
  case '%':
    return class_has((unsigned char)p[1], c);
  case '[':
    return set_has(c, p, ep - 1);
  default:
    return (unsigned char)*p == c;
  }
}

/* x* and x+: take as many as match, then give back one at a time. */
static const char *greedy(pat_ms_t *ms, const char *s, const char *p, const char *ep) {
  ptrdiff_t n = 0;
  while (one_matches(ms, s + n, p, ep)) {
    step(ms, 1);
    n++;
  }
  for (; n >= 0; n--) {
    const char *r = match_here(ms, s + n, ep + 1);
    if (r) return r;
  }
  return NULL;
}

/* x-: take as few as the rest allows. */
static const char *lazy(pat_ms_t *ms, const char *s, const char *p, const char *ep) {
  for (;;) {
    const char *r = match_here(ms, s, ep + 1);
    if (r) return r;
    if (!one_matches(ms, s, p, ep)) return NULL;
    s++;
  }
}

static const char *open_capture(pat_ms_t *ms, const char *s, const char *p, ptrdiff_t kind) {
  if (ms->ncap >= PAT_MAX_CAPTURES) ms_error(ms, "too many captures (at most %d)", PAT_MAX_CAPTURES);
  ms->cap[ms->ncap].at = s;
  ms->cap[ms->ncap].len = kind;
  ms->ncap++;
  const char *r = match_here(ms, s, p);
  if (!r) ms->ncap--;
  return r;
}

static const char *close_capture(pat_ms_t *ms, const char *s, const char *p) {
  int i = ms->ncap - 1;
  while (i >= 0 && ms->cap[i].len != CAP_OPEN)
    i--;
  if (i < 0) ms_error(ms, "invalid pattern capture (a ')' closes no '(')");
  ms->cap[i].len = s - ms->cap[i].at;
  const char *r = match_here(ms, s, p);
  if (!r) ms->cap[i].len = CAP_OPEN;
  return r;
}

/* %bxy at s; p points at x. */
static const char *balanced(pat_ms_t *ms, const char *s, const char *p) {
  if (p + 1 >= ms->pat_end) ms_error(ms, "malformed pattern (missing arguments to '%%b')");
  if (s >= ms->src_end || *s != p[0]) return NULL;
  int open = p[0], close = p[1], depth = 1;
  while (++s < ms->src_end) {
    step(ms, 1);
    if (*s == close) {
      if (--depth == 0) return s + 1;
    } else if (*s == open) {
      depth++;
    }
  }
  return NULL;
}

/* %1-%9 at s: the text of that capture again. A position capture has no
 * text and never matches. */
static const char *backref(pat_ms_t *ms, const char *s, int digit) {
  int i = digit - '1';
  if (i < 0 || i >= ms->ncap || ms->cap[i].len == CAP_OPEN)
    ms_error(ms, "invalid capture index %%%d in pattern", i + 1);
  ptrdiff_t len = ms->cap[i].len;
  if (len == CAP_POS) return NULL;
  step(ms, len / 32);
  if (ms->src_end - s >= len && memcmp(ms->cap[i].at, s, (size_t)len) == 0) return s + len;
  return NULL;
}

/* Match the pattern from p to its end at subject position s: the end of
 * the match, or NULL. Items that need no backtracking loop here; the others
 * recurse, one level per item, which the depth limit bounds. */
static const char *match_items(pat_ms_t *ms, const char *s, const char *p) {
  while (p < ms->pat_end) {
    step(ms, 1);
    switch (*p) {
    case '(':
      if (p + 1 < ms->pat_end && p[1] == ')') return open_capture(ms, s, p + 2, CAP_POS);
      return open_capture(ms, s, p + 1, CAP_OPEN);
    case ')':
      return close_capture(ms, s, p + 1);
    case '$':
      if (p + 1 == ms->pat_end) return s == ms->src_end ? s : NULL;
      break; /* elsewhere a '$' is itself */
    case '%':
      if (p + 1 == ms->pat_end) break; /* item_end reports it */
      if (p[1] == 'b') {
        if (!(s = balanced(ms, s, p + 2))) return NULL;
        p += 4;
        continue;
      }
      if (p[1] == 'f') {
        p += 2;
        if (p == ms->pat_end || *p != '[') ms_error(ms, "missing '[' after '%%f' in pattern");
        const char *ep = item_end(ms, p);
        int prev = s == ms->src ? 0 : (unsigned char)s[-1];
        int cur = s < ms->src_end ? (unsigned char)*s : 0;
        if (set_has(prev, p, ep - 1) || !set_has(cur, p, ep - 1)) return NULL;
        p = ep;
        continue;
      }
      if (isdigit((unsigned char)p[1])) {
        if (!(s = backref(ms, s, p[1]))) return NULL;
        p += 2;
        continue;
      }
      break;
    default:
      break;
    }
    const char *ep = item_end(ms, p);
    int quant = ep < ms->pat_end ? *ep : 0;
    if (!one_matches(ms, s, p, ep)) {
      if (quant != '*' && quant != '?' && quant != '-') return NULL;
      p = ep + 1; /* zero repetitions */
      continue;
    }
    switch (quant) {
    case '?': {
      const char *r = match_here(ms, s + 1, ep + 1);
      if (r) return r;
      p = ep + 1;
      continue;
    }
    case '*':
      return greedy(ms, s, p, ep);
    case '+':
      return greedy(ms, s + 1, p, ep);
    case '-':
      return lazy(ms, s, p, ep);
    default:
      s++;
      p = ep;
    }
  }
  return s;
}

static const char *match_here(pat_ms_t *ms, const char *s, const char *p) {
  if (++ms->depth > ms->lim->max_depth)
    ms_error(ms, "pattern too complex: more than %d nested items", ms->lim->max_depth);
  const char *r = match_items(ms, s, p);
  ms->depth--;
  return r;
}

static void ms_restart(pat_ms_t *ms) {
  ms->ncap = 0;
  ms->depth = 0;
}

/* Capture i of the match [s, e): 1 for a position (in *at), 0 for text.
 * With no captures, capture 0 is the whole match. */
static int cap_get(pat_ms_t *ms, int i, const char *s, const char *e, const char **at, size_t *len) {
  if (i >= ms->ncap) {
    if (i != 0) ms_error(ms, "invalid capture index %%%d", i + 1);
    *at = s;
    *len = (size_t)(e - s);
    return 0;
  }
  if (ms->cap[i].len == CAP_OPEN) ms_error(ms, "unfinished capture (a '(' without its ')')");
  *at = ms->cap[i].at;
  if (ms->cap[i].len == CAP_POS) return 1;
  *len = (size_t)ms->cap[i].len;
  return 0;
}

static void cap_push(pat_ms_t *ms, int i, const char *s, const char *e) {
  const char *at;
  size_t len;
  if (cap_get(ms, i, s, e, &at, &len))
    lua_pushinteger(ms->L, (lua_Integer)(at - ms->src) + 1);
  else
    lua_pushlstring(ms->L, at, len);
}

/* Push the captures, or the whole match when there are none and s is not
 * NULL; returns how many. */
static int caps_push(pat_ms_t *ms, const char *s, const char *e) {
  int n = ms->ncap == 0 && s ? 1 : ms->ncap;
  luaL_checkstack(ms->L, n, "too many captures");
  for (int i = 0; i < n; i++)
    cap_push(ms, i, s, e);
  return n;
}

/* A string position argument (1-based, negative from the end) as a 1-based
 * offset clipped below at 1. */
static size_t pos_from(lua_Integer pos, size_t len) {
  if (pos > 0) return (size_t)pos;
  if (pos == 0 || pos < -(lua_Integer)len) return 1;
  return len - (size_t)(-pos) + 1;
}

static int has_specials(const char *p, size_t lp) {
  for (size_t i = 0; i < lp; i++)
    if (p[i] && strchr(PAT_SPECIALS, p[i])) return 1;
  return 0;
}

/* Plain substring search, counted: each candidate start is a step. */
static const char *plain_find(pat_ms_t *ms, const char *s, size_t ls, const char *p, size_t lp) {
  if (lp == 0) return s;
  if (lp > ls) return NULL;
  const char *last = s + (ls - lp);
  while (s <= last) {
    const char *hit = memchr(s, p[0], (size_t)(last - s) + 1);
    if (!hit) return NULL;
    step(ms, 1 + (long long)(lp / 32));
    if (memcmp(hit + 1, p + 1, lp - 1) == 0) return hit;
    s = hit + 1;
  }
  return NULL;
}

static int find_or_match(lua_State *L, int find) {
  size_t ls, lp;
  const char *s = luaL_checklstring(L, 1, &ls);
  const char *p = luaL_checklstring(L, 2, &lp);
  size_t init = pos_from(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) {
    luaL_pushfail(L);
    return 1;
  }
  pat_ms_t ms;
  ms_init(&ms, L, s, ls, p, lp);
  if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
    const char *hit = plain_find(&ms, s + init, ls - init, p, lp);
    ms_flush(&ms);
    if (hit) {
      lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
      lua_pushinteger(L, (lua_Integer)(hit - s + lp));
      return 2;
    }
    luaL_pushfail(L);
    return 1;
  }
  int anchor = lp > 0 && *p == '^';
  if (anchor) p++;
  for (const char *from = s + init;; from++) {
    ms_restart(&ms);
    const char *e = match_here(&ms, from, p);
    if (e) {
      ms_flush(&ms);
      if (!find) return caps_push(&ms, from, e);
      lua_pushinteger(L, (lua_Integer)(from - s) + 1);
      lua_pushinteger(L, (lua_Integer)(e - s));
      return caps_push(&ms, NULL, NULL) + 2;
    }
    if (anchor || from == ms.src_end) break;
  }
  ms_flush(&ms);
  luaL_pushfail(L);
  return 1;
}

static int pat_find(lua_State *L) {
  return find_or_match(L, 1);
}
static int pat_match(lua_State *L) {
  return find_or_match(L, 0);
}

/* The gmatch iterator. Upvalues: limits, subject, pattern, where to try
 * next (0-based), the end of the last match (-1: none), so that an empty
 * match right after a match is skipped. A caret is no anchor here. */
static int gmatch_next(lua_State *L) {
  size_t ls, lp;
  const char *s = lua_tolstring(L, lua_upvalueindex(2), &ls);
  const char *p = lua_tolstring(L, lua_upvalueindex(3), &lp);
  size_t next = (size_t)lua_tointeger(L, lua_upvalueindex(4));
  lua_Integer last = lua_tointeger(L, lua_upvalueindex(5));
  pat_ms_t ms;
  ms_init(&ms, L, s, ls, p, lp);
  for (size_t i = next; i <= ls; i++) {
    ms_restart(&ms);
    const char *e = match_here(&ms, s + i, p);
    if (e && e - s != last) {
      lua_pushinteger(L, (lua_Integer)(e - s));
      lua_pushvalue(L, -1);
      lua_replace(L, lua_upvalueindex(4));
      lua_replace(L, lua_upvalueindex(5));
      ms_flush(&ms);
      return caps_push(&ms, s + i, e);
    }
  }
  lua_pushinteger(L, (lua_Integer)ls + 1); /* no more: later calls need not search again */
  lua_replace(L, lua_upvalueindex(4));
  ms_flush(&ms);
  return 0;
}

static int pat_gmatch(lua_State *L) {
  size_t ls, lp;
  luaL_checklstring(L, 1, &ls);
  luaL_checklstring(L, 2, &lp);
  size_t init = pos_from(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) init = ls + 1;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushinteger(L, (lua_Integer)init);
  lua_pushinteger(L, -1);
  lua_pushcclosure(L, gmatch_next, 5);
  return 1;
}

/* A replacement string: %0 the match, %1-%9 a capture, %% a percent. */
static void add_template(pat_ms_t *ms, luaL_Buffer *b, const char *s, const char *e) {
  size_t l;
  const char *r = lua_tolstring(ms->L, 3, &l), *end = r + l;
  const char *pc;
  while ((pc = memchr(r, '%', (size_t)(end - r))) != NULL) {
    luaL_addlstring(b, r, (size_t)(pc - r));
    int k = pc + 1 < end ? (unsigned char)pc[1] : 0;
    if (k == '%') {
      luaL_addchar(b, '%');
    } else if (k == '0') {
      luaL_addlstring(b, s, (size_t)(e - s));
    } else if (k >= '1' && k <= '9') {
      const char *at;
      size_t len;
      if (cap_get(ms, k - '1', s, e, &at, &len)) {
        lua_pushinteger(ms->L, (lua_Integer)(at - ms->src) + 1);
        luaL_addvalue(b);
      } else {
        luaL_addlstring(b, at, len);
      }
    } else {
      ms_error(ms, "invalid use of '%%' in replacement string (use %%%% for a percent sign)");
    }
    r = pc + 2;
  }
  luaL_addlstring(b, r, (size_t)(end - r));
}

/* Add the replacement of the match [s, e) to b; 0 when the match is kept as
 * it was (a table or function gave false or nil). */
static int add_replacement(pat_ms_t *ms, luaL_Buffer *b, const char *s, const char *e, int tr) {
  lua_State *L = ms->L;
  if (tr == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    int n = caps_push(ms, s, e);
    lua_call(L, n, 1);
  } else if (tr == LUA_TTABLE) {
    cap_push(ms, 0, s, e);
    lua_gettable(L, 3);
  } else {
    add_template(ms, b, s, e);
    return 1;
  }
  if (!lua_toboolean(L, -1)) {
    lua_pop(L, 1);
    luaL_addlstring(b, s, (size_t)(e - s));
    return 0;
  }
  if (!lua_isstring(L, -1)) ms_error(ms, "invalid replacement value (a %s)", luaL_typename(L, -1));
  luaL_addvalue(b);
  return 1;
}

static int pat_gsub(lua_State *L) {
  size_t ls, lp;
  const char *src = luaL_checklstring(L, 1, &ls);
  const char *p = luaL_checklstring(L, 2, &lp);
  int tr = lua_type(L, 3);
  lua_Integer max_n = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
  luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                   "string/function/table");
  pat_ms_t ms;
  ms_init(&ms, L, src, ls, p, lp);
  int anchor = lp > 0 && *p == '^';
  if (anchor) p++;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char *s = src, *last = NULL;
  lua_Integer n = 0;
  int changed = 0;
  while (n < max_n) {
    ms_restart(&ms);
    const char *e = match_here(&ms, s, p);
    if (e && e != last) {
      n++;
      changed |= add_replacement(&ms, &b, s, e, tr);
      s = last = e;
    } else if (s < ms.src_end) {
      luaL_addchar(&b, *s++);
    } else {
      break;
    }
    if (anchor) break;
  }
  ms_flush(&ms);
  if (!changed) {
    lua_pushvalue(L, 1);
  } else {
    luaL_addlstring(&b, s, (size_t)(ms.src_end - s));
    luaL_pushresult(&b);
  }
  lua_pushinteger(L, n);
  return 2;
}

void pat_install(lua_State *L, int idx, const pat_limits_t *lim) {
  static const luaL_Reg fns[] = {
      {"find", pat_find}, {"match", pat_match}, {"gmatch", pat_gmatch}, {"gsub", pat_gsub}, {NULL, NULL}};
  idx = lua_absindex(L, idx);
  pat_limits_t *u = lua_newuserdatauv(L, sizeof *u, 0);
  *u = lim ? *lim : (pat_limits_t){0};
  if (u->max_steps <= 0) u->max_steps = PAT_MAX_STEPS;
  if (u->max_depth <= 0) u->max_depth = PAT_MAX_DEPTH;
  for (const luaL_Reg *f = fns; f->name; f++) {
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, f->func, 1);
    lua_setfield(L, idx, f->name);
  }
  lua_pop(L, 1);
}
