// NbcSchedule: a non-blocking collective as rounds of point-to-point
// transfers and local steps, advanced by the engine's progress (libNBC's
// design). A round's sends and receives start together; when all of them
// have completed, its local steps (copies, reductions) run in order and the
// next round starts. The engine advances every schedule in flight on each
// progress turn, so a collective moves on while its rank waits for anything
// else (MPI_Wait on another request, a blocking receive).
//
//   auto s = std::make_unique<NbcSchedule>(comm, tag);
//   s->recv(tmp, n, dt, left);                 // round 0
//   s->reduce(tmp, acc, n, dt, op);            // after round 0's transfers
//   s->next_round();
//   s->send(acc, n, dt, right);                // round 1
//   engine.start_nbc(request, std::move(s));
//
// Transfers travel on the communicator's collective context with the tag
// given (negative: below every coll module's tags, and distinct per call,
// so collectives in flight together never match each other's messages).
// Datatypes and ops are retained until the schedule ends: MPI lets the
// caller free them once the call has returned.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"
#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"

struct lz_mpi_comm_s;
struct lz_mpi_request_s;

namespace lz::rt {

using Request = ::lz_mpi_request_s;

class NbcSchedule {
 public:
  NbcSchedule(lz_mpi_comm_s& comm, int tag) : comm_(comm), tag_(tag) { rounds_.emplace_back(); }
  ~NbcSchedule();
  NbcSchedule(const NbcSchedule&) = delete;
  NbcSchedule& operator=(const NbcSchedule&) = delete;

  // ---- building (before start) ----------------------------------------------------
  void send(const void* buf, int count, const dt::Datatype& dt, int peer);
  void recv(void* buf, int count, const dt::Datatype& dt, int peer);
  // A transfer the caller started itself (MPI_Isendrecv's send and
  // receive, on the communicator's point-to-point context with the
  // program's tags): the first round waits for it like for its own, then
  // releases it. `status_into`, when given, takes its status first (source,
  // tag, bytes, cancelled). Only in the first round: a later one might never
  // start, and the request would be left behind.
  void await(Request* started, Request* status_into = nullptr);
  // Local steps, run once the round's transfers have completed.
  void copy(const void* src, int scount, const dt::Datatype& sdt, void* dst, int dcount, const dt::Datatype& ddt);
  void reduce(const void* in, void* inout, int count, const dt::Datatype& dt, const dt::Op& op);
  // A local step that runs `fn`, in order with the round's copies and
  // reductions. `fn` may extend the schedule while it runs: after
  // next_round(), what it adds runs once the current round has ended (the
  // context-id agreement of MPI_Comm_idup decides so whether to try again).
  // An error it returns ends the schedule with that error.
  void call(std::function<Status()> fn);
  // A step that ends when `done()` returns true, asked on every turn until
  // it does (the request of a one-sided operation, runtime/osc, completes
  // when the window says the operation has).
  void until(std::function<bool()> done);
  void next_round();
  // A temporary buffer of `count` elements of `dt`, owned by the schedule.
  void* temp(int count, const dt::Datatype& dt);
  // `n` ints owned by the schedule (displacements computed at build time).
  std::vector<int>* ints(int n);

  // ---- running (engine) -----------------------------------------------------------
  // Starts transfers and runs local steps as far as it can without waiting.
  // True once every round has completed, or once the schedule failed
  // (error()) and nothing it posted is still in flight.
  bool advance();
  const Status& error() const { return error_; }

 private:
  enum class StepKind { kSend, kRecv, kCopy, kReduce, kCall, kAwait, kUntil };
  struct Step {
    StepKind kind;
    const void* in = nullptr;
    void* out = nullptr;
    int count = 0, out_count = 0;
    const dt::Datatype* dt = nullptr;
    const dt::Datatype* out_dt = nullptr;
    const dt::Op* op = nullptr;
    int peer = 0;  // kCall: the index in calls_
  };
  struct Round {
    std::vector<Step> steps;
  };
  void add(Step s);
  Status start_round();
  bool transfers_done();
  Status finish_round();

  lz_mpi_comm_s& comm_;
  const int tag_;
  std::vector<Round> rounds_;
  size_t current_ = 0;
  bool started_ = false;  // the current round's transfers are posted
  std::vector<lz::coll::Request*> pending_;
  std::vector<std::unique_ptr<dt::TypedBuffer>> temps_;
  std::vector<std::unique_ptr<std::vector<int>>> int_arrays_;
  std::vector<const dt::Datatype*> types_;
  std::vector<const dt::Op*> ops_;
  std::vector<std::function<Status()>> calls_;
  std::vector<std::function<bool()>> untils_;
  Status error_;
};

}  // namespace lz::rt
