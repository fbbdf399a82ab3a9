#include "launcher/job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string_view>

#include "launcher/live_children.h"
#include "launcher/output_options.h"
#include "launcher/slurm_allocation.h"
#include "lazarus/auth.h"
#include "lazarus/log.h"
#include "lazarus/unique_fd.h"
#include "lazarus/userns/pid_namespace.h"

namespace lz::launcher {

namespace {

// What the ranks that read the job's input get as stdin. A regular file is
// opened again by its path here, at the offset the launcher's stdin has:
// the rank then holds a descriptor on a mount of its own mount namespace,
// which CRIU can save (one inherited from a shell outside `unshare --mount`
// it cannot: "Can't lookup mount"). A pipe or socket is handed on as it is
// (`producer | mpirun ...`). Invalid for a terminal (or nothing): those
// ranks read /dev/null, and the terminal stays the user's.
UniqueFd input_file() {
  struct stat st {};
  if (fstat(STDIN_FILENO, &st) != 0) return UniqueFd();
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return UniqueFd(fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3));
  if (!S_ISREG(st.st_mode)) return UniqueFd();
  char path[4096];
  const ssize_t n = readlink("/proc/self/fd/0", path, sizeof path - 1);
  if (n <= 0) return UniqueFd();
  path[n] = '\0';
  UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
  struct stat again {};
  if (!fd.valid() || fstat(fd.get(), &again) != 0 || again.st_ino != st.st_ino) return UniqueFd();
  const off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);
  if (at > 0) lseek(fd.get(), at, SEEK_SET);
  return fd;
}

// How long a rank whose OOB connection closed unexpectedly has to exit
// before the launcher calls it lost: its exit status, when it comes, says
// more than "connection closed".
constexpr double kLostGrace = 2.0;
// How long output pipes may stay open after every rank exited (held open by
// a rank's orphaned children) before the launcher stops reading them.
constexpr double kDrainGrace = 2.0;
// The abort code of a rank that ended the job because a peer died
// (MPI_ERR_PROC_FAILED of mpi.h).
constexpr int kAbortPeerFailed = 20;

std::string signal_name(int sig) {
  const char* a = sigabbrev_np(sig);
  return a ? std::string("SIG") + a : "signal " + std::to_string(sig);
}

}  // namespace

Job::Job(JobSpec spec, RankStarter& starter) : spec_(std::move(spec)), starter_(starter) {}

Job::~Job() {
  // Never leave ranks behind, whatever path got us here. Remote ranks are
  // killed by their helpers when the OOB listener closes with us.
  for (auto& r : ranks_)
    if (r.running() && !r.remote) kill(-r.pid, SIGKILL);
}

void Job::say(const std::string& line) const {
  // A job srun started: its coordinator speaks (on rank 0's stderr).
  std::string s = (starter_.adopted() ? "lazarus coordinate: " : "lazarus run: ") + line + "\n";
  write_fully(STDERR_FILENO, s.data(), s.size());
}

Status Job::setup_signals() {
  // Orphaned descendants of the ranks become our children, so nothing of the
  // job outlives it unreaped (and PIDs are freed for a restart).
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  // Slurm's --signal / scancel --signal=USR1: a checkpoint (ranks it
  // reaches pass it on to this process: coordinator_link.h).
  if (starter_.adopted()) sigaddset(&set, SIGUSR1);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return ErrnoError("sigprocmask", errno);
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) return ErrnoError("signalfd", errno);
  signal_fd_.reset(fd);
  loop_.watch(fd, POLLIN, [this](short) { on_signal_fd(); });
  return Status::Ok();
}

std::vector<std::string> Job::rank_env(const RankProcess& r) const {
  std::vector<std::string> env = spec_.app_of(r.rank).env;
  env.push_back("LZ_JOB_ID=" + spec_.job_id);
  env.push_back("LZ_APPNUM=" + std::to_string(spec_.rank_app[static_cast<size_t>(r.rank)]));
  env.push_back("LZ_UNIVERSE_SIZE=" +
                std::to_string(spec_.universe_size > 0 ? spec_.universe_size : static_cast<int>(ranks_.size())));
  env.push_back("LZ_RANK=" + std::to_string(r.rank));
  env.push_back("LZ_SIZE=" + std::to_string(ranks_.size()));
  env.push_back("LZ_LOCAL_RANK=" + std::to_string(r.place.local_rank));
  env.push_back("LZ_LOCAL_SIZE=" + std::to_string(r.place.local_size));
  env.push_back("LZ_NODE_ID=" + std::to_string(r.place.node_id));
  env.push_back("LZ_HOSTNAME=" + r.place.host);
  env.push_back("LZ_OOB_ADDR=" + oob_address_);
  return env;
}

Status Job::start_ranks() {
  // Refuse a host we cannot start on before starting anything.
  for (const auto& r : ranks_) LZ_RETURN_IF_ERROR(starter_.can_start_on(r.place.host));
  std::vector<std::string> hosts;
  for (const auto& r : ranks_) hosts.push_back(r.place.host);
  for (const auto& h : spec_.spare_hosts) hosts.push_back(h);  // their helpers wait for moved ranks
  // A remote start runs the event loop while it waits for its helper: a rank
  // started before may end meanwhile, and the job is not over for that.
  starting_ = true;
  struct Done {
    bool& flag;
    ~Done() { flag = false; }
  } done{starting_};
  LZ_RETURN_IF_ERROR(starter_.begin(*this, hosts));
  const UniqueFd input = input_file();
  for (auto& r : ranks_) {
    // A rank that failed while others were being started (they run the
    // event loop while they wait for a helper) stops the job: start no more.
    if (stopping_) break;
    RankSpec rs;
    rs.rank = r.rank;
    rs.host = r.place.host;
    rs.argv = spec_.app_of(r.rank).argv;
    rs.cwd = spec_.app_of(r.rank).cwd;
    rs.env = rank_env(r);
    rs.secret = secret_;
    rs.cpus = r.place.cpus;
    // Rank 0 (--stdin: another, all or none) reads the job's input, as
    // under Open MPI; from a file, a core image records the file and its
    // offset, so a restored rank reads on where it stopped.
    const bool reads = std::find(spec_.stdin_ranks.begin(), spec_.stdin_ranks.end(), r.rank) != spec_.stdin_ranks.end();
    rs.stdin_fd = reads ? input.get() : -1;
    LZ_RETURN_IF_ERROR(open_output(r));
    r.starting = true;
    auto started = starter_.start(rs);
    r.starting = false;
    if (!started.ok()) return started.status().with_context("cannot start rank " + std::to_string(r.rank));
    r.pid = started->pid;
    r.remote = starter_.is_remote(r.place.host);
    r.out = std::move(started->out);
    r.err = std::move(started->err);
    watch_output(r);
  }
  return Status::Ok();
}

Status Job::open_output(RankProcess& r) {
  if (r.files.out.valid() || r.files.err.valid()) return Status::Ok();  // a restored or moved rank: the same files
  LZ_ASSIGN_OR_RETURN(r.files, open_output_files(spec_.output, r.rank, r.place.host));
  return Status::Ok();
}

void Job::watch_output(RankProcess& r) {
  if (!r.out.valid() && !r.err.valid()) return;  // adopted: its process manager has its output
  const OutputSpec& o = spec_.output;
  const std::string tag = "[" + spec_.job_id + "," + std::to_string(r.rank) + "]";
  const std::string rank = o.prepend_rank ? "[" + std::to_string(r.rank) + "] " : "";
  const int out_dst = r.files.out_only ? -1 : STDOUT_FILENO;
  const int err_dst = r.files.err_only ? -1 : (o.merge_stderr ? STDOUT_FILENO : STDERR_FILENO);
  r.out_fwd = std::make_unique<OutputForwarder>(out_dst, rank + (o.tag ? tag + "<stdout>:" : ""), o.timestamp,
                                                r.files.out.get());
  r.err_fwd = std::make_unique<OutputForwarder>(err_dst, rank + (o.tag ? tag + "<stderr>:" : ""), o.timestamp,
                                                r.files.err.get());
  RankProcess* rp = &r;
  loop_.watch(r.out.get(), POLLIN, [this, rp](short) { on_output(*rp, false); });
  loop_.watch(r.err.get(), POLLIN, [this, rp](short) { on_output(*rp, true); });
}

void Job::close_output(RankProcess& r) {
  for (bool is_err : {false, true}) {
    oob::Fd& fd = is_err ? r.err : r.out;
    if (!fd.valid()) continue;
    on_output(r, is_err);  // what the ended process wrote last
    if (!fd.valid()) continue;
    (is_err ? r.err_fwd : r.out_fwd)->finish();
    loop_.unwatch(fd.get());
    fd.reset();
  }
}

Status Job::can_restore_on(const std::string& host) const {
  if (mover_ == nullptr)
    return Unavailable("job " + spec_.job_id + " cannot move ranks: its cr component (" + spec_.cr_component +
                       ") can move no rank; migration needs cr=criu or cr=app");
  return mover_->can_restore_on(host);
}

Placement Job::place_on(int rank, const std::string& host) const {
  Placement place = ranks_[static_cast<size_t>(rank)].place;
  if (place.host == host) return place;
  // Another host of the job: its node id, so that peers pick the right
  // transport (shm only within a host).
  place.host = host;
  uint64_t fresh = 0;
  bool found = false;
  for (const auto& o : ranks_) {
    fresh = std::max(fresh, o.place.node_id + 1);
    if (o.place.host == host) place.node_id = o.place.node_id, found = true;
  }
  if (!found) place.node_id = fresh;  // a host new to the job
  return place;
}

void Job::announce_move(int rank, const std::string& host) {
  const Placement place = place_on(rank, host);
  server_->set_place(rank, place.node_id, place.host);
}

Status Job::restore_rank(int rank, const std::string& host, const std::string& images_dir) {
  if (mover_ == nullptr) return can_restore_on(host);
  if (stopping_) return Status(Code::kAborted, "the job is stopping");
  RankProcess& r = ranks_[static_cast<size_t>(rank)];
  if (r.running()) return Internal("rank " + std::to_string(rank) + " still runs; it cannot be restored");
  const Placement place = place_on(rank, host);
  RankSpec rs;
  rs.rank = rank;
  rs.host = host;
  rs.argv = spec_.app_of(rank).argv;
  rs.cwd = spec_.app_of(rank).cwd;
  {
    RankProcess tmp;
    tmp.rank = rank;
    tmp.place = place;
    rs.env = rank_env(tmp);
  }
  rs.secret = secret_;
  rs.cpus = place.cpus;
  // It reconnect()s, as after its dump; a rank restored by another host's
  // helper may do so before the helper's answer reaches us (the restore
  // waits in a nested event loop), so it is admitted from now on.
  r.starting = true;
  r.detached = true;
  auto restored = mover_->restore(rs, images_dir);
  r.starting = false;
  LZ_RETURN_IF_ERROR(restored.status());
  StartedRank started = std::move(*restored);
  close_output(r);
  r.place = place;
  server_->set_place(rank, place.node_id, place.host);
  r.pid = started.pid;
  r.remote = mover_->is_remote(host);
  r.out = std::move(started.out);
  r.err = std::move(started.err);
  watch_output(r);
  r.exited = false;
  r.wait_status = 0;
  ++r.moves;
  write_job_file();
  return Status::Ok();
}

std::string Job::job_json() const {
  nlohmann::ordered_json j;
  j["job_id"] = spec_.job_id;
  j["launcher_pid"] = spec_.registry_pid > 0 ? spec_.registry_pid : getpid();
  j["np"] = ranks_.size();
  // The programs as mpirun's MPMD syntax writes them: "a x : b y".
  std::vector<std::string> command;
  for (const JobApp& a : spec_.apps) {
    if (!command.empty()) command.emplace_back(":");
    command.insert(command.end(), a.argv.begin(), a.argv.end());
  }
  j["command"] = command;
  j["launcher_command"] = spec_.command_line;
  if (!spec_.manager_job.empty()) j["manager_job"] = spec_.manager_job;
  j["oob_address"] = oob_address_;
  if (control_) j["control_socket"] = control_->path();
  if (cr_ && !cr_->store_dir().empty()) j["snapshot_store"] = cr_->store_dir();
  else if (!spec_.snapshot_root.empty())
    j["snapshot_store"] = spec_.snapshot_root + "/" + spec_.record.name + "." + spec_.record.id;
  j["last_snapshot"] = cr_ ? cr_->last_snapshot() : std::string();
  j["cr"] = spec_.cr_component;
  if (spec_.restored) j["restored_from"] = spec_.restored_dir;
  char cwd[4096] = "";
  if (getcwd(cwd, sizeof cwd) != nullptr) j["cwd"] = cwd;
  j["start_time"] = static_cast<int64_t>(std::time(nullptr));
  j["ranks"] = nlohmann::json::array();
  for (const auto& r : ranks_)
    j["ranks"].push_back({{"rank", r.rank},
                          {"pid", r.remote ? r.pid : userns::outer_pid_of(r.pid)},
                          {"host", r.place.host},
                          {"moves", r.moves}});
  return j.dump(2) + "\n";
}

void Job::write_job_file() {
  if (job_file_) {
    if (Status s = job_file_->update(job_json()); !s.ok()) log::warn("job registry: %s", s.message().c_str());
    return;
  }
  auto f = JobFile::create(spec_.job_id, job_json());
  if (!f.ok()) {
    // The job runs without it; only later `lazarus ps`/`checkpoint` miss it.
    log::warn("job registry: %s", f.status().message().c_str());
    return;
  }
  job_file_.emplace(std::move(*f));
}

int Job::run() {
  secret_ = spec_.secret.empty() ? auth::new_secret() : spec_.secret;
  // Inside a Slurm allocation (a batch script's `lazarus restart`) the job
  // answers to the allocation's name as well.
  if (spec_.manager_job.empty()) spec_.manager_job = slurm_job_name();
  if (Status s = setup_signals(); !s.ok()) {
    say(s.message());
    return 1;
  }
  ranks_.resize(spec_.placement.size());
  tree_ = std::make_unique<SpawnTree>(
      loop_, [this](int rank, oob::MsgType t, const std::string& p) { server_->send(rank, t, p); },
      [this](const std::string& why) { fail(1, why); });
  if (Status s = tree_->adopt_parent_from_env(); !s.ok()) {
    say(s.message());
    return 1;
  }
  // A spawned job that fails by itself takes this job down as a rank's
  // death would (and --recover auto restarts the whole tree from its last
  // snapshot); not when it only ended because this job stopped it, unless
  // a rank here aborted because a peer died (one of the spawned job's).
  auto spawned_failed = [this](int code, const std::string& why, bool stopped_here) {
    if ((!stopped_here || peer_failure_abort_) && rank_death_.empty()) rank_death_ = why;
    fail(code, why);
  };
  spawned_ = std::make_unique<SpawnedJobs>(
      spec_.job_id, spawned_failed, [this](pid_t pid, UniqueFd link, const std::vector<std::string>& env) {
        tree_->add_child(pid, std::move(link));
        // Under cr=app its snapshots belong to this job's after the epoch it starts in.
        static constexpr std::string_view kEpoch = "LZ_CR_APP_EPOCH=";
        for (const std::string& e : env)
          if (e.rfind(kEpoch, 0) == 0)
            cr_->app_child_started(pid, std::strtoull(e.c_str() + kEpoch.size(), nullptr, 10));
      });
  modex_ = std::make_unique<ModexServer>(static_cast<int>(spec_.placement.size()), spec_.restored);
  cr_ = std::make_unique<CheckpointCoordinator>(spec_, loop_, static_cast<CheckpointCoordinator::Host&>(*this));
  cr_->set_tree(tree_.get());
  tree_->set_handler(cr_.get());
  oob::WelcomeMsg welcome;
  welcome.job_id = spec_.job_id;
  welcome.size = static_cast<uint32_t>(ranks_.size());
  for (size_t i = 0; i < ranks_.size(); ++i) {
    ranks_[i].rank = static_cast<int>(i);
    ranks_[i].place = spec_.placement[i];
    ranks_[i].restored = spec_.restored;
    welcome.node_of_rank.push_back(spec_.placement[i].node_id);
    welcome.hostname_of_rank.push_back(spec_.placement[i].host);
  }
  OobServer::Callbacks cb;
  cb.admit = [this](int rank, uint32_t flags) { return admit(rank, flags); };
  cb.admit_helper = [this](int host) { return starter_.admit_helper(host); };
  cb.on_helper_connected = [this](int host) { starter_.on_helper_connected(host); };
  cb.on_helper_frame = [this](int host, oob::Frame& f) { starter_.on_helper_frame(host, f); };
  cb.on_helper_closed = [this](int host, const Status& why) { starter_.on_helper_closed(host, why); };
  cb.on_connected = [this](int rank, uint32_t flags) { on_connected(rank, flags); };
  cb.on_frame = [this](int rank, oob::Frame& f) { on_frame(rank, f); };
  cb.on_closed = [this](int rank, const Status& why) { on_oob_closed(rank, why); };
  server_ = std::make_unique<OobServer>(loop_, spec_.job_id, secret_, std::move(welcome), spec_.handshake_timeout,
                                        std::move(cb));
  server_->set_helper_keepalive(spec_.helper_keepalive);
  // Adopted ranks are the coordinator's only view of their hosts.
  if (starter_.adopted()) server_->set_rank_keepalive(spec_.helper_keepalive);
  if (Status s = server_->listen(spec_.bind_address); !s.ok()) {
    say("cannot open the OOB listener: " + s.message());
    return 1;
  }
  const std::string& h = spec_.advertised_host;
  oob_address_ = (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" +
                 std::to_string(server_->bound_address().port());
  log::debug("job %s: OOB listener on %s, ranks use %s", spec_.job_id.c_str(),
             server_->bound_address().to_string().c_str(), oob_address_.c_str());
  if (spec_.address_fd >= 0) {
    const std::string line = oob_address_ + " " + std::to_string(getpid()) + "\n";
    if (write(spec_.address_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      log::warn("cannot tell the ranks the OOB address: %s", std::strerror(errno));
    close(spec_.address_fd);
    spec_.address_fd = -1;
  }

  Status started = start_ranks();
  if (started.ok()) started = restart_spawned();
  if (!started.ok()) {
    const Status& s = started;
    fail(s.code() == Code::kNotFound ? 127 : s.code() == Code::kPermissionDenied ? 126 : 1, s.message());
  } else {
    // The control socket lives next to the job file (same private directory).
    control_ = std::make_unique<ControlServer>(loop_,
                                               [this](uint64_t c, const std::string& l) { cr_->on_control(c, l); });
    if (Status s = JobFile::ensure_directory(); !s.ok() ||
        !(s = control_->listen(JobFile::directory() + "/" + spec_.job_id + ".sock")).ok()) {
      log::warn("no control socket for job %s (`lazarus checkpoint` cannot reach it): %s", spec_.job_id.c_str(),
                s.message().c_str());
      control_.reset();
    }
    cr_->set_control(control_.get());
    write_job_file();
    cr_->start();
    if (spec_.timeout > 0) {
      loop_.add_timer(oob::deadline_in(spec_.timeout), [this] {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", spec_.timeout);
        fail(kTimeoutExitCode, "job " + spec_.job_id + " exceeded its --timeout of " + buf + " s");
      });
    }
  }
  maybe_finish();
  if (Status s = loop_.run(); !s.ok()) {
    say("event loop failed: " + s.message());
    for (auto& r : ranks_)
      if (r.running()) starter_.signal(r.rank, r.pid, SIGKILL);
    spawned_->signal_all(SIGKILL);
    return 1;
  }
  for (auto& r : ranks_) {
    if (r.out_fwd) r.out_fwd->finish();
    if (r.err_fwd) r.err_fwd->finish();
  }
  cr_->shutdown();
  cr_->set_control(nullptr);
  control_.reset();
  server_.reset();
  job_file_.reset();
  return exit_code_;
}

void Job::on_signal_fd() {
  signalfd_siginfo si;
  while (read(signal_fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    int sig = static_cast<int>(si.ssi_signo);
    if (sig == SIGCHLD) {
      reap();
      continue;
    }
    if (sig == SIGUSR1) {
      if (!stopping_) cr_->request_checkpoint("SIGUSR1");
      continue;
    }
    ++signals_seen_;
    if (signals_seen_ > 1) {
      say("received " + signal_name(sig) + " again; killing the job now");
      kill_remaining();
      continue;
    }
    if (!stopping_) {
      stopping_ = true;
      exit_code_ = 128 + sig;
      say("received " + signal_name(sig) + "; forwarding it to the ranks and stopping the job");
    }
    stop_ranks(sig);
  }
  reap();  // a SIGCHLD may have been merged with another signal's wake-up
}

void Job::reap() {
  for (;;) {
    int st = 0;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) break;
    // A spawned job's launcher: forgotten, or the job fails with it.
    if (spawned_ && spawned_->child_exited(pid, st)) {
      tree_->drop_child(pid);
      maybe_finish();
      continue;
    }
    bool rank = false;
    for (auto& r : ranks_) {
      if (r.pid == pid && !r.remote && !r.exited) {
        r.exited = true;
        r.wait_status = st;
        on_rank_exit(r);
        rank = true;
        break;
      }
    }
    // Other pids: exec failures already reported, or orphans we adopted as
    // subreaper. An adopted orphan that led a process group takes the rest
    // of its group with it: a criu service (it leads its own session) killed
    // mid-dump leaves children of its own stopped for ever, and they hold the
    // service socket open, so the rank waiting for criu's answer would wait
    // for ever too. ESRCH when no such group is left.
    if (!rank && !starter_.child_exited(pid, st)) kill(-pid, SIGKILL);
  }
}

bool Job::has_transient_children() const {
  // /proc/self/task/<tid>/children lists each thread's children; the
  // starter's own (a remote host's launch agent) live as long as the job,
  // and so may spawned jobs' launchers.
  auto lasting = [this](pid_t pid) { return starter_.owns_child(pid) || (spawned_ && spawned_->owns(pid)); };
  const std::optional<bool> other = any_live_child([&](pid_t pid) { return !lasting(pid); });
  if (!other) {
    siginfo_t si{};
    return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
  }
  if (*other) return true;
  // An exited child not yet reaped is no longer listed as running there.
  siginfo_t si{};
  return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0 && !lasting(si.si_pid);
}

void Job::on_rank_exit(RankProcess& r) {
  if (r.lost_timer) {
    loop_.cancel_timer(r.lost_timer);
    r.lost_timer = 0;
  }
  if (r.connected) {
    server_->close_rank(r.rank);
    r.connected = false;
  }
  // After GO of a --term checkpoint a rank ends once saved (cr/criu kills the
  // dumped process): not a failure.
  const bool term_exit = cr_->terminating() || cr_->expects_exit(r.rank);
  cr_->on_rank_lost(r.rank, r.describe() + " " + r.exit_text());
  // A peer saw this rank die before we did and aborted the job for it
  // (MPI_ERR_PROC_FAILED): the death is still the cause (for --recover),
  // unless the signal is the one that stopping sends.
  if (stopping_ && !term_exit && peer_failure_abort_ && rank_death_.empty() && WIFSIGNALED(r.wait_status) &&
      WTERMSIG(r.wait_status) != SIGTERM && kill_timer_ != 0)
    rank_death_ = "rank " + std::to_string(r.rank) + " died (signal " + std::to_string(WTERMSIG(r.wait_status)) + ")";
  if (!stopping_ && !term_exit) {
    if (WIFSIGNALED(r.wait_status) || WEXITSTATUS(r.wait_status) != 0) {
      rank_death_ = "rank " + std::to_string(r.rank) + " died (" +
                    (WIFSIGNALED(r.wait_status) ? "signal " + std::to_string(WTERMSIG(r.wait_status))
                                                : "exit code " + std::to_string(WEXITSTATUS(r.wait_status))) +
                    ")";
      fail(r.exit_code(), r.describe() + " " + r.exit_text());
    } else if (r.ever_connected && !r.finalized) {
      fail(1, r.describe() + " exited with code 0 without calling finalize (MPI_Finalize)");
    } else if (!r.ever_connected && oob_job()) {
      fail(1, r.describe() + " exited with code 0 without connecting to the launcher, while other ranks did "
                             "(it cannot take part in their modex)");
    }
  }
  maybe_finish();
}

void Job::on_output(RankProcess& r, bool is_err) {
  oob::Fd& fd = is_err ? r.err : r.out;
  OutputForwarder& fwd = is_err ? *r.err_fwd : *r.out_fwd;
  char buf[65536];
  for (int i = 0; i < 16; ++i) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      fwd.write(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    fwd.finish();
    loop_.unwatch(fd.get());
    fd.reset();
    maybe_finish();
    return;
  }
}

Status Job::admit(int rank, uint32_t flags) {
  if (stopping_) return Status(Code::kAborted, "the job is stopping");
  RankProcess& r = ranks_[static_cast<size_t>(rank)];
  if (!r.running() && !r.starting) return Unavailable("rank " + std::to_string(rank) + " is not running");
  // A rank that disconnect()ed and reconnects at once (after a checkpoint's
  // GO) may be back before the end of its old connection reached this loop:
  // that connection is done with (the OOB server then forgets it silently).
  const bool back_from_detach = r.detached && (flags & oob::kAuthReconnect);
  if (r.connected && !back_from_detach)
    return PermissionDenied("rank " + std::to_string(rank) + " is already connected");
  if (flags & oob::kAuthReconnect) {
    if (!r.detached && !(r.restored && !r.ever_connected))
      return PermissionDenied("rank " + std::to_string(rank) + " did not disconnect(), so it cannot reconnect");
  } else if (r.ever_connected) {
    return PermissionDenied("rank " + std::to_string(rank) + " connected before; only reconnect() may attach it again");
  }
  return Status::Ok();
}

void Job::on_connected(int rank, uint32_t flags) {
  RankProcess& r = ranks_[static_cast<size_t>(rank)];
  r.connected = true;
  r.ever_connected = true;
  r.detached = false;
  if (flags & oob::kAuthReconnect) log::debug("%s reconnected", r.describe().c_str());
  cr_->on_rank_connected(rank, r.restored);
  if (stopping_) return;
  for (auto& o : ranks_) {
    if (o.exited && !o.ever_connected && o.exit_code() == 0) {
      fail(1, o.describe() + " exited with code 0 without connecting to the launcher, while other ranks did "
                             "(it cannot take part in their modex)");
      return;
    }
  }
}

void Job::on_frame(int rank, oob::Frame& f) {
  RankProcess& r = ranks_[static_cast<size_t>(rank)];
  using oob::MsgType;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kFence:
      on_fence(r, f);
      return;
    case MsgType::kBarrier:
      on_barrier(r, f);
      return;
    case MsgType::kAbort: {
      oob::AbortMsg a;
      if (Status s = oob::decode_abort(f.payload, &a); !s.ok()) {
        fail(1, r.describe() + " broke the OOB protocol: " + s.message());
        return;
      }
      if (a.code == kAbortPeerFailed) peer_failure_abort_ = true;
      fail(a.code, r.describe() + " called abort with code " + std::to_string(a.code) +
                       (a.reason.empty() ? "" : ": " + a.reason));
      return;
    }
    case MsgType::kFinalize:
      r.finalized = true;
      server_->send(rank, MsgType::kFinalizeAck, "");
      return;
    case MsgType::kDisconnect:
      r.detached = true;
      server_->send(rank, MsgType::kDisconnectAck, "");
      return;
    case MsgType::kSpawnRequest:
      on_spawn(r, f);
      return;
    case MsgType::kBridgeFence:
      tree_->on_rank_fence(rank, f.payload);
      return;
    default:
      break;
  }
  if (f.type >= static_cast<uint16_t>(MsgType::kCheckpointRequest) &&
      f.type <= static_cast<uint16_t>(MsgType::kCrReservedLast)) {
    cr_->on_frame(rank, f);
    return;
  }
  fail(1, r.describe() + " broke the OOB protocol: unexpected " + oob::msg_type_name(f.type) + " message");
  server_->close_rank(rank);
}

Status Job::restart_spawned() {
  if (spec_.restored_dir.empty()) return Status::Ok();
  // None listed: it had spawned none, or none ran any more.
  if (!spec_.restored) {
    // cr=app: the program runs again from main and spawns them again; each
    // MPI_Comm_spawn of it resumes the next of them (on_spawn).
    respawn_ = read_snapshot_list(spec_.restored_dir, kSpawnedFile);
    return Status::Ok();
  }
  for (const std::string& snap : read_snapshot_list(spec_.restored_dir, kSpawnedFile))
    LZ_RETURN_IF_ERROR(spawned_->restart(snap).with_context("restarting the job spawned into " + snap));
  return Status::Ok();
}

void Job::on_fence(RankProcess& r, const oob::Frame& f) {
  answer_round(r, modex_->on_fence(r.rank, r.restored, f.payload), oob::MsgType::kFenceDone);
}

void Job::on_barrier(RankProcess& r, const oob::Frame& f) {
  answer_round(r, modex_->on_barrier(r.rank, r.restored, f.payload), oob::MsgType::kBarrierDone);
}

void Job::on_spawn(RankProcess& r, const oob::Frame& f) {
  oob::SpawnRequestMsg req;
  if (Status s = oob::decode_spawn_request(f.payload, &req); !s.ok()) {
    fail(1, r.describe() + " broke the OOB protocol: " + s.message());
    return;
  }
  oob::SpawnReplyMsg rep;
  if (stopping_) {
    rep = {req.seq, 0, "the job is stopping: it starts no new job"};
  } else {
    // Apps without info "host"/"hostfile" go where this job's ranks are now.
    std::vector<Placement> where;
    for (const auto& rank : ranks_) where.push_back(rank.place);
    const int size = static_cast<int>(ranks_.size());
    std::string resume;
    if (!respawn_.empty()) {
      resume = respawn_.front();
      respawn_.erase(respawn_.begin());
      log::debug("%s: this spawn resumes the job of snapshot %s", r.describe().c_str(), resume.c_str());
    }
    rep = spawned_->start(r.rank, req, parent_host_list(where, is_local_host),
                          spec_.universe_size > 0 ? spec_.universe_size : size, size, resume);
    if (!rep.ok) log::debug("%s: spawn refused: %s", r.describe().c_str(), rep.message.c_str());
  }
  server_->send(r.rank, oob::MsgType::kSpawnReply, oob::encode_spawn_reply(rep));
}

void Job::answer_round(RankProcess& r, const StatusOr<std::optional<std::string>>& done, oob::MsgType answer) {
  if (!done.ok()) {
    if (done.status().code() == Code::kProtocol)
      fail(1, r.describe() + " broke the OOB protocol: " + done.status().message());
    else
      fail(1, done.status().message());
    return;
  }
  if (!*done) return;
  server_->broadcast(answer, **done);
  server_->set_rounds(modex_->fences_done(), modex_->barriers_done());
}

void Job::on_oob_closed(int rank, const Status& why) {
  RankProcess& r = ranks_[static_cast<size_t>(rank)];
  r.connected = false;
  if (starter_.adopted() && !r.detached && r.running()) {
    // All the coordinator sees of an adopted rank's end.
    if (r.finalized || stopping_) {
      rank_exited(rank, r.finalized ? 0 : SIGKILL);
    } else {
      // A plain close: the process ended. Else its host fell silent
      // (keepalive) or the connection broke.
      ranks_lost({rank},
                 why.code() == Code::kAborted
                     ? r.describe() + " ended without MPI_Finalize (its connection to the job's coordinator closed)"
                     : r.describe() + " is unreachable (its connection to the job's coordinator failed: " +
                           why.message() + "; is its host down?)");
    }
    return;
  }
  if (r.finalized || r.detached || stopping_ || r.exited) return;
  if (why.code() == Code::kProtocol) {
    fail(1, r.describe() + " broke the OOB protocol: " + why.message());
    return;
  }
  RankProcess* rp = &r;
  r.lost_timer = loop_.add_timer(oob::deadline_in(kLostGrace), [this, rp] {
    rp->lost_timer = 0;
    if (!rp->exited) fail(1, rp->describe() + " closed its OOB connection without calling finalize");
  });
}

bool Job::oob_job() const {
  for (const auto& r : ranks_)
    if (r.ever_connected) return true;
  return false;
}

void Job::send(int rank, oob::MsgType type, const std::string& payload) { server_->send(rank, type, payload); }

void Job::send_helper(int host, oob::MsgType type, const std::string& payload) {
  if (server_) server_->send_helper(host, type, payload);
}

void Job::rank_exited(int rank, int wait_status) {
  if (rank < 0 || static_cast<size_t>(rank) >= ranks_.size()) return;
  RankProcess& r = ranks_[static_cast<size_t>(rank)];
  if (!r.running()) return;
  r.exited = true;
  r.wait_status = wait_status;
  on_rank_exit(r);
}

void Job::ranks_lost(const std::vector<int>& ranks, const std::string& why) {
  std::string names;
  for (int rank : ranks) names += (names.empty() ? "" : ", ") + std::to_string(rank);
  for (int rank : ranks) {
    const std::string& host = ranks_[static_cast<size_t>(rank)].place.host;
    if (std::find(lost_hosts_.begin(), lost_hosts_.end(), host) == lost_hosts_.end()) lost_hosts_.push_back(host);
  }
  // A peer may have seen the lost ranks' connections break and aborted the
  // job for it (MPI_ERR_PROC_FAILED) before the helper's end reached us: the
  // loss is still the cause (for --recover).
  if ((!stopping_ || peer_failure_abort_) && rank_death_.empty())
    rank_death_ = "rank " + std::to_string(ranks.front()) + " died (" + why + ")";
  fail(1, why + "; lost rank" + (ranks.size() > 1 ? "s " : " ") + names);
  for (int rank : ranks) {
    RankProcess& r = ranks_[static_cast<size_t>(rank)];
    if (!r.running()) continue;
    r.exited = true;
    r.wait_status = SIGKILL;  // as waitpid() says "killed by SIGKILL"
    on_rank_exit(r);
  }
}

void Job::broadcast(oob::MsgType type, const std::string& payload) { server_->broadcast(type, payload); }

void Job::stop_after_checkpoint() {
  if (stopping_) return;
  stopping_ = true;
  exit_code_ = 0;
  stop_ranks(SIGTERM);
}

void Job::fail(int exit_code, const std::string& message) {
  if (stopping_) return;
  stopping_ = true;
  exit_code_ = exit_code;
  std::string newest;
  if (starter_.adopted() && cr_ && !cr_->last_snapshot().empty())
    newest = " (newest snapshot: " + cr_->last_snapshot() + "; lazarus restart it)";
  say(message + "; stopping the job" + newest);
  if (server_) server_->broadcast(oob::MsgType::kError, oob::encode_error({"the job is stopping: " + message}));
  stop_ranks(SIGTERM);
}

void Job::stop_ranks(int sig) {
  for (auto& r : ranks_) {
    if (!r.running()) continue;
    starter_.signal(r.rank, r.pid, sig);
  }
  // Their launchers stop their ranks in turn.
  spawned_->signal_all(SIGTERM);
  if (kill_timer_ == 0)
    kill_timer_ = loop_.add_timer(oob::deadline_in(spec_.kill_grace), [this] {
      kill_timer_ = 0;
      kill_remaining();
    });
  maybe_finish();
}

void Job::kill_remaining() {
  for (auto& r : ranks_)
    if (r.running()) starter_.signal(r.rank, r.pid, SIGKILL);
  // Adopted ranks on other hosts are their process manager's to end.
  if (starter_.adopted())
    for (auto& r : ranks_)
      if (r.running()) rank_exited(r.rank, SIGKILL);
  spawned_->signal_all(SIGKILL);
}

void Job::maybe_finish() {
  // A --term checkpoint commits after its ranks ended.
  if (cr_->holds_finish() || starting_) return;
  for (const auto& r : ranks_)
    if (r.running()) return;
  // A job ends after the jobs it spawned (their ranks may still talk to it).
  if (spawned_->running()) return;
  bool pipes_open = false;
  for (const auto& r : ranks_) pipes_open |= r.out.valid() || r.err.valid();
  if (!pipes_open) {
    loop_.stop();
    return;
  }
  if (drain_timer_ == 0)
    drain_timer_ = loop_.add_timer(oob::deadline_in(kDrainGrace), [this] {
      for (auto& r : ranks_) {
        for (bool is_err : {false, true}) {
          oob::Fd& fd = is_err ? r.err : r.out;
          // What is already in the pipe is the rank's: it goes out first
          // (reading it may reach the end and close the pipe).
          if (fd.valid()) on_output(r, is_err);
          if (!fd.valid()) continue;
          (is_err ? r.err_fwd : r.out_fwd)->finish();
          loop_.unwatch(fd.get());
          fd.reset();
        }
      }
      drain_timer_ = 0;
      if (spawned_->running()) return;  // a job spawned meanwhile: its end calls maybe_finish again
      loop_.stop();
    });
}

}  // namespace lz::launcher
