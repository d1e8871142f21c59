# Tests of plan/: the sandbox, the plan IR, the planner and its cache, and
# the command's golden outputs.
chorus_add_unit_test(test_sandbox SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sandbox.c LIBS chorus_plan)
chorus_add_unit_test(test_plan SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_plan.c LIBS chorus_plan)
chorus_add_unit_test(test_planner SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_planner.c LIBS chorus_plan)

# The command's argument errors name the argument.
chorus_add_cli_test(cli_check_bad_ranks LABELS unit;bad RC 2 REGEX "--ranks: '1-x' is not a rank range"
  COMMAND check ring --ranks 1-x)
chorus_add_cli_test(cli_unknown_algorithm LABELS unit;bad RC 1 REGEX "unknown algorithm 'nosuch'"
  COMMAND check nosuch)
chorus_add_cli_test(cli_unknown_subcommand LABELS unit;bad RC 2 REGEX "unknown subcommand 'frobnicate'"
  COMMAND frobnicate)
chorus_add_cli_test(cli_plan_needs_ranks LABELS unit;bad RC 2 REGEX "-n: give the number of ranks"
  COMMAND plan ring)
chorus_add_cli_test(cli_help_lists_subcommands LABELS unit REGEX "check +prove an algorithm"
  COMMAND help)
