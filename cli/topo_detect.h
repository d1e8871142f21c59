/* topo_detect.h -- `chorus topo detect`: this machine (or an hwloc XML
 * export of another) written as a topology script for chorus sim. */
#ifndef CHORUS_TOPO_DETECT_H
#define CHORUS_TOPO_DETECT_H

#include <stdio.h>

/* Read the machine with hwloc (xml: an hwloc XML file instead of this
 * machine; NULL for this one) and write the topology script to f. 0, or -1
 * after a message on stderr. */
int topo_detect(const char *xml, FILE *f);

#endif
