/* pmix_boot.h -- the bootstrap id shared through the launcher's PMIx server
 * (Open MPI's mpirun, `srun --mpi=pmix`): rank 0 makes a fresh id (a random
 * secret and its own listener on the address the interface rules choose)
 * and puts it in the launcher's key-value store; after a fence every other
 * rank gets it from there. Nothing about the job is derived from public
 * values, and nothing need be passed by hand. libpmix is opened at run time
 * (dlopen), so libchorus does not depend on it where it is absent. */
#ifndef CHORUS_PMIX_BOOT_H
#define CHORUS_PMIX_BOOT_H

#include "bootstrap.h"
#include "chorus.h"

/* 1 when a PMIx launcher started this process (PMIX_NAMESPACE is set) and
 * this libchorus was built with PMIx's header. */
int pmix_launched(void);

/* Rank 0: publish *id (already made); the others: fill *id with rank 0's.
 * rank and nranks are held against what PMIx says of this process and job;
 * errors name the PMIx call and its status. */
chorus_result_t pmix_share_id(boot_id_t *id, int rank, int nranks);

#endif
