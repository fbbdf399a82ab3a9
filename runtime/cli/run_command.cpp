#include "run_command.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cr_commands.h"
#include "launcher/launcher.h"

namespace lz::cli {
namespace {

constexpr const char* kHelpFooter =
    "\nPROGRAM and everything after it are the program and its arguments.\n"
    "Oversubscription (more ranks than slots, e.g. `mpirun -np 4 ./prog` on 2 cores) is ALLOWED by default;\n"
    "--nooversubscribe makes it an error. Without --host/--hostfile the job runs on this host with one\n"
    "slot per core, and -n defaults to the number of slots. Ranks on other hosts are started through a\n"
    "helper per host (this program, `lazarus helper`) that the launch_agent parameter starts (default: ssh;\n"
    "e.g. --mca launch_agent 'ssh -F cfg'); lazarus must be at the same path on every host. Inside a Slurm\n"
    "allocation (SLURM_JOB_ID set) one srun starts a helper on every node of the job instead, and the hosts\n"
    "default to the allocation's nodes with its tasks per node as slots (--mca launcher auto|ssh|slurm|local).\n"
    "Parameters set with --mca/--config/LZ_MCA_* are checked here and passed to every rank.\n"
    "Exit status: 0 when every rank succeeded; otherwise the first failing rank's exit code (128+signal\n"
    "when it was killed), the code given to abort, 124 when --timeout expired, 2 for usage errors.\n";

std::string program_name(const char* argv0) {
  const char* slash = std::strrchr(argv0, '/');
  return slash ? slash + 1 : argv0;
}

// Open MPI spellings with one dash, mapped to ours.
const std::map<std::string, std::string>& single_dash_aliases() {
  static const std::map<std::string, std::string> m = {
      {"-np", "--np"},
      {"-host", "--host"},
      {"-hostfile", "--hostfile"},
      {"-machinefile", "--hostfile"},
      {"--machinefile", "--hostfile"},
      {"-mca", "--mca"},
      {"-config", "--config"},
      {"-timeout", "--timeout"},
      {"-oversubscribe", "--oversubscribe"},
      {"-nooversubscribe", "--nooversubscribe"},
      {"-tag-output", "--tag-output"},
      {"-bind-to", "--bind-to"},
      {"-map-by", "--map-by"},
      {"-report-bindings", "--report-bindings"},
      {"-help", "--help"},
  };
  return m;
}

// Number of values an option takes (for splitting at the program).
int option_arity(const std::string& name) {
  static const std::map<std::string, int> m = {
      {"-n", 1},      {"--np", 1},      {"--n", 1},       {"--host", 1}, {"-H", 1}, {"--hostfile", 1},
      {"--mca", 2},   {"--config", 1},  {"-x", 1},        {"--timeout", 1},
      {"--checkpoint-interval", 1},     {"--recover", 1}, {"--max-restarts", 1},
      {"--bind-to", 1},                 {"--map-by", 1},
  };
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

}  // namespace

bool is_run_invocation(int argc, char** argv) {
  if (argc < 1) return false;
  const std::string name = program_name(argv[0]);
  if (name == "mpirun" || name == "mpiexec") return true;
  return argc >= 2 && std::strcmp(argv[1], "run") == 0;
}

int run_main(int argc, char** argv) {
  const std::string name = program_name(argv[0]);
  const bool as_mpirun = name == "mpirun" || name == "mpiexec";
  const int first = as_mpirun ? 1 : 2;

  launcher::RunOptions o;
  for (int i = 0; i < argc; ++i) o.command_line.emplace_back(argv[i]);

  // Split: launcher options, then the program and its arguments.
  std::vector<std::string> opts;
  int i = first;
  while (i < argc) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') break;
    if (auto it = single_dash_aliases().find(a); it != single_dash_aliases().end()) a = it->second;
    opts.push_back(a);
    ++i;
    if (a.find('=') != std::string::npos) continue;
    for (int k = option_arity(a); k > 0 && i < argc; --k) opts.emplace_back(argv[i++]);
  }
  for (; i < argc; ++i) o.program.emplace_back(argv[i]);

  CLI::App app{"Start a parallel job: PROGRAM on N ranks, with their output, signals and exit status forwarded",
               as_mpirun ? name : "lazarus run"};
  app.footer(kHelpFooter);
  app.add_option("-n,--np", o.np, "Number of ranks (default: one per slot)")->check(CLI::PositiveNumber);
  app.add_option("-H,--host", o.hosts, "Hosts as h1[:slots],h2 (repeatable)")->type_name("HOSTS");
  app.add_option("--hostfile", o.hostfile, "File of hosts, one per line: 'host slots=N'; '#' starts a comment")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  app.add_option("--mca", o.mca, "Set parameter NAME to VALUE for the launcher and every rank (repeatable)")
      ->type_name("NAME VALUE")
      ->allow_extra_args(false);
  app.add_option("--config", o.config_files, "Read parameters from this YAML file (repeatable)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  app.add_option("-x", o.exports, "Export VAR (its current value) or set VAR=value in every rank (repeatable)")
      ->type_name("VAR[=value]")
      ->allow_extra_args(false);
  bool over = false, noover = false;
  app.add_flag("--oversubscribe", over, "Allow more ranks than slots (the default)");
  app.add_flag("--nooversubscribe", noover, "Refuse to run more ranks than slots");
  app.add_flag("--tag-output", o.tag_output, "Prefix each output line with [jobid,rank]<stdout>: or <stderr>:");
  app.add_option("--timeout", o.timeout,
                 "Stop the job after SECONDS (SIGTERM, then SIGKILL), say so, and exit with status 124")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  std::string interval, recover = "off";
  app.add_option("--checkpoint-interval", interval,
                 "Checkpoint the job every DURATION (30s, 2m, 500ms; needs a cr component, e.g. --mca cr criu)")
      ->type_name("DURATION");
  app.add_option("--recover", recover,
                 "'auto': when a rank dies, stop the others and restart the job from its newest snapshot (from the "
                 "start when it has none yet)")
      ->check(CLI::IsMember({"auto", "off"}));
  app.add_option("--max-restarts", o.max_restarts, "Restarts --recover auto may make (default 3)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bind-to", o.bind_to,
                 "Bind each rank to a core, a socket, or nothing (default: core when this host's ranks are no more "
                 "than its cores, otherwise none)")
      ->check(CLI::IsMember({"core", "socket", "none"}))
      ->type_name("core|socket|none");
  app.add_option("--map-by", o.map_by,
                 "Which rank goes where: slot fills each host's slots in turn (the default across hosts), node "
                 "gives the hosts one rank each in turn; on a host, core maps local ranks to consecutive cores "
                 "(the default), socket to the sockets in turn")
      ->check(CLI::IsMember({"slot", "node", "core", "socket"}))
      ->type_name("slot|node|core|socket");
  app.add_flag("--report-bindings", o.report_bindings, "Say on stderr which CPUs each rank is bound to");
  std::vector<std::string> shown_program;
  app.add_option("program", shown_program, "The program to run, then its arguments")->type_name("PROGRAM [ARGS...]");

  std::vector<const char*> cargv;
  std::string self = as_mpirun ? name : "lazarus run";
  cargv.push_back(self.c_str());
  for (const auto& a : opts) cargv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargv.size()), const_cast<char**>(cargv.data()));
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (!shown_program.empty()) {
    // Cannot happen after the split, but keep the arguments if it does.
    o.program.insert(o.program.begin(), shown_program.begin(), shown_program.end());
  }
  if (over && noover) {
    std::fprintf(stderr, "%s: error: --oversubscribe and --nooversubscribe contradict each other\n", self.c_str());
    return 2;
  }
  o.oversubscribe = !noover;
  if (!interval.empty()) {
    auto d = parse_duration(interval, "--checkpoint-interval");
    if (!d.ok()) {
      std::fprintf(stderr, "%s: error: %s\n", self.c_str(), d.status().message().c_str());
      return 2;
    }
    o.checkpoint_interval = *d;
  }
  o.recover = recover == "auto";
  return launcher::run_launcher(o);
}

void add_run_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("run", "Start a parallel job (also installed as mpirun and mpiexec); "
                                            "`lazarus run --help` for its options");
  cmd->allow_extras();
}

}  // namespace lz::cli
