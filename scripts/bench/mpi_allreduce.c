/* mpi_allreduce.c -- the Open MPI side of the CPU comparison: MPI_Allreduce
 * (float sum) over sizes 8 B .. MAX by x2, out of place, after warm-up, with
 * buffers allocated and touched once. Writes the `chorus perf` CSV schema to
 * stdout (collective,algo,proto,...). Usage: mpirun -np N mpi_allreduce [MAX] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  size_t maxb = argc > 1 ? strtoull(argv[1], NULL, 0) : (256u << 20);
  float *a = malloc(maxb), *b = malloc(maxb);
  memset(a, 0, maxb);
  memset(b, 0, maxb);
  if (rank == 0)
    printf("collective,algo,proto,nranks,nnodes,dtype,op,root,inplace,size_bytes,count,time_us,algbw_GBps,busbw_GBps,"
           "wrong\n");
  for (size_t s = 8; s <= maxb; s *= 2) {
    int count = (int)(s / 4);
    int iters = s <= (1 << 20) ? 200 : s <= (16 << 20) ? 20 : 5;
    for (int i = 0; i < 5; i++) MPI_Allreduce(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) MPI_Allreduce(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / iters * 1e6, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double algbw = s / tmax / 1e3;
      printf("allreduce,mpi,mpi,%d,1,float,sum,-1,0,%zu,%d,%.3f,%.4f,%.4f,0\n", n, s, count, tmax, algbw,
             algbw * 2.0 * (n - 1) / n);
      fflush(stdout);
    }
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
