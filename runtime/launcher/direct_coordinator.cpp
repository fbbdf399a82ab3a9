#include "launcher/direct_coordinator.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "bootstrap/pmi2_wire.h"
#include "cr/runtime_params.h"
#include "launcher/adopted_starter.h"
#include "launcher/host_list.h"
#include "launcher/job.h"
#include "launcher/launcher.h"
#include "launcher/slurm_allocation.h"
#include "lazarus/registry.h"

extern char** environ;

namespace lz::launcher {
namespace {

// The answer channel to rank 0 (stdout, moved off fd 1).
int g_answer_fd = -1;

int refuse(const std::string& why) {
  std::fprintf(stderr, "lazarus coordinate: error: %s\n", why.c_str());
  if (g_answer_fd >= 0) {
    const std::string line = "error " + why + "\n";
    (void)!write(g_answer_fd, line.data(), line.size());
    close(g_answer_fd);
    g_answer_fd = -1;
  }
  return 2;
}

}  // namespace

int run_coordinator(const CoordinatorOptions& o) {
  // Nothing but the answer goes to rank 0 on stdout.
  g_answer_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (int null = open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
    dup2(null, STDOUT_FILENO);
    close(null);
  }
  std::string hex;
  if (!std::getline(std::cin, hex)) return refuse("no job secret on stdin");
  auto secret = rt::pmi2::from_hex(hex);
  if (!secret.ok() || secret->empty()) return refuse("the job secret on stdin is not hex");
  const size_t np = o.hosts.size();
  if (np == 0 || o.nodes.size() != np || o.pids.size() != np)
    return refuse("--hosts, --nodes and --pids must name the same number of ranks (" + std::to_string(o.hosts.size()) +
                  ", " + std::to_string(o.nodes.size()) + ", " + std::to_string(o.pids.size()) + ")");
  if (o.argv.empty()) return refuse("no program after --");

  Registry reg;
  if (Status s = rt::register_runtime_params(reg); !s.ok()) return refuse(s.message());
  // The ranks' parameters: the same files and LZ_MCA_* environment (this
  // process has rank 0's).
  if (Status s = reg.configure(ConfigOptions{}); !s.ok()) return refuse(s.message());

  JobSpec spec;
  spec.job_id = o.job_id;
  spec.manager_job = slurm_job_name();  // rank 0's environment: the step's
  spec.adopted = true;
  spec.secret = std::move(*secret);
  std::map<uint64_t, int> on_node;
  for (size_t r = 0; r < np; ++r)
    spec.placement.push_back(Placement{o.hosts[r], o.nodes[r], on_node[o.nodes[r]]++, 0, {}});
  for (auto& p : spec.placement) p.local_size = on_node[p.node_id];
  spec.rank_app.assign(np, 0);
  spec.universe_size = static_cast<int>(np);
  char cwd[4096] = "";
  if (getcwd(cwd, sizeof cwd) != nullptr) spec.record.cwd = cwd;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  spec.apps.push_back(JobApp{o.argv, std::move(env), ""});
  spec.command_line = {"lazarus", "coordinate"};
  if (!spec.manager_job.empty()) spec.command_line.push_back("(Slurm step " + spec.manager_job + ")");
  fill_cr_spec(reg, spec);
  if (spec.cr_component == "none")
    return refuse("checkpointing is off (cr=none" + (spec.cr_unavailable.empty() ? "" : ": " + spec.cr_unavailable) +
                  "): the job needs no coordinator");
  if (Status s = fill_oob_spec(reg.params(), spec); !s.ok()) return refuse(s.message());
  spec.checkpoint_interval = spec.cr_app_interval;
  spec.record.argv = o.argv;
  fill_job_record(reg.params(), spec);
  spec.address_fd = g_answer_fd;
  g_answer_fd = -1;  // the Job answers once it listens

  std::vector<bool> local;
  std::map<std::string, bool> seen;
  for (const std::string& h : o.hosts) {
    auto it = seen.find(h);
    if (it == seen.end()) it = seen.emplace(h, is_local_host(h)).first;
    local.push_back(it->second);
  }
  AdoptedStarter starter(o.pids, std::move(local));
  Job job(std::move(spec), starter);
  return job.run();
}

}  // namespace lz::launcher
