/* hd.h -- CHORUS_HD marks a function that runs on the host and, compiled by
 * nvcc, on the device too: the geometry (geom.h) and the reduction
 * arithmetic (engine/kernels/reduce.h) are each one source for both. */
#ifndef CHORUS_CORE_HD_H
#define CHORUS_CORE_HD_H

#ifdef __CUDACC__
#define CHORUS_HD __host__ __device__
#else
#define CHORUS_HD
#endif

#endif
