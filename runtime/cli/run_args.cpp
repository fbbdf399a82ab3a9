#include "run_args.h"

#include <fstream>
#include <map>

namespace lz::cli {
namespace {

struct OptionWord {
  const char* name;  // canonical
  int arity;
  bool context;  // may be given per program
};

// Every option mpirun takes (run_command.cpp defines their meaning and help).
// clang-format off
constexpr OptionWord kOptions[] = {
    // The program's own (per MPMD context).
    {"--np", 1, true}, {"-n", 1, true}, {"-x", 1, true}, {"--env", 2, true}, {"--envall", 0, true},
    {"--envnone", 0, true}, {"--envlist", 1, true}, {"--wdir", 1, true}, {"--path", 1, true}, {"--host", 1, true},
    {"-H", 1, true}, {"--hosts", 1, true}, {"--arch", 1, true}, {"--soft", 1, true},
    // The job's.
    {"--hostfile", 1, false}, {"--mca", 2, false}, {"--gmca", 2, false}, {"--am", 1, false},
    {"--config", 1, false}, {"--genv", 2, false}, {"--genvall", 0, false}, {"--genvnone", 0, false},
    {"--genvlist", 1, false}, {"--timeout", 1, false}, {"--oversubscribe", 0, false},
    {"--nooversubscribe", 0, false}, {"--tag-output", 0, false}, {"--timestamp-output", 0, false},
    {"--merge-stderr-to-stdout", 0, false}, {"--prepend-rank", 0, false}, {"--output-filename", 1, false},
    {"--output", 1, false}, {"--outfile-pattern", 1, false}, {"--errfile-pattern", 1, false},
    {"--checkpoint-interval", 1, false}, {"--recover", 1, false}, {"--max-restarts", 1, false},
    {"--bind-to", 1, false}, {"--map-by", 1, false}, {"--rank-by", 1, false}, {"--report-bindings", 0, false},
    {"--display-map", 0, false}, {"--display-allocation", 0, false}, {"--display", 1, false},
    {"--npernode", 1, false}, {"-N", 1, false}, {"--ppn", 1, false}, {"--cpus-per-proc", 1, false},
    {"--nolocal", 0, false}, {"--allow-run-as-root", 0, false}, {"--noprefix", 0, false}, {"--prefix", 1, false},
    {"--preload-binary", 0, false}, {"--stdin", 1, false}, {"--launcher", 1, false},
    {"--launcher-exec", 1, false}, {"--iface", 1, false}, {"--help", 0, false}, {"-h", 0, false},
    // Where the programs (or options) come from: expanded by split_run_words.
    {"--app", 1, false}, {"--configfile", 1, false}, {"--file", 1, false}, {"--tune", 1, false},
};
// clang-format on

// Other spellings of the options above: Open MPI's and Hydra's single-dash
// and short forms, the standard's, Open MPI 5's.
const std::map<std::string, std::string>& aliases() {
  static const std::map<std::string, std::string> m = {
      {"--n", "--np"},
      {"-c", "--np"},
      {"-np", "--np"},
      {"-machinefile", "--hostfile"},
      {"--machinefile", "--hostfile"},
      {"-f", "--hostfile"},
      {"--default-hostfile", "--hostfile"},
      {"-wd", "--wdir"},
      {"--wd", "--wdir"},
      {"-l", "--prepend-rank"},
      {"--cpus-per-rank", "--cpus-per-proc"},
      {"-help", "--help"},
      {"-genv", "--genv"},
      {"-env", "--env"},
  };
  return m;
}

const OptionWord* find_option(const std::string& name) {
  for (const auto& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

// Canonical spelling of an option word ("-np" -> "--np", "-host=a" keeps
// its "=a"); "" when it is no option of mpirun's.
std::string canonical(const std::string& word) {
  const size_t eq = word.find('=');
  const std::string name = word.substr(0, eq);
  const std::string rest = eq == std::string::npos ? "" : word.substr(eq);
  if (auto it = aliases().find(name); it != aliases().end()) return it->second + rest;
  if (find_option(name) != nullptr) return word;
  // A single-dash long option: Open MPI's -np, -host ...; Hydra's -genv, -ppn ...
  if (name.size() > 2 && name[0] == '-' && name[1] != '-' && find_option("-" + name) != nullptr) return "-" + word;
  return "";
}

Status read_lines(const std::string& path, const char* what, std::vector<std::vector<std::string>>* out) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read the " + std::string(what) + " '" + path + "'");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto words = shell_words(line);
    if (!words.ok()) return InvalidArgument(path + ":" + std::to_string(n) + ": " + words.status().message());
    if (!words->empty()) out->push_back(std::move(*words));
  }
  return Status::Ok();
}

// Reads one context's options up to its program; `words` from `i`.
Status read_context(std::vector<std::string>& words, size_t& i, RunContext& c, const std::string& where) {
  while (i < words.size() && words[i] != ":") {
    const std::string& w = words[i];
    if (w == "--") {
      ++i;
      break;
    }
    if (w.size() < 2 || w[0] != '-') break;
    const std::string canon = canonical(w);
    if (canon.empty())
      return InvalidArgument("unknown option '" + w + "'" + where +
                             " (see mpirun --help for the options, with "
                             "Open MPI's and MPICH's spellings)");
    if (canon == "--tune" || canon.rfind("--tune=", 0) == 0) {
      // Open MPI's --tune FILE: the options it holds, in its place.
      const bool inline_value = canon != "--tune";
      if (!inline_value && i + 1 >= words.size()) return InvalidArgument("option '" + w + "' needs a file" + where);
      const std::string file = inline_value ? canon.substr(7) : words[i + 1];
      std::vector<std::vector<std::string>> lines;
      LZ_RETURN_IF_ERROR(read_lines(file, "--tune file", &lines));
      words.erase(words.begin() + static_cast<long>(i), words.begin() + static_cast<long>(i) + (inline_value ? 1 : 2));
      for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        words.insert(words.begin() + static_cast<long>(i), it->begin(), it->end());
      continue;
    }
    c.options.push_back(canon);
    ++i;
    if (canon.find('=') != std::string::npos) continue;
    const OptionWord* o = find_option(canon);
    for (int k = 0; k < o->arity; ++k) {
      if (i >= words.size() || words[i] == ":")
        return InvalidArgument("option '" + w + "' needs " + std::to_string(o->arity) + " value" +
                               (o->arity == 1 ? "" : "s") + where);
      c.options.push_back(words[i++]);
    }
  }
  while (i < words.size() && words[i] != ":") c.program.push_back(words[i++]);
  return Status::Ok();
}

// A program after the first may carry only options of its own (-np, -x,
// -env, -wdir, -path, -host ...): the job's come before the first program.
Status only_context_options(const RunContext& c, const std::string& where) {
  for (size_t k = 0; k < c.options.size();) {
    const std::string& o = c.options[k];
    const std::string name = o.substr(0, o.find('='));
    if (!is_context_option(name))
      return InvalidArgument("option '" + o + "'" + where +
                             " applies to the whole job: give it before the first "
                             "program");
    k += 1 + (o.find('=') == std::string::npos ? static_cast<size_t>(run_option_arity(name)) : 0);
  }
  return Status::Ok();
}

}  // namespace

int run_option_arity(const std::string& name) {
  const OptionWord* o = find_option(name);
  return o == nullptr ? -1 : o->arity;
}

bool is_context_option(const std::string& name) {
  const OptionWord* o = find_option(name);
  return o != nullptr && o->context;
}

StatusOr<std::vector<std::string>> shell_words(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        cur += line[++i];
      } else {
        cur += c;
      }
      continue;
    }
    if (c == '#' && !in_word) break;
    if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) out.push_back(std::move(cur)), cur.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '\\' && i + 1 < line.size())
      cur += line[++i];
    else
      cur += c;
  }
  if (quote != 0) return InvalidArgument(std::string("unterminated ") + quote + " quote");
  if (in_word) out.push_back(std::move(cur));
  return out;
}

StatusOr<RunWords> split_run_words(const std::vector<std::string>& args) {
  std::vector<std::string> words = args;
  RunWords out;
  size_t i = 0;
  RunContext first;
  LZ_RETURN_IF_ERROR(read_context(words, i, first, ""));
  // --app / -configfile / -file FILE: the contexts come from the file, one
  // per line; the command line holds the job's options only.
  std::string file, file_kind;
  std::vector<std::string> kept;
  for (size_t k = 0; k < first.options.size(); ++k) {
    const std::string& o = first.options[k];
    if ((o == "--app" || o == "--configfile" || o == "--file") && k + 1 < first.options.size()) {
      file = first.options[++k];
      file_kind = o;
      continue;
    }
    kept.push_back(o);
  }
  if (file.empty()) {
    out.contexts.push_back(std::move(first));
    while (i < words.size() && words[i] == ":") {
      ++i;
      RunContext c;
      const std::string where = " in program " + std::to_string(out.contexts.size()) + " (after ':')";
      LZ_RETURN_IF_ERROR(read_context(words, i, c, where));
      if (c.program.empty())
        return InvalidArgument("no program after ':' (program " + std::to_string(out.contexts.size()) + ")");
      LZ_RETURN_IF_ERROR(only_context_options(c, where));
      out.contexts.push_back(std::move(c));
    }
    return out;
  }
  if (!first.program.empty() || i < words.size())
    return InvalidArgument(file_kind + " " + file + " gives the programs: the command line names none");
  std::vector<std::vector<std::string>> lines;
  LZ_RETURN_IF_ERROR(read_lines(file, (file_kind + " file").c_str(), &lines));
  if (lines.empty()) return InvalidArgument(file_kind + " " + file + " names no program");
  // Hydra's configfile lines may also be joined by ':'.
  std::vector<std::string> joined;  // the lines' words, one ':' between lines
  for (auto& l : lines) {
    if (!joined.empty()) joined.push_back(":");
    joined.insert(joined.end(), l.begin(), l.end());
  }
  size_t j = 0;
  for (int line = 0; j < joined.size(); ++line) {
    RunContext c;
    const std::string where = " in " + file + " (program " + std::to_string(line) + ")";
    LZ_RETURN_IF_ERROR(read_context(joined, j, c, where));
    if (c.program.empty()) return InvalidArgument(file + ": program " + std::to_string(line) + " names no program");
    LZ_RETURN_IF_ERROR(only_context_options(c, where));
    // The command line's options are the job's: parsed with the first program's.
    if (line == 0) c.options.insert(c.options.begin(), kept.begin(), kept.end());
    out.contexts.push_back(std::move(c));
    if (j < joined.size() && joined[j] == ":") ++j;
  }
  return out;
}

}  // namespace lz::cli
