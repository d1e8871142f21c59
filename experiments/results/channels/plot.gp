# gnuplot script written by chorus exp for channels: busbw (measured: filled points, solid, with the
# interquartile range; predicted: open points, dashed; one colour per run) per group of runs, and
# for a group with measured runs the error against size.

set terminal pngcairo size 1000,600
set output 'group1-busbw.png'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864)
set xrange [46811:93952410]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/ring-c1.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring/c1 measured', 'raw/ring-c1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring/c1 predicted', 'raw/ring-c2.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'ring/c2 measured', 'raw/ring-c2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'ring/c2 predicted', 'raw/ring-c4.dat' using 1:2:5:6 with yerrorlines lt 3 dt 1 pt 7 ps 1.2 title 'ring/c4 measured', 'raw/ring-c4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'ring/c4 predicted'

set terminal svg dynamic size 1000,600
set output 'group1-busbw.svg'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864)
set xrange [46811:93952410]
set xlabel 'size'
set ylabel 'busbw (GB/s)'
plot 'raw/ring-c1.dat' using 1:2:5:6 with yerrorlines lt 1 dt 1 pt 7 ps 1.2 title 'ring/c1 measured', 'raw/ring-c1.dat' using 1:3 with linespoints lt 1 dt 2 pt 6 ps 1.5 title 'ring/c1 predicted', 'raw/ring-c2.dat' using 1:2:5:6 with yerrorlines lt 2 dt 1 pt 7 ps 1.2 title 'ring/c2 measured', 'raw/ring-c2.dat' using 1:3 with linespoints lt 2 dt 2 pt 6 ps 1.5 title 'ring/c2 predicted', 'raw/ring-c4.dat' using 1:2:5:6 with yerrorlines lt 3 dt 1 pt 7 ps 1.2 title 'ring/c4 measured', 'raw/ring-c4.dat' using 1:3 with linespoints lt 3 dt 2 pt 6 ps 1.5 title 'ring/c4 predicted'

set terminal pngcairo size 1000,600
set output 'group1-error.png'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864)
set xrange [46811:93952410]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/ring-c1.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring/c1', 'raw/ring-c2.dat' using 1:4 with linespoints lt 2 pt 7 title 'ring/c2', 'raw/ring-c4.dat' using 1:4 with linespoints lt 3 pt 9 title 'ring/c4'

set terminal svg dynamic size 1000,600
set output 'group1-error.svg'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2' noenhanced
set logscale x 2
set grid
set key outside right top noenhanced
set xtics ("64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864)
set xrange [46811:93952410]
set xlabel 'size'
set ylabel '(predicted - measured) / measured (%)'
plot 'raw/ring-c1.dat' using 1:4 with linespoints lt 1 pt 5 title 'ring/c1', 'raw/ring-c2.dat' using 1:4 with linespoints lt 2 pt 7 title 'ring/c2', 'raw/ring-c4.dat' using 1:4 with linespoints lt 3 pt 9 title 'ring/c4'
