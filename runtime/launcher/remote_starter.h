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
//   RemoteStarter starter({"ssh"}, "/opt/lazarus/bin/lazarus", 60);
//   Job job(spec, starter);   // the Job calls begin(), start(), signal()
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "launcher/local_starter.h"
#include "launcher/rank_starter.h"

namespace lz::launcher {

class RemoteStarter final : public RankStarter {
 public:
  // `agent`: the launch agent's command split into words; `lazarus`: the
  // absolute path of the lazarus executable on the remote hosts (the same
  // path: a shared installation); `connect_timeout`: seconds a helper has
  // to connect back after its agent started, and to answer a HELPER_START.
  RemoteStarter(std::vector<std::string> agent, std::string lazarus, double connect_timeout);
  // Waits a few seconds for the agents (their helpers exit once the job's
  // OOB listener is closed), then kills the ones left.
  ~RemoteStarter() override;
  RemoteStarter(const RemoteStarter&) = delete;
  RemoteStarter& operator=(const RemoteStarter&) = delete;

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

  // The host index of each remote host, in the order of first use.
  const std::vector<std::string>& remote_hosts() const { return hosts_; }

 private:
  struct Helper {
    std::string host;
    pid_t agent = -1;
    int agent_status = -1;  // its wait status once reaped (by the Job's reaper or by us)
    oob::Fd agent_pidfd;
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

  Status start_agent(int index);
  void on_agent_exit(int index);
  void write_stream(Stream& s);
  void close_stream(Stream& s);
  void helper_failed(int index, const std::string& why);
  Status protocol_error(int host, const std::string& what);

  std::vector<std::string> agent_;
  std::string lazarus_;
  double connect_timeout_;
  LocalStarter local_;
  StarterHost* host_ = nullptr;
  std::vector<std::string> hosts_;
  mutable std::map<std::string, bool> remote_cache_;  // is_local_host() resolves names: once per host
  std::vector<Helper> helpers_;
  std::map<int, Remote> ranks_;  // remote ranks by rank
};

}  // namespace lz::launcher
