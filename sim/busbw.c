/* busbw.c -- the bus-bandwidth factor (busbw.h). */
#include "busbw.h"

double sim_bus_factor(chorus_coll_t coll, int n) {
  switch (coll) {
  case chorus_allreduce: return n > 0 ? 2.0 * (n - 1) / n : 0;
  case chorus_allgather:
  case chorus_reducescatter:
  case chorus_alltoall: return n > 0 ? (double)(n - 1) / n : 0;
  default: return 1;
  }
}
