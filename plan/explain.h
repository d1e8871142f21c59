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

/* The same rounds as one JSON object, for the page of `chorus explain
 * --html`: the header lines, the column names, and per round its ops (rank,
 * channel, peers, op name, the text line) and every rank's cells after it,
 * with the round's text exactly as verify_explain prints it (up to 64 ranks
 * and 256 columns, where the text shows 8 and 16). */
chorus_result_t verify_explain_json(const plan_t *p, FILE *out, verify_result_t *res);

#endif
