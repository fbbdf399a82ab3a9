// RemoteStarter: starts ranks on other hosts through one helper per host
// (`lazarus helper`, launcher/helper.h), and ranks on this host as
// LocalStarter does.
//
// begin() starts each remote host's helper with the launch agent:
//   <agent words...> <host> <abs path of lazarus> helper --job ID --oob ADDR --index I --host HOST
// (the launch_agent parameter, default "ssh", as Open MPI's plm_rsh_agent),
// writes the job secret (hex, one line) to the agent's stdin, so it appears
// in no command line and no environment, and waits until every helper has
// connected back to the job's OOB listener and proved the secret. start()
// of a remote rank sends HELPER_START and waits for HELPER_STARTED; the
// rank's output arrives as HELPER_OUTPUT frames and is written into local
// pipes, so the Job reads remote and local ranks' output alike. signal()
// becomes HELPER_SIGNAL; HELPER_EXIT becomes StarterHost::rank_exited().
// A helper whose connection closes takes its ranks with it (it kills them
// when it sees the launcher go, and the launcher reports them lost).
//
// Restores (`lazarus restart --host`, --recover auto on several hosts, and
// migration): after restore_from(), start() brings each rank back from its
// core image instead of running the program: a remote rank through its
// host's helper (HELPER_RESTORE: the helper restores it with the cr module
// the job's parameters select, as pid 1 of its own PID namespace), a rank
// on this host through the local starter given (a RestoreStarter). restore()
// does the same for one rank from any image directory, whatever the mode.
//
// Inside a Slurm allocation (HelperLaunch::kSrun) one srun starts every
// host's helper at once, this host's too (as MPICH's hydra starts its
// proxies; the ranks are then inside the allocation's step on every node):
//   srun --nodes=N --ntasks=N --ntasks-per-node=1 --nodelist=h0,h1 --input=all
//        --overlap --mpi=none --kill-on-bad-exit=0 --job-name=lazarus-helpers
//        <abs path of lazarus> helper --job ID --oob ADDR --hosts h0,h1
// Each helper finds its host index by looking its node name (SLURMD_NODENAME,
// set by slurmd) up in --hosts. The secret is the one line srun's stdin
// carries: --input=all gives every task a copy of it (srun's default gives
// stdin to task 0 alone), through Slurm's own I/O connection from srun to
// each node's slurmstepd, never argv or the environment.
//
//   RemoteStarter starter({"ssh"}, "/opt/lazarus/bin/lazarus", 60);
//   RemoteStarter under_slurm({"srun"}, "/opt/lazarus/bin/lazarus", 60, HelperLaunch::kSrun);
//   Job job(spec, starter);   // the Job calls begin(), start(), signal()
//
//   RestoreStarter here(cr_module, snap_dir, seq);
//   RemoteStarter starter({"ssh"}, lazarus, 60);
//   starter.restore_from(snap_dir, seq, {"cr=criu", ...}, &here);
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "launcher/local_starter.h"
#include "launcher/rank_starter.h"

namespace lz::launcher {

// How the helpers are started: one launch agent per remote host (ssh), or
// one srun for every host of the job.
enum class HelperLaunch { kAgentPerHost, kSrun };

class RemoteStarter final : public RankStarter {
 public:
  // `agent`: the launch agent's command split into words; `lazarus`: the
  // absolute path of the lazarus executable on the remote hosts (the same
  // path: a shared installation); `connect_timeout`: seconds a helper has
  // to connect back after its agent started, and to answer a HELPER_START.
  // With kSrun, `agent` is the srun command (words) and every host, this
  // one included, is served by a helper.
  RemoteStarter(std::vector<std::string> agent, std::string lazarus, double connect_timeout,
                HelperLaunch launch = HelperLaunch::kAgentPerHost);
  // Waits a few seconds for the agents (their helpers exit once the job's
  // OOB listener is closed), then kills the ones left.
  ~RemoteStarter() override;
  RemoteStarter(const RemoteStarter&) = delete;
  RemoteStarter& operator=(const RemoteStarter&) = delete;

  // Makes start() restore rank r from `snapshot_dir`/rank.<r> (snapshot
  // number `seq`): on a remote host by its helper, with `params`
  // ("name=value": the job's parameters, at least cr=<the component that
  // wrote the images>) selecting the cr module there; on this host by
  // `local` (not owned; it must outlive this starter). Implies
  // helpers_in_pid_namespace(). Call before begin().
  void restore_from(std::string snapshot_dir, uint64_t seq, std::vector<std::string> params, RankStarter* local);
  // Starts every helper as pid 1 of a fresh PID namespace (`lazarus helper
  // --pid-namespace`), as restores need: CRIU gives a restored process its
  // saved pid. A job that may later restore ranks on its hosts (migration)
  // asks for it before begin().
  void helpers_in_pid_namespace(bool on) { pid_namespace_ = on; }
  // Seconds of silence after which a helper takes the launcher for gone
  // (`lazarus helper --keepalive`; the launcher's side is OobServer's).
  void helper_keepalive(double seconds) { keepalive_ = seconds; }
  // Restores one rank on spec.host from its image directory `dir` (the
  // rank.<r> directory of a committed snapshot numbered `seq`, on a file
  // system that host sees) and returns as start() does: a remote host's
  // helper must run in its own PID namespace (helpers_in_pid_namespace),
  // with `params` selecting the cr module there; on this host it is the
  // local starter of restore_from() that restores (an error without one).
  // spec.env must hold LZ_JOB_ID and LZ_OOB_ADDR (Job::rank_env does).
  StatusOr<StartedRank> restore(const RankSpec& spec, const std::string& dir, uint64_t seq,
                                const std::vector<std::string>& params);

  Status can_start_on(const std::string& host) const override;
  Status begin(StarterHost& host, const std::vector<std::string>& rank_hosts) override;
  StatusOr<StartedRank> start(const RankSpec& spec) override;
  bool is_remote(const std::string& host) const override;
  void signal(int rank, pid_t pid, int sig) override;
  Status admit_helper(int host) override;
  void on_helper_connected(int host) override;
  void on_helper_frame(int host, oob::Frame& frame) override;
  void on_helper_closed(int host, const Status& why) override;
  bool child_exited(pid_t pid, int wait_status) override;
  bool owns_child(pid_t pid) const override;

  // Ok when `host` has a helper of this job that is connected and can
  // restore ranks (helpers_in_pid_namespace); otherwise why not.
  Status helper_usable(const std::string& host) const;
  // The host index of each remote host, in the order of first use.
  const std::vector<std::string>& remote_hosts() const { return hosts_; }

 private:
  // A launch agent process (ssh for one host, srun for all).
  struct Agent {
    pid_t pid = -1;
    int status = -1;  // its wait status once reaped (by the Job's reaper or by us)
    oob::Fd pidfd;
    std::vector<int> helpers;  // the host indices it starts
  };
  struct Helper {
    std::string host;
    int agent = -1;  // index in agents_
    bool connected = false;
    bool gone = false;
    std::string why;  // why it is gone
  };
  // One output stream of a remote rank: bytes from the helper waiting to go
  // into the pipe the Job reads.
  struct Stream {
    oob::Fd w;
    std::string queue;
    bool eof = false;  // close `w` once `queue` is written
  };
  struct Remote {
    int helper = -1;
    bool answered = false;
    bool returned = false;      // start() gave the Job its pid
    bool exited = false;
    bool exit_pending = false;  // HELPER_EXIT came before start() returned
    int exit_status = 0;
    oob::HelperStartedMsg started;
    Stream out, err;
  };

  // Starts `argv` with the secret line on its stdin, as the agent of `helpers`.
  Status start_agent(std::vector<std::string> argv, std::vector<int> helpers);
  std::vector<std::string> agent_argv(int index) const;  // ssh: one host
  std::vector<std::string> srun_argv() const;            // srun: every host
  // The options both kinds of helper command end with (--pid-namespace, --keepalive).
  void add_helper_options(std::vector<std::string>& argv) const;
  void on_agent_exit(int agent);
  // Sends `type` (HELPER_START or HELPER_RESTORE of spec.rank) to the helper
  // of spec.host and waits for its HELPER_STARTED.
  StatusOr<StartedRank> start_remote(const RankSpec& spec, oob::MsgType type, const std::string& payload);
  void write_stream(Stream& s);
  void close_stream(Stream& s);
  void helper_failed(int index, const std::string& why);
  Status protocol_error(int host, const std::string& what);

  std::vector<std::string> agent_;
  std::string lazarus_;
  double connect_timeout_;
  HelperLaunch launch_;
  LocalStarter local_;
  RankStarter* restore_local_ = nullptr;  // restore_from(): restores ranks on this host
  bool restoring_ = false;
  bool pid_namespace_ = false;
  double keepalive_ = 0;
  std::string restore_dir_;
  uint64_t restore_seq_ = 0;
  std::vector<std::string> restore_params_;
  StarterHost* host_ = nullptr;
  std::vector<std::string> hosts_;
  mutable std::map<std::string, bool> remote_cache_;  // is_local_host() resolves names: once per host
  std::vector<Agent> agents_;
  std::vector<Helper> helpers_;
  std::map<int, Remote> ranks_;  // remote ranks by rank
};

}  // namespace lz::launcher
