# Fuzzing (tests/fuzz): four targets -- the bootstrap's messages, the socket
# transport's framing, the topology loader and the algorithm loader. Every
# build replays the seed corpus and the kept crash inputs through each
# target's entry function (replay_main.c), label "fuzz"; with CHORUS_FUZZ=ON
# (clang) the libFuzzer binaries fuzz_<target> are built too (scripts/fuzz
# runs them). Also the hostile-client test of the bootstrap.
set(fuzz_dir ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(fuzz_libs_bootstrap chorus_static)
set(fuzz_libs_sockframe chorus_static)
set(fuzz_libs_algo chorus_plan)
set(fuzz_targets bootstrap sockframe algo)
if(TARGET chorus_cmds)
  # the loader, and the views (cli/topo_view.c) it also exercises
  set(fuzz_libs_topo chorus_cmds)
  list(APPEND fuzz_targets topo)
endif()
set(fuzz_includes ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/engine/transport ${PROJECT_SOURCE_DIR}/plan
  ${PROJECT_SOURCE_DIR}/sim ${fuzz_dir})

# Seeds: the binary corpus for the wire formats; the shipped scripts
# themselves for the two Lua loaders (no copies to drift).
set(fuzz_seeds_bootstrap ${fuzz_dir}/corpus/bootstrap)
set(fuzz_seeds_sockframe ${fuzz_dir}/corpus/sockframe)
set(fuzz_seeds_algo ${PROJECT_SOURCE_DIR}/algos)
set(fuzz_seeds_topo ${PROJECT_SOURCE_DIR}/topologies)
foreach(t ${fuzz_targets})
  add_executable(fuzz_replay_${t} ${fuzz_dir}/fuzz_${t}.c ${fuzz_dir}/replay_main.c)
  target_include_directories(fuzz_replay_${t} PRIVATE ${fuzz_includes})
  target_link_libraries(fuzz_replay_${t} PRIVATE ${fuzz_libs_${t}})
  add_test(NAME fuzz_regress_${t} COMMAND fuzz_replay_${t} ${fuzz_seeds_${t}} ${fuzz_dir}/regress/${t})
  set_tests_properties(fuzz_regress_${t} PROPERTIES LABELS "fuzz;unit" TIMEOUT 600
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
  if(CHORUS_FUZZ)
    add_executable(fuzz_${t} ${fuzz_dir}/fuzz_${t}.c)
    target_include_directories(fuzz_${t} PRIVATE ${fuzz_includes})
    target_link_libraries(fuzz_${t} PRIVATE ${fuzz_libs_${t}})
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()

# Writes the binary seeds of tests/fuzz/corpus (run by hand when a wire
# layout changes: fuzz_seeds DIR).
add_executable(fuzz_seeds ${fuzz_dir}/gen_seeds.c)
target_include_directories(fuzz_seeds PRIVATE ${fuzz_includes})
target_link_libraries(fuzz_seeds PRIVATE chorus_static)

# Raw TCP clients without the secret, of another version, truncated,
# oversized or garbage, against the root and the ranks of a forming
# communicator: each refused with a log line, the communicator unharmed.
chorus_add_unit_test(test_hostile SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_hostile.c LIBS chorus_static
  LABELS unit;integration;fuzz)
target_include_directories(test_hostile PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan)
set_tests_properties(test_hostile PROPERTIES TIMEOUT 120)

# ThreadSanitizer (scripts/test builds build-tsan with CHORUS_TSAN=ON and runs
# the label "tsan"): the engine tests whose ranks are threads, one ctest
# entry per test function (the forked-process ones are left out: their
# surviving ranks _exit on purpose without destroying the communicator, which
# TSan reports as leaked threads), the slot ring, the hostile clients, and
# chorus perf with ranks as threads for each collective on a short sweep.
# CHORUS_TIMEOUT is longer than the tests' own 4 s: TSan slows ranks 5-15x.
set_property(TEST test_shm test_hostile APPEND PROPERTY LABELS tsan)
if(CHORUS_TSAN)
  foreach(bin test_engine test_sock)
    foreach(t allreduce_threads_odd_counts_unaligned_in_place group_lets_one_thread_drive_every_rank
              send_recv_ring_exchange_in_a_group streams_run_calls_in_order_asynchronously
              mismatched_calls_fail_on_every_rank bootstrap_refuses_a_wrong_secret bad_arguments_name_the_problem)
      # Mismatched calls over sockets end at the timeout (three of them): a shorter one.
      set(timeout 30)
      if(t STREQUAL mismatched_calls_fail_on_every_rank)
        set(timeout 8)
      endif()
      add_test(NAME tsan_${bin}_${t} COMMAND ${bin} ${t})
      # The runner's closing line: a test name that no longer exists runs nothing and fails here.
      set_tests_properties(tsan_${bin}_${t} PROPERTIES LABELS "tsan" TIMEOUT 600
        PASS_REGULAR_EXPRESSION "1 passed, 0 failed"
        ENVIRONMENT "CHORUS_TIMEOUT=${timeout};CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")
    endforeach()
  endforeach()
endif()
foreach(case "allreduce;ring" "allreduce;tree" "allreduce;rhd" "broadcast;tree" "reduce;ring" "allgather;direct"
             "reducescatter;ring" "alltoall;direct")
  list(GET case 0 coll)
  list(GET case 1 algo)
  add_test(NAME perf_threads_${coll}_${algo}
    COMMAND $<TARGET_FILE:chorus_cli> perf ${coll} -n 4 --threads -a ${algo} -d float -b 8 -e 256K -f 8 -w 1 -i 2)
  # chorus perf exits non-zero on any wrong element.
  set_tests_properties(perf_threads_${coll}_${algo} PROPERTIES LABELS "integration;tsan" TIMEOUT 300
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")
endforeach()
