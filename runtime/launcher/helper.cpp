#include "launcher/helper.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "cr/runtime_params.h"
#include "launcher/event_loop.h"
#include "launcher/live_children.h"
#include "launcher/local_starter.h"
#include "launcher/restore_starter.h"
#include "lazarus/auth.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/log.h"
#include "lazarus/registry.h"
#include "lazarus/snapshot_layout.h"
#include "lazarus/strings.h"
#include "lazarus/userns/pid_namespace.h"
#include "oob/helper_messages.h"
#include "oob/oob_client.h"

namespace lz::launcher {
namespace {

// Reads the secret line from stdin: hex digits up to a newline or EOF.
StatusOr<std::string> read_secret() {
  std::string hex;
  char c;
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("reading the job secret from stdin", errno);
    if (n == 0 || c == '\n') break;
    if (hex.size() >= 2 * 1024) return InvalidArgument("the job secret on stdin is too long");
    hex += c;
  }
  auto digit = [](char d) -> int {
    if (d >= '0' && d <= '9') return d - '0';
    if (d >= 'a' && d <= 'f') return d - 'a' + 10;
    if (d >= 'A' && d <= 'F') return d - 'A' + 10;
    return -1;
  };
  if (hex.empty() || hex.size() % 2 != 0)
    return InvalidArgument("expected the job secret as one line of hex digits on stdin");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgument("the job secret on stdin is not hex");
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

class Helper {
 public:
  Helper(const HelperOptions& o, std::string secret) : o_(o), secret_(std::move(secret)) {}
  ~Helper() { kill_all(); }

  int run();

 private:
  struct Rank {
    pid_t pid = -1;
    oob::Fd out, err;
    bool exited = false;
  };

  void say(const std::string& line) const {
    std::string s = "lazarus helper (" + o_.host + "): " + line + "\n";
    (void)!::write(STDERR_FILENO, s.data(), s.size());
  }
  Status send(oob::MsgType type, const std::string& payload);
  void on_launcher();
  void on_frame(oob::Frame& f);
  void start_rank(const oob::HelperStartMsg& m);
  void restore_rank(const oob::HelperRestoreMsg& m);
  // Makes this namespace's next pids start at this host's own block.
  void start_pids_apart();
  // Watches a rank's output and answers HELPER_STARTED for it.
  void started(int rank, StatusOr<StartedRank> started);
  StatusOr<cr::Module*> cr_module(const std::vector<std::string>& params);
  void on_output(int rank, bool is_err);
  void drain(int rank);
  void reap();
  // Sends the exits reaped so far once no other child is left (see reap()).
  void flush_exits();
  bool has_other_children() const;
  void on_signal_fd();
  void kill_all();
  void finish(int code) {
    exit_code_ = code;
    loop_.stop();
  }

  HelperOptions o_;
  std::string secret_;
  EventLoop loop_;
  std::unique_ptr<oob::OobClient> client_;
  oob::Fd signal_fd_;
  LocalStarter starter_;
  // The cr module of restores, selected at the first one by the job's
  // parameters (the registry owns it); `cr_params_` are those parameters.
  std::unique_ptr<Registry> registry_;
  std::vector<QueryResult> cr_selection_;  // owns the module; after registry_, so destroyed first
  cr::Module* cr_ = nullptr;
  std::vector<std::string> cr_params_;
  std::map<int, Rank> ranks_;
  std::vector<std::pair<int, int>> pending_exits_;  // rank, wait status
  oob::Deadline exits_deadline_{};
  bool flush_timer_ = false;
  int exit_code_ = 0;
};

Status Helper::send(oob::MsgType type, const std::string& payload) {
  Status s = client_->send(type, payload);
  if (!s.ok()) {
    say("lost the launcher: " + s.message() + "; killing this host's ranks");
    finish(1);
  }
  return s;
}

int Helper::run() {
  // Orphans of the ranks become ours, so nothing of the job is left unreaped
  // on this host; the launcher's signals come as frames, our own signals
  // through a signalfd.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) {
    say(std::string("sigprocmask: ") + std::strerror(errno));
    return 1;
  }
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) {
    say(std::string("signalfd: ") + std::strerror(errno));
    return 1;
  }
  signal_fd_.reset(fd);
  if (o_.pid_namespace && getpid() == 1) start_pids_apart();
  auto c = oob::OobClient::connect(o_.oob_address, o_.job_id, static_cast<uint32_t>(o_.index), secret_,
                                   oob::kAuthHelper, oob::deadline_in(o_.connect_timeout));
  if (!c.ok()) {
    say(c.status().message());
    return 1;
  }
  client_ = std::move(*c);
  if (o_.keepalive > 0)
    if (Status s = oob::set_keepalive(client_->fd(), o_.keepalive); !s.ok()) say(s.message());
  loop_.watch(signal_fd_.get(), POLLIN, [this](short) { on_signal_fd(); });
  loop_.watch(client_->fd(), POLLIN, [this](short) { on_launcher(); });
  if (Status s = loop_.run(); !s.ok()) {
    say("event loop failed: " + s.message());
    exit_code_ = 1;
  }
  kill_all();
  return exit_code_;
}

void Helper::start_pids_apart() {
  // CRIU restores a process under its saved pid, which must be free where it
  // is restored. Ranks that move between hosts (`lazarus migrate`) go from
  // one helper's PID namespace to another's, where the same small numbers
  // would be taken: each host's processes start at their own block of pids
  // instead, the upper half of pid_max cut into blocks by host index (the
  // launcher's host, in the machine's namespace, mostly uses low pids).
  // The pid_max of the namespace we were started in, not of ours (newer
  // kernels give a new namespace its own, larger one): a rank moved from
  // here to the launcher's host must fit under that host's limit.
  const long pid_max = o_.outer_pid_max > 0 ? o_.outer_pid_max : 32768;
  const long block = std::max(64L, pid_max / 2 / 16);
  const long first = pid_max / 2 + (o_.index % 16) * block;
  FILE* f = std::fopen("/proc/sys/kernel/ns_last_pid", "w");
  if (f == nullptr || std::fprintf(f, "%ld", first) < 0 || std::fclose(f) != 0)
    log::debug("helper %d: cannot start its pids at %ld (ns_last_pid: %s); pids of moved ranks may collide",
               o_.index, first, std::strerror(errno));
}

void Helper::on_launcher() {
  // Frames arrive whole and promptly once their first byte is here; the
  // deadline only bounds a launcher that stalls mid-frame.
  auto f = client_->receive(oob::deadline_in(30));
  if (!f.ok()) {
    if (f.status().code() != Code::kAborted) say("lost the launcher: " + f.status().message());
    finish(f.status().code() == Code::kAborted ? 0 : 1);
    return;
  }
  on_frame(*f);
}

void Helper::on_frame(oob::Frame& f) {
  switch (static_cast<oob::MsgType>(f.type)) {
    case oob::MsgType::kHelperStart: {
      oob::HelperStartMsg m;
      if (Status s = oob::decode_helper_start(f.payload, &m); !s.ok()) {
        say("the launcher broke the protocol: " + s.message());
        return finish(1);
      }
      start_rank(m);
      return;
    }
    case oob::MsgType::kHelperRestore: {
      oob::HelperRestoreMsg m;
      if (Status s = oob::decode_helper_restore(f.payload, &m); !s.ok()) {
        say("the launcher broke the protocol: " + s.message());
        return finish(1);
      }
      restore_rank(m);
      return;
    }
    case oob::MsgType::kHelperSignal: {
      oob::HelperSignalMsg m;
      if (Status s = oob::decode_helper_signal(f.payload, &m); !s.ok()) {
        say("the launcher broke the protocol: " + s.message());
        return finish(1);
      }
      auto it = ranks_.find(static_cast<int>(m.rank));
      if (it == ranks_.end() || it->second.exited) return;
      kill(-it->second.pid, m.signal);
      kill(it->second.pid, m.signal);
      return;
    }
    case oob::MsgType::kError: {
      oob::ErrorMsg e;
      if (oob::decode_error(f.payload, &e).ok()) log::debug("launcher: %s", e.reason.c_str());
      return;  // "the job is stopping": the signals follow
    }
    default:
      // A newer launcher's request: say so rather than ignore it.
      (void)send(oob::MsgType::kHelperUnknown, oob::encode_seq({f.type}));
  }
}

void Helper::start_rank(const oob::HelperStartMsg& m) {
  const int rank = static_cast<int>(m.rank);
  if (m.flags != 0)
    return started(rank, InvalidArgument("HELPER_START flags " + std::to_string(m.flags) + " unknown to this helper"));
  if (auto it = ranks_.find(rank); it != ranks_.end() && !it->second.exited)
    return started(rank, InvalidArgument("rank " + std::to_string(rank) + " is already running here"));
  RankSpec spec;
  spec.rank = rank;
  spec.host = o_.host;
  spec.argv = m.argv;
  spec.env = m.env;
  spec.secret = secret_;
  spec.cwd = m.cwd;
  for (uint32_t cpu : m.cpus) spec.cpus.push_back(static_cast<int>(cpu));
  started(rank, starter_.start(spec));
}

StatusOr<cr::Module*> Helper::cr_module(const std::vector<std::string>& params) {
  if (cr_ != nullptr && params == cr_params_) return cr_;
  // One job, one set of parameters: a second set would be a launcher's bug,
  // but selecting again is cheap and right.
  auto reg = std::make_unique<Registry>();
  LZ_RETURN_IF_ERROR(rt::register_runtime_params(*reg));
  ConfigOptions cfg;
  for (const std::string& p : params) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("HELPER_RESTORE parameter '" + p + "' is not name=value");
    cfg.mca.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  LZ_RETURN_IF_ERROR(reg->configure(cfg));
  Framework* fw = reg->framework("cr");
  if (fw == nullptr) return NotFound("no cr framework in this lazarus");
  LZ_ASSIGN_OR_RETURN(std::vector<QueryResult> sel, fw->select(reg->query_context()));
  if (sel.empty() || !sel.front().module) return Unavailable("no cr component can run on this host");
  auto* m = static_cast<cr::Module*>(sel.front().module.get());
  if (!(m->capabilities() & cr::kCapRestore))
    return Unimplemented(std::string("cr ") + sel.front().entry->desc->name + " does not restore process images");
  cr_selection_.clear();
  registry_ = std::move(reg);
  cr_selection_ = std::move(sel);
  cr_ = m;
  cr_params_ = params;
  return cr_;
}

void Helper::restore_rank(const oob::HelperRestoreMsg& m) {
  const int rank = static_cast<int>(m.rank);
  if (m.flags != 0)
    return started(rank,
                   InvalidArgument("HELPER_RESTORE flags " + std::to_string(m.flags) + " unknown to this helper"));
  if (auto it = ranks_.find(rank); it != ranks_.end() && !it->second.exited)
    return started(rank, InvalidArgument("rank " + std::to_string(rank) + " is already running here"));
  if (!o_.pid_namespace || getpid() != 1)
    return started(rank, Unavailable("this helper runs in its host's PID namespace, where the rank's saved "
                                     "pids may be taken (it was not started with --pid-namespace)"));
  auto cr = cr_module(m.params);
  if (!cr.ok()) return started(rank, cr.status().with_context("cannot restore rank " + std::to_string(rank)));
  // RestoreStarter restores <dir>/rank.<r>: the message names the rank's own
  // directory, so its parent is the snapshot.
  const size_t slash = m.dir.find_last_of('/');
  const std::string snapshot = slash == std::string::npos ? "." : m.dir.substr(0, slash);
  if (m.dir.substr(slash + 1) != snapshot_rank_entry(rank))
    return started(rank, InvalidArgument("HELPER_RESTORE of rank " + std::to_string(rank) + " from " + m.dir +
                                         ", which is not a rank." + std::to_string(rank) + " directory"));
  RestoreStarter restorer(**cr, snapshot, m.seq);
  RankSpec spec;
  spec.rank = rank;
  spec.host = o_.host;
  spec.env = m.env;
  spec.secret = secret_;
  started(rank, restorer.start(spec));
}

void Helper::started(int rank, StatusOr<StartedRank> result) {
  oob::HelperStartedMsg reply;
  reply.rank = static_cast<uint32_t>(rank);
  if (!result.ok()) {
    const Code c = result.status().code();
    // A program that cannot be executed keeps the errno the launcher turns
    // into 127 / 126; a restore that failed is EIO, or EAGAIN when its image
    // is not complete yet (a moving rank's dump still closing its files).
    reply.error = c == Code::kNotFound          ? ENOENT
                  : c == Code::kInvalidArgument ? EINVAL
                  : c == Code::kDataLoss        ? EAGAIN
                  : c == Code::kUnavailable || c == Code::kUnimplemented || c == Code::kInternal || c == Code::kIo
                      ? EIO
                      : EACCES;
    reply.reason = result.status().message();
  } else {
    Rank& r = ranks_[rank];
    r = Rank{};
    r.pid = result->pid;
    r.out = std::move(result->out);
    r.err = std::move(result->err);
    reply.pid = r.pid;
    loop_.watch(r.out.get(), POLLIN, [this, rank](short) { on_output(rank, false); });
    loop_.watch(r.err.get(), POLLIN, [this, rank](short) { on_output(rank, true); });
  }
  (void)send(oob::MsgType::kHelperStarted, oob::encode_helper_started(reply));
}

void Helper::on_output(int rank, bool is_err) {
  Rank& r = ranks_[rank];
  oob::Fd& fd = is_err ? r.err : r.out;
  if (!fd.valid()) return;
  oob::HelperOutputMsg m;
  m.rank = static_cast<uint32_t>(rank);
  m.stream = is_err ? oob::kHelperStderr : oob::kHelperStdout;
  char buf[65536];
  for (int i = 0; i < 16; ++i) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      m.data.assign(buf, static_cast<size_t>(n));
      if (!send(oob::MsgType::kHelperOutput, oob::encode_helper_output(m)).ok()) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    loop_.unwatch(fd.get());
    fd.reset();
    m.data.clear();  // EOF
    (void)send(oob::MsgType::kHelperOutput, oob::encode_helper_output(m));
    return;
  }
}

void Helper::drain(int rank) {
  // What the rank wrote before it ended goes out before its exit report.
  for (bool is_err : {false, true}) {
    for (int i = 0; i < 64; ++i) {
      Rank& r = ranks_[rank];
      if (!(is_err ? r.err : r.out).valid()) break;
      pollfd p{(is_err ? r.err : r.out).get(), POLLIN, 0};
      if (poll(&p, 1, 0) <= 0) break;
      on_output(rank, is_err);
    }
  }
}

void Helper::reap() {
  for (;;) {
    int st = 0;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) return;
    bool rank_pid = false;
    for (auto& [rank, r] : ranks_) {
      if (r.pid != pid || r.exited) continue;
      rank_pid = true;
      r.exited = true;
      drain(rank);
      if (pending_exits_.empty()) exits_deadline_ = oob::deadline_in(120);
      pending_exits_.emplace_back(rank, st);
      break;
    }
    // An adopted orphan that led a process group takes the rest of it along
    // (as the launcher does, launcher/job.cpp).
    if (!rank_pid) kill(-pid, SIGKILL);
  }
}

bool Helper::has_other_children() const {
  return any_live_child([this](pid_t pid) {
           for (const auto& [n, r] : ranks_)
             if (!r.exited && r.pid == pid) return false;
           return true;
         })
      .value_or(false);
}

void Helper::flush_exits() {
  // A rank dumped with --term ends (criu kills it) while its checkpointer,
  // reparented to us, may still write its last files into the snapshot; the
  // launcher commits once every rank's end is in, so the end is reported
  // only when no such child is left (bounded).
  if (pending_exits_.empty()) return;
  if (has_other_children() && oob::Clock::now() < exits_deadline_) {
    if (!flush_timer_) {
      flush_timer_ = true;
      loop_.add_timer(oob::deadline_in(0.05), [this] {
        flush_timer_ = false;
        reap();
        flush_exits();
      });
    }
    return;
  }
  std::vector<std::pair<int, int>> exits;
  exits.swap(pending_exits_);
  for (const auto& [rank, st] : exits)
    if (!send(oob::MsgType::kHelperExit, oob::encode_helper_exit({static_cast<uint32_t>(rank), st})).ok()) return;
}

void Helper::on_signal_fd() {
  signalfd_siginfo si;
  while (::read(signal_fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    const int sig = static_cast<int>(si.ssi_signo);
    if (sig == SIGCHLD) continue;
    say(std::string("received SIG") + sigabbrev_np(sig) + "; killing this host's ranks");
    finish(128 + sig);
  }
  reap();
  flush_exits();
}

void Helper::kill_all() {
  bool any = false;
  for (auto& [rank, r] : ranks_) {
    if (r.exited) continue;
    kill(-r.pid, SIGKILL);
    kill(r.pid, SIGKILL);
    any = true;
  }
  if (!any) return;
  // SIGKILL cannot be caught: they end at once; reap them (and what they left).
  for (auto& [rank, r] : ranks_) {
    if (r.exited) continue;
    waitpid(r.pid, nullptr, 0);
    r.exited = true;
  }
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

}  // namespace

namespace {

// Under srun every helper has the same command line: its host index is the
// position of its node's name (SLURMD_NODENAME, which slurmd sets for every
// task) in --hosts, or, where that is not set, the task's node id in the
// step (SLURM_NODEID), which counts the nodes in the order srun got them.
Status index_from_hosts(HelperOptions& o) {
  std::vector<std::string> hosts = str::split(o.hosts, ',');
  const char* node = std::getenv("SLURMD_NODENAME");
  if (node != nullptr && *node != '\0') {
    for (size_t i = 0; i < hosts.size(); ++i)
      if (hosts[i] == node) {
        o.index = static_cast<int>(i);
        o.host = hosts[i];
        return Status::Ok();
      }
    return NotFound(std::string("this node (SLURMD_NODENAME=") + node + ") is not one of --hosts " + o.hosts);
  }
  const char* id = std::getenv("SLURM_NODEID");
  char* end = nullptr;
  long v = id != nullptr ? std::strtol(id, &end, 10) : -1;
  if (id == nullptr || *end != '\0' || v < 0 || static_cast<size_t>(v) >= hosts.size())
    return InvalidArgument("--hosts needs SLURMD_NODENAME or SLURM_NODEID (a helper started by srun) to find its host");
  o.index = static_cast<int>(v);
  o.host = hosts[static_cast<size_t>(v)];
  return Status::Ok();
}

}  // namespace

int run_helper(const HelperOptions& given) {
  HelperOptions o = given;
  if (!o.hosts.empty()) {
    if (Status s = index_from_hosts(o); !s.ok()) {
      std::fprintf(stderr, "lazarus helper: %s\n", s.message().c_str());
      return 1;
    }
    // srun may have bound this task to a CPU (task/affinity): ranks the
    // launcher does not bind would inherit it. Every CPU the node lets us
    // have instead (the kernel keeps the job's cpuset). srun --cpu-bind=none
    // would do the same but warns on clusters without task/affinity.
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
    (void)sched_setaffinity(0, sizeof all, &all);
  } else if (o.index < 0 || o.host.empty()) {
    std::fprintf(stderr, "lazarus helper: --index and --host, or --hosts, are required\n");
    return 1;
  }
  auto secret = read_secret();
  if (!secret.ok()) {
    std::fprintf(stderr, "lazarus helper: %s\n", secret.status().message().c_str());
    return 1;
  }
  if (secret->size() != auth::kSecretBytes) {
    std::fprintf(stderr, "lazarus helper: the job secret on stdin has %zu bytes, expected %zu\n", secret->size(),
                 auth::kSecretBytes);
    return 1;
  }
  if (!o.pid_namespace) {
    Helper h(o, std::move(*secret));
    return h.run();
  }
  if (FILE* f = std::fopen("/proc/sys/kernel/pid_max", "r")) {
    if (std::fscanf(f, "%ld", &o.outer_pid_max) != 1) o.outer_pid_max = 0;
    std::fclose(f);
  }
  std::string err;
  int rc = userns::run_in_pid_namespace(
      [&] {
        Helper h(o, std::move(*secret));
        return h.run();
      },
      &err);
  if (rc < 0) {
    // Ranks still start; only restores are refused here (restore_rank says why).
    std::fprintf(stderr, "lazarus helper (%s): %s; running without one, ranks cannot be restored on this host\n",
                 o.host.c_str(), err.c_str());
    o.pid_namespace = false;
    Helper h(o, std::move(*secret));
    return h.run();
  }
  return rc;
}

}  // namespace lz::launcher
