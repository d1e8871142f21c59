# gnuplot script written by chorus exp for whatif: busbw (measured: filled points, solid, with the
# interquartile range; predicted: open points, dashed; one colour per run) per group of runs, and
# for a group with measured runs the error against size.

set terminal pngcairo size 1000,600
set output 'group1-busbw.png'
set title 'whatif allreduce, 8 ranks, nodes=1,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring/c0 predicted', 'raw/allreduce-nccltree-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree/c0 predicted', 'raw/allreduce-hybrid-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid/c0 predicted', 'raw/allreduce-nvls-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvls/c16 predicted'

set terminal svg dynamic size 1000,600
set output 'group1-busbw.svg'
set title 'whatif allreduce, 8 ranks, nodes=1,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring/c0 predicted', 'raw/allreduce-nccltree-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree/c0 predicted', 'raw/allreduce-hybrid-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid/c0 predicted', 'raw/allreduce-nvls-n8-nodes_1_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvls/c16 predicted'

set terminal pngcairo size 1000,600
set output 'group2-busbw.png'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group2-busbw.svg'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n32-nodes_4_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group3-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group3-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n128-nodes_16_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group4-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group4-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n512-nodes_64_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group5-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group5-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n2048-nodes_256_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group6-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group6-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n8192-nodes_1024_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group7-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group7-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=1' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n16384-nodes_2048_oversub_1.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group8-busbw.png'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group8-busbw.svg'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n32-nodes_4_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group9-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group9-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n128-nodes_16_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group10-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group10-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n512-nodes_64_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group11-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group11-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n2048-nodes_256_oversub_2.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group12-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal svg dynamic size 1000,600
set output 'group12-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n8192-nodes_1024_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal pngcairo size 1000,600
set output 'group13-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal svg dynamic size 1000,600
set output 'group13-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n16384-nodes_2048_oversub_2.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal pngcairo size 1000,600
set output 'group14-busbw.png'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group14-busbw.svg'
set title 'whatif allreduce, 32 ranks, nodes=4,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n32-nodes_4_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group15-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group15-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n128-nodes_16_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group16-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group16-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n512-nodes_64_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group17-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal svg dynamic size 1000,600
set output 'group17-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted', 'raw/allreduce-nvlstree-n2048-nodes_256_oversub_4.dat' using 1:3 with linespoints lt 4 dt 2 pt 6 ps 1.5 title 'nvlstree predicted'

set terminal pngcairo size 1000,600
set output 'group18-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n8192-nodes_1024_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n8192-nodes_1024_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal svg dynamic size 1000,600
set output 'group18-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n8192-nodes_1024_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n8192-nodes_1024_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal pngcairo size 1000,600
set output 'group19-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n16384-nodes_2048_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n16384-nodes_2048_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal svg dynamic size 1000,600
set output 'group19-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n16384-nodes_2048_oversub_4.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted', 'raw/allreduce-hybrid-n16384-nodes_2048_oversub_4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'hybrid predicted'

set terminal pngcairo size 1000,600
set output 'group20-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group20-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group21-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group21-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group22-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group22-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group23-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group23-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=1,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_1_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group24-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group24-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group25-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group25-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group26-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group26-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group27-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group27-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=2,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_2_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group28-busbw.png'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group28-busbw.svg'
set title 'whatif allreduce, 512 ranks, nodes=64,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n512-nodes_64_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n512-nodes_64_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group29-busbw.png'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group29-busbw.svg'
set title 'whatif allreduce, 2048 ranks, nodes=256,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n2048-nodes_256_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n2048-nodes_256_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group30-busbw.png'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group30-busbw.svg'
set title 'whatif allreduce, 8192 ranks, nodes=1024,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n8192-nodes_1024_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group31-busbw.png'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group31-busbw.svg'
set title 'whatif allreduce, 16384 ranks, nodes=2048,oversub=4,placement=spread' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n16384-nodes_2048_oversub_4_placement_spread.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group32-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=4,nic_bw=200Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_4_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_4_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group32-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=4,nic_bw=200Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_4_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_4_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group33-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=4,nic_bw=400Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_4_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_4_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group33-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=4,nic_bw=400Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_4_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_4_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group34-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=4,nic_bw=800Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_4_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_4_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group34-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=4,nic_bw=800Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_4_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_4_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group35-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=8,nic_bw=200Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_8_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_8_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group35-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=8,nic_bw=200Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_8_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_8_nic_bw_200Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group36-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=8,nic_bw=400Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_8_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_8_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group36-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=8,nic_bw=400Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_8_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_8_nic_bw_400Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal pngcairo size 1000,600
set output 'group37-busbw.png'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=8,nic_bw=800Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_8_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_8_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'

set terminal svg dynamic size 1000,600
set output 'group37-busbw.svg'
set title 'whatif allreduce, 128 ranks, nodes=16,nics=8,nic_bw=800Gb/s' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [748983:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/allreduce-ring-n128-nodes_16_nics_8_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/allreduce-nccltree-n128-nodes_16_nics_8_nic_bw_800Gb_s.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nccltree predicted'
