/* test_sbx.h -- a sandbox for the tests of plan/sandbox.c and plan/pattern.c,
 * and running a chunk of Lua text in it. */
#ifndef CHORUS_TEST_SBX_H
#define CHORUS_TEST_SBX_H

#include <string.h>

#include "sandbox.h"

/* Caps mem bytes and instr instructions (0: the defaults); libdir, when not
 * NULL, is the one folder require may load from. NULL on failure. */
static inline sbx_t *test_sbx_make(size_t mem, long long instr, const char *libdir) {
  sbx_opts_t o = {.mem_limit = mem, .instr_limit = instr};
  if (libdir) {
    o.libdirs[0] = libdir;
    o.nlibdirs = 1;
  }
  sbx_t *s;
  return sbx_create(&s, &o) == chorus_success ? s : NULL;
}

/* Run code as "t.lua", dropping its one result on success. */
static inline chorus_result_t test_sbx_run(sbx_t *s, const char *code) {
  chorus_result_t r = sbx_run_string(s, code, strlen(code), "t.lua");
  if (r == chorus_success) lua_pop(sbx_state(s), 1);
  return r;
}

#endif
