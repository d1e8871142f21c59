/* net.h -- TCP helpers shared by the bootstrap and the socket transport:
 * choosing the interface (CHORUS_SOCKET_IFNAME rules), listening,
 * connecting, whole-buffer reads and writes with a deadline. */
#ifndef CHORUS_NET_H
#define CHORUS_NET_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "chorus.h"

/* An IPv4 or IPv6 address, small enough to travel inside a unique id.
 * sa.ss_family overlays the family of either form. */
typedef union {
  struct sockaddr s;
  struct sockaddr_in in;
  struct sockaddr_in6 in6;
  sa_family_t ss_family;
} net_sa_t;

typedef struct {
  net_sa_t sa;
  socklen_t len;
} net_addr_t;

/* The address to listen on: the first interface that the rules allow
 * (CHORUS_SOCKET_IFNAME, or by default any that is up, not loopback and not
 * virtual — docker, veth, virbr, br- — when a real one exists; then virtual;
 * then loopback). ifname receives the interface's name. */
chorus_result_t net_pick_addr(net_addr_t *out, char *ifname, size_t len);

/* Whether an interface name passes a CHORUS_SOCKET_IFNAME-style list
 * ("eth,ib" prefixes, "^docker" excludes, "=eth0" exact). */
int net_if_match(const char *list, const char *name);

/* Whether an interface name is a virtual one (docker, veth, virbr, br-,
 * vnet, tun, tap, lxc, cni, flannel): skipped by default when a real one exists. */
int net_is_virtual(const char *name);

/* Parse "host:port" or a host and a port into an address (IPv4 or IPv6). */
chorus_result_t net_resolve(const char *host, int port, net_addr_t *out);

/* Text "1.2.3.4:5678". */
void net_addr_str(const net_addr_t *a, char *buf, size_t len);

/* Listen on addr (its port may be 0: one is chosen and written back). */
chorus_result_t net_listen(net_addr_t *addr, int *fd);
/* How net_connect treats a refused connection. */
typedef enum {
  NET_RETRY_REFUSED, /* the peer may not be listening yet: retry until the deadline */
  NET_LISTENING      /* the peer listened before it told us its address: a refusal means it is gone */
} net_refusal_t;
/* Connect within timeout_s (never the kernel's minutes-long SYN timeout: a
 * cut link fails at the deadline). A refusal under NET_LISTENING fails at
 * once with chorus_remote_error and a message that says the peer is gone. */
chorus_result_t net_connect(const net_addr_t *addr, double timeout_s, net_refusal_t refused, int *fd);
/* Accept one connection, waiting at most timeout_s (<= 0: forever). */
chorus_result_t net_accept(int lfd, double timeout_s, int *fd);
/* Whole reads and writes; timeout_s <= 0 waits forever. A closed peer is
 * chorus_remote_error. */
chorus_result_t net_send_all(int fd, const void *buf, size_t len, double timeout_s);
chorus_result_t net_recv_all(int fd, void *buf, size_t len, double timeout_s);
/* TCP_NODELAY and, when bufsize > 0, SO_SNDBUF/SO_RCVBUF. */
void net_tune(int fd, long bufsize);

#endif
