#include "app_module.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "app_loader.h"
#include "app_signature.h"
#include "block_copy.h"
#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/snapshot_layout.h"
#include "lazarus/write_file_at.h"

namespace lz::cr::app {

namespace {

// A rank's file in its directory of the snapshot.
std::string file_name(int rank) { return "rank." + std::to_string(rank) + ".lzck"; }

}  // namespace

std::string rank_file(const std::string& snapshot_dir, int rank) {
  return snapshot_rank_dir(snapshot_dir, rank) + "/" + file_name(rank);
}

StatusOr<Outcome> AppModule::checkpoint(const LocalSnapshot& snap) {
  (void)snap;
  return Unimplemented(
      "cr/app saves registered variables at LZ_Checkpoint safe points, not process images; the checkpoint is taken "
      "when every rank reaches the agreed safe point");
}

std::string AppModule::job_dir_of(const AppSave& save) const {
  if (!config_.incremental || save.whole_allocation) return "";
  // <job dir>/<seq>.partial/rank.<r>
  const std::string tail =
      "/" + std::to_string(save.seq) + kSnapshotPartialSuffix + "/" + snapshot_rank_entry(save.rank);
  if (save.dir.size() <= tail.size() || save.dir.compare(save.dir.size() - tail.size(), tail.size(), tail) != 0)
    return "";
  return save.dir.substr(0, save.dir.size() - tail.size());
}

std::vector<int32_t> AppModule::unchanged_blocks(const AppSave& save, const std::string& job_dir, appfmt::Writer& w,
                                                 SaveBases& bases, const appfmt::Variable& rec, const char* packed,
                                                 uint64_t bytes, Prior* next) {
  const uint64_t blocks = (bytes + appfmt::kBlockSize - 1) / appfmt::kBlockSize;
  const uint64_t per = config_.incremental_block / appfmt::kBlockSize;  // 4 KiB blocks per compared block
  next->desc = rec;
  next->hashes = appfmt::block_hashes(packed, bytes, config_.incremental_block);
  next->origin.assign(blocks, save.seq);
  std::vector<int32_t> where(blocks, -1);
  auto it = prior_.find(rec.name);
  const bool full = (save.seq - 1) % static_cast<uint64_t>(config_.full_every) == 0;
  if (full || it == prior_.end()) return where;
  const Prior& p = it->second;
  if (p.desc.signature != rec.signature || p.desc.count != rec.count || !(p.desc.decomposition == rec.decomposition))
    return where;
  for (uint64_t h = 0; h < next->hashes.size(); ++h) {
    if (next->hashes[h] != p.hashes[h]) continue;
    for (uint64_t b = h * per; b < std::min(blocks, (h + 1) * per); ++b) {
      const uint64_t s = p.origin[b];
      auto c = bases.committed.find(s);
      if (c == bases.committed.end()) {
        const std::string marker = job_dir + "/" + std::to_string(s) + "/" + kSnapshotCommittedFile;
        c = bases.committed.emplace(s, ::access(marker.c_str(), F_OK) == 0).first;
      }
      if (!c->second) continue;  // that snapshot was dropped or pruned: write the block again
      auto base = bases.number.find(s);
      if (base == bases.number.end()) {
        const std::string rel =
            "../../" + std::to_string(s) + "/" + snapshot_rank_entry(save.rank) + "/" + file_name(save.rank);
        base = bases.number.emplace(s, w.add_base(rel, s)).first;
      }
      where[b] = static_cast<int32_t>(base->second);
      next->origin[b] = s;
    }
  }
  return where;
}

StatusOr<uint64_t> AppModule::save_variables(const AppSave& save) {
  appfmt::Header h;
  h.job_id = save.job_id;
  h.rank = save.rank;
  h.nranks = save.nranks;
  h.seq = save.seq;
  h.safe_point = save.safe_point;
  appfmt::WriterOptions o;
  o.compress = config_.compress ? appfmt::Compress::kZstd : appfmt::Compress::kNone;
  const std::string path = save.dir + "/" + file_name(save.rank);
  LZ_ASSIGN_OR_RETURN(appfmt::Writer w, appfmt::Writer::create(path, h, o));
  const std::string job_dir = job_dir_of(save);
  if (job_dir != prior_dir_) {
    prior_.clear();
    prior_dir_ = job_dir;
  }
  SaveBases bases;
  std::map<std::string, Prior> next;
  uint64_t total = 0;
  std::vector<char> packed;
  for (const AppVariable& v : *save.vars) {
    appfmt::Variable rec;
    rec.name = v.name;
    LZ_ASSIGN_OR_RETURN(rec.signature, signature_of(*v.type, v.name));
    const uint64_t size = v.type->size();
    if (v.decomposed()) {
      const Box block = save.whole_allocation ? allocation_box(v) : owned_box(v);
      rec.count = static_cast<uint64_t>(block.elements());
      rec.decomposition = {v.global_shape, block.start, block.shape};
      packed.resize(rec.count * size);
      pack_box(v, block, packed.data());
    } else {
      rec.count = static_cast<uint64_t>(v.count);
      packed.resize(rec.count * size);
      v.type->pack(v.addr, static_cast<int>(v.count), packed.data());
    }
    if (job_dir.empty()) {
      LZ_RETURN_IF_ERROR(w.add(rec, packed.data(), packed.size()));
    } else {
      Prior& n = next[rec.name];
      const std::vector<int32_t> where =
          unchanged_blocks(save, job_dir, w, bases, rec, packed.data(), packed.size(), &n);
      LZ_RETURN_IF_ERROR(w.add(rec, packed.data(), packed.size(), &where));
    }
    total += packed.size();
  }
  // A failure leaves no hashes behind: the next save writes in full.
  prior_.clear();
  LZ_RETURN_IF_ERROR(w.finish());
  if (!job_dir.empty()) {
    if (std::vector<uint64_t> seqs = w.referenced_seqs(); !seqs.empty()) {
      std::string text;
      for (uint64_t s : seqs) text += std::to_string(s) + "\n";
      const int dir_fd = ::open(save.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir_fd < 0) return ErrnoError("cannot open " + save.dir, errno);
      Status st = write_file_at(dir_fd, kSnapshotDependsFile, text);
      ::close(dir_fd);
      LZ_RETURN_IF_ERROR(st);
    }
    prior_ = std::move(next);
  }
  return total;
}

StatusOr<AppSnapshotInfo> AppModule::describe_snapshot(const std::string& snapshot_dir) {
  LZ_ASSIGN_OR_RETURN(appfmt::Reader r, appfmt::Reader::open(rank_file(snapshot_dir, 0)));
  return AppSnapshotInfo{r.header().nranks, r.header().safe_point};
}

Status AppModule::load_variables(const AppLoad& load) {
  Loader loader(load.snapshot_dir, load.rank, load.nranks);
  LZ_RETURN_IF_ERROR(loader.open());
  for (const AppVariable& v : *load.vars) LZ_RETURN_IF_ERROR(loader.load(v));
  return Status::Ok();
}

}  // namespace lz::cr::app
