/* kern_cuda.cu -- the CUDA collective kernel (its device code is
 * kern_cuda_body.h, shared with the CPU emulation of the tests) and its
 * host-side launchers: the collective, the standalone fused reduce-copy for
 * the benchmark, and the resource query. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "kern_cuda_body.h"

/* ---- host side ---------------------------------------------------------- */

static int cuda_err(cudaError_t e, const char *what, char *err, size_t errlen) {
  if (e == cudaSuccess) return 0;
  snprintf(err, errlen, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return -1;
}

extern "C" int kcu_launch(const kcu_args_t *a, int nchannels, void *stream, char *err, size_t errlen) {
  kcu_run<<<nchannels, KCU_THREADS, 0, (cudaStream_t)stream>>>(*a);
  return cuda_err(cudaGetLastError(), "launching the collective kernel", err, errlen);
}

extern "C" int kcu_reduce_copy(void *dst1, void *dst2, const void *a, const void *b, size_t count, int dt, int op,
                               int blocks, void *stream, char *err, size_t errlen) {
  static const size_t sizes[10] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
  if (dt < 0 || dt > 9 || op < 0 || op > 4 || blocks < 1) {
    snprintf(err, errlen, "kcu_reduce_copy: bad type %d, op %d or %d blocks", dt, op, blocks);
    return -1;
  }
  kcu_reduce_copy_kernel<<<blocks, KCU_THREADS, 0, (cudaStream_t)stream>>>(dst1, dst2, a, b, count, dt, op, sizes[dt]);
  return cuda_err(cudaGetLastError(), "launching the reduce-copy kernel", err, errlen);
}

extern "C" int kcu_attributes(int *regs, int *spill_bytes, int *shared_bytes, char *err, size_t errlen) {
  cudaFuncAttributes fa;
  if (cuda_err(cudaFuncGetAttributes(&fa, kcu_run), "reading the kernel's attributes", err, errlen)) return -1;
  *regs = fa.numRegs;
  *spill_bytes = (int)fa.localSizeBytes;
  *shared_bytes = (int)fa.sharedSizeBytes;
  return 0;
}
