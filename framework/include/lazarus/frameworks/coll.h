// The `coll` framework: collective algorithms, chosen per communicator and per
// function.
//
// Everything a collective component needs is in this header and the datatype
// layer's public headers (lazarus/datatype/*.h: sizes, extents, pack/unpack,
// typed copies, scratch buffers, reduction ops). A component never sees the
// runtime's communicator: it talks to lz::coll::Comm, an abstract view of one
// communicator offering rank, size and point-to-point on the communicator's
// collective context. So a collective plugin builds from installed headers.
//
// When the runtime creates a communicator it asks every selected coll module,
// best priority first, which functions it provides on that communicator
// (enable() returns a bitset). Each function is taken from the highest-priority
// module that provides it, so a module may provide only allreduce and leave the
// rest to another (coll/basic provides all of them and is the fallback). When
// the communicator is freed, every module it enabled is told (disable()).
//
//   class MyColl final : public lz::coll::Module {
//    public:
//     uint32_t enable(lz::coll::Comm& comm) override { return comm.size() > 1 ? lz::coll::bit(lz::coll::kBarrier) : 0; }
//     lz::Status barrier(lz::coll::Comm& comm) override {
//       const lz::dt::Datatype& byte = lz::dt::byte_type();          // lazarus/datatype/datatype.h
//       const int n = comm.size(), me = comm.rank();
//       for (int k = 1; k < n; k <<= 1)
//         LZ_RETURN_IF_ERROR(comm.sendrecv(nullptr, 0, byte, (me + k) % n, kTag, nullptr, 0, byte, (me - k + n) % n, kTag));
//       return lz::Status::Ok();
//     }
//   };
//
// Contract of every collective function: the arguments have MPI's meaning
// (counts in elements of `type`, displacements in elements), already checked
// by the MPI binding; `is_in_place(sbuf)` marks MPI_IN_PLACE. Runs on the
// calling thread with the MPI entry lock held; blocking; returns kInterrupted
// never (a checkpoint is taken inside the p2p waits it uses, invisibly). Every
// rank of the communicator calls the same function with matching arguments, as
// MPI requires; a module must therefore choose its algorithm from values that
// are equal on every rank. Errors are those of the Comm calls it makes
// (returned as they are); kUnimplemented when the module does not provide the
// function (never reached: the runtime calls only what enable() announced).
#pragma once

#include <cstdint>

#include "lazarus/component.h"
#include "lazarus/status.h"

// The datatype layer's objects (mpi.h's MPI_Datatype and MPI_Op point to
// them). Declared here so that this header needs nothing outside the
// framework; a module includes lazarus/datatype/datatype.h and op.h to use them.
struct lz_datatype_s;  // lazarus/datatype/datatype.h
struct lz_op_s;        // lazarus/datatype/op.h
namespace lz::dt {
using Datatype = ::lz_datatype_s;
using Op = ::lz_op_s;
}  // namespace lz::dt

namespace lz::coll {

// 2: modules see lz::coll::Comm (an interface) instead of the runtime's
// communicator, datatypes/ops from lz::dt, and get disable().
inline constexpr uint32_t kInterfaceVersion = 2;

enum Function : uint32_t {
  kBarrier, kBcast, kReduce, kAllreduce, kGather, kGatherv, kScatter, kScatterv,
  kAllgather, kAllgatherv, kAlltoall, kAlltoallv, kReduceScatter, kReduceScatterBlock,
  kScan, kExscan, kNumFunctions
};
constexpr uint32_t bit(Function f) { return 1u << f; }
constexpr uint32_t kAllFunctions = (1u << kNumFunctions) - 1;
const char* function_name(Function f) noexcept;

// MPI_IN_PLACE is the address 1 (mpi.h defines it so); in_place_buffer() passes
// it on from one algorithm to another.
inline bool is_in_place(const void* p) { return reinterpret_cast<uintptr_t>(p) == 1; }
inline const void* in_place_buffer() { return reinterpret_cast<const void*>(uintptr_t{1}); }

using dt::Datatype;
using dt::Op;

// A non-blocking operation posted by Comm::isend/irecv. Opaque to modules:
// they hold the pointer and hand it back to Comm::waitall, which completes and
// frees it. The runtime's request type derives from it.
struct Request {};

// What a collective module may do with a communicator. Implemented by the
// runtime over its communicator (runtime/p2p/comm.h) and by test doubles.
//
// All point-to-point calls travel on the communicator's collective context: a
// collective never matches a user message, and user messages never match a
// collective's. Ranks are ranks in this communicator; MPI_PROC_NULL (-2) is
// allowed as a peer (the call completes at once and moves nothing). Tags are
// >= 0 and chosen by the module (distinct per function, so a mismatched call
// sequence is caught by truncation or ordering rather than mixing data).
// Matching follows MPI: per (source, tag) in posting order.
//
// Threading: used by one thread at a time (the thread running the collective).
// Errors common to every call: kInvalidArgument for a bad rank; kDataLoss
// when a message is longer than the receive buffer; kAborted when the peer
// failed.
class Comm {
 public:
  virtual ~Comm() = default;

  // This process's rank, in [0, size()).
  virtual int rank() const = 0;
  // Number of ranks; >= 1.
  virtual int size() const = 0;

  // Blocking send of `count` elements of `dt` at `buf` to rank `dst`. Returns
  // when `buf` may be reused (not necessarily when the peer received it).
  virtual Status send(const void* buf, int count, const Datatype& dt, int dst, int tag) = 0;
  // Blocking receive of at most `count` elements of `dt` into `buf` from rank
  // `src`; returns when they have arrived.
  virtual Status recv(void* buf, int count, const Datatype& dt, int src, int tag) = 0;
  // Both at once, without deadlock whatever the peers' order: the receive is
  // posted before the send. The buffers must not overlap.
  virtual Status sendrecv(const void* sbuf, int scount, const Datatype& sdt, int dst, int stag, void* rbuf,
                          int rcount, const Datatype& rdt, int src, int rtag) = 0;
  // Non-blocking forms. On success the request is in flight: the module must
  // hand it to waitall() before it returns (and before it reuses or frees the
  // buffer); the datatype is kept alive by the request. On error nothing was
  // posted.
  virtual StatusOr<Request*> isend(const void* buf, int count, const Datatype& dt, int dst, int tag) = 0;
  virtual StatusOr<Request*> irecv(void* buf, int count, const Datatype& dt, int src, int tag) = 0;
  // Waits until the `n` requests (null entries are skipped) have completed,
  // then frees every one, even on error, and sets the entries to null. Returns
  // the first request's error in array order.
  virtual Status waitall(int n, Request** reqs) = 0;
};

// A live coll module: one per process, shared by every communicator it is
// enabled on. Handed out by the component's query(); destroyed at MPI_Finalize
// after every predefined communicator was disabled.
class Module : public lz::Module {
 public:
  // Returns the functions this module provides on `comm` (0: none). Called
  // once per new communicator, after the communicator is usable for
  // point-to-point and before any collective runs on it; on every rank of it
  // with the same answer expected (decide from size and parameters, not from
  // rank-local facts). The runtime may stop asking lower-priority modules
  // once every function is provided: a module that is not asked is not
  // enabled. A module may keep per-communicator state keyed by &comm, which
  // stays valid until disable(comm).
  virtual uint32_t enable(Comm& comm) = 0;

  // Called once for every module whose enable() was called on `comm` (even
  // if it returned 0), in reverse order of enabling, when the communicator is
  // freed (MPI_Comm_free, MPI_Finalize for the predefined ones, or a failed
  // creation). No collective is running on `comm` and none will; the module
  // releases what it keeps for it. Must not communicate. A communicator the
  // application never freed is not disabled before the module is destroyed.
  virtual void disable(Comm& comm) { (void)comm; }

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
