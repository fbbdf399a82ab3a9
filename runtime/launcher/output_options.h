// Where the ranks' output and input go, from mpirun's options:
// --output-filename DIR[:nojobid,nocopy] (Open MPI 4: DIR/1/rank.N/stdout,
// stderr, and still the terminal unless NOCOPY), Open MPI 5's --output
// tag,timestamp,merge-stderr-to-stdout,dir=DIR,file=FILE, Hydra's
// -outfile-pattern / -errfile-pattern (%r rank, %h host, %g 0, %% percent;
// the stream goes to the file only), and --stdin RANK|all|none.
//
//   LZ_ASSIGN_OR_RETURN(OutputSpec out, output_spec(options));
//   LZ_ASSIGN_OR_RETURN(RankOutputFiles f, open_output_files(out, rank, host));
#pragma once

#include <string>
#include <vector>

#include "launcher/job_spec.h"
#include "lazarus/status.h"
#include "lazarus/unique_fd.h"

namespace lz::launcher {

struct RunOptions;

// The output settings of `o`; errors name the option and the bad value.
StatusOr<OutputSpec> output_spec(const RunOptions& o);
// --stdin: "none" (no rank), "all" (every rank), or a rank below np.
StatusOr<std::vector<int>> parse_stdin_target(const std::string& text, int np);

// A rank's output files (invalid: none). out and err may be the same file.
struct RankOutputFiles {
  UniqueFd out, err;
  bool out_only = false, err_only = false;  // the file alone, not the terminal
};
// Creates the rank's files (and their directories) for appending: a rank
// that is restored or moves keeps writing to the same ones.
StatusOr<RankOutputFiles> open_output_files(const OutputSpec& spec, int rank, const std::string& host);

}  // namespace lz::launcher
