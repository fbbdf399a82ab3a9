// CPU sharing: whether a rank that spins while it waits should give its CPU
// away (sched_yield) because the rank it waits for may need that CPU.
//
// Counting the CPUs of the rank's own affinity mask is wrong when ranks are
// bound: a rank bound to one core sees 1 CPU and, with 2 ranks on the host,
// believed the host oversubscribed and yielded on every spin (2.5-3.6x Open
// MPI's latency over shm, issue 12). What matters is what the ranks of a host
// really share: each rank publishes its CPU list in the modex, and a rank is
// contended when the ranks whose CPUs overlap its own outnumber the CPUs they
// may run on together.
//
//   bound 0 | 1            -> each overlaps only itself: 1 rank, 1 CPU, no yield
//   unbound, 4 ranks, 2 CPUs -> 4 ranks on {0,1}: yield
//   both bound to CPU 0    -> 2 ranks on {0}: yield
#pragma once

#include <cstddef>
#include <vector>

namespace lz::rt {

// `local`: the CPU lists of the ranks of one host; `self`: this rank's index
// among them. True when the ranks whose CPUs overlap self's (self included)
// are more than the CPUs in the union of their lists.
bool shares_cpus_with_more_ranks(const std::vector<std::vector<int>>& local, size_t self);

}  // namespace lz::rt
