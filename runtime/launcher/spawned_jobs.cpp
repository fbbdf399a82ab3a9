#include "launcher/spawned_jobs.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "lazarus/log.h"
#include "lazarus/strings.h"
#include "lazarus/unique_fd.h"
#include "oob/tree_messages.h"

extern char** environ;

namespace lz::launcher {
namespace {

// The variables a launcher sets for its ranks itself: a request may not
// pass its own (the new job's ranks would see two values).
bool is_job_variable_name(const std::string& name) {
  static const char* const kNames[] = {"LZ_JOB_ID",     "LZ_RANK",    "LZ_SIZE",         "LZ_LOCAL_RANK",
                                       "LZ_LOCAL_SIZE", "LZ_NODE_ID", "LZ_HOSTNAME",     "LZ_OOB_ADDR",
                                       "LZ_SECRET_FD",  "LZ_APPNUM",  "LZ_UNIVERSE_SIZE"};
  return std::any_of(std::begin(kNames), std::end(kNames), [&](const char* n) { return name == n; });
}

bool is_variable_name(const std::string& name) {
  if (name.empty() || (std::isdigit(static_cast<unsigned char>(name[0])) != 0)) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

std::string var_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

bool is_mca_entry(const std::string& entry) { return entry.rfind("LZ_MCA_", 0) == 0; }

// `p` made absolute against `base` (unchanged when it is absolute).
std::string absolute(const std::string& p, const std::string& base) {
  if (!p.empty() && p[0] == '/') return p;
  if (p.empty()) return base;
  return base + (base.empty() || base.back() == '/' ? "" : "/") + p;
}

// PATH's entries in order; an empty one is the working directory, as
// execvpe takes it.
std::vector<std::string> path_entries(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// 0: an executable regular file; ENOENT: nothing (or not a file); EACCES: there but not executable.
int probe(const std::string& file) {
  struct stat st {};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return ENOENT;
  return access(file.c_str(), X_OK) == 0 ? 0 : EACCES;
}

std::string app_name(size_t i, const oob::SpawnApp& a) { return "app " + std::to_string(i) + " ('" + a.command + "')"; }

// The hosts the app's ranks may run on, for the decision whether to look
// for its command here; an error for a host list or hostfile that does
// not parse. `hostfile`: the request's (job-wide).
StatusOr<std::vector<HostEntry>> app_hosts(const oob::SpawnApp& a, const std::string& hostfile,
                                           const SpawnContext& ctx) {
  if (!a.host.empty()) return parse_host_option(a.host);
  if (!hostfile.empty()) return parse_hostfile(absolute(hostfile, ctx.cwd));
  if (!ctx.parent_hosts.empty()) return parse_host_option(ctx.parent_hosts);
  return std::vector<HostEntry>{};  // this host
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const char* a = sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) + (a ? std::string(" (SIG") + a + ")" : "");
  }
  return "exited with code " + std::to_string(WEXITSTATUS(wait_status));
}

}  // namespace

std::string parent_host_list(const std::vector<Placement>& placement,
                             const std::function<bool(const std::string&)>& is_local) {
  std::vector<std::string> order;
  std::map<std::string, int> ranks;
  bool all_local = true;
  for (const Placement& p : placement) {
    if (ranks[p.host]++ > 0) continue;
    order.push_back(p.host);
    all_local = all_local && is_local(p.host);
  }
  if (all_local) return "";
  std::vector<std::string> parts;
  for (const std::string& h : order) parts.push_back(h + ":" + std::to_string(ranks[h]));
  return str::join(parts, ",");
}

StatusOr<std::string> find_spawn_command(const oob::SpawnApp& app, const SpawnContext& ctx) {
  const std::string base = app.wdir.empty() ? ctx.cwd : absolute(app.wdir, ctx.cwd);
  const std::string& cmd = app.command;
  if (cmd.find('/') != std::string::npos) {
    const std::string file = absolute(cmd, base);
    const int e = probe(file);
    if (e == 0) return file;
    if (e == EACCES) return PermissionDenied("command '" + cmd + "' (" + file + ") is not executable");
    return NotFound("command '" + cmd + "' not found: no file " + file +
                    (cmd[0] == '/'      ? ""
                     : app.wdir.empty() ? " (relative to the launcher's directory)"
                                        : " (relative to info 'wdir' " + app.wdir + ")"));
  }
  std::string not_executable;
  for (const std::string* list : {&app.path, &ctx.path_env}) {
    if (list->empty() && list == &app.path) continue;
    for (const std::string& dir : path_entries(*list)) {
      const std::string file = absolute(cmd, absolute(dir, base));
      const int e = probe(file);
      if (e == 0) return file;
      if (e == EACCES && not_executable.empty()) not_executable = file;
    }
  }
  if (!not_executable.empty())
    return PermissionDenied("command '" + cmd + "' (" + not_executable + ") is not executable");
  return NotFound("command '" + cmd + "' not found in " +
                  (app.path.empty() ? std::string() : "info 'path' " + app.path + " nor in ") + "PATH " +
                  (ctx.path_env.empty() ? std::string("(empty)") : ctx.path_env) +
                  " (give a path with a '/', or info 'path')");
}

Status check_spawn_request(const oob::SpawnRequestMsg& req, const SpawnContext& ctx) {
  if (req.apps.empty()) return InvalidArgument("the spawn request names no program");
  std::string hostfile;
  size_t hostfile_app = 0;
  for (size_t i = 0; i < req.apps.size(); ++i) {
    const oob::SpawnApp& a = req.apps[i];
    if (a.hostfile.empty()) continue;
    if (hostfile.empty()) {
      hostfile = a.hostfile;
      hostfile_app = i;
    } else if (a.hostfile != hostfile) {
      return InvalidArgument("info 'hostfile' of " + app_name(i, a) + " is '" + a.hostfile + "' but that of " +
                             app_name(hostfile_app, req.apps[hostfile_app]) + " is '" + hostfile +
                             "': the new job has one hostfile; name the same file, or give info 'host' instead");
    }
  }
  for (size_t i = 0; i < req.apps.size(); ++i) {
    const oob::SpawnApp& a = req.apps[i];
    if (a.command.empty()) return InvalidArgument("app " + std::to_string(i) + " of the spawn request has no command");
    if (a.maxprocs < 1 || a.maxprocs > oob::kMaxSpawnProcs)
      return InvalidArgument(app_name(i, a) + ": maxprocs " + std::to_string(a.maxprocs) + " (expected 1 to " +
                             std::to_string(oob::kMaxSpawnProcs) + ")");
    for (const std::string& arg : a.argv)
      if (arg == ":")
        return InvalidArgument(app_name(i, a) +
                               ": an argument ':' cannot be passed (the new job's launcher "
                               "takes ':' for the start of the next program)");
    auto hosts = app_hosts(a, hostfile, ctx);
    if (!hosts.ok()) {
      const std::string which = !a.host.empty()     ? "info 'host' '" + a.host + "'"
                                : !hostfile.empty() ? "info 'hostfile' '" + hostfile + "'"
                                                    : "the job's hosts '" + ctx.parent_hosts + "'";
      return InvalidArgument(app_name(i, a) + ": " + which + ": " + hosts.status().message());
    }
    // Look here only when some of its ranks run here; another host's
    // launcher reports a program it lacks.
    const bool here = hosts->empty() || std::any_of(hosts->begin(), hosts->end(), [&](const HostEntry& h) {
                        return ctx.is_local ? ctx.is_local(h.name) : is_local_host(h.name);
                      });
    if (here) {
      auto found = find_spawn_command(a, ctx);
      if (!found.ok()) return found.status();
    }
  }
  for (const std::string& e : req.env) {
    const size_t eq = e.find('=');
    const std::string name = var_name(e);
    if (eq == std::string::npos || !is_variable_name(name))
      return InvalidArgument("spawn environment entry '" + e +
                             "': expected NAME=VALUE with NAME of letters, digits "
                             "and '_'");
    if (is_job_variable_name(name))
      return InvalidArgument("spawn environment entry '" + e + "': " + name +
                             " is set by the new job's launcher for each of its ranks; pass it under another name");
  }
  return Status::Ok();
}

std::vector<std::string> spawn_launcher_argv(const oob::SpawnRequestMsg& req, const SpawnContext& ctx) {
  std::vector<std::string> argv = {ctx.self_exe, "run"};
  std::string hostfile;
  for (const oob::SpawnApp& a : req.apps)
    if (hostfile.empty()) hostfile = a.hostfile;
  // --hostfile is the job's (runtime/cli/run_args.cpp): before the first program.
  if (!hostfile.empty()) argv.insert(argv.end(), {"--hostfile", hostfile});
  for (size_t i = 0; i < req.apps.size(); ++i) {
    const oob::SpawnApp& a = req.apps[i];
    if (i > 0) argv.push_back(":");
    argv.insert(argv.end(), {"-np", std::to_string(a.maxprocs)});
    if (!a.host.empty())
      argv.insert(argv.end(), {"--host", a.host});
    else if (hostfile.empty() && !ctx.parent_hosts.empty())
      argv.insert(argv.end(), {"--host", ctx.parent_hosts});
    if (!a.wdir.empty()) argv.insert(argv.end(), {"--wdir", a.wdir});
    if (!a.path.empty()) argv.insert(argv.end(), {"--path", a.path});
    // Every rank of the new job sees these, on any host (the launcher puts
    // them in the environment it gives each rank; -x is per program).
    for (const std::string& e : req.env)
      if (!is_mca_entry(e)) argv.insert(argv.end(), {"-x", e});
    argv.push_back("--");  // a command that starts with '-' is still the program
    argv.push_back(a.command);
    argv.insert(argv.end(), a.argv.begin(), a.argv.end());
  }
  return argv;
}

std::vector<std::string> spawn_launcher_env(const std::vector<std::string>& base,
                                            const std::vector<std::string>& req_env) {
  std::vector<std::string> env;
  for (const std::string& e : base)
    if (e.rfind("LZ_OUTER_PID=", 0) != 0) env.push_back(e);
  for (const std::string& e : req_env) {
    const std::string prefix = var_name(e) + "=";
    auto it = std::find_if(env.begin(), env.end(), [&](const std::string& x) { return x.rfind(prefix, 0) == 0; });
    if (it != env.end())
      *it = e;
    else
      env.push_back(e);
  }
  return env;
}

SpawnedJobs::SpawnedJobs(std::string job_id, Failure on_failure, Linked on_linked)
    : job_id_(std::move(job_id)), on_failure_(std::move(on_failure)), on_linked_(std::move(on_linked)) {}

SpawnedJobs::~SpawnedJobs() {
  for (const Spawned& j : jobs_) kill(-j.pid, SIGKILL);
  for (const Spawned& j : jobs_) {
    int st = 0;
    while (waitpid(j.pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
}

Status SpawnedJobs::resolve_self() {
  if (!self_exe_.empty()) return Status::Ok();
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return ErrnoError("cannot find the launcher's own executable (/proc/self/exe)", errno);
  self_exe_.assign(buf, static_cast<size_t>(n));
  return Status::Ok();
}

oob::SpawnReplyMsg SpawnedJobs::start(int rank, const oob::SpawnRequestMsg& req, const std::string& parent_hosts,
                                      int universe, int size, const std::string& restart_from) {
  oob::SpawnReplyMsg rep;
  rep.seq = req.seq;
  auto refuse = [&](const std::string& why) {
    rep.ok = 0;
    rep.message = why;
    log::debug("spawn request %llu of rank %d refused: %s", static_cast<unsigned long long>(req.seq), rank,
               why.c_str());
    return rep;
  };
  if (Status s = resolve_self(); !s.ok()) return refuse(s.message());
  SpawnContext ctx;
  ctx.self_exe = self_exe_;
  char cwd[PATH_MAX];
  ctx.cwd = getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
  ctx.parent_hosts = parent_hosts;
  const char* path = std::getenv("PATH");
  ctx.path_env = path != nullptr ? path : "";
  for (const std::string& e : req.env)
    if (e.rfind("PATH=", 0) == 0) ctx.path_env = e.substr(5);
  if (Status s = check_spawn_request(req, ctx); !s.ok()) return refuse(s.message());

  std::vector<std::string> base;
  for (char** e = environ; *e != nullptr; ++e) base.emplace_back(*e);
  int64_t all = size;
  for (const auto& app : req.apps) all += app.maxprocs;
  const std::vector<std::string> argv_s =
      restart_from.empty()
          ? spawn_launcher_argv(req, ctx)
          : std::vector<std::string>{ctx.self_exe, "restart", "--np", std::to_string(all - size), restart_from};
  std::vector<std::string> env_s = spawn_launcher_env(base, req.env);
  env_s.erase(std::remove_if(env_s.begin(), env_s.end(),
                             [](const std::string& e) { return e.rfind("LZ_SPAWN_UNIVERSE=", 0) == 0; }),
              env_s.end());
  env_s.push_back("LZ_SPAWN_UNIVERSE=" + std::to_string(std::max<int64_t>(universe, std::min<int64_t>(all, 1 << 30))));
  std::vector<std::string> names;
  for (const oob::SpawnApp& a : req.apps) names.push_back("'" + a.command + "'");
  const std::string what = str::join(names, ", ");
  auto pid = launch(argv_s, std::move(env_s));
  if (!pid.ok()) return refuse(pid.status().message());
  jobs_.push_back({*pid, rank, what});
  log::debug("rank %d spawned job %s: launcher pid %d: %s", rank, what.c_str(), static_cast<int>(*pid),
             str::join(argv_s, " ").c_str());
  rep.ok = 1;
  return rep;
}

Status SpawnedJobs::restart(const std::string& snapshot_dir) {
  LZ_RETURN_IF_ERROR(resolve_self());
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  const std::vector<std::string> argv = {self_exe_, "restart", snapshot_dir};
  LZ_ASSIGN_OR_RETURN(pid_t pid, launch(argv, std::move(env)));
  jobs_.push_back({pid, -1, "restarted from " + snapshot_dir});
  log::debug("restarting spawned job from %s: launcher pid %d", snapshot_dir.c_str(), static_cast<int>(pid));
  return Status::Ok();
}

StatusOr<pid_t> SpawnedJobs::launch(const std::vector<std::string>& argv_s, std::vector<std::string> env_s) {
  // The link: this launcher's end stays here, the other is the new
  // launcher's descriptor kLinkFd. Its environment is this launcher's
  // without its identity (spawn_launcher_env), and names the link.
  constexpr int kLinkFd = 3;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return ErrnoError("socketpair", errno);
  UniqueFd mine(sv[0]), theirs(sv[1]);
  env_s = spawn_launcher_env(env_s, {std::string(oob::kSpawnLinkFdEnv) + "=" + std::to_string(kLinkFd),
                                     std::string(oob::kSpawnParentJobEnv) + "=" + job_id_});
  // Reports an exec failure (errno) to this side; closed by a successful exec.
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  UniqueFd st_r(status[0]), st_w(status[1]);
  UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  // Everything the child touches is prepared before fork: after fork it
  // only makes async-signal-safe calls.
  std::vector<char*> argv = str::c_array(argv_s);
  std::vector<char*> envp = str::c_array(env_s);
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid < 0) return ErrnoError("fork", errno);
  if (pid == 0) {
    // Never outlives this launcher (its own ranks die with it in turn).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher) _exit(128 + SIGKILL);
    // Its own session and process group: signal_all reaches it and what it
    // did not put in groups of their own, the terminal's signals do not
    // (this launcher stops it as it stops the job).
    setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) ::signal(s, SIG_DFL);
    if (devnull.valid()) dup2(devnull.get(), STDIN_FILENO);
    // Its link at kLinkFd, before the status pipe could take that number.
    int link = theirs.get();
    if (st_w.get() == kLinkFd) {
      const int moved = fcntl(kLinkFd, F_DUPFD_CLOEXEC, kLinkFd + 1);
      if (moved < 0) _exit(127);
      st_w.reset(moved);
    }
    if (link == kLinkFd) {
      fcntl(kLinkFd, F_SETFD, 0);
    } else if (dup2(link, kLinkFd) < 0) {
      _exit(127);
    }
    // Nothing else of this launcher's (its OOB listener, rank pipes ...) reaches it.
    syscall(SYS_close_range, static_cast<unsigned>(kLinkFd + 1), ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
    execve(argv[0], argv.data(), envp.data());
    int e = errno;
    (void)!::write(st_w.get(), &e, sizeof e);
    _exit(127);
  }
  st_w.reset();
  theirs.reset();
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(st_r.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return Status(Code::kUnavailable, "cannot start the spawned job's launcher " + argv_s[0] + ": " +
                                          std::strerror(child_errno));
  }
  if (on_linked_) on_linked_(pid, std::move(mine), env_s);
  return pid;
}

bool SpawnedJobs::child_exited(pid_t pid, int wait_status) {
  auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const Spawned& j) { return j.pid == pid; });
  if (it == jobs_.end()) return false;
  const Spawned j = *it;
  jobs_.erase(it);
  // What it left in its group (it SIGKILLed: its ranks die with it anyway).
  kill(-pid, SIGKILL);
  const bool ok = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  if (!ok && on_failure_) {
    const int code = WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
    // A launcher stops on SIGTERM with 128 + SIGTERM, and SIGKILL ends it.
    const bool stopped_here = j.signalled != 0 && (WIFSIGNALED(wait_status) || code == 128 + j.signalled);
    on_failure_(code,
                "spawned job " + j.what + " (started by rank " + std::to_string(j.rank) + ") " +
                    describe_exit(wait_status),
                stopped_here);
  }
  return true;
}

bool SpawnedJobs::owns(pid_t pid) const {
  return std::any_of(jobs_.begin(), jobs_.end(), [&](const Spawned& j) { return j.pid == pid; });
}

void SpawnedJobs::signal_all(int sig) {
  for (Spawned& j : jobs_) {
    j.signalled = sig;
    kill(-j.pid, sig);
  }
}

}  // namespace lz::launcher
