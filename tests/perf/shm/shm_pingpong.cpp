// Transport-level benchmark of transport/shm, below the p2p engine: what the
// engine can at best get from it. Two forked ranks pinned to cores 0 and 1
// (when there are two), busy-polling progress() (no sleeping).
//
//   latency   half round trip of a frame of each size (median and minimum
//             over short repetitions)
//   stream    one-way frames of max_frame back to back: ring copy bandwidth
//   get       get() (process_vm_readv) of 64 KiB .. 16 MiB, and memcpy of the
//             same size in one process for scale
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "shm_test_host.h"
#include "shm_test_job.h"

using lz::test::shm::RankEnv;
using lz::test::shm::ShmRank;

namespace {

double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void pin(int rank) {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<int>(rank % std::max(1L, cores)), &set);
  sched_setaffinity(0, sizeof set, &set);
}

bool quick = false;

void bench(RankEnv& env) {
  pin(env.rank);
  ShmRank r(env);
  if (!r.start().ok()) std::abort();
  auto* t = r.t;
  const int peer = 1 - env.rank;
  uint64_t got = 0;
  uint64_t last_len = 0;
  r.host.on_deliver = [&](int, const void*, size_t n) { ++got, last_len = n; };
  std::vector<char> buf(t->max_frame(), 'x');
  auto send = [&](size_t n) {
    struct iovec iov{buf.data(), n};
    while (t->send(peer, &iov, 1).code() == lz::Code::kWouldBlock) t->progress();
  };
  auto wait_for = [&](uint64_t n) {
    while (got < n) t->progress();
  };

  if (env.rank == 0) std::printf("# transport/shm, transport level, busy-poll; pinned to cores 0,1\n");
  const size_t sizes[] = {0, 8, 64, 256, 1024, 4096, 16384, 32768 - 64};
  for (size_t size : sizes) {
    if (size > t->max_frame()) continue;
    // Short repetitions, many of them: on a shared machine a long one is
    // always preempted; the minimum shows the transport, the median the load.
    const int iters = size <= 4096 ? 2000 : 500;
    const int nreps = quick ? 11 : 41;
    std::vector<double> reps;
    for (int rep = 0; rep < nreps; ++rep) {
      if (!env.barrier().ok()) std::abort();
      got = 0;
      const double t0 = now_s();
      for (int i = 0; i < iters; ++i) {
        if (env.rank == 0) {
          send(size);
          wait_for(static_cast<uint64_t>(i) + 1);
        } else {
          wait_for(static_cast<uint64_t>(i) + 1);
          send(size);
        }
      }
      reps.push_back((now_s() - t0) / iters / 2 * 1e6);
    }
    std::sort(reps.begin(), reps.end());
    if (env.rank == 0)
      std::printf("latency size=%zu half_rtt_us(median)=%.3f min_us=%.3f\n", size, reps[reps.size() / 2], reps[0]);
  }

  // Streaming: rank 0 sends, rank 1 acknowledges the last frame.
  {
    const size_t size = t->max_frame();
    const int frames = quick ? 20000 : 100000;
    if (!env.barrier().ok()) std::abort();
    got = 0;
    const double t0 = now_s();
    if (env.rank == 0) {
      for (int i = 0; i < frames; ++i) send(size);
      wait_for(1);
    } else {
      wait_for(static_cast<uint64_t>(frames));
      send(0);
    }
    const double dt = now_s() - t0;
    if (env.rank == 0)
      std::printf("stream frame=%zu MBps=%.0f\n", size, static_cast<double>(size) * frames / dt / 1e6);
  }

  // get(): rank 1 reads rank 0's buffer.
  {
    const size_t max = size_t{16} << 20;
    std::vector<char> big(max, 'a');
    std::vector<char> dst(max, 'b');
    uint64_t addr = reinterpret_cast<uint64_t>(big.data());
    if (!env.barrier().ok()) std::abort();
    got = 0;
    if (env.rank == 0) {
      struct iovec iov{&addr, sizeof addr};
      while (t->send(1, &iov, 1).code() == lz::Code::kWouldBlock) t->progress();
      wait_for(1);  // rank 1 done
    } else {
      uint64_t remote = 0;
      r.host.on_deliver = [&](int, const void* p, size_t n) {
        if (n == sizeof remote) std::memcpy(&remote, p, n);
        ++got;
      };
      wait_for(1);
      for (size_t size = 64 << 10; size <= max; size *= 4) {
        const int iters = std::max<int>(4, static_cast<int>((quick ? 256 : 2048) * (size_t{1} << 20) / size / 64));
        if (!t->get(0, dst.data(), remote, size).ok()) std::abort();  // warm
        double t0 = now_s();
        for (int i = 0; i < iters; ++i)
          if (!t->get(0, dst.data(), remote, size).ok()) std::abort();
        const double get_bw = static_cast<double>(size) * iters / (now_s() - t0) / 1e6;
        t0 = now_s();
        for (int i = 0; i < iters; ++i) std::memcpy(dst.data(), big.data() + (i & 1), size - 1);
        const double cpy_bw = static_cast<double>(size) * iters / (now_s() - t0) / 1e6;
        std::printf("get size=%zu MBps=%.0f (memcpy in-process %.0f)\n", size, get_bw, cpy_bw);
      }
      std::fflush(stdout);
      send(0);
    }
  }
  if (!env.barrier().ok()) std::abort();
  (void)r.t->finalize();
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) quick = quick || std::string(argv[i]) == "--quick";
  auto outs = lz::test::shm::run_ranks(2, bench, 600);
  int rc = 0;
  for (auto& o : outs)
    if (!o.exited_ok()) std::fprintf(stderr, "%s\n", o.describe().c_str()), rc = 1;
  return rc;
}
