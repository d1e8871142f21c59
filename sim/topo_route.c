/* topo_route.c -- routes between devices (topo_route.h).
 *
 * Routing is shortest path in hops (among equally short routes, the one of
 * the fastest links), passing only through devices that forward (switches,
 * NICs, CPUs; never a GPU or a host endpoint). Where several next hops are equally short, one is picked by hashing the flow key
 * with the device, as an ECMP switch hashes a flow's header: a given flow
 * always takes the same path, and different flows spread (and sometimes
 * collide, as they do on real fabrics). */
#include <stdlib.h>
#include <string.h>

#include "topo_route.h"

struct topo_router {
  const topo_t *t;
  int dst;
  int dst_port; /* dst's number for routing dmodk: its port on its switch */
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
  /* D mod K numbers a destination by the port it hangs on: its place among
   * the links of the fabric switch it is linked to (a leaf's down ports, in
   * the order the topology declares them); a device on no switch by its
   * own number. */
  const topo_t *t = r->t;
  r->dst_port = dst_dev;
  for (int i = t->adj_first[dst_dev]; i < t->adj_first[dst_dev + 1]; i++) {
    int n = t->adj_peer[i];
    if (t->devs[n].kind != TOPO_SWITCH) continue;
    for (int j = t->adj_first[n]; j < t->adj_first[n + 1]; j++)
      if (t->adj_peer[j] == dst_dev) {
        r->dst_port = j - t->adj_first[n];
        break;
      }
    break;
  }
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
    int pick = ncand < 2                         ? 0
               : t->routing == TOPO_ROUTE_DMODK ? r->dst_port % ncand
                                                : (int)(mix64(key ^ ((uint64_t)(uint32_t)x * 0x9e3779b97f4a7c15ull)) %
                                                        (uint64_t)ncand);
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
    /* A device it passes through that limits what crosses it. */
    if (y != dst && t->devs[y].forward_bw > 0) res[len++] = 2 * t->nlinks + y;
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

int topo_route_crosses(const topo_t *t, const int32_t *res, int len, topo_kind_t kind) {
  for (int i = 0; i < len; i++) {
    if (res[i] >= 2 * t->nlinks) continue; /* a device's forward_bw, not a link */
    const topo_link_t *l = &t->links[res[i] / 2];
    if (t->devs[l->a].kind == kind || t->devs[l->b].kind == kind) return 1;
  }
  return 0;
}

/* Append the route from a to b to res at *len; 0, or topo_route_pair's error. */
static int segment(topo_pathfinder_t *pf, int a, int b, uint64_t key, int32_t *res, int *len, double *lat) {
  if (a == b) return 0;
  double l;
  int n = topo_route_pair(pf, a, b, key, res + *len, &l);
  if (n < 0) return n;
  *len += n, *lat += l;
  return 0;
}

/* The NIC (0 .. k-1 of its host's) rank r uses on channel ch: channel ch's,
 * ch mod k, as NCCL binds a ring's channel to one NIC on each host; with
 * by_rank (a plan whose ranks each keep to their own rail, plan.h), its
 * nearest when its host has a rank for every NIC, so that rail l keeps to
 * NIC l on every channel. */
static int conn_nic(const topo_t *t, int r, int host, int k, int ch, int by_rank) {
  if (by_rank && t->host_ranks[host] >= k && t->rank_nic[r] >= 0) return t->rank_nic[r];
  return ch % k;
}

int topo_route_conn(topo_pathfinder_t *pf, int src, int dst, int ch, int by_rank, int32_t *res, double *lat) {
  const topo_t *t = pf->t;
  int sd = t->rank_dev[src], dd = t->rank_dev[dst];
  int hs = t->devs[sd].host, hd = t->devs[dd].host;
  int ks = topo_host_nics(t, hs), kd = topo_host_nics(t, hd);
  uint64_t key = topo_flow_key(src, dst, ch);
  if (hs == hd || ks == 0 || kd == 0) return topo_route_pair(pf, sd, dd, key, res, lat);
  int is = t->host_nic_first[hs] + conn_nic(t, src, hs, ks, ch, by_rank);
  int id = t->host_nic_first[hd] + conn_nic(t, dst, hd, kd, ch, by_rank);
  int ns = t->host_nic[is], nd = t->host_nic[id];
  int len = 0, e;
  *lat = 0;
  /* To the channel's NIC: directly, or through the GPU beside it. */
  if ((e = segment(pf, sd, ns, key, res, &len, lat)) != 0) return e;
  int proxy = t->nic_proxy[is];
  if (proxy >= 0 && proxy != sd && topo_route_crosses(t, res, len, TOPO_CPU)) {
    int plen = 0;
    double plat = 0;
    int32_t *alt = res + len; /* the first segment's room is reused if PXN wins */
    if ((e = segment(pf, sd, proxy, key, alt, &plen, &plat)) == -2) return e;
    if (e == 0 && !topo_route_crosses(t, alt, plen, TOPO_CPU)) {
      memmove(res, alt, sizeof *res * (size_t)plen);
      len = plen, *lat = plat;
      if ((e = segment(pf, proxy, ns, key, res, &len, lat)) != 0) return e;
    }
  }
  if ((e = segment(pf, ns, nd, key, res, &len, lat)) != 0) return e;
  if ((e = segment(pf, nd, dd, key, res, &len, lat)) != 0) return e;
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
  /* An endpoint's: the copy between two ranks on it; a forwarding
   * device's: what the routes through it share. */
  const topo_dev_t *d = &t->devs[res - 2 * t->nlinks];
  return d->forward ? d->forward_bw : d->copy_bw;
}

void topo_res_name(const topo_t *t, int res, char *buf, size_t len) {
  if (res >= topo_nres(t)) {
    const topo_dev_t *m = mem_of(t, res);
    snprintf(buf, len, "%s (memory bandwidth)", m ? m->name : "?");
    return;
  }
  if (res >= 2 * t->nlinks) {
    const topo_dev_t *d = &t->devs[res - 2 * t->nlinks];
    snprintf(buf, len, "%s (%s)", d->name, d->forward ? "routes through it" : "local memory");
    return;
  }
  const topo_link_t *k = &t->links[res / 2];
  const char *a = t->devs[k->a].name, *b = t->devs[k->b].name;
  if (k->half) snprintf(buf, len, "%s <-> %s", a, b);
  else if (res % 2 == 0) snprintf(buf, len, "%s -> %s", a, b);
  else snprintf(buf, len, "%s -> %s", b, a);
}
