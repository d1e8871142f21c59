/* topo_route.h -- routes between a topology's devices: which resources a
 * flow crosses and its latency. Shortest path in hops through forwarding
 * devices, among equal next hops the one hashed from the flow key (ECMP),
 * so that a flow always takes one path and flows spread. */
#ifndef CHORUS_TOPO_ROUTE_H
#define CHORUS_TOPO_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "topo.h"

/* Capacity of a resource (of topo_nres_all) in bytes per second (0 = unlimited). */
double topo_res_cap(const topo_t *t, int res);
/* "h0.gpu0 -> h0.nvsw" for a resource. */
void topo_res_name(const topo_t *t, int res, char *buf, size_t len);

/* One route: the resources a flow crosses, in order, and the latency of its
 * hops added up. */
typedef struct {
  int32_t *res;
  int len;
  double lat;
} topo_route_t;

/* Routes from many sources to one destination: shortest paths through
 * forwarding devices only (fewest hops; among those, the fastest links), and
 * among equal-cost next hops the one chosen by hashing (flow key, device), as
 * switches do per flow. One router is made per destination and then asked
 * for any number of sources; it explores the graph only as far as the
 * sources asked for. */
typedef struct topo_router topo_router_t;
chorus_result_t topo_router_create(topo_router_t **out, const topo_t *t, int dst_dev);
void topo_router_destroy(topo_router_t *r);
/* Point the router at another destination, forgetting what it explored: the
 * cost is what it had explored, not the size of the topology. */
chorus_result_t topo_router_retarget(topo_router_t *r, int dst_dev);
/* Links on the route from dev to the router's destination, -1 when
 * unreachable. */
int topo_router_hops(const topo_router_t *r, int dev);
/* The route from src_dev for a flow key; res is caller memory of at least
 * 2 * hops + 1 entries (topo_router_hops). Returns the length, -1 when
 * unreachable. */
int topo_router_route(const topo_router_t *r, int src_dev, uint64_t key, int32_t *res, double *lat);

/* Routes one pair at a time: the same route topo_router_route gives for
 * (src, dst, key), at the cost of two searches of half the distance each
 * instead of everything nearer to dst than src; for rings and other plans
 * whose destinations have one or two sources each, on large fabrics. */
typedef struct topo_pathfinder topo_pathfinder_t;
chorus_result_t topo_pathfinder_create(topo_pathfinder_t **out, const topo_t *t);
void topo_pathfinder_destroy(topo_pathfinder_t *pf);
/* res as for topo_router_route. Returns the length, -1 when unreachable,
 * -2 out of memory. */
int topo_route_pair(topo_pathfinder_t *pf, int src_dev, int dst_dev, uint64_t key, int32_t *res, double *lat);

/* The route of a connection from rank src to rank dst on channel ch, as the
 * simulator takes it. Between two hosts that have NICs, the traffic of
 * channel ch leaves through its host's NIC ch mod k and enters through the
 * destination host's NIC ch mod k' -- each channel on its own NIC, as NCCL
 * binds channels to NICs; with by_rank (plan.h: rail_nics), each rank's
 * nearest NIC instead, where its host has a rank for every NIC -- and when the route from the source to that NIC
 * crosses a CPU while the GPU nearest the NIC is reachable without one (over
 * NVLink), the data goes to that GPU first (PXN). Otherwise the shortest
 * route. res holds at least topo_route_conn_cap(t) entries. Returns the
 * length, -1 when unreachable, -2 out of memory. */
int topo_route_conn(topo_pathfinder_t *pf, int src, int dst, int ch, int by_rank, int32_t *res, double *lat);
static inline size_t topo_route_conn_cap(const topo_t *t) { return 4 * (2 * (size_t)t->ndevs + 2); }

/* 1 when a route (res[0..len), as the functions above give it) has a link
 * to a device of this kind: TOPO_CPU (a PCIe root complex, which NCCL
 * avoids with PXN), TOPO_NIC (a step the NIC moves). */
int topo_route_crosses(const topo_t *t, const int32_t *res, int len, topo_kind_t kind);

/* The flow key of a connection, as the simulator and `topo show` use it. */
static inline uint64_t topo_flow_key(int src_rank, int dst_rank, int channel) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(uint32_t)src_rank << 32 | (uint32_t)dst_rank);
  h ^= (uint64_t)(uint32_t)channel * 0xbf58476d1ce4e5b9ull;
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return h;
}

#endif
