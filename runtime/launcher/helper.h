// run_helper(): `lazarus helper`, the per-host helper of a job with ranks on
// other hosts (internal: the launcher's RemoteStarter starts it through the
// launch agent, one per remote host, as
//   ssh HOST /abs/lazarus helper --job ID --oob ADDR --index I --host HOST
// and users never do; inside a Slurm allocation one srun starts them all
// with --hosts instead of --index and --host).
//
// It reads the job secret from stdin (one line of hex, then EOF or not: it
// stops at the newline), becomes a child subreaper, connects to the
// launcher's OOB listener and authenticates as the helper of host index I
// (oob/frame.h has the protocol). Then it forks the ranks the launcher asks
// for (LocalStarter: own session, the secret through an inherited pipe,
// binding, cwd), forwards their stdout/stderr as HELPER_OUTPUT frames,
// reports each exit (HELPER_EXIT with the wait status), and delivers the
// signals the launcher sends. When the launcher's connection closes (the job
// ended, or the launcher died), or the helper is told to stop by a signal,
// it SIGKILLs every rank's process group, reaps them and exits: no rank
// outlives its launcher on any host. Its ranks also have PR_SET_PDEATHSIG,
// so a helper killed with SIGKILL takes them along.
//
// Restores (HELPER_RESTORE, for `lazarus restart` and --recover on several
// hosts): the helper restores a rank's core image through the cr module the
// job's parameters select (RestoreStarter, as the local restart does) and
// then treats it as a rank it started. CRIU restores a process under its
// original pid, so a helper that restores runs as pid 1 of a fresh PID
// namespace (--pid-namespace: pid_namespace.h), where every pid is free and
// it is the restored ranks' reaper; the helper outside it only waits.
//
// Its sends block (the launcher always reads): a launcher that falls
// behind slows the ranks' output down instead of growing a queue here.
#pragma once

#include <string>

namespace lz::launcher {

struct HelperOptions {
  std::string job_id;
  std::string oob_address;  // host:port of the launcher's OOB listener
  int index = -1;           // this helper's host index in the job
  std::string host;         // the host name the launcher uses for this host (messages)
  // Under srun (every helper has the same command line): the job's hosts in
  // index order, comma-separated; the helper finds its own index and name
  // in it from SLURMD_NODENAME (or SLURM_NODEID). Empty: --index and --host.
  std::string hosts;
  double connect_timeout = 60;
  bool pid_namespace = false;  // run as pid 1 of a fresh PID namespace (needed for restores)
  long outer_pid_max = 0;      // pid_max where the helper was started (read before entering its namespace)
  // Seconds of silence on the launcher's connection (TCP keepalive) after
  // which the helper takes the launcher for gone and kills its ranks, as
  // when the connection closes: a host cut off from the launcher does not
  // keep the job's ranks running for ever. 0: never.
  double keepalive = 0;
};

// Returns the helper's exit status: 0 after the launcher closed the
// connection, 1 when it could not start or lost the launcher on an error.
int run_helper(const HelperOptions& o);

}  // namespace lz::launcher
