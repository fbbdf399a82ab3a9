#include "run_command.h"

#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "cr_commands.h"
#include "launcher/launcher.h"
#include "run_args.h"

namespace lz::cli {
namespace {

using launcher::AppContext;
using launcher::EnvPolicy;

constexpr const char* kHelpFooter =
    "\nPROGRAM and everything after it are the program and its arguments. Several programs (MPMD):\n"
    "  mpirun [job options] [program options] prog1 args : [program options] prog2 args : ...\n"
    "  mpirun --app FILE (Open MPI appfile), mpiexec -configfile FILE / -file FILE (Hydra, the standard):\n"
    "  one program per line, e.g. '-np 2 ./ocean' then '-np 1 ./atmosphere -v'.\n"
    "Program options (each program's own): -n/-np/-c, -x, -env, -envall, -envnone, -envlist, -wdir, --path,\n"
    "-host/-H/-hosts, -arch, -soft. Every other option is the job's and comes before the first program\n"
    "(those of the first program's options that name hosts are also the job's hosts). Ranks of program k\n"
    "follow those of program k-1; MPI_APPNUM is k in each; MPI_UNIVERSE_SIZE is the hosts' slots.\n"
    "Open MPI's and MPICH Hydra's spellings are accepted: single-dash long options (-np, -host, -genv,\n"
    "-ppn, -wdir, -machinefile, -f ...), Open MPI MCA names (--mca btl self,vader; OMPI_MCA_* in the\n"
    "environment; --am FILE) and MPICH's MPIR_CVAR_* are mapped to Lazarus' parameters where it has the same\n"
    "thing, otherwise accepted with a warning that names them; a misspelled Lazarus name stays an error.\n"
    "Oversubscription (more ranks than slots, e.g. `mpirun -np 4 ./prog` on 2 cores) is ALLOWED by default;\n"
    "--nooversubscribe makes it an error. Without --host/--hostfile the job runs on this host with one\n"
    "slot per core, and -n defaults to the number of slots. Ranks on other hosts are started through a\n"
    "helper per host (this program, `lazarus helper`) that the launch_agent parameter starts (default: ssh;\n"
    "e.g. --mca launch_agent 'ssh -F cfg'); lazarus must be at the same path on every host (or\n"
    "<--prefix>/bin/lazarus). Inside a Slurm allocation (SLURM_JOB_ID set) one srun starts a helper on every\n"
    "node of the job instead, and the hosts default to the allocation's nodes with its tasks per node as\n"
    "slots (--mca launcher auto|ssh|slurm|local).\n"
    "Rank 0 (--stdin) reads mpirun's stdin when it is a file or a pipe (a restored rank reads a file on\n"
    "from where it stopped); other ranks, and every rank when stdin is a terminal, read /dev/null.\n"
    "Parameters set with --mca/--config/LZ_MCA_* are checked here and passed to every rank.\n"
    "Exit status: 0 when every rank succeeded; otherwise the first failing rank's exit code (128+signal\n"
    "when it was killed), the code given to abort, 124 when --timeout expired, 2 for usage errors.\n";

std::string program_name(const char* argv0) {
  const char* slash = std::strrchr(argv0, '/');
  return slash ? slash + 1 : argv0;
}

// The options every program may have (MPMD contexts), bound to `a`.
void add_program_options(CLI::App& app, AppContext& a, std::vector<std::string>& env_pairs, bool& envall, bool& envnone,
                         std::string& envlist, std::string& arch, std::string& soft) {
  app.add_option("-n,--np", a.np, "Number of ranks of this program (default: one per slot); also -np, -c, --n")
      ->check(CLI::PositiveNumber);
  app.add_option("-H,--host,--hosts", a.hosts,
                 "Hosts as h1[:slots],h2 (repeatable; Hydra's -hosts): the job's, or with several programs this "
                 "program's own")
      ->type_name("HOSTS");
  app.add_option("-x", a.exports,
                 "Export VAR (its current value) or set VAR=value in this program's ranks (repeatable)")
      ->type_name("VAR[=value]")
      ->allow_extra_args(false);
  app.add_option("--env", env_pairs, "Hydra: set VAR to VALUE in this program's ranks (-env VAR VALUE, repeatable)")
      ->type_name("VAR VALUE")
      ->expected(2)
      ->allow_extra_args(false);
  app.add_flag("--envall", envall, "Hydra: this program's ranks get the launcher's environment (the default)");
  app.add_flag("--envnone", envnone, "Hydra: this program's ranks get none of the launcher's environment (PATH stays)");
  app.add_option("--envlist", envlist, "Hydra: this program's ranks get only these of the launcher's variables")
      ->type_name("VAR1,VAR2");
  app.add_option("--wdir", a.wdir, "Working directory of this program's ranks (also -wdir, -wd)")->type_name("DIR");
  app.add_option("--path", a.path, "Directories searched for this program first (prepended to its ranks' PATH)")
      ->type_name("DIRS");
  app.add_option("--arch", arch, "MPI standard: the architecture to run on (accepted; every host runs the program)")
      ->type_name("ARCH");
  app.add_option("--soft", soft, "MPI standard: acceptable rank counts (accepted; exactly -n ranks start)")
      ->type_name("COUNTS");
}

// The program's environment options into `a`, and what is accepted but has no effect.
void finish_program(AppContext& a, const std::vector<std::string>& env_pairs, bool envall, bool envnone,
                    const std::string& envlist, const std::string& arch, const std::string& soft, int index,
                    std::vector<std::string>& warnings) {
  for (size_t k = 0; k + 1 < env_pairs.size(); k += 2) a.exports.push_back(env_pairs[k] + "=" + env_pairs[k + 1]);
  if (envnone || !envlist.empty() || envall) {
    a.env_set = true;
    a.env = envnone ? EnvPolicy::kNone : !envlist.empty() ? EnvPolicy::kList : EnvPolicy::kAll;
    for (const std::string& v : CLI::detail::split(envlist, ',')) a.env_list.push_back(v);
  }
  const std::string which = "program " + std::to_string(index);
  if (!arch.empty())
    warnings.push_back("-arch " + arch + " (" + which + ") has no effect: every host runs the program");
  if (!soft.empty()) warnings.push_back("-soft " + soft + " (" + which + ") has no effect: exactly -n ranks start");
}

int usage_error(const std::string& self, const std::string& what) {
  std::fprintf(stderr, "%s: error: %s\n", self.c_str(), what.c_str());
  return 2;
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
  const std::string self = as_mpirun ? name : "lazarus run";

  launcher::RunOptions o;
  for (int i = 0; i < argc; ++i) o.command_line.emplace_back(argv[i]);
  std::vector<std::string> args(argv + first, argv + argc);
  auto words = split_run_words(args);
  if (!words.ok()) return usage_error(self, words.status().message());

  CLI::App app{
      "Start a parallel job: PROGRAM on N ranks (or several programs, MPMD), with their output, signals "
      "and exit status forwarded",
      self};
  app.footer(kHelpFooter);
  app.set_help_flag("-h,--help", "Print this help and exit");
  AppContext a0;
  std::vector<std::string> env_pairs;
  bool envall = false, envnone = false;
  std::string envlist, arch, soft;
  add_program_options(app, a0, env_pairs, envall, envnone, envlist, arch, soft);
  app.add_option("--hostfile", o.hostfile,
                 "File of hosts, one per line: 'host slots=N' (Open MPI) or 'host:N' (Hydra); '#' starts a comment "
                 "(also -hostfile, -machinefile, -f)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  app.add_option("--mca,--gmca", o.mca,
                 "Set parameter NAME to VALUE for the launcher and every rank (repeatable); an Open MPI name is "
                 "mapped or warned about")
      ->type_name("NAME VALUE")
      ->allow_extra_args(false);
  app.add_option("--am", o.ompi_param_files, "Open MPI: read 'name = value' MCA parameters from FILE (repeatable)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  app.add_option("--config", o.config_files, "Read Lazarus parameters from this YAML file (repeatable)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  std::vector<std::string> genv;
  bool genvall = false, genvnone = false;
  std::string genvlist;
  app.add_option("--genv", genv, "Hydra: set VAR to VALUE in every program's ranks (-genv VAR VALUE, repeatable)")
      ->type_name("VAR VALUE")
      ->expected(2)
      ->allow_extra_args(false);
  app.add_flag("--genvall", genvall, "Hydra: ranks get the launcher's environment (the default)");
  app.add_flag("--genvnone", genvnone, "Hydra: ranks get none of the launcher's environment (PATH stays)");
  app.add_option("--genvlist", genvlist, "Hydra: ranks get only these of the launcher's variables")
      ->type_name("VAR1,VAR2");
  bool over = false, noover = false;
  app.add_flag("--oversubscribe", over, "Allow more ranks than slots (the default)");
  app.add_flag("--nooversubscribe", noover, "Refuse to run more ranks than slots");
  app.add_flag("--tag-output", o.tag_output, "Prefix each output line with [jobid,rank]<stdout>: or <stderr>:");
  app.add_flag("--timestamp-output", o.timestamp_output, "Prefix each output line with the time it was forwarded");
  app.add_flag("--prepend-rank", o.prepend_rank, "Hydra: prefix each output line with [rank] (also -l)");
  app.add_flag("--merge-stderr-to-stdout", o.merge_stderr, "Forward every rank's stderr to stdout");
  app.add_option("--output-filename", o.output_dir,
                 "Open MPI 4: also write each rank's output to DIR/1/rank.N/stdout and stderr; DIR:nojobid drops "
                 "the 1/, DIR:nocopy writes the files only")
      ->type_name("DIR[:nojobid,nocopy]");
  std::string output5;
  app.add_option("--output", output5,
                 "Open MPI 5: tag, timestamp, merge-stderr-to-stdout, dir=DIR (as --output-filename), "
                 "file=FILE (FILE.N per rank, files only), comma-separated")
      ->type_name("LIST");
  app.add_option("--outfile-pattern", o.outfile_pattern,
                 "Hydra: each rank's stdout into this file only; %r rank, %h host, %g 0, %% percent")
      ->type_name("PATTERN");
  app.add_option("--errfile-pattern", o.errfile_pattern, "Hydra: each rank's stderr likewise")->type_name("PATTERN");
  app.add_option("--stdin", o.stdin_target, "The rank that reads mpirun's stdin (default 0), all, or none")
      ->type_name("RANK|all|none");
  app.add_option("--timeout", o.timeout,
                 "Stop the job after SECONDS (SIGTERM, then SIGKILL), say so, and exit with status 124")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  std::string interval, recover = "off";
  app.add_option("--checkpoint-interval", interval,
                 "Checkpoint the job every DURATION of running (30s, 2m, 500ms; counted from the end of the previous "
                 "checkpoint; needs a cr component, e.g. --mca cr criu)")
      ->type_name("DURATION");
  app.add_option("--recover", recover,
                 "'auto': when a rank dies, stop the others and restart the job from its newest snapshot (from the "
                 "start when it has none yet)")
      ->check(CLI::IsMember({"auto", "off"}));
  app.add_option("--max-restarts", o.max_restarts, "Restarts --recover auto may make (default 3)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--bind-to", o.bind_to,
                 "Bind each rank to a core, a hardware thread, a socket (package), a NUMA node, an L3 cache, or "
                 "nothing (default: core when this host's ranks are no more than its cores, otherwise none); Open "
                 "MPI's ':overload-allowed'-style modifiers are ignored")
      ->type_name("core|hwthread|socket|numa|l3cache|none");
  app.add_option("--map-by", o.map_by,
                 "Which rank goes where: slot fills each host's slots in turn (the default across hosts), node "
                 "gives the hosts one rank each in turn, ppr:N:node (ppr:N:socket) puts N per host (per socket); "
                 "on a host core maps local ranks to consecutive cores (the default), socket, numa, l3cache to "
                 "those in turn, hwthread to hardware threads; modifiers :PE=n (n cores per rank), "
                 ":OVERSUBSCRIBE, :NOOVERSUBSCRIBE")
      ->type_name("OBJECT[:PE=n]");
  app.add_option("--rank-by", o.rank_by, "slot (the default): ranks follow the mapping; node: round-robin over hosts")
      ->check(CLI::IsMember({"slot", "node", "core", "socket", "hwthread"}))
      ->type_name("slot|node");
  app.add_option("-N,--npernode,--ppn", o.npernode, "Ranks per host (Open MPI -N, -npernode; Hydra -ppn)")
      ->check(CLI::PositiveNumber);
  app.add_option("--cpus-per-proc", o.cpus_per_rank, "Cores each rank is bound to (Open MPI 4; as --map-by ...:PE=n)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--nolocal", o.nolocal, "Run no rank on this host (the launcher's)");
  app.add_flag("--report-bindings", o.report_bindings, "Say on stderr which CPUs each rank is bound to");
  app.add_flag("--display-map", o.display_map,
               "Say on stderr where each rank runs and which program, before it starts");
  app.add_flag("--display-allocation", o.display_allocation, "Say on stderr the job's hosts and their slots");
  std::string display5;
  app.add_option("--display", display5, "Open MPI 5: map, allocation, bind (comma-separated)")->type_name("LIST");
  std::string prefix, launcher, launcher_exec, iface;
  app.add_option("--prefix", prefix,
                 "Lazarus' installation prefix on the other hosts: their helper is PREFIX/bin/lazarus (launch_prefix)")
      ->type_name("DIR");
  bool allow_root = false, noprefix = false, preload = false;
  app.add_flag("--allow-run-as-root", allow_root, "Accepted (Open MPI asks for it; Lazarus runs as root anyway)");
  app.add_flag("--noprefix", noprefix, "Accepted (the other hosts' lazarus is at the same path as this one)");
  app.add_flag("--preload-binary", preload,
               "Accepted with a warning: the program must be at the same path on every host (not copied)");
  app.add_option("--launcher", launcher, "Hydra: how helpers reach other hosts: ssh, rsh, slurm, fork (launcher)")
      ->check(CLI::IsMember({"ssh", "rsh", "slurm", "fork", "local"}));
  app.add_option("--launcher-exec", launcher_exec, "Hydra: the ssh/rsh (or srun) command to use (launch_agent)")
      ->type_name("COMMAND");
  app.add_option("--iface", iface, "Hydra: the network interface for ranks' tcp and the OOB channel")
      ->type_name("IFACE");
  // Read before the options are parsed (run_args.cpp): here for --help.
  std::string files_help;
  app.add_option("--app", files_help, "Open MPI: the programs (MPMD), one per line of FILE: '-np 2 ./a x'")
      ->type_name("FILE");
  app.add_option("--configfile,--file", files_help,
                 "Hydra (-configfile) and the MPI standard (-file): the programs, one per line of FILE")
      ->type_name("FILE");
  app.add_option("--tune", files_help, "Open MPI: more options, read from FILE and put in its place")
      ->type_name("FILE");
  std::vector<std::string> shown_program;
  app.add_option("program", shown_program, "The program to run, then its arguments")->type_name("PROGRAM [ARGS...]");

  std::vector<const char*> cargv;
  cargv.push_back(self.c_str());
  for (const auto& a : words->contexts.front().options) cargv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargv.size()), const_cast<char**>(cargv.data()));
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  a0.argv = words->contexts.front().program;
  a0.argv.insert(a0.argv.begin(), shown_program.begin(), shown_program.end());
  finish_program(a0, env_pairs, envall, envnone, envlist, arch, soft, 0, o.warnings);
  // The first program's hosts are the job's (SPMD: -host is simply where it runs).
  o.hosts = a0.hosts;
  a0.hosts.clear();
  o.apps.push_back(std::move(a0));
  for (size_t c = 1; c < words->contexts.size(); ++c) {
    CLI::App local{"program " + std::to_string(c), self};
    AppContext a;
    std::vector<std::string> pairs;
    bool all = false, none = false;
    std::string list, arch_c, soft_c;
    add_program_options(local, a, pairs, all, none, list, arch_c, soft_c);
    std::vector<const char*> lv{self.c_str()};
    for (const auto& w : words->contexts[c].options) lv.push_back(w.c_str());
    try {
      local.parse(static_cast<int>(lv.size()), const_cast<char**>(lv.data()));
    } catch (const CLI::ParseError& e) {
      return usage_error(self, "program " + std::to_string(c) + ": " + e.what());
    }
    a.argv = words->contexts[c].program;
    finish_program(a, pairs, all, none, list, arch_c, soft_c, static_cast<int>(c), o.warnings);
    o.apps.push_back(std::move(a));
  }

  for (size_t k = 0; k + 1 < genv.size(); k += 2) o.exports.push_back(genv[k] + "=" + genv[k + 1]);
  if (genvnone || !genvlist.empty()) {
    o.env = genvnone ? EnvPolicy::kNone : EnvPolicy::kList;
    for (const std::string& v : CLI::detail::split(genvlist, ',')) o.env_list.push_back(v);
  }
  (void)genvall;
  if (over && noover) return usage_error(self, "--oversubscribe and --nooversubscribe contradict each other");
  o.oversubscribe = !noover;
  o.oversubscribe_given = over || noover;
  for (const std::string& v : CLI::detail::split(output5, ',')) {
    if (v.empty()) continue;
    if (v == "tag")
      o.tag_output = true;
    else if (v == "timestamp")
      o.timestamp_output = true;
    else if (v == "merge-stderr-to-stdout")
      o.merge_stderr = true;
    else if (v.rfind("dir=", 0) == 0)
      o.output_dir = v.substr(4);
    else if (v.rfind("file=", 0) == 0)
      o.outfile_pattern = o.errfile_pattern = v.substr(5) + ".%r";
    else
      return usage_error(self, "--output '" + output5 + "': unknown '" + v +
                                   "' (known: tag, timestamp, merge-stderr-to-stdout, dir=DIR, file=FILE)");
  }
  for (const std::string& v : CLI::detail::split(display5, ',')) {
    if (v.empty()) continue;
    if (v == "map")
      o.display_map = true;
    else if (v == "allocation")
      o.display_allocation = true;
    else if (v == "bind" || v == "bindings")
      o.report_bindings = true;
    else
      return usage_error(self, "--display '" + display5 + "': unknown '" + v + "' (known: map, allocation, bind)");
  }
  if (!prefix.empty()) o.mca.emplace_back("launch_prefix", prefix);
  if (!launcher.empty()) {
    o.mca.emplace_back("launcher", launcher == "fork" ? "local" : launcher == "rsh" ? "ssh" : launcher);
    if (launcher == "rsh" && launcher_exec.empty()) o.mca.emplace_back("launch_agent", "rsh");
  }
  if (!launcher_exec.empty()) o.mca.emplace_back(launcher == "slurm" ? "launch_srun" : "launch_agent", launcher_exec);
  if (!iface.empty()) {
    o.mca.emplace_back("transport_tcp_if_include", iface);
    o.mca.emplace_back("oob_address", iface);
  }
  if (preload)
    o.warnings.push_back("--preload-binary has no effect: the program must be at the same path on every host");
  if (!o.bind_to.empty()) o.bind_to = o.bind_to.substr(0, o.bind_to.find(':'));  // core:overload-allowed ...
  if (!interval.empty()) {
    auto d = parse_duration(interval, "--checkpoint-interval");
    if (!d.ok()) return usage_error(self, d.status().message());
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
