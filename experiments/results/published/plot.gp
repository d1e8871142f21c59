# gnuplot script written by chorus exp for published: busbw (measured: filled points, solid, with the
# interquartile range; predicted: open points, dashed; one colour per run) per group of runs, and
# for a group with measured runs the error against size.

set terminal pngcairo size 1000,600
set output 'group1-busbw.png'
set title 'published allreduce, 8 ranks, gpu=a100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456, "1G" 1073741824, "8G" 8589934592)
set xrange [748983:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/azure-nd-a100-v4.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/azure-nd-a100-v4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/a100-1node-nt175.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-1node-nt175.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group1-busbw.svg'
set title 'published allreduce, 8 ranks, gpu=a100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456, "1G" 1073741824, "8G" 8589934592)
set xrange [748983:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/azure-nd-a100-v4.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/azure-nd-a100-v4.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted', 'raw/a100-1node-nt175.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-1node-nt175.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group1-error.png'
set title 'published allreduce, 8 ranks, gpu=a100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456, "1G" 1073741824, "8G" 8589934592)
set xrange [748983:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/azure-nd-a100-v4.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring', 'raw/a100-1node-nt175.dat' using 1:4 with linespoints lt 2 pt 7 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group1-error.svg'
set title 'published allreduce, 8 ranks, gpu=a100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456, "1G" 1073741824, "8G" 8589934592)
set xrange [748983:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/azure-nd-a100-v4.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring', 'raw/a100-1node-nt175.dat' using 1:4 with linespoints lt 2 pt 7 title 'ring'

set terminal pngcairo size 1000,600
set output 'group2-busbw.png'
set title 'published allreduce, 2 ranks, gpu=a100,gpus=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("12G" 12884901888)
set xrange [9203501349:18038862643]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/a100-pcie-nvlink-bridge.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-pcie-nvlink-bridge.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group2-busbw.svg'
set title 'published allreduce, 2 ranks, gpu=a100,gpus=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("12G" 12884901888)
set xrange [9203501349:18038862643]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/a100-pcie-nvlink-bridge.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-pcie-nvlink-bridge.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group2-error.png'
set title 'published allreduce, 2 ranks, gpu=a100,gpus=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("12G" 12884901888)
set xrange [9203501349:18038862643]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/a100-pcie-nvlink-bridge.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group2-error.svg'
set title 'published allreduce, 2 ranks, gpu=a100,gpus=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("12G" 12884901888)
set xrange [9203501349:18038862643]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/a100-pcie-nvlink-bridge.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group3-busbw.png'
set title 'published allreduce, 4 ranks, gpu=b200,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64M" 67108864, "1G" 1073741824, "8G" 8589934592)
set xrange [47934903:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/azure-nd-gb200-v6.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/azure-nd-gb200-v6.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group3-busbw.svg'
set title 'published allreduce, 4 ranks, gpu=b200,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64M" 67108864, "1G" 1073741824, "8G" 8589934592)
set xrange [47934903:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/azure-nd-gb200-v6.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/azure-nd-gb200-v6.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group3-error.png'
set title 'published allreduce, 4 ranks, gpu=b200,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64M" 67108864, "1G" 1073741824, "8G" 8589934592)
set xrange [47934903:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/azure-nd-gb200-v6.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group3-error.svg'
set title 'published allreduce, 4 ranks, gpu=b200,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64M" 67108864, "1G" 1073741824, "8G" 8589934592)
set xrange [47934903:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/azure-nd-gb200-v6.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group4-busbw.png'
set title 'published allreduce, 8 ranks, gpu=h100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/h100-1node-nvls.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'nvls measured', 'raw/h100-1node-nvls.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'nvls predicted', 'raw/h100-1node-nvls-nt290.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'nvls measured', 'raw/h100-1node-nvls-nt290.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nvls predicted'

set terminal svg dynamic size 1000,600
set output 'group4-busbw.svg'
set title 'published allreduce, 8 ranks, gpu=h100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/h100-1node-nvls.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'nvls measured', 'raw/h100-1node-nvls.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'nvls predicted', 'raw/h100-1node-nvls-nt290.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'nvls measured', 'raw/h100-1node-nvls-nt290.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'nvls predicted'

set terminal pngcairo size 1000,600
set output 'group4-error.png'
set title 'published allreduce, 8 ranks, gpu=h100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/h100-1node-nvls.dat' using 1:4 with linespoints lt 1 pt 5 title 'nvls', 'raw/h100-1node-nvls-nt290.dat' using 1:4 with linespoints lt 2 pt 7 title 'nvls'

set terminal svg dynamic size 1000,600
set output 'group4-error.svg'
set title 'published allreduce, 8 ranks, gpu=h100' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/h100-1node-nvls.dat' using 1:4 with linespoints lt 1 pt 5 title 'nvls', 'raw/h100-1node-nvls-nt290.dat' using 1:4 with linespoints lt 2 pt 7 title 'nvls'

set terminal pngcairo size 1000,600
set output 'group5-busbw.png'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/dgx-a100-8hdr-2node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/dgx-a100-8hdr-2node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group5-busbw.svg'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/dgx-a100-8hdr-2node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/dgx-a100-8hdr-2node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group5-error.png'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/dgx-a100-8hdr-2node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group5-error.svg'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/dgx-a100-8hdr-2node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group6-busbw.png'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/a100-4hdr-2node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-4hdr-2node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group6-busbw.svg'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/a100-4hdr-2node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-4hdr-2node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group6-error.png'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/a100-4hdr-2node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group6-error.svg'
set title 'published allreduce, 16 ranks, gpu=a100,nodes=2,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4G" 4294967296)
set xrange [3067833783:6012954214]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/a100-4hdr-2node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group7-busbw.png'
set title 'published allreduce, 24 ranks, gpu=a100,nodes=3,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("128M" 134217728)
set xrange [95869806:187904819]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/a100-4hdr-3node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-4hdr-3node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group7-busbw.svg'
set title 'published allreduce, 24 ranks, gpu=a100,nodes=3,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("128M" 134217728)
set xrange [95869806:187904819]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/a100-4hdr-3node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/a100-4hdr-3node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group7-error.png'
set title 'published allreduce, 24 ranks, gpu=a100,nodes=3,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("128M" 134217728)
set xrange [95869806:187904819]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/a100-4hdr-3node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group7-error.svg'
set title 'published allreduce, 24 ranks, gpu=a100,nodes=3,nics=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("128M" 134217728)
set xrange [95869806:187904819]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/a100-4hdr-3node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group8-busbw.png'
set title 'published allreduce, 8 ranks, gpu=h100,nodes=2,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [2995931:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/h100-4gpu-4ndr-2node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/h100-4gpu-4ndr-2node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group8-busbw.svg'
set title 'published allreduce, 8 ranks, gpu=h100,nodes=2,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [2995931:375809638]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/h100-4gpu-4ndr-2node.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/h100-4gpu-4ndr-2node.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group8-error.png'
set title 'published allreduce, 8 ranks, gpu=h100,nodes=2,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [2995931:375809638]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/h100-4gpu-4ndr-2node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group8-error.svg'
set title 'published allreduce, 8 ranks, gpu=h100,nodes=2,gpus=4' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xrange [2995931:375809638]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/h100-4gpu-4ndr-2node.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group9-busbw.png'
set title 'published allreduce, 8 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/rtx5090-8gpu-pcie.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/rtx5090-8gpu-pcie.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group9-busbw.svg'
set title 'published allreduce, 8 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/rtx5090-8gpu-pcie.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/rtx5090-8gpu-pcie.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group9-error.png'
set title 'published allreduce, 8 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/rtx5090-8gpu-pcie.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group9-error.svg'
set title 'published allreduce, 8 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/rtx5090-8gpu-pcie.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal pngcairo size 1000,600
set output 'group10-busbw.png'
set title 'published allreduce, 4 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/rtx5090-4gpu-pcie.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/rtx5090-4gpu-pcie.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal svg dynamic size 1000,600
set output 'group10-busbw.svg'
set title 'published allreduce, 4 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/rtx5090-4gpu-pcie.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring measured', 'raw/rtx5090-4gpu-pcie.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring predicted'

set terminal pngcairo size 1000,600
set output 'group10-error.png'
set title 'published allreduce, 4 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/rtx5090-4gpu-pcie.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'

set terminal svg dynamic size 1000,600
set output 'group10-error.svg'
set title 'published allreduce, 4 ranks, gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("8G" 8589934592)
set xrange [6135667566:12025908429]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/rtx5090-4gpu-pcie.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring'
