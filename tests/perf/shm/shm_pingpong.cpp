// Transport-level benchmark of transport/shm, below the p2p engine: what the
// engine can at best get from it. Two forked ranks pinned to cores 0 and 1
// (when there are two), busy-polling progress() (no sleeping).
//
//   latency   half round trip of a frame of each size (median and minimum
//             over short repetitions)
//   stream    one-way frames of max_frame back to back: ring copy bandwidth
//   get       get_async() (process_vm_readv) of 64 KiB .. 16 MiB, and memcpy of the
//             same size in one process for scale
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "transport_job.h"

using lz::test::Child;

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

void barrier(Child& c) {
  if (!c.sync(/*progress_module=*/false)) std::abort();
}

void bench(Child& c) {
  pin(c.rank());
  barrier(c);  // after init, fence, connect: every peer mapped our segment
  lz::transport::Module* t = &c.module();
  const int peer = c.peer();
  uint64_t got = 0;
  uint64_t last_len = 0;
  c.deliver_to([&](int, const void*, size_t n) { ++got, last_len = n; });
  std::vector<char> buf(t->max_frame(), 'x');
  auto send = [&](size_t n) {
    struct iovec iov{buf.data(), n};
    while (t->send(peer, &iov, 1).code() == lz::Code::kWouldBlock) c.progress();
  };
  auto wait_for = [&](uint64_t n) {
    while (got < n) c.progress();
  };

  if (c.rank() == 0) std::printf("# transport/shm, transport level, busy-poll; pinned to cores 0,1\n");
  const size_t sizes[] = {0, 8, 64, 256, 1024, 4096, 16384, 32768 - 64};
  for (size_t size : sizes) {
    if (size > t->max_frame()) continue;
    // Short repetitions, many of them: on a shared machine a long one is
    // always preempted; the minimum shows the transport, the median the load.
    const int iters = size <= 4096 ? 2000 : 500;
    const int nreps = quick ? 11 : 41;
    std::vector<double> reps;
    for (int rep = 0; rep < nreps; ++rep) {
      barrier(c);
      got = 0;
      const double t0 = now_s();
      for (int i = 0; i < iters; ++i) {
        if (c.rank() == 0) {
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
    if (c.rank() == 0)
      std::printf("latency size=%zu half_rtt_us(median)=%.3f min_us=%.3f\n", size, reps[reps.size() / 2], reps[0]);
  }

  // Streaming: rank 0 sends, rank 1 acknowledges the last frame.
  {
    const size_t size = t->max_frame();
    const int frames = quick ? 20000 : 100000;
    barrier(c);
    got = 0;
    const double t0 = now_s();
    if (c.rank() == 0) {
      for (int i = 0; i < frames; ++i) send(size);
      wait_for(1);
    } else {
      wait_for(static_cast<uint64_t>(frames));
      send(0);
    }
    const double dt = now_s() - t0;
    if (c.rank() == 0)
      std::printf("stream frame=%zu MBps=%.0f\n", size, static_cast<double>(size) * frames / dt / 1e6);
  }

  // get_async(): rank 1 reads rank 0's buffer.
  {
    const size_t max = size_t{16} << 20;
    std::vector<char> big(max, 'a');
    std::vector<char> dst(max, 'b');
    uint64_t addr = reinterpret_cast<uint64_t>(big.data());
    barrier(c);
    got = 0;
    if (c.rank() == 0) {
      struct iovec iov{&addr, sizeof addr};
      while (t->send(1, &iov, 1).code() == lz::Code::kWouldBlock) c.progress();
      wait_for(1);  // rank 1 done
    } else {
      uint64_t remote = 0;
      c.deliver_to([&](int, const void* p, size_t n) {
        if (n == sizeof remote) std::memcpy(&remote, p, n);
        ++got;
      });
      wait_for(1);
      for (size_t size = 64 << 10; size <= max; size *= 4) {
        const int iters = std::max<int>(4, static_cast<int>((quick ? 256 : 2048) * (size_t{1} << 20) / size / 64));
        // shm's get_async() completes before it returns (no key: no registration).
        auto get = [&] {
          if (!t->get_async(0, dst.data(), size, remote, {}, {}).ok()) std::abort();
        };
        get();  // warm
        double t0 = now_s();
        for (int i = 0; i < iters; ++i) get();
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
  barrier(c);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) quick = quick || std::string(argv[i]) == "--quick";
  lz::test::JobSpec spec;
  spec.transport = "shm";
  spec.nprocs = 2;
  spec.timeout = std::chrono::seconds(600);
  const lz::test::JobResult r = lz::test::run_job(spec, bench);
  for (const auto& p : r.problems()) std::fprintf(stderr, "%s\n", p.c_str());
  return r.problems().empty() ? 0 : 1;
}
