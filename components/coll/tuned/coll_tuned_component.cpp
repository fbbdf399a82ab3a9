// Descriptor of coll/tuned: the switch points are its parameters.
#include <cstring>
#include <iterator>
#include <memory>
#include <string>

#include "coll_tuned.h"
#include "lazarus/param_store.h"

namespace {

constexpr lz::ParamSpec kParams[] = {
    {"allreduce_rabenseifner_min", lz::ParamType::kSize, "64k",
     "Allreduce message size (bytes) from which Rabenseifner's reduce-scatter + allgather is used (commutative "
     "ops, count >= largest power of two <= communicator size); below it, recursive doubling",
     5},
    {"allreduce_ring_min", lz::ParamType::kSize, "4M",
     "Allreduce message size (bytes) from which the ring reduce-scatter + allgather is used (commutative ops, "
     "count >= communicator size); it takes precedence over allreduce_rabenseifner_min",
     5},
    {"allgather_bruck_max", lz::ParamType::kSize, "16k",
     "Allgather total result size (bytes) up to which Bruck's algorithm is used; above it, the ring", 5},
    {"alltoall_pairwise_min", lz::ParamType::kSize, "1k",
     "Alltoall(v) block size (bytes per peer, largest of this rank's) from which the pairwise exchange is used; "
     "below it every transfer is posted at once",
     5},
    {"alltoall_bruck_max", lz::ParamType::kSize, "256",
     "Alltoall block size (bytes per peer) up to which Bruck's log-round algorithm is used on communicators of "
     "at least alltoall_bruck_min_ranks ranks",
     5},
    {"alltoall_bruck_min_ranks", lz::ParamType::kInt, "8",
     "Smallest communicator on which Alltoall uses Bruck's algorithm", 5},
    {"bcast_scatter_allgather_min", lz::ParamType::kSize, "512k",
     "Bcast message size (bytes) from which the scatter + ring allgather algorithm is used on 3 or more ranks "
     "(contiguous datatypes); below it, the binomial tree",
     5},
    // Back-to-back calls pipeline along the chain: at np 8 and 16 on 2 cores
    // it took 1.6-2.5 and 12 us at 8 B against recursive doubling's 35 and
    // 404 us, 0.17 and 0.14 of it at 64 KiB (tests/perf/coll.c -o scan).
    {"scan_linear_max_ranks", lz::ParamType::kInt, "16",
     "Largest communicator on which Scan and Exscan pass the prefix along a chain; above it, recursive doubling", 5},
    // Forcing one algorithm (Open MPI's coll_tuned_<op>_algorithm, by name).
    {"barrier_algorithm", lz::ParamType::kEnum, "auto", "Barrier algorithm: auto (the switch points) or forced", 5,
     "auto|dissemination"},
    {"bcast_algorithm", lz::ParamType::kEnum, "auto",
     "Bcast algorithm: auto (bcast_scatter_allgather_min decides) or forced", 5, "auto|binomial|scatter_allgather"},
    {"reduce_algorithm", lz::ParamType::kEnum, "auto", "Reduce algorithm: auto or forced", 5, "auto|binomial"},
    {"allreduce_algorithm", lz::ParamType::kEnum, "auto",
     "Allreduce algorithm: auto (allreduce_rabenseifner_min and allreduce_ring_min decide) or forced; "
     "rabenseifner and ring need a commutative op and enough elements, and fall back to the automatic choice "
     "where they cannot run",
     5, "auto|recursive_doubling|rabenseifner|ring"},
    {"allgather_algorithm", lz::ParamType::kEnum, "auto",
     "Allgather algorithm: auto (allgather_bruck_max decides) or forced", 5, "auto|bruck|ring"},
    {"alltoall_algorithm", lz::ParamType::kEnum, "auto",
     "Alltoall(v) algorithm: auto (alltoall_pairwise_min and alltoall_bruck_max decide) or forced; bruck serves "
     "MPI_Alltoall only (alltoallv then decides automatically)",
     5, "auto|linear|pairwise|bruck"},
    {"reduce_scatter_algorithm", lz::ParamType::kEnum, "auto",
     "Reduce_scatter(_block) algorithm: auto or forced; pairwise needs a commutative op", 5,
     "auto|pairwise|reduce_scatterv"},
    {"scan_algorithm", lz::ParamType::kEnum, "auto",
     "Scan and Exscan algorithm: auto (scan_linear_max_ranks decides) or forced", 5, "auto|linear|recursive_doubling"},
};

// Index of `value` in "auto|a|b" (0 for auto); the registry has checked it.
int choice(const char* choices, const std::string& value) {
  int index = 0;
  for (const char* p = choices;; ++index) {
    const char* bar = std::strchr(p, '|');
    const size_t len = bar ? static_cast<size_t>(bar - p) : std::strlen(p);
    if (value.size() == len && value.compare(0, len, p, len) == 0) return index;
    if (!bar) return 0;
    p = bar + 1;
  }
}

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  lz::coll::TunedConfig cfg;
  if (ctx.params != nullptr) {
    auto get = [&](const char* name, int64_t fallback) {
      std::string full = ctx.param_prefix + name;
      return ctx.params->is_registered(full) ? ctx.params->get_int(full) : fallback;
    };
    cfg.allreduce_rabenseifner_min = get("allreduce_rabenseifner_min", cfg.allreduce_rabenseifner_min);
    cfg.allreduce_ring_min = get("allreduce_ring_min", cfg.allreduce_ring_min);
    cfg.allgather_bruck_max = get("allgather_bruck_max", cfg.allgather_bruck_max);
    cfg.alltoall_pairwise_min = get("alltoall_pairwise_min", cfg.alltoall_pairwise_min);
    cfg.alltoall_bruck_max = get("alltoall_bruck_max", cfg.alltoall_bruck_max);
    cfg.alltoall_bruck_min_ranks = static_cast<int>(get("alltoall_bruck_min_ranks", cfg.alltoall_bruck_min_ranks));
    cfg.bcast_scatter_allgather_min = get("bcast_scatter_allgather_min", cfg.bcast_scatter_allgather_min);
    cfg.scan_linear_max_ranks = static_cast<int>(get("scan_linear_max_ranks", cfg.scan_linear_max_ranks));
    auto alg = [&](const char* name) {
      std::string full = ctx.param_prefix + name;
      if (!ctx.params->is_registered(full)) return 0;
      for (const auto& spec : kParams) {
        if (std::strcmp(spec.name, name) == 0) return choice(spec.choices, ctx.params->get_string(full));
      }
      return 0;
    };
    cfg.bcast = static_cast<lz::coll::BcastAlg>(alg("bcast_algorithm"));
    cfg.allreduce = static_cast<lz::coll::AllreduceAlg>(alg("allreduce_algorithm"));
    cfg.allgather = static_cast<lz::coll::AllgatherAlg>(alg("allgather_algorithm"));
    cfg.alltoall = static_cast<lz::coll::AlltoallAlg>(alg("alltoall_algorithm"));
    cfg.reduce_scatter = static_cast<lz::coll::ReduceScatterAlg>(alg("reduce_scatter_algorithm"));
    cfg.scan = static_cast<lz::coll::ScanAlg>(alg("scan_algorithm"));
  }
  return std::unique_ptr<lz::Module>(new lz::coll::TunedModule(cfg));
}

}  // namespace

LZ_COMPONENT(coll, tuned) = {
    LZ_COMPONENT_HEADER(coll, tuned, lz::coll::kInterfaceVersion),
    "1.0.0", "Tree, recursive-doubling, Rabenseifner, Bruck/ring and pairwise algorithms with size switch points",
    /*default_priority=*/30, kParams, std::size(kParams), &query, nullptr};
