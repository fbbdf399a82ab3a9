// crcp/c3: the protocol of C3 (Bronevetsky et al., "Automated
// application-level checkpointing of MPI programs") for cr=app, where every
// rank saves its registered state at the same LZ_Checkpoint call, its line,
// without waiting for the others.
//
// Epochs. A rank's epoch is the number of lines it has crossed; every rank
// crosses every line (lines are call counts: every N calls, or one past the
// largest count reported in a forward negotiation), so epoch e means the
// same line everywhere. The engine stamps each message with the sender's
// epoch and its index among the sender's messages of that epoch to that
// receiver (crcp.h: stamp), in the envelope's otherwise unused field: no
// extra message, no extra byte.
//
// Classification, at the receiver R in epoch E when a receive matches a
// message m of epoch e:
//   e == E  intra-epoch: nothing to do.
//   e <  E  late: sent before the sender's line, received after R's. R's
//           saved state does not hold it and the sender will not send it
//           again after a restart, so R logs it (payload, source, tag,
//           context, stamp) with its line and delivers it again after a
//           restart, before anything new, exactly once.
//   e >  E  early: sent after the sender's line, received before R's. R's
//           saved state holds its effect and the sender will send it again
//           after a restart, so R records (sender, stamp) in its was-early
//           registry, saved with its next line; a restarted sender drops a
//           message whose (receiver, stamp) is there, exactly once.
// A late message is replayed into R's unexpected queue in the order R
// matched it, so receives from one source match in the same order (MPI's
// non-overtaking rule holds because every late message from S precedes
// S's messages of the new epoch). The only other nondeterminism is which
// source an MPI_ANY_SOURCE receive matches: during the window from R's
// line until its log is complete, R records, per wildcard receive (counted
// from the line), the source it matched; after a restart the n-th wildcard
// receive is restricted to that source, so it matches the same message.
//
// When is R's part complete? Each rank sends the launcher, at its line, how
// many messages it has sent to every peer so far (cumulative). Once all
// lines are in, the launcher tells R what each S had sent it at S's line:
// late(S) = that count - the messages of epochs < E that R had matched from
// S before its line. R's part is complete when it has logged late(S) from
// every S and every wildcard receive of the window has matched; only then
// it saves the log and reports its part done, and the launcher commits the
// snapshot when every rank's part is done. A line reached before the
// previous one completed supersedes it (its snapshot is never committed;
// the counting is cumulative, so the new line's late messages include the
// old one's).
//
// Why a restart is consistent: after restoring line E every rank's state
// is what it had at its line; messages of epochs < E that it had not
// received come from its log (late); messages of epochs >= E it had
// received are not sent again (early); every other message is sent again
// by the re-execution of its sender (piecewise determinism, which C3
// assumes too), with the same stamp, because the send counters restart
// from the saved line. So every message is delivered exactly once.
//
// Peers of other jobs (a spawn tree): a spawned job starts in the epoch of
// the rank that spawned it (start_epoch), so epoch e is line e in every job
// of the tree. Their messages are stamped, logged and replayed like the
// world's; what such a peer sent before its line comes from the peer itself
// (expect_peer), and an early message from one makes the line unusable (the
// sender's suppression would need the other job's registry): the app
// service drops such a line.
//
// Rules the app service enforces at a safe point: no receive may be pending
// (its buffer is not in the saved state); a pending send is allowed (its
// message is late at the receiver, which logs it). A restart on another
// rank count is possible only from a line with nothing logged or recorded.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/frameworks/crcp.h"

namespace lz::crcp::c3 {

// What a line saves (c3_line_file.h writes and reads it).
struct LineState {
  uint32_t epoch = 0;
  std::vector<uint64_t> sent;                       // per world rank, cumulative, at the line
  std::vector<std::array<uint64_t, 3>> matched;     // (source, epoch, count) at the line
  std::vector<std::pair<uint64_t, uint64_t>> early; // (source, stamp): was-early registry
  std::vector<std::pair<uint64_t, uint64_t>> wild;  // (wildcard number, source in its communicator)
  std::vector<Replayed> late;                       // in matching order
};

class C3Module final : public Module, public MessageLog, public LineProtocol {
 public:
  uint64_t capabilities() const override { return kCapMessageLog; }
  Status quiesce(Coordinator& c) override;
  Status resume(Coordinator& c, bool restarted) override;
  MessageLog* message_log() override { return this; }
  LineProtocol* line_protocol() override { return this; }
  Status attach(int rank, int size) override;

  // MessageLog
  bool stamp_send(int dst, uint64_t* stamp) override;
  bool on_match(const Matched& m) override;
  void log_payload(const Matched& m, const void* data, size_t bytes) override;
  uint64_t wildcard_posted(uint32_t context, int* forced) override;
  void wildcard_matched(uint64_t number, int src) override;
  std::vector<Replayed> take_replay() override;

  // LineProtocol
  std::vector<uint64_t> begin_line() override;
  void expect(const std::vector<uint64_t>& sent_to_me) override;
  bool line_complete() const override { return line_.open && line_.done; }
  void set_on_complete(std::function<void()> f) override { on_complete_ = std::move(f); }
  StatusOr<uint64_t> save_line(const LineFile& where) override;
  Status load_line(const std::string& snapshot_dir, int rank, int nranks, int old_nranks) override;
  StatusOr<std::string> export_counters() const override;  // c3_counters.cpp
  Status import_counters(const std::string& blob) override;
  uint32_t epoch() const override { return epoch_; }
  void start_epoch(uint32_t epoch) override { epoch_ = epoch; }
  void await_peers(const std::vector<int>& peers) override;
  void expect_peer(int peer, uint64_t sent_to_me) override;
  size_t early_count(int first_peer) const override;

 private:
  struct Line {
    bool open = false, expected = false, done = false;
    LineState state;
    std::vector<uint64_t> matched_before;  // per source: messages of older epochs matched before the line
    std::vector<uint64_t> late_expected, late_logged;
    uint64_t wild_open = 0;  // wildcard receives of the window not matched yet
    std::set<int> awaited;   // peers of other jobs whose count has not come yet
  };
  void check_complete();
  // Room for peer `p` (the world's at attach; a bridge's when it first shows).
  void grow(size_t peers);

  int rank_ = 0, size_ = 1;
  uint32_t epoch_ = 0;
  std::vector<uint64_t> sent_total_;
  std::vector<uint32_t> next_index_;
  std::vector<std::vector<uint64_t>> matched_;        // per source, per epoch: messages matched (hot: a vector)
  std::vector<std::pair<uint64_t, uint64_t>> early_;   // (source, stamp) with epoch > epoch_
  uint64_t wild_posts_ = 0;                            // wildcard receives posted since the line
  Line line_;
  std::function<void()> on_complete_;
  // After a restart.
  std::vector<Replayed> replay_;
  std::map<uint64_t, int> forced_;
  std::set<std::pair<int, uint64_t>> suppress_;  // (receiver, stamp)
};

}  // namespace lz::crcp::c3
