/* topo_view.c -- the views of a topology (topo_view.h): `topo show`'s
 * summary and nvidia-smi-style path matrix, Graphviz, and number formats. */
#include <stdlib.h>
#include <string.h>

#include "topo_route.h"
#include "topo_view.h"

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

/* The nvidia-smi-style class of the route from rank i to rank j: channel
 * 0's, the route the simulator gives that connection (between hosts,
 * through the NICs channel 0 is bound to). */
static void path_class(const topo_t *t, topo_pathfinder_t *pf, int32_t *res, int i, int j, char *buf, size_t len) {
  int si = t->rank_dev[i], dj = t->rank_dev[j];
  if (i == j) {
    snprintf(buf, len, "X");
    return;
  }
  if (si == dj) {
    snprintf(buf, len, "MEM");
    return;
  }
  double lat;
  int n = topo_route_conn(pf, i, j, 0, 0, res, &lat);
  if (n < 0) {
    snprintf(buf, len, n == -1 ? "-" : "?");
    return;
  }
  int net = 0, nic = 0, nv = 0, pcie = 0, cpu = 0;
  int x = si, links = 0;
  for (int k = 0; k < n; k++) {
    if (res[k] >= 2 * t->nlinks) continue; /* a device's forward_bw, not a hop */
    links++;
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
  else if (nv || (links == 1 && t->devs[si].kind == TOPO_GPU && t->devs[dj].kind == TOPO_GPU && !pcie))
    snprintf(buf, len, "NV%d", links);
  else if (cpu > 1) snprintf(buf, len, "SYS");
  else if (cpu == 1) snprintf(buf, len, "PHB");
  else if (pcie > 1) snprintf(buf, len, "PXB");
  else if (pcie == 1) snprintf(buf, len, "PIX");
  else snprintf(buf, len, "L%d", links);
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
  int nfwd = 0;
  for (int i = 0; i < t->ndevs; i++)
    if (t->devs[i].forward_bw > 0) {
      char bw[32];
      topo_fmt_bw(t->devs[i].forward_bw, bw, sizeof bw);
      fprintf(f, "%s %s %s", nfwd++ ? "," : "shared by the routes through them:", t->devs[i].name, bw);
    }
  if (nfwd) fprintf(f, "\n");
  fprintf(f, "protocols:");
  for (int p = 0; p < TOPO_NUM_PROTOS; p++) {
    char lat[80], ovh[96] = "";
    topo_fmt_time(t->proto[p].step_lat, lat, sizeof lat);
    if (t->proto[p].has_net_lat) {
      char n[32];
      topo_fmt_time(t->proto[p].net_lat, n, sizeof n);
      snprintf(lat + strlen(lat), sizeof lat - strlen(lat), " (%s through a NIC)", n);
    }
    if (t->proto[p].overhead > 0 || t->proto[p].base > 0) {
      char o[32], b[32];
      topo_fmt_time(t->proto[p].overhead, o, sizeof o);
      topo_fmt_time(t->proto[p].base, b, sizeof b);
      snprintf(ovh, sizeof ovh, ", overhead %s, base %s", o, b);
    }
    fprintf(f, " %s (step latency %s, efficiency %.4g%s)%s", topo_proto_name(p), lat, t->proto[p].efficiency, ovh,
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
  topo_pathfinder_t *pf = NULL;
  int32_t *res = malloc(sizeof *res * topo_route_conn_cap(t));
  if (res && topo_pathfinder_create(&pf, t) != chorus_success) pf = NULL;
  for (int i = 0; i < shown; i++) {
    fprintf(f, "rank %-3d", i);
    for (int j = 0; j < shown; j++) {
      char c[16] = "?";
      if (pf) path_class(t, pf, res, i, j, c, sizeof c);
      fprintf(f, " %5s", c);
    }
    fprintf(f, "\n");
  }
  topo_pathfinder_destroy(pf);
  free(res);
  fprintf(f, "\nlegend: X self, MEM same device, NV# NVLink (# links on the route), PIX one PCIe switch, PXB several\n"
             "PCIe switches, PHB through one CPU, SYS across CPUs/NUMA nodes, NET# across NICs with # network\n"
             "switches, L# other (# links); the route of channel 0 (between hosts, through its NICs)\n");
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
