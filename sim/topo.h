/* topo.h -- a described cluster: devices, links, rank placement, protocol
 * costs, and the routes between ranks. Loaded from a topology script
 * (topologies/NAME.lua) through the sandbox, validated in C, and consumed by the
 * simulator and by `chorus topo`.
 *
 * A topology script calls the functions the loader defines (documented in
 * topologies/README.md): device{...}, link{...}, rank(dev [, count]),
 * hub(dev), protocol{...}, param(name, default). Builders in topologies/lib/ wrap them.
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
  double forward_bw;  /* a forwarding device: bytes per second all routes through it share (a CPU that stages
                       * transfers in its memory, a switch's backplane); 0 = no limit */
  double reduce_bw;   /* bytes of result per second a reduction produces here; 0 = free */
  double copy_bw;     /* bytes per second of a local copy; 0 = free (the memory model: a copy between cores) */
  double copy_local_bw; /* the memory model: a copy op between a rank's own buffers; 0 = copy_bw */
  double op_overhead; /* seconds every op of a rank on this device costs to start */
  double channel_wake;  /* seconds a rank of several channels takes to hand a call between them: its calling
                         * thread's wake-up when the last channel ends, each worker's at a call's start */
  double step_overhead; /* seconds each step a rank on this device receives costs it besides its bytes (a GPU
                         * channel's wait on the step's flag, fence and post, which its copies do not overlap) */
  /* The CPU memory model (sim.h): a device with mem_bw is a memory whose
   * bandwidth (bytes read plus bytes written per second, as STREAM counts)
   * the ranks that name it share; llc is the last-level cache in front of
   * it (bytes; 0: none). A device whose `mem` names such a memory runs its
   * ranks' data movement on their own threads. cache (bytes; 0: none) is
   * the cores' private caches in front of the llc, all together: a working
   * set past it that fits in the llc shares llc_bw (bytes read plus
   * written per second) instead of nothing. */
  double mem_bw;
  double llc;
  double cache;
  double llc_bw;
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

enum { TOPO_ROUTE_ECMP = 0, TOPO_ROUTE_DMODK };

/* Protocols, as the engine names them. */
typedef enum { TOPO_PROTO_SIMPLE = 0, TOPO_PROTO_LL, TOPO_PROTO_LL128, TOPO_NUM_PROTOS } topo_proto_id_t;

/* Points of a protocol's latency by step size, at most this many. */
#define TOPO_SIZE_LAT_MAX 32

typedef struct {
  double step_lat;   /* seconds added to every step (signalling, flag polling) */
  double net_lat;    /* with has_net_lat: seconds added instead to a step whose route crosses a NIC */
  int has_net_lat;
  double efficiency; /* payload bytes per byte on the wire (LL: 0.5, LL128: 120/128) */
  double overhead;   /* seconds a rank spends per step it receives with this protocol, besides its
                      * bytes, on top of its device's step_overhead (NCCL's per-step overhead: a
                      * GPU channel's flag wait, fence and post) */
  double base;       /* seconds added to every call (NCCL's base latency: launch and set-up) */
  /* A plan with hubs (a switch that reduces, plan.h) runs under a declared
   * protocol only when it gives hub_latency (NCCL runs NVLS on Simple
   * alone): its calls then pay hub_latency instead of base, and its steps to
   * and from a hub pay neither step_lat nor overhead (NCCL times NVLS by
   * one latency per call, no per-step cost). A protocol the topology does
   * not declare runs them with base. */
  double hub_lat;
  int declared, has_hub_lat;
  /* latency_by_size: seconds added to a step of a given size on top of
   * step_lat (a step's first lines fetched from another core's cache,
   * which chorus calibrate reads off the shm ping-pong), at sizes
   * size_bytes[0] < size_bytes[1] < ...; linear in log size between
   * points, the first point's below them, the last's above. nsize 0: none. */
  int nsize;
  double size_bytes[TOPO_SIZE_LAT_MAX], size_lat_s[TOPO_SIZE_LAT_MAX];
} topo_proto_t;

/* Whether a plan with hubs may run under protocol pr (topo_proto_t.hub_lat),
 * and the fixed cost of its calls then. */
static inline int topo_proto_runs_hubs(const topo_proto_t *pr) { return !pr->declared || pr->has_hub_lat; }
static inline double topo_proto_call_cost(const topo_proto_t *pr, int hubs) {
  return hubs && pr->has_hub_lat ? pr->hub_lat : pr->base;
}

/* A step of `bytes`' latency on top of step_lat (0 without latency_by_size). */
double topo_proto_size_lat(const topo_proto_t *pr, double bytes);

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
  /* Hubs (hub "dev"): switches that reduce, where a plan's hubs run (plan.h):
   * NVLink SHARP in an NVSwitch, SHARP in an InfiniBand switch. A hub's
   * reduction rate is its device's reduce_bw (0: free, at line rate). */
  int nhubs;
  int *hub_dev;      /* [nhubs] */
  char **hub_where;  /* [nhubs] */
  topo_proto_t proto[TOPO_NUM_PROTOS];
  /* How a switch picks among equally short next hops (routing "..."):
   * TOPO_ROUTE_ECMP hashes the flow (Ethernet/RoCE), TOPO_ROUTE_DMODK
   * takes the destination's port (InfiniBand's fat-tree routing, D mod K). */
  int routing;
  /* Adjacency (CSR): the links at device d are adj_link[adj_first[d] ..
   * adj_first[d+1]-1], in declaration order, with the device at the other end
   * in adj_peer. */
  int *adj_first, *adj_link, *adj_peer;
  int *adj_fwd_end; /* [ndevs] the forwarding neighbours come first: adj_first[d] .. adj_fwd_end[d]-1 */
  /* NICs (devices of kind nic) of each host, in declaration order: host h's
   * are host_nic[host_nic_first[h] .. host_nic_first[h + 1] - 1]. */
  int *host_nic_first, *host_nic;
  /* [nranks] the index among its host's NICs of the one nearest the rank
   * (fewest links through forwarding devices of the host; among equals, the
   * NIC with fewer ranks so far, then the first): NIC i beside GPU i on a
   * DGX. -1 when its host has no NIC. */
  int *rank_nic;
  int *host_ranks; /* [nhosts] ranks placed on each host */
  /* [parallel to host_nic] the device of the first rank nearest that NIC, -1
   * none: the GPU PXN relays through. */
  int *nic_proxy;
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

/* The channel count NCCL's graph search would give ranks 0 .. nranks-1 of
 * t, when they are GPUs (shared/NCCL-MODEL.md section 2; 0 otherwise: CPU
 * ranks keep their script's default). NCCL searches one channel per NIC
 * across hosts and about 12 on one NVSwitch host (12 x 20 GB/s on Ampere,
 * 12 x 30 on Hopper), 2 on PCIe, and duplicates every channel: 2 x the
 * fewest NICs of the hosts used across hosts, 24 on one NVSwitch host, 4
 * on one host without one. */
int topo_default_channels(const topo_t *t, int nranks);

/* NICs of host h (0 when h < 0). */
static inline int topo_host_nics(const topo_t *t, int h) {
  return h < 0 ? 0 : t->host_nic_first[h + 1] - t->host_nic_first[h];
}

/* --- routes --- */

/* Network resources the max-min model shares: resource 2*l is link l's a->b
 * direction (both directions of a half-duplex link), 2*l+1 its b->a direction,
 * and 2*nlinks + d device d's local memory path (a transfer between two ranks
 * on one device). */
static inline int topo_nres(const topo_t *t) { return 2 * t->nlinks + t->ndevs; }
/* The same, and then one resource per memory (a device with mem_bw), in
 * device order: what the CPU memory model shares. */
static inline int topo_nres_all(const topo_t *t) { return topo_nres(t) + t->nmems; }

#endif
