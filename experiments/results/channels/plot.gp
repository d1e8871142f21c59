# gnuplot script written by chorus exp for channels: busbw (measured solid, predicted dashed, one
# colour per algorithm) and error against size, one pair of plots per group of runs.

set terminal png size 900,560
set output 'group1-busbw.png'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/ring-c1.dat' using 1:2 with linespoints lt 1 dt 1 title 'ring/c1 measured', 'raw/ring-c1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring/c1 predicted', 'raw/ring-c2.dat' using 1:2 with linespoints lt 2 dt 1 title 'ring/c2 measured', 'raw/ring-c2.dat' using 1:3 with linespoints lt 2 dt 2 title 'ring/c2 predicted', 'raw/ring-c4.dat' using 1:2 with linespoints lt 3 dt 1 title 'ring/c4 measured', 'raw/ring-c4.dat' using 1:3 with linespoints lt 3 dt 2 title 'ring/c4 predicted'

set terminal svg dynamic size 900,560
set output 'group1-busbw.svg'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
unset logscale y
plot 'raw/ring-c1.dat' using 1:2 with linespoints lt 1 dt 1 title 'ring/c1 measured', 'raw/ring-c1.dat' using 1:3 with linespoints lt 1 dt 2 title 'ring/c1 predicted', 'raw/ring-c2.dat' using 1:2 with linespoints lt 2 dt 1 title 'ring/c2 measured', 'raw/ring-c2.dat' using 1:3 with linespoints lt 2 dt 2 title 'ring/c2 predicted', 'raw/ring-c4.dat' using 1:2 with linespoints lt 3 dt 1 title 'ring/c4 measured', 'raw/ring-c4.dat' using 1:3 with linespoints lt 3 dt 2 title 'ring/c4 predicted'

set terminal png size 900,560
set output 'group1-error.png'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel '(predicted - measured) / measured (%)'
unset logscale y
plot 'raw/ring-c1.dat' using 1:4 with linespoints lt 1 title 'ring/c1', 'raw/ring-c2.dat' using 1:4 with linespoints lt 2 title 'ring/c2', 'raw/ring-c4.dat' using 1:4 with linespoints lt 3 title 'ring/c4'

set terminal svg dynamic size 900,560
set output 'group1-error.svg'
set title 'channels allreduce, 2 ranks, ranks=2,cores=2'
set logscale x 2
set grid
set key left top
set xlabel 'size (bytes)'
set ylabel '(predicted - measured) / measured (%)'
unset logscale y
plot 'raw/ring-c1.dat' using 1:4 with linespoints lt 1 title 'ring/c1', 'raw/ring-c2.dat' using 1:4 with linespoints lt 2 title 'ring/c2', 'raw/ring-c4.dat' using 1:4 with linespoints lt 3 title 'ring/c4'
