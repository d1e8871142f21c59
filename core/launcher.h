/* launcher.h -- what the job's launcher says about this process: mpirun
 * (Open MPI's OMPI_COMM_WORLD_*), srun (SLURM_*) or torchrun and its kin
 * (RANK, WORLD_SIZE, MASTER_ADDR). The one place their variables are read;
 * chorus_comm_init_env, `chorus perf`, `chorus calibrate` and `chorus
 * doctor` all ask here, in the same order: Open MPI, then Slurm, then
 * torchrun. */
#ifndef CHORUS_LAUNCHER_H
#define CHORUS_LAUNCHER_H

typedef struct {
  const char *name;  /* "mpirun", "srun", "torchrun"; NULL when none is recognised */
  const char *rank;  /* this process's rank, as text */
  const char *size;  /* ranks in the job, as text; NULL when the launcher does not say */
  const char *job;   /* the job (or step) id, NULL when not given */
  const char *nodelist;       /* srun: the step's (else the job's) node list */
  const char *master_addr;    /* MASTER_ADDR, any launcher */
  const char *master_port;    /* MASTER_PORT */
  int local_size;             /* ranks on this host by the launcher, 0 when not said */
  const char *local_size_var; /* the variable that said it */
} launcher_env_t;

/* Fill *l from the environment; returns 1 when a launcher names this
 * process's rank and the job's size, 0 otherwise (*l then still carries what
 * was found, e.g. MASTER_ADDR). */
int launcher_env(launcher_env_t *l);

#endif
