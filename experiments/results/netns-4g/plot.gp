# gnuplot script written by chorus exp for netns-4g: busbw (measured: filled points, solid, with the
# interquartile range; predicted: open points, dashed; one colour per run) per group of runs, and
# for a group with measured runs the error against size.

set terminal pngcairo size 1000,600
set output 'group1-busbw.png'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set xrange [2926:23488102]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'tree measured', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'tree predicted', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 3 dt 1 pt 7 ps 1.2 title 'hybrid measured', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 4 dt 1 pt 7 ps 1.2 title 'rd measured', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'rd predicted', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 5 dt 1 pt 7 ps 1.2 title 'rhd measured', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 5 dt 2 pt 6 ps 1.5 title 'rhd predicted'

set terminal svg dynamic size 1000,600
set output 'group1-busbw.svg'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set xrange [2926:23488102]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'tree measured', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'tree predicted', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 3 dt 1 pt 7 ps 1.2 title 'hybrid measured', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 4 dt 1 pt 7 ps 1.2 title 'rd measured', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'rd predicted', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2:5:6 with yerrorlines lt 5 dt 1 pt 7 ps 1.2 title 'rhd measured', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 5 dt 2 pt 6 ps 1.5 title 'rhd predicted'

set terminal pngcairo size 1000,600
set output 'group1-error.png'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set xrange [2926:23488102]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 2 pt 7 title 'tree', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 3 pt 9 title 'hybrid', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 4 pt 11 title 'rd', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 5 pt 5 title 'rhd'

set terminal svg dynamic size 1000,600
set output 'group1-error.svg'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set xrange [2926:23488102]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 2 pt 7 title 'tree', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 3 pt 9 title 'hybrid', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 4 pt 11 title 'rd', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 5 pt 5 title 'rhd'
