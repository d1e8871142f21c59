/* api.c -- the public calls that move data: the collective and
 * point-to-point entry points. Each checks its stream and hands the call to
 * a group (group.c), a stream (stream.c) or the executor (exec.c). */
#include "chorus.h"
#include "comm.h"
#include "error.h"
#include "exec.h"
#include "group.h"
#include "kernels.h"
#include "stream.h"

#include <stdio.h>

/* Call kin on stream s (NULL: now, on this thread). */
static chorus_result_t submit(const comm_call_t *kin, chorus_stream_t *s) {
  if (!kin->comm) return err_set(chorus_invalid_argument, "the communicator is NULL");
  comm_call_t kc = *kin;
  const comm_call_t *k = &kc;
  void *cu = stream_cuda(s);
  if (cu && !kc.comm->cuda)
    return err_set(chorus_invalid_argument, "a CUDA stream needs a communicator bound to a CUDA device "
                                            "(chorus_comm_init_all_cuda)");
  if (s && !cu && kc.comm->cuda)
    return err_set(chorus_invalid_argument, "a CUDA communicator needs a CUDA stream (chorus_stream_create_cuda) "
                                            "or NULL");
  if (cu) kc.cuda_stream = cu;
  if (group_active()) return group_hold(k, s);
  if (cu) {
    TRY(stream_note_cuda(s, k->comm));
    return exec_calls(k->comm, k, 1);
  }
  if (s) return stream_push(s, k->comm, k, 1);
  return exec_calls(k->comm, k, 1);
}

chorus_result_t chorus_run_collective(chorus_coll_t coll, const void *sendbuf, void *recvbuf, size_t count,
                                      chorus_dtype_t dt, chorus_redop_t op, int root, chorus_comm_t *comm,
                                      chorus_stream_t *stream) {
  comm_call_t k = {.kind = CALL_COLL, .coll = coll, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .dt = dt,
              .op = plan_coll_reduces(coll) ? op : chorus_sum, .root = plan_coll_rooted(coll) ? root : 0,
              .comm = comm};
  return submit(&k, stream);
}

chorus_result_t chorus_run_allreduce(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                     chorus_redop_t op, chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_allreduce, sendbuf, recvbuf, count, dt, op, 0, comm, stream);
}
chorus_result_t chorus_run_broadcast(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt, int root,
                                     chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_broadcast, sendbuf, recvbuf, count, dt, chorus_sum, root, comm, stream);
}
chorus_result_t chorus_run_reduce(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                  chorus_redop_t op, int root, chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_reduce, sendbuf, recvbuf, count, dt, op, root, comm, stream);
}
chorus_result_t chorus_run_allgather(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                     chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_allgather, sendbuf, recvbuf, count, dt, chorus_sum, 0, comm, stream);
}
chorus_result_t chorus_run_reducescatter(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                         chorus_redop_t op, chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_reducescatter, sendbuf, recvbuf, count, dt, op, 0, comm, stream);
}
chorus_result_t chorus_run_alltoall(const void *sendbuf, void *recvbuf, size_t count, chorus_dtype_t dt,
                                    chorus_comm_t *comm, chorus_stream_t *stream) {
  return chorus_run_collective(chorus_alltoall, sendbuf, recvbuf, count, dt, chorus_sum, 0, comm, stream);
}

chorus_result_t chorus_send(const void *buf, size_t count, chorus_dtype_t dt, int peer, chorus_comm_t *comm,
                            chorus_stream_t *stream) {
  comm_call_t k = {.kind = CALL_SEND, .sendbuf = buf, .count = count, .dt = dt, .root = peer, .comm = comm};
  return submit(&k, stream);
}
chorus_result_t chorus_recv(void *buf, size_t count, chorus_dtype_t dt, int peer, chorus_comm_t *comm,
                            chorus_stream_t *stream) {
  comm_call_t k = {.kind = CALL_RECV, .recvbuf = buf, .count = count, .dt = dt, .root = peer, .comm = comm};
  return submit(&k, stream);
}

const char *chorus_build_info(void) {
  static char info[128];
#ifdef CHORUS_HAVE_CUDA
  const char *cuda = "on";
#else
  const char *cuda = "off";
#endif
  snprintf(info, sizeof info, "isa=%s cuda=%s transports=shm,socket", kern_isa(), cuda);
  return info;
}
