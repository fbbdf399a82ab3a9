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

#include "tcp_test_job.h"

using lz::test::tcp::Rank;

constexpr int kReps = 7;

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 5000;
  lz::test::tcp::JobOptions opt;
  opt.mca = {{"transport_tcp_if_include", "lo"}};
  opt.timeout_s = 3600;
  auto r = lz::test::tcp::run_job(2, opt, [iters](Rank& me) {
    size_t got = 0;
    me.host().on_deliver = [&](int, const void*, size_t) { ++got; };
    me.start();
    const int peer = 1 - me.rank;
    const size_t max = me.module().max_frame();
    std::vector<char> buf(max);
    if (me.rank == 0) std::printf("%10s %12s %12s %12s\n", "bytes", "lat_us(med)", "lat_us(min)", "MB/s(med)");
    for (size_t size : {size_t{0}, size_t{8}, size_t{64}, size_t{512}, size_t{4096}, size_t{65536}, max}) {
      const int n = size >= 65536 ? iters / 20 + 10 : iters;
      // Repetitions, median and minimum: robust against a loaded machine.
      std::vector<double> half_rtt;
      for (int rep = 0; rep < 1 + kReps; ++rep) {  // repetition 0 warms up
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
          if (me.rank == 0) {
            me.send_blocking(peer, buf.data(), size);
            const size_t want = got + 1;
            while (got < want) me.module().progress();
          } else {
            const size_t want = got + 1;
            while (got < want) me.module().progress();
            me.send_blocking(peer, buf.data(), size);
          }
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        if (rep > 0) half_rtt.push_back(us / n / 2);
      }
      std::sort(half_rtt.begin(), half_rtt.end());
      const double med = half_rtt[half_rtt.size() / 2], mn = half_rtt.front();
      if (me.rank == 0)
        std::printf("%10zu %12.2f %12.2f %12.1f\n", size, med, mn, size ? size / med : 0.0);
      std::fflush(stdout);
    }
    me.finish();
    return 0;
  });
  if (!r.ok()) {
    std::fprintf(stderr, "%s", r.report.c_str());
    return 1;
  }
  return 0;
}
