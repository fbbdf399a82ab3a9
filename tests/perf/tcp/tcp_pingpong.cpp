// Ping-pong between two forked ranks directly on transport/tcp (no p2p
// engine): half round-trip latency and bandwidth per size, busy-polling
// progress() as a blocking MPI call would during its spin phase. Compare with
// Open MPI's tcp BTL on the same machine at the same time, e.g.:
//   mpirun.openmpi -np 2 --mca btl tcp,self --mca btl_tcp_if_include lo
//       ./pingpong.openmpi -q                    (tests/perf/pingpong.c)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "transport_job.h"

using lz::test::Child;

constexpr int kReps = 7;

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 5000;
  lz::test::JobSpec spec;
  spec.transport = "tcp";
  spec.nprocs = 2;
  spec.mca = {{"transport_tcp_if_include", "lo"}};
  spec.timeout = std::chrono::seconds(3600);
  const lz::test::JobResult r = lz::test::run_job(spec, [iters](Child& c) {
    size_t got = 0;
    c.deliver_to([&](int, const void*, size_t) { ++got; });
    const int peer = c.peer();
    const size_t max = c.module().max_frame();
    // Sends one frame, progressing while the transport says would-block.
    auto send_blocking = [&](const void* p, size_t n) {
      struct iovec iov{const_cast<void*>(p), n};
      for (;;) {
        lz::Status s = c.module().send(peer, &iov, 1);
        if (s.ok()) return;
        if (s.code() != lz::Code::kWouldBlock) {
          std::fprintf(stderr, "send: %s\n", s.to_string().c_str());
          std::_Exit(1);
        }
        c.progress();
      }
    };
    std::vector<char> buf(max);
    if (c.rank() == 0) std::printf("%10s %12s %12s %12s\n", "bytes", "lat_us(med)", "lat_us(min)", "MB/s(med)");
    for (size_t size : {size_t{0}, size_t{8}, size_t{64}, size_t{512}, size_t{4096}, size_t{65536}, max}) {
      const int n = size >= 65536 ? iters / 20 + 10 : iters;
      // Repetitions, median and minimum: robust against a loaded machine.
      std::vector<double> half_rtt;
      for (int rep = 0; rep < 1 + kReps; ++rep) {  // repetition 0 warms up
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          if (c.rank() == 0) {
            send_blocking(buf.data(), size);
            const size_t want = got + 1;
            while (got < want) c.progress();
          } else {
            const size_t want = got + 1;
            while (got < want) c.progress();
            send_blocking(buf.data(), size);
          }
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        if (rep > 0) half_rtt.push_back(us / n / 2);
      }
      std::sort(half_rtt.begin(), half_rtt.end());
      const double med = half_rtt[half_rtt.size() / 2], mn = half_rtt.front();
      if (c.rank() == 0)
        std::printf("%10zu %12.2f %12.2f %12.1f\n", size, med, mn, size ? size / med : 0.0);
      std::fflush(stdout);
    }
  });
  for (const auto& p : r.problems()) std::fprintf(stderr, "%s\n", p.c_str());
  return r.problems().empty() ? 0 : 1;
}
