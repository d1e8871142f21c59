/* test_cuda_fatbin.c -- the built library (argv[1]) carries the CUDA kernel
 * as real cubins for sm_80 and sm_90 and as PTX for newer GPUs: its
 * .nv_fatbin section is read here directly (an ELF64 reader and the
 * fatbinary container layout: 0xBA55ED50 headers, entries of kind 1 PTX
 * and 2 ELF with the target's sm number), so it needs no cuobjdump; each
 * cubin must be an ELF holding the collective kernel. Runs without a GPU. */
#define _GNU_SOURCE /* memmem */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static const char *lib_path;

typedef struct {
  int kind, sm;
  int is_elf, has_kernel;
} entry_t;

static int read_file(const char *path, unsigned char **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *buf = malloc((size_t)n);
  int ok = *buf && fread(*buf, 1, (size_t)n, f) == (size_t)n;
  fclose(f);
  *len = (size_t)n;
  return ok ? 0 : -1;
}

/* The .nv_fatbin section of an ELF64 file, or NULL. */
static const unsigned char *fatbin_section(const unsigned char *b, size_t len, size_t *sec_len) {
  if (len < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) || b[EI_CLASS] != ELFCLASS64) return NULL;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  if (eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len || eh->e_shstrndx >= eh->e_shnum) return NULL;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
  const char *names = (const char *)b + sh[eh->e_shstrndx].sh_offset;
  for (int i = 0; i < eh->e_shnum; i++) {
    if (strcmp(names + sh[i].sh_name, ".nv_fatbin") || sh[i].sh_offset + sh[i].sh_size > len) continue;
    *sec_len = sh[i].sh_size;
    return b + sh[i].sh_offset;
  }
  return NULL;
}

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The entries of every fatbinary container in the section. */
static int list_entries(const unsigned char *s, size_t len, entry_t *out, int cap) {
  int n = 0;
  size_t off = 0;
  while (off + 16 <= len && n < cap) {
    if (rd32(s + off) != 0xBA55ED50u) { /* containers are 8-byte aligned; skip padding */
      off += 8;
      continue;
    }
    size_t hs = (uint16_t)(s[off + 6] | s[off + 7] << 8), size = rd64(s + off + 8);
    size_t e = off + hs, end = off + hs + size;
    if (end > len) return -1;
    while (e + 32 <= end && n < cap) {
      int kind = s[e] | s[e + 1] << 8;
      uint32_t ehs = rd32(s + e + 4);
      uint64_t padded = rd32(s + e + 8);
      entry_t *x = &out[n++];
      x->kind = kind, x->sm = (int)rd32(s + e + 28);
      const unsigned char *payload = s + e + ehs;
      x->is_elf = e + ehs + 4 <= end && !memcmp(payload, ELFMAG, SELFMAG);
      x->has_kernel = x->is_elf && memmem(payload, padded, "kcu_run", 7) != NULL;
      e += ehs + padded;
    }
    off = end;
  }
  return n;
}

static void test_library_has_sm80_sm90_cubins_and_ptx(void) {
  unsigned char *buf = NULL;
  size_t len = 0;
  CHECK_TRUE(read_file(lib_path, &buf, &len) == 0);
  if (!buf) return;
  size_t slen = 0;
  const unsigned char *sec = fatbin_section(buf, len, &slen);
  CHECK_TRUE(sec != NULL);
  entry_t e[64];
  int n = sec ? list_entries(sec, slen, e, 64) : 0;
  int elf80 = 0, elf90 = 0, ptx = 0;
  for (int i = 0; i < n; i++) {
    printf("  %s sm_%d%s\n", e[i].kind == 1 ? "ptx" : e[i].kind == 2 ? "elf" : "?", e[i].sm,
           e[i].has_kernel ? " (kcu_run)" : "");
    if (e[i].kind == 2 && e[i].is_elf && e[i].has_kernel && e[i].sm == 80) elf80 = 1;
    if (e[i].kind == 2 && e[i].is_elf && e[i].has_kernel && e[i].sm == 90) elf90 = 1;
    if (e[i].kind == 1 && e[i].sm >= 90) ptx = 1;
  }
  CHECK_TRUE(elf80);
  CHECK_TRUE(elf90);
  CHECK_TRUE(ptx);
  free(buf);
}

int test_failed_, test_skipped_;

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_cuda_fatbin LIBRARY\n");
    return 2;
  }
  lib_path = argv[1];
  static const test_case_t tests[] = {TEST(test_library_has_sm80_sm90_cubins_and_ptx), {NULL, NULL}};
  return test_run_all_(tests, 1, argv);
}
