# Tests of `chorus calibrate` and cli/fit: the fits on synthetic data
# (unit), the command end to end on this host and across two network
# namespaces (integration), and its argument errors (bad).
chorus_add_unit_test(test_fit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_fit.c LIBS chorus_cmds)

add_test(NAME calibrate_local
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/calibrate_local.sh $<TARGET_FILE:chorus_cli>)
# A measurement: alone (RUN_SERIAL), and not under ASan, where a loaded CI run
# twice measured ping-pong times that did not grow with size (the fit then
# refuses, rightly). The gcc suite runs it; the fit itself is test_fit's.
set_tests_properties(calibrate_local PROPERTIES LABELS "integration;nosan" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")

add_test(NAME calibrate_netns
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/calibrate_netns.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(calibrate_netns PROPERTIES LABELS "integration;netns" SKIP_RETURN_CODE 77 TIMEOUT 120
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")

chorus_add_cli_test(calibrate_bad_sizes LABELS unit;bad RC 2 REGEX "--sizes 'garbage': expected MIN:MAX"
  COMMAND calibrate --sizes garbage)
chorus_add_cli_test(calibrate_bad_sizes_order LABELS unit;bad RC 2 REGEX "--sizes 64M:8: the smallest size"
  COMMAND calibrate --sizes 64M:8)
chorus_add_cli_test(calibrate_bad_ranks LABELS unit;bad RC 2 REGEX "-n 0: give 2 to"
  COMMAND calibrate -n 0)
chorus_add_cli_test(calibrate_bad_repeats LABELS unit;bad RC 2 REGEX "--repeats 1: give 2 to 1000"
  COMMAND calibrate --repeats 1)
chorus_add_cli_test(calibrate_missing_topo LABELS unit;bad RC 2 REGEX "--topo /nonexistent/base.lua: no such topology"
  COMMAND calibrate --topo /nonexistent/base.lua)
chorus_add_cli_test(calibrate_help LABELS unit REGEX "usage: chorus calibrate" COMMAND calibrate --help)
