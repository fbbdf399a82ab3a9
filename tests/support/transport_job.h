// The fork-based multi-process job of the transport tests (the conformance
// suite and the components' own tests): runs one scenario as a small job of
// forked processes, each holding one transport module, and turns what the
// processes report into a JobResult the gtest side asserts on.
//
// The parent (the gtest process) plays the launcher: it forks `nprocs`
// children, serves their modex (put / fence / get) over one SOCK_SEQPACKET
// socketpair per child, forwards small harness messages between them (post),
// collects their reports from one pipe per child, and kills everything that is
// still running when the job's timeout expires, so a scenario can fail but
// never hang the suite. No wall-clock threshold is ever asserted: the timeout
// only bounds a hang.
//
// Each child builds its own lz::Registry with `--mca transport <name>`, selects
// the transport, init()s it with a test Host (same node_id for every rank: one
// host), fences, connect()s, runs the scenario, syncs with the other ranks
// while progressing (so nobody finalizes while a peer still needs it), calls
// finalize() and reports completion.
//
//   JobResult r = run_job({.transport = "tcp", .nprocs = 2}, [](Child& c) {
//     CT_ASSERT(c, c.module().reaches(c.peer())) << "peer " << c.peer();
//     ...
//   });
//   // r.ranks[i].failures, r.skip_reason(), r.timed_out ...
//
// Restart in a new process set without a checkpointer: a rank may replace
// itself by a forked copy (Child::replace_process(): the copy's memory is the
// rank's image at that point, the original exits). The copy inherits the
// channel and the report pipe, so the parent keeps serving it as the same
// rank; the parent is a child subreaper, so it reaps the copy too.
//
// Component tests use the same job with their own parameters (JobSpec::mca),
// emulated hosts (JobSpec::node_of_rank), gtest assertions inside the
// scenario (a child whose test recorded a gtest failure or skip reports it as
// such) and a delivery callback instead of the inbox:
//
//   JobSpec spec{.transport = "shm", .nprocs = 2, .mca = {{"transport_shm_ring_size", "16k"}}};
//   run_job(spec, [](Child& c) {
//     c.deliver_to([&](int src, const void* p, size_t n) { ... });
//     ASSERT_TRUE(c.send_blocking(c.peer(), data, len).ok());
//     c.wait_until([&] { return done; });
//   });
//
// Threading: none. Children are single-threaded; the parent runs one job at a
// time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/modex.h"
#include "lazarus/status.h"

namespace lz::test {

// One frame as delivered to the test Host.
struct Frame {
  int src = -1;
  std::string data;
};

class Child;
using Scenario = std::function<void(Child&)>;

// Overall bound of one job; LZ_CONFORMANCE_TIMEOUT (seconds) overrides it.
std::chrono::seconds default_job_timeout();

struct JobSpec {
  std::string transport;
  int nprocs = 2;
  std::chrono::seconds timeout = default_job_timeout();
  // Optional: runs in every child between the modex fence and connect()
  // (attackers connect here, before the real ranks do).
  std::function<void(Child&)> after_fence;
  // Parameter settings besides transport=<name> (say transport_tcp_max_frame).
  std::vector<std::pair<std::string, std::string>> mca;
  // Emulated hosts: node id per rank (ranks with equal ids share a host);
  // empty: every rank on one host.
  std::vector<uint64_t> node_of_rank;
  // Host::placement_head() of every child's host (FakeHost): 0, frames are
  // never placed.
  size_t placement_head = 0;
};

// What one child reported and how it ended.
struct RankOutcome {
  int rank = -1;
  pid_t pid = -1;
  int wait_status = -1;           // from waitpid; -1 if never reaped
  bool finished = false;          // reported completion after finalize()
  bool intentional_exit = false;  // announced it would end abruptly (fault scenarios)
  std::vector<std::string> failures;
  std::vector<std::string> notes;
  std::string skip;        // non-empty: the scenario does not apply, with why
  std::string last_phase;  // what it was doing last (shown on timeouts)
};

struct JobResult {
  std::string setup_error;  // the harness itself failed (fork, socketpair...)
  bool timed_out = false;
  std::vector<RankOutcome> ranks;

  // Every problem, one line each, "rank r: ..." (empty when the job passed).
  std::vector<std::string> problems() const;
  // The skip reason when every rank skipped and nothing failed.
  std::optional<std::string> skip_reason() const;
  std::vector<std::string> notes() const;
};

// Runs `scenario` in spec.nprocs forked children; see the banner.
JobResult run_job(const JobSpec& spec, const Scenario& scenario);

// In a child: ends a Child::capture_stderr() still in force (restoring the
// real stderr, copying what was captured to it), so a check that is about to
// end the process prints where it can be seen. Nothing when none is.
void release_captured_stderr();

// ---------------------------------------------------------------------------
// Child side.

// Streamed failure message: `CT_ASSERT(c, x == 1) << "x is " << x;`
class Msg {
 public:
  template <typename T>
  Msg& operator<<(const T& v) {
    os_ << v;
    return *this;
  }
  std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
};

class Failer {
 public:
  Failer(Child& c, const char* file, int line, const char* cond) : c_(c), file_(file), line_(line), cond_(cond) {}
  // Records the failure; returns void so that `return failer = Msg()` works in
  // a void function.
  void operator=(const Msg& m) const;

 private:
  Child& c_;
  const char* file_;
  int line_;
  const char* cond_;
};

// Fails and returns from the (void) function when `cond` is false.
// (The switch makes the macro safe inside an unbraced if/else, as in gtest.)
#define CT_ASSERT(c, cond) \
  switch (0)               \
  case 0:                  \
  default:                 \
    if (cond) {            \
    } else                 \
      return (c).failer(__FILE__, __LINE__, #cond) = ::lz::test::Msg()
// Fails and continues.
#define CT_EXPECT(c, cond) \
  switch (0)               \
  case 0:                  \
  default:                 \
    if (cond) {            \
    } else                 \
      (c).failer(__FILE__, __LINE__, #cond) = ::lz::test::Msg()

class FakeHost;
class TestModex;

struct PeerFailure {
  int rank = -1;
  Status why;
  bool inside_progress = false;
};

class Child {
 public:
  Child(const JobSpec& spec, int rank, int channel_fd, int report_fd, std::string secret,
        std::chrono::steady_clock::time_point deadline);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The rank this one exchanges with: the other rank of a two-rank job, or
  // itself in a one-rank job (a kCapSelf transport).
  int peer() const { return size_ == 1 ? rank_ : (rank_ + 1) % size_; }
  const std::string& transport_name() const { return transport_; }
  transport::Module& module() { return *module_; }
  uint64_t caps() const { return module_->capabilities(); }
  const std::string& job_secret() const { return secret_; }

  // module().progress() with the contract checked: never negative, and at
  // least as many events as frames it delivered. `wait_polls` > 0: a
  // blocking wait's turn, module().progress_waiting(wait_polls), same checks.
  int progress(int wait_polls = 0);
  // Frames delivered so far and not yet taken by the scenario.
  std::deque<Frame>& inbox() { return inbox_; }
  // From now on frames go to `fn` (still only from inside progress()), not
  // to the inbox.
  using DeliverFn = std::function<void(int src, const void* data, size_t len)>;
  void deliver_to(DeliverFn fn) { deliver_fn_ = std::move(fn); }
  // Sends; while the transport answers kWouldBlock, progresses and, when
  // arm_wait() allows, sleeps in poll() on wait_fd() without a timeout (a
  // lost wake-up hangs until the job's timeout), or for 1 ms when wait_fd()
  // is -1 (no wait fd: the engine's bounded poll). Returns the final status.
  Status send_blocking(int peer, const struct iovec* iov, int iovcnt);
  Status send_blocking(int peer, const void* data, size_t len);
  // Progresses until pred() holds, sleeping the same way; returns the number
  // of sleeps.
  int wait_until(const std::function<bool()>& pred);
  // Sends this process's stderr (the transport's log) to a file from now on;
  // release_stderr() restores it, copies what was captured to it and returns
  // that text.
  void capture_stderr();
  std::string release_stderr();
  // Whether `rank` is on this rank's (emulated) host.
  bool same_host(int rank) const;
  const std::vector<PeerFailure>& peer_failures() const { return peer_failures_; }

  Modex& modex();
  // Every entry `rank` published before the last fence/sync.
  std::map<std::string, std::string> entries_of(int rank) const;

  // Harness collective over all live ranks (a fence), progressing the module
  // while it waits so a peer's queued frames still move (unless
  // `progress_module` is false: between on_checkpoint() and on_continue()).
  // False (and a failure recorded) when it cannot complete.
  bool sync(bool progress_module = true);
  // A small message to another rank through the parent; arrives in order.
  bool post(int dst, std::string_view msg);
  // The next message posted to this rank, if one arrived (never blocks).
  std::optional<std::string> take_post();
  // Waits for the next posted message, progressing the module meanwhile when
  // `progress_module`. nullopt (failure recorded) at the deadline.
  std::optional<std::string> wait_post(bool progress_module = true);

  // The child's own deadline, earlier than the parent's kill, so a scenario
  // that waits for something that never comes can say what it waited for.
  bool expired() const { return std::chrono::steady_clock::now() >= deadline_; }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

  void fail(const std::string& message);
  void note(const std::string& message);
  // Frames delivered through Host::place (JobSpec::placement_head).
  size_t placed_frames() const;
  void skip(const std::string& reason);
  // What the child is doing now; the parent shows the last phase on timeout.
  void phase(const std::string& what);
  bool failed() const { return failed_; }
  bool skipped() const { return skipped_; }
  // Host::peer_failed() is part of this scenario (fault injection); without
  // this call any peer_failed() fails the scenario.
  void expect_peer_failure() { peer_failures_expected_ = true; }
  Failer failer(const char* file, int line, const char* cond) { return Failer(*this, file, line, cond); }

  // Ends this process now without finalize(), as a crashing peer would, after
  // telling the parent it is on purpose: _exit(0), or SIGKILL when `kill`.
  [[noreturn]] void exit_abruptly(bool kill);

  // Continues this rank in a forked copy of this process and ends the
  // original (_exit, no destructor runs): returns in the copy only, once the
  // original is gone, with the original's pid; -1 (failure recorded) if the
  // fork failed, in which case the original goes on.
  pid_t replace_process();

  // Runs the whole child life cycle (setup, scenario, sync, finalize) and
  // returns the process exit code. Called by run_job() in the forked child.
  int main(const Scenario& scenario);

  // Internal, for the FakeHost and TestModex callbacks.
  void on_deliver(int src, const void* data, size_t len);
  void on_peer_failed(int rank, const Status& why);
  Status channel_fence(std::map<int, std::map<std::string, std::string>>* entries);
  Status channel_put(std::string_view key, std::string_view value);

 private:
  enum class Pump { kNoWait, kWait };
  // Reads what the parent sent; with kWait, waits until something arrives or
  // the deadline passes. False on EOF, error or deadline.
  bool pump_channel(Pump how);
  bool send_channel(const std::string& msg);
  void report(char type, const std::string& text);

  std::string transport_;
  std::function<void(Child&)> after_fence_;
  std::vector<std::pair<std::string, std::string>> mca_;
  std::vector<uint64_t> node_of_rank_;
  DeliverFn deliver_fn_;
  int saved_stderr_ = -1;
  std::string stderr_file_;
  int rank_;
  int size_;
  int channel_fd_;
  int report_fd_;
  std::string secret_;
  std::chrono::steady_clock::time_point deadline_;
  std::unique_ptr<TestModex> modex_;
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<lz::Module> owned_module_;
  transport::Module* module_ = nullptr;

  std::deque<Frame> inbox_;
  std::vector<PeerFailure> peer_failures_;
  bool in_progress_ = false;
  size_t delivered_in_call_ = 0;

  std::deque<std::string> posts_;
  bool fence_done_ = false;
  std::string fence_error_;
  std::map<int, std::map<std::string, std::string>> fenced_entries_;

  bool failed_ = false;
  bool skipped_ = false;
  bool peer_failures_expected_ = false;
  int failures_reported_ = 0;
};

}  // namespace lz::test
