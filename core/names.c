/* names.c -- the names every floor shares: result strings, the collective
 * names scripts and the command line use, the data types (sizes, the names
 * nccl-tests prints, the aliases parsers accept) and reduction ops, and the
 * version. The one table of each: the engine, the simulator and the command
 * all read these. */
#include <string.h>
#include <strings.h>

#include "chorus.h"
#include "error.h"

static const char *const result_strings[chorus_num_results] = {
    [chorus_success] = "success",
    [chorus_invalid_argument] = "invalid argument",
    [chorus_invalid_usage] = "invalid usage",
    [chorus_script_error] = "script error",
    [chorus_verify_failed] = "plan failed verification",
    [chorus_system_error] = "system error",
    [chorus_out_of_memory] = "out of memory",
    [chorus_remote_error] = "remote peer failed",
    [chorus_timeout] = "timed out",
    [chorus_internal_error] = "internal error",
    [chorus_in_progress] = "in progress",
};

const char *chorus_result_string(chorus_result_t r) {
  if ((unsigned)r >= chorus_num_results) return "unknown result";
  return result_strings[r];
}

int chorus_version(void) { return CHORUS_VERSION_CODE; }

static const char *const coll_names[chorus_num_collectives] = {
    [chorus_allreduce] = "allreduce",         [chorus_broadcast] = "broadcast",
    [chorus_reduce] = "reduce",               [chorus_allgather] = "allgather",
    [chorus_reducescatter] = "reducescatter", [chorus_alltoall] = "alltoall",
};

const char *chorus_coll_name(chorus_coll_t c) {
  if ((unsigned)c >= chorus_num_collectives) return "unknown";
  return coll_names[c];
}

chorus_result_t chorus_coll_parse(const char *name, chorus_coll_t *out) {
  for (int i = 0; i < chorus_num_collectives; i++) {
    if (!strcmp(name, coll_names[i])) {
      *out = (chorus_coll_t)i;
      return chorus_success;
    }
  }
  return chorus_invalid_argument;
}

static const size_t dtype_sizes[chorus_num_dtypes] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
static const char *const dtype_names[chorus_num_dtypes] = {"int8",  "uint8", "int32",    "uint32", "int64",
                                                           "uint64", "half", "bfloat16", "float",  "double"};
static const char *const dtype_alias[chorus_num_dtypes] = {"char", "u8", "int", "u32", "i64",
                                                           "u64",  "fp16", "bf16", "fp32", "fp64"};
static const char *const redop_names[chorus_num_redops] = {"sum", "prod", "min", "max", "avg"};

size_t chorus_dtype_size(chorus_dtype_t dt) { return (unsigned)dt < chorus_num_dtypes ? dtype_sizes[dt] : 0; }

const char *chorus_dtype_name(chorus_dtype_t dt) {
  return (unsigned)dt < chorus_num_dtypes ? dtype_names[dt] : "unknown";
}

chorus_result_t chorus_dtype_parse(const char *name, chorus_dtype_t *out) {
  for (int i = 0; i < chorus_num_dtypes; i++) {
    if (!strcasecmp(name, dtype_names[i]) || !strcasecmp(name, dtype_alias[i])) {
      *out = (chorus_dtype_t)i;
      return chorus_success;
    }
  }
  if (!strcasecmp(name, "float32")) return *out = chorus_float32, chorus_success;
  if (!strcasecmp(name, "float16")) return *out = chorus_float16, chorus_success;
  if (!strcasecmp(name, "float64")) return *out = chorus_float64, chorus_success;
  return err_set(chorus_invalid_argument, "'%s' is not a data type (int8, uint8, int32, uint32, int64, uint64, half, "
                                          "bfloat16, float, double)", name);
}

const char *chorus_redop_name(chorus_redop_t op) { return (unsigned)op < chorus_num_redops ? redop_names[op] : "unknown"; }

chorus_result_t chorus_redop_parse(const char *name, chorus_redop_t *out) {
  for (int i = 0; i < chorus_num_redops; i++) {
    if (!strcasecmp(name, redop_names[i])) {
      *out = (chorus_redop_t)i;
      return chorus_success;
    }
  }
  return err_set(chorus_invalid_argument, "'%s' is not a reduction op (sum, prod, min, max, avg)", name);
}
