/* cuda_p2p.h -- CUDA peer memory for ranks of one process: a connection's
 * slot ring (the counters, which kernels/kern_cuda.h lays out as kcu_ring_t,
 * and the slots) in the receiver's device memory, written directly by the
 * sender's kernel through a device pointer (same GPU, or a peer GPU with
 * peer access enabled), and host-mapped words that kernels and the host both see. Unlike shm and
 * sockets there is no transport_t here: the kernel itself moves the steps,
 * so set-up is all there is. Knows nothing of plans. Only built with CUDA. */
#ifndef CHORUS_CUDA_P2P_H
#define CHORUS_CUDA_P2P_H

#include <stddef.h>

#include "chorus.h"

/* `bytes` of zeroed connection counters on `device`, zeroed on `stream` and waited
 * for: made when no collective kernel runs yet (a wait on a stream could
 * otherwise queue behind a kernel that waits on this rank). */
chorus_result_t cup_counters_create(int device, size_t bytes, void *stream, void **out);
/* The GEOM_NSTEPS slots of step_bytes of one connection on `device`: an
 * allocation only, no work on any stream, so safe while kernels run. */
chorus_result_t cup_slots_create(int device, size_t step_bytes, char **out);
void cup_free(int device, void *p);

/* Let kernels on `from` read and write memory of `to` (nothing when equal). */
chorus_result_t cup_enable_peer(int from, int to);

/* Zeroed pinned host memory mapped into every device's address space. */
chorus_result_t cup_host_mapped(size_t bytes, void **host, void **dev);
void cup_host_free(void *host);

#endif
