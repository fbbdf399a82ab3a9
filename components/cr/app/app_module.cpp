#include "app_module.h"

#include <vector>

#include "app_loader.h"
#include "app_signature.h"
#include "block_copy.h"
#include "lazarus/appfmt/reader.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/snapshot_layout.h"

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
    LZ_RETURN_IF_ERROR(w.add(rec, packed.data(), packed.size()));
    total += packed.size();
  }
  LZ_RETURN_IF_ERROR(w.finish());
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
