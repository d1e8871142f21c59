/* topo_route.c -- routes between devices and the views of a topology.
 *
 * Routing is shortest path in hops (among equally short routes, the one of
 * the fastest links), passing only through devices that forward (switches, NICs, CPUs; never a GPU or a host endpoint). Where
 * several next hops are equally short, one is picked by hashing the flow key
 * with the device, as an ECMP switch hashes a flow's header: a given flow
 * always takes the same path, and different flows spread (and sometimes
 * collide, as they do on real fabrics). */
#include <stdlib.h>
#include <string.h>

#include "topo.h"

struct topo_router {
  const topo_t *t;
  int dst;
  int64_t *dist; /* cost to dst; INT64_MAX unknown */
  int32_t *hops; /* links on that path */
  uint8_t *settled;
  /* Dijkstra's frontier, kept between calls: a route is computed only as far
   * as its source, so routing a ring touches a few devices per destination. */
  struct hent {
    int64_t d;
    int32_t v;
  } *heap;
  size_t nheap, cap;
  int32_t *touched; /* devices whose entries differ from the initial ones */
  int ntouched;
  /* Set while topo_route_pair finishes a search for one source: a device
   * whose distance from that source (at least) plus its distance to dst
   * exceeds prune_max lies on no shortest route, so it is not expanded. */
  const struct topo_pathfinder *prune;
  int64_t prune_max;
};

/* The search from the source's side in topo_route_pair. */
struct topo_pathfinder {
  const topo_t *t;
  topo_router_t *back;
  int64_t *dist;
  uint8_t *settled;
  struct hent *heap;
  size_t nheap, cap;
  int32_t *touched;
  int ntouched;
  int64_t frontier; /* every device not settled is at least this far from the source */
};

/* A link's routing cost: hops first (2^32 each), then the inverse of its
 * bandwidth, so that among routes of equal length the faster wins (NVLink
 * before a PCIe switch) and equal links tie exactly (ECMP). */
static inline int64_t link_cost(const topo_link_t *l) {
  double pen = 1e15 / l->bw;
  if (pen > (double)(1 << 26)) pen = (double)(1 << 26);
  return ((int64_t)1 << 32) + (int64_t)pen;
}

static int heap_push(struct hent **heap, size_t *nheap, size_t *cap, int64_t d, int v) {
  if (*nheap == *cap) {
    size_t c = *cap ? *cap * 2 : 256;
    struct hent *h = realloc(*heap, sizeof *h * c);
    if (!h) return -1;
    *heap = h;
    *cap = c;
  }
  struct hent *hp = *heap;
  size_t i = (*nheap)++;
  while (i > 0 && hp[(i - 1) / 2].d > d) {
    hp[i] = hp[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  hp[i] = (struct hent){d, v};
  return 0;
}

static struct hent heap_pop(struct hent *hp, size_t *nheap) {
  struct hent top = hp[0], x = hp[--*nheap];
  size_t i = 0, n = *nheap;
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    int64_t best = x.d;
    if (l < n && hp[l].d < best) m = l, best = hp[l].d;
    if (l + 1 < n && hp[l + 1].d < best) m = l + 1;
    if (m == i) break;
    hp[i] = hp[m];
    i = m;
  }
  if (n) hp[i] = x;
  return top;
}

static int hpush(topo_router_t *r, int64_t d, int v) { return heap_push(&r->heap, &r->nheap, &r->cap, d, v); }
static struct hent hpop(topo_router_t *r) { return heap_pop(r->heap, &r->nheap); }

/* While pruning: can device u, at distance du from dst, lie on a shortest
 * route from the pathfinder's source? */
static inline int may_lie_on_route(const topo_router_t *r, int u, int64_t du) {
  const struct topo_pathfinder *pf = r->prune;
  int64_t ds = pf->settled[u] ? pf->dist[u] : pf->frontier;
  return ds != INT64_MAX && du <= r->prune_max - ds;
}

/* Run Dijkstra until `want` is settled (want < 0: until the end). */
static void settle_until(topo_router_t *r, int want) {
  const topo_t *t = r->t;
  while (r->nheap && (want < 0 || !r->settled[want])) {
    struct hent e = hpop(r);
    int u = e.v;
    if (r->settled[u] || e.d != r->dist[u]) continue;
    r->settled[u] = 1;
    /* A route may continue past u towards the source only if u forwards. */
    if (u != r->dst && !t->devs[u].forward) continue;
    if (r->prune && u != r->dst && !may_lie_on_route(r, u, e.d)) continue;
    /* Endpoints are leaves of every route: their distance is worked out
     * when one is asked for (endpoint_settle), so that a switch with
     * thousands of hosts does not visit them all for every destination. */
    for (int i = t->adj_first[u]; i < t->adj_fwd_end[u]; i++) {
      int v = t->adj_peer[i];
      int64_t d = e.d + link_cost(&t->links[t->adj_link[i]]);
      if (!r->settled[v] && d < r->dist[v]) {
        if (r->dist[v] == INT64_MAX) r->touched[r->ntouched++] = v;
        r->dist[v] = d;
        r->hops[v] = r->hops[u] + 1;
        if (hpush(r, d, v)) return;
      }
    }
  }
}

chorus_result_t topo_router_create(topo_router_t **out, const topo_t *t, int dst_dev) {
  *out = NULL;
  topo_router_t *r = calloc(1, sizeof *r);
  if (!r) return chorus_out_of_memory;
  r->dist = malloc(sizeof *r->dist * (t->ndevs + 1));
  r->hops = malloc(sizeof *r->hops * (t->ndevs + 1));
  r->settled = calloc(t->ndevs + 1, 1);
  r->touched = malloc(sizeof *r->touched * (t->ndevs + 1));
  if (!r->dist || !r->hops || !r->settled || !r->touched) {
    topo_router_destroy(r);
    return chorus_out_of_memory;
  }
  r->t = t;
  for (int d = 0; d < t->ndevs; d++) r->dist[d] = INT64_MAX, r->hops[d] = -1;
  r->dst = -1;
  chorus_result_t res = topo_router_retarget(r, dst_dev);
  if (res != chorus_success) {
    topo_router_destroy(r);
    return res;
  }
  *out = r;
  return chorus_success;
}

chorus_result_t topo_router_retarget(topo_router_t *r, int dst_dev) {
  for (int i = 0; i < r->ntouched; i++) {
    int v = r->touched[i];
    r->dist[v] = INT64_MAX, r->hops[v] = -1, r->settled[v] = 0;
  }
  r->ntouched = 0;
  r->nheap = 0;
  r->dst = dst_dev;
  r->dist[dst_dev] = 0;
  r->hops[dst_dev] = 0;
  r->touched[r->ntouched++] = dst_dev;
  return hpush(r, 0, dst_dev) ? chorus_out_of_memory : chorus_success;
}

void topo_router_destroy(topo_router_t *r) {
  if (!r) return;
  free(r->dist);
  free(r->hops);
  free(r->settled);
  free(r->touched);
  free(r->heap);
  free(r);
}

/* Settle an endpoint: its best route leaves through a neighbour that is the
 * destination or forwards. Explore until no unsettled neighbour could offer
 * as short a route (so that ties are all known, for ECMP). */
static void endpoint_settle(topo_router_t *r, int v) {
  const topo_t *t = r->t;
  int64_t cmin = INT64_MAX;
  for (int i = t->adj_first[v]; i < t->adj_first[v + 1]; i++) {
    int64_t c = link_cost(&t->links[t->adj_link[i]]);
    if (c < cmin) cmin = c;
  }
  if (cmin == INT64_MAX) return;
  for (;;) {
    int64_t best = INT64_MAX;
    int hops = -1;
    for (int i = t->adj_first[v]; i < t->adj_first[v + 1]; i++) {
      int u = t->adj_peer[i];
      if (!r->settled[u] || (u != r->dst && !t->devs[u].forward)) continue;
      int64_t d = r->dist[u] + link_cost(&t->links[t->adj_link[i]]);
      if (d < best) best = d, hops = r->hops[u] + 1;
    }
    /* Skip stale heap entries to see the true frontier. */
    while (r->nheap && (r->settled[r->heap[0].v] || r->heap[0].d != r->dist[r->heap[0].v])) hpop(r);
    if (!r->nheap || r->heap[0].d + cmin > best) {
      if (best == INT64_MAX) return;
      r->dist[v] = best;
      r->hops[v] = hops;
      r->settled[v] = 1;
      r->touched[r->ntouched++] = v;
      return;
    }
    int u = r->heap[0].v;
    settle_until(r, u);
  }
}

int topo_router_hops(const topo_router_t *r, int dev) {
  topo_router_t *w = (topo_router_t *)r;
  if (!w->settled[dev]) {
    if (dev != w->dst && !w->t->devs[dev].forward) endpoint_settle(w, dev);
    else settle_until(w, dev);
  }
  return w->settled[dev] ? w->hops[dev] : -1;
}

static inline uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

int topo_router_route(const topo_router_t *r, int src_dev, uint64_t key, int32_t *res, double *lat) {
  const topo_t *t = r->t;
  *lat = 0;
  if (topo_router_hops(r, src_dev) < 0) return -1;
  if (src_dev == r->dst) {
    res[0] = 2 * t->nlinks + src_dev;
    return 1;
  }
  int len = 0, x = src_dev;
  const int dst = r->dst;
  while (x != dst) {
    /* Every device on a shortest route from x is nearer than x, so settled.
     * Candidates: forwarding neighbours, then the links from x to dst. */
    int ncand = 0;
    for (int i = t->adj_first[x]; i < t->adj_fwd_end[x]; i++) {
      int y = t->adj_peer[i];
      if (y != dst && r->settled[y] && r->dist[y] + link_cost(&t->links[t->adj_link[i]]) == r->dist[x]) ncand++;
    }
    for (int i = t->adj_first[dst]; i < t->adj_first[dst + 1]; i++)
      if (t->adj_peer[i] == x && link_cost(&t->links[t->adj_link[i]]) == r->dist[x]) ncand++;
    int pick = ncand > 1 ? (int)(mix64(key ^ ((uint64_t)(uint32_t)x * 0x9e3779b97f4a7c15ull)) % (uint64_t)ncand) : 0;
    int l = -1, y = -1;
    for (int i = t->adj_first[x]; i < t->adj_fwd_end[x] && l < 0; i++) {
      int v = t->adj_peer[i];
      if (v != dst && r->settled[v] && r->dist[v] + link_cost(&t->links[t->adj_link[i]]) == r->dist[x] && pick-- == 0)
        l = t->adj_link[i], y = v;
    }
    for (int i = t->adj_first[dst]; i < t->adj_first[dst + 1] && l < 0; i++)
      if (t->adj_peer[i] == x && link_cost(&t->links[t->adj_link[i]]) == r->dist[x] && pick-- == 0)
        l = t->adj_link[i], y = dst;
    if (l < 0) return -1;
    const topo_link_t *k = &t->links[l];
    res[len++] = k->half ? 2 * l : 2 * l + (x == k->a ? 0 : 1);
    *lat += k->lat;
    x = y;
  }
  return len;
}

/* --- one route at a time --- */

chorus_result_t topo_pathfinder_create(topo_pathfinder_t **out, const topo_t *t) {
  *out = NULL;
  topo_pathfinder_t *pf = calloc(1, sizeof *pf);
  if (!pf) return chorus_out_of_memory;
  pf->t = t;
  pf->dist = malloc(sizeof *pf->dist * (t->ndevs + 1));
  pf->settled = calloc(t->ndevs + 1, 1);
  pf->touched = malloc(sizeof *pf->touched * (t->ndevs + 1));
  if (!pf->dist || !pf->settled || !pf->touched || t->ndevs < 1 ||
      topo_router_create(&pf->back, t, 0) != chorus_success) {
    topo_pathfinder_destroy(pf);
    return chorus_out_of_memory;
  }
  for (int d = 0; d < t->ndevs; d++) pf->dist[d] = INT64_MAX;
  *out = pf;
  return chorus_success;
}

void topo_pathfinder_destroy(topo_pathfinder_t *pf) {
  if (!pf) return;
  topo_router_destroy(pf->back);
  free(pf->dist);
  free(pf->settled);
  free(pf->touched);
  free(pf->heap);
  free(pf);
}

/* Drop heap entries of devices already settled or since improved. */
static void skip_stale(struct hent *hp, size_t *n, const int64_t *dist, const uint8_t *settled) {
  while (*n && (settled[hp[0].v] || hp[0].d != dist[hp[0].v])) heap_pop(hp, n);
}

/* The route is the one topo_router_route gives (the same ECMP picks), found
 * in two steps. A search from each end, in turns, until the two frontiers
 * prove the shortest distance D: each explores about half of D, where one
 * search from dst would explore everything nearer than the source (on a
 * large fabric, most of it). Then dst's search goes on to the source with
 * every device that cannot be on a route of length D left unexpanded, which
 * keeps the distances of all devices on shortest routes exact: those are all
 * that the ECMP walk reads. */
int topo_route_pair(topo_pathfinder_t *pf, int src_dev, int dst_dev, uint64_t key, int32_t *res, double *lat) {
  const topo_t *t = pf->t;
  topo_router_t *b = pf->back;
  *lat = 0;
  if (topo_router_retarget(b, dst_dev) != chorus_success) return -2;
  if (src_dev == dst_dev || t->devs[src_dev].forward) return topo_router_route(b, src_dev, key, res, lat);
  for (int i = 0; i < pf->ntouched; i++) pf->dist[pf->touched[i]] = INT64_MAX, pf->settled[pf->touched[i]] = 0;
  pf->ntouched = 0;
  pf->nheap = 0;
  int64_t mu = INT64_MAX; /* the shortest route seen so far */
  for (int i = t->adj_first[dst_dev]; i < t->adj_first[dst_dev + 1]; i++)
    if (t->adj_peer[i] == src_dev && link_cost(&t->links[t->adj_link[i]]) < mu)
      mu = link_cost(&t->links[t->adj_link[i]]);
  pf->dist[src_dev] = 0;
  pf->touched[pf->ntouched++] = src_dev;
  if (heap_push(&pf->heap, &pf->nheap, &pf->cap, 0, src_dev)) return -2;
  for (;;) {
    skip_stale(pf->heap, &pf->nheap, pf->dist, pf->settled);
    skip_stale(b->heap, &b->nheap, b->dist, b->settled);
    if (!pf->nheap || !b->nheap) break;
    int64_t tf = pf->heap[0].d, tb = b->heap[0].d;
    if (tf >= mu - tb) break;
    int fwd = tf <= tb;
    struct hent e = fwd ? heap_pop(pf->heap, &pf->nheap) : heap_pop(b->heap, &b->nheap);
    int u = e.v;
    int64_t *dist = fwd ? pf->dist : b->dist;
    const int64_t *other = fwd ? b->dist : pf->dist;
    uint8_t *settled = fwd ? pf->settled : b->settled;
    settled[u] = 1;
    for (int i = t->adj_first[u]; i < t->adj_fwd_end[u]; i++) {
      int v = t->adj_peer[i];
      int64_t d = e.d + link_cost(&t->links[t->adj_link[i]]);
      if (other[v] != INT64_MAX && other[v] < mu - d) mu = d + other[v];
      if (settled[v] || d >= dist[v]) continue;
      if (fwd) {
        if (pf->dist[v] == INT64_MAX) pf->touched[pf->ntouched++] = v;
        pf->dist[v] = d;
        if (heap_push(&pf->heap, &pf->nheap, &pf->cap, d, v)) return -2;
      } else {
        if (b->dist[v] == INT64_MAX) b->touched[b->ntouched++] = v;
        b->dist[v] = d;
        b->hops[v] = b->hops[u] + 1;
        if (hpush(b, d, v)) return -2;
      }
    }
  }
  skip_stale(pf->heap, &pf->nheap, pf->dist, pf->settled);
  pf->frontier = pf->nheap ? pf->heap[0].d : INT64_MAX;
  /* No meeting: unreachable, as the full search would confirm (rare, and
   * an error for the caller, so not worth a shortcut). */
  b->prune = mu == INT64_MAX ? NULL : pf;
  b->prune_max = mu;
  int len = topo_router_route(b, src_dev, key, res, lat);
  b->prune = NULL;
  return len;
}

/* The device whose memory is resource res (res >= topo_nres). */
static const topo_dev_t *mem_of(const topo_t *t, int res) {
  for (int d = 0; d < t->ndevs; d++)
    if (t->devs[d].mem_res == res) return &t->devs[d];
  return NULL;
}

double topo_res_cap(const topo_t *t, int res) {
  if (res < 2 * t->nlinks) return t->links[res / 2].bw;
  if (res >= topo_nres(t)) {
    const topo_dev_t *m = mem_of(t, res);
    return m ? m->mem_bw : 0;
  }
  return t->devs[res - 2 * t->nlinks].copy_bw;
}

void topo_res_name(const topo_t *t, int res, char *buf, size_t len) {
  if (res >= topo_nres(t)) {
    const topo_dev_t *m = mem_of(t, res);
    snprintf(buf, len, "%s (memory bandwidth)", m ? m->name : "?");
    return;
  }
  if (res >= 2 * t->nlinks) {
    snprintf(buf, len, "%s (local memory)", t->devs[res - 2 * t->nlinks].name);
    return;
  }
  const topo_link_t *k = &t->links[res / 2];
  const char *a = t->devs[k->a].name, *b = t->devs[k->b].name;
  if (k->half) snprintf(buf, len, "%s <-> %s", a, b);
  else if (res % 2 == 0) snprintf(buf, len, "%s -> %s", a, b);
  else snprintf(buf, len, "%s -> %s", b, a);
}

void topo_fmt_bw(double bw, char *buf, size_t len) {
  if (bw <= 0) snprintf(buf, len, "unlimited");
  else if (bw >= 1e9) snprintf(buf, len, "%.4gGB/s", bw / 1e9);
  else snprintf(buf, len, "%.4gMB/s", bw / 1e6);
}

void topo_fmt_time(double s, char *buf, size_t len) {
  if (s >= 1e-3) snprintf(buf, len, "%.4gms", s * 1e3);
  else if (s >= 1e-6 || s == 0) snprintf(buf, len, "%.4gus", s * 1e6);
  else snprintf(buf, len, "%.4gns", s * 1e9);
}

/* --- views --- */

/* The nvidia-smi-style class of the route from rank i to rank j. */
static void path_class(const topo_t *t, const topo_router_t *r, int i, int j, char *buf, size_t len) {
  int si = t->rank_dev[i], dj = t->rank_dev[j];
  if (i == j) {
    snprintf(buf, len, "X");
    return;
  }
  if (si == dj) {
    snprintf(buf, len, "MEM");
    return;
  }
  int32_t res[512];
  double lat;
  int hops = topo_router_hops(r, si);
  if (hops < 0 || hops > 255) {
    snprintf(buf, len, hops < 0 ? "-" : "FAR");
    return;
  }
  int n = topo_router_route(r, si, topo_flow_key(i, j, 0), res, &lat);
  int net = 0, nic = 0, nv = 0, pcie = 0, cpu = 0;
  int x = si;
  for (int k = 0; k < n; k++) {
    const topo_link_t *l = &t->links[res[k] / 2];
    int y = l->a == x ? l->b : l->a;
    if (y != dj) {
      switch (t->devs[y].kind) {
      case TOPO_SWITCH: net++; break;
      case TOPO_NIC: nic++; break;
      case TOPO_NVSWITCH: nv++; break;
      case TOPO_PCIE: pcie++; break;
      case TOPO_CPU:
      case TOPO_NUMA: cpu++; break;
      default: break;
      }
    }
    x = y;
  }
  if (net || nic) snprintf(buf, len, "NET%d", net);
  else if (nv || (n == 1 && t->devs[si].kind == TOPO_GPU && t->devs[dj].kind == TOPO_GPU && !pcie))
    snprintf(buf, len, "NV%d", n);
  else if (cpu > 1) snprintf(buf, len, "SYS");
  else if (cpu == 1) snprintf(buf, len, "PHB");
  else if (pcie > 1) snprintf(buf, len, "PXB");
  else if (pcie == 1) snprintf(buf, len, "PIX");
  else snprintf(buf, len, "L%d", n);
}

void topo_print(const topo_t *t, FILE *f, int max_ranks) {
  if (max_ranks <= 0) max_ranks = 32;
  fprintf(f, "topology %s\n", t->name);
  if (t->params[0]) fprintf(f, "parameters: %s\n", t->params);
  int kinds[TOPO_NUM_KINDS] = {0};
  for (int d = 0; d < t->ndevs; d++) kinds[t->devs[d].kind]++;
  fprintf(f, "devices: %d (", t->ndevs);
  for (int k = 0, first = 1; k < TOPO_NUM_KINDS; k++)
    if (kinds[k]) fprintf(f, "%s%d %s", first ? "" : ", ", kinds[k], topo_kind_name(k)), first = 0;
  fprintf(f, "), hosts: %d, links: %d, ranks: %d\n", t->nhosts, t->nlinks, t->nranks);
  /* Link classes: (kind a, kind b, bw, lat, duplex), counted. */
  fprintf(f, "link classes:\n");
  char *done = calloc(t->nlinks + 1, 1);
  for (int l = 0; done && l < t->nlinks; l++) {
    if (done[l]) continue;
    const topo_link_t *a = &t->links[l];
    int ka = t->devs[a->a].kind, kb = t->devs[a->b].kind, count = 0;
    for (int m = l; m < t->nlinks; m++) {
      const topo_link_t *b = &t->links[m];
      int ma = t->devs[b->a].kind, mb = t->devs[b->b].kind;
      if (!done[m] && ((ma == ka && mb == kb) || (ma == kb && mb == ka)) && b->bw == a->bw && b->lat == a->lat &&
          b->half == a->half)
        done[m] = 1, count++;
    }
    char bw[32], lat[32];
    topo_fmt_bw(a->bw, bw, sizeof bw);
    topo_fmt_time(a->lat, lat, sizeof lat);
    fprintf(f, "  %6d x %-8s - %-8s %12s %9s %s duplex  (e.g. %s - %s)\n", count, topo_kind_name(ka),
            topo_kind_name(kb), bw, lat, a->half ? "half" : "full", t->devs[a->a].name, t->devs[a->b].name);
  }
  free(done);
  fprintf(f, "protocols:");
  for (int p = 0; p < TOPO_NUM_PROTOS; p++) {
    char lat[32];
    topo_fmt_time(t->proto[p].step_lat, lat, sizeof lat);
    fprintf(f, " %s (step latency %s, efficiency %.4g)%s", topo_proto_name(p), lat, t->proto[p].efficiency,
            p + 1 < TOPO_NUM_PROTOS ? "," : "\n");
  }
  int shown = t->nranks < max_ranks ? t->nranks : max_ranks;
  fprintf(f, "ranks:\n");
  for (int r = 0; r < shown; r++) {
    const topo_dev_t *d = &t->devs[t->rank_dev[r]];
    char rb[32] = "-", cb[32] = "-";
    if (d->reduce_bw > 0) topo_fmt_bw(d->reduce_bw, rb, sizeof rb);
    if (d->copy_bw > 0) topo_fmt_bw(d->copy_bw, cb, sizeof cb);
    fprintf(f, "  rank %-5d %-24s host %-12s reduce %s copy %s", r, d->name, d->host >= 0 ? t->hosts[d->host] : "-",
            rb, cb);
    if (d->mem >= 0) {
      const topo_dev_t *m = &t->devs[d->mem];
      char mb[32], cache[32] = "none";
      topo_fmt_bw(m->mem_bw, mb, sizeof mb);
      if (m->llc > 0) snprintf(cache, sizeof cache, "%.4gMiB", m->llc / 1048576);
      fprintf(f, " memory %s (%s, cache %s)", m->name, mb, cache);
      if (d->copy_local_bw > 0) {
        topo_fmt_bw(d->copy_local_bw, cb, sizeof cb);
        fprintf(f, " local copy %s", cb);
      }
    }
    fprintf(f, "\n");
  }
  if (shown < t->nranks) fprintf(f, "  ... %d more ranks\n", t->nranks - shown);
  fprintf(f, "\npath matrix (row: from rank, column: to rank):\n%8s", "");
  for (int j = 0; j < shown; j++) fprintf(f, " %5d", j);
  fprintf(f, "\n");
  topo_router_t **routers = calloc(shown, sizeof *routers);
  for (int j = 0; routers && j < shown; j++)
    if (topo_router_create(&routers[j], t, t->rank_dev[j]) != chorus_success) routers[j] = NULL;
  for (int i = 0; i < shown; i++) {
    fprintf(f, "rank %-3d", i);
    for (int j = 0; j < shown; j++) {
      char c[16] = "?";
      if (routers && routers[j]) path_class(t, routers[j], i, j, c, sizeof c);
      fprintf(f, " %5s", c);
    }
    fprintf(f, "\n");
  }
  for (int j = 0; routers && j < shown; j++) topo_router_destroy(routers[j]);
  free(routers);
  fprintf(f, "\nlegend: X self, MEM same device, NV# NVLink (# links on the route), PIX one PCIe switch, PXB several\n"
             "PCIe switches, PHB through one CPU, SYS across CPUs/NUMA nodes, NET# across NICs with # network\n"
             "switches, L# other (# links)\n");
}

static const char *dot_shape(topo_kind_t k) {
  switch (k) {
  case TOPO_GPU: return "box3d";
  case TOPO_CPU:
  case TOPO_NUMA: return "component";
  case TOPO_NIC: return "cds";
  case TOPO_SWITCH:
  case TOPO_NVSWITCH:
  case TOPO_PCIE: return "diamond";
  default: return "ellipse";
  }
}

void topo_write_dot(const topo_t *t, FILE *f) {
  fprintf(f, "// chorus topo dot %s\ngraph \"%s\" {\n  graph [rankdir=TB, fontname=\"Helvetica\"];\n"
             "  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n",
          t->path, t->name);
  int *ranks_of = calloc(t->ndevs + 1, sizeof *ranks_of);
  for (int r = 0; ranks_of && r < t->nranks; r++) ranks_of[t->rank_dev[r]]++;
  for (int h = -1; h < t->nhosts; h++) {
    if (h >= 0) fprintf(f, "  subgraph \"cluster_%s\" {\n    label=\"%s\";\n    style=rounded;\n", t->hosts[h], t->hosts[h]);
    for (int d = 0; d < t->ndevs; d++) {
      if (t->devs[d].host != h) continue;
      int first = -1;
      for (int r = 0; first < 0 && r < t->nranks; r++)
        if (t->rank_dev[r] == d) first = r;
      char label[256];
      if (first >= 0 && ranks_of[d] > 1)
        snprintf(label, sizeof label, "%s\\nranks %d..%d", t->devs[d].name, first, first + ranks_of[d] - 1);
      else if (first >= 0) snprintf(label, sizeof label, "%s\\nrank %d", t->devs[d].name, first);
      else snprintf(label, sizeof label, "%s", t->devs[d].name);
      fprintf(f, "%s  \"%s\" [shape=%s, label=\"%s\"%s];\n", h >= 0 ? "  " : "", t->devs[d].name,
              dot_shape(t->devs[d].kind), label, first >= 0 ? ", style=filled, fillcolor=\"#cfe8ff\"" : "");
    }
    if (h >= 0) fprintf(f, "  }\n");
  }
  free(ranks_of);
  for (int l = 0; l < t->nlinks; l++) {
    const topo_link_t *k = &t->links[l];
    char bw[32], lat[32];
    topo_fmt_bw(k->bw, bw, sizeof bw);
    topo_fmt_time(k->lat, lat, sizeof lat);
    fprintf(f, "  \"%s\" -- \"%s\" [label=\"%s %s%s\"];\n", t->devs[k->a].name, t->devs[k->b].name, bw, lat,
            k->half ? " half" : "");
  }
  fprintf(f, "}\n");
}
