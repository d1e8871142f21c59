/* sandbox.h -- the one way Chorus runs Lua: algorithm, topology and
 * experiment scripts alike. A sandbox is a lua_State with only the safe
 * libraries (base without dofile/loadfile/load of bytecode, string without
 * dump, table, math, utf8; setmetatable without __gc finalizers, which run
 * with hooks off), a counting allocator that caps memory, an instruction hook
 * that caps time, text chunks only, and a `require` that loads modules from
 * the sandbox's library folders alone.
 *
 * string.find, match, gmatch and gsub (also as s:find(...)) are not Lua's:
 * Lua's matcher backtracks in C where the hook cannot stop it, so they are
 * plan/pattern.c's, with the same results and a budget: at most
 * PAT_MAX_STEPS (10 million) matching steps and PAT_MAX_DEPTH (200) nested
 * items per call, past which the call raises "file:line: pattern too
 * costly: more than N matching steps" (or "pattern too complex"). Each
 * call's steps also count as instructions against instr_limit, so a loop of
 * costly matches ends with "script ran too long".
 */
#ifndef CHORUS_SANDBOX_H
#define CHORUS_SANDBOX_H

#include <stddef.h>

#include <lua.h>

#include "chorus.h"

#define SBX_MAX_LIBDIRS 4

typedef struct {
  size_t mem_limit;        /* bytes; 0 = the default (256 MiB) */
  long long instr_limit;   /* VM instructions (and pattern steps) per sbx_call; 0 = default (100 M) */
  const char *libdirs[SBX_MAX_LIBDIRS]; /* folders `require` may load from */
  int nlibdirs;
} sbx_opts_t;

typedef struct sbx sbx_t;

/* Create a sandbox. On failure *out is NULL and the result says why. */
chorus_result_t sbx_create(sbx_t **out, const sbx_opts_t *opts);
void sbx_destroy(sbx_t *s);

lua_State *sbx_state(sbx_t *s);

/* Load a script file as a text chunk with a fresh environment (a new table
 * whose globals are copies of the safe ones), run it, and leave its first
 * return value on the stack. On error the message ("file:line: what", with a
 * traceback) is in sbx_error(). */
chorus_result_t sbx_run_file(sbx_t *s, const char *path);

/* The same for a script held in memory; `name` is what errors call it. */
chorus_result_t sbx_run_string(sbx_t *s, const char *code, size_t len, const char *name);

/* Protected call of the function below nargs arguments on the stack, with
 * the instruction budget reset and a traceback handler. Leaves nresults
 * results on success; on failure, nothing, and the message in sbx_error(). */
chorus_result_t sbx_call(sbx_t *s, int nargs, int nresults);

/* The message of the last failure ("" when none). */
const char *sbx_error(sbx_t *s);

/* Record a failure message in the sandbox (printf-style) and return r. */
chorus_result_t sbx_fail(sbx_t *s, chorus_result_t r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Add the value on top of the stack to the globals every fresh environment
 * starts with, under `name` (pops it). */
void sbx_define(sbx_t *s, const char *name);

/* Push a fresh environment table (the safe globals, library tables copied). */
void sbx_push_env(sbx_t *s);

/* Bytes the state holds now and at most so far. */
size_t sbx_mem_used(const sbx_t *s);
size_t sbx_mem_peak(const sbx_t *s);

/* Parse a quantity with a unit: "400Gb/s", "450GB/s", "1.5us", "2KiB".
 * kind is 'b' (bandwidth, result in bytes per second), 't' (time, seconds)
 * or 's' (size, bytes). Returns 0 on success, -1 with a message in err. */
int sbx_parse_unit(const char *text, int kind, double *out, char *err, size_t errlen);

#endif
