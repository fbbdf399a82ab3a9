// Communicator: the runtime object behind an MPI_Comm handle.
//
// A communicator is an ordered group of world ranks plus two context ids: a
// point-to-point context (user traffic) and a collective context (traffic of
// the collective algorithms), so that a collective never matches a user
// message. Context ids are agreed collectively when the communicator is
// created (the maximum of every member's next free id, see comm_factory.h).
//
// A communicator is the collective modules' lz::coll::Comm (coll.h): the
// modules see only rank(), size() and point-to-point on the collective
// context through that interface; the runtime side below is theirs to ignore.
// The runtime itself uses the same calls for the context-id agreement of
// comm_factory (on the parent's collective context, below every module tag):
//
//   LZ_RETURN_IF_ERROR(comm.sendrecv(sbuf, n, dt, right, kTag, rbuf, n, dt, left, kTag));
//   LZ_ASSIGN_OR_RETURN(lz::coll::Request* r, comm.irecv(buf, n, dt, src, kTag));
//   LZ_RETURN_IF_ERROR(comm.waitall(1, &r));
//
// Threading: like every MPI object, used by one thread at a time (under
// MPI_THREAD_MULTIPLE, the one holding the thread gate, mpi/thread_gate.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"
#include "mpi.h"

struct lz_mpi_request_s;
struct lz_mpi_group_s;

namespace lz::rt {
class MatchQueue;
struct Topology;
using Group = ::lz_mpi_group_s;
using Request = ::lz_mpi_request_s;
}  // namespace lz::rt

struct lz_mpi_comm_s final : public lz::coll::Comm {
 public:
  // ---- lz::coll::Comm: what the collective modules use -------------------------
  // Contracts in coll.h. Point-to-point on coll_context(); `dst`/`src` are
  // ranks in this communicator (MPI_PROC_NULL allowed, MPI_ANY_SOURCE for
  // receives); requests are the engine's (lz_mpi_request_s).
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  lz::Status send(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag) override;
  lz::Status recv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag) override;
  lz::Status sendrecv(const void* sbuf, int scount, const lz::dt::Datatype& sdt, int dst, int stag, void* rbuf,
                      int rcount, const lz::dt::Datatype& rdt, int src, int rtag) override;
  lz::StatusOr<lz::coll::Request*> isend(const void* buf, int count, const lz::dt::Datatype& dt, int dst,
                                         int tag) override;
  lz::StatusOr<lz::coll::Request*> irecv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag) override;
  lz::Status waitall(int n, lz::coll::Request** reqs) override;

  // Per-function collective module, filled by lz::rt::coll_enable().
  std::array<lz::coll::Module*, lz::coll::kNumFunctions> coll_table{};
  // Every module whose enable() was called on this communicator, in order;
  // teardown() disables them in reverse order (coll.h: Module::disable).
  std::vector<lz::coll::Module*> coll_enabled;

  // ---- runtime side --------------------------------------------------------
  lz_mpi_comm_s() = default;
  lz_mpi_comm_s(const lz_mpi_comm_s&) = delete;
  lz_mpi_comm_s& operator=(const lz_mpi_comm_s&) = delete;

  // Sets up membership and contexts; `world_ranks[i]` is the world rank of
  // communicator rank i. `context` is the point-to-point context id; the
  // collective context is context + 1.
  void setup(std::vector<int> world_ranks, int my_rank, uint32_t context, bool predefined);
  // Sets up an intercommunicator: `local` is the local group (rank(), size()
  // and MPI_Comm_group describe it), `remote` the remote group, which every
  // point-to-point rank names (send/recv/isend/irecv here, the engine's
  // matching, NbcSchedule). No collective module is enabled on it: its
  // collectives are the schedules of p2p/nbc_inter.h.
  void setup_inter(std::vector<int> local, int my_rank, std::vector<int> remote, uint32_t context);
  // Disables the collective modules enabled on it, then releases the
  // communicator's resources (not the object if predefined).
  void teardown();

  bool valid() const { return magic_ == kMagic; }
  bool predefined() const { return predefined_; }
  // Communicators set up and not torn down that a process taking this
  // rank's place could not make again alone (p2p/comm_record.h): every one
  // but the predefined and those marked replayable.
  static int unreplayable_alive();
  // Made by a recorded agreement (CommRecord) before the first safe point.
  void mark_replayable();
  uint32_t p2p_context() const { return context_; }
  uint32_t coll_context() const { return context_ + 1; }
  // The world rank of rank `r` as point-to-point names it: a rank of the
  // remote group on an intercommunicator, of the group otherwise.
  int world_rank_of(int r) const {
    return inter_ ? remote_world_ranks_[static_cast<size_t>(r)] : world_ranks_[static_cast<size_t>(r)];
  }
  // The (local) group, in rank order.
  const std::vector<int>& world_ranks() const { return world_ranks_; }
  bool is_inter() const { return inter_; }
  // The size of the group point-to-point ranks name (the remote group's on
  // an intercommunicator).
  int peer_size() const { return inter_ ? static_cast<int>(remote_world_ranks_.size()) : size_; }
  // Intercommunicators: the remote group, in its rank order (empty otherwise).
  int remote_size() const { return static_cast<int>(remote_world_ranks_.size()); }
  const std::vector<int>& remote_world_ranks() const { return remote_world_ranks_; }

  MPI_Errhandler errhandler = nullptr;  // null: MPI_ERRORS_ARE_FATAL
  // MPI_Comm_set_name / MPI_Comm_get_name: "MPI_COMM_WORLD" and
  // "MPI_COMM_SELF" for the predefined ones, empty for new communicators
  // (not inherited by MPI_Comm_dup, as MPI-3.1 section 6.8 says).
  std::string name;
  // Non-blocking collectives started on it so far: each takes the next tag
  // (lz::rt::nbc_tag), so collectives in flight together never mix messages.
  uint32_t nbc_calls = 0;
  // MPI_Cart_create / MPI_Graph_create's topology (p2p/topology.h), shared
  // with dups; null for none.
  std::shared_ptr<const lz::rt::Topology> topology;
  // MPI_Comm_set_attr's (keyval, value) pairs in the order they were set
  // (mpi/mpi_attr.cpp copies them on dup, deletes them on free).
  std::vector<std::pair<int, void*>> attributes;

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
  bool replayable_ = false;
  bool inter_ = false;
  std::vector<int> world_ranks_;
  std::vector<int> remote_world_ranks_;
};

namespace lz::rt {
using Comm = ::lz_mpi_comm_s;
}  // namespace lz::rt
