#include "launcher/remote_starter.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "launcher/event_loop.h"
#include "launcher/host_list.h"
#include "lazarus/log.h"
#include "lazarus/pidfd.h"
#include "lazarus/snapshot_layout.h"
#include "lazarus/strings.h"
#include "oob/messages.h"

namespace lz::launcher {
namespace {

std::string to_hex(const std::string& bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// A pipe of this size holds a burst of output while the Job is busy; the
// kernel may refuse it (pipe-max-size), and the default then does.
constexpr int kPipeBytes = 1 << 20;

}  // namespace

RemoteStarter::RemoteStarter(std::vector<std::string> agent, std::string lazarus, double connect_timeout,
                             HelperLaunch launch)
    : agent_(std::move(agent)), lazarus_(std::move(lazarus)), connect_timeout_(connect_timeout), launch_(launch) {}

RemoteStarter::~RemoteStarter() {
  // The helpers exit when the job's OOB listener closes (the Job is gone by
  // now); their agents follow. Whatever is still there after the grace is killed.
  const oob::Deadline until = oob::deadline_in(5);
  for (Agent& a : agents_) {
    if (a.pid <= 0) continue;
    for (;;) {
      pid_t r = waitpid(a.pid, nullptr, WNOHANG);
      if (r == a.pid || (r < 0 && errno != EINTR)) break;  // ECHILD: the Job reaped it
      if (oob::Clock::now() >= until) {
        kill(-a.pid, SIGKILL);
        kill(a.pid, SIGKILL);
        waitpid(a.pid, nullptr, 0);
        break;
      }
      if (a.pidfd.valid()) {
        pollfd p{a.pidfd.get(), POLLIN, 0};
        poll(&p, 1, 100);
      } else {
        usleep(20000);
      }
    }
    a.pid = -1;
  }
}

Status RemoteStarter::can_start_on(const std::string& host) const {
  (void)host;
  return Status::Ok();
}

bool RemoteStarter::is_remote(const std::string& host) const {
  if (launch_ == HelperLaunch::kSrun) return true;  // every host has its helper
  auto it = remote_cache_.find(host);
  if (it == remote_cache_.end()) it = remote_cache_.emplace(host, !is_local_host(host)).first;
  return it->second;
}

Status RemoteStarter::begin(StarterHost& host, const std::vector<std::string>& rank_hosts) {
  host_ = &host;
  for (const std::string& h : rank_hosts)
    if (is_remote(h) && std::find(hosts_.begin(), hosts_.end(), h) == hosts_.end()) hosts_.push_back(h);
  helpers_.resize(hosts_.size());
  for (size_t i = 0; i < hosts_.size(); ++i) helpers_[i].host = hosts_[i];
  if (launch_ == HelperLaunch::kSrun && !hosts_.empty()) {
    std::vector<int> all;
    for (size_t i = 0; i < hosts_.size(); ++i) all.push_back(static_cast<int>(i));
    if (Status s = start_agent(srun_argv(), all); !s.ok())
      return s.with_context("cannot start the helpers with srun on " + str::join(hosts_, ","));
  } else {
    for (size_t i = 0; i < hosts_.size(); ++i)
      if (Status s = start_agent(agent_argv(static_cast<int>(i)), {static_cast<int>(i)}); !s.ok())
        return s.with_context("cannot start the helper on host " + hosts_[i]);
  }
  // Done when every helper is in, or as soon as one is gone.
  auto all_in = [this] {
    bool all = true;
    for (const Helper& h : helpers_) {
      if (h.gone) return true;
      all &= h.connected;
    }
    return all;
  };
  Status s = host.loop().run_until(all_in, oob::deadline_in(connect_timeout_));
  for (const Helper& h : helpers_) {
    if (h.gone) return Unavailable("the helper on host " + h.host + " " + h.why);
    if (!h.connected) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", connect_timeout_);
      return Unavailable("the helper on host " + h.host + " did not connect back to the launcher at " +
                         host.oob_address() + " within " + buf + " s (launch_agent_timeout)" +
                         (s.ok() ? "" : ": " + s.message()));
    }
  }
  return s;
}

std::vector<std::string> RemoteStarter::agent_argv(int index) const {
  const std::string& host = hosts_[static_cast<size_t>(index)];
  std::vector<std::string> argv = agent_;
  for (const std::string& w :
       {host, lazarus_, std::string("helper"), std::string("--job"), host_->job_id(), std::string("--oob"),
        host_->oob_address(), std::string("--index"), std::to_string(index), std::string("--host"), host})
    argv.push_back(w);
  add_helper_options(argv);
  return argv;
}

void RemoteStarter::add_helper_options(std::vector<std::string>& argv) const {
  if (pid_namespace_) argv.push_back("--pid-namespace");
  if (keepalive_ > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", keepalive_);
    argv.push_back("--keepalive");
    argv.push_back(buf);
  }
}

std::vector<std::string> RemoteStarter::srun_argv() const {
  // Open MPI's plm/slurm and MPICH's hydra start their daemons the same way:
  // one task per node, exactly these nodes. --overlap lets the step share
  // CPUs with the step lazarus itself may run in (srun -n1 lazarus run ...);
  // the helper undoes any binding srun gives it and binds each rank itself
  // (--bind-to); --cpu-bind=none would print a warning into the job's output
  // on clusters without task/affinity;
  // --kill-on-bad-exit=0: a helper that fails is reported by the launcher,
  // which stops the job itself, naming the host.
  const std::string n = std::to_string(hosts_.size());
  std::vector<std::string> argv = agent_;
  for (const std::string& w :
       {"--nodes=" + n, "--ntasks=" + n, std::string("--ntasks-per-node=1"), "--nodelist=" + str::join(hosts_, ","),
        std::string("--input=all"), std::string("--overlap"), std::string("--mpi=none"),
        std::string("--kill-on-bad-exit=0"), std::string("--job-name=lazarus-helpers"), lazarus_, std::string("helper"),
        std::string("--job"), host_->job_id(), std::string("--oob"), host_->oob_address(), std::string("--hosts"),
        str::join(hosts_, ",")})
    argv.push_back(w);
  add_helper_options(argv);
  return argv;
}

Status RemoteStarter::start_agent(std::vector<std::string> argv, std::vector<int> helpers) {
  const int index = static_cast<int>(agents_.size());
  const std::string what = helpers.size() == 1 ? helpers_[static_cast<size_t>(helpers[0])].host : "every host";

  int in[2];
  if (pipe2(in, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd in_r(in[0]), in_w(in[1]);
  const std::string line = to_hex(host_->job_secret()) + "\n";
  // The line (65 bytes) fits in the pipe: written before the fork, so the
  // agent can never block the launcher.
  if (::write(in_w.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    return ErrnoError("writing the helper's secret pipe", errno);
  in_w.reset();
  std::vector<char*> cargv = str::c_array(argv);
  log::debug("starting the helper on %s: %s", what.c_str(), str::join(argv, " ").c_str());
  const pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid < 0) return ErrnoError("fork", errno);
  if (pid == 0) {
    // The agent dies with the launcher; its own session keeps a terminal's
    // ^C away from it (the launcher forwards signals to the ranks itself).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher) _exit(128 + SIGKILL);
    setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    dup2(in_r.get(), STDIN_FILENO);
    syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
    execvp(cargv[0], cargv.data());
    std::fprintf(stderr, "lazarus run: cannot execute the launch agent '%s': %s\n", cargv[0], std::strerror(errno));
    _exit(127);
  }
  for (int i : helpers) helpers_[static_cast<size_t>(i)].agent = index;
  Agent& a = agents_.emplace_back();
  a.pid = pid;
  a.helpers = std::move(helpers);
  int pfd = pidfd_open(pid);
  if (pfd >= 0) {
    a.pidfd.reset(pfd);
    host_->loop().watch(pfd, POLLIN, [this, index](short) { on_agent_exit(index); });
  }
  return Status::Ok();
}

void RemoteStarter::on_agent_exit(int agent) {
  Agent& a = agents_[static_cast<size_t>(agent)];
  host_->loop().unwatch(a.pidfd.get());
  int st = 0;
  if (a.pid > 0 && waitpid(a.pid, &st, WNOHANG) == a.pid) {
    a.pid = -1;
    a.status = st;
  }
  st = a.status;
  std::string how = st < 0            ? "exited"
                    : WIFSIGNALED(st) ? "was killed by signal " + std::to_string(WTERMSIG(st))
                                      : "exited with code " + std::to_string(WEXITSTATUS(st));
  // A connected helper is judged by its connection.
  for (int i : a.helpers)
    if (!helpers_[static_cast<size_t>(i)].connected)
      helper_failed(i, "could not be started: the launch agent (" + agent_[0] + ") " + how +
                           " before the helper connected (its messages, if any, are above)");
}

void RemoteStarter::helper_failed(int index, const std::string& why) {
  Helper& h = helpers_[static_cast<size_t>(index)];
  if (h.gone) return;
  h.gone = true;
  h.why = why;
  std::vector<int> lost;
  for (auto& [rank, r] : ranks_) {
    if (r.helper != index || r.exited) continue;
    r.exited = true;
    r.answered = true;
    close_stream(r.out);
    close_stream(r.err);
    if (r.started.pid > 0) lost.push_back(rank);
  }
  if (!lost.empty()) host_->ranks_lost(lost, "the helper on host " + h.host + " " + why);
}

void RemoteStarter::restore_from(std::string snapshot_dir, uint64_t seq, std::vector<std::string> params,
                                 RankStarter* local) {
  restoring_ = true;
  pid_namespace_ = true;
  restore_dir_ = std::move(snapshot_dir);
  restore_seq_ = seq;
  restore_params_ = std::move(params);
  restore_local_ = local;
}

StatusOr<StartedRank> RemoteStarter::start(const RankSpec& spec) {
  if (restoring_) return restore(spec, snapshot_rank_dir(restore_dir_, spec.rank), restore_seq_, restore_params_);
  if (!is_remote(spec.host)) return local_.start(spec);
  oob::HelperStartMsg m;
  m.rank = static_cast<uint32_t>(spec.rank);
  m.argv = spec.argv;
  m.env = spec.env;
  m.cwd = spec.cwd;
  if (m.cwd.empty()) {
    char cwd[4096] = "";
    if (getcwd(cwd, sizeof cwd) != nullptr) m.cwd = cwd;
  }
  for (int c : spec.cpus) m.cpus.push_back(static_cast<uint32_t>(c));
  return start_remote(spec, oob::MsgType::kHelperStart, oob::encode_helper_start(m));
}

Status RemoteStarter::helper_usable(const std::string& host) const {
  auto it = std::find(hosts_.begin(), hosts_.end(), host);
  if (it == hosts_.end()) return NotFound("host " + host + " has no helper of this job");
  const Helper& h = helpers_[static_cast<size_t>(it - hosts_.begin())];
  if (h.gone) return Unavailable("the helper on host " + h.host + " " + h.why);
  if (!h.connected) return Unavailable("the helper on host " + h.host + " is not connected");
  if (!pid_namespace_)
    return Unimplemented("the helper on host " + h.host +
                         " runs in the host's PID namespace, where a moved rank's saved pid may be taken; start the "
                         "job with --mca launch_helper_pid_namespace true to let ranks move to other hosts");
  return Status::Ok();
}

StatusOr<StartedRank> RemoteStarter::restore(const RankSpec& spec, const std::string& dir, uint64_t seq,
                                             const std::vector<std::string>& params) {
  if (!is_remote(spec.host)) {
    if (restore_local_ == nullptr)
      return Internal("RemoteStarter::restore of rank " + std::to_string(spec.rank) +
                      " on this host without a local "
                      "restorer (restore_from)");
    return restore_local_->start(spec);
  }
  if (!pid_namespace_)
    return Internal("RemoteStarter::restore of rank " + std::to_string(spec.rank) + " on " + spec.host +
                    ": its helper was not started in its own PID namespace (helpers_in_pid_namespace)");
  oob::HelperRestoreMsg m;
  m.rank = static_cast<uint32_t>(spec.rank);
  m.seq = seq;
  m.dir = dir;
  m.params = params;
  m.env = spec.env;
  return start_remote(spec, oob::MsgType::kHelperRestore, oob::encode_helper_restore(m));
}

StatusOr<StartedRank> RemoteStarter::start_remote(const RankSpec& spec, oob::MsgType type, const std::string& payload) {
  auto it = std::find(hosts_.begin(), hosts_.end(), spec.host);
  if (host_ == nullptr || it == hosts_.end()) return Internal("RemoteStarter::start before begin() for " + spec.host);
  const int index = static_cast<int>(it - hosts_.begin());
  Helper& h = helpers_[static_cast<size_t>(index)];
  if (h.gone) return Unavailable("the helper on host " + h.host + " " + h.why);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC | O_NONBLOCK) != 0) return ErrnoError("pipe2", errno);
  oob::Fd out_r(out[0]), out_w(out[1]);
  if (pipe2(err, O_CLOEXEC | O_NONBLOCK) != 0) return ErrnoError("pipe2", errno);
  oob::Fd err_r(err[0]), err_w(err[1]);
  fcntl(out_w.get(), F_SETPIPE_SZ, kPipeBytes);
  fcntl(err_w.get(), F_SETPIPE_SZ, kPipeBytes);

  Remote& r = ranks_[spec.rank];
  r = Remote{};
  r.helper = index;
  r.out.w = std::move(out_w);
  r.err.w = std::move(err_w);

  host_->send_helper(index, type, payload);
  const int rank = spec.rank;
  // A restore takes as long as CRIU needs for the image: the same bound as a
  // start, which is generous for either.
  Status s =
      host_->loop().run_until([this, rank] { return ranks_[rank].answered; }, oob::deadline_in(connect_timeout_));
  Remote& done = ranks_[rank];
  if (h.gone) return Unavailable("the helper on host " + h.host + " " + h.why);
  if (!done.answered)
    return Unavailable("the helper on host " + h.host + " did not answer the " +
                       (type == oob::MsgType::kHelperRestore ? "restore" : "start") + " of rank " +
                       std::to_string(rank) +
                       (s.ok() ? std::string(" (the launcher is stopping)") : ": " + s.message()));
  if (done.started.error != 0) {
    // Taken before the erase, which destroys `done`.
    const int e = done.started.error;
    const std::string reason = std::move(done.started.reason);
    ranks_.erase(rank);
    return Status(e == ENOENT                 ? Code::kNotFound
                  : e == EACCES || e == EPERM ? Code::kPermissionDenied
                  : e == EINVAL               ? Code::kInvalidArgument
                  : e == EAGAIN               ? Code::kDataLoss  // an image not complete yet
                                              : Code::kUnavailable,
                  reason + " (on host " + h.host + ")");
  }
  done.returned = true;
  if (done.exit_pending) {
    // From the loop's next turn: the Job records the pid first.
    const int status = done.exit_status;
    host_->loop().add_timer(oob::Clock::now(), [this, rank, status] { host_->rank_exited(rank, status); });
  }
  StartedRank sr;
  sr.pid = done.started.pid;
  sr.out = std::move(out_r);
  sr.err = std::move(err_r);
  return sr;
}

void RemoteStarter::signal(int rank, pid_t pid, int sig) {
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return RankStarter::signal(rank, pid, sig);
  if (it->second.exited) return;
  host_->send_helper(it->second.helper, oob::MsgType::kHelperSignal,
                     oob::encode_helper_signal({static_cast<uint32_t>(rank), sig}));
}

Status RemoteStarter::admit_helper(int host) {
  if (host < 0 || static_cast<size_t>(host) >= helpers_.size())
    return PermissionDenied("no helper of host index " + std::to_string(host) + " in this job");
  const Helper& h = helpers_[static_cast<size_t>(host)];
  if (h.connected || h.gone) return PermissionDenied("the helper of host " + h.host + " connected before");
  return Status::Ok();
}

void RemoteStarter::on_helper_connected(int host) {
  helpers_[static_cast<size_t>(host)].connected = true;
  log::debug("the helper on host %s connected", helpers_[static_cast<size_t>(host)].host.c_str());
}

Status RemoteStarter::protocol_error(int host, const std::string& what) {
  helper_failed(host, "broke the helper protocol: " + what);
  return ProtocolError(what);
}

void RemoteStarter::on_helper_frame(int host, oob::Frame& f) {
  auto find = [&](uint32_t rank, const char* what) -> Remote* {
    auto it = ranks_.find(static_cast<int>(rank));
    if (it == ranks_.end() || it->second.helper != host) {
      (void)protocol_error(host, std::string(what) + " for rank " + std::to_string(rank) + ", not one of its ranks");
      return nullptr;
    }
    return &it->second;
  };
  switch (static_cast<oob::MsgType>(f.type)) {
    case oob::MsgType::kHelperStarted: {
      oob::HelperStartedMsg m;
      if (Status s = oob::decode_helper_started(f.payload, &m); !s.ok()) return (void)protocol_error(host, s.message());
      Remote* r = find(m.rank, "HELPER_STARTED");
      if (r == nullptr) return;
      r->started = m;
      r->answered = true;
      return;
    }
    case oob::MsgType::kHelperOutput: {
      oob::HelperOutputMsg m;
      if (Status s = oob::decode_helper_output(f.payload, &m); !s.ok()) return (void)protocol_error(host, s.message());
      Remote* r = find(m.rank, "HELPER_OUTPUT");
      if (r == nullptr) return;
      Stream& st = m.stream == oob::kHelperStdout ? r->out : r->err;
      if (!st.w.valid()) return;
      if (m.data.empty()) {
        close_stream(st);
        return;
      }
      st.queue += m.data;
      write_stream(st);
      return;
    }
    case oob::MsgType::kHelperExit: {
      oob::HelperExitMsg m;
      if (Status s = oob::decode_helper_exit(f.payload, &m); !s.ok()) return (void)protocol_error(host, s.message());
      Remote* r = find(m.rank, "HELPER_EXIT");
      if (r == nullptr || r->exited) return;
      r->exited = true;
      // A rank that ended at once may report its exit in the same read as
      // its start, before start() has returned its pid to the Job: start()
      // delivers it then.
      if (!r->returned) {
        r->exit_pending = true;
        r->exit_status = m.wait_status;
        return;
      }
      host_->rank_exited(static_cast<int>(m.rank), m.wait_status);
      return;
    }
    case oob::MsgType::kHelperUnknown: {
      oob::SeqMsg m;
      (void)oob::decode_seq(f.payload, &m);
      helper_failed(host, "does not know the message " + oob::msg_type_name(static_cast<uint16_t>(m.seq)) +
                              " (an older lazarus on that host?)");
      return;
    }
    default:
      (void)protocol_error(host, "unexpected " + oob::msg_type_name(f.type) + " message");
  }
}

bool RemoteStarter::child_exited(pid_t pid, int wait_status) {
  for (Agent& a : agents_) {
    if (a.pid != pid) continue;
    a.pid = -1;
    a.status = wait_status;
    return true;
  }
  return false;
}

bool RemoteStarter::owns_child(pid_t pid) const {
  for (const Agent& a : agents_)
    if (a.pid == pid) return true;
  return false;
}

void RemoteStarter::on_helper_closed(int host, const Status& why) {
  helper_failed(host, "closed its connection to the launcher (" + why.message() + ")");
}

void RemoteStarter::write_stream(Stream& s) {
  while (!s.queue.empty() && s.w.valid()) {
    ssize_t n = ::write(s.w.get(), s.queue.data(), s.queue.size());
    if (n > 0) {
      s.queue.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      Stream* sp = &s;
      host_->loop().watch(s.w.get(), POLLOUT, [this, sp](short) { write_stream(*sp); });
      return;
    }
    // EPIPE: the Job stopped reading this rank's output.
    s.queue.clear();
    break;
  }
  if (s.w.valid()) host_->loop().unwatch(s.w.get());
  if (s.eof) close_stream(s);
}

void RemoteStarter::close_stream(Stream& s) {
  s.eof = true;
  if (!s.queue.empty() && s.w.valid()) return;  // write_stream() closes it once written
  if (s.w.valid()) {
    host_->loop().unwatch(s.w.get());
    s.w.reset();
  }
}

}  // namespace lz::launcher
