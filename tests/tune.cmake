# Tests of the tuner's settings (engine/tune.c): CHORUS_TUNING_FILE pins and
# their precedence, each malformed tuning file named by file:line at
# communicator creation, CHORUS_PROTO lists, and the hwloc-detected local
# topology the model predicts on.

# tune_test(NAME RC REGEX [ENV VAR=value...] ARGS chorus-args...): env ... chorus ARGS,
# through expect.cmake: exit status and output both checked.
function(tune_test name rc regex)
  cmake_parse_arguments(T "" "" "ENV;ARGS" ${ARGN})
  list(JOIN T_ENV "@@" envs)
  list(JOIN T_ARGS "@@" args)
  set(all "${envs}@@$<TARGET_FILE:chorus_cli>@@${args}")
  string(REGEX REPLACE "^@@" "" all "${all}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DPROG=/usr/bin/env "-DARGS=${all}" -DRC=${rc} "-DREGEX=${regex}"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS "integration" TIMEOUT 120
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
endfunction()

set(tune_dir ${CMAKE_CURRENT_SOURCE_DIR}/tune)
set(tune_perf perf allreduce -n 2 -w 0 -i 1)

# A pin is honoured: the perf row's last column shows what ran.
tune_test(tune_file_pin_honoured 0 " 4096 .* tree/1\n.* 1048576 .* ring/2\n"
  ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt ARGS ${tune_perf} -b 4K -e 1M -f 256)
tune_test(tune_file_pin_with_rules 0 " tree/1\n" ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt CHORUS_TUNER=rules
  ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_file_pin_leaves_channels_to_tuner 0 " 4096 .* ring/[12]\n"
  ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt ARGS perf broadcast -n 2 -w 0 -i 1 -b 4K -e 4K)
tune_test(tune_file_pin_logged 0 "TUNE allreduce of 4096 bytes: tree on 1 channel, pinned by [^ ]*/pins.txt:2"
  ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=TUNE ARGS ${tune_perf} -b 4K -e 4K)
# Explicit settings beat the file.
tune_test(tune_file_loses_to_chorus_algo 0 " ring/1\n" ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt CHORUS_ALGO=ring
  ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_file_loses_to_chorus_algo_list 0 " (rd|ring|hybrid|rhd|direct)/[12]\n"
  ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt CHORUS_ALGO=^tree ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_file_loses_to_chorus_nchannels 0 " tree/2\n"
  ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt CHORUS_NCHANNELS=2 ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_file_loses_to_perf_algo 0 " rd/1\n" ENV CHORUS_TUNING_FILE=${tune_dir}/pins.txt
  ARGS ${tune_perf} -b 4K -e 4K -a rd)

# A bad file fails communicator creation, naming the file and line.
foreach(case
    "collective|bad_collective.txt:3: unknown collective 'allsum'"
    "size|bad_size.txt:1: bad size range '0-32Q'"
    "range|bad_range.txt:2: bad size range '64K-4K'"
    "algorithm|bad_algorithm.txt:3: unknown algorithm 'nosuch'"
    "channels|bad_channels.txt:1: bad channel count '0'"
    "overlap|bad_overlap.txt:3: allreduce 16K-1M overlaps line 1"
    "fields|bad_fields.txt:1: a line is 'COLLECTIVE SIZES ALGORITHM \\[CHANNELS\\]'")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 what)
  list(GET parts 1 msg)
  string(REGEX REPLACE ":.*" "" file "${msg}")
  tune_test(tune_file_bad_${what} 1 "invalid argument: tuning file [^ ]*/${msg}"
    ENV CHORUS_TUNING_FILE=${tune_dir}/${file} ARGS ${tune_perf} -b 4K -e 4K)
endforeach()
tune_test(tune_file_missing 1 "CHORUS_TUNING_FILE=/nonexistent/tune.txt: cannot open it"
  ENV CHORUS_TUNING_FILE=/nonexistent/tune.txt ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_file_bad_in_doctor 1 "CHORUS_TUNING_FILE .*PROBLEM: tuning file [^ ]*/bad_algorithm.txt:3: unknown algorithm"
  ENV CHORUS_TUNING_FILE=${tune_dir}/bad_algorithm.txt ARGS doctor --no-selftest)

# CHORUS_PROTO: lists like CHORUS_ALGO's, names the simulator knows, and only what the CPU engine implements.
tune_test(tune_proto_ll_rejected 1 "CHORUS_PROTO=ll: the CPU engine implements simple only"
  ENV CHORUS_PROTO=ll ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_proto_exclusion_list 0 "Out of bounds values : 0 OK" ENV CHORUS_PROTO=^ll,ll128
  ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_proto_list_with_simple 0 "Out of bounds values : 0 OK.*cost model: [^\n]*protocol simple"
  ENV CHORUS_PROTO=LL,simple CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=TUNE ARGS ${tune_perf} -b 4K -e 4K)
tune_test(tune_proto_unknown 1 "CHORUS_PROTO=simple,ll256: unknown protocol 'll256' \\(simple, LL, LL128"
  ENV CHORUS_PROTO=simple,ll256 ARGS ${tune_perf} -b 4K -e 4K)

# The local topology from hwloc; CHORUS_TOPO wins.
add_test(NAME tune_hwloc_topology COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/tune_hwloc.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(tune_hwloc_topology PROPERTIES LABELS "integration" TIMEOUT 120 SKIP_RETURN_CODE 77
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
