/* test_hang.c -- hang reports: ranks that time out waiting for a rank that
 * never makes the call write reports, and hang_merge names that rank;
 * SIGUSR1 during a call writes a report saying which peer a channel waits
 * for, and the call still completes. Ranks are forked processes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glob.h>

#include "chorus.h"
#include "hang.h"
#include "hang_report.h"
#include "test.h"
#include "test_ranks.h"

static char dir[64];

/* Fork n ranks running body(rank, comm); returns their exit statuses. */
static void run_ranks(int n, int (*body)(int, chorus_comm_t *), pid_t *pids) {
  chorus_unique_id_t id;
  int r = test_fork_ranks(n, pids, &id, 2);
  CHECK_TRUE(r != -2);
  if (r < 0) return;
  chorus_comm_t *c;
  if (chorus_comm_init_rank(&c, n, id, r) != chorus_success) _exit(2);
  int st = body(r, c);
  chorus_comm_destroy(c);
  _exit(st);
}

static int missing_rank_body(int r, chorus_comm_t *c) {
  float a[1024] = {0}, b[1024];
  /* One call together first: the connections exist, so the wait below is
   * on the ring, not in connection set-up. */
  if (chorus_run_allreduce(a, b, 1024, chorus_float32, chorus_sum, c, NULL) != chorus_success) return 5;
  if (r == 2) {
    sleep(4); /* never calls: ranks 0 and 1 time out waiting on it */
    return 0;
  }
  return chorus_run_allreduce(a, b, 1024, chorus_float32, chorus_sum, c, NULL) == chorus_timeout ||
                 chorus_run_allreduce(a, b, 1, chorus_float32, chorus_sum, c, NULL) != chorus_success
             ? 0
             : 3;
}

static void merged_report_names_the_rank_that_never_called(void) {
  pid_t pids[3];
  run_ranks(3, missing_rank_body, pids);
  for (int r = 0; r < 3; r++) {
    int st;
    waitpid(pids[r], &st, 0);
    CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  char pat[128];
  snprintf(pat, sizeof pat, "%s/chorus-hang-*.txt", dir);
  glob_t g;
  CHECK_EQ_INT(glob(pat, 0, NULL, &g), 0);
  CHECK_EQ_INT((int)g.gl_pathc, 2); /* ranks 0 and 1, not 2 */
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  CHECK_EQ_INT(hang_merge(g.gl_pathv, (int)g.gl_pathc, 0, m), 2);
  fclose(m);
  printf("%s", text);
  CHECK_CONTAINS(text, "2 of 3 ranks reported");
  CHECK_CONTAINS(text, "rank 2 is waited for by");
  CHECK_CONTAINS(text, "Look at rank 2 first");
  for (size_t i = 0; i < g.gl_pathc; i++) unlink(g.gl_pathv[i]);
  globfree(&g);
  free(text);
}

static int late_rank_body(int r, chorus_comm_t *c) {
  static float a[1 << 16], b[1 << 16];
  for (int i = 0; i < (1 << 16); i++) a[i] = (float)(r + 1);
  if (chorus_run_allreduce(a, b, 1 << 16, chorus_float32, chorus_sum, c, NULL) != chorus_success) return 5;
  if (r == 1) usleep(1500 * 1000);
  if (chorus_run_allreduce(a, b, 1 << 16, chorus_float32, chorus_sum, c, NULL) != chorus_success) return 3;
  return b[0] == 3.0f && b[(1 << 16) - 1] == 3.0f ? 0 : 4;
}

static void sigusr1_during_a_call_reports_the_awaited_peer(void) {
  pid_t pids[2];
  run_ranks(2, late_rank_body, pids);
  usleep(900 * 1000); /* rank 0 is inside its second allreduce, waiting for rank 1 */
  kill(pids[0], SIGUSR1);
  for (int r = 0; r < 2; r++) {
    int st;
    waitpid(pids[r], &st, 0);
    CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* the call completed after the report */
  }
  char path[160];
  snprintf(path, sizeof path, "%s/chorus-hang-p%d-c0-r0.txt", dir, (int)pids[0]);
  FILE *f = fopen(path, "r");
  CHECK_TRUE(f != NULL);
  if (!f) return;
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  printf("%s", text);
  CHECK_CONTAINS(text, "reason=SIGUSR1");
  CHECK_CONTAINS(text, " job=");
  CHECK_CONTAINS(text, " time=");
  CHECK_CONTAINS(text, "coll=allreduce");
  CHECK_CONTAINS(text, "waits=data peer=1");
  unlink(path);
}

/* Reports of an earlier, unrelated job in the same folder: the merge takes
 * the newest job (or the one named) and says what it left out. */
static void merge_takes_one_job_and_says_what_it_left_out(void) {
  char paths[5][160], *files[5];
  /* job 111 at time 1000: ranks 0-2 of 3, all waiting on rank 0; job 222 at time 2000: ranks 0-1 of 3. */
  const long long jobs[5] = {111, 111, 111, 222, 222}, times[5] = {1000, 1000, 1000, 2000, 2001};
  const int ranks[5] = {0, 1, 2, 0, 1};
  for (int i = 0; i < 5; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/two-jobs-%d.txt", dir, i);
    files[i] = paths[i];
    FILE *f = fopen(paths[i], "w");
    fprintf(f, "chorus-hang v=1 rank=%d nranks=3 pid=1 comm=0 job=%lld time=%lld reason=timeout\n", ranks[i],
            jobs[i], times[i]);
    fprintf(f, "call active=1 seq=%d kind=collective coll=allreduce count=8 connecting=0\n", jobs[i] == 111 ? 9 : 4);
    fprintf(f, "channel ch=0 op=1/4 code=recv waits=data peer=%d\n", jobs[i] == 111 ? 0 : 2);
    fclose(f);
  }
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  CHECK_EQ_INT(hang_merge(files, 5, 0, m), 2);
  fclose(m);
  printf("%s", text);
  CHECK_CONTAINS(text, "job 222");
  CHECK_CONTAINS(text, "left out 3 reports of 1 other job");
  CHECK_CONTAINS(text, "2 of 3 ranks reported");
  CHECK_CONTAINS(text, "rank 2 is waited for by 2 ranks");
  free(text);
  m = open_memstream(&text, &len);
  CHECK_EQ_INT(hang_merge(files, 5, 111, m), 3);
  fclose(m);
  CHECK_CONTAINS(text, "job 111");
  CHECK_CONTAINS(text, "left out 2 reports of 1 other job");
  CHECK_CONTAINS(text, "3 of 3 ranks reported");
  free(text);
  for (int i = 0; i < 5; i++) unlink(paths[i]);
}

static void merge_rejects_what_is_not_a_report(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/garbage.txt", dir);
  FILE *f = fopen(path, "w");
  fputs("chorus-hang rank=7 nranks=2\n", f); /* rank out of range */
  fclose(f);
  char *files[] = {path};
  CHECK_EQ_INT(hang_merge(files, 1, 0, stdout), 0);
  unlink(path);
}

int main(int argc, char **argv) {
  snprintf(dir, sizeof dir, "/tmp/chorus_hang_XXXXXX");
  if (!mkdtemp(dir)) return 1;
  setenv("CHORUS_HANG_DIR", dir, 1);
  setenv("CHORUS_TIMEOUT", "2", 1);
  static const test_case_t tests[] = {TEST(merged_report_names_the_rank_that_never_called),
                                      TEST(sigusr1_during_a_call_reports_the_awaited_peer),
                                      TEST(merge_takes_one_job_and_says_what_it_left_out), TEST(merge_rejects_what_is_not_a_report), {NULL, NULL}};
  int rc = test_run_all_(tests, argc, argv);
  rmdir(dir);
  return rc;
}
int test_failed_, test_skipped_;
