/* topo.h -- a described cluster: devices, links, rank placement, protocol
 * costs, and the routes between ranks. Loaded from a topology script
 * (topologies/NAME.lua) through the sandbox, validated in C, and consumed by the
 * simulator and by `chorus topo`.
 *
 * A topology script calls the functions the loader defines (documented in
 * topologies/README.md): device{...}, link{...}, rank(dev [, count]),
 * protocol{...}, param(name, default). Builders in topologies/lib/ wrap them.
 * Every declaration remembers the file:line that made it, so that a fault
 * found after the script ran (a link to a missing device, an unreachable
 * rank) names the line that caused it.
 */
#ifndef CHORUS_TOPO_H
#define CHORUS_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chorus.h"
#include "plan.h"

/* Device kinds. Endpoints (host, core, gpu) never forward traffic; the others
 * may lie on a route between two endpoints. */
typedef enum {
  TOPO_HOST = 0,
  TOPO_CORE,
  TOPO_GPU,
  TOPO_CPU,
  TOPO_NUMA,
  TOPO_PCIE,
  TOPO_NVSWITCH,
  TOPO_NIC,
  TOPO_SWITCH,
  TOPO_NUM_KINDS
} topo_kind_t;

typedef struct {
  char *name;
  topo_kind_t kind;
  int host;           /* index into topo_t.hosts, -1 when the device belongs to none */
  int forward;        /* 1: routes may pass through it */
  double reduce_bw;   /* bytes of result per second a reduction produces here; 0 = free */
  double copy_bw;     /* bytes per second of a local copy; 0 = free (the memory model: a copy between cores) */
  double copy_local_bw; /* the memory model: a copy op between a rank's own buffers; 0 = copy_bw */
  double op_overhead; /* seconds every op of a rank on this device costs to start */
  /* The CPU memory model (sim.h): a device with mem_bw is a memory whose
   * bandwidth (bytes read plus bytes written per second, as STREAM counts)
   * the ranks that name it share; llc is the last-level cache in front of
   * it (bytes; 0: none). A device whose `mem` names such a memory runs its
   * ranks' data movement on their own threads. */
  double mem_bw;
  double llc;
  int mem;     /* device index of this device's memory, -1: none */
  int mem_res; /* for a memory: its resource (topo_nres_all), -1: none */
  char *where; /* "file:line" of the declaration */
} topo_dev_t;

typedef struct {
  int a, b;      /* devices */
  double bw;     /* bytes per second: per direction (full duplex) or shared (half) */
  double lat;    /* seconds */
  int half;      /* 1: half duplex (both directions share bw) */
  char *where;
} topo_link_t;

/* Protocols, as the engine names them. */
typedef enum { TOPO_PROTO_SIMPLE = 0, TOPO_PROTO_LL, TOPO_PROTO_LL128, TOPO_NUM_PROTOS } topo_proto_id_t;

typedef struct {
  double step_lat;   /* seconds added to every step (signalling, flag polling) */
  double efficiency; /* payload bytes per byte on the wire (LL: 0.5, LL128: 120/128) */
} topo_proto_t;

typedef struct {
  char name[128];    /* the file's base name without .lua */
  char path[1024];
  int ndevs, nlinks, nhosts, nranks;
  int nmems; /* devices with mem_bw: resources topo_nres .. topo_nres + nmems - 1 */
  topo_dev_t *devs;
  topo_link_t *links;
  char **hosts;      /* [nhosts] host names, in order of first declaration */
  int *rank_dev;     /* [nranks] device of each rank */
  char **rank_where; /* [nranks] "file:line" of each placement */
  topo_proto_t proto[TOPO_NUM_PROTOS];
  /* Adjacency (CSR): the links at device d are adj_link[adj_first[d] ..
   * adj_first[d+1]-1], in declaration order, with the device at the other end
   * in adj_peer. */
  int *adj_first, *adj_link, *adj_peer;
  int *adj_fwd_end; /* [ndevs] the forwarding neighbours come first: adj_first[d] .. adj_fwd_end[d]-1 */
  char params[1024]; /* the parameters the script read, "k=v,k=v" with the values used */
} topo_t;

typedef struct {
  char msg[2048]; /* "topologies/x.lua:12: link h0.gpu0 - h0.nic9: no device 'h0.nic9'" */
} topo_err_t;

/* Load a topology script. `file` is a path, or a name looked up in the
 * topology folder (topo_dir(); ".lua" may be left off). `sets` is "k=v,k=v"
 * overriding what the script's param() calls return, or NULL. On failure *out
 * is NULL, err->msg names file and line, and the result is chorus_script_error
 * (the script or its description is wrong) or chorus_invalid_argument (no such
 * file, a --set the script does not take). */
chorus_result_t topo_load(topo_t **out, const char *file, const char *sets, topo_err_t *err);
void topo_destroy(topo_t *t);

/* The topology folder: $CHORUS_TOPOLOGIES, else the compiled-in source path. */
const char *topo_dir(void);

/* Resolve a name or path to a file; 0, or -1 with a message in err. */
int topo_resolve(const char *file, char *path, size_t len, char *err, size_t errlen);

/* The shipped topology names (the .lua files of the folder), sorted,
 * comma-separated. */
void topo_list(char *buf, size_t len);

const char *topo_kind_name(topo_kind_t k);
const char *topo_proto_name(topo_proto_id_t p);
/* Parse "simple", "LL", "LL128" (any case); -1 when unknown. */
int topo_proto_parse(const char *name);

/* The node shape of ranks 0 .. nranks-1: a node is a host. When the ranks of
 * a host are not consecutive, each run of them counts as a node and
 * *contiguous is 0. */
chorus_result_t topo_shape(const topo_t *t, int nranks, plan_shape_t *shape, int *contiguous);

/* --- routes --- */

/* Network resources the max-min model shares: resource 2*l is link l's a->b
 * direction (both directions of a half-duplex link), 2*l+1 its b->a direction,
 * and 2*nlinks + d device d's local memory path (a transfer between two ranks
 * on one device). */
static inline int topo_nres(const topo_t *t) { return 2 * t->nlinks + t->ndevs; }
/* The same, and then one resource per memory (a device with mem_bw), in
 * device order: what the CPU memory model shares. */
static inline int topo_nres_all(const topo_t *t) { return topo_nres(t) + t->nmems; }
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

/* The flow key of a connection, as the simulator and `topo show` use it. */
static inline uint64_t topo_flow_key(int src_rank, int dst_rank, int channel) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(uint32_t)src_rank << 32 | (uint32_t)dst_rank);
  h ^= (uint64_t)(uint32_t)channel * 0xbf58476d1ce4e5b9ull;
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return h;
}

/* --- views --- */

/* Summary (devices by kind, links by class, hosts, ranks, parameters) and
 * the rank-to-rank path matrix, in the manner of `nvidia-smi topo -m`: each
 * cell names the kind of the path (X self, NV# NVLink/NVSwitch hops, PIX one
 * PCIe switch, PXB several, PHB through a CPU, SYS across sockets, NET# across
 * the network with # switch hops). At most max_ranks rows (0: 32). */
void topo_print(const topo_t *t, FILE *f, int max_ranks);
/* Graphviz: hosts as clusters, link labels with bandwidth and latency. */
void topo_write_dot(const topo_t *t, FILE *f);

/* Format a bandwidth (bytes/s) as "400Gb/s"-style text in GB/s, and a time. */
void topo_fmt_bw(double bw, char *buf, size_t len);
void topo_fmt_time(double s, char *buf, size_t len);

#endif
