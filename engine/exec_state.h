/* exec_state.h -- what the executor keeps per communicator between calls:
 * the plans it used, its channel worker threads and their start signal,
 * scratch and staging buffers, the tuner, and the choices the benchmark
 * forced or the last call made. A communicator holds one (comm.h, field x);
 * exec.c alone reads and writes it, and comm.c only ends it
 * (exec_state_fini) -- the communicator's connections and failure state
 * are what the executor borrows from comm.c, not the other way round. */
#ifndef CHORUS_EXEC_STATE_H
#define CHORUS_EXEC_STATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

struct chorus_comm;

/* The job the channel workers of one collective share. */
typedef struct exec_job exec_job_t;

typedef struct {
  pthread_t thread;
  int started;
  struct chorus_comm *comm;
  int channel;
  uint32_t seen; /* work_gen when the worker was made */
} exec_worker_t;

/* A plan used before, found without touching the plan cache's strings. */
typedef struct {
  const plan_t *plan;
  chorus_coll_t coll;
  int root, nchannels;
  int connected; /* its connections are made (in the first call that used it) */
  char algo[64];
} exec_memo_t;

#define EXEC_MEMO 32

typedef struct {
  exec_memo_t memo[EXEC_MEMO];
  int nmemo;
  /* Channel workers 1 .. nworkers; channel 0 runs on the calling thread. */
  exec_worker_t workers[PLAN_MAX_CHANNELS];
  int nworkers;
  uint32_t work_gen;  /* bumped to start the workers on `job` */
  uint32_t work_left; /* channels still running */
  exec_job_t *job;
  int quit;
  /* Scratch per channel and a staging copy of the input, grown on demand. */
  void *scratch[PLAN_MAX_CHANNELS];
  size_t scratch_size[PLAN_MAX_CHANNELS];
  void *stage;
  size_t stage_size;
  struct tune *tune; /* the model tuner, made at the first tuned call (NULL: rules) */
  int tune_made;
  /* Set by the benchmark: algorithm and channels for every collective. */
  char force_algo[64];
  int force_nchannels;
  char last_algo[64];
  /* Per collective, the algorithm and channels of its last call with data:
   * a call of 0 elements uses them (exec.c, choose). */
  struct {
    char algo[64];
    int nchannels;
  } last_with_data[chorus_num_collectives];
  int last_nchannels;
  /* Per collective, whether its first call was agreed on (exec.c, agree). */
  uint8_t agreed[chorus_num_collectives];
  int agree_mode; /* exec_agree: 1 + tune_agree_t; 0: CHORUS_AGREE */
  /* exec_trace_next: the file for the next collective's ops, and per
   * channel the ops recorded while it runs. */
  char trace_path[1024];
  struct exec_trace_ev *trace_ev[PLAN_MAX_CHANNELS];
  size_t trace_n[PLAN_MAX_CHANNELS], trace_cap[PLAN_MAX_CHANNELS];
} exec_state_t;

/* Stop and join the channel workers, free the buffers and the tuner. */
void exec_state_fini(exec_state_t *x);

#endif
