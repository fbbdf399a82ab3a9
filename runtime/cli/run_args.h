// The words of an mpirun / mpiexec command line, before option parsing:
// the spellings of Open MPI (4.1 and 5.x), MPICH's Hydra and the MPI
// standard's mpiexec brought to Lazarus' own, option files expanded, and the
// line cut into its programs (MPMD contexts).
//
//   mpirun [global and local options] prog1 args : [local options] prog2 args : ...
//   mpirun --app FILE            Open MPI's appfile: one context per line
//   mpiexec -configfile FILE     Hydra's (and -file, the standard's): likewise
//   mpirun --tune FILE           Open MPI: options read from FILE, put in its place
//
//   LZ_ASSIGN_OR_RETURN(RunWords w, split_run_words(args));
//   w.contexts[0].options   ("--np", "4", "--host", "a,b") for CLI11
//   w.contexts[0].program   ("./prog", "x")
//
// Single-dash long options (-np, -host, -genv, -ppn, -wdir ...) become their
// double-dash forms; a single-dash word that is no known option is an error
// naming it (it would otherwise read as a cluster of one-letter options).
#pragma once

#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::cli {

struct RunContext {
  std::vector<std::string> options;  // canonical spellings, with their values
  std::vector<std::string> program;  // the program and its arguments (empty: none given)
};

struct RunWords {
  std::vector<RunContext> contexts;  // at least one
};

// How many values option `name` (canonical, "--np") takes; -1: not an
// option of mpirun's.
int run_option_arity(const std::string& name);
// Whether `name` may be given per program (MPMD context), not only once.
bool is_context_option(const std::string& name);

// Splits the words after `mpirun` (or `lazarus run`). Errors name the word,
// the file and line, or the context at fault.
StatusOr<RunWords> split_run_words(const std::vector<std::string>& args);

// Splits one line of an option file as a shell would (quotes, backslashes);
// '#' starts a comment outside quotes.
StatusOr<std::vector<std::string>> shell_words(const std::string& line);

}  // namespace lz::cli
