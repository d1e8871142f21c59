/* test_ranks.h -- rank processes for the engine tests. */
#ifndef CHORUS_TEST_RANKS_H
#define CHORUS_TEST_RANKS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "chorus.h"
#include "test.h" /* test_now */

/* Fork n rank processes; call it before any bootstrap thread exists (a
 * fork while one holds a lock can hang the child). Rank 0 makes the unique
 * id and pipes it to the others. In a child: returns its rank with *id
 * set (a child that cannot get the id exits with fail_status). In the
 * parent: returns -1 with pids[0..n-1] set, or -2 when no pipe could be made. */
static inline int test_fork_ranks(int n, pid_t *pids, chorus_unique_id_t *id, int fail_status) {
  int idpipe[2];
  if (pipe(idpipe) != 0) return -2;
  for (int r = 0; r < n; r++) {
    pids[r] = fork();
    if (pids[r] != 0) continue;
    if (r == 0) {
      if (chorus_get_unique_id(id) != chorus_success) _exit(fail_status);
      for (int q = 1; q < n; q++)
        if (write(idpipe[1], id, sizeof *id) != (ssize_t)sizeof *id) _exit(fail_status);
    } else if (read(idpipe[0], id, sizeof *id) != (ssize_t)sizeof *id) {
      _exit(fail_status);
    }
    close(idpipe[0]);
    close(idpipe[1]);
    return r;
  }
  close(idpipe[0]);
  close(idpipe[1]);
  return -1;
}

/* Remove the shared-memory segments a SIGKILLed rank left behind: it made
 * them for peers that never attached, and could not unlink them itself. */
static inline void test_remove_shm_of(pid_t pid) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "chorus-%d-", (int)pid);
  DIR *d = opendir("/dev/shm");
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    char name[300];
    snprintf(name, sizeof name, "/%s", e->d_name);
    shm_unlink(name);
  }
  closedir(d);
}

#endif
