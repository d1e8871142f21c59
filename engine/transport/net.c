/* net.c -- TCP helpers: interface rules, listen/connect/accept, whole
 * transfers bounded by a deadline (poll before every read or write). */
#define _GNU_SOURCE
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "params.h"
#include "transport.h"

int net_if_match(const char *list, const char *name) {
  if (!list || !list[0]) return 1;
  int exclude = list[0] == '^';
  if (exclude) list++;
  int exact = list[0] == '=';
  if (exact) list++;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  int hit = 0;
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (exact ? !strcmp(tok, name) : !strncmp(tok, name, strlen(tok))) hit = 1;
  }
  return exclude ? !hit : hit;
}

int net_is_virtual(const char *name) {
  static const char *const v[] = {"docker", "veth", "virbr", "br-", "vnet", "tun", "tap", "lxc", "cni", "flannel"};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!strncmp(name, v[i], strlen(v[i]))) return 1;
  return 0;
}

chorus_result_t net_pick_addr(net_addr_t *out, char *ifname, size_t len) {
  struct ifaddrs *ifs;
  if (getifaddrs(&ifs) != 0) return err_set(chorus_system_error, "getifaddrs: %s", strerror(errno));
  const char *rules = param_str(PARAM_SOCKET_IFNAME);
  struct ifaddrs *best = NULL;
  int best_rank = 99;
  /* What was passed over and why, for the INFO line. */
  char skipped[512] = "";
  size_t used = 0;
  for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
    int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    if (fam == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr)) continue;
    const char *why = NULL;
    /* A rule chooses which interfaces may be used; among those, as without
     * a rule, a real interface before a virtual one before loopback (an
     * exclusion such as ^docker must not leave loopback the winner). */
    int rank = (i->ifa_flags & IFF_LOOPBACK) ? 4 : net_is_virtual(i->ifa_name) ? 2 : 0;
    if (rules[0] && !net_if_match(rules, i->ifa_name)) why = "not in CHORUS_SOCKET_IFNAME", rank = 99;
    else if (rank == 4) why = "loopback";
    else if (rank == 2) why = "virtual";
    if (fam == AF_INET6 && rank < 99) rank++; /* prefer IPv4 on the same class */
    if (rank < best_rank) best = i, best_rank = rank;
    char named[IFNAMSIZ + 4];
    snprintf(named, sizeof named, "%s (", i->ifa_name);
    if (why && used < sizeof skipped && !strstr(skipped, named)) { /* an interface's v4 and v6 once */
      int n = snprintf(skipped + used, sizeof skipped - used, "%s%s%s)", used ? ", " : "", named, why);
      if (n > 0) used += (size_t)n;
    }
  }
  chorus_result_t res = chorus_success;
  if (!best) {
    res = err_set(chorus_system_error, "no network interface matches CHORUS_SOCKET_IFNAME='%s'", rules);
  } else {
    memset(out, 0, sizeof *out);
    out->len = best->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    memcpy(&out->sa, best->ifa_addr, out->len);
    if (ifname) snprintf(ifname, len, "%s", best->ifa_name);
    char addr[80];
    net_addr_str(out, addr, sizeof addr);
    *strrchr(addr, ':') = 0;
    LOG_INFO_("NET", "sockets use %s %s: %s%s%s%s%s", best->ifa_name, addr,
              best_rank >= 4 ? "loopback, the only one left" : best_rank >= 2 ? "a virtual interface, no real one left"
                                                                        : "the first real interface",
              rules[0] ? " matching CHORUS_SOCKET_IFNAME=" : "", rules, used ? "; passed over: " : "", skipped);
  }
  freeifaddrs(ifs);
  return res;
}

chorus_result_t net_resolve(const char *host, int port, net_addr_t *out) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
  char ps[16];
  snprintf(ps, sizeof ps, "%d", port);
  int rc = getaddrinfo(host, ps, &hints, &ai);
  if (rc != 0) return err_set(chorus_invalid_argument, "cannot resolve '%s': %s", host, gai_strerror(rc));
  memset(out, 0, sizeof *out);
  memcpy(&out->sa, ai->ai_addr, ai->ai_addrlen);
  out->len = ai->ai_addrlen;
  freeaddrinfo(ai);
  return chorus_success;
}

void net_addr_str(const net_addr_t *a, char *buf, size_t len) {
  char h[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (a->sa.ss_family == AF_INET) {
    const struct sockaddr_in *s = (const void *)&a->sa;
    inet_ntop(AF_INET, &s->sin_addr, h, sizeof h);
    port = ntohs(s->sin_port);
  } else if (a->sa.ss_family == AF_INET6) {
    const struct sockaddr_in6 *s = (const void *)&a->sa;
    inet_ntop(AF_INET6, &s->sin6_addr, h, sizeof h);
    port = ntohs(s->sin6_port);
  }
  snprintf(buf, len, "%s:%d", h, port);
}

chorus_result_t net_listen(net_addr_t *addr, int *out) {
  int fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return err_set(chorus_system_error, "socket: %s", strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  char s[64];
  if (bind(fd, (struct sockaddr *)&addr->sa, addr->len) != 0 || listen(fd, 1024) != 0) {
    int e = errno;
    net_addr_str(addr, s, sizeof s);
    close(fd);
    return err_set(chorus_system_error, "cannot listen on %s: %s", s, strerror(e));
  }
  addr->len = sizeof addr->sa;
  getsockname(fd, (struct sockaddr *)&addr->sa, &addr->len);
  *out = fd;
  return chorus_success;
}

static int wait_fd(int fd, short ev, double deadline) {
  for (;;) {
    int ms = -1;
    if (deadline > 0) {
      double left = deadline - tr_now();
      if (left <= 0) return 0;
      ms = (int)(left * 1000) + 1;
    }
    struct pollfd p = {fd, ev, 0};
    int rc = poll(&p, 1, ms);
    if (rc > 0) return 1;
    if (rc < 0 && errno != EINTR) return -1;
  }
}

/* One non-blocking attempt, bounded by the deadline: 0 connected, else errno. */
static int connect_once(const net_addr_t *addr, double deadline, int *out) {
  int fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  int e = 0;
  if (connect(fd, (const struct sockaddr *)&addr->sa, addr->len) != 0) {
    e = errno;
    if (e == EINPROGRESS) {
      int w = wait_fd(fd, POLLOUT, deadline > tr_now() ? deadline : tr_now() + 1e-3);
      socklen_t elen = sizeof e;
      if (w == 0) e = ETIMEDOUT;
      else if (w < 0) e = errno;
      else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0) e = errno;
    }
  }
  if (e) {
    close(fd);
    return e;
  }
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  *out = fd;
  return 0;
}

chorus_result_t net_connect(const net_addr_t *addr, double timeout_s, net_refusal_t refused, int *out) {
  double deadline = tr_now() + timeout_s;
  char s[64];
  net_addr_str(addr, s, sizeof s);
  for (;;) {
    int e = connect_once(addr, deadline, out);
    if (!e) return chorus_success;
    if (e == ECONNREFUSED && refused == NET_LISTENING)
      return err_set(chorus_remote_error, "%s refused the connection: the peer's process has ended or closed its "
                     "communicator", s);
    int again = e == ECONNREFUSED || e == EINTR || e == EAGAIN || e == ETIMEDOUT;
    if (!again || tr_now() >= deadline)
      return err_set(again ? chorus_timeout : chorus_system_error, "cannot connect to %s within %.1f s: %s", s,
                     timeout_s, strerror(e));
    usleep(10000);
  }
}

chorus_result_t net_accept(int lfd, double timeout_s, int *out) {
  double deadline = timeout_s > 0 ? tr_now() + timeout_s : 0;
  int w = wait_fd(lfd, POLLIN, deadline);
  if (w == 0) return err_set(chorus_timeout, "no connection arrived within %.0f s", timeout_s);
  if (w < 0) return err_set(chorus_system_error, "poll: %s", strerror(errno));
  int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return err_set(chorus_system_error, "accept: %s", strerror(errno));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  *out = fd;
  return chorus_success;
}

chorus_result_t net_send_all(int fd, const void *buf, size_t len, double timeout_s) {
  double deadline = timeout_s > 0 ? tr_now() + timeout_s : 0;
  const char *p = buf;
  while (len) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL | (deadline ? MSG_DONTWAIT : 0));
    if (n > 0) {
      p += n, len -= (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int w = wait_fd(fd, POLLOUT, deadline);
      if (w == 0) return err_set(chorus_timeout, "a peer did not take data within %.0f s", timeout_s);
      continue;
    }
    return err_set(chorus_remote_error, "send to a peer failed: %s", n < 0 ? strerror(errno) : "closed");
  }
  return chorus_success;
}

chorus_result_t net_recv_all(int fd, void *buf, size_t len, double timeout_s) {
  double deadline = timeout_s > 0 ? tr_now() + timeout_s : 0;
  char *p = buf;
  while (len) {
    ssize_t n = recv(fd, p, len, deadline ? MSG_DONTWAIT : MSG_WAITALL);
    if (n > 0) {
      p += n, len -= (size_t)n;
      continue;
    }
    if (n == 0) return err_set(chorus_remote_error, "a peer closed its connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      int w = wait_fd(fd, POLLIN, deadline);
      if (w == 0) return err_set(chorus_timeout, "a peer sent nothing within %.0f s", timeout_s);
      continue;
    }
    return err_set(chorus_remote_error, "receive from a peer failed: %s", strerror(errno));
  }
  return chorus_success;
}

void net_tune(int fd, long bufsize) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (bufsize > 0) {
    int b = (int)bufsize;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &b, sizeof b);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &b, sizeof b);
  }
}
