/* topo_view.h -- a topology for people: the summary and path matrix of
 * `chorus topo show`, Graphviz, and the bandwidth and time formats every
 * report uses. */
#ifndef CHORUS_TOPO_VIEW_H
#define CHORUS_TOPO_VIEW_H

#include <stddef.h>
#include <stdio.h>

#include "topo.h"

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
