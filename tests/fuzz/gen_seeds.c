/* gen_seeds.c -- writes the binary seeds of tests/fuzz/corpus/{bootstrap,
 * sockframe}: valid messages with the secret the fuzz targets use, so that
 * fuzzing starts past the magic, version and secret checks. Usage:
 * fuzz_seeds CORPUS_DIR (the folder holding bootstrap/ and sockframe/). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "boot_msg.h"
#include "sock_msg.h"

static const uint8_t secret[16] = "chorus-fuzz-key";

static int put(const char *dir, const char *name, uint8_t sel, const void *a, size_t alen, const void *b,
               size_t blen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return perror(path), 1;
  fwrite(&sel, 1, 1, f);
  if (alen) fwrite(a, 1, alen, f);
  if (blen) fwrite(b, 1, blen, f);
  return fclose(f) != 0;
}

static net_addr_t addr4(const char *ip, int port) {
  net_addr_t a = {.len = sizeof(struct sockaddr_in)};
  a.sa.in.sin_family = AF_INET;
  a.sa.in.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, ip, &a.sa.in.sin_addr);
  return a;
}

static net_addr_t addr6(const char *ip, int port) {
  net_addr_t a = {.len = sizeof(struct sockaddr_in6)};
  a.sa.in6.sin6_family = AF_INET6;
  a.sa.in6.sin6_port = htons((uint16_t)port);
  inet_pton(AF_INET6, ip, &a.sa.in6.sin6_addr);
  return a;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: fuzz_seeds CORPUS_DIR\n"), 2;
  char boot[4096], sock[4096];
  snprintf(boot, sizeof boot, "%s/bootstrap", argv[1]);
  snprintf(sock, sizeof sock, "%s/sockframe", argv[1]);
  int bad = 0;
  boot_peer_t peers[3] = {{.hostid = "hostA|boot|net:[1]", .pid = 100, .addr = addr4("10.0.0.1", 40001)},
                          {.hostid = "hostA|boot|net:[1]", .pid = 101, .addr = addr4("10.0.0.1", 40002)},
                          {.hostid = "hostB|boot|net:[2]", .pid = 200, .addr = addr6("fd00::2", 40003)}};
  boot_hello_t h = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .rank = 1, .nranks = 3, .self = peers[1]};
  memcpy(h.secret, secret, 16);
  bad |= put(boot, "hello_valid", 0, &h, sizeof h, NULL, 0);
  h.version = BOOT_VERSION + 1;
  bad |= put(boot, "hello_other_version", 0, &h, sizeof h, NULL, 0);
  boot_msg_hdr_t m = {.magic = BOOT_MAGIC, .version = BOOT_VERSION, .from = 2, .tag = 0x10000001u, .len = 296};
  memcpy(m.secret, secret, 16);
  uint8_t nranks = 3;
  bad |= put(boot, "header_valid", 1, &nranks, 1, &m, sizeof m);
  bad |= put(boot, "table_valid", 2, peers, sizeof peers, NULL, 0);
  boot_id_t id = {.magic = BOOT_MAGIC, .root = addr4("127.0.0.1", 29500)};
  memcpy(id.secret, secret, 16);
  bad |= put(boot, "id_valid", 3, &id, sizeof id, NULL, 0);

  sock_desc_t d = {.addr = addr4("10.0.0.2", 41000), .nsocks = 2};
  bad |= put(sock, "desc_valid", 0, &d, sizeof d, NULL, 0);
  sock_hello_t sh = {.magic = SOCK_MAGIC, .version = SOCK_VERSION, .rank = 1, .channel = 0, .stream = 1};
  memcpy(sh.secret, secret, 16);
  uint8_t nsocks = 1; /* two streams */
  bad |= put(sock, "hello_valid", 1, &nsocks, 1, &sh, sizeof sh);
  /* Three steps into 128-byte slots: 128 bytes with "more", 5 bytes, 0 bytes. */
  uint8_t steps[1 + 8 + 128 + 8 + 5 + 8];
  size_t o = 0;
  steps[o++] = 1;
  uint64_t meta = 128u | RING_MORE | (uint64_t)7 << 32;
  memcpy(steps + o, &meta, 8), o += 8;
  memset(steps + o, 0xab, 128), o += 128;
  meta = 5u | (uint64_t)7 << 32;
  memcpy(steps + o, &meta, 8), o += 8;
  memcpy(steps + o, "hello", 5), o += 5;
  meta = (uint64_t)8 << 32;
  memcpy(steps + o, &meta, 8), o += 8;
  bad |= put(sock, "steps_valid", 2, steps, o, NULL, 0);
  return bad;
}
