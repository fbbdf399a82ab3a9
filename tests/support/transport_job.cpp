#include "transport_job.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <utility>

#include "fake_host.h"
#include "lazarus/auth.h"
#include "lazarus/registry.h"
#include "test_modex.h"

namespace lz::test {

namespace {

using Clock = std::chrono::steady_clock;

// Channel messages (one SOCK_SEQPACKET record each).
//   child -> parent: 'P' u32 klen, key, value   modex put
//                    'F'                        fence / sync
//                    'M' u32 dst, payload       post
//   parent -> child: 'A' entries                fence complete (all ranks' entries)
//                    'E' text                   fence failed (a rank is gone)
//                    'M' u32 src, payload       posted message
// Report records on the pipe: type, u32 length, text. Types: 'F' failure,
// 'N' note, 'S' skip, 'H' phase, 'D' done (after finalize), 'X' about to end
// abruptly on purpose, 'R' replaced by the process whose pid follows (the
// original then exits; the parent waits for the replacement instead).
constexpr size_t kMaxChannelMessage = 64 * 1024;
constexpr int kMaxFailuresReported = 40;

void put_u32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
bool get_u32(std::string_view& s, uint32_t* v) {
  if (s.size() < 4) return false;
  std::memcpy(v, s.data(), 4);
  s.remove_prefix(4);
  return true;
}
bool get_bytes(std::string_view& s, std::string* out) {
  uint32_t n;
  if (!get_u32(s, &n) || s.size() < n) return false;
  out->assign(s.data(), n);
  s.remove_prefix(n);
  return true;
}

using Entries = std::map<int, std::map<std::string, std::string>>;

std::string encode_entries(const Entries& e) {
  std::string out = "A";
  for (const auto& [rank, kv] : e)
    for (const auto& [k, v] : kv) {
      put_u32(out, static_cast<uint32_t>(rank));
      put_u32(out, static_cast<uint32_t>(k.size()));
      out += k;
      put_u32(out, static_cast<uint32_t>(v.size()));
      out += v;
    }
  return out;
}

bool decode_entries(std::string_view s, Entries* out) {
  Entries e;
  while (!s.empty()) {
    uint32_t rank;
    std::string k, v;
    if (!get_u32(s, &rank) || !get_bytes(s, &k) || !get_bytes(s, &v)) return false;
    e[static_cast<int>(rank)][k] = v;
  }
  *out = std::move(e);
  return true;
}

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string describe_wait_status(int st) {
  if (st == -1) return "was never reaped";
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    const char* name = sigabbrev_np(WTERMSIG(st));
    return "was killed by signal " + std::to_string(WTERMSIG(st)) + (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(st);
}

}  // namespace

std::chrono::seconds default_job_timeout() {
  if (const char* e = std::getenv("LZ_CONFORMANCE_TIMEOUT")) {
    long v = std::strtol(e, nullptr, 10);
    if (v > 0) return std::chrono::seconds(v);
  }
  return std::chrono::seconds(120);
}

// ---------------------------------------------------------------------------
// JobResult

std::vector<std::string> JobResult::problems() const {
  std::vector<std::string> out;
  if (!setup_error.empty()) out.push_back("harness: " + setup_error);
  for (const auto& r : ranks) {
    const std::string who = "rank " + std::to_string(r.rank) + ": ";
    for (const auto& f : r.failures) out.push_back(who + f);
    if (timed_out && !r.finished && !r.intentional_exit)
      out.push_back(who + "still running when the job timeout expired (killed); last phase: " +
                    (r.last_phase.empty() ? "setup" : r.last_phase));
    else if (!r.intentional_exit && !(r.finished && WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0))
      out.push_back(who + "process " + describe_wait_status(r.wait_status) +
                    (r.finished ? " after reporting completion" : " without reporting completion") +
                    "; last phase: " + (r.last_phase.empty() ? "setup" : r.last_phase));
  }
  return out;
}

std::optional<std::string> JobResult::skip_reason() const {
  if (!problems().empty()) return std::nullopt;
  // A skip only when no rank ran the scenario; if some did, it passed (the
  // others' reasons are in their notes).
  for (const auto& r : ranks)
    if (r.skip.empty()) return std::nullopt;
  if (ranks.empty()) return std::nullopt;
  return ranks.front().skip;
}

std::vector<std::string> JobResult::notes() const {
  std::vector<std::string> out;
  for (const auto& r : ranks)
    for (const auto& n : r.notes) out.push_back("rank " + std::to_string(r.rank) + ": " + n);
  for (const auto& r : ranks)
    if (!r.skip.empty() && !skip_reason()) out.push_back("rank " + std::to_string(r.rank) + ": skipped: " + r.skip);
  return out;
}

// ---------------------------------------------------------------------------
// Child

void Failer::operator=(const Msg& m) const {
  std::string text = std::string(file_);
  if (auto slash = text.rfind('/'); slash != std::string::npos) text.erase(0, slash + 1);
  text += ":" + std::to_string(line_) + ": " + cond_;
  const std::string extra = m.str();
  if (!extra.empty()) text += ": " + extra;
  c_.fail(text);
}

Child::Child(const JobSpec& spec, int rank, int channel_fd, int report_fd, std::string secret,
             Clock::time_point deadline)
    : transport_(spec.transport),
      after_fence_(spec.after_fence),
      mca_(spec.mca),
      node_of_rank_(spec.node_of_rank),
      rank_(rank),
      size_(spec.nprocs),
      channel_fd_(channel_fd),
      report_fd_(report_fd),
      secret_(std::move(secret)),
      deadline_(deadline) {
  modex_ = std::make_unique<TestModex>(
      rank_, [this](std::string_view k, std::string_view v) { return channel_put(k, v); },
      [this](TestModex::Entries* all) { return channel_fence(all); });
  host_ = std::make_unique<FakeHost>(rank_, size_, *modex_, secret_, node_of_rank_);
  host_->on_deliver = [this](int src, const void* data, size_t len) { on_deliver(src, data, len); };
  host_->on_failed = [this](int rank, const Status& why) { on_peer_failed(rank, why); };
  host_->on_misuse = [this](const std::string& what) { fail(what); };
  host_->placement_head_bytes = spec.placement_head;
}

Child::~Child() = default;

Modex& Child::modex() { return *modex_; }

std::map<std::string, std::string> Child::entries_of(int rank) const {
  auto it = modex_->entries().find(rank);
  return it == modex_->entries().end() ? std::map<std::string, std::string>{} : it->second;
}

void Child::report(char type, const std::string& text) {
  std::string rec(1, type);
  put_u32(rec, static_cast<uint32_t>(text.size()));
  rec += text;
  (void)write_all(report_fd_, rec.data(), rec.size());
}

void Child::fail(const std::string& message) {
  failed_ = true;
  if (++failures_reported_ <= kMaxFailuresReported)
    report('F', message);
  else if (failures_reported_ == kMaxFailuresReported + 1)
    report('F', "(further failures not reported)");
}
void Child::note(const std::string& message) { report('N', message); }

size_t Child::placed_frames() const { return host_->placed; }
void Child::skip(const std::string& reason) {
  skipped_ = true;
  report('S', reason);
}
void Child::phase(const std::string& what) { report('H', what); }

void Child::exit_abruptly(bool kill) {
  report('X', kill ? "SIGKILL" : "_exit");
  if (kill) ::raise(SIGKILL);
  ::_exit(0);
}

pid_t Child::replace_process() {
  std::fflush(nullptr);
  const pid_t original = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    fail(std::string("replace_process: fork: ") + std::strerror(errno));
    return -1;
  }
  if (pid > 0) {
    report('R', std::to_string(pid));
    ::_exit(0);  // the image lives on in the copy; nothing to clean up here
  }
  // The copy: wait until the original is gone (we are then the parent's,
  // through the subreaper), so the two never run side by side.
  while (::getppid() == original && !expired()) {
    struct timespec ts{0, 1000 * 1000};
    ::nanosleep(&ts, nullptr);
  }
  if (::getppid() == original) fail("replace_process: the original process did not exit");
  return original;
}

void Child::on_deliver(int src, const void* data, size_t len) {
  if (!in_progress_) fail("Host::deliver() called outside progress() (src " + std::to_string(src) + ")");
  if (src < 0 || src >= size_) {
    fail("Host::deliver() with src " + std::to_string(src) + " outside [0, " + std::to_string(size_) + ")");
    return;
  }
  ++delivered_in_call_;
  if (deliver_fn_) {
    deliver_fn_(src, data, len);
    return;
  }
  inbox_.push_back(Frame{src, std::string(static_cast<const char*>(data), len)});
}

void Child::on_peer_failed(int rank, const Status& why) {
  peer_failures_.push_back(PeerFailure{rank, why, in_progress_});
}

int Child::progress(int wait_polls) {
  in_progress_ = true;
  delivered_in_call_ = 0;
  const int n = wait_polls > 0 ? module_->progress_waiting(wait_polls) : module_->progress();
  in_progress_ = false;
  const char* call = wait_polls > 0 ? "progress_waiting()" : "progress()";
  if (n < 0) fail(std::string(call) + " returned " + std::to_string(n) + " (must be a count, never negative)");
  if (n >= 0 && static_cast<size_t>(n) < delivered_in_call_)
    fail(std::string(call) + " returned " + std::to_string(n) + " but delivered " + std::to_string(delivered_in_call_) +
         " frames in that call (it must count every frame in or out)");
  return n;
}

bool Child::send_channel(const std::string& msg) {
  for (;;) {
    ssize_t w = ::send(channel_fd_, msg.data(), msg.size(), MSG_NOSIGNAL);
    if (w == static_cast<ssize_t>(msg.size())) return true;
    if (w < 0 && errno == EINTR) continue;
    fail(std::string("harness channel send failed: ") + (w < 0 ? std::strerror(errno) : "short write"));
    return false;
  }
}

bool Child::pump_channel(Pump how) {
  bool waited = false;
  for (;;) {
    int timeout_ms = 0;
    if (how == Pump::kWait && !waited) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) return false;
      timeout_ms = static_cast<int>(std::min<long long>(left, 1000));
    }
    pollfd p{channel_fd_, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) {
      if (how == Pump::kWait && !waited) continue;  // keep waiting (bounded by the deadline above)
      return true;
    }
    std::string buf(kMaxChannelMessage, '\0');
    ssize_t n = ::recv(channel_fd_, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    waited = true;
    buf.resize(static_cast<size_t>(n));
    std::string_view s(buf);
    const char type = s[0];
    s.remove_prefix(1);
    if (type == 'A') {
      Entries e;
      if (!decode_entries(s, &e)) {
        fence_error_ = "malformed fence reply from the harness parent";
      } else {
        fenced_entries_ = std::move(e);
      }
      fence_done_ = true;
    } else if (type == 'E') {
      fence_error_ = std::string(s);
      fence_done_ = true;
    } else if (type == 'M') {
      uint32_t src;
      if (get_u32(s, &src)) posts_.emplace_back(s);
    }
  }
}

Status Child::channel_put(std::string_view key, std::string_view value) {
  std::string m = "P";
  put_u32(m, static_cast<uint32_t>(key.size()));
  m.append(key);
  m.append(value);
  if (m.size() > kMaxChannelMessage) return InvalidArgument("test modex: entry larger than 64 KiB");
  if (!send_channel(m)) return IoError("test modex: channel to the harness parent is broken");
  return Status::Ok();
}

Status Child::channel_fence(Entries* entries) {
  fence_done_ = false;
  fence_error_.clear();
  if (!send_channel("F")) return IoError("test modex: channel to the harness parent is broken");
  while (!fence_done_) {
    if (!pump_channel(Pump::kWait)) return Timeout("test modex: fence did not complete before the deadline");
  }
  if (!fence_error_.empty()) return Status(Code::kAborted, "test modex: " + fence_error_);
  *entries = fenced_entries_;
  return Status::Ok();
}

bool Child::sync(bool progress_module) {
  fence_done_ = false;
  fence_error_.clear();
  if (!send_channel("F")) return false;
  while (!fence_done_) {
    if (module_ && progress_module) progress();
    if (!pump_channel(progress_module ? Pump::kNoWait : Pump::kWait)) {
      fail(expired() ? "sync: the other ranks did not reach the sync point before the deadline"
                     : "sync: channel to the harness parent closed");
      return false;
    }
    if (expired()) {
      fail("sync: the other ranks did not reach the sync point before the deadline");
      return false;
    }
  }
  if (!fence_error_.empty()) {
    fail("sync: " + fence_error_);
    return false;
  }
  modex_->set_entries(fenced_entries_);
  return true;
}

bool Child::post(int dst, std::string_view msg) {
  std::string m = "M";
  put_u32(m, static_cast<uint32_t>(dst));
  m.append(msg);
  return send_channel(m);
}

std::optional<std::string> Child::take_post() {
  if (posts_.empty()) (void)pump_channel(Pump::kNoWait);
  if (posts_.empty()) return std::nullopt;
  std::string m = std::move(posts_.front());
  posts_.pop_front();
  return m;
}

std::optional<std::string> Child::wait_post(bool progress_module) {
  for (;;) {
    if (auto m = take_post()) return m;
    if (expired()) {
      fail("waited for a message from another rank until the deadline");
      return std::nullopt;
    }
    if (progress_module && module_) {
      progress();
    } else {
      (void)pump_channel(Pump::kWait);
    }
  }
}

int Child::main(const Scenario& scenario) {
  phase("configure");
  Registry reg;
  ConfigOptions o;
  o.mca = {{"transport", transport_}};
  for (const auto& m : mca_) o.mca.push_back(m);
  o.read_user_file = false;
  if (Status s = reg.configure(o); !s.ok()) {
    fail("Registry::configure: " + s.to_string());
    return 1;
  }
  Framework* fw = reg.framework("transport");
  if (fw == nullptr) {
    fail("the registry has no transport framework");
    return 1;
  }
  QueryContext ctx = reg.query_context();
  ctx.rank = rank_;
  ctx.size = size_;
  auto picked = fw->select(ctx);
  if (!picked.ok()) {
    fail("select(transport=" + transport_ + "): " + picked.status().to_string());
    return 1;
  }
  if (picked->size() != 1 || std::string(picked->front().entry->desc->name) != transport_) {
    fail("select(transport=" + transport_ + ") returned " + std::to_string(picked->size()) +
         " modules, expected exactly the requested one");
    return 1;
  }
  owned_module_ = std::move(picked->front().module);
  module_ = dynamic_cast<transport::Module*>(owned_module_.get());
  if (module_ == nullptr) {
    fail("the component's module is not a lz::transport::Module");
    return 1;
  }

  const uint64_t caps_at_selection = module_->capabilities();
  phase("init");
  if (Status s = module_->init(*host_); !s.ok()) {
    fail("init(): " + s.to_string());
    return 1;
  }
  phase("modex fence");
  if (Status s = modex_->fence(); !s.ok()) {
    fail("modex fence after init(): " + s.to_string());
    return 1;
  }
  // Selection and `lazarus info` see the capabilities before init(); the
  // scenarios use the ones after connect(). Worth knowing when they differ.
  if (rank_ == 0 && module_->capabilities() != caps_at_selection)
    note("capabilities at selection: " + transport::capability_names(caps_at_selection) + "; after connect(): " +
         transport::capability_names(module_->capabilities()));
  if (after_fence_) {
    phase("after fence");
    after_fence_(*this);
  }
  phase("connect");
  if (Status s = module_->connect(); !s.ok()) {
    fail("connect(): " + s.to_string());
    return 1;
  }
  for (int r = 0; r < size_; ++r) {
    if (size_ > 1 && r == rank_) continue;  // reaching oneself is the self transport's job
    if (!same_host(r)) continue;            // another (emulated) host: up to the transport
    if (!module_->reaches(r))
      fail("reaches(" + std::to_string(r) + ") is false after connect() for a rank on the same host");
  }

  if (!failed_) {
    phase("scenario");
    // The fork copied the test's gtest state: only what the scenario adds is
    // this rank's (an earlier job of the same test may have failed already).
    const bool had_failure = ::testing::Test::HasFailure(), was_skipped = ::testing::Test::IsSkipped();
    scenario(*this);
    // gtest assertions in the scenario (component tests) count too; their
    // messages are already on this process's output.
    if (!had_failure && ::testing::Test::HasFailure())
      fail("a gtest assertion failed in rank " + std::to_string(rank_) + " (above)");
    if (!was_skipped && ::testing::Test::IsSkipped())
      skip("the scenario called GTEST_SKIP in rank " + std::to_string(rank_));
  }

  phase("final sync");
  // Even after a failure: a peer that still waits for frames needs this
  // rank's progress, and the parent reports both failures either way.
  (void)sync();
  // (After a failure, what is left over is only a consequence of it.)
  if (!inbox_.empty() && !skipped_ && !failed_)
    fail(std::to_string(inbox_.size()) + " frame(s) delivered that the scenario did not expect (first from rank " +
         std::to_string(inbox_.front().src) + ", " + std::to_string(inbox_.front().data.size()) +
         " bytes): duplicated or extra frames");
  phase("finalize");
  if (Status s = module_->finalize(); !s.ok()) fail("finalize(): " + s.to_string());
  for (const auto& pf : peer_failures_)
    if (!skipped_ && pf.rank >= 0 && !peer_failures_expected_)
      fail("unexpected Host::peer_failed(" + std::to_string(pf.rank) + "): " + pf.why.to_string());
  owned_module_.reset();
  module_ = nullptr;
  report('D', "");
  return 0;
}

bool Child::same_host(int rank) const {
  auto node = [&](int r) {
    return static_cast<size_t>(r) < node_of_rank_.size() ? node_of_rank_[static_cast<size_t>(r)] : uint64_t{1};
  };
  return node(rank) == node(rank_);
}

Status Child::send_blocking(int peer, const void* data, size_t len) {
  struct iovec iov{const_cast<void*>(data), len};
  return send_blocking(peer, &iov, 1);
}

Status Child::send_blocking(int peer, const struct iovec* iov, int iovcnt) {
  for (;;) {
    Status s = module_->send(peer, iov, iovcnt);
    if (s.code() != Code::kWouldBlock) return s;
    if (progress() > 0 || !module_->arm_wait()) continue;
    // Full and nothing to receive: sleep until the peer makes room (and wakes
    // us) or sends us something; without a wait fd, 1 ms at a time.
    struct pollfd p{module_->wait_fd(), POLLIN, 0};
    while (::poll(&p, 1, p.fd >= 0 ? -1 : 1) < 0 && errno == EINTR) {
    }
  }
}

int Child::wait_until(const std::function<bool()>& pred) {
  int sleeps = 0;
  while (!pred()) {
    if (progress() > 0) continue;
    if (pred()) break;
    if (!module_->arm_wait()) continue;
    // Without a wait fd (transport/ofi over shm) nothing wakes a sleep: nap
    // 1 ms and look again, as the engine's blocking wait does.
    struct pollfd p{module_->wait_fd(), POLLIN, 0};
    while (::poll(&p, 1, p.fd >= 0 ? -1 : 1) < 0 && errno == EINTR) {
    }
    ++sleeps;
  }
  return sleeps;
}

namespace {
Child* g_capturing = nullptr;  // the child whose stderr goes to a file
}  // namespace

void release_captured_stderr() {
  if (g_capturing != nullptr) (void)g_capturing->release_stderr();
}

void Child::capture_stderr() {
  if (saved_stderr_ >= 0) return;
  char path[] = "/tmp/lz-test-stderr.XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) {
    fail(std::string("capture_stderr: mkstemp: ") + std::strerror(errno));
    return;
  }
  std::fflush(stderr);
  saved_stderr_ = ::dup(2);
  ::dup2(fd, 2);
  ::close(fd);
  stderr_file_ = path;
  g_capturing = this;
}

std::string Child::release_stderr() {
  if (saved_stderr_ < 0) return "";
  g_capturing = nullptr;
  std::fflush(stderr);
  ::dup2(saved_stderr_, 2);
  ::close(saved_stderr_);
  saved_stderr_ = -1;
  std::string text;
  if (FILE* f = std::fopen(stderr_file_.c_str(), "re")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  ::unlink(stderr_file_.c_str());
  (void)write_all(2, text.data(), text.size());
  return text;
}

// ---------------------------------------------------------------------------
// Parent side.

namespace {

struct ChildState {
  int rank = -1;
  pid_t pid = -1;
  int channel = -1;  // parent end
  int report = -1;   // read end
  bool channel_open = false;
  bool report_open = false;
  bool reaped = false;
  bool in_fence = false;
  pid_t replacement = -1;  // announced by 'R', waited for once the original is reaped
  std::string report_buf;
  RankOutcome out;
};

void handle_report_bytes(ChildState& c) {
  for (;;) {
    if (c.report_buf.size() < 5) return;
    uint32_t n;
    std::memcpy(&n, c.report_buf.data() + 1, 4);
    if (c.report_buf.size() < 5 + static_cast<size_t>(n)) return;
    const char type = c.report_buf[0];
    std::string text = c.report_buf.substr(5, n);
    c.report_buf.erase(0, 5 + n);
    switch (type) {
      case 'F': c.out.failures.push_back(std::move(text)); break;
      case 'N': c.out.notes.push_back(std::move(text)); break;
      case 'S': c.out.skip = std::move(text); break;
      case 'H': c.out.last_phase = std::move(text); break;
      case 'D': c.out.finished = true; break;
      case 'X': c.out.intentional_exit = true; break;
      case 'R': c.replacement = static_cast<pid_t>(std::strtol(text.c_str(), nullptr, 10)); break;
      default: c.out.failures.push_back("harness: unknown report record"); break;
    }
  }
}

void drain_report(ChildState& c) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(c.report, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      c.report_open = false;
      return;
    }
    c.report_buf.append(buf, static_cast<size_t>(n));
    handle_report_bytes(c);
  }
}

void send_to(ChildState& c, const std::string& m) {
  if (!c.channel_open) return;
  if (::send(c.channel, m.data(), m.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(m.size()))
    c.out.failures.push_back(std::string("harness: parent could not write to this rank's channel: ") +
                             std::strerror(errno));
}

// Completes the fence when every rank still taking part has entered it; fails
// it when a rank left the job without announcing it.
void maybe_complete_fence(std::vector<ChildState>& kids, const Entries& entries) {
  bool any_waiting = false, all_in = true;
  std::string gone;
  for (auto& c : kids) {
    if (c.in_fence) {
      any_waiting = true;
      continue;
    }
    const bool left = !c.channel_open;
    if (left && c.out.intentional_exit) continue;  // a fault scenario's victim: not expected any more
    if (left) {
      gone += (gone.empty() ? "" : ", ") + std::to_string(c.rank);
      continue;
    }
    all_in = false;
  }
  if (!any_waiting) return;
  if (!gone.empty()) {
    for (auto& c : kids)
      if (c.in_fence) {
        send_to(c, "E" + std::string("rank(s) ") + gone + " left the job before reaching the fence");
        c.in_fence = false;
      }
    return;
  }
  if (!all_in) return;
  const std::string reply = encode_entries(entries);
  for (auto& c : kids)
    if (c.in_fence) {
      send_to(c, reply);
      c.in_fence = false;
    }
}

void handle_channel(std::vector<ChildState>& kids, ChildState& c, Entries& entries) {
  std::string buf(kMaxChannelMessage, '\0');
  for (;;) {
    ssize_t n = ::recv(c.channel, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      c.channel_open = false;
      c.in_fence = false;
      return;
    }
    std::string_view s(buf.data(), static_cast<size_t>(n));
    const char type = s[0];
    s.remove_prefix(1);
    if (type == 'P') {
      std::string key;
      uint32_t klen;
      if (!get_u32(s, &klen) || s.size() < klen) {
        c.out.failures.push_back("harness: malformed modex put");
        continue;
      }
      key.assign(s.data(), klen);
      s.remove_prefix(klen);
      entries[c.rank][key] = std::string(s);
    } else if (type == 'F') {
      c.in_fence = true;
    } else if (type == 'M') {
      uint32_t dst;
      if (!get_u32(s, &dst) || dst >= kids.size()) {
        c.out.failures.push_back("harness: post to a rank outside the job");
        continue;
      }
      std::string fwd = "M";
      put_u32(fwd, static_cast<uint32_t>(c.rank));
      fwd.append(s);
      send_to(kids[dst], fwd);
    } else {
      c.out.failures.push_back("harness: unknown channel message");
    }
  }
}

}  // namespace

JobResult run_job(const JobSpec& spec, const Scenario& scenario) {
  JobResult result;
  const std::string secret = auth::new_secret();
  const auto start = Clock::now();
  const auto kill_at = start + spec.timeout;
  // Children give up a while before the parent kills them, to say why.
  const auto child_deadline = start + spec.timeout * 3 / 4;
  static int job_counter = 0;
  const std::string job_id = "conformance-" + std::to_string(::getpid()) + "-" + std::to_string(++job_counter);

  std::vector<ChildState> kids(static_cast<size_t>(spec.nprocs));
  std::vector<int> child_channel(kids.size(), -1), child_report(kids.size(), -1);
  for (size_t i = 0; i < kids.size(); ++i) {
    int sv[2], pv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 || ::pipe2(pv, O_CLOEXEC) != 0) {
      result.setup_error = std::string("socketpair/pipe: ") + std::strerror(errno);
      return result;
    }
    kids[i].rank = static_cast<int>(i);
    kids[i].out.rank = static_cast<int>(i);
    kids[i].channel = sv[0];
    child_channel[i] = sv[1];
    kids[i].report = pv[0];
    child_report[i] = pv[1];
    kids[i].channel_open = kids[i].report_open = true;
    ::fcntl(pv[0], F_SETFL, ::fcntl(pv[0], F_GETFL) | O_NONBLOCK);
  }

  // Orphans of our children (a rank's replacement, see replace_process) are
  // re-parented to us, so we can reap them and report how they ended.
  static const bool subreaper = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  std::fflush(nullptr);
  for (size_t i = 0; i < kids.size(); ++i) {
    pid_t pid = ::fork();
    if (pid < 0) {
      result.setup_error = std::string("fork: ") + std::strerror(errno);
      for (size_t j = 0; j < i; ++j) ::kill(kids[j].pid, SIGKILL);
      break;
    }
    if (pid == 0) {
      // Keep only this child's own ends: a sibling holding them would hide
      // this child's death from the parent (no EOF).
      for (size_t j = 0; j < kids.size(); ++j) {
        ::close(kids[j].channel);
        ::close(kids[j].report);
        if (j != i) {
          ::close(child_channel[j]);
          ::close(child_report[j]);
        }
      }
      ::setenv("LZ_JOB_ID", job_id.c_str(), 1);  // what a launcher gives its ranks
      int code = 1;
      {
        JobSpec s = spec;
        Child child(s, static_cast<int>(i), child_channel[i], child_report[i], secret, child_deadline);
        code = child.main(scenario);
      }
      std::fflush(nullptr);
      ::_exit(code);
    }
    kids[i].pid = pid;
    kids[i].out.pid = pid;
  }
  for (size_t i = 0; i < kids.size(); ++i) {
    ::close(child_channel[i]);
    ::close(child_report[i]);
  }
  if (!result.setup_error.empty()) {
    for (auto& c : kids) {
      if (c.pid > 0) ::waitpid(c.pid, nullptr, 0);
      ::close(c.channel);
      ::close(c.report);
    }
    return result;
  }

  Entries entries;
  for (;;) {
    bool all_done = true;
    for (auto& c : kids) {
      if (!c.reaped) {
        int st;
        pid_t w = ::waitpid(c.pid, &st, WNOHANG);
        if (w < 0 && errno == ECHILD && !subreaper) {
          // A replacement we cannot wait for: it is over when its reports end.
          if (!c.report_open) {
            c.reaped = true;
            c.out.wait_status = c.out.finished ? 0 : -1;
          }
        } else if (w == c.pid) {
          c.reaped = true;
          c.out.wait_status = st;
          // The original of a replaced rank: its 'R' record was written before
          // it exited; follow the replacement from now on.
          drain_report(c);
          if (c.replacement > 0) {
            c.pid = c.out.pid = std::exchange(c.replacement, -1);
            c.reaped = false;
            c.out.wait_status = -1;
          }
        }
      }
      if (!c.reaped || c.report_open) all_done = false;
    }
    if (all_done) break;
    if (Clock::now() >= kill_at) {
      result.timed_out = true;
      for (auto& c : kids) {
        if (!c.reaped) ::kill(c.pid, SIGKILL);
        if (c.replacement > 0) ::kill(c.replacement, SIGKILL);
      }
      for (auto& c : kids) {
        if (!c.reaped) {
          int st;
          if (::waitpid(c.pid, &st, 0) == c.pid) c.out.wait_status = st;
          c.reaped = true;
        }
        if (c.replacement > 0) ::waitpid(c.replacement, nullptr, 0);
        while (c.report_open) drain_report(c);
      }
      break;
    }

    std::vector<pollfd> pfds;
    std::vector<std::pair<size_t, bool>> which;  // (child, is_report)
    for (size_t i = 0; i < kids.size(); ++i) {
      if (kids[i].report_open) {
        pfds.push_back({kids[i].report, POLLIN, 0});
        which.emplace_back(i, true);
      }
      if (kids[i].channel_open) {
        pfds.push_back({kids[i].channel, POLLIN, 0});
        which.emplace_back(i, false);
      }
    }
    int r = ::poll(pfds.data(), pfds.size(), 100);
    if (r < 0 && errno != EINTR) {
      result.setup_error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    if (r <= 0) continue;
    // Reports first: a child announces an intentional exit before its
    // channel closes, and the fence logic must know that.
    for (size_t k = 0; k < pfds.size(); ++k)
      if (which[k].second && pfds[k].revents) drain_report(kids[which[k].first]);
    for (size_t k = 0; k < pfds.size(); ++k)
      if (!which[k].second && pfds[k].revents) handle_channel(kids, kids[which[k].first], entries);
    maybe_complete_fence(kids, entries);
  }

  for (auto& c : kids) {
    if (!c.reaped) {  // only after a harness error: never leave a child behind
      ::kill(c.pid, SIGKILL);
      int st;
      if (::waitpid(c.pid, &st, 0) == c.pid) c.out.wait_status = st;
    }
    ::close(c.channel);
    ::close(c.report);
    result.ranks.push_back(std::move(c.out));
  }
  return result;
}

}  // namespace lz::test
