// Window: the runtime object behind an MPI_Win handle (MPI-3.1 chapter 11).
//
// One-sided operations travel as active messages over the p2p engine
// (wire.h), so every transport carries them, the checkpoint's drain sees
// them as the messages they are, and a core image holds every window's
// state. Each window is a progress hook of the engine (its agent): on every
// progress turn it takes the operations other ranks addressed to it and
// executes them, in each origin's order, against its memory. A rank that
// computes outside MPI still serves them through the progress thread
// (progress_thread.h). Shared-memory windows (MPI_Win_allocate_shared) are
// one mapping every rank of the host loads and stores directly
// (shared_segment.h).
//
// Who calls what: the MPI binding (runtime/mpi/mpi_win*.cpp, mpi_rma.cpp)
// checks the arguments, runs the collective parts (the communicator's
// duplicate, the exchange of sizes) and calls the window for the rest:
//
//   auto* w = new lz_mpi_win_s(comm_dup, flavor, base, size, disp_unit, sizes, units);
//   w->put(origin, n, dt, target, disp, tn, tdt);       // inside an epoch
//   std::vector<int> sent = w->fence_counts();           // MPI_Win_fence
//   w->fence_exchange(sent, assert);                     //   (all direct: direct_barrier())
//
// Epochs (origin side): a fence epoch (from a fence without NOSUCCEED to
// the next fence), a PSCW access epoch (start .. complete), a lock per
// target (lock .. unlock) or lock_all. Locks are taken lazily: the lock
// request goes with the first message to the target and the target holds
// that origin's later messages until it grants the lock; only a lock on
// the caller's own rank waits for the grant (the program then loads and
// stores). Remote completion is acknowledged, never assumed: a flush,
// unlock or fence waits for the target's answer or count.
//
// Threading: one thread at a time (the MPI entry, or the progress thread
// holding the entry lock).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/status.h"
#include "mpi.h"
#include "osc/wire.h"
#include "p2p/comm.h"
#include "p2p/engine.h"

namespace lz::osc {
class SharedSegment;
struct TargetWords;
struct FenceSlot;
}  // namespace lz::osc

struct lz_mpi_win_s final : public lz::rt::ProgressHook {
  using Comm = lz::rt::Comm;
  using Request = lz::rt::Request;
  using Datatype = lz::dt::Datatype;

  // `comm` is the window's own communicator (a duplicate; the window frees
  // it). `sizes` / `units`: every rank's window size and displacement unit.
  lz_mpi_win_s(Comm* comm, int flavor, void* base, MPI_Aint size, int disp_unit, std::vector<MPI_Aint> sizes,
               std::vector<int> units);
  ~lz_mpi_win_s() override;
  lz_mpi_win_s(const lz_mpi_win_s&) = delete;
  lz_mpi_win_s& operator=(const lz_mpi_win_s&) = delete;

  bool valid() const { return magic_ == kMagic; }
  Comm& comm() { return *comm_; }
  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }
  int flavor() const { return flavor_; }
  void* base() const { return base_; }
  void set_base(void* b) { base_ = b; }
  MPI_Aint size_bytes() const { return size_; }
  int disp_unit() const { return disp_unit_; }
  MPI_Aint size_of(int r) const { return sizes_[static_cast<size_t>(r)]; }
  int disp_unit_of(int r) const { return units_[static_cast<size_t>(r)]; }

  // ---- MPI_Win_allocate_shared ------------------------------------------------
  // Takes the mapping every rank's segment lives in; `offsets[r]` is rank r's
  // segment's offset in it.
  void set_shared(std::unique_ptr<lz::osc::SharedSegment> seg, std::vector<size_t> offsets);
  lz::osc::SharedSegment* shared() const { return segment_.get(); }
  // Rank r's segment in this process (shared flavor only).
  char* shared_base_of(int r) const;

  // ---- load/store within a host (window_direct.cpp) -------------------------------
  // Target `t`'s memory is mapped in this process at `base`, and its words
  // (target_words.h) at `words`: operations to it are loads, stores and
  // the words' locks, done by the calling rank itself.
  void set_direct(int t, char* base, lz::osc::TargetWords* words);
  // This rank's own words: its agent takes the same locks for other ranks' messages.
  void set_own_words(lz::osc::TargetWords* w) { own_words_ = w; }
  // MPI_Win_allocate's memory in a segment of its own (peers on this host map
  // it), and the peers' segments this rank mapped.
  void set_own_segment(std::unique_ptr<lz::osc::SharedSegment> seg);
  void add_peer_segment(std::unique_ptr<lz::osc::SharedSegment> seg);
  lz::osc::SharedSegment* own_segment() const { return own_segment_.get(); }
  bool has_direct_peers() const { return own_segment_ != nullptr || !peer_segments_.empty(); }
  // Every rank reaches every other by load/store (agreed by all): no
  // operation travels as a message, MPI_Win_fence is a barrier, and the
  // progress thread need not serve this window.
  void set_all_direct(bool all);
  bool reaches_directly(int t) const { return direct_[static_cast<size_t>(t)].base != nullptr; }
  bool all_direct() const { return all_direct_; }
  // The fence barrier of an all-direct window, in rank 0's header page
  // (target_words.h), set on every rank once all mapped it.
  void set_fence_barrier(char* rank0_header, size_t page);
  bool has_fence_barrier() const { return fence_slots_ != nullptr; }
  // The barrier of MPI_Win_fence on an all-direct window with a fence
  // barrier: shared-memory counters, a spin, then sleep until the last
  // rank in sends a kWake. True when passed; false when a checkpoint made the
  // window reach its peers by messages while this rank waited and the
  // barrier had not passed: the caller then fences by messages, as the
  // ranks that had not arrived yet will.
  bool direct_barrier();
  // Before a core image: the peers' mappings are dropped (their targets are
  // reached by messages from now on) and the own segment becomes private.
  lz::Status drop_direct_peers();

  // ---- MPI_Win_create_dynamic ---------------------------------------------------
  lz::Status attach(void* base, MPI_Aint size);
  lz::Status detach(const void* base);

  // ---- communication (arguments checked by the binding) --------------------------
  // `done`, when given, is set once the operation completed locally (the
  // MPI_R* calls' requests): *done is a flag the window sets.
  lz::Status put(const void* origin, int ocount, const Datatype& odt, int target, MPI_Aint tdisp, int tcount,
                 const Datatype& tdt, std::shared_ptr<bool> done = nullptr);
  lz::Status get(void* origin, int ocount, const Datatype& odt, int target, MPI_Aint tdisp, int tcount,
                 const Datatype& tdt, std::shared_ptr<bool> done = nullptr);
  lz::Status accumulate(const void* origin, int ocount, const Datatype& odt, int target, MPI_Aint tdisp, int tcount,
                        const Datatype& tdt, const lz::dt::Op& op, std::shared_ptr<bool> done = nullptr);
  // MPI_Get_accumulate (and MPI_Fetch_and_op: counts of 1). `origin` is
  // ignored for MPI_NO_OP.
  lz::Status get_accumulate(const void* origin, int ocount, const Datatype& odt, void* result, int rcount,
                            const Datatype& rdt, int target, MPI_Aint tdisp, int tcount, const Datatype& tdt,
                            const lz::dt::Op& op, std::shared_ptr<bool> done = nullptr);
  lz::Status compare_and_swap(const void* origin, const void* compare, void* result, const Datatype& dt, int target,
                              MPI_Aint tdisp);

  // ---- synchronization -----------------------------------------------------------------
  // What the binding checks before an operation: the epoch that lets this
  // rank access `target` now ("" when one does, else why not).
  std::string access_error(int target) const;
  // The common case of access_error() being empty, inline: a lock, lock_all
  // or fence epoch is open.
  bool may_access(int target) const { return fence_open_ || locked(target); }
  bool in_fence_epoch() const { return fence_open_; }
  bool in_lock_epoch() const;
  bool in_pscw_access() const { return !access_group_.empty() || pscw_started_; }
  bool in_pscw_exposure() const { return exposure_open_; }
  bool in_lock_all() const { return lock_all_; }
  // One engine progress turn (MPI_Win_test, MPI_Win_sync).
  void progress_once() { engine_.progress(); }
  bool locked(int target) const { return lock_all_ || targets_[static_cast<size_t>(target)].lock != kUnlocked; }

  // MPI_Win_fence: fence_counts() waits for this rank's own operations to
  // complete locally and returns how many operations it sent each rank in
  // the epoch; fence_finish() waits until this rank executed the `expected`
  // operations the others sent it, then opens the next epoch unless
  // `assert` has MPI_MODE_NOSUCCEED.
  std::vector<int> fence_counts();
  void fence_finish(int expected, int assert);
  // The fence over messages: sends each other rank how many operations it
  // sent it in the epoch (a kFenceCount each, all at once: one message
  // time, where a reduce-scatter's pairwise steps take n-1), then waits
  // for every rank's count and for that many operations executed, and
  // opens the next epoch unless `assert` has MPI_MODE_NOSUCCEED.
  void fence_exchange(const std::vector<int>& sent, int assert);
  // Only a synchronization (NOPRECEDE: no operation before; the binding's barrier).
  void fence_open(int assert) { fence_open_ = (assert& MPI_MODE_NOSUCCEED) == 0; }

  void post(const std::vector<int>& ranks, int assert);
  // Waits for every rank of `ranks` to have posted (not with MPI_MODE_NOCHECK).
  void start(const std::vector<int>& ranks, int assert);
  void complete();
  void wait();
  bool test();

  // MPI_Win_lock: waits for the grant only when `target` is this rank.
  void lock(int type, int target, int assert);
  void unlock(int target);
  void lock_all(int assert);
  void unlock_all();
  void flush(int target);
  void flush_all();
  void flush_local(int target);
  void flush_local_all();

  // Operations still open on this rank, for MPI_Win_free's check ("" if none).
  std::string busy() const;
  // MPI_Win_free, after its barrier: waits for this rank's last answers to
  // other ranks to leave.
  void finish();

  // ---- what the binding keeps for the program --------------------------------------------
  std::string name;
  void* allocated = nullptr;            // MPI_Win_allocate's memory, freed with the window
  MPI_Errhandler errhandler = nullptr;  // null: MPI_ERRORS_ARE_FATAL
  std::vector<std::pair<std::string, std::string>> info;
  std::vector<std::pair<int, void*>> attributes;
  MPI_Aint attr_size = 0;  // MPI_WIN_SIZE's value (the attribute points at it)
  int attr_disp_unit = 0, attr_flavor = 0, attr_model = MPI_WIN_UNIFIED;

  // ---- lz::rt::ProgressHook --------------------------------------------------------------------
  void advance() override;

  // Every window of this process (the CR service's and the progress thread's view).
  static const std::vector<lz_mpi_win_s*>& all();

 private:
  static constexpr uint32_t kMagic = 0x57494e44;  // "WIND"
  enum LockState : uint8_t { kUnlocked, kShared, kExclusive };

  // ---- load/store within a host ----------------------------------------------------------------
  struct Direct {
    char* base = nullptr;  // null: the target is reached by messages
    lz::osc::TargetWords* words = nullptr;
  };
  const Direct* direct(int t) const {
    const Direct& d = direct_[static_cast<size_t>(t)];
    return d.base != nullptr ? &d : nullptr;
  }
  void direct_put(const Direct& d, const void* origin, int ocount, const Datatype& odt, MPI_Aint disp, int tcount,
                  const Datatype& tdt);
  void direct_get(const Direct& d, void* origin, int ocount, const Datatype& odt, MPI_Aint disp, int tcount,
                  const Datatype& tdt);
  // Accumulate (result null) or get-accumulate under the target's acc lock.
  void direct_accumulate(const Direct& d, const void* origin, int ocount, const Datatype& odt, void* result, int rcount,
                         const Datatype* rdt, MPI_Aint disp, int tcount, const Datatype& tdt, const lz::dt::Op& op);
  void direct_cas(const Direct& d, const void* origin, const void* compare, void* result, const Datatype& dt,
                  MPI_Aint disp);
  // Takes target `t`'s lock through its words, serving this rank's agent meanwhile.
  void direct_lock(int t, bool exclusive);
  std::vector<Direct> direct_;
  std::unique_ptr<lz::osc::SharedSegment> own_segment_;
  std::vector<std::unique_ptr<lz::osc::SharedSegment>> peer_segments_;
  lz::osc::TargetWords* own_words_ = nullptr;
  size_t bulk_copy_threshold_ = 0;  // osc_bulk_copy_threshold, read once
  bool all_direct_ = false;
  lz::osc::FenceSlot* fence_slots_ = nullptr;  // null: MPI_Win_fence's barrier is PMPI_Barrier
  uint32_t barriers_ = 0;                      // fence barriers this rank entered
  bool barrier_waiting_ = false;               // in direct_barrier(), waiting for the others
  bool barrier_passed_ = false;                // set by drop_direct_peers() for a rank it found waiting
  // Every rank has entered barrier `n` (read through fence_slots_).
  bool all_entered(uint32_t n) const;

  // ---- origin side ---------------------------------------------------------------------------
  struct TargetState {
    uint8_t lock = kUnlocked;  // held (or asked for) by this origin
    bool nocheck = false;      // MPI_MODE_NOCHECK: no lock message
    bool lock_sent = false;    // the lock request went out (or, direct_lock, the lock is held)
    bool direct_lock = false;  // held through the target's words (it may since be reached by messages)
    bool dirty = false;        // operations sent since the last acknowledgement
    int fence_ops = 0;         // operations sent in this fence epoch
    int posts = 0;             // MPI_Win_post notices received from it
  };
  // An origin-side request still running: a data message from the
  // program's buffer, a header that did not go at once, a reply receive.
  struct LocalOp {
    Request* req = nullptr;
    int target = -1;
    std::unique_ptr<char[]> owned;  // a header's bytes
    std::shared_ptr<bool> done;     // set when req completes (MPI_R*)
    uint64_t ack = 0;               // an acknowledgement this request waits for
    bool control = false;           // a fence count or wake-up: not the program's operation
    bool native = false;            // a put or get through the transport (start_rma)
    bool key_reply = false;         // the answer to a kKeyReq, into `owned`
  };
  // The header of an operation to `target`, its blocks and (inline) data.
  struct Outgoing {
    lz::osc::wire::Op op{};
    std::vector<char> bytes;  // header + blocks + inline data
  };
  Outgoing begin_op(lz::osc::wire::Kind kind, int target, MPI_Aint tdisp, int tcount, const Datatype& tdt);
  // Sends the lock request first if the epoch asks for one, then `out`.
  lz::Status send_op(int target, Outgoing& out, std::shared_ptr<bool> done = nullptr);
  // `control`: a message of the window's own (fence count, wake-up), left
  // to complete on its own: MPI_Win_free waits for it, and it is not one of
  // the program's operations an epoch must have completed (busy()).
  lz::Status send_bytes(int target, const void* data, size_t len, int tag, std::shared_ptr<bool> done,
                        bool control = false);
  lz::Status send_data(int target, const void* buf, int count, const Datatype& dt, std::shared_ptr<bool> done);
  // Sends `out` with `count` of `dt` at `origin` as its data: inline when
  // small, else as the next kTagData message.
  lz::Status send_with_data(int target, Outgoing& out, const void* origin, int count, const Datatype& dt,
                            std::shared_ptr<bool> done);
  Request* post_reply(int target, void* buf, int count, const Datatype* dt, int tag, std::shared_ptr<bool> done);
  // ---- native puts and gets (window_native.cpp) ----
  // The put or get of contiguous `bytes` at `local` and displacement `tdisp`
  // of `target` through the transport (Engine::start_rma), when its key is
  // known and access is certain; false: not started (send a message).
  bool native_transfer(bool put, void* local, size_t bytes, int target, MPI_Aint tdisp, const Datatype& tdt,
                       std::shared_ptr<bool>& done);
  // The transport's key of `target`'s window memory and its base there.
  struct PeerKey {
    uint64_t generation = 0;  // Engine::rma_generation() it was made in (0: none)
    uint64_t asked = 0;       // the generation a kKeyReq went out in
    uint64_t base = 0;
    std::string key;
  };
  // Asks `target` for its key (kKeyReq); the answer is a control LocalOp.
  void ask_key(int target);
  // Takes the answer `l` received (reap_local).
  void take_key(const LocalOp& l);
  // The target's side: answers origin `o`'s kKeyReq.
  void answer_key(int o, const lz::osc::wire::Op& op);
  // Waits for this rank's native transfers (-1: to every target) to complete.
  void wait_native(int target);
  int next_reply_tag();
  // A request of this window's (p2p context, raw bytes when `dt` is null).
  Request* new_request(lz_mpi_request_s::Kind kind, const void* buf, int count, const Datatype* dt, int peer, int tag);
  // Sends a header-only `kind` message (kFlush, kUnlock) to `target` whose
  // acknowledgement wait_local() then waits for.
  void request_ack(int target, lz::osc::wire::Kind kind);
  // Ends the lock (or lock_all share) this origin has on `target`: sends
  // what it takes (an unlock, or a flush under MPI_MODE_NOCHECK) without
  // waiting.
  void end_lock(int target);
  void reap_local();
  bool local_done(int target) const;  // -1: every target
  void wait_local(int target);
  bool needs_lock(int target) const;
  lz::Status send_lock(int target, bool wait_grant);

  // ---- target side -----------------------------------------------------------------------------
  // A message of an origin being executed: its header, blocks and data.
  struct Incoming {
    Request* req = nullptr;  // the message's receive (done: the bytes are in msg)
    std::vector<char> msg;
    Request* data_req = nullptr;  // the separate data's receive, once posted
    std::vector<char> data;       // where it lands (unless straight into the window)
    bool data_direct = false;     // the data went straight into the window
  };
  // Takes the next operation messages of every origin into its queue.
  void take_incoming();
  // Runs origin `o`'s queue as far as it can; true if something ran.
  bool run_queue(int o);
  void take_fence_count(const lz::osc::wire::Op& op);
  // Executes `in` (its data complete); false when it must wait (a lock).
  bool execute(int o, Incoming& in);
  // Where the bytes [disp, disp+len) of this window are; aborts the job
  // naming the origin and the range when they are outside it.
  char* target_address(int o, const lz::osc::wire::Op& op, int64_t span_lo, int64_t span_hi);
  void gather(const lz::osc::wire::Op& op, const lz::osc::wire::Block* blocks, char* at, char* packed) const;
  void scatter(const lz::osc::wire::Op& op, const lz::osc::wire::Block* blocks, char* at, const char* packed) const;
  static void combine(const lz::osc::wire::Op& op, const char* in, char* inout, size_t bytes);
  void reply(int o, int tag, std::vector<char> bytes);
  void reply_from(int o, int tag, const void* at, size_t len);
  bool grant(int o, bool exclusive);
  void release_lock(int o);
  void reap_replies();

  uint32_t magic_ = kMagic;
  Comm* comm_;
  lz::rt::Engine& engine_;
  int flavor_;
  void* base_;
  MPI_Aint size_;
  int disp_unit_;
  std::vector<MPI_Aint> sizes_;
  std::vector<int> units_;
  std::unique_ptr<lz::osc::SharedSegment> segment_;
  std::vector<size_t> shared_offsets_;
  std::vector<std::pair<char*, size_t>> regions_;  // attached (dynamic)

  // native puts and gets
  // osc_native_rma (a flavor whose memory is one region; else kNativeOff).
  enum NativeMode : uint8_t { kNativeOff, kNativeAuto, kNativeOn };
  NativeMode native_rma_ = kNativeOff;
  std::vector<PeerKey> peer_keys_;  // per target

  // origin side
  std::vector<TargetState> targets_;
  std::vector<LocalOp> local_;
  int reply_tag_ = lz::osc::wire::kFirstReplyTag;
  bool fence_open_ = false;
  uint32_t fence_epoch_ = 0;
  bool fence_closing_ = false;  // in fence_exchange(): the others' operations of the epoch still run here
  bool lock_all_ = false;
  std::vector<int> access_group_;
  bool pscw_started_ = false;

  // target side
  std::vector<std::deque<Incoming>> incoming_;  // per origin, in order
  std::vector<int> lock_held_;                  // per origin: kUnlocked / kShared / kExclusive granted
  int shared_holders_ = 0;
  bool exclusive_held_ = false;
  int fence_done_[2] = {0, 0};  // fence operations executed, by epoch parity
  int fence_told_[2] = {0, 0};  // kFenceCount messages received, by epoch parity
  int fence_owed_[2] = {0, 0};  // the operations they announced
  std::vector<int> completes_;  // kComplete received per origin
  std::vector<int> exposure_group_;
  bool exposure_open_ = false;
  struct Reply {
    Request* req;
    std::vector<char> bytes;
    int origin;
  };
  // An answer to origin `o` still reads this window's memory (a large get
  // sent from it): its unlock or MPI_Win_complete waits for it.
  bool replying_to(int o) const;
  std::deque<Reply> replies_;
  bool running_ = false;  // advance() is running (not re-entered)
};

namespace lz::rt {
using Window = ::lz_mpi_win_s;
}  // namespace lz::rt
