# gnuplot script written by chorus exp for whatif: busbw (measured solid, predicted dashed, one
# colour per algorithm) and error against size, one pair of plots per group of runs.

set terminal png size 900,560
set output 'group1-busbw.png'
set title 'whatif allreduce, 8 ranks, nodes=1,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal svg dynamic size 900,560
set output 'group1-busbw.svg'
set title 'whatif allreduce, 8 ranks, nodes=1,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal png size 900,560
set output 'group2-busbw.png'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal svg dynamic size 900,560
set output 'group2-busbw.svg'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal png size 900,560
set output 'group3-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal svg dynamic size 900,560
set output 'group3-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal png size 900,560
set output 'group4-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group4-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group5-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group5-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group6-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group6-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group7-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group7-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=1'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group8-busbw.png'
set title 'whatif allreduce, 8 ranks, nodes=1,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8-nodes_1_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n8-nodes_1_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n8-nodes_1_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal svg dynamic size 900,560
set output 'group8-busbw.svg'
set title 'whatif allreduce, 8 ranks, nodes=1,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8-nodes_1_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n8-nodes_1_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n8-nodes_1_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal png size 900,560
set output 'group9-busbw.png'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal svg dynamic size 900,560
set output 'group9-busbw.svg'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal png size 900,560
set output 'group10-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal svg dynamic size 900,560
set output 'group10-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted', 'raw/allreduce-tree-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 title 'tree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 title 'hybrid predicted'

set terminal png size 900,560
set output 'group11-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group11-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group12-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group12-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group13-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group13-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal png size 900,560
set output 'group14-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'

set terminal svg dynamic size 900,560
set output 'group14-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring predicted'
