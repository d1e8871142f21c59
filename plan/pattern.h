/* pattern.h -- Lua 5.4 pattern matching (string.find, match, gmatch, gsub)
 * with a bounded cost. Lua's own matcher backtracks in C, out of reach of
 * the sandbox's instruction hook, so a pattern such as
 * ("a*"):rep(30) .. "b" against ("a"):rep(60) would run for years. This one
 * implements the same semantics (Lua 5.4 manual, section 6.4.1) but counts
 * its work and raises an ordinary Lua error, naming the script line, when a
 * call goes over its budget.
 *
 * Cost model. A matching step is one attempt of a pattern item at a subject
 * position: entering the rest of a pattern, each character a quantifier or
 * %b scans, each candidate start of a plain find, and each 32 bytes a
 * back-reference or plain find compares. One call (one string.find, one
 * gsub over the whole subject, one step of a gmatch iterator) may take at
 * most max_steps steps (PAT_MAX_STEPS, 10 million: well under a second;
 * ordinary uses take tens to thousands), and nest at most max_depth
 * quantified or captured items (PAT_MAX_DEPTH, 200, Lua's own limit). The
 * steps of every call are also passed to `charge`, so that a script cannot
 * escape a time cap by calling many costly patterns in a loop: the sandbox
 * counts them against its instruction budget.
 */
#ifndef CHORUS_PATTERN_H
#define CHORUS_PATTERN_H

#include <lua.h>

#define PAT_MAX_STEPS 10000000LL
#define PAT_MAX_DEPTH 200
#define PAT_MAX_CAPTURES 32 /* as Lua's LUA_MAXCAPTURES */

/* Called after each matching call with the steps it took (also when the
 * call is about to fail for going over max_steps). It may raise a Lua
 * error, which then replaces the call's own result. */
typedef void (*pat_charge_fn)(lua_State *L, void *ud, long long steps);

typedef struct {
  long long max_steps;  /* per call; 0 = PAT_MAX_STEPS */
  int max_depth;        /* 0 = PAT_MAX_DEPTH */
  pat_charge_fn charge; /* NULL: no one is told */
  void *ud;             /* passed to charge */
} pat_limits_t;

/* Set find, match, gmatch and gsub in the table at index idx (normally the
 * string library table, which is also the __index of the string metatable,
 * so that s:match(...) reaches them) to the bounded versions. lim is copied;
 * NULL means the defaults. Raises a Lua memory error if it cannot allocate,
 * so call it where an error is caught or cannot happen. */
void pat_install(lua_State *L, int idx, const pat_limits_t *lim);

#endif
