# Tests of engine/: the slot ring and shm transport, the API end to end over
# shm and over sockets, `chorus perf` across the collective x algorithm x type
# x op x ranks matrix (processes and threads), and the multi-host test across
# network namespaces.
chorus_add_unit_test(test_shm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_shm.c LIBS chorus_static)
target_include_directories(test_shm PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan)
chorus_add_unit_test(test_engine SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_engine.c LIBS chorus_static
  LABELS unit;integration)
chorus_add_unit_test(test_sock SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sock.c LIBS chorus_static
  LABELS unit;integration)
set_tests_properties(test_engine test_sock PROPERTIES TIMEOUT 300)
# A broadcast root that only sends fails in the mismatched call itself when
# it waits for its steps to be taken (by default: at its next call).
foreach(t engine sock)
  add_test(NAME confirm_sends_${t} COMMAND test_${t} mismatched_calls_fail_on_every_rank)
  set_tests_properties(confirm_sends_${t} PROPERTIES LABELS "unit;integration" TIMEOUT 120
    ENVIRONMENT "CHORUS_CONFIRM_SENDS=1;CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
endforeach()
# Ranks that disagree on a broadcast's root, or where one passes count 0,
# also with the algorithm forced (the tuner may choose differently by size),
# and with every call agreed on (CHORUS_AGREE=all: a count of 0 after a call
# with data, where the tuner chooses by size).
foreach(t engine sock)
  add_test(NAME lone_mismatch_ring_${t} COMMAND test_${t} rooted_and_empty_mismatches_fail_in_the_call)
  set_tests_properties(lone_mismatch_ring_${t} PROPERTIES LABELS "unit;integration" TIMEOUT 120
    ENVIRONMENT "CHORUS_ALGO=ring;CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
  add_test(NAME lone_mismatch_agree_all_${t} COMMAND test_${t} rooted_and_empty_mismatches_fail_in_the_call)
  set_tests_properties(lone_mismatch_agree_all_${t} PROPERTIES LABELS "unit;integration" TIMEOUT 120
    ENVIRONMENT "CHORUS_AGREE=all;CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
endforeach()
# The socket transport's two ways of moving a step, each alone: its proxy
# threads only; and every step small (8 KiB slots) into socket buffers of a
# few steps, so that the executor's own writes stop part-way and the proxies
# finish them (more than 100 times in this test, counted when it was
# written; smaller socket buffers stall TCP itself, before this change too).
add_test(NAME test_sock_proxies_only COMMAND test_sock)
add_test(NAME test_sock_small_buffers COMMAND test_sock allreduce_threads_odd_counts_unaligned_in_place)
set_tests_properties(test_sock_proxies_only PROPERTIES LABELS "unit;integration" TIMEOUT 300
  ENVIRONMENT "CHORUS_SOCKET_DIRECT=0")
set_tests_properties(test_sock_small_buffers PROPERTIES LABELS "unit;integration" TIMEOUT 300
  ENVIRONMENT "CHORUS_BUFFSIZE=65536;CHORUS_SOCKET_BUFSIZE=32768")

foreach(mode procs threads)
  add_test(NAME perf_matrix_${mode}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/perf_matrix.sh $<TARGET_FILE:chorus_cli> ${mode})
  set_tests_properties(perf_matrix_${mode} PROPERTIES LABELS "integration" TIMEOUT 1800
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")
endforeach()

add_test(NAME netns_two_hosts
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/netns_two_hosts.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(netns_two_hosts PROPERTIES LABELS "integration;netns" SKIP_RETURN_CODE 77 TIMEOUT 300
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")

# Command-line checks: the output must match (a failing run prints it).
function(engine_cli_test name regex)
  add_test(NAME ${name} COMMAND $<TARGET_FILE:chorus_cli> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "unit" PASS_REGULAR_EXPRESSION "${regex}"
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")
endfunction()
engine_cli_test(cli_perf_bad_dtype "'quad' is not a data type" perf allreduce -d quad)
engine_cli_test(cli_perf_unknown_collective "unknown collective 'allsum' \\(one of allreduce broadcast reduce allgather reducescatter alltoall\\)" perf allsum)
engine_cli_test(cli_dash_dash_version "^chorus [0-9]+\\.[0-9]+\\.[0-9]+\n$" --version)
engine_cli_test(cli_doctor_runtime_versions "running with hwloc API [0-9.]+ at run time .*, CUDA (runtime|not built)"
  doctor --no-selftest)
engine_cli_test(cli_perf_zero_ranks "-n: '0' is not a rank count \\(1 to 4096\\)" perf allreduce -n 0)
engine_cli_test(cli_perf_negative_ranks "-n: '-1' is not a rank count" perf allreduce -n -1)
engine_cli_test(cli_perf_size_below_one_element "-b 3 is less than one float: sizes below 4 bytes are calls of 0 elements"
  perf allreduce -b 3 -e 8 -w 0 -i 1)
# --baseline: written, compared, a slower point fails (exit 1), bad files named; --csv to nowhere refused.
add_test(NAME perf_baseline COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/perf_baseline.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(perf_baseline PROPERTIES LABELS "integration" TIMEOUT 120
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
engine_cli_test(cli_perf_one_rank_checks "Out of bounds values : 0 OK" perf allreduce -n 1 -b 8 -e 1K -w 0 -i 1)
engine_cli_test(cli_doctor_lists_settings "CHORUS_BUFFSIZE +4194304" doctor --no-selftest)

# chorus doctor: each deliberate fault is found (exit 1) with its advice.
function(doctor_test name rc regex)
  cmake_parse_arguments(D "" "" "ENV;ARGS" ${ARGN})
  # env VAR=... chorus doctor ARGS, through expect.cmake: exit status and output both checked.
  list(JOIN D_ENV "@@" envs)
  list(JOIN D_ARGS "@@" args)
  set(all "${envs}@@$<TARGET_FILE:chorus_cli>@@doctor@@${args}")
  string(REGEX REPLACE "^@@" "" all "${all}")
  string(REGEX REPLACE "@@$" "" all "${all}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DPROG=/usr/bin/env "-DARGS=${all}" -DRC=${rc} "-DREGEX=${regex}"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS "unit"
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
endfunction()
doctor_test(doctor_wrong_interface 1 "PROBLEM: sockets have no interface: no network interface matches CHORUS_SOCKET_IFNAME='=nosuch0'.*[1-9] problem"
  ENV CHORUS_SOCKET_IFNAME==nosuch0 ARGS --no-selftest)
doctor_test(doctor_unknown_algorithm 1 "PROBLEM: CHORUS_ALGO=nosuch: unknown algorithm 'nosuch'"
  ENV CHORUS_ALGO=nosuch ARGS --no-selftest)
doctor_test(doctor_short_timeout 1 "PROBLEM: CHORUS_TIMEOUT=1 s" ENV CHORUS_TIMEOUT=1 ARGS --no-selftest)
# CHORUS_ALGO lists are valid as the README writes them; a misspelt name in one is not (issue 21).
doctor_test(doctor_topo_missing 1 "PROBLEM: CHORUS_TOPO=/nosuch.lua cannot be loaded" ENV CHORUS_TOPO=/nosuch.lua
  ARGS --no-selftest)
# The single-host self-test predicts with CHORUS_TOPO when it is set (it used the shipped local-cpu).
add_test(NAME doctor_selftest_uses_chorus_topo COMMAND /usr/bin/env CHORUS_TOPO=${PROJECT_SOURCE_DIR}/topologies/local-cpu.lua
  $<TARGET_FILE:chorus_cli> doctor)
set_tests_properties(doctor_selftest_uses_chorus_topo PROPERTIES LABELS "integration" TIMEOUT 180
  PASS_REGULAR_EXPRESSION "against predicted \\(chorus sim --topo [^)]*topologies/local-cpu.lua\\)"
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
doctor_test(doctor_algo_list_is_valid 0 "\n0 problems, [0-9]+ notes?\n" ENV CHORUS_ALGO=ring,tree ARGS --no-selftest)
doctor_test(doctor_algo_exclusion_is_valid 0 "\n0 problems, [0-9]+ notes?\n" ENV CHORUS_ALGO=^rd ARGS --no-selftest)
doctor_test(doctor_algo_list_misspelt 1 "PROBLEM: CHORUS_ALGO=ring,treee: 'treee' is no algorithm in"
  ENV CHORUS_ALGO=ring,treee ARGS --no-selftest)
doctor_test(doctor_nchannels_not_a_number 1 "PROBLEM: CHORUS_NCHANNELS=abc: not a channel count \\(1 to 64"
  ENV CHORUS_NCHANNELS=abc ARGS --no-selftest)
doctor_test(doctor_nchannels_too_many 1 "PROBLEM: CHORUS_NCHANNELS=999: not a channel count"
  ENV CHORUS_NCHANNELS=999 ARGS --no-selftest)
# ... and a run with them fails at once, naming the variable and its value.
foreach(bad "CHORUS_NCHANNELS=abc|CHORUS_NCHANNELS=abc: not a channel count"
            "CHORUS_ALGO=ring,treee|CHORUS_ALGO=ring,treee: 'treee' is no algorithm"
            "CHORUS_AGREE=some|CHORUS_AGREE=some: not one of rooted")
  string(REPLACE "|" ";" parts "${bad}")
  list(GET parts 0 env)
  list(GET parts 1 regex)
  string(REGEX REPLACE "[^A-Za-z]" "_" tname "${env}")
  add_test(NAME perf_bad_setting_${tname} COMMAND ${CMAKE_COMMAND} -DPROG=/usr/bin/env
    "-DARGS=${env}@@$<TARGET_FILE:chorus_cli>@@perf@@allreduce@@-n@@2@@-b@@4K@@-e@@4K@@-w@@0@@-i@@1" -DFAIL=1
    "-DREGEX=${regex}" -P ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect.cmake)
  set_tests_properties(perf_bad_setting_${tname} PROPERTIES LABELS "unit;bad" TIMEOUT 60
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
endforeach()
doctor_test(doctor_bandwidth_below_prediction 1 "PROBLEM: shared memory is [0-9]+% below the prediction"
  ARGS --topo ${CMAKE_CURRENT_SOURCE_DIR}/doctor/too-fast.lua)
doctor_test(doctor_clean_defaults 0 "\n0 problems, [0-9]+ notes?\n" ARGS --no-selftest)
# chorus doctor --hosts without a launcher, through a remote shell that needs no network (tests/doctor/local-rsh;
# the namespace ones are in doctor_hosts.cmake): each host that cannot be used is named, and the doctor exits 1.
set(local_rsh ${CMAKE_CURRENT_SOURCE_DIR}/doctor/local-rsh)
doctor_test(doctor_rsh_shell_missing_named 1
  "PROBLEM: cannot start a command on host a through `nosuchrsh` \\(exit 127: cannot run nosuchrsh: not found.*works by hand.*no host answered"
  ARGS --hosts a,b --rsh nosuchrsh)
doctor_test(doctor_rsh_chorus_missing_named 1
  "PROBLEM: chorus is not at /nonexistent/chorus on host b .*install it at the same path on every host, or give its path there with --chorus PATH"
  ARGS --hosts a,b --rsh ${local_rsh} --chorus /nonexistent/chorus)
doctor_test(doctor_rsh_stalled_shell_named 1
  "a +yes .*PROBLEM: host stall did not answer within 2 s through .*its remote shell was killed.*PROBLEM: only one host answered"
  ENV CHORUS_TIMEOUT=2 ARGS --hosts a,stall --rsh ${local_rsh})
doctor_test(doctor_rsh_bad_host_word 2 "--hosts 'a\\*b' has a character a remote shell would interpret"
  ARGS --hosts a*b --rsh ${local_rsh})

# Hang reports: on a timeout and on SIGUSR1, merged by hang_merge.
chorus_add_unit_test(test_hang SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_hang.c LIBS chorus_cmds chorus_static
  LABELS unit;integration)
target_include_directories(test_hang PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan)
set_tests_properties(test_hang PROPERTIES TIMEOUT 120)

# A link cut mid-transfer on the namespace testbed: an error on both ranks, in time.
add_test(NAME netns_link_cut
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/netns_link_cut.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(netns_link_cut PROPERTIES LABELS "integration;netns" SKIP_RETURN_CODE 77 TIMEOUT 120
  RUN_SERIAL TRUE ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")

# Debug logs: levels, subsystem lists and exclusion, log files, banner, rank and time on each line.
add_test(NAME debug_logs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/debug_logs.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(debug_logs PROPERTIES LABELS "integration" TIMEOUT 120
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")

# The model tuner: its choice is chorus sim's fastest; lists, exclusions, rules, a bad topology, a bad algorithm.
add_test(NAME tuner_model COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/tuner_model.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(tuner_model PROPERTIES LABELS "integration" TIMEOUT 300
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")

# A socket reset mid-transfer (ss -K aborts the job's TCP connections): every rank fails in time, naming a peer.
add_test(NAME sock_reset COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/sock_reset.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(sock_reset PROPERTIES LABELS "integration" SKIP_RETURN_CODE 77 TIMEOUT 120
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")

# A rank lost during set-up (before joining, after init, inside the first connections): survivors fail naming it.
chorus_add_unit_test(test_setup_kill SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_setup_kill.c LIBS chorus_static
  LABELS integration)
set_tests_properties(test_setup_kill PROPERTIES TIMEOUT 180)

# The first INFO line says what is built and usable: the transports and
# whether the CUDA kernels were compiled; no verbs, which Chorus has not (issue 21).
add_test(NAME info_line_names_what_is_built COMMAND ${CMAKE_COMMAND} -DPROG=/usr/bin/env
  "-DARGS=CHORUS_DEBUG=INFO@@$<TARGET_FILE:chorus_cli>@@perf@@allreduce@@-n@@1@@-b@@8@@-e@@8@@-w@@0@@-i@@1"
  "-DREGEX=INFO INIT Chorus [^\n]* sanitize=[A-Za-z]* transports=shm,socket cuda_kernels=[A-Z]+; built with"
  -P ${CMAKE_CURRENT_SOURCE_DIR}/lib/expect.cmake)
set_tests_properties(info_line_names_what_is_built PROPERTIES LABELS "unit" TIMEOUT 60
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")

# Launchers (issue 21): mpirun on one host and across two namespace hosts, the bootstrap id through
# mpirun's PMIx server, a rank of another job refused (root and Open MPI's mpirun, else skipped);
# torchrun-style variables without CHORUS_SECRET say the job is not protected.
add_test(NAME mpirun_netns COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/mpirun_netns.sh $<TARGET_FILE:chorus_cli>
  ${PROJECT_SOURCE_DIR}/scripts/testbed)
set_tests_properties(mpirun_netns PROPERTIES LABELS "integration;netns;nosan" SKIP_RETURN_CODE 77 TIMEOUT 300
  RUN_SERIAL TRUE ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
add_test(NAME srun_netns COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/srun_netns.sh $<TARGET_FILE:chorus_cli>
  ${PROJECT_SOURCE_DIR}/scripts/testbed)
set_tests_properties(srun_netns PROPERTIES LABELS "integration;netns;nosan" SKIP_RETURN_CODE 77 TIMEOUT 300
  RUN_SERIAL TRUE ENVIRONMENT
  "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR};CHORUS_LIBRARY=$<TARGET_FILE:chorus>")
add_test(NAME launcher_secret COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/launcher_secret.sh $<TARGET_FILE:chorus_cli>)
set_tests_properties(launcher_secret PROPERTIES LABELS "integration" TIMEOUT 60
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
# The log: TRACE logs every call, every listed subsystem logs, a filter keeps only what it names;
# with root, an exclusion rule for interfaces (^docker) never leaves loopback the choice.
add_test(NAME log_subsystems COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/log_subsystems.sh
  $<TARGET_FILE:chorus_cli> ${PROJECT_SOURCE_DIR}/scripts/testbed)
set_tests_properties(log_subsystems PROPERTIES LABELS "integration;netns" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
