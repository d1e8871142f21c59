/* topo_detect.c -- `chorus topo detect`: the machine as hwloc sees it
 * (packages, NUMA nodes, cores, the last-level cache, PCI devices: NVIDIA
 * GPUs and NICs with their PCIe link rates, and NVLink bandwidths where
 * hwloc's NVML plugin reports them) written as a topology script in the
 * simulator's format. The CPU side is lib/cpu.lua's host (the CPU engine's
 * model, rates read with param() so that `chorus calibrate --topo FILE`
 * fits them); GPUs hang off their PCIe switch or root port, that off the
 * NUMA node it is local to, and carry the ranks when there are any. */
#include "topo_detect.h"

#include <dlfcn.h>
#include <hwloc.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DETECT_MAX_DEVS 64
#define DETECT_MAX_PORTS 64

typedef struct {
  hwloc_obj_t obj;  /* the PCI device */
  int gpu;          /* 1 GPU, 0 NIC */
  int port;         /* index into the detected ports */
  char name[64];    /* gpu0, nic1 */
  char os[64];      /* the OS device's name: nvml0, mlx5_0, eth0 */
  double link;      /* PCIe GB/s per direction; 0 when hwloc does not know */
} det_dev_t;

typedef struct {
  hwloc_obj_t top; /* the bridge right under the host bridge (a switch or root port); NULL: on the host bridge */
  hwloc_obj_t host; /* the host bridge */
  int numa;         /* the NUMA node it is local to */
  double link;      /* GB/s of its upstream link (0: unknown) */
} det_port_t;

/* The NUMA node (logical index) an object is local to: the first NUMA node
 * of its first non-I/O ancestor. */
static int numa_of(hwloc_topology_t t, hwloc_obj_t o) {
  hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(t, o);
  if (!a || !a->nodeset) return 0;
  int first = hwloc_bitmap_first(a->nodeset);
  hwloc_obj_t n = first >= 0 ? hwloc_get_numanode_obj_by_os_index(t, (unsigned)first) : NULL;
  return n ? (int)n->logical_index : 0;
}

/* The PCIe port a device sits below: the topmost bridge under its host
 * bridge (a switch's upstream port, or a root port). */
static void port_of(hwloc_obj_t o, hwloc_obj_t *top, hwloc_obj_t *host) {
  *top = NULL, *host = NULL;
  for (hwloc_obj_t a = o->parent; a; a = a->parent) {
    if (a->type != HWLOC_OBJ_BRIDGE) break;
    if (a->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
      *host = a;
      break;
    }
    *top = a;
  }
}

static const char *first_osdev(hwloc_obj_t o, int want_type) {
  for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE && (want_type < 0 || (int)c->attr->osdev.type == want_type)) return c->name;
  return NULL;
}

/* A rate in GB/s as the topology quantity, "31.5GB/s". */
static void fmt_rate(double gbs, char *buf, size_t len) { snprintf(buf, len, "%.4gGB/s", gbs); }

int topo_detect(const char *xml, FILE *f) {
  /* hwloc's PCI plugin (Debian libhwloc-plugins) reads the bus through
   * libpciaccess, which keeps the device list in a static pointer; hwloc
   * unloads the plugin, and with it the library, when the topology goes, and
   * the list is then out of every reach (LeakSanitizer reports it). Loaded
   * here first, never unloaded, the library keeps its pointer. */
  if (!dlopen("libpciaccess.so.0", RTLD_NOW | RTLD_NODELETE)) (void)dlerror();
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return fprintf(stderr, "chorus topo detect: hwloc cannot start\n"), -1;
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (xml && hwloc_topology_set_xml(t, xml) != 0) {
    fprintf(stderr, "chorus topo detect: --xml %s: hwloc cannot read it (an hwloc XML export, lstopo --of xml)\n",
            xml);
    hwloc_topology_destroy(t);
    return -1;
  }
  if (hwloc_topology_load(t) != 0) {
    fprintf(stderr, "chorus topo detect: hwloc could not read %s\n", xml ? xml : "this machine");
    hwloc_topology_destroy(t);
    return -1;
  }
  int packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  int numa = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  if (packages < 1) packages = 1;
  if (numa < 1) numa = 1;
  if (cores < 1) cores = pus > 0 ? pus : 1;
  /* The last-level cache: the largest data or unified cache hwloc knows. */
  unsigned long long llc = 0, mem = 0;
  for (hwloc_obj_type_t ty = HWLOC_OBJ_L1CACHE; ty <= HWLOC_OBJ_L5CACHE; ty++) {
    hwloc_obj_t c = hwloc_get_obj_by_type(t, ty, 0);
    if (c && c->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION && c->attr->cache.size > llc) llc = c->attr->cache.size;
  }
  for (int i = 0; i < numa; i++) {
    hwloc_obj_t n = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
    if (n) mem += n->attr->numanode.local_memory;
  }
  /* GPUs (NVIDIA display or 3D controllers) and NICs (network and
   * InfiniBand controllers), each on its port. */
  det_dev_t dev[DETECT_MAX_DEVS];
  det_port_t port[DETECT_MAX_PORTS];
  int ndev = 0, nport = 0, ngpu = 0, nnic = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t, o)) && ndev < DETECT_MAX_DEVS;) {
    unsigned cls = o->attr->pcidev.class_id >> 8;
    int gpu = cls == 0x03 && o->attr->pcidev.vendor_id == 0x10de, nic = cls == 0x02;
    if (!gpu && !nic) continue;
    det_dev_t *d = &dev[ndev];
    memset(d, 0, sizeof *d);
    d->obj = o, d->gpu = gpu, d->link = o->attr->pcidev.linkspeed;
    snprintf(d->name, sizeof d->name, "%s%d", gpu ? "gpu" : "nic", gpu ? ngpu++ : nnic++);
    const char *os = gpu ? first_osdev(o, -1) : first_osdev(o, HWLOC_OBJ_OSDEV_OPENFABRICS);
    if (!os) os = first_osdev(o, -1);
    snprintf(d->os, sizeof d->os, "%s", os ? os : "");
    hwloc_obj_t top, host;
    port_of(o, &top, &host);
    int p = 0;
    while (p < nport && !(port[p].top == top && port[p].host == host)) p++;
    if (p == nport && nport < DETECT_MAX_PORTS) {
      port[p] = (det_port_t){.top = top, .host = host, .numa = numa_of(t, o),
                             .link = top && top->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI
                                         ? top->attr->bridge.upstream.pci.linkspeed
                                         : 0};
      nport++;
    }
    d->port = p;
    ndev++;
  }
  /* NVLink: hwloc's NVML plugin reports a matrix of NVLink bandwidths (MB/s)
   * between the GPUs' OS devices. */
  struct hwloc_distances_s *nvl = NULL;
  unsigned nd = 1;
  if (hwloc_distances_get_by_name(t, "NVLinkBandwidth", &nd, &nvl, 0) != 0 || nd == 0) nvl = NULL;

  char host[256] = "?", date[64];
  gethostname(host, sizeof host);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  fprintf(f, "-- Written by `chorus topo detect` on %s, %s, from %s (hwloc %s):\n", host, date,
          xml ? xml : "this machine", HWLOC_VERSION);
  fprintf(f, "-- %d package%s, %d NUMA node%s (%.1f GiB), %d cores (%d hardware threads), last-level cache %llu KiB;\n",
          packages, packages == 1 ? "" : "s", numa, numa == 1 ? "" : "s", (double)mem / (1 << 30), cores, pus,
          llc / 1024);
  fprintf(f, "-- %d NVIDIA GPU%s, %d NIC%s%s.\n", ngpu, ngpu == 1 ? "" : "s", nnic, nnic == 1 ? "" : "s",
          nvl ? ", NVLink bandwidths from NVML" : ngpu ? " (no NVLink reported: hwloc has no NVML here)" : "");
  fprintf(f, "-- The CPU rates are lib/cpu.lua's defaults (local-cpu.lua's) until\n"
             "--   chorus calibrate --topo THIS_FILE --out calibrated.lua\n"
             "-- fits them; GPU rates are parameters with datasheet-order defaults. %s\n",
          ngpu ? "Ranks on the GPUs (ranks_on = \"cpu\": on the cores)." : "Ranks on the cores.");
  fprintf(f, "local cpu = require \"cpu\"\nlocal q = require \"quantity\"\n\n");
  if (ngpu) fprintf(f, "local ranks_on = param(\"ranks_on\", \"gpu\")\n");
  fprintf(f, "local n = param(\"ranks\", %d)\n", ngpu ? ngpu : cores);
  fprintf(f, "cpu.host {\n  ranks = %s, cores = param(\"cores\", %d), numa = param(\"numa\", %d), "
             "packages = param(\"packages\", %d),\n",
          ngpu ? "ranks_on == \"cpu\" and n or 0" : "n", cores, numa, packages);
  fprintf(f, "  mem_bw = param(\"mem_bw\", \"50GB/s\"), llc = param(\"llc\", \"%lluKiB\"),\n", llc ? llc / 1024 : 32768);
  fprintf(f, "  cache = param(\"cache\", \"\"), llc_bw = param(\"llc_bw\", \"\"), -- the private caches and the llc's rate: "
             "chorus calibrate\n");
  fprintf(f, "  numa_bw = param(\"numa_bw\", \"20GB/s\"), numa_lat = param(\"numa_lat\", \"0.1us\"),\n"
             "  socket_bw = param(\"socket_bw\", \"10GB/s\"), socket_lat = param(\"socket_lat\", \"0.2us\"),\n"
             "  copy_bw = param(\"copy_bw\", \"32GB/s\"), copy_local_bw = param(\"copy_local_bw\", \"100GB/s\"),\n"
             "  reduce_bw = param(\"reduce_bw\", \"23GB/s\"), op_overhead = param(\"op_overhead\", \"0.2us\"),\n"
             "  step_lat = param(\"step_lat\", \"0.7us\"), wake_lat = param(\"wake_lat\", \"12us\"),\n}\n");
  if (ndev) {
    fprintf(f, "\n-- PCIe: every switch or root port with a GPU or NIC below it, on the NUMA node it is local to.\n");
    fprintf(f, "-- hwloc gives each link's line rate; links are declared at pcie_eff of it (lib/cluster.lua).\n"
               "local pcie_bw = param(\"pcie_bw\", \"32GB/s\") -- where hwloc gives no link rate\n"
               "local pcie_eff = param(\"pcie_eff\", 0.8)\n"
               "local function rate(detected) return q.divide(detected or pcie_bw, 1 / pcie_eff, \"pcie\") end\n");
    for (int p = 0; p < nport; p++) {
      if (!port[p].top) continue; /* on the host bridge itself: its devices link to their NUMA node */
      char r[32] = "";
      if (port[p].link > 0) fmt_rate(port[p].link, r, sizeof r);
      fprintf(f, "device { name = \"pcie%d\", kind = \"pcie\", host = \"local\" }\n", p);
      fprintf(f, "link { \"pcie%d\", \"numa%d\", bw = rate(%s%s%s), lat = \"0.25us\" }\n", p, port[p].numa,
              r[0] ? "\"" : "", r[0] ? r : "nil", r[0] ? "\"" : "");
    }
  }
  if (ngpu) {
    fprintf(f, "\nlocal gpu = { reduce_bw = param(\"gpu_reduce_bw\", \"600GB/s\"), copy_bw = param(\"gpu_copy_bw\", "
               "\"900GB/s\"),\n              op_overhead = param(\"gpu_op_overhead\", \"0.1us\") }\n");
  }
  for (int i = 0; i < ndev; i++) {
    det_dev_t *d = &dev[i];
    char r[32] = "";
    if (d->link > 0) fmt_rate(d->link, r, sizeof r);
    const struct hwloc_pcidev_attr_s *pa = &d->obj->attr->pcidev;
    if (d->gpu)
      fprintf(f, "device { name = \"%s\", kind = \"gpu\", host = \"local\", reduce_bw = gpu.reduce_bw, copy_bw = "
                 "gpu.copy_bw,\n         op_overhead = gpu.op_overhead }",
              d->name);
    else
      fprintf(f, "device { name = \"%s\", kind = \"nic\", host = \"local\" }", d->name);
    fprintf(f, " -- %04x:%02x:%02x.%x [%04x:%04x]%s%s\n", pa->domain, pa->bus, pa->dev, pa->func, pa->vendor_id,
            pa->device_id, d->os[0] ? " " : "", d->os);
    char up[32];
    if (port[d->port].top) snprintf(up, sizeof up, "pcie%d", d->port);
    else snprintf(up, sizeof up, "numa%d", port[d->port].numa);
    fprintf(f, "link { \"%s\", \"%s\", bw = rate(%s%s%s), lat = \"0.25us\" }\n", d->name, up, r[0] ? "\"" : "",
            r[0] ? r : "nil", r[0] ? "\"" : "");
  }
  int nvlinks = 0;
  if (nvl && ngpu) {
    fprintf(f, "\n-- NVLink (NVML, per direction), at nvlink_eff of the reported rate.\n"
               "local nvlink_eff = param(\"nvlink_eff\", 0.82)\n");
    for (unsigned a = 0; a < nvl->nbobjs; a++)
      for (unsigned b = a + 1; b < nvl->nbobjs; b++) {
        unsigned long long v = nvl->values[a * nvl->nbobjs + b];
        if (!v) continue;
        const char *na = NULL, *nb = NULL;
        for (int i = 0; i < ndev; i++)
          if (dev[i].gpu && dev[i].os[0]) {
            if (nvl->objs[a] && nvl->objs[a]->name && !strcmp(dev[i].os, nvl->objs[a]->name)) na = dev[i].name;
            if (nvl->objs[b] && nvl->objs[b]->name && !strcmp(dev[i].os, nvl->objs[b]->name)) nb = dev[i].name;
          }
        if (!na || !nb) continue;
        fprintf(f, "link { \"%s\", \"%s\", bw = q.divide(\"%.6gGB/s\", 1 / nvlink_eff, \"nvlink\"), lat = \"0.15us\" }\n",
                na, nb, (double)v / 1000.0);
        nvlinks++;
      }
  }
  if (ngpu) {
    fprintf(f, "\nif ranks_on == \"gpu\" then\n  if n > %d then error(\"ranks: %d GPUs, not \" .. n) end\n"
               "  for i = 0, n - 1 do rank(\"gpu\" .. i) end\nelseif ranks_on ~= \"cpu\" then\n"
               "  error(\"ranks_on is gpu or cpu, not \" .. ranks_on)\nend\n",
            ngpu, ngpu);
  }
  if (nvl) hwloc_distances_release(t, nvl);
  hwloc_topology_destroy(t);
  fprintf(stderr, "chorus topo detect: %d packages, %d NUMA nodes, %d cores, %d GPUs, %d NICs, %d NVLink pairs\n",
          packages, numa, cores, ngpu, nnic, nvlinks);
  return 0;
}
