// gloo_allreduce.cc -- the Gloo side of the CPU comparison: gloo's ring
// allreduce (float sum) over TCP loopback, ranks forked here and met through
// a file store. Sizes 8 B .. MAX by x2, warm-up, buffers touched once; writes
// the `chorus perf` CSV schema to stdout. Usage: gloo_allreduce N [MAX]
#include <gloo/allreduce_ring.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static int run(int rank, int n, size_t maxb, const std::string &dir) {
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto dev = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(dir);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, n);
  ctx->connectFullMesh(store, dev);
  std::vector<float> buf(maxb / 4, 0.0f);
  if (rank == 0)
    printf("collective,algo,proto,nranks,nnodes,dtype,op,root,inplace,size_bytes,count,time_us,algbw_GBps,busbw_GBps,"
           "wrong\n");
  for (size_t s = 8; s <= maxb; s *= 2) {
    int count = (int)(s / 4);
    std::vector<float *> ptrs{buf.data()};
    gloo::AllreduceRing<float> ar(ctx, ptrs, count);
    int iters = s <= (1 << 20) ? 100 : s <= (16 << 20) ? 10 : 3;
    for (int i = 0; i < 3; i++) ar.run();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; i++) ar.run();
    double t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters;
    if (rank == 0) {
      double algbw = s / t / 1e3;
      printf("allreduce,gloo_ring,tcp,%d,1,float,sum,-1,1,%zu,%d,%.3f,%.4f,%.4f,0\n", n, s, count, t, algbw,
             algbw * 2.0 * (n - 1) / n);
      fflush(stdout);
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  size_t maxb = argc > 2 ? strtoull(argv[2], nullptr, 0) : (256u << 20);
  char tmpl[] = "/tmp/gloo_store_XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; r++) {
    pid_t p = fork();
    if (p == 0) _exit(run(r, n, maxb, dir));
    pids.push_back(p);
  }
  int rc = 0;
  for (pid_t p : pids) {
    int st;
    waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) rc = 1;
  }
  std::string cmd = "rm -rf " + dir;
  if (system(cmd.c_str()) != 0) rc = 1;
  return rc;
}
