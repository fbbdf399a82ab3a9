#include "launcher/output_options.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "launcher/launcher.h"
#include "lazarus/strings.h"

namespace lz::launcher {
namespace {

// "%r" rank, "%h" host, "%g" the process group (0: one job), "%%" '%'.
StatusOr<std::string> expand(const std::string& pattern, int rank, const std::string& host, const char* option) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    const char c = i + 1 < pattern.size() ? pattern[++i] : '\0';
    switch (c) {
      case 'r':
        out += std::to_string(rank);
        break;
      case 'h':
        out += host;
        break;
      case 'g':
        out += '0';
        break;
      case '%':
        out += '%';
        break;
      default:
        return InvalidArgument(std::string(option) + " '" + pattern + "': unknown %" + std::string(1, c) +
                               " (known: %r rank, %h host, %g group, %% percent)");
    }
  }
  return out;
}

StatusOr<UniqueFd> open_append(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoError("cannot create the output file " + path, errno);
  return fd;
}

}  // namespace

StatusOr<OutputSpec> output_spec(const RunOptions& o) {
  OutputSpec s;
  s.tag = o.tag_output;
  s.timestamp = o.timestamp_output;
  s.prepend_rank = o.prepend_rank;
  s.merge_stderr = o.merge_stderr;
  s.out_pattern = o.outfile_pattern;
  s.err_pattern = o.errfile_pattern;
  if (!o.output_dir.empty()) {
    // DIR[:directive,...]; a relative DIR is the launcher's directory's.
    std::string dir = o.output_dir;
    const size_t colon = dir.find(':');
    if (colon != std::string::npos) {
      for (const std::string& d : str::split(dir.substr(colon + 1), ',')) {
        const std::string w = str::to_lower(d);
        if (w == "nojobid")
          s.dir_jobid = false;
        else if (w == "nocopy")
          s.copy = false;
        else
          return InvalidArgument("--output-filename '" + o.output_dir + "': unknown directive '" + d +
                                 "' (known: nojobid, nocopy)");
      }
      dir.resize(colon);
    }
    if (dir.empty()) return InvalidArgument("--output-filename: no directory given");
    std::error_code ec;
    s.dir = std::filesystem::absolute(dir, ec).string();
    if (ec) s.dir = dir;
  }
  return s;
}

StatusOr<std::vector<int>> parse_stdin_target(const std::string& text, int np) {
  std::vector<int> ranks;
  if (text == "none") return ranks;
  if (text == "all") {
    for (int r = 0; r < np; ++r) ranks.push_back(r);
    return ranks;
  }
  char* end = nullptr;
  const long r = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || r < 0 || r >= np)
    return InvalidArgument("--stdin '" + text + "': expected a rank below " + std::to_string(np) + ", all or none");
  ranks.push_back(static_cast<int>(r));
  return ranks;
}

StatusOr<RankOutputFiles> open_output_files(const OutputSpec& spec, int rank, const std::string& host) {
  RankOutputFiles f;
  if (!spec.dir.empty()) {
    const std::string base = spec.dir + (spec.dir_jobid ? "/1" : "") + "/rank." + std::to_string(rank);
    LZ_ASSIGN_OR_RETURN(f.out, open_append(base + "/stdout"));
    LZ_ASSIGN_OR_RETURN(f.err, open_append(base + "/stderr"));
    f.out_only = f.err_only = !spec.copy;
  }
  std::string out_path, err_path;
  if (!spec.out_pattern.empty()) {
    LZ_ASSIGN_OR_RETURN(out_path, expand(spec.out_pattern, rank, host, "-outfile-pattern"));
    LZ_ASSIGN_OR_RETURN(f.out, open_append(out_path));
    f.out_only = true;
  }
  if (!spec.err_pattern.empty()) {
    LZ_ASSIGN_OR_RETURN(err_path, expand(spec.err_pattern, rank, host, "-errfile-pattern"));
    if (err_path == out_path) {
      f.err = UniqueFd(dup(f.out.get()));
    } else {
      LZ_ASSIGN_OR_RETURN(f.err, open_append(err_path));
    }
    f.err_only = true;
  }
  return f;
}

}  // namespace lz::launcher
