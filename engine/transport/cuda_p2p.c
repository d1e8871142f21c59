/* cuda_p2p.c -- device-memory slot rings and host-mapped words for the CUDA
 * kernels of ranks in one process (cuda_p2p.h). Every CUDA call is checked
 * and turned into a chorus_result_t with a message. */
#include <cuda_runtime.h>
#include <string.h>

#include "cuda_p2p.h"
#include "error.h"
#include "geom.h"

static chorus_result_t cup_err(cudaError_t e, const char *what, int device) {
  return err_set(e == cudaErrorMemoryAllocation ? chorus_out_of_memory : chorus_system_error, "CUDA device %d: %s: %s (%s)",
                 device, what, cudaGetErrorString(e), cudaGetErrorName(e));
}

chorus_result_t cup_counters_create(int device, size_t bytes, void *stream, void **out) {
  *out = NULL;
  cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess) return cup_err(e, "selecting the device", device);
  void *p = NULL;
  e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) return cup_err(e, "allocating connection counters", device);
  e = cudaMemsetAsync(p, 0, bytes, (cudaStream_t)stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
  if (e != cudaSuccess) {
    cudaFree(p);
    return cup_err(e, "zeroing connection counters", device);
  }
  *out = p;
  return chorus_success;
}

chorus_result_t cup_slots_create(int device, size_t step_bytes, char **out) {
  *out = NULL;
  cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess) return cup_err(e, "selecting the device", device);
  void *p = NULL;
  e = cudaMalloc(&p, (size_t)GEOM_NSTEPS * step_bytes);
  if (e != cudaSuccess) return cup_err(e, "allocating a connection's slots", device);
  *out = p;
  return chorus_success;
}

void cup_free(int device, void *p) {
  if (!p) return;
  cudaSetDevice(device);
  cudaFree(p);
}

chorus_result_t cup_enable_peer(int from, int to) {
  if (from == to) return chorus_success;
  int can = 0;
  cudaError_t e = cudaDeviceCanAccessPeer(&can, from, to);
  if (e != cudaSuccess) return cup_err(e, "asking for peer access", from);
  if (!can)
    return err_set(chorus_invalid_usage, "CUDA device %d cannot access device %d's memory (no peer access between "
                   "them): put the ranks of a communicator on GPUs with peer access, or on one GPU", from, to);
  e = cudaSetDevice(from);
  if (e == cudaSuccess) e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError(); /* not sticky: clear it */
    e = cudaSuccess;
  }
  return e == cudaSuccess ? chorus_success : cup_err(e, "enabling peer access", from);
}

chorus_result_t cup_host_mapped(size_t bytes, void **host, void **dev) {
  *host = *dev = NULL;
  void *h = NULL;
  cudaError_t e = cudaHostAlloc(&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess) return cup_err(e, "allocating mapped host memory", -1);
  memset(h, 0, bytes);
  e = cudaHostGetDevicePointer(dev, h, 0);
  if (e != cudaSuccess) {
    cudaFreeHost(h);
    return cup_err(e, "mapping host memory for the device", -1);
  }
  *host = h;
  return chorus_success;
}

void cup_host_free(void *host) {
  if (host) cudaFreeHost(host);
}
