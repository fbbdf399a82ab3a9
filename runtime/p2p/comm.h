// Communicator: the runtime object behind an MPI_Comm handle.
//
// A communicator is an ordered group of world ranks plus two context ids: a
// point-to-point context (user traffic) and a collective context (traffic of
// the collective algorithms), so that a collective never matches a user
// message. Context ids are agreed collectively when the communicator is
// created (the maximum of every member's next free id, see comm_factory.h).
//
// Collective algorithms (components/coll/*) use only rank(), size(), the
// coll_* point-to-point calls and coll_table:
//
//   LZ_RETURN_IF_ERROR(comm.coll_sendrecv(sbuf, n, dt, right, kTag, rbuf, n, dt, left, kTag));
//   LZ_ASSIGN_OR_RETURN(auto* r, comm.coll_irecv(buf, n, dt, src, kTag));
//   LZ_RETURN_IF_ERROR(comm.coll_waitall(1, &r));
//
// Threading: like every MPI object, used by one thread at a time (the MPI
// binding provides at most MPI_THREAD_SERIALIZED).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"
#include "mpi.h"

struct lz_mpi_request_s;
struct lz_mpi_group_s;

namespace lz::rt {
class MatchQueue;
using Group = ::lz_mpi_group_s;
using Request = ::lz_mpi_request_s;
}  // namespace lz::rt

struct lz_mpi_comm_s {
 public:
  // ---- what the collective algorithms use -------------------------------
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Blocking and non-blocking point-to-point on the collective context.
  // `dst`/`src` are ranks in this communicator (MPI_PROC_NULL allowed);
  // counts are in elements of the datatype. Errors: kInvalidArgument for a
  // bad rank, kDataLoss for a truncated receive, kAborted when a peer failed.
  lz::Status coll_send(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag);
  lz::Status coll_recv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag);
  lz::Status coll_sendrecv(const void* sbuf, int scount, const lz::dt::Datatype& sdt, int dst, int stag, void* rbuf,
                           int rcount, const lz::dt::Datatype& rdt, int src, int rtag);
  lz::StatusOr<lz_mpi_request_s*> coll_isend(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag);
  lz::StatusOr<lz_mpi_request_s*> coll_irecv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag);
  // Waits for the `n` requests, then frees them (every one, even on error);
  // returns the first error met.
  lz::Status coll_waitall(int n, lz_mpi_request_s** reqs);

  // Per-function collective module, filled by lz::rt::coll_enable().
  std::array<lz::coll::Module*, lz::coll::kNumFunctions> coll_table{};

  // ---- runtime side --------------------------------------------------------
  lz_mpi_comm_s() = default;
  lz_mpi_comm_s(const lz_mpi_comm_s&) = delete;
  lz_mpi_comm_s& operator=(const lz_mpi_comm_s&) = delete;

  // Sets up membership and contexts; `world_ranks[i]` is the world rank of
  // communicator rank i. `context` is the point-to-point context id; the
  // collective context is context + 1.
  void setup(std::vector<int> world_ranks, int my_rank, uint32_t context, bool predefined);
  // Releases the communicator's resources (not the object if predefined).
  void teardown();

  bool valid() const { return magic_ == kMagic; }
  bool predefined() const { return predefined_; }
  uint32_t p2p_context() const { return context_; }
  uint32_t coll_context() const { return context_ + 1; }
  int world_rank_of(int r) const { return world_ranks_[static_cast<size_t>(r)]; }
  const std::vector<int>& world_ranks() const { return world_ranks_; }

  MPI_Errhandler errhandler = nullptr;  // null: MPI_ERRORS_ARE_FATAL

  // Engine-owned matching queues of the two contexts (set by setup()).
  lz::rt::MatchQueue* p2p_queue = nullptr;
  lz::rt::MatchQueue* coll_queue = nullptr;

 private:
  static constexpr uint32_t kMagic = 0x434f4d4d;  // "COMM"
  uint32_t magic_ = 0;
  int rank_ = -1;
  int size_ = 0;
  uint32_t context_ = 0;
  bool predefined_ = false;
  std::vector<int> world_ranks_;
};

namespace lz::rt {
using Comm = ::lz_mpi_comm_s;
}  // namespace lz::rt
