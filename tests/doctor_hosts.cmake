# chorus doctor across hosts (network namespaces of scripts/testbed, root),
# started by the testbed's launcher or by the doctor itself through a remote
# shell (--hosts LIST --rsh 'ip netns exec'): pairs within their prediction,
# one host's link far below it, one host's small messages far above the
# expected latency, a rank that never joins, an unknown host, a host whose
# remote shell never returns. Each uses a testbed of its own; they run alone
# so that no other test's traffic takes the CPU the measured links need.
function(doctor_hosts_test name mode how)
  add_test(NAME ${name}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/doctor_hosts.sh $<TARGET_FILE:chorus_cli> ${mode} ${how})
  set_tests_properties(${name} PROPERTIES LABELS "integration;netns" SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
endfunction()
doctor_hosts_test(doctor_hosts_pairs_within_prediction match launcher)
doctor_hosts_test(doctor_hosts_slow_link_named slow launcher)
doctor_hosts_test(doctor_hosts_high_latency_named latency launcher)
doctor_hosts_test(doctor_hosts_missing_peer_named missing launcher)
doctor_hosts_test(doctor_rsh_hosts_all_fine match rsh)
doctor_hosts_test(doctor_rsh_slow_link_named slow rsh)
doctor_hosts_test(doctor_rsh_unknown_host_named unknown rsh)
doctor_hosts_test(doctor_rsh_stalled_host_killed stall rsh)
