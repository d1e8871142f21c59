/* launcher.c -- the launchers' environment variables, read in one place. */
#include "launcher.h"

#include <stdlib.h>
#include <string.h>

static const char *either(const char *a, const char *b) {
  const char *v = getenv(a);
  return v ? v : getenv(b);
}

int launcher_env(launcher_env_t *l) {
  memset(l, 0, sizeof *l);
  if ((l->rank = getenv("OMPI_COMM_WORLD_RANK"))) {
    l->name = "mpirun";
    l->size = getenv("OMPI_COMM_WORLD_SIZE");
    l->job = getenv("OMPI_MCA_ess_base_jobid");
  } else if ((l->rank = getenv("SLURM_PROCID"))) {
    l->name = "srun";
    l->size = either("SLURM_NTASKS", "SLURM_NPROCS");
    l->job = either("SLURM_STEP_ID", "SLURM_JOB_ID");
    l->nodelist = either("SLURM_STEP_NODELIST", "SLURM_NODELIST");
  } else if ((l->rank = getenv("RANK"))) {
    l->name = "torchrun";
    l->size = getenv("WORLD_SIZE");
    l->job = getenv("TORCHELASTIC_RUN_ID");
  }
  l->master_addr = getenv("MASTER_ADDR");
  l->master_port = getenv("MASTER_PORT");
  static const char *const local_vars[] = {"LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"};
  for (int i = 0; i < 3 && !l->local_size; i++) {
    const char *v = getenv(local_vars[i]);
    if (v && atoi(v) > 0) l->local_size = atoi(v), l->local_size_var = local_vars[i];
  }
  return l->rank && l->size;
}
