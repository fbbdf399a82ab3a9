#include "recovery_line.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "snapshot/snapshot_store.h"

namespace lz::ft {
namespace {

namespace fs = std::filesystem;

struct Candidate {
  int64_t time = 0;
  uint64_t seq = 0;
  std::string job_dir;
};

StatusOr<std::optional<RecoveryLine>> from_store(const snapshot::SnapshotStore& store, std::optional<uint64_t> seq,
                                                 std::vector<std::string>* skipped) {
  snapshot::SnapshotInfo info;
  if (seq) {
    LZ_RETURN_IF_ERROR(store.verify(*seq));
    LZ_ASSIGN_OR_RETURN(info, store.info(*seq));
  } else {
    LZ_ASSIGN_OR_RETURN(info, store.newest_valid(skipped));
  }
  return std::optional<RecoveryLine>(RecoveryLine{store.dir(), store.job().id, store.snapshot_dir(info.seq), info.seq});
}

}  // namespace

StatusOr<std::optional<RecoveryLine>> find_recovery_line(const std::string& root, const std::string& name, int np,
                                                         const std::string& setting,
                                                         std::vector<std::string>* skipped) {
  if (setting.empty() || setting == "none") return std::optional<RecoveryLine>();
  if (setting != "auto") {
    LZ_ASSIGN_OR_RETURN(auto store, snapshot::SnapshotStore::open_existing(setting));
    auto line = from_store(store, store.requested_seq(), skipped);
    if (!line.ok()) return line.status().with_context("cr_app_restart " + setting);
    return line;
  }
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::optional<RecoveryLine>();
  // Every committed snapshot of this program for np ranks, newest first.
  std::vector<Candidate> found;
  const std::string prefix = name + ".";
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string base = e.path().filename().string();
    if (!e.is_directory() || base.size() <= prefix.size() || base.compare(0, prefix.size(), prefix) != 0) continue;
    auto store = snapshot::SnapshotStore::open_existing(e.path().string());
    if (!store.ok()) {
      if (skipped) skipped->push_back(e.path().string() + ": " + store.status().message());
      continue;
    }
    if (store->job().name != name) continue;  // "a.b.<id>" seen from name "a"
    std::vector<std::string> problems;
    auto list = store->list(&problems);
    if (skipped) skipped->insert(skipped->end(), problems.begin(), problems.end());
    if (!list.ok()) continue;
    for (const auto& s : *list)
      if (s.np == np && s.cr == "app") found.push_back({s.time, s.seq, store->dir()});
  }
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.time, a.seq, a.job_dir) > std::tie(b.time, b.seq, b.job_dir);
  });
  for (const Candidate& c : found) {
    auto store = snapshot::SnapshotStore::open_existing(c.job_dir);
    if (!store.ok()) continue;
    if (Status s = store->verify(c.seq); !s.ok()) {
      if (skipped) skipped->push_back("skipping snapshot " + store->snapshot_dir(c.seq) + ": " + s.message());
      continue;
    }
    return std::optional<RecoveryLine>(RecoveryLine{store->dir(), store->job().id, store->snapshot_dir(c.seq), c.seq});
  }
  return std::optional<RecoveryLine>();
}

}  // namespace lz::ft
