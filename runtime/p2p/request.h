// Request: the runtime object behind an MPI_Request handle, and the pool that
// recycles them (no allocation per message on the hot path).
//
// A request is created by the binding (or by Comm::isend/irecv, which hand it
// to collective modules as an opaque lz::coll::Request), filled
// with its arguments, started by the engine (Engine::start_send/start_recv)
// and completed by the engine from progress; the binding reads its status
// fields and releases it (Request::release) unless it is persistent.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lazarus/datatype/datatype.h"
#include "lazarus/frameworks/coll.h"
#include "mpi.h"

struct lz_mpi_comm_s;
struct lz_datatype_s;
namespace lz::rt {
struct RegisteredBuffer;
struct GeneralizedRequest;
struct PersistentColl;
}  // namespace lz::rt

struct lz_mpi_request_s : lz::coll::Request {
  // kColl: a non-blocking collective (Engine::start_nbc); kGeneralized:
  // MPI_Grequest_start's, completed by the program (mpi_grequest.cpp), never
  // in the engine's queues.
  enum class Kind : uint8_t { kSend, kRecv, kColl, kGeneralized };
  enum class Mode : uint8_t { kStandard, kSync, kReady, kBuffered };

  // ---- arguments -------------------------------------------------------------
  Kind kind = Kind::kSend;
  Mode mode = Mode::kStandard;
  bool persistent = false;
  void* buf = nullptr;
  int count = 0;
  const lz_datatype_s* dt = nullptr;  // null: raw bytes, count = bytes
  lz_mpi_comm_s* comm = nullptr;
  int peer = 0;  // rank in comm, MPI_ANY_SOURCE, MPI_PROC_NULL
  int tag = 0;
  uint32_t context = 0;  // matching context

  // ---- state -----------------------------------------------------------------
  bool active = false;  // started and not yet completed-and-reported
  bool complete = false;
  bool user_freed = false;  // MPI_Request_free while active: release at completion
  int world_peer = -1;
  uint64_t bytes = 0;   // send: packed bytes; recv: capacity in bytes
  char* tmp = nullptr;  // owned packed buffer (non-contiguous data, bsend copy)
  bool tmp_is_bsend = false;
  const char* data = nullptr;                         // send: the bytes on the wire (user buffer or tmp)
  char* dest = nullptr;                               // recv: where the bytes land (user buffer or tmp)
  uint64_t rndv_total = 0;                            // rendezvous: message bytes
  uint64_t rndv_done = 0;                             // rendezvous: bytes sent or received so far
  uint64_t remote_req = 0;                            // the peer's request id
  lz::rt::RegisteredBuffer* region = nullptr;         // rendezvous send: `data` registered for the peer's get
  lz::rt::GeneralizedRequest* generalized = nullptr;  // kGeneralized: the program's callbacks (owned)
  lz::rt::PersistentColl* persistent_coll = nullptr;  // persistent kColl: its bound call (owned; mpi/persistent_coll.h)
  // ---- cancel of a send (Engine::cancel) ----------------------------------------
  bool rndv = false;         // send: went as a rendezvous request (RTS)
  bool zcopy = false;        // send: an eager frame by send_zcopy(), not complete yet (cancellable)
  bool withdrawing = false;  // send: a kCancel is out and its answer is not in yet
  bool answered = false;     // send: its protocol ended while withdrawing (completes at the answer)
  // A buffered send that went by rendezvous completes at once; an internal
  // request carries the copy. While that transfer runs the two are linked
  // (cut when either is done with: the transfer completes, or the user's
  // request is recycled or started again), so MPI_Cancel of the user's
  // request can withdraw the transfer; the user's request then stays
  // incomplete (withdrawing) until the transfer has ended.
  lz_mpi_request_s* bsend_xfer = nullptr;   // user's request: its transfer
  lz_mpi_request_s* bsend_owner = nullptr;  // transfer: the user's request
  // ---- application-level checkpoints (crcp MessageLog) --------------------------
  uint64_t cr_stamp = 0;  // recv: the matched message's stamp
  uint64_t cr_wild = 0;   // recv: 1 + its number among wildcard receives (0: not one)
  bool cr_late = false;   // recv: the message is late; log its bytes at completion
  bool cr_open = false;   // recv: counted in Engine::open_receives()

  // ---- status ------------------------------------------------------------------
  int st_source = MPI_ANY_SOURCE;
  int st_tag = MPI_ANY_TAG;
  int st_error = MPI_SUCCESS;
  bool st_cancelled = false;
  uint64_t st_bytes = 0;

  // ---- intrusive links (posted queue, per-peer waiting list, pool) ---------------
  lz_mpi_request_s* next = nullptr;
  lz_mpi_request_s* prev = nullptr;

  uint32_t magic = 0;
  static constexpr uint32_t kMagic = 0x52455153;  // "REQS"
  bool valid() const { return magic == kMagic; }

  // Resets to a fresh request (keeps nothing).
  void reset();
  // Fills an MPI_Status from the status fields (null: ignored), all but
  // MPI_ERROR: only the calls of several statuses set it (mpi_request.cpp).
  void fill_status(MPI_Status* st) const;
  // Frees the owned temporary buffer.
  void free_tmp();
};

namespace lz::rt {

using Request = ::lz_mpi_request_s;

// A free list of requests; one per process, used by one thread at a time.
class RequestPool {
 public:
  Request* get();
  // Inline: a blocking receive returns its request on the way to the
  // caller. What the request owns (a buffered-send link, a temporary buffer,
  // a derived datatype) is released out of line.
  void put(Request* r) {
    if (__builtin_expect(r->bsend_xfer != nullptr || r->tmp != nullptr || (r->dt != nullptr && !r->dt->is_predefined()),
                         0))
      release_owned(r);
    r->dt = nullptr;
    r->magic = 0;
    if (__builtin_expect(free_count_ >= kMaxFree, 0)) {
      delete r;
      return;
    }
    r->next = free_;
    free_ = r;
    ++free_count_;
  }

 private:
  static constexpr size_t kMaxFree = 4096;
  static void release_owned(Request* r);

  Request* free_ = nullptr;
  size_t free_count_ = 0;
};

// The process's pool: constant-initialized and never destroyed (requests may
// outlive static destruction order), so using it costs no guard.
extern RequestPool g_request_pool;
inline RequestPool& request_pool() { return g_request_pool; }

}  // namespace lz::rt
