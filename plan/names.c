/* names.c -- the library's names and result strings: chorus_result_string,
 * the collective names scripts and the command line use, the version, and
 * the per-thread record of the last error. */
#include <string.h>

#include "chorus.h"

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

static _Thread_local char last_error[1024];

const char *chorus_last_error(void) { return last_error; }

/* Internal: record the message of a failing call (declared where used). */
void chorus_set_last_error(const char *msg);
void chorus_set_last_error(const char *msg) {
  size_t n = strlen(msg);
  if (n >= sizeof last_error) n = sizeof last_error - 1;
  memcpy(last_error, msg, n);
  last_error[n] = 0;
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
