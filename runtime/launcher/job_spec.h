// JobSpec: everything the launcher decided before starting a job (from the
// command line, the parameters and the host list), and nothing it learns
// while the job runs. Kept as plain data so a checkpoint manifest
// can record it and `lazarus restart` can rebuild a job from it.
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

#include <cstdint>

#include "launcher/host_list.h"
#include "oob/socket.h"
#include "snapshot/manifest.h"

namespace lz::launcher {

// One program of a job, resolved: what its ranks are started with.
struct JobApp {
  std::vector<std::string> argv;  // the program and its arguments
  std::vector<std::string> env;   // its ranks' environment before the LZ_* job variables
  std::string cwd;                // its ranks' working directory (empty: the launcher's)
};

// How the ranks' output reaches the user (--tag-output, --output-filename ...).
struct OutputSpec {
  bool tag = false;                      // "[job,rank]<stdout>:" before each line
  bool timestamp = false;                // "[2026-11-28T16:30:01.123] " before each line
  bool prepend_rank = false;             // "[rank] " before each line
  bool merge_stderr = false;             // stderr lines go to stdout
  std::string dir;                       // DIR/[1/]rank.N/stdout|stderr files (--output-filename)
  bool dir_jobid = true;                 // the "1" level (Open MPI's job number; NOJOBID drops it)
  bool copy = true;                      // files and the terminal (NOCOPY: files only)
  std::string out_pattern, err_pattern;  // -outfile-pattern / -errfile-pattern (%r %h %g %%)
};

struct JobSpec {
  std::string job_id;
  std::vector<JobApp> apps;             // the job's programs (one, or several: MPMD), in rank order
  std::vector<int> rank_app;            // each rank's program: an index into apps (MPI_APPNUM)
  int universe_size = 0;                // MPI_UNIVERSE_SIZE: the slots of the job's hosts (0: np)
  std::vector<Placement> placement;     // one per rank
  // Hosts given to the job (--host, --hostfile, the Slurm allocation) on
  // which no rank starts, kept for ranks to move to (`lazarus migrate --to`,
  // `lazarus evacuate`; cr=criu with launch_helper_pid_namespace): each gets
  // its helper like the ranks' hosts.
  std::vector<std::string> spare_hosts;
  OutputSpec output;
  std::vector<int> stdin_ranks;         // ranks that read the launcher's stdin (default: rank 0)
  double timeout = 0;                   // seconds; 0: none
  double kill_grace = 3;                // SIGTERM -> SIGKILL
  double handshake_timeout = 5;         // OOB authentication deadline
  double helper_keepalive = 10;         // seconds of silence before a helper's host is lost (0: never)
  SockAddr bind_address;           // OOB listener
  std::string advertised_host;          // host part of LZ_OOB_ADDR given to ranks
  std::vector<std::string> command_line;  // the launcher's own argv, for the job registry
  // The job's name in the Slurm allocation it runs in ("123", or "123.0"
  // for a step), which `lazarus checkpoint` takes too (empty: none).
  std::string manager_job;
  bool adopted = false;  // its ranks were started by srun (`lazarus coordinate`)
  std::string secret;    // the ranks' job secret (empty: the Job draws one)
  int address_fd = -1;   // the OOB address and this pid go there once listening

  const JobApp& app_of(int rank) const { return apps[static_cast<size_t>(rank_app[static_cast<size_t>(rank)])]; }
  pid_t registry_pid = 0;               // launcher pid for the job registry (0: getpid()); the outer
                                        // pid when the launcher runs in its own PID namespace

  // Checkpoint/restart.
  snapshot::JobRecord record;           // what the manifest records; record.id names the store
  std::string snapshot_root;            // where the job's store lives
  int64_t cr_keep = 2;
  std::string cr_component;             // selected cr component ("none": checkpointing off)
  // The selected cr module saves registered variables (kCapAppLevel: cr/app
  // or a plugin such as the SDK example cr/sealed): the launcher coordinates
  // application-level lines instead of core images.
  bool cr_app_level = false;
  std::string cr_unavailable;           // why no cr component can be used here (empty: fine)
  std::string crcp_component = "bkmrk";
  double checkpoint_interval = 0;       // seconds; 0: no periodic checkpoints
  double cr_app_interval = 0;           // cr=app: cr_app_interval (used when --checkpoint-interval is not given)
  double cr_ready_wait = 60;            // how long a request waits for every rank to be CR-ready
  bool restored = false;                // the ranks are restored from snapshot `restored_seq`
  uint64_t restored_seq = 0;
  std::string restored_dir;             // the snapshot directory restored from
};

}  // namespace lz::launcher
