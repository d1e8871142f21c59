// kern_emu.cc -- the CUDA kernel's device code (engine/kernels/kern_cuda_body.h)
// compiled for the host: a block is KCU_EMU_THREADS host threads (an odd
// number, so that strides and tails are exercised), __syncthreads a barrier
// of them, shared memory one struct per block. The executable model of the
// kernel that test_kern_emu runs without a GPU. Only the CUDA vocabulary is
// defined here; the code under test is the kernel's own.
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

#define KCU_EMU_THREADS 3

struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct kcu_dim3 {
  unsigned int x, y, z;
};
static const kcu_dim3 blockDim = {KCU_EMU_THREADS, 1, 1};
static thread_local kcu_dim3 threadIdx, blockIdx, gridDim;
static thread_local pthread_barrier_t *block_barrier;
static thread_local void *block_shared;
static inline void __syncthreads() { pthread_barrier_wait(block_barrier); }
// The C11 model orders the steps by the counters' release and acquire (and the
// barrier) alone, so the fence is only a compiler barrier here: the emulation
// checks that the protocol needs nothing more (and ThreadSanitizer accepts it).
static inline void __threadfence_system() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
static inline uint32_t atomicCAS(uint32_t *p, uint32_t cmp, uint32_t val) {
  __atomic_compare_exchange_n(p, &cmp, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
static inline uint32_t atomicExch(uint32_t *p, uint32_t val) { return __atomic_exchange_n(p, val, __ATOMIC_SEQ_CST); }
struct kcu_shared_t;
static inline kcu_shared_t *kcu_emu_shared() { return (kcu_shared_t *)block_shared; }

#include "kern_cuda_body.h"

struct emu_thread_t {
  void (*fn)(void *);
  void *arg;
  int block, nblocks, thread;
  pthread_barrier_t *bar;
  void *shared;
};

static void *emu_thread_main(void *p) {
  emu_thread_t *t = (emu_thread_t *)p;
  threadIdx = {(unsigned)t->thread, 0, 0};
  blockIdx = {(unsigned)t->block, 0, 0};
  gridDim = {(unsigned)t->nblocks, 1, 1};
  block_barrier = t->bar;
  block_shared = t->shared;
  t->fn(t->arg);
  return NULL;
}

// Run fn(arg) as block `block` of `nblocks`: KCU_EMU_THREADS threads, joined.
static void emu_block(void (*fn)(void *), void *arg, int block, int nblocks) {
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, KCU_EMU_THREADS);
  kcu_shared_t *sh = new kcu_shared_t();
  emu_thread_t t[KCU_EMU_THREADS];
  pthread_t th[KCU_EMU_THREADS];
  for (int i = 0; i < KCU_EMU_THREADS; i++) {
    t[i] = {fn, arg, block, nblocks, i, &bar, sh};
    pthread_create(&th[i], NULL, emu_thread_main, &t[i]);
  }
  for (int i = 0; i < KCU_EMU_THREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
  delete sh;
}

static void run_coll(void *p) { kcu_run(*(const kcu_args_t *)p); }

// Run block `block` of a grid of `nblocks` of the collective kernel.
extern "C" void kcu_emu_block(const kcu_args_t *a, int block, int nblocks) {
  emu_block(run_coll, (void *)a, block, nblocks);
}

struct rc_args_t {
  void *d1, *d2;
  const void *a, *b;
  size_t count, es;
  int dt, op;
};
static void run_rc(void *p) {
  rc_args_t *r = (rc_args_t *)p;
  kcu_reduce_copy_kernel(r->d1, r->d2, r->a, r->b, r->count, r->dt, r->op, r->es);
}

// The standalone reduce-copy, every block in turn.
extern "C" void kcu_emu_reduce_copy(void *d1, void *d2, const void *a, const void *b, size_t count, int dt, int op,
                                    int blocks) {
  static const size_t sizes[10] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
  rc_args_t r = {d1, d2, a, b, count, sizes[dt], dt, op};
  for (int i = 0; i < blocks; i++) emu_block(run_rc, &r, i, blocks);
}
