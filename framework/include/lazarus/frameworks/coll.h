// The `coll` framework: collective algorithms, chosen per communicator and per
// function.
//
// When the runtime creates a communicator it asks every selected coll module,
// best priority first, which functions it provides on that communicator
// (enable() returns a bitset). Each function is taken from the highest-priority
// module that provides it, so a module may provide only allreduce and leave the
// rest to another (coll/basic provides all of them and is the fallback).
//
//   uint32_t fns = tuned.enable(comm);            // e.g. bit(kAllreduce) | bit(kBcast)
//   comm.coll_table[kAllreduce] = &tuned;         // runtime's per-comm table
//   LZ_RETURN_IF_ERROR(tuned.allreduce(sbuf, rbuf, n, dtype, op, comm));
//
// Contract of every function: the arguments have MPI's meaning (counts in
// elements of `type`, displacements in elements), already checked by the MPI
// binding; `is_in_place(sbuf)` marks MPI_IN_PLACE. Runs on the calling thread
// with the MPI entry lock held; blocking; returns kInterrupted never (a
// checkpoint is taken inside the p2p waits it uses, invisibly).
#pragma once

#include <cstdint>

#include "lazarus/component.h"
#include "lazarus/status.h"

// The runtime's objects are the MPI handles' structs themselves (mpi.h:
// MPI_Comm is `struct lz_mpi_comm_s*`), so the binding never translates handles.
struct lz_mpi_comm_s;  // a communicator (runtime/p2p/comm.h)
struct lz_datatype_s;  // a datatype (lazarus/datatype/datatype.h)
struct lz_op_s;        // a reduction operation (lazarus/datatype/op.h)
namespace lz::rt {
using Comm = ::lz_mpi_comm_s;
}  // namespace lz::rt
namespace lz::dt {
using Datatype = ::lz_datatype_s;
using Op = ::lz_op_s;
}  // namespace lz::dt

namespace lz::coll {

inline constexpr uint32_t kInterfaceVersion = 1;

enum Function : uint32_t {
  kBarrier, kBcast, kReduce, kAllreduce, kGather, kGatherv, kScatter, kScatterv,
  kAllgather, kAllgatherv, kAlltoall, kAlltoallv, kReduceScatter, kReduceScatterBlock,
  kScan, kExscan, kNumFunctions
};
constexpr uint32_t bit(Function f) { return 1u << f; }
constexpr uint32_t kAllFunctions = (1u << kNumFunctions) - 1;
const char* function_name(Function f) noexcept;

// MPI_IN_PLACE is the address 1 (mpi.h defines it so).
inline bool is_in_place(const void* p) { return reinterpret_cast<uintptr_t>(p) == 1; }

using rt::Comm;
using dt::Datatype;
using dt::Op;

class Module : public lz::Module {
 public:
  // Returns the functions this module provides on `comm` (0: none). Called
  // once per new communicator, after the communicator is usable for p2p.
  virtual uint32_t enable(Comm& comm) = 0;

#define LZ_COLL_UNIMPL return Unimplemented("collective not provided by this module")
  virtual Status barrier(Comm&) { LZ_COLL_UNIMPL; }
  virtual Status bcast(void*, int, const Datatype&, int, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status reduce(const void*, void*, int, const Datatype&, const Op&, int, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status allreduce(const void*, void*, int, const Datatype&, const Op&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status gather(const void*, int, const Datatype&, void*, int, const Datatype&, int, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status gatherv(const void*, int, const Datatype&, void*, const int*, const int*, const Datatype&, int,
                         Comm&) { LZ_COLL_UNIMPL; }
  virtual Status scatter(const void*, int, const Datatype&, void*, int, const Datatype&, int, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status scatterv(const void*, const int*, const int*, const Datatype&, void*, int, const Datatype&, int,
                          Comm&) { LZ_COLL_UNIMPL; }
  virtual Status allgather(const void*, int, const Datatype&, void*, int, const Datatype&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status allgatherv(const void*, int, const Datatype&, void*, const int*, const int*, const Datatype&,
                            Comm&) { LZ_COLL_UNIMPL; }
  virtual Status alltoall(const void*, int, const Datatype&, void*, int, const Datatype&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status alltoallv(const void*, const int*, const int*, const Datatype&, void*, const int*, const int*,
                           const Datatype&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status reduce_scatter(const void*, void*, const int*, const Datatype&, const Op&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status reduce_scatter_block(const void*, void*, int, const Datatype&, const Op&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status scan(const void*, void*, int, const Datatype&, const Op&, Comm&) { LZ_COLL_UNIMPL; }
  virtual Status exscan(const void*, void*, int, const Datatype&, const Op&, Comm&) { LZ_COLL_UNIMPL; }
#undef LZ_COLL_UNIMPL
};

}  // namespace lz::coll
