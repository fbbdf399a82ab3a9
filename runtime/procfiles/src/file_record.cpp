#include "lazarus/procfiles/file_record.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "lazarus/write_file_at.h"

namespace lz::procfiles {
namespace {

constexpr const char* kFormat = "lazarus-files";
constexpr int kVersion = 1;

struct Named {
  const char* name;
  int value;
};
constexpr Named kPolicies[] = {{"truncate", static_cast<int>(Policy::kTruncate)},
                               {"copy", static_cast<int>(Policy::kCopy)},
                               {"keep", static_cast<int>(Policy::kKeep)}};
constexpr Named kActions[] = {{"truncate", static_cast<int>(Action::kTruncate)},
                              {"copy", static_cast<int>(Action::kCopy)},
                              {"keep", static_cast<int>(Action::kKeep)},
                              {"check", static_cast<int>(Action::kCheck)}};

template <size_t N>
const char* name_of(const Named (&table)[N], int v) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return "?";
}

template <size_t N>
StatusOr<int> value_of(const Named (&table)[N], std::string_view text, const char* what) {
  std::string choices;
  for (const auto& e : table) {
    if (text == e.name) return e.value;
    choices += (choices.empty() ? "" : ", ") + std::string(e.name);
  }
  return InvalidArgument(std::string(what) + " '" + std::string(text) + "': expected one of " + choices);
}

std::string emit(const ProcessFiles& pf) {
  YAML::Emitter y;
  y << YAML::Comment("Lazarus: the files this process held at its checkpoint, and what a restart does to each");
  y << YAML::BeginMap;
  y << YAML::Key << "format" << YAML::Value << kFormat;
  y << YAML::Key << "version" << YAML::Value << kVersion;
  y << YAML::Key << "pid" << YAML::Value << pf.pid;
  y << YAML::Key << "cwd" << YAML::Value << YAML::DoubleQuoted << pf.cwd;
  y << YAML::Key << "policy" << YAML::Value << policy_name(pf.policy);
  y << YAML::Key << "copy_max" << YAML::Value << pf.copy_max;
  y << YAML::Key << "files" << YAML::Value << YAML::BeginSeq;
  for (const FileRecord& f : pf.files) {
    y << YAML::BeginMap;
    y << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << f.path;
    y << YAML::Key << "written" << YAML::Value << f.written;
    y << YAML::Key << "mapped_shared" << YAML::Value << f.mapped_shared;
    y << YAML::Key << "size" << YAML::Value << f.size;
    y << YAML::Key << "dev" << YAML::Value << f.dev;
    y << YAML::Key << "ino" << YAML::Value << f.ino;
    y << YAML::Key << "mtime_ns" << YAML::Value << f.mtime_ns;
    y << YAML::Key << "mode" << YAML::Value << f.mode;
    y << YAML::Key << "action" << YAML::Value << action_name(f.action);
    if (!f.copy.empty()) y << YAML::Key << "copy" << YAML::Value << YAML::DoubleQuoted << f.copy;
    if (!f.note.empty()) y << YAML::Key << "note" << YAML::Value << YAML::DoubleQuoted << f.note;
    y << YAML::Key << "holders" << YAML::Value << YAML::BeginSeq;
    for (const Holder& h : f.holders) {
      y << YAML::Flow << YAML::BeginMap;
      y << YAML::Key << "pid" << YAML::Value << h.pid;
      y << YAML::Key << "fd" << YAML::Value << h.fd;
      if (h.fd >= 0) {
        y << YAML::Key << "flags" << YAML::Value << h.flags;
        y << YAML::Key << "pos" << YAML::Value << h.pos;
      } else {
        y << YAML::Key << "map" << YAML::Value << h.map;
      }
      y << YAML::EndMap;
    }
    y << YAML::EndSeq;
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

// Every yaml-cpp exception stays in here, as a kDataLoss naming the file.
StatusOr<ProcessFiles> parse(const std::string& text, const std::string& path) {
  auto bad = [&](const std::string& what) { return DataLoss(path + ": " + what); };
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return bad("not a Lazarus file record");
    if (!root["format"] || root["format"].as<std::string>() != kFormat) return bad("not a Lazarus file record");
    const int version = root["version"].as<int>();
    if (version != kVersion)
      return bad("record version " + std::to_string(version) + " (this Lazarus reads " + std::to_string(kVersion) +
                 ")");
    ProcessFiles pf;
    pf.pid = root["pid"].as<pid_t>();
    pf.cwd = root["cwd"].as<std::string>();
    auto pol = parse_policy(root["policy"].as<std::string>());
    if (!pol.ok()) return bad(pol.status().message());
    pf.policy = *pol;
    pf.copy_max = root["copy_max"].as<uint64_t>();
    const YAML::Node files = root["files"];
    if (!files.IsSequence()) return bad("'files' is not a list");
    for (const YAML::Node& n : files) {
      FileRecord f;
      f.path = n["path"].as<std::string>();
      if (f.path.empty() || f.path[0] != '/') return bad("file path '" + f.path + "' is not absolute");
      f.written = n["written"].as<bool>();
      f.mapped_shared = n["mapped_shared"].as<bool>();
      f.size = n["size"].as<uint64_t>();
      f.dev = n["dev"].as<uint64_t>();
      f.ino = n["ino"].as<uint64_t>();
      f.mtime_ns = n["mtime_ns"].as<int64_t>();
      f.mode = n["mode"].as<uint32_t>();
      auto act = parse_action(n["action"].as<std::string>());
      if (!act.ok()) return bad(f.path + ": " + act.status().message());
      f.action = *act;
      if (n["copy"]) {
        f.copy = n["copy"].as<std::string>();
        if (f.copy.empty() || f.copy[0] == '/' || f.copy.find("..") != std::string::npos)
          return bad(f.path + ": copy '" + f.copy + "' is not a path inside the rank's directory");
      }
      if (f.action == Action::kCopy && f.copy.empty()) return bad(f.path + ": action copy without a copy");
      if (n["note"]) f.note = n["note"].as<std::string>();
      for (const YAML::Node& h : n["holders"]) {
        Holder hd;
        hd.pid = h["pid"].as<pid_t>();
        hd.fd = h["fd"].as<int>();
        if (hd.fd >= 0) {
          hd.flags = h["flags"].as<int>();
          hd.pos = h["pos"].as<uint64_t>();
        } else {
          hd.map = h["map"].as<std::string>();
        }
        f.holders.push_back(std::move(hd));
      }
      pf.files.push_back(std::move(f));
    }
    return pf;
  } catch (const YAML::Exception& e) {
    return bad(e.what());
  }
}

}  // namespace

const char* policy_name(Policy p) noexcept { return name_of(kPolicies, static_cast<int>(p)); }

StatusOr<Policy> parse_policy(std::string_view text) {
  LZ_ASSIGN_OR_RETURN(int v, value_of(kPolicies, text, "file policy (cr_files)"));
  return static_cast<Policy>(v);
}

const char* action_name(Action a) noexcept { return name_of(kActions, static_cast<int>(a)); }

StatusOr<Action> parse_action(std::string_view text) {
  LZ_ASSIGN_OR_RETURN(int v, value_of(kActions, text, "file action"));
  return static_cast<Action>(v);
}

Status write_process_files(int dir_fd, const ProcessFiles& pf) { return write_file_at(dir_fd, kRecordFile, emit(pf)); }

StatusOr<ProcessFiles> read_process_files(const std::string& rank_dir) {
  const std::string path = rank_dir + "/" + kRecordFile;
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return NotFound(path + " does not exist");
    return ErrnoError("cannot read " + path, errno);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

std::string describe(const FileRecord& f) {
  std::string what = action_name(f.action);
  switch (f.action) {
    case Action::kTruncate:
      what += " to " + std::to_string(f.size) + " bytes";
      break;
    case Action::kCopy:
      what += " (" + f.copy + ", " + std::to_string(f.size) + " bytes)";
      break;
    case Action::kKeep:
    case Action::kCheck:
      what += " (" + std::to_string(f.size) + " bytes)";
      break;
  }
  std::string how = f.written ? "written" : "read";
  if (f.mapped_shared) how += ", mapped shared";
  std::string out = f.path + ": " + how + "; " + what;
  if (!f.note.empty()) out += "; " + f.note;
  return out;
}

}  // namespace lz::procfiles
