// kern_emu.cc -- the CUDA kernel's device code (engine/kernels/kern_cuda_body.h)
// compiled for the host, one thread per block (blockDim.x == 1): the
// executable model of the kernel that test_kern_emu runs without a GPU. Only
// the CUDA vocabulary is defined here; the code under test is the kernel's own.
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#define KCU_EMULATE 1
#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(threads, blocks)
#define KCU_POLL_HINT() sched_yield() /* many emulated blocks share few cores */

struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct kcu_dim3 {
  unsigned int x, y, z;
};
static const kcu_dim3 threadIdx = {0, 0, 0}, blockDim = {1, 1, 1};
static thread_local kcu_dim3 blockIdx, gridDim;
static inline void __syncthreads() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline uint32_t atomicCAS(uint32_t *p, uint32_t cmp, uint32_t val) {
  __atomic_compare_exchange_n(p, &cmp, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
static inline uint32_t atomicExch(uint32_t *p, uint32_t val) { return __atomic_exchange_n(p, val, __ATOMIC_SEQ_CST); }

#include "kern_cuda_body.h"

// Run block `block` of a grid of `nblocks` of the collective kernel, on this thread.
extern "C" void kcu_emu_block(const kcu_args_t *a, int block, int nblocks) {
  blockIdx = {(unsigned)block, 0, 0};
  gridDim = {(unsigned)nblocks, 1, 1};
  kcu_run(*a);
}

// The standalone reduce-copy, every block in turn on this thread.
extern "C" void kcu_emu_reduce_copy(void *d1, void *d2, const void *a, const void *b, size_t count, int dt, int op,
                                    int blocks) {
  static const size_t sizes[10] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
  for (int i = 0; i < blocks; i++) {
    blockIdx = {(unsigned)i, 0, 0};
    gridDim = {(unsigned)blocks, 1, 1};
    kcu_reduce_copy_kernel(d1, d2, a, b, count, dt, op, sizes[dt]);
  }
}
