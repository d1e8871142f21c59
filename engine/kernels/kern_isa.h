/* kern_isa.h -- internal to engine/kernels: the table of kernels one
 * instruction set provides. kern_body.h fills one per ISA; kernels.c picks
 * one at load time and calls through it. */
#ifndef CHORUS_KERN_ISA_H
#define CHORUS_KERN_ISA_H

#include <stddef.h>

#include "chorus.h"

/* d1[i] = d2[i] = a[i] (op) b[i]; d1 is never NULL, d2 may be. */
typedef void (*kern_reduce_fn)(void *d1, void *d2, const void *a, const void *b, size_t n);
/* x[i] = x[i] / d, d >= 1. */
typedef void (*kern_divide_fn)(void *x, size_t n, int d);

typedef struct {
  const char *name;
  kern_reduce_fn reduce[chorus_num_dtypes][chorus_num_redops];
  kern_divide_fn divide[chorus_num_dtypes];
} kern_ops_t;

extern const kern_ops_t kern_ops_portable;
#if defined(__x86_64__) || defined(__i386__)
#define KERN_HAVE_X86 1
extern const kern_ops_t kern_ops_avx2;
extern const kern_ops_t kern_ops_avx512;
#endif

#endif
