/* explain.h -- `chorus explain`: a plan's rounds for a person to follow,
 * from the same symbolic run the verifier checks. */
#ifndef CHORUS_EXPLAIN_H
#define CHORUS_EXPLAIN_H

#include <stdio.h>

#include "verify.h"

/* Step-by-step explanation: runs the plan in the same rounds and prints, per
 * round, which chunk moves from which rank to which, and after each round
 * what every rank holds. */
chorus_result_t verify_explain(const plan_t *p, FILE *out, verify_result_t *res);

#endif
