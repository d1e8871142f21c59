# Tests of sim/: the topology loader and router, the max-min network and the
# event replay against closed forms, the analytic mode, broken topology
# files, and the commands' golden outputs.
chorus_add_unit_test(test_topo SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_topo.c LIBS chorus_sim)
chorus_add_unit_test(test_sim SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sim.c LIBS chorus_sim)

# Each broken description is caught with its file, line and reason.
set(bad ${CMAKE_CURRENT_SOURCE_DIR}/bad)
chorus_add_cli_test(topo_bad_unknown_unit LABELS unit;bad RC 1
  REGEX "topo_unknown_unit.lua:4: link a - sw: bw: '400Gbit/s': unknown unit 'Gbit/s'"
  COMMAND topo check ${bad}/topo_unknown_unit.lua)
chorus_add_cli_test(topo_bad_missing_device LABELS unit;bad RC 1
  REGEX "topo_missing_device.lua:5: link b - sw: no device named 'b' is declared"
  COMMAND topo check ${bad}/topo_missing_device.lua)
chorus_add_cli_test(topo_bad_unreachable_rank LABELS unit;bad RC 1
  REGEX "topo_unreachable.lua:7: rank 1 \\(on b\\) cannot reach rank 0"
  COMMAND topo check ${bad}/topo_unreachable.lua)
chorus_add_cli_test(topo_bad_duplicate_name LABELS unit;bad RC 1
  REGEX "topo_duplicate.lua:4: device a: duplicate name \\(first declared at [^ ]*topo_duplicate.lua:2\\)"
  COMMAND topo check ${bad}/topo_duplicate.lua)
chorus_add_cli_test(topo_bad_negative_bandwidth LABELS unit;bad RC 1
  REGEX "topo_negative_bw.lua:4: link a - sw: bw: '-25GB/s': a bandwidth cannot be negative"
  COMMAND topo check ${bad}/topo_negative_bw.lua)
chorus_add_cli_test(topo_bad_memory_unknown LABELS unit;bad RC 1
  REGEX "topo_mem_unknown.lua:2: device c0: mem = 'dram': no such device is declared before it"
  COMMAND topo check ${bad}/topo_mem_unknown.lua)
chorus_add_cli_test(topo_bad_memory_without_bandwidth LABELS unit;bad RC 1
  REGEX "topo_mem_no_bw.lua:3: device c0: mem = 'numa0': that device has no mem_bw \\(declared at [^ ]*topo_mem_no_bw.lua:2\\)"
  COMMAND topo check ${bad}/topo_mem_no_bw.lua)
chorus_add_cli_test(topo_bad_local_copy_without_memory LABELS unit;bad RC 1
  REGEX "topo_local_copy_no_mem.lua:3: device c0: copy_local_bw is a rate of the memory model \\(a copy between a rank's own buffers\\): give mem too"
  COMMAND topo check ${bad}/topo_local_copy_no_mem.lua)
chorus_add_cli_test(topo_bad_forward_bw_endpoint LABELS unit;bad RC 1
  REGEX "topo_forward_bw_endpoint.lua:2: device g0: forward_bw is what routes through a device share, and no route passes through a gpu"
  COMMAND topo check ${bad}/topo_forward_bw_endpoint.lua)
chorus_add_cli_test(topo_bad_hub_not_a_switch LABELS unit;bad RC 1
  REGEX "topo_hub_not_switch.lua:4: hub 0 is g0, a gpu; a hub is a switch that reduces \\(kind nvswitch or switch\\)"
  COMMAND topo check ${bad}/topo_hub_not_switch.lua)
chorus_add_cli_test(topo_bad_size_latency LABELS unit;bad RC 1
  REGEX "topo_size_latency.lua:5: protocol simple: latency_by_size: sizes must grow \\('2KiB' after 4096 B\\)"
  COMMAND topo check ${bad}/topo_size_latency.lua)
chorus_add_cli_test(topo_bad_routing LABELS unit;bad RC 1
  REGEX "fat-tree.lua:[0-9]+: routing 'adaptive': ecmp \\(a switch hashes each flow"
  COMMAND topo check fat-tree --set routing=adaptive)
chorus_add_cli_test(topo_bad_set_parameter LABELS unit;bad RC 1
  REGEX "--set nodse: .*star.lua takes no parameter 'nodse'"
  COMMAND topo check star --set nodse=4)
chorus_add_cli_test(sim_needs_topology LABELS unit;bad RC 2 REGEX "give the cluster with --topo FILE"
  COMMAND sim allreduce)

# A switch that reduces (a hub, plan.h), a closed form: 4 ranks each send
# 64 KiB (one step) to the hub over their own 1 GB/s, 1 us link (66.536 us),
# the hub copies the first and reduces the other three at 1 GB/s (3 x
# 65.536 us), then sends the sum to the 4 ranks at once (66.536 us):
# 329.680 us (tests/topo/hub_star.lua, tests/algos/hub_sum.lua).
chorus_add_cli_test(sim_hub_reduces_in_the_switch LABELS unit REGEX " 329\\.68 "
  COMMAND sim allreduce --topo ${CMAKE_CURRENT_SOURCE_DIR}/topo/hub_star.lua
          -a ${CMAKE_CURRENT_SOURCE_DIR}/algos/hub_sum.lua -c 1 -b 64K -e 64K --steps-per-chunk 1)
# The same under a protocol whose steps cost 10 us of latency and 5 us of
# overhead and whose calls cost 100 us: a hub's steps pay none of it, and
# the call pays hub_latency (7 us) instead of base: 336.68 us.
chorus_add_cli_test(sim_hub_steps_pay_the_hub_latency LABELS unit REGEX " 336\\.68 "
  COMMAND sim allreduce --topo ${CMAKE_CURRENT_SOURCE_DIR}/topo/hub_star.lua
          --set step_lat=10us,overhead=5us,base=100us,hub_latency=7us
          -a ${CMAKE_CURRENT_SOURCE_DIR}/algos/hub_sum.lua -c 1 -b 64K -e 64K --steps-per-chunk 1)
# NVLS runs on Simple alone: a declared protocol without hub_latency refuses
# a plan with hubs, and -p auto leaves it out.
chorus_add_cli_test(sim_nvls_runs_on_simple_alone LABELS unit;bad RC 1
  REGEX "algorithm nvls reduces in a switch \\(hubs\\), which .*dgx-h100.lua runs under no protocol but those that give hub_latency .*, not LL"
  COMMAND sim allreduce --topo dgx-h100 -a nvls -p LL -b 1M -e 1M)
chorus_add_cli_test(sim_nvls_auto_is_simple LABELS unit REGEX "protocol per size \\(-p auto\\): 1048576 simple, 2097152 simple"
  COMMAND sim allreduce --topo dgx-h100 -a nvls -p auto -b 1M -e 2M)
# Rails (plan.h rail_nics): hybrid's local rank l talks across the nodes
# through NIC l on every channel, so one channel of it loads all 8 NICs of
# a DGX host; a ring's channel keeps to its one NIC.
chorus_add_cli_test(sim_rails_keep_to_their_nic LABELS unit REGEX "h0\\.pcie3 -> h0\\.nic7 +51\\.2GB/s +8388608 "
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2 -a hybrid -c 1 -b 64M -e 64M --links=all)
chorus_add_cli_test(sim_ring_channel_keeps_to_one_nic LABELS unit RC 0 REGEX "h0\\.pcie0 -> h0\\.nic0 +51\\.2GB/s +125829120 "
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2 -a ring -c 1 -b 64M -e 64M --links=all)
# CollNet's hubs are the network's switches (SHARP): dgx-cluster has them
# only when asked, and only where a rail is one leaf.
chorus_add_cli_test(sim_collnet_needs_sharp LABELS unit;bad RC 1
  REGEX "algorithm collnet needs 8 hubs in the network .* has 0 \\(dgx-cluster: --set sharp=true\\)"
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2 -a collnet -b 1M -e 1M)
chorus_add_cli_test(sim_sharp_one_leaf_per_rail LABELS unit;bad RC 1
  REGEX "dgx-cluster.lua:[0-9]+: sharp: 40 hosts need 2 leaves per rail"
  COMMAND sim allreduce --topo dgx-cluster --set nodes=40,sharp=true -a collnet -b 1M -e 1M)
chorus_add_cli_test(sim_collnet_through_the_rail_switches LABELS unit
  REGEX "rail7\\.leaf0 -> h1\\.nic7 "
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2,sharp=true -a collnet -c 1 -b 16M -e 16M --links=all)
# NVLS on 8 H100, 16 channels, 8 GiB: within 10 % of the 480 GB/s busbw
# NCCL's maintainers quote (nccl-tests#212; experiments/published); a
# regression guard on the switch's model (432-528 GB/s; 484.46 when
# written).
chorus_add_cli_test(sim_nvls_h100_plateau LABELS unit REGEX " 8589934592 +2147483648 +float +sum +-1 +[0-9.]+ +[0-9.]+ +(4[3-9][0-9]|5[0-2][0-9])\\.[0-9]+ "
  COMMAND sim allreduce --topo dgx-h100 -a nvls -c 16 -b 8G -e 8G)
# NVLS-tree on two 8 x H100 nodes, 1 GiB: ahead of the ring's 360 GB/s, as
# NCCL's model has it on several Hopper nodes from 8-32 MB up
# (shared/NCCL-MODEL.md section 5). A guard on nvlstree.lua's pipeline:
# 420-559 GB/s (465.21 when written); the script with its phases in
# sequence, a round crossing the nodes while NVLink idled, gave 244.68.
chorus_add_cli_test(sim_nvlstree_two_h100_nodes LABELS unit REGEX " 1073741824 +268435456 +float +sum +-1 +[0-9.]+ +[0-9.]+ +(4[2-9][0-9]|5[0-5][0-9])\\.[0-9]+ "
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2 -a nvlstree -b 1G -e 1G)
# NCCL's tree on two 8 x H100 nodes, 1 GiB: ahead of the ring's 360 GB/s,
# as NCCL's is there. A guard on nccltree.lua's order of the two trees
# (leaf first, lib/tree.lua): 380-479 GB/s (404.73 when written); tree 0
# then tree 1 on every node gave 251.26.
chorus_add_cli_test(sim_nccltree_two_h100_nodes LABELS unit REGEX " 1073741824 +268435456 +float +sum +-1 +[0-9.]+ +[0-9.]+ +(3[89][0-9]|4[0-7][0-9])\\.[0-9]+ "
  COMMAND sim allreduce --topo dgx-cluster --set nodes=2 -a nccltree -b 1G -e 1G)
# Bruck's allgather on 64 hosts of one GPU and one NIC, 1 KiB: each step's
# blocks sent 8 ahead of their receives (its window) take about 307 us,
# where one block ahead (a connection's default two chunks) took 668 and
# the ring takes 1221. A guard: 250-399 us.
chorus_add_cli_test(sim_bruck_window LABELS unit REGEX " 1024 +4 +float +none +-1 +(2[5-9][0-9]|3[0-9][0-9])\\.[0-9]+ "
  COMMAND sim allgather --topo dgx-cluster --set nodes=64,gpus=1,nics=1 -a bruck -c 1 -b 1K -e 1K)
chorus_add_cli_test(sim_window_needs_the_slots LABELS unit;bad RC 1
  REGEX "algorithm bruck needs connections that hold 8 chunks \\(its window\\) but --steps 4 holds 4"
  COMMAND sim allgather --topo dgx-cluster --set nodes=64,gpus=1,nics=1 -a bruck -c 1 -b 1K -e 1K --steps 4)
# NVLS needs an NVSwitch that reduces (Hopper and newer): on A100 the
# simulator says so rather than predicting a machine that cannot exist.
chorus_add_cli_test(sim_nvls_needs_a_switch_that_reduces LABELS unit;bad RC 1
  REGEX "algorithm nvls needs 8 hubs \\(a switch that reduces\\) but .*dgx-h100.lua declares 0"
  COMMAND sim allreduce --topo dgx-h100 --set gpu=a100 -a nvls -b 1M -e 1M)
# The engine refuses a plan with a hub, naming the simulator as the place
# to run it.
chorus_add_cli_test(engine_refuses_a_switch_that_reduces LABELS unit;bad RC 1
  REGEX "algorithm nvls reduces in a switch \\(2 hubs\\): the simulator predicts it"
  COMMAND perf allreduce -n 2 -a nvls -b 64K -e 64K -i 1 -w 0)
# A device's step_overhead, a closed form: a 4 MiB ring broadcast on 3 star
# nodes at 1 GB/s, 4 steps of t = 1 MiB / 1 GB/s = 1048.576 us, no latency.
# Without the overhead the steps pipeline: 5t. With step_overhead = t each
# rank moves its own steps: rank 1 spends t on a step, then forwards it and
# waits the t it takes to leave before the next, so its steps leave at 3t,
# 5t, 7t, 9t and rank 2 is done with the last at 10t (where overlapped
# flows would give 7t).
chorus_add_cli_test(sim_step_overhead_none LABELS unit REGEX " 5242\\.88 "
  COMMAND sim broadcast --topo star --set nodes=3,bw=1GB/s,lat=0us -n 3 -a ring -c 1 -b 4M -e 4M --max-chunk 4M
          --steps-per-chunk 4 --buffsize 8M)
chorus_add_cli_test(sim_step_overhead_serial LABELS unit REGEX " 10485\\.76 "
  COMMAND sim broadcast --topo star --set nodes=3,bw=1GB/s,lat=0us,step_overhead=1048.576us -n 3 -a ring -c 1
          -b 4M -e 4M --max-chunk 4M --steps-per-chunk 4 --buffsize 8M)

# A protocol's overhead acts as a device's step_overhead (the serial 10t
# above), and its base adds to every call: Simple with overhead t and base
# 100 us takes 10t + 100 us. star.lua leaves LL and LL128 free of both, at
# 0.5 and 120/128 of the payload per byte: their steps pipeline, 5 x 2t and
# 5t x 128/120 = 5592.41 us; -p auto takes LL128 and says so.
chorus_add_cli_test(sim_protocol_overhead_and_base LABELS unit REGEX " 10585\\.76 "
  COMMAND sim broadcast --topo star --set nodes=3,bw=1GB/s,lat=0us,overhead=1048.576us,base=100us -n 3 -a ring -c 1
          -b 4M -e 4M --max-chunk 4M --steps-per-chunk 4 --buffsize 8M -p simple)
chorus_add_cli_test(sim_protocol_auto_takes_the_fastest LABELS unit
  REGEX " 5592\\.41 .*# protocol per size \\(-p auto\\): 4194304 LL128\n"
  COMMAND sim broadcast --topo star --set nodes=3,bw=1GB/s,lat=0us,overhead=1048.576us,base=100us -n 3 -a ring -c 1
          -b 4M -e 4M --max-chunk 4M --steps-per-chunk 4 --buffsize 8M -p auto)
chorus_add_cli_test(sim_bad_protocol LABELS unit;bad RC 2 REGEX "unknown protocol 'fast' \\(simple, LL, LL128, auto\\)"
  COMMAND sim allreduce --topo star -p fast)

# A step whose route crosses a NIC pays the protocol's net_latency (1 ms)
# instead of its latency (1 us): 64 B between two NIC hosts at 1 GB/s,
# 1000 us + 64 ns.
chorus_add_cli_test(sim_net_latency_through_a_nic LABELS unit REGEX " 1000\\.06 "
  COMMAND sim broadcast --topo ${CMAKE_CURRENT_SOURCE_DIR}/topo/nic_pair.lua -a ring -c 1 -b 64 -e 64)
# A device's forward_bw is shared by every route through it: a 4-node
# ring on a star whose switch passes 40 GB/s gives each of its 4 flows 10
# (the links' 25 unused): busbw 10.
chorus_add_cli_test(sim_switch_shared_by_its_routes LABELS unit REGEX " 10\\.00    N/A"
  COMMAND sim allreduce --topo star --set nodes=4,bw=25GB/s,lat=0us,switch_bw=40GB/s -b 1G -e 1G)
# Without peer-to-peer a PCIe box stages every step in its sockets' memory
# (8 DDR5-4800 channels x 0.8, written and read: 122.9 GB/s through each
# socket): 8 GPUs on two sockets put 5 ring flows through each (3 inside,
# 2 across), 24.6 GB/s each at most; the memory is the bottleneck.
chorus_add_cli_test(sim_pcie_staged_in_host_memory LABELS unit
  REGEX " 24\\.[0-9][0-9]    N/A.*h0.cpu0 \\(routes through it\\) +122\\.9GB/s .* 9[0-9]\\.[0-9] +9[0-9]\\.[0-9]\n"
  COMMAND sim allreduce --topo pcie-8gpu --set gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2 -n 8 -c 8 -b 8G -e 8G --links)

# A two-socket PCIe box without peer-to-peer: the ring crosses the socket
# link once each way, so a link slower than the GPUs' PCIe bounds busbw at
# its rate (16 GB/s; 15.56 less the protocol's per-step overhead and base).
chorus_add_cli_test(sim_pcie_two_sockets LABELS unit REGEX " 15\\.[5-9][0-9]    N/A"
  COMMAND sim allreduce --topo pcie-8gpu --set sockets=2,p2p=false,socket_bw=16GB/s -a ring -c 4 -n 8 -b 1G -e 1G)
chorus_add_cli_test(sim_pcie_bad_sockets LABELS unit;bad RC 1 REGEX "sockets is 1 or 2, not 3"
  COMMAND sim allreduce --topo pcie-8gpu --set sockets=3 -a ring -n 8 -b 1G -e 1G)

# --model analytic replays node 0 for all (plan/fold.h; test_sim holds it
# to the event model): hybrid on 256 DGX hosts in a second, where the event
# model takes minutes; a tree, whose nodes differ, is refused with the reason.
chorus_add_cli_test(sim_analytic_hybrid_256_hosts LABELS unit
  REGEX "2048 ranks on 256 nodes.*model analytic \\(one node for all\\).*\n +268435456 .* 14\\.[0-9][0-9]    N/A"
  COMMAND sim allreduce --topo dgx-cluster --set nodes=256 -a hybrid -b 256M -e 256M --model analytic)
chorus_add_cli_test(sim_analytic_tree_refused LABELS unit;bad RC 1
  REGEX "algorithm nccltree is not the same on every node: op [0-9]+ of rank [0-9]+ channel [0-9]+ .*use --model event"
  COMMAND sim allreduce --topo dgx-cluster --set nodes=4 -a nccltree -b 1M -e 1M --model analytic)
# One node: the fold is the event model itself, channel hand-overs and all.
chorus_add_cli_test(sim_analytic_one_node_is_the_event_model LABELS unit REGEX " 1048576 .* 7\\.99    N/A"
  COMMAND sim allreduce --topo local-cpu --set ranks=4,cores=2,channels=2 -n 4 -c 2 -b 1M -e 1M --model analytic)

# --calls: back-to-back calls, as chorus perf times them (closed form in
# test_sim: back_to_back_calls_overlap_as_the_engine_runs_them).
chorus_add_cli_test(sim_calls_bad LABELS unit;bad RC 2 REGEX "--calls: '0' is not a count of calls \\(1 to 100000\\)"
  COMMAND sim allreduce --topo star -b 1M -e 1M --calls 0)
chorus_add_cli_test(sim_calls_header LABELS unit REGEX "per call, over 40 calls back to back"
  COMMAND sim allreduce --topo star -b 1M -e 1M --calls 40)

# Golden outputs: deterministic tables and views.
chorus_add_cli_test(sim_golden_star_ring_allreduce LABELS unit;golden GOLDEN sim_star_ring_allreduce.txt
  COMMAND sim allreduce --topo star -b 1K -e 64M -f 8)
chorus_add_cli_test(sim_golden_star_analytic LABELS unit;golden GOLDEN sim_star_analytic.txt
  COMMAND sim allreduce --topo star --set nodes=1024 -b 1M -e 256M -f 16 --model analytic)
chorus_add_cli_test(sim_golden_fat_tree_links LABELS unit;golden GOLDEN sim_fat_tree_links.txt
  COMMAND sim allreduce --topo fat-tree --set oversub=2,placement=spread -b 64M -e 64M --links)
chorus_add_cli_test(sim_golden_topo_show_dgx LABELS unit;golden GOLDEN sim_topo_show_dgx.txt
  COMMAND topo show dgx-cluster --set nodes=2 --ranks 16)
chorus_add_cli_test(sim_help LABELS unit REGEX "--model event\\|analytic" COMMAND sim --help)

# The engine's executor and the simulator cut every call into the same
# steps (core/geom.h): geometry_shared.
chorus_add_unit_test(geometry_shared SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_geometry.c LIBS chorus_static chorus_sim)
target_include_directories(geometry_shared PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan)

# chorus topo detect: this machine and an hwloc XML of a GPU box (issue 20).
add_test(NAME topo_detect COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/topo_detect.sh $<TARGET_FILE:chorus_cli>
  ${CMAKE_CURRENT_SOURCE_DIR}/topo/gpu-box.xml)
set_tests_properties(topo_detect PROPERTIES LABELS "integration" TIMEOUT 60
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
