# Tests of algos/: every shipped algorithm is proved by the verifier for
# every collective it implements, over 1..64 ranks on 1, 2 and 4 nodes
# (uneven where the rank count does not divide) and 3 ranks per node, every
# root of the rooted collectives, on 1 and 2 channels; and every broken
# script in tests/bad/ must fail with the message its first line names.

set(ALGOS_SHAPES --ranks 1-64 --nodes 1,2,4 --ppn 3 --channels 1,2)

# algos_check(ALGO COLLECTIVE [--opt k=v]): one ctest per (algorithm,
# collective, options); it must exit 0 having verified at least one plan.
function(algos_check algo coll)
  set(name algo_${algo}_${coll})
  set(extra)
  if(ARGN)
    list(GET ARGN 1 opt)
    string(REPLACE "=" "_" suffix "${opt}")
    set(name ${name}_${suffix})
    set(extra ${ARGN})
  endif()
  chorus_add_cli_test(${name} LABELS algos
    REGEX "ok +${coll} +${algo}: [1-9][0-9]* plans verified"
    COMMAND check ${algo} --collective ${coll} ${ALGOS_SHAPES} ${extra})
endfunction()

foreach(coll allreduce allgather reducescatter broadcast reduce)
  algos_check(ring ${coll})
endforeach()
foreach(coll allreduce broadcast reduce)
  algos_check(tree ${coll})
endforeach()
algos_check(hybrid allreduce --opt inter=ring)
algos_check(hybrid allreduce --opt inter=tree)
algos_check(nccltree allreduce)
algos_check(nccltree allreduce --opt depth=1)
algos_check(rd allreduce)
algos_check(rhd allreduce)
algos_check(direct alltoall)
algos_check(direct allgather)
algos_check(nvls allreduce)
algos_check(nvlstree allreduce)
algos_check(collnet allreduce)
algos_check(bruck allgather)
algos_check(bruck reducescatter)
# bruck sends up to 8 blocks of a step before it receives one (its window):
# proved only where each connection holds that many chunks; under the
# default two the verifier finds the deadlock.
chorus_add_cli_test(bruck_needs_its_window LABELS algos;bad RC 1
  REGEX "deadlock: .*a send waits while its connection holds 2 chunks not yet received"
  COMMAND check bruck --collective allgather --ranks 8 --slots 2)
# bruck runs on the engine too: chorus perf checks every element against its
# reference and exits non-zero on a wrong one (odd rank counts, counts 0, 1
# and odd ones, a reduction op other than sum).
chorus_add_cli_test(engine_bruck_allgather LABELS engine REGEX "bruck/1"
  COMMAND perf allgather -n 5 -a bruck -d int32 -b 1 -e 161K -f 11 -w 0 -i 1)
chorus_add_cli_test(engine_bruck_reducescatter LABELS engine REGEX "bruck/1"
  COMMAND perf reducescatter -n 7 -a bruck -d half -o avg -b 1 -e 161K -f 11 -w 0 -i 1)
# With 17 and 18 ranks a step moves 8 blocks (window 8): on 128 KiB of
# slots (16 KiB steps) every chunk is one step, and a rank's piece several.
chorus_add_cli_test(engine_bruck_window_allgather LABELS engine REGEX "371280 .* bruck/1"
  COMMAND perf allgather -n 17 --threads -a bruck -d int32 -b 1 -e 3M -f 13 -w 0 -i 1)
chorus_add_cli_test(engine_bruck_window_reducescatter LABELS engine REGEX "371232 .* bruck/1"
  COMMAND perf reducescatter -n 18 --threads -a bruck -d float -o max -b 1 -e 3M -f 13 -w 0 -i 1)
set_tests_properties(engine_bruck_window_allgather engine_bruck_window_reducescatter PROPERTIES APPEND PROPERTY
  ENVIRONMENT "CHORUS_BUFFSIZE=131072")

# Hybrid on the shapes where it is most often declined elsewhere: one rank
# per node, and several ranks on many nodes.
chorus_add_cli_test(algo_hybrid_allreduce_rails LABELS algos
  REGEX "ok +allreduce +hybrid: [1-9][0-9]* plans verified"
  COMMAND check hybrid --ranks 1-64 --ppn 1,2,4,8 --channels 1,3)

# A broken script's first line is "-- expect: ERE", its optional second line
# "-- args: ..." the check's arguments. The check must fail, and its output
# (stdout and stderr) must match the ERE.
set(ALGOS_EXPECT_FAIL [=[
f=$2
re=$(sed -n '1s/^-- expect: //p' "$f")
if [ -z "$re" ]; then echo "$f: the first line must be '-- expect: REGEX'"; exit 1; fi
args=$(sed -n '2s/^-- args: //p' "$f")
out=$("$1" check "$f" $args 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then echo "expected chorus check to fail; it exited 0"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then echo "the output does not match: $re"; exit 1; fi
]=])

file(GLOB ALGOS_BAD_SCRIPTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bad/*.lua)
# Broken topology files (bad/topo_*.lua) are the simulator's: tests/sim.cmake runs them.
list(FILTER ALGOS_BAD_SCRIPTS EXCLUDE REGEX "/topo_[^/]*\\.lua$")
foreach(script ${ALGOS_BAD_SCRIPTS})
  get_filename_component(stem ${script} NAME_WE)
  add_test(NAME bad_script_${stem} COMMAND sh -c "${ALGOS_EXPECT_FAIL}" sh $<TARGET_FILE:chorus_cli> ${script})
  # A time limit: some of these scripts hang the planner when a limit fails.
  set_tests_properties(bad_script_${stem} PROPERTIES LABELS bad TIMEOUT 120
    ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos")
endforeach()
