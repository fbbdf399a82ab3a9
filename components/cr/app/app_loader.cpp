#include "app_loader.h"

#include <vector>

#include "app_module.h"
#include "app_signature.h"
#include "block_copy.h"
#include "lazarus/datatype/datatype.h"

namespace lz::cr::app {
namespace {

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

}  // namespace

Status Loader::open() {
  // This rank's own part first: a migration's directory holds only the
  // moving ranks' parts (rank 0's may not be there).
  if (auto own = file(rank_); own.ok() && (*own)->header().nranks == nranks_ && (*own)->header().rank == rank_) {
    old_nranks_ = nranks_;
    return Status::Ok();
  }
  LZ_ASSIGN_OR_RETURN(const appfmt::Reader* r0, file(0));
  old_nranks_ = r0->header().nranks;
  if (old_nranks_ <= 0) return DataLoss(r0->path() + ": records " + std::to_string(old_nranks_) + " ranks");
  if (old_nranks_ != nranks_) return Status::Ok();
  LZ_ASSIGN_OR_RETURN(const appfmt::Reader* r, file(rank_));
  if (r->header().rank != rank_)
    return DataLoss(r->path() + " holds rank " + std::to_string(r->header().rank) + ", not " + std::to_string(rank_));
  return Status::Ok();
}

StatusOr<const appfmt::Reader*> Loader::file(int old_rank) {
  auto it = files_.find(old_rank);
  if (it != files_.end()) return it->second.get();
  LZ_ASSIGN_OR_RETURN(appfmt::Reader r, appfmt::Reader::open(rank_file(dir_, old_rank)));
  auto owned = std::make_unique<appfmt::Reader>(std::move(r));
  const appfmt::Reader* p = owned.get();
  files_.emplace(old_rank, std::move(owned));
  return p;
}

Status Loader::check_type(const AppVariable& v, const appfmt::VariableInfo& info, const appfmt::Reader& r) const {
  LZ_ASSIGN_OR_RETURN(appfmt::Signature sig, signature_of(*v.type, v.name));
  if (sig != info.var.signature)
    return InvalidArgument("variable '" + v.name + "' is registered as " + appfmt::signature_text(sig) + " but " +
                           r.path() + " holds " + appfmt::signature_text(info.var.signature));
  if (v.decomposed() != !info.var.decomposition.empty())
    return InvalidArgument("variable '" + v.name + "' is registered " + (v.decomposed() ? "" : "not ") +
                           "decomposed but " + r.path() + " holds it " + (v.decomposed() ? "whole" : "decomposed"));
  if (v.decomposed() && info.var.decomposition.global_shape != v.global_shape)
    return InvalidArgument("variable '" + v.name + "' has global shape " + shape_text(v.global_shape) + " but " +
                           r.path() + " holds one of " + shape_text(info.var.decomposition.global_shape));
  return Status::Ok();
}

Status Loader::load(const AppVariable& v) { return v.decomposed() ? load_decomposed(v) : load_plain(v); }

Status Loader::load_plain(const AppVariable& v) {
  int from = rank_;
  if (old_nranks_ != nranks_) {
    // Another rank count: only a value every old rank agrees on can be used.
    LZ_ASSIGN_OR_RETURN(const appfmt::Reader* r0, file(0));
    const appfmt::VariableInfo* i0 = r0->find(v.name);
    if (i0 == nullptr) return NotFound("variable '" + v.name + "' is not in " + r0->path());
    // A single value too: a rank's own id or seed taken from rank 0 would
    // be a silently wrong restart.
    for (int o = 1; o < old_nranks_; ++o) {
      LZ_ASSIGN_OR_RETURN(const appfmt::Reader* r, file(o));
      const appfmt::VariableInfo* io = r->find(v.name);
      if (io == nullptr || io->xxh3 != i0->xxh3 || io->var.count != i0->var.count)
        return InvalidArgument("variable '" + v.name + "' differs between the snapshot's " +
                               std::to_string(old_nranks_) + " ranks (rank " + std::to_string(o) +
                               "'s is not rank 0's), so it cannot be restarted on " + std::to_string(nranks_) +
                               " ranks; register it with LZ_Register_decomposed, or restart on " +
                               std::to_string(old_nranks_));
    }
    from = 0;
  }
  LZ_ASSIGN_OR_RETURN(const appfmt::Reader* r, file(from));
  const appfmt::VariableInfo* info = r->find(v.name);
  if (info == nullptr) return NotFound("variable '" + v.name + "' is not in " + r->path());
  LZ_RETURN_IF_ERROR(check_type(v, *info, *r));
  if (info->var.count != static_cast<uint64_t>(v.count))
    return InvalidArgument("variable '" + v.name + "' is registered with " + std::to_string(v.count) +
                           " elements but " + r->path() + " holds " + std::to_string(info->var.count));
  std::vector<char> packed(info->raw_bytes);
  LZ_RETURN_IF_ERROR(r->read(v.name, packed.data(), packed.size()));
  v.type->unpack(packed.data(), packed.size(), static_cast<int>(v.count), v.addr);
  return Status::Ok();
}

Status Loader::load_decomposed(const AppVariable& v) {
  const Box want = allocation_box(v);
  std::vector<char> packed;
  int64_t filled = 0;
  // This rank's own part first: it covers the whole allocation when a
  // moved rank wrote it (AppSave::whole_allocation), and a migration's
  // directory holds no other rank's part.
  const int own = rank_ < old_nranks_ ? rank_ : 0;
  for (int i = 0; i < old_nranks_ && filled < want.elements(); ++i) {
    const int o = i == 0 ? own : (i <= own ? i - 1 : i);
    LZ_ASSIGN_OR_RETURN(const appfmt::Reader* r, file(o));
    const appfmt::VariableInfo* info = r->find(v.name);
    if (info == nullptr) return NotFound("variable '" + v.name + "' is not in " + r->path());
    LZ_RETURN_IF_ERROR(check_type(v, *info, *r));
    const Box block{info->var.decomposition.owned_start, info->var.decomposition.owned_shape};
    const Box part = intersect(block, want);
    if (part.empty()) continue;
    packed.resize(info->raw_bytes);
    LZ_RETURN_IF_ERROR(r->read(v.name, packed.data(), packed.size()));
    unpack_box(v, block, packed.data(), part);
    filled += part.elements();
  }
  if (filled < want.elements())
    return DataLoss("variable '" + v.name + "': the snapshot's blocks cover " + std::to_string(filled) + " of the " +
                    std::to_string(want.elements()) + " elements this rank needs");
  return Status::Ok();
}

}  // namespace lz::cr::app
