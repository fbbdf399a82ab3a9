#include "snapshot/manifest.h"

#include "snapshot/durable_io.h"
#include "snapshot/yaml_fields.h"

namespace lz::snapshot {

namespace {

constexpr const char* kFormatName = "lazarus-job-manifest";

std::string quoted_list(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + yaml_quote(v[i]);
  return s + "]";
}

void append_map(std::string& s, const char* key, const std::vector<std::pair<std::string, std::string>>& kv) {
  if (kv.empty()) {
    s += std::string("  ") + key + ": {}\n";
    return;
  }
  s += std::string("  ") + key + ":\n";
  for (const auto& [k, v] : kv) s += "    " + yaml_quote(k) + ": " + yaml_quote(v) + "\n";
}

}  // namespace

std::string Manifest::format() const {
  std::string s;
  s += "# Lazarus job manifest: the job spec and its committed snapshots (oldest first).\n";
  s += "# The snapshot list is an index: <seq>/COMMITTED is what makes a snapshot restartable.\n";
  s += std::string("format: ") + kFormatName + "\n";
  s += "version: " + std::to_string(kVersion) + "\n";
  s += "job:\n";
  s += "  name: " + yaml_quote(job.name) + "\n";
  s += "  id: " + yaml_quote(job.id) + "\n";
  s += "  argv: " + quoted_list(job.argv) + "\n";
  s += "  np: " + std::to_string(job.np) + "\n";
  s += "  hosts: " + quoted_list(job.hosts) + "\n";
  s += "  cwd: " + yaml_quote(job.cwd) + "\n";
  append_map(s, "parameters", job.parameters);
  append_map(s, "environment", job.environment);
  if (!job.apps.empty()) {
    s += "  apps:\n";
    for (const AppRecord& a : job.apps) {
      s += "    - argv: " + quoted_list(a.argv) + "\n";
      s += "      np: " + std::to_string(a.np) + "\n";
      s += "      cwd: " + yaml_quote(a.cwd) + "\n";
      if (a.environment.empty()) {
        s += "      environment: {}\n";
      } else {
        s += "      environment:\n";
        for (const auto& [k, v] : a.environment) s += "        " + yaml_quote(k) + ": " + yaml_quote(v) + "\n";
      }
    }
  }
  if (snapshots.empty()) {
    s += "snapshots: []\n";
  } else {
    s += "snapshots:\n";
    for (const auto& i : snapshots) {
      s += "  - {seq: " + std::to_string(i.seq) + ", time: " + std::to_string(i.time) +
           ", date: " + yaml_quote(format_utc(i.time)) + ", np: " + std::to_string(i.np) + ", cr: " + yaml_quote(i.cr) +
           ", crcp: " + yaml_quote(i.crcp) + ", total_bytes: " + std::to_string(i.total_bytes) +
           ", file_count: " + std::to_string(i.file_count) +
           (i.depends.empty() ? "" : ", depends: " + seq_list(i.depends)) + "}\n";
    }
  }
  return s;
}

StatusOr<Manifest> Manifest::parse(const std::string& text, const std::string& path) {
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

  Manifest m;
  LZ_ASSIGN_OR_RETURN(YAML::Node job, f.field(root, "job"));
  LZ_RETURN_IF_ERROR(f.require_map(job, "field 'job'"));
  LZ_ASSIGN_OR_RETURN(m.job.name, f.str(job, "name"));
  LZ_ASSIGN_OR_RETURN(m.job.id, f.str(job, "id"));
  LZ_ASSIGN_OR_RETURN(m.job.argv, f.str_list(job, "argv", false));
  LZ_ASSIGN_OR_RETURN(uint64_t np, f.u64(job, "np"));
  if (np > static_cast<uint64_t>(CommitRecord::kMaxRanks))
    return f.error(job["np"], "np " + std::to_string(np) + " is out of range");
  m.job.np = static_cast<int>(np);
  LZ_ASSIGN_OR_RETURN(m.job.hosts, f.str_list(job, "hosts", true));
  LZ_ASSIGN_OR_RETURN(m.job.cwd, f.str(job, "cwd"));
  LZ_ASSIGN_OR_RETURN(m.job.parameters, f.str_map(job, "parameters", true));
  LZ_ASSIGN_OR_RETURN(m.job.environment, f.str_map(job, "environment", true));
  if (job["apps"]) {
    LZ_RETURN_IF_ERROR(f.require_seq(job["apps"], "field 'apps'"));
    int total = 0;
    for (const auto& item : job["apps"]) {
      LZ_RETURN_IF_ERROR(f.require_map(item, "a program of 'apps'"));
      AppRecord a;
      LZ_ASSIGN_OR_RETURN(a.argv, f.str_list(item, "argv", false));
      if (a.argv.empty()) return f.error(item, "a program of 'apps' without argv");
      LZ_ASSIGN_OR_RETURN(uint64_t anp, f.u64(item, "np"));
      if (anp < 1 || anp > static_cast<uint64_t>(CommitRecord::kMaxRanks))
        return f.error(item, "np " + std::to_string(anp) + " of a program is out of range");
      a.np = static_cast<int>(anp);
      total += a.np;
      LZ_ASSIGN_OR_RETURN(a.cwd, f.str(item, "cwd"));
      LZ_ASSIGN_OR_RETURN(a.environment, f.str_map(item, "environment", true));
      m.job.apps.push_back(std::move(a));
    }
    if (total != m.job.np)
      return f.error(job["apps"], "the programs' np add up to " + std::to_string(total) + ", not the job's " +
                                      std::to_string(m.job.np));
  }

  LZ_ASSIGN_OR_RETURN(YAML::Node snaps, f.field(root, "snapshots"));
  LZ_RETURN_IF_ERROR(f.require_seq(snaps, "field 'snapshots'"));
  for (const auto& item : snaps) {
    LZ_RETURN_IF_ERROR(f.require_map(item, "a snapshot entry"));
    SnapshotInfo i;
    LZ_ASSIGN_OR_RETURN(i.seq, f.u64(item, "seq"));
    LZ_ASSIGN_OR_RETURN(i.time, f.i64(item, "time"));
    LZ_ASSIGN_OR_RETURN(uint64_t snp, f.u64(item, "np"));
    if (snp > static_cast<uint64_t>(CommitRecord::kMaxRanks))
      return f.error(item, "np " + std::to_string(snp) + " is out of range");
    i.np = static_cast<int>(snp);
    LZ_ASSIGN_OR_RETURN(i.cr, f.str(item, "cr"));
    LZ_ASSIGN_OR_RETURN(i.crcp, f.str(item, "crcp"));
    LZ_ASSIGN_OR_RETURN(i.total_bytes, f.u64(item, "total_bytes"));
    LZ_ASSIGN_OR_RETURN(i.file_count, f.u64(item, "file_count"));
    LZ_ASSIGN_OR_RETURN(i.depends, f.u64_list(item, "depends", true));
    m.snapshots.push_back(std::move(i));
  }
  return m;
}

StatusOr<Manifest> Manifest::read(const std::string& path) {
  LZ_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kMaxFileBytes));
  return parse(text, path);
}

}  // namespace lz::snapshot
