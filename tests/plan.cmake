# Tests of plan/: the sandbox, the plan IR, the planner and its cache, and
# the command's golden outputs.
chorus_add_unit_test(test_sandbox SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sandbox.c LIBS chorus_plan)
chorus_add_unit_test(test_pattern SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_pattern.c LIBS chorus_plan)
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
# Algorithm options: a misspelt name (read by no rank or channel), an item
# that is not NAME=VALUE, a name given twice, --opt given twice: each an
# error that names it, never a plan that silently ignores it.
chorus_add_cli_test(cli_opt_not_read LABELS unit;bad RC 1
  REGEX "algorithm nccltree does not read option 'dpeth' for this call \\(the options it reads: depth"
  COMMAND check nccltree -n 16 --nodes 2 --opt dpeth=8)
chorus_add_cli_test(cli_opt_not_name_value LABELS unit;bad RC 1 REGEX "option 'depth8' is not NAME=VALUE"
  COMMAND check nccltree -n 16 --nodes 2 --opt depth8)
chorus_add_cli_test(cli_opt_given_twice LABELS unit;bad RC 1 REGEX "option 'depth' is given twice"
  COMMAND check nccltree -n 16 --nodes 2 --opt depth=2,depth=3)
chorus_add_cli_test(cli_opt_flag_twice LABELS unit;bad RC 2 REGEX "--opt is given twice"
  COMMAND plan nccltree -n 16 --nodes 2 --opt depth=2 --opt ahead=0)
chorus_add_cli_test(sim_opt_flag_twice LABELS unit;bad RC 2 REGEX "--opt is given twice"
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2 -a nccltree --opt depth=2 --opt ahead=0 -b 1M -e 1M)
# A hub's program is --rank nranks + i; past the hubs, the range is named.
chorus_add_cli_test(cli_plan_hub_program LABELS unit REGEX "hub 1 \\(participant 3\\) channel 0: 16 ops"
  COMMAND plan nvls -n 2 --rank 3)
chorus_add_cli_test(cli_plan_past_the_hubs LABELS unit;bad RC 2 REGEX "--rank 4 out of range \\(nranks 2, then hubs 2-3\\)"
  COMMAND plan nvls -n 2 --rank 4)
chorus_add_cli_test(cli_help_lists_subcommands LABELS unit REGEX "check +prove an algorithm"
  COMMAND help)

# Golden outputs: the text a person reads must not change by accident.
chorus_add_cli_test(golden_plan_ring_4_rank1 LABELS golden GOLDEN plan_ring_4_rank1.txt
  COMMAND plan ring -n 4 --rank 1)
chorus_add_cli_test(golden_plan_hybrid_8_2nodes LABELS golden GOLDEN plan_hybrid_8_2nodes_rank5.txt
  COMMAND plan hybrid -n 8 --nodes 2 --rank 5 --opt inter=tree)
chorus_add_cli_test(golden_explain_ring_4 LABELS golden GOLDEN explain_ring_4.txt
  COMMAND explain ring -n 4)
chorus_add_cli_test(golden_explain_tree_4 LABELS golden GOLDEN explain_tree_4.txt
  COMMAND explain tree -n 4)
chorus_add_cli_test(golden_explain_broadcast_5 LABELS golden GOLDEN explain_tree_broadcast_5_root2.txt
  COMMAND explain tree -n 5 --collective broadcast --root 2)
# check exits non-zero and names the fault for a broken plan, 0 for shipped ones.
chorus_add_cli_test(check_rhd_1_to_33 LABELS unit REGEX "ok   allreduce +rhd: 33 plans verified"
  COMMAND check rhd --ranks 1-33)

# The floors (DEVELOPERS.md): every include within its floor, and the check
# catches planted breaches.
add_test(NAME layering COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/unit/layering.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(layering PROPERTIES LABELS unit)
