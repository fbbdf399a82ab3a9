#include "snapshot_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lazarus/appfmt/reader.h"
#include "lazarus/procfiles/file_record.h"

namespace lz::cli {
namespace {

namespace fs = std::filesystem;

// The application-level files of `path` (itself, or every one below it), in
// order: *.lzck (the variables) and *.c3 (crcp/c3's message log, same format).
StatusOr<std::vector<std::string>> files_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return std::vector<std::string>{path};
  if (!fs::is_directory(path, ec)) return NotFound(path + " is neither a snapshot file nor a directory");
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && (it->path().extension() == ".lzck" || it->path().extension() == ".c3"))
      out.push_back(it->path().string());
  if (ec) return IoError("cannot list " + path + ": " + ec.message());
  if (out.empty())
    return NotFound("no application-level snapshot file (*.lzck) and no record of a process's files (" +
                    std::string(procfiles::kRecordFile) + ") in " + path +
                    " (core-image snapshots of cr=criu are checked by `lazarus restart`)");
  std::sort(out.begin(), out.end());
  return out;
}

std::string shape_text(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

nlohmann::ordered_json variable_json(const appfmt::VariableInfo& v) {
  nlohmann::ordered_json j{{"name", v.var.name},
                           {"type", appfmt::signature_text(v.var.signature)},
                           {"count", v.var.count},
                           {"raw_bytes", v.raw_bytes},
                           {"stored_bytes", v.stored_bytes},
                           {"zero_blocks", v.zero_blocks},
                           {"base_blocks", v.base_blocks()},
                           {"compressed", v.compressed}};
  char sum[17];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(v.xxh3));
  j["xxh3"] = sum;
  const auto& d = v.var.decomposition;
  if (!d.empty())
    j["decomposition"] = {{"global_shape", d.global_shape}, {"owned_start", d.owned_start},
                          {"owned_shape", d.owned_shape}};
  return j;
}

// The directories below `path` (itself included) that hold a record of a
// process's files (lazarus/procfiles), in order.
std::vector<std::string> file_records_of(const std::string& path) {
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::is_regular_file(fs::path(path) / procfiles::kRecordFile, ec)) out.push_back(path);
  if (!fs::is_directory(path, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().filename() == procfiles::kRecordFile)
      out.push_back(it->path().parent_path().string());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// What a restart does to each file the process held (both back ends).
int show_file_records(const std::vector<std::string>& dirs, bool json, nlohmann::ordered_json& all) {
  int rc = 0;
  for (const std::string& dir : dirs) {
    auto pf = procfiles::read_process_files(dir);
    if (!pf.ok()) {
      std::fprintf(stderr, "lazarus snapshot show: %s\n", pf.status().message().c_str());
      rc = 1;
      continue;
    }
    if (json) {
      nlohmann::ordered_json files = nlohmann::ordered_json::array();
      for (const auto& f : pf->files) {
        nlohmann::ordered_json j{{"path", f.path},           {"written", f.written},
                                 {"mapped_shared", f.mapped_shared}, {"size", f.size},
                                 {"action", procfiles::action_name(f.action)}};
        if (!f.copy.empty()) j["copy"] = f.copy;
        if (!f.note.empty()) j["note"] = f.note;
        files.push_back(j);
      }
      all.push_back({{"files_of", dir},
                     {"pid", pf->pid},
                     {"cwd", pf->cwd},
                     {"policy", procfiles::policy_name(pf->policy)},
                     {"files", files}});
      continue;
    }
    std::printf("%s: files of pid %d (working directory %s), cr_files %s:\n", dir.c_str(), pf->pid,
                pf->cwd.c_str(), procfiles::policy_name(pf->policy));
    if (pf->files.empty()) std::printf("  (none)\n");
    for (const auto& f : pf->files) std::printf("  %s\n", procfiles::describe(f).c_str());
  }
  return rc;
}

int show(const std::string& path, bool json) {
  const std::vector<std::string> records = file_records_of(path);
  auto files = files_of(path);
  if (!files.ok() && (records.empty() || files.status().code() != Code::kNotFound)) {
    std::fprintf(stderr, "lazarus snapshot show: %s\n", files.status().message().c_str());
    return 1;
  }
  if (!files.ok()) files = std::vector<std::string>{};  // a core image: its files' record alone
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  int rc = 0;
  for (const std::string& f : *files) {
    auto r = appfmt::Reader::open(f);
    if (!r.ok()) {
      std::fprintf(stderr, "lazarus snapshot show: %s\n", r.status().message().c_str());
      rc = 1;
      continue;
    }
    const appfmt::Header& h = r->header();
    if (json) {
      nlohmann::ordered_json vars = nlohmann::ordered_json::array();
      for (const auto& v : r->variables()) vars.push_back(variable_json(v));
      nlohmann::ordered_json bases = nlohmann::ordered_json::array();
      for (const auto& b : r->bases()) bases.push_back({{"path", b.path}, {"seq", b.seq}});
      all.push_back({{"file", f},
                     {"job", h.job_id},
                     {"rank", h.rank},
                     {"nranks", h.nranks},
                     {"seq", h.seq},
                     {"safe_point", h.safe_point},
                     {"format_version", h.format_version},
                     {"bases", bases},
                     {"variables", vars}});
      continue;
    }
    std::vector<uint64_t> seqs;
    for (const auto& b : r->bases()) seqs.push_back(b.seq);
    std::sort(seqs.begin(), seqs.end());
    std::string bases;
    for (uint64_t q : seqs) bases += (bases.empty() ? ", unchanged blocks in snapshot " : ", ") + std::to_string(q);
    std::printf("%s: job %s, rank %d of %d, snapshot %llu, safe point %llu, format %u%s\n", f.c_str(), h.job_id.c_str(),
                h.rank, h.nranks, static_cast<unsigned long long>(h.seq), static_cast<unsigned long long>(h.safe_point),
                h.format_version, bases.c_str());
    std::printf("  %-20s %-24s %12s %12s %12s  %-16s %s\n", "variable", "type", "elements", "bytes", "stored",
                "xxh3", "decomposition (global / start / owned)");
    for (const auto& v : r->variables()) {
      const auto& d = v.var.decomposition;
      const std::string dec = d.empty() ? "-"
                                        : shape_text(d.global_shape) + " / " + shape_text(d.owned_start) + " / " +
                                              shape_text(d.owned_shape);
      std::printf("  %-20s %-24s %12llu %12llu %12llu  %016llx %s%s\n", v.var.name.c_str(),
                  appfmt::signature_text(v.var.signature).c_str(), static_cast<unsigned long long>(v.var.count),
                  static_cast<unsigned long long>(v.raw_bytes), static_cast<unsigned long long>(v.stored_bytes),
                  static_cast<unsigned long long>(v.xxh3), dec.c_str(), v.compressed ? " (zstd)" : "");
    }
  }
  if (show_file_records(records, json, all) != 0) rc = 1;
  if (json) std::printf("%s\n", all.dump(2).c_str());
  return rc;
}

int verify(const std::string& path) {
  auto files = files_of(path);
  if (!files.ok()) {
    std::fprintf(stderr, "lazarus snapshot verify: %s\n", files.status().message().c_str());
    return 1;
  }
  int bad = 0;
  size_t vars = 0;
  for (const std::string& f : *files) {
    auto r = appfmt::Reader::open(f);
    Status s = r.ok() ? r->verify() : r.status();
    if (!s.ok()) {
      std::fprintf(stderr, "lazarus snapshot verify: %s\n", s.message().c_str());
      ++bad;
      continue;
    }
    vars += r->variables().size();
  }
  if (bad) {
    std::fprintf(stderr, "lazarus snapshot verify: %d of %zu files failed\n", bad, files->size());
    return 1;
  }
  std::printf("%zu files, %zu variables: every checksum matches\n", files->size(), vars);
  return 0;
}

}  // namespace

void add_snapshot_command(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "snapshot", "Inspect snapshots: `snapshot show` (variables of cr=app, and for both back ends the files each "
                  "rank held and what a restart does to them), `snapshot verify` (cr=app)");
  cmd->require_subcommand(1);
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sh = cmd->add_subcommand(
      "show",
      "List ranks, variables, types, shapes, sizes and checksums of a snapshot's *.lzck (and *.c3) files, and the "
      "files every rank held at the checkpoint with what a restart does to each (truncate, copy, keep, check)");
  sh->add_option("path", *path,
                 "A snapshot directory (every *.lzck, *.c3 and lazarus-files.yaml below it) or one file")
      ->required();
  sh->add_flag("--json", *json, "Machine-readable output");
  sh->callback([path, json, &exit_code] { exit_code = show(*path, *json); });
  CLI::App* ve = cmd->add_subcommand(
      "verify", "Read every variable of a snapshot's *.lzck and *.c3 files and check its checksum; exit 1 naming the "
                "file and the variable that fail");
  ve->add_option("path", *path, "A snapshot directory (every *.lzck and *.c3 below it) or one file")->required();
  ve->callback([path, &exit_code] { exit_code = verify(*path); });
}

}  // namespace lz::cli
