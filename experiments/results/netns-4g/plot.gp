# gnuplot script written by chorus exp for netns-4g: busbw (measured solid, predicted dashed, one
# colour per algorithm) and error against size, one pair of plots per group of runs.

set terminal png size 900,560
set output 'group1-busbw.png'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 1 dt 1 title 'ring measured', 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 2 dt 1 title 'tree measured', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 3 dt 1 title 'hybrid measured', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 4 dt 1 title 'rd measured', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 4 dt 2 title 'rd predicted', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 5 dt 1 title 'rhd measured', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 5 dt 2 title 'rhd predicted'

set terminal svg dynamic size 900,560
set output 'group1-busbw.svg'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 1 dt 1 title 'ring measured', 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 2 dt 1 title 'tree measured', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 3 dt 1 title 'hybrid measured', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 4 dt 1 title 'rd measured', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 4 dt 2 title 'rd predicted', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:2 with linespoints lt 5 dt 1 title 'rhd measured', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:3 with linespoints lt 5 dt 2 title 'rhd predicted'

set terminal png size 900,560
set output 'group1-error.png'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel '(predicted - measured) / measured (%)'
unset logscale y
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 1 title 'ring', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 2 title 'tree', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 3 title 'hybrid', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 4 title 'rd', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 5 title 'rhd'

set terminal svg dynamic size 900,560
set output 'group1-error.svg'
set title 'netns-4g allreduce, 8 ranks, hosts=4,ppn=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel '(predicted - measured) / measured (%)'
unset logscale y
plot 'raw/allreduce-ring-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 1 title 'ring', 'raw/allreduce-tree-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 2 title 'tree', 'raw/allreduce-hybrid-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 3 title 'hybrid', 'raw/allreduce-rd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 4 title 'rd', 'raw/allreduce-rhd-n8-hosts_4_ppn_2_cores_2.dat' using 1:4 with linespoints lt 5 title 'rhd'
