/* test_sandbox.c -- the Lua sandbox: caps, denials, environments, require,
 * units. */
#include <stdlib.h>
#include <unistd.h>

#include "sandbox.h"
#include "test.h"
#include "test_sbx.h"

static void endless_loop_stops_with_instruction_budget(void) {
  sbx_t *s = test_sbx_make(0, 1000000, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "local x = 0\nwhile true do x = x + 1 end"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "t.lua:2");
  CHECK_CONTAINS(sbx_error(s), "ran too long");
  /* The budget is per call: a later short call succeeds. */
  CHECK_EQ_INT(test_sbx_run(s, "return 1"), chorus_success);
  sbx_destroy(s);
}

/* pcall and xpcall work as in Lua, but cannot catch the end of the budget
 * (a loop around them used to restart the endless loop forever). */
static void pcall_cannot_swallow_the_instruction_budget(void) {
  sbx_t *s = test_sbx_make(0, 1000000, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "local ok, e = pcall(error, 'x', 0)\n"
                      "assert(ok == false and e == 'x')\n"
                      "local a, b, c = pcall(function(p, q) return p + q, 'r' end, 1, 2)\n"
                      "assert(a == true and b == 3 and c == 'r')\n"
                      "local ok2, h = xpcall(function() error('y', 0) end, function(m) return 'h:' .. m end)\n"
                      "assert(ok2 == false and h == 'h:y')\n"
                      "local ok3, v = xpcall(function(z) return z * 2 end, print, 21)\n"
                      "assert(ok3 == true and v == 42)\n"
                      "assert(not pcall(xpcall, 1))\n"
                      "return 1"),
               chorus_success);
  CHECK_EQ_INT(test_sbx_run(s, "while true do\n  pcall(function() while true do end end)\n"
                      "  xpcall(function() while true do end end, function(m) return m end)\nend"),
               chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "ran too long");
  CHECK_EQ_INT(test_sbx_run(s, "return 1"), chorus_success);
  sbx_destroy(s);
}

static void memory_bomb_stops_at_the_cap(void) {
  sbx_t *s = test_sbx_make(8 << 20, 0, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep('x', 4096) .. i end"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "memory limit");
  CHECK_CONTAINS(sbx_error(s), "t.lua:2");
  CHECK_TRUE(sbx_mem_peak(s) <= (8u << 20));
  CHECK_EQ_INT(test_sbx_run(s, "return 2"), chorus_success);
  sbx_destroy(s);
}

static void files_processes_and_bytecode_are_denied(void) {
  sbx_t *s = test_sbx_make(0, 0, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "io.open('/etc/passwd')"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "io.open is not available");
  CHECK_EQ_INT(test_sbx_run(s, "os.execute('true')"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "os.execute is not available");
  CHECK_EQ_INT(test_sbx_run(s, "dofile('/etc/passwd')"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "dofile is not available");
  CHECK_EQ_INT(test_sbx_run(s, "return string.dump(print)"), chorus_script_error);
  CHECK_EQ_INT(test_sbx_run(s, "local f, e = load('\\27Lua') assert(f == nil) error(e)"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "binary chunk");
  CHECK_EQ_INT(test_sbx_run(s, "return debug.getinfo(1)"), chorus_script_error);
  CHECK_EQ_INT(test_sbx_run(s, "return package.loadlib('x', 'y')"), chorus_script_error);
  CHECK_EQ_INT(test_sbx_run(s, "return load('return 40 + 2')() == 42 or error('load')"), chorus_success);
  sbx_destroy(s);
}

static void finalizers_are_refused_since_no_limit_reaches_them(void) {
  sbx_t *s = test_sbx_make(0, 1000000, NULL);
  /* Lua runs __gc with hooks off: a loop in one would never be stopped (an
   * empty one here, so that a regression fails instead of hanging). */
  CHECK_EQ_INT(test_sbx_run(s, "setmetatable({}, { __gc = function() end })"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "t.lua:1: setmetatable: __gc finalizers are not available");
  /* Other metatables work as in Lua, protection included. */
  CHECK_EQ_INT(test_sbx_run(s, "local t = setmetatable({}, { __index = function() return 7 end })\n"
                      "assert(t.x == 7 and getmetatable(t).__index)\n"
                      "local p = setmetatable({}, { __metatable = 'locked' })\n"
                      "assert(not pcall(setmetatable, p, {}))\n"
                      "assert(setmetatable(t, nil) == t and getmetatable(t) == nil)"),
               chorus_success);
  sbx_destroy(s);
}

static void each_script_gets_a_fresh_environment(void) {
  sbx_t *s = test_sbx_make(0, 0, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "leaked = 1; string.leaked = 1; math.pi = 3"), chorus_success);
  CHECK_EQ_INT(test_sbx_run(s, "assert(leaked == nil and string.leaked == nil and math.pi > 3.14)"), chorus_success);
  sbx_destroy(s);
}

static void require_loads_only_from_the_library_folder(void) {
  char dir[] = "/tmp/chorus-sbx-XXXXXX";
  CHECK_TRUE(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/mod.lua", dir);
  FILE *f = fopen(path, "w");
  fputs("local M = {}\nfunction M.twice(x) return 2 * x end\nreturn M\n", f);
  fclose(f);
  sbx_t *s = test_sbx_make(0, 0, dir);
  CHECK_EQ_INT(test_sbx_run(s, "local m = require 'mod'; assert(m.twice(4) == 8); assert(require 'mod' == m)"),
               chorus_success);
  CHECK_EQ_INT(test_sbx_run(s, "require '../etc/passwd'"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "not a module name");
  CHECK_EQ_INT(test_sbx_run(s, "require 'missing'"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "no module 'missing'");
  sbx_destroy(s);
  unlink(path);
  rmdir(dir);
}

static void errors_name_file_and_line(void) {
  sbx_t *s = test_sbx_make(0, 0, NULL);
  CHECK_EQ_INT(test_sbx_run(s, "local x = 1\nlocal y = nil\ny()"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "t.lua:3");
  CHECK_EQ_INT(test_sbx_run(s, "return = 1"), chorus_script_error);
  CHECK_CONTAINS(sbx_error(s), "t.lua:1");
  sbx_destroy(s);
}

static void units_parse_with_their_scale(void) {
  double v;
  char err[256];
  CHECK_EQ_INT(sbx_parse_unit("400Gb/s", 'b', &v, err, sizeof err), 0);
  CHECK_TRUE(v == 50e9);
  CHECK_EQ_INT(sbx_parse_unit("450GB/s", 'b', &v, err, sizeof err), 0);
  CHECK_TRUE(v == 450e9);
  CHECK_EQ_INT(sbx_parse_unit("1.5us", 't', &v, err, sizeof err), 0);
  CHECK_TRUE(v > 1.4999e-6 && v < 1.5001e-6);
  CHECK_EQ_INT(sbx_parse_unit("2KiB", 's', &v, err, sizeof err), 0);
  CHECK_TRUE(v == 2048);
  CHECK_EQ_INT(sbx_parse_unit("3 furlongs", 't', &v, err, sizeof err), -1);
  CHECK_CONTAINS(err, "unknown unit 'furlongs'");
  CHECK_EQ_INT(sbx_parse_unit("-5GB/s", 'b', &v, err, sizeof err), -1);
  CHECK_CONTAINS(err, "negative");
  CHECK_EQ_INT(sbx_parse_unit("fast", 'b', &v, err, sizeof err), -1);
  CHECK_CONTAINS(err, "not a bandwidth");
}

TEST_MAIN(TEST(endless_loop_stops_with_instruction_budget), TEST(pcall_cannot_swallow_the_instruction_budget),
          TEST(memory_bomb_stops_at_the_cap),
          TEST(files_processes_and_bytecode_are_denied), TEST(finalizers_are_refused_since_no_limit_reaches_them),
          TEST(each_script_gets_a_fresh_environment), TEST(require_loads_only_from_the_library_folder),
          TEST(errors_name_file_and_line), TEST(units_parse_with_their_scale))
