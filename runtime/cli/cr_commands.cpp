#include "cr_commands.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "common_options.h"
#include "launcher/control_client.h"
#include "launcher/job_registry.h"
#include "launcher/restart.h"
#include "lazarus/strings.h"

namespace lz::cli {
namespace {

// "h0 0,2-3; h1 1": each host with its ranks, hosts in order of first use,
// consecutive ranks as ranges (one line even for thousands of ranks).
std::string ranks_by_host(const std::vector<launcher::JobEntry::Rank>& rank_list) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> ranks;
  for (const auto& r : rank_list) {
    const std::string& h = r.host.empty() ? "?" : r.host;
    if (ranks.find(h) == ranks.end()) order.push_back(h);
    ranks[h].push_back(r.rank);
  }
  std::string out;
  for (const std::string& h : order) {
    if (!out.empty()) out += "; ";
    out += h + " ";
    const std::vector<int>& v = ranks[h];
    for (size_t i = 0; i < v.size();) {
      size_t j = i;
      while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
      if (i > 0) out += ",";
      out += std::to_string(v[i]);
      if (j > i) out += "-" + std::to_string(v[j]);
      i = j + 1;
    }
  }
  return out;
}

int run_ps(bool ranks) {
  auto jobs = launcher::list_jobs(/*prune=*/true);
  if (jobs.empty()) {
    std::printf("no running jobs\n");
    return 0;
  }
  std::printf("%-10s %-8s %-4s %-24s %-40s %s\n", "JOB", "PID", "NP", "HOSTS", "COMMAND", "LAST SNAPSHOT");
  for (const auto& j : jobs) {
    std::string cmd = str::join(j.command, " ");
    std::string hosts = j.hosts.empty() ? "-" : str::join(j.hosts, ",");
    std::printf("%-10s %-8d %-4d %-24s %-40s %s\n", j.job_id.c_str(), static_cast<int>(j.launcher_pid), j.np,
                hosts.c_str(), cmd.c_str(), j.last_snapshot.empty() ? "-" : j.last_snapshot.c_str());
    if (!j.ranks.empty()) std::printf("  ranks: %s\n", ranks_by_host(j.ranks).c_str());
    if (!ranks) continue;
    for (const auto& r : j.ranks)
      std::printf("  rank %-4d host %-24s pid %-8d%s\n", r.rank, r.host.c_str(), static_cast<int>(r.pid),
                  r.moves > 0 ? (" moved " + std::to_string(r.moves) + "x").c_str() : "");
  }
  return 0;
}

// Finds job `name` and sends `req` on its control socket; the socket, for
// the launcher's answers (and the job found in *job).
StatusOr<oob::Fd> send_job_request(const std::string& name, const nlohmann::json& req, launcher::JobEntry* job) {
  auto found = launcher::find_job(name);
  if (!found.ok()) return found.status();
  *job = std::move(*found);
  if (job->control_socket.empty())
    return Unavailable("job " + job->job_id + " has no control socket (its launcher could not create one)");
  auto fd = launcher::connect_control(job->control_socket);
  if (!fd.ok()) return fd.status();
  if (Status s = launcher::send_control_line(fd->get(), req.dump()); !s.ok()) return s;
  return std::move(*fd);
}

struct MigrateOptions {
  std::string job;
  std::vector<int> ranks;  // migrate
  std::string to;          // migrate
  std::string host;        // evacuate
};

// migrate and evacuate: one request on the job's control socket, then the
// launcher's answers until the moved ranks run again (or it failed).
int run_migrate(const MigrateOptions& o, bool evacuate) {
  const char* verb = evacuate ? "evacuation" : "migration";
  nlohmann::json req = evacuate ? nlohmann::json{{"op", "evacuate"}, {"host", o.host}, {"wait", true}}
                                : nlohmann::json{{"op", "migrate"}, {"ranks", o.ranks}, {"to", o.to}, {"wait", true}};
  launcher::JobEntry job;
  auto fd = send_job_request(o.job, req, &job);
  if (!fd.ok()) {
    print_error(fd.status());
    return 1;
  }
  std::string buf;
  for (;;) {
    auto line = launcher::read_control_line(fd->get(), &buf, oob::kNoDeadline);
    if (!line.ok()) {
      print_error(line.status().with_context(std::string(verb) + " of job " + job.job_id));
      return 1;
    }
    nlohmann::json a = nlohmann::json::parse(*line, nullptr, false);
    const std::string ev = a.is_object() ? a.value("event", "") : "";
    if (ev == "accepted") {
      std::printf("%s of job %s accepted: %s\n", verb, job.job_id.c_str(), a.value("what", "").c_str());
      std::fflush(stdout);
    } else if (ev == "migrated") {
      std::printf("%s\n", a.value("message", "").c_str());
      return 0;
    } else if (ev == "failed") {
      print_error(
          Status(Code::kAborted, std::string(verb) + " of job " + job.job_id + " failed: " + a.value("reason", "")));
      return 1;
    } else {
      print_error(ProtocolError("unexpected answer from the launcher: " + *line));
      return 1;
    }
  }
}

struct CheckpointOptions {
  std::string job;
  bool term = false;
  bool wait = false;
};

int run_checkpoint(const CheckpointOptions& o) {
  nlohmann::json req{{"op", "checkpoint"}, {"terminate", o.term}, {"wait", o.wait}};
  launcher::JobEntry job;
  auto fd = send_job_request(o.job, req, &job);
  if (!fd.ok()) {
    print_error(fd.status());
    return 1;
  }
  std::string buf;
  for (;;) {
    auto line = launcher::read_control_line(fd->get(), &buf, oob::kNoDeadline);
    if (!line.ok()) {
      print_error(line.status().with_context("checkpoint of job " + job.job_id));
      return 1;
    }
    nlohmann::json a = nlohmann::json::parse(*line, nullptr, false);
    const std::string ev = a.is_object() ? a.value("event", "") : "";
    if (ev == "accepted") {
      std::printf("checkpoint of job %s accepted: snapshot %llu will be %s\n", job.job_id.c_str(),
                  static_cast<unsigned long long>(a.value("seq", uint64_t{0})), a.value("path", "").c_str());
      std::fflush(stdout);
      if (!o.wait) return 0;
    } else if (ev == "committed") {
      std::printf("%s\n", a.value("message", "").c_str());
      if (a.value("terminated", false)) std::printf("job %s stopped after the checkpoint (--term)\n", job.job_id.c_str());
      return 0;
    } else if (ev == "failed") {
      print_error(Status(Code::kAborted, "checkpoint of job " + job.job_id + " failed: " + a.value("reason", "")));
      return 1;
    } else {
      print_error(ProtocolError("unexpected answer from the launcher: " + *line));
      return 1;
    }
  }
}

}  // namespace

StatusOr<double> parse_duration(const std::string& text, const std::string& what) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  const std::string num = text.substr(0, i), unit = text.substr(i);
  double v = 0;
  try {
    size_t used = 0;
    v = std::stod(num, &used);
    if (used != num.size()) throw std::invalid_argument("");
  } catch (...) {
    return InvalidArgument(what + " '" + text + "': expected a duration such as 30s, 2m or 500ms");
  }
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "ms" ? 0.001 : -1;
  if (scale < 0 || v <= 0)
    return InvalidArgument(what + " '" + text + "': expected a positive duration such as 30s, 2m or 500ms");
  return v * scale;
}

void add_cr_commands(CLI::App& app, int& exit_code) {
  CLI::App* ps = app.add_subcommand("ps", "List running jobs: id, launcher pid, ranks, hosts, command, last snapshot");
  auto ps_ranks = std::make_shared<bool>(false);
  ps->add_flag("--ranks", *ps_ranks, "Also list each rank's host and pid (and how often it was migrated)");
  ps->callback([ps_ranks, &exit_code] { exit_code = run_ps(*ps_ranks); });

  auto mo = std::make_shared<MigrateOptions>();
  CLI::App* mg = app.add_subcommand(
      "migrate", "Move ranks of a running job to a host while the others go on (proactive migration)");
  mg->add_option("job", mo->job, "Job id or launcher pid (see `lazarus ps`)")->required()->type_name("JOB|PID");
  mg->add_option("--rank", mo->ranks, "The ranks to move")->required()->delimiter(',')->type_name("R[,R2...]");
  mg->add_option("--to", mo->to,
                 "The host to move them to: one of the job's hosts (those of its ranks, or a spare host given "
                 "with --host/--hostfile that got no rank), or this host")
      ->required()
      ->type_name("HOST");
  mg->footer(
      "cr=criu: the job is quiesced as for a checkpoint; only the moving ranks write an image (and end),\n"
      "are restored on HOST and reconnect; the others write nothing, never roll back, and reconnect to\n"
      "the moved ranks' new addresses. Moving to the same host gives the ranks new processes.\n"
      "cr=app: every rank stops at the next LZ_Checkpoint safe point they agree on (forward negotiation);\n"
      "the moving ranks write their registered variables and the messages they have not received yet,\n"
      "and end; new processes of the program start on HOST in their place (LZ_Restarting gives 1 there; the\n"
      "code before LZ_Restore runs alone: communicators it makes are those the rank made before its first\n"
      "LZ_Checkpoint, taken from its record; nothing else may communicate) and the others go on from that point.\n"
      "Waits until the moved ranks run again and prints the evacuation time (request to running again).\n"
      "Exit status: 0 moved, 1 refused or failed (the reason is printed; an unknown rank or host is named).");
  mg->callback([mo, &exit_code] { exit_code = run_migrate(*mo, false); });

  auto eo = std::make_shared<MigrateOptions>();
  CLI::App* ev = app.add_subcommand(
      "evacuate", "Move every rank of a host of a running job to its other hosts (a node about to fail)");
  ev->add_option("job", eo->job, "Job id or launcher pid (see `lazarus ps`)")->required()->type_name("JOB|PID");
  ev->add_option("--host", eo->host, "The host to empty")->required()->type_name("HOST");
  ev->footer(
      "The host's ranks are spread over the job's other hosts (spare hosts given to `lazarus run` with\n"
      "--host/--hostfile but left without a rank count as hosts with none), fewest ranks first, and moved as by\n"
      "`lazarus migrate`. A job on one host has nowhere to go: refused, saying so.\n"
      "Exit status: 0 moved, 1 refused or failed (the reason is printed).");
  ev->callback([eo, &exit_code] { exit_code = run_migrate(*eo, true); });

  auto co = std::make_shared<CheckpointOptions>();
  CLI::App* ck = app.add_subcommand(
      "checkpoint", "Checkpoint a running job (like ompi-checkpoint); prints where the snapshot goes");
  ck->add_option("job", co->job, "Job id or launcher pid (see `lazarus ps`)")->required()->type_name("JOB|PID");
  ck->add_flag("--term", co->term, "Stop the job once the snapshot is committed");
  ck->add_flag("--wait", co->wait,
               "Wait until the snapshot is committed (print its path) or failed (exit 1 with the reason)");
  ck->footer("Without --wait the command returns once the launcher has started the checkpoint.\n"
             "Exit status: 0 accepted (or committed with --wait), 1 refused or failed (the reason is printed).");
  ck->callback([co, &exit_code] { exit_code = run_checkpoint(*co); });

  auto ro = std::make_shared<launcher::RestartOptions>();
  auto interval = std::make_shared<std::string>();
  auto recover = std::make_shared<std::string>();
  auto common = std::make_shared<CommonOptions>();
  CLI::App* rs = app.add_subcommand(
      "restart", "Restart a job from a snapshot (like ompi-restart): a snapshot directory, or a job's store "
                 "directory for its newest valid snapshot");
  rs->add_option("snapshot", ro->path, "<store>/<job>.<id>/<seq>, or <store>/<job>.<id>")->required();
  rs->add_option("-H,--host", ro->hosts, "Hosts as h1[:slots],h2 (default: the snapshot's hosts)")->type_name("HOSTS");
  rs->add_option("-n,--np", ro->np,
                 "Ranks of the restarted job (default: the snapshot's); another count needs an application-level "
                 "snapshot (cr=app) whose state allows it")
      ->check(CLI::PositiveNumber)
      ->type_name("M");  // main() turns mpirun's -np into --np
  rs->add_option("--hostfile", ro->hostfile, "File of hosts, one per line: 'host slots=N'")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  common->add_to(*rs);
  rs->add_option("--timeout", ro->timeout, "Stop the restored job after SECONDS and exit with status 124")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  rs->add_flag("--tag-output", ro->tag_output, "Prefix each output line with [jobid,rank]<stdout>: or <stderr>:");
  rs->add_option("--checkpoint-interval", *interval, "Checkpoint the restored job every DURATION (30s, 2m, 500ms)")
      ->type_name("DURATION");
  rs->add_option("--recover", *recover, "'auto': when a rank dies, restart from the newest snapshot again")
      ->check(CLI::IsMember({"auto", "off"}));
  rs->add_option("--max-restarts", ro->max_restarts, "Restarts --recover auto may make (default 3)")
      ->check(CLI::NonNegativeNumber);
  rs->footer("The snapshot is verified first: a damaged or truncated file is refused, naming it (from a store\n"
             "directory the newest snapshot that verifies is used). Core-image snapshots (cr=criu) are\n"
             "restored in a new PID namespace, so a restart works while the original job still runs (an\n"
             "ordinary user's in a user namespace of its own, too). Application-level snapshots (cr=app) start the program\n"
             "again, which loads its registered variables (no privilege needed; -np M redistributes\n"
             "decomposed arrays). New snapshots of the restored job go to the same store.\n"
             "With --host/--hostfile naming other hosts (placed as by `lazarus run`), each rank comes back on\n"
             "its host: core images through that host's helper (started with launch_agent, default ssh),\n"
             "which restores them in its own PID namespace; application-level ranks by starting the program\n"
             "there. The snapshot must be on a path every host sees (a shared file system).");
  rs->callback([ro, interval, recover, common, &exit_code] {
    launcher::RestartOptions o = *ro;
    o.mca = common->mca;
    o.config_files = common->config_files;
    if (!interval->empty()) {
      auto d = parse_duration(*interval, "--checkpoint-interval");
      if (!d.ok()) {
        print_error(d.status());
        exit_code = 2;
        return;
      }
      o.checkpoint_interval = *d;
    }
    o.recover = *recover == "auto";
    o.command_line = {"lazarus", "restart", o.path};
    exit_code = launcher::run_restart(o);
  });
}

}  // namespace lz::cli
