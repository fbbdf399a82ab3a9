// SpawnedJobs: the jobs a job's ranks started with MPI_Comm_spawn or
// MPI_Comm_spawn_multiple (SPAWN_REQUEST, oob/frame.h and
// oob/spawn_messages.h), each run by a launcher of its own: this executable
// (/proc/self/exe) as
//
//   lazarus run [--hostfile F] -np N [--host H] [--wdir W] [--path P]
//               [-x NAME=VALUE ...] -- command args : -np N2 ... -- command2 args2
//
// one MPMD program per app of the request. The Job (launcher/job.h) owns one
// and keeps its promises to the ranks that asked:
//   - a request is checked before anything starts (check_spawn_request):
//     a command that is not found, maxprocs < 1, a host list or hostfile
//     that does not parse ... is answered with SPAWN_REPLY ok = 0 and a
//     message naming the value, and the job goes on;
//   - the new launcher runs in a session (and process group) of its own,
//     with stdin from /dev/null and this launcher's stdout and stderr (its
//     ranks' lines appear in the job's output), and dies with this launcher
//     (PR_SET_PDEATHSIG); the reply is ok = 1 once it was exec'd;
//   - when it exits non-zero or is killed, `on_failure` is called (the Job
//     fails: a rank waiting for children that died is not left hanging);
//     when it exits 0 it is forgotten;
//   - the Job does not end while one runs (running()), stops them with
//     itself (signal_all: SIGTERM, then SIGKILL after its grace), and the
//     destructor kills and reaps what is left.
// The Job reaps every child itself (waitpid(-1) on SIGCHLD) and hands each
// pid to child_exited().
//
// The pieces that decide what is run are pure functions of the request and
// a SpawnContext, tested without processes (tests/unit/launcher).
//
//   SpawnedJobs spawned(job_id, [&](int code, const std::string& why, bool) { job.fail(code, why); },
//                       [&](pid_t pid, UniqueFd link) { tree.add_child(pid, std::move(link)); });
//   oob::SpawnReplyMsg rep = spawned.start(rank, req, parent_host_list(placement));
//   ...  // on SIGCHLD:  if (spawned.child_exited(pid, status)) maybe_finish();
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "launcher/host_list.h"
#include "lazarus/status.h"
#include "lazarus/unique_fd.h"
#include "oob/spawn_messages.h"

namespace lz::launcher {

// What a request is judged and built against.
struct SpawnContext {
  std::string self_exe;  // the launcher executable the new job runs (/proc/self/exe resolved)
  std::string cwd;       // this launcher's working directory (the new launcher's too)
  // The PATH the new job's ranks search for their program: the request's
  // own PATH entry when it has one, else this launcher's.
  std::string path_env;
  // Where apps without info "host" or "hostfile" go: the spawning job's
  // hosts as a --host value ("h1:2,h2:1", each host with its ranks as
  // slots); empty when the spawning job runs on this host only (the new
  // launcher's default is this host too).
  std::string parent_hosts;
  // Whether a host name is this machine (is_local_host; replaced in tests).
  std::function<bool(const std::string&)> is_local;
};

// The spawning job's hosts as a --host value, in the order its ranks use
// them, each with its number of ranks as slots; empty when every rank is on
// this host (per `is_local`).
std::string parent_host_list(const std::vector<Placement>& placement,
                             const std::function<bool(const std::string&)>& is_local);

// The file `app`'s command runs: with a '/', relative to the app's wdir
// (itself relative to ctx.cwd) or ctx.cwd; without one, the first
// executable `command` in info "path" (colon-separated), then ctx.path_env,
// as the new job's ranks will search them. kNotFound naming the command and
// every place looked at; kPermissionDenied for a file that is there but not
// executable.
StatusOr<std::string> find_spawn_command(const oob::SpawnApp& app, const SpawnContext& ctx);

// Every value of the request, before anything starts: at least one app;
// each with a command, maxprocs within 1..kMaxSpawnProcs, a host list and
// hostfile that parse, no argument ":" (it would end the program on the
// new launcher's command line), and a command that is found
// (find_spawn_command) unless all of the app's hosts are other hosts (their
// launcher then reports it); one hostfile at most (the new job's is
// job-wide); env entries "NAME=VALUE" with a variable name, none of them a
// job variable the new launcher sets (LZ_RANK, LZ_OOB_ADDR ...).
// kInvalidArgument (or the lookup's code) with a message naming the app,
// the value and what would do.
Status check_spawn_request(const oob::SpawnRequestMsg& req, const SpawnContext& ctx);

// The new launcher's argv (argv[0] is ctx.self_exe), as the header says: the
// request's hostfile before the first program; per app -np, its --host (or
// ctx.parent_hosts when no app names a hostfile), --wdir, --path, one
// -x NAME=VALUE per env entry that is not LZ_MCA_* (those configure the new
// launcher through its environment, and it passes its parameters to its
// ranks), then "--", the command and its arguments; ":" between apps.
std::vector<std::string> spawn_launcher_argv(const oob::SpawnRequestMsg& req, const SpawnContext& ctx);

// The new launcher's environment: `base` (this launcher's) without
// LZ_OUTER_PID (this launcher's identity), then every entry of `req_env`
// (replacing a variable of the same name).
std::vector<std::string> spawn_launcher_env(const std::vector<std::string>& base,
                                            const std::vector<std::string>& req_env);

class SpawnedJobs {
 public:
  // Called when a spawned job's launcher failed: its exit code (128 +
  // signal when killed), a line naming the job and the rank that started
  // it, and whether it ended of the signal signal_all() sent it (this job
  // stopping it) rather than by a failure of its own.
  using Failure = std::function<void(int exit_code, const std::string& message, bool stopped_here)>;

  // Called with each started launcher's pid, this launcher's end of its
  // link (oob/tree_messages.h; the new launcher has the other end as
  // LZ_SPAWN_LINK_FD) and the new launcher's environment.
  using Linked = std::function<void(pid_t launcher, UniqueFd link, const std::vector<std::string>& env)>;

  // `job_id`: the spawning job's (LZ_SPAWN_PARENT_JOB of the new launchers).
  SpawnedJobs(std::string job_id, Failure on_failure, Linked on_linked);
  // Kills (SIGKILL to each process group) and reaps every launcher still
  // running.
  ~SpawnedJobs();
  SpawnedJobs(const SpawnedJobs&) = delete;
  SpawnedJobs& operator=(const SpawnedJobs&) = delete;

  // Checks the request of `rank` and starts its launcher; the reply to send
  // (req.seq echoed). `parent_hosts`: SpawnContext::parent_hosts.
  // `restart_from` (cr=app, a restarted job that had spawned jobs): the
  // new launcher is `lazarus restart --np N restart_from` (N: the
  // request's processes), its ranks resume the spawned job of that
  // snapshot, with the request's environment (LZ_DPM_PARENT ...).
  // `universe`: the spawning job's MPI_UNIVERSE_SIZE; the new job's is that
  // or, when larger, the spawning job's `size` plus the processes spawned
  // (the universe holds them all), passed in LZ_SPAWN_UNIVERSE.
  oob::SpawnReplyMsg start(int rank, const oob::SpawnRequestMsg& req, const std::string& parent_hosts, int universe,
                           int size, const std::string& restart_from = "");
  // Restarts a spawned job from its snapshot `snapshot_dir` (`lazarus
  // restart`), as part of this job's restart: the ranks that spawned it
  // were restored with their bridges to it.
  Status restart(const std::string& snapshot_dir);

  // A child of this launcher ended with `wait_status` (it is reaped): true
  // when it was a spawned job's launcher, which is then forgotten
  // (on_failure first when it failed).
  bool child_exited(pid_t pid, int wait_status);
  // Whether `pid` is a spawned job's launcher that runs.
  bool owns(pid_t pid) const;
  // Whether a spawned job still runs.
  bool running() const { return !jobs_.empty(); }
  // Sends `sig` to every running spawned job's process group.
  void signal_all(int sig);

 private:
  struct Spawned {
    pid_t pid = -1;
    int rank = -1;     // the rank that asked
    std::string what;  // "'cmd'" or "'a', 'b'" for the messages
    int signalled = 0;  // the last signal signal_all() sent it (0: none)
  };

  // Forks and execs `argv` with `env` and a link; the started launcher's pid.
  StatusOr<pid_t> launch(const std::vector<std::string>& argv, std::vector<std::string> env);
  Status resolve_self();

  std::string job_id_;
  Failure on_failure_;
  Linked on_linked_;
  std::string self_exe_;  // resolved on the first request
  std::vector<Spawned> jobs_;
};

}  // namespace lz::launcher
