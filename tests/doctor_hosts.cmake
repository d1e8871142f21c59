# chorus doctor across hosts (network namespaces of scripts/testbed, root):
# pairs within their prediction, one host's link far below it, a rank that
# never joins. Each uses a testbed of its own; they run alone so that no
# other test's traffic takes the CPU the measured links need.
function(doctor_hosts_test name mode)
  add_test(NAME ${name}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/doctor_hosts.sh $<TARGET_FILE:chorus_cli> ${mode})
  set_tests_properties(${name} PROPERTIES LABELS "integration;netns" SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
endfunction()
doctor_hosts_test(doctor_hosts_pairs_within_prediction match)
doctor_hosts_test(doctor_hosts_slow_link_named slow)
doctor_hosts_test(doctor_hosts_missing_peer_named missing)
