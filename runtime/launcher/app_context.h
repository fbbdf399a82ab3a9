// AppContext: one program of a job as the command line asks for it. A job
// runs one (SPMD: `mpirun -np 4 ./prog`) or several (MPMD: `mpirun -np 2 a :
// -np 1 b`, an Open MPI appfile, a Hydra configfile); the ranks of program k
// follow those of program k-1, and MPI_APPNUM is k in each.
//
//   AppContext a{.argv = {"./ocean"}, .np = 2};
//   AppContext b{.argv = {"./atmosphere", "-v"}, .np = 1, .exports = {"MODE=fast"}};
//   RunOptions o;  o.apps = {a, b};
#pragma once

#include <string>
#include <vector>

namespace lz::launcher {

// Which of the launcher's environment variables ranks get (Hydra's
// -genvall / -genvnone / -genvlist, and -envall ... per program).
enum class EnvPolicy { kAll, kNone, kList };

struct AppContext {
  std::vector<std::string> argv;     // the program and its arguments
  int np = 0;                        // its ranks; 0: one per slot (a single program only)
  std::vector<std::string> exports;  // -x VAR[=value], -env VAR VALUE: this program's ranks only
  std::string wdir;                  // -wdir: its ranks' working directory (empty: the launcher's)
  std::string path;                  // --path: directories searched for the program first
  std::vector<std::string> hosts;    // -host of this program (empty: the job's hosts)
  bool env_set = false;              // -envall / -envnone / -envlist given for this program
  EnvPolicy env = EnvPolicy::kAll;
  std::vector<std::string> env_list;
};

}  // namespace lz::launcher
