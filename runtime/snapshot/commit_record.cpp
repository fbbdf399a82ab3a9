#include "snapshot/commit_record.h"

#include <ctime>
#include <set>

#include "snapshot/durable_io.h"
#include "snapshot/file_hasher.h"
#include "snapshot/yaml_fields.h"

namespace lz::snapshot {

namespace {
constexpr const char* kFormatName = "lazarus-snapshot-commit";
constexpr std::string_view kChecksumKey = "commit_checksum: ";
}  // namespace

std::string seq_list(const std::vector<uint64_t>& seqs) {
  std::string s = "[";
  for (size_t i = 0; i < seqs.size(); ++i) s += (i ? ", " : "") + std::to_string(seqs[i]);
  return s + "]";
}

std::string format_utc(int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  char buf[32] = "";
  if (gmtime_r(&tt, &tm)) std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool is_safe_relative_path(std::string_view p) {
  if (p.empty() || p.front() == '/') return false;
  for (char c : p) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

uint64_t CommitRecord::total_bytes() const {
  uint64_t t = 0;
  for (const auto& f : files) t += f.size;
  return t;
}

SnapshotInfo CommitRecord::info(const std::string& dir) const {
  SnapshotInfo i;
  i.seq = seq;
  i.time = meta.time;
  i.np = meta.np;
  i.cr = meta.cr;
  i.crcp = meta.crcp;
  i.total_bytes = total_bytes();
  i.file_count = files.size();
  i.path = dir;
  i.depends = depends;
  return i;
}

std::string CommitRecord::format() const {
  std::string s;
  s.reserve(256 + files.size() * 96);
  s += "# Lazarus snapshot commit record: written last; its presence commits the snapshot.\n";
  s += std::string("format: ") + kFormatName + "\n";
  s += "version: " + std::to_string(depends.empty() ? kVersionSelfContained : kVersion) + "\n";
  s += "seq: " + std::to_string(seq) + "\n";
  s += "time: " + std::to_string(meta.time) + "\n";
  s += "date: " + yaml_quote(format_utc(meta.time)) + "\n";
  s += "np: " + std::to_string(meta.np) + "\n";
  s += "cr: " + yaml_quote(meta.cr) + "\n";
  s += "crcp: " + yaml_quote(meta.crcp) + "\n";
  if (!meta.job.empty()) s += "job: " + yaml_quote(meta.job) + "\n";
  if (!depends.empty()) s += "depends: " + seq_list(depends) + "\n";
  s += std::string("checksum: ") + FileHasher::kAlgorithm + "\n";
  s += "file_count: " + std::to_string(files.size()) + "\n";
  s += "total_bytes: " + std::to_string(total_bytes()) + "\n";
  if (files.empty()) {
    s += "files: []\n";
  } else {
    s += "files:\n";
    for (const auto& f : files) {
      s += "  - {path: " + yaml_quote(f.path) + ", size: " + std::to_string(f.size) + ", xxh3: \"" +
           FileHasher::to_hex(f.xxh3) + "\"}\n";
    }
  }
  // Covers every byte above, so a damaged COMMITTED is told apart from a
  // damaged rank file.
  s += std::string(kChecksumKey) + "\"" + FileHasher::to_hex(FileHasher::hash_bytes(s)) + "\"\n";
  return s;
}

StatusOr<CommitRecord> CommitRecord::parse(const std::string& text, const std::string& path) {
  // The self-checksum first: it is the last line, over everything before it.
  size_t pos = text.rfind(std::string("\n") + std::string(kChecksumKey));
  if (pos == std::string::npos)
    return DataLoss(path + ": no commit_checksum line: the file is truncated or not a COMMITTED record");
  size_t body_end = pos + 1;
  size_t line = 1;
  for (size_t i = 0; i < body_end; ++i) line += text[i] == '\n';
  std::string_view rest = std::string_view(text).substr(body_end + kChecksumKey.size());
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ' || rest.back() == '\r')) rest.remove_suffix(1);
  if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"') rest = rest.substr(1, rest.size() - 2);
  auto want = FileHasher::from_hex(rest);
  if (!want)
    return DataLoss(path + ":" + std::to_string(line) + ": commit_checksum is not 16 hex digits");
  uint64_t got = FileHasher::hash_bytes(std::string_view(text).substr(0, body_end));
  if (got != *want)
    return DataLoss(path + " is corrupted: its checksum is " + FileHasher::to_hex(got) + ", its last line says " +
                    FileHasher::to_hex(*want));

  LZ_ASSIGN_OR_RETURN(YAML::Node root, yaml_load(text, path));
  YamlFields f(path);
  LZ_RETURN_IF_ERROR(f.require_map(root, "the document"));
  LZ_ASSIGN_OR_RETURN(std::string fmt, f.str(root, "format"));
  if (fmt != kFormatName) return f.error(root["format"], "format is '" + fmt + "', expected '" + kFormatName + "'");
  LZ_ASSIGN_OR_RETURN(uint64_t version, f.u64(root, "version"));
  if (version > static_cast<uint64_t>(kVersion))
    return Unimplemented(path + ": format version " + std::to_string(version) +
                         " was written by a newer Lazarus (this one reads version " + std::to_string(kVersion) +
                         ")");
  if (version < 1) return f.error(root["version"], "version 0 is not a valid format version");

  CommitRecord r;
  LZ_ASSIGN_OR_RETURN(r.seq, f.u64(root, "seq"));
  LZ_ASSIGN_OR_RETURN(r.meta.time, f.i64(root, "time"));
  LZ_ASSIGN_OR_RETURN(uint64_t np, f.u64(root, "np"));
  if (np > static_cast<uint64_t>(kMaxRanks)) return f.error(root["np"], "np " + std::to_string(np) + " is out of range");
  r.meta.np = static_cast<int>(np);
  LZ_ASSIGN_OR_RETURN(r.meta.cr, f.str(root, "cr"));
  LZ_ASSIGN_OR_RETURN(r.meta.crcp, f.str(root, "crcp"));
  if (root["job"]) {
    LZ_ASSIGN_OR_RETURN(r.meta.job, f.str(root, "job"));
  }
  if (root["depends"]) {
    if (version < 2) return f.error(root["depends"], "field 'depends' needs format version 2, the record says 1");
    LZ_ASSIGN_OR_RETURN(r.depends, f.u64_list(root, "depends", false));
    if (r.depends.empty()) return f.error(root["depends"], "field 'depends' is an empty list");
    for (size_t i = 0; i < r.depends.size(); ++i) {
      if (r.depends[i] == 0 || r.depends[i] >= r.seq)
        return f.error(root["depends"], "snapshot " + std::to_string(r.seq) + " depends on snapshot " +
                                            std::to_string(r.depends[i]) + ", which is not an older snapshot");
      if (i > 0 && r.depends[i] <= r.depends[i - 1])
        return f.error(root["depends"], "field 'depends' is not sorted without duplicates");
    }
  }
  LZ_ASSIGN_OR_RETURN(std::string algo, f.str(root, "checksum"));
  if (algo != FileHasher::kAlgorithm)
    return f.error(root["checksum"], "unknown checksum algorithm '" + algo + "' (expected " +
                                         FileHasher::kAlgorithm + ")");
  LZ_ASSIGN_OR_RETURN(uint64_t count, f.u64(root, "file_count"));
  LZ_ASSIGN_OR_RETURN(uint64_t total, f.u64(root, "total_bytes"));
  LZ_ASSIGN_OR_RETURN(YAML::Node files, f.field(root, "files"));
  LZ_RETURN_IF_ERROR(f.require_seq(files, "field 'files'"));
  if (files.size() != count || count > kMaxFiles)
    return f.error(files, "lists " + std::to_string(files.size()) + " files, file_count says " + std::to_string(count));
  r.files.reserve(files.size());
  std::set<std::string> seen;
  uint64_t sum = 0;
  for (const auto& item : files) {
    LZ_RETURN_IF_ERROR(f.require_map(item, "a file entry"));
    CommittedFile cf;
    LZ_ASSIGN_OR_RETURN(cf.path, f.str(item, "path"));
    if (!is_safe_relative_path(cf.path))
      return f.error(item, "file path '" + cf.path + "' is not a plain relative path inside the snapshot");
    if (cf.path == kCommittedFile) return f.error(item, "COMMITTED lists itself");
    if (!seen.insert(cf.path).second) return f.error(item, "file '" + cf.path + "' is listed twice");
    LZ_ASSIGN_OR_RETURN(cf.size, f.u64(item, "size"));
    LZ_ASSIGN_OR_RETURN(std::string hex, f.str(item, "xxh3"));
    auto h = FileHasher::from_hex(hex);
    if (!h) return f.error(item, "xxh3 of '" + cf.path + "' is not 16 hex digits: '" + hex + "'");
    cf.xxh3 = *h;
    if (sum + cf.size < sum) return f.error(item, "file sizes overflow");
    sum += cf.size;
    r.files.push_back(std::move(cf));
  }
  if (sum != total)
    return f.error(root["total_bytes"], "total_bytes is " + std::to_string(total) + ", the files add up to " +
                                            std::to_string(sum));
  return r;
}

StatusOr<CommitRecord> CommitRecord::read(const std::string& path) {
  LZ_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kMaxFileBytes));
  return parse(text, path);
}

}  // namespace lz::snapshot
