// The datatype engine: flattening constructors, extents, pack/unpack.
#include "lazarus/datatype/datatype.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace lz::dt {
namespace {

const char* combiner_name(int c) {
  static const char* const kNames[] = {"named",
                                       "MPI_Type_contiguous",
                                       "MPI_Type_vector",
                                       "MPI_Type_create_hvector",
                                       "MPI_Type_indexed",
                                       "MPI_Type_create_struct",
                                       "MPI_Type_create_hindexed",
                                       "MPI_Type_create_indexed_block",
                                       "MPI_Type_create_hindexed_block",
                                       "MPI_Type_create_resized",
                                       "MPI_Type_dup",
                                       "MPI_Type_create_subarray",
                                       "MPI_Type_create_darray"};
  return kNames[c];
}

}  // namespace

const Datatype& internal_type(Basic b) noexcept {
  static const auto* types = [] {
    auto* arr = new std::array<std::unique_ptr<Datatype>, static_cast<size_t>(Basic::kNumBasic)>();
    for (size_t i = 0; i < arr->size(); ++i) {
      (*arr)[i] = std::make_unique<Datatype>(static_cast<Basic>(i));
      (*arr)[i]->commit();
    }
    return arr;
  }();
  return *(*types)[static_cast<size_t>(b)];
}

}  // namespace lz::dt

using lz::dt::Basic;
using lz::dt::basic_info;

lz_datatype_s::lz_datatype_s() = default;

lz_datatype_s::lz_datatype_s(Basic b) : basic_(b), predefined_(true), committed_(true), name_basic_(b) {
  const auto& info = basic_info(b);
  size_ = info.size;
  align_ = info.align;
  lb_ = 0;
  ub_ = info.extent;
  true_lb_ = 0;
  if (info.elements == 2) {
    // The index is what the pair holds after its value: an int in C's
    // pairs, a value's twin in Fortran's (MPI_2DOUBLE_PRECISION).
    const size_t index_size = info.size - info.first_size;
    true_ub_ = info.second_offset + index_size;
    append_block(0, info.first_size);
    append_block(info.second_offset, index_size);
  } else {
    true_ub_ = info.size;
    append_block(0, info.size);
  }
  append_run(b, 1);
  finish(lb_, ub_, true_lb_, true_ub_, true);
}

lz_datatype_s::~lz_datatype_s() {
  for (const lz_datatype_s* t : contents_.types) release(t);
}

void lz_datatype_s::record(Combiner combiner, std::vector<int> ints, std::vector<ptrdiff_t> addresses,
                           std::vector<const lz_datatype_s*> types) {
  for (const lz_datatype_s* t : types) const_cast<lz_datatype_s*>(t)->retain();
  for (const lz_datatype_s* t : contents_.types) release(t);
  combiner_ = combiner;
  contents_ = Contents{std::move(ints), std::move(addresses), std::move(types)};
}

namespace {
std::atomic<lz_datatype_s::DestroyHook> destroy_hook{nullptr};
}  // namespace

void lz_datatype_s::set_destroy_hook(DestroyHook hook) { destroy_hook.store(hook); }

void lz_datatype_s::release(const lz_datatype_s* dt) {
  if (dt == nullptr || dt->predefined_) return;
  auto* self = const_cast<lz_datatype_s*>(dt);
  if (self->refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (DestroyHook hook = destroy_hook.load()) hook(self);
  delete self;
}

void lz_datatype_s::append_block(ptrdiff_t offset, size_t length) {
  if (length == 0) return;
  if (!blocks_.empty()) {
    Block& last = blocks_.back();
    if (last.offset + static_cast<ptrdiff_t>(last.length) == offset) {
      last.length += length;
      return;
    }
  }
  blocks_.push_back({offset, length});
}

void lz_datatype_s::append_run(Basic type, size_t count) {
  if (count == 0) return;
  if (!signature_.empty() && signature_.back().type == type) {
    signature_.back().count += count;
  } else {
    signature_.push_back({type, count});
  }
}

// n consecutive copies of `old`, the first at `displacement`.
void lz_datatype_s::append_copies(const lz_datatype_s& old, ptrdiff_t displacement, size_t n) {
  if (n == 0 || old.size_ == 0) return;
  if (old.contiguous_) {
    // The copies abut: one block (merged with the previous one if adjacent).
    append_block(displacement + old.true_lb_, old.size_ * n);
  } else {
    for (size_t k = 0; k < n; ++k) {
      ptrdiff_t base = displacement + static_cast<ptrdiff_t>(k) * old.extent();
      for (const Block& b : old.blocks_) append_block(base + b.offset, b.length);
    }
  }
  if (old.signature_.size() == 1) {  // a single run repeats as one longer run
    append_run(old.signature_[0].type, old.signature_[0].count * n);
  } else {
    for (size_t k = 0; k < n; ++k) {
      for (const Run& r : old.signature_) append_run(r.type, r.count);
    }
  }
  size_ += old.size_ * n;
  signature_elements_ += old.signature_elements_ * n;
}

void lz_datatype_s::finish(ptrdiff_t lb, ptrdiff_t ub, ptrdiff_t true_lb, ptrdiff_t true_ub, bool has_data) {
  if (!has_data) lb = ub = true_lb = true_ub = 0;
  lb_ = lb;
  ub_ = ub;
  true_lb_ = true_lb;
  true_ub_ = true_ub;
  if (predefined_) {
    signature_elements_ = basic_info(basic_).elements;
  }
  // Packed offset of each block, for pack_range's binary search.
  block_packed_.resize(blocks_.size());
  size_t at = 0;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    block_packed_[i] = at;
    at += blocks_[i].length;
  }
  contiguous_ = size_ == 0 || (blocks_.size() == 1 && blocks_[0].length == size_ &&
                               extent() == static_cast<ptrdiff_t>(size_) && blocks_[0].offset == true_lb_);
  // Regular pattern of equal blocks at a constant stride (vector fast path).
  vec_count_ = 0;
  if (!contiguous_ && blocks_.size() >= 2) {
    ptrdiff_t stride = blocks_[1].offset - blocks_[0].offset;
    size_t len = blocks_[0].length;
    bool regular = true;
    for (size_t i = 1; i < blocks_.size() && regular; ++i) {
      regular = blocks_[i].length == len && blocks_[i].offset - blocks_[i - 1].offset == stride;
    }
    if (regular) {
      vec_count_ = blocks_.size();
      vec_block_ = len;
      vec_stride_ = stride;
      vec_first_ = blocks_[0].offset;
    }
  }
}

template <class BlockLength, class Displacement, class TypeAt>
lz::StatusOr<lz_datatype_s*> lz_datatype_s::build(Combiner combiner, int64_t count, BlockLength blocklength,
                                                  Displacement displacement, TypeAt type) {
  const char* fn = lz::dt::combiner_name(static_cast<int>(combiner));
  if (count < 0) return lz::InvalidArgument(std::string(fn) + ": count " + std::to_string(count) + " is negative");
  std::unique_ptr<lz_datatype_s> t(new lz_datatype_s());
  t->combiner_ = combiner;
  bool has_data = false;
  ptrdiff_t lb = PTRDIFF_MAX, ub = PTRDIFF_MIN, tlb = PTRDIFF_MAX, tub = PTRDIFF_MIN;
  bool name_set = false;
  size_t total_size = 0;
  for (int64_t i = 0; i < count; ++i) {
    const lz_datatype_s* old = type(i);
    if (old == nullptr) {
      return lz::InvalidArgument(std::string(fn) + ": datatype " + std::to_string(i) + " is MPI_DATATYPE_NULL");
    }
    const int64_t bl = blocklength(i);
    if (bl < 0) {
      return lz::InvalidArgument(std::string(fn) + ": block length " + std::to_string(bl) + " at index " +
                                 std::to_string(i) + " is negative");
    }
    if (old->size_ != 0 && static_cast<size_t>(bl) > (SIZE_MAX / 2 - total_size) / old->size_) {
      return lz::InvalidArgument(std::string(fn) + ": the datatype's size overflows");
    }
    total_size += old->size_ * static_cast<size_t>(bl);
    if (!name_set) {
      t->name_basic_ = old->name_basic_;
      name_set = true;
    }
    t->align_ = std::max(t->align_, old->align_);
    t->explicit_bounds_ = t->explicit_bounds_ || old->explicit_bounds_;
    if (bl == 0 || old->signature_.empty()) continue;
    has_data = true;
    const ptrdiff_t d = displacement(i);
    ptrdiff_t last = d + static_cast<ptrdiff_t>(bl - 1) * old->extent();
    lb = std::min({lb, d + old->lb_, last + old->lb_});
    ub = std::max({ub, d + old->ub_, last + old->ub_});
    tlb = std::min({tlb, d + old->true_lb_, last + old->true_lb_});
    tub = std::max({tub, d + old->true_ub_, last + old->true_ub_});
    t->append_copies(*old, d, static_cast<size_t>(bl));
  }
  if (has_data && combiner == Combiner::kStruct && t->align_ > 1 && !t->explicit_bounds_) {
    // MPI's epsilon: round the extent up to the strictest alignment of the
    // members so that an array of C structs is described by count > 1.
    ptrdiff_t ext = ub - lb;
    ptrdiff_t a = t->align_;
    ub += (a - ext % a) % a;
  }
  t->finish(lb, ub, tlb, tub, has_data);
  return t.release();
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::build_hindexed(Combiner combiner, int count, const int* blocklengths,
                                                           const ptrdiff_t* displacements,
                                                           const lz_datatype_s* const* types) {
  return build(
      combiner, count, [blocklengths](int64_t i) { return static_cast<int64_t>(blocklengths[i]); },
      [displacements](int64_t i) { return displacements[i]; }, [types](int64_t i) { return types[i]; });
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::contiguous(int count, const lz_datatype_s& old) {
  if (count < 0) return lz::InvalidArgument("MPI_Type_contiguous: count " + std::to_string(count) + " is negative");
  int bl = count;
  ptrdiff_t d = 0;
  const lz_datatype_s* t = &old;
  auto r = build_hindexed(Combiner::kContiguous, 1, &bl, &d, &t);
  if (r.ok()) (*r)->record(Combiner::kContiguous, {count}, {}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::hvector(int count, int blocklength, ptrdiff_t stride_bytes,
                                                    const lz_datatype_s& old) {
  if (count < 0) return lz::InvalidArgument("MPI_Type_create_hvector: count " + std::to_string(count) + " is negative");
  if (blocklength < 0) {
    return lz::InvalidArgument("MPI_Type_create_hvector: block length " + std::to_string(blocklength) + " is negative");
  }
  std::vector<int> bl(count, blocklength);
  std::vector<ptrdiff_t> d(count);
  for (int i = 0; i < count; ++i) d[i] = i * stride_bytes;
  std::vector<const lz_datatype_s*> types(count, &old);
  auto r = build_hindexed(Combiner::kHvector, count, bl.data(), d.data(), types.data());
  if (r.ok()) (*r)->record(Combiner::kHvector, {count, blocklength}, {stride_bytes}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::vector(int count, int blocklength, int stride, const lz_datatype_s& old) {
  if (count < 0) return lz::InvalidArgument("MPI_Type_vector: count " + std::to_string(count) + " is negative");
  if (blocklength < 0) {
    return lz::InvalidArgument("MPI_Type_vector: block length " + std::to_string(blocklength) + " is negative");
  }
  auto t = hvector(count, blocklength, static_cast<ptrdiff_t>(stride) * old.extent(), old);
  if (t.ok()) (*t)->record(Combiner::kVector, {count, blocklength, stride}, {}, {&old});
  return t;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::indexed(int count, const int* blocklengths, const int* displacements,
                                                    const lz_datatype_s& old) {
  if (count < 0) return lz::InvalidArgument("MPI_Type_indexed: count " + std::to_string(count) + " is negative");
  std::vector<ptrdiff_t> d(count);
  for (int i = 0; i < count; ++i) d[i] = static_cast<ptrdiff_t>(displacements[i]) * old.extent();
  std::vector<const lz_datatype_s*> types(count, &old);
  auto r = build_hindexed(Combiner::kIndexed, count, blocklengths, d.data(), types.data());
  if (r.ok()) {
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    ints.insert(ints.end(), displacements, displacements + count);
    (*r)->record(Combiner::kIndexed, std::move(ints), {}, {&old});
  }
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::create_struct(int count, const int* blocklengths,
                                                          const ptrdiff_t* displacements,
                                                          const lz_datatype_s* const* types) {
  auto r = build_hindexed(Combiner::kStruct, count, blocklengths, displacements, types);
  if (r.ok()) {
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    (*r)->record(Combiner::kStruct, std::move(ints), {displacements, displacements + count}, {types, types + count});
  }
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::hindexed(int count, const int* blocklengths, const ptrdiff_t* displacements,
                                                     const lz_datatype_s& old) {
  if (count < 0) {
    return lz::InvalidArgument("MPI_Type_create_hindexed: count " + std::to_string(count) + " is negative");
  }
  std::vector<const lz_datatype_s*> types(count, &old);
  auto r = build_hindexed(Combiner::kHindexed, count, blocklengths, displacements, types.data());
  if (r.ok()) {
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    (*r)->record(Combiner::kHindexed, std::move(ints), {displacements, displacements + count}, {&old});
  }
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::indexed_block(int count, int blocklength, const int* displacements,
                                                          const lz_datatype_s& old) {
  if (count < 0) {
    return lz::InvalidArgument("MPI_Type_create_indexed_block: count " + std::to_string(count) + " is negative");
  }
  std::vector<ptrdiff_t> d(count);
  for (int i = 0; i < count; ++i) d[i] = static_cast<ptrdiff_t>(displacements[i]) * old.extent();
  std::vector<int> bl(count, blocklength);
  std::vector<const lz_datatype_s*> types(count, &old);
  auto r = build_hindexed(Combiner::kIndexedBlock, count, bl.data(), d.data(), types.data());
  if (r.ok()) {
    std::vector<int> ints{count, blocklength};
    ints.insert(ints.end(), displacements, displacements + count);
    (*r)->record(Combiner::kIndexedBlock, std::move(ints), {}, {&old});
  }
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::hindexed_block(int count, int blocklength, const ptrdiff_t* displacements,
                                                           const lz_datatype_s& old) {
  if (count < 0) {
    return lz::InvalidArgument("MPI_Type_create_hindexed_block: count " + std::to_string(count) + " is negative");
  }
  std::vector<int> bl(count, blocklength);
  std::vector<const lz_datatype_s*> types(count, &old);
  auto r = build_hindexed(Combiner::kHindexedBlock, count, bl.data(), displacements, types.data());
  if (r.ok())
    (*r)->record(Combiner::kHindexedBlock, {count, blocklength}, {displacements, displacements + count}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::resized(const lz_datatype_s& old, ptrdiff_t lb, ptrdiff_t extent) {
  int one = 1;
  ptrdiff_t zero = 0;
  const lz_datatype_s* t = &old;
  auto r = build_hindexed(Combiner::kResized, 1, &one, &zero, &t);
  if (!r.ok()) return r;
  lz_datatype_s* n = *r;
  const bool has_data = !n->signature_.empty();
  n->explicit_bounds_ = true;
  n->finish(lb, lb + extent, has_data ? n->true_lb_ : 0, has_data ? n->true_ub_ : 0, true);
  n->record(Combiner::kResized, {}, {lb, extent}, {&old});
  return n;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::dup(const lz_datatype_s& old) {
  int one = 1;
  ptrdiff_t zero = 0;
  const lz_datatype_s* t = &old;
  auto r = build_hindexed(Combiner::kDup, 1, &one, &zero, &t);
  if (!r.ok()) return r;
  lz_datatype_s* n = *r;
  n->explicit_bounds_ = old.explicit_bounds_;
  n->align_ = old.align_;
  n->name_basic_ = old.name_basic_;
  n->finish(old.lb_, old.ub_, old.true_lb_, old.true_ub_, true);
  n->committed_ = old.committed_;
  n->record(Combiner::kDup, {}, {}, {&old});
  return n;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::subarray(int ndims, const int* sizes, const int* subsizes,
                                                     const int* starts, bool c_order, const lz_datatype_s& old) {
  if (ndims <= 0) {
    return lz::InvalidArgument("MPI_Type_create_subarray: ndims " + std::to_string(ndims) + " is not positive");
  }
  std::vector<int64_t> wide[3];
  const int* narrow[3] = {sizes, subsizes, starts};
  for (int k = 0; k < 3; ++k) wide[k].assign(narrow[k], narrow[k] + ndims);
  auto r = subarray_impl(ndims, wide[0].data(), wide[1].data(), wide[2].data(), c_order, old);
  if (!r.ok()) return r;
  std::vector<int> ints{ndims};
  for (const int* a : narrow) ints.insert(ints.end(), a, a + ndims);
  ints.push_back(c_order ? kOrderC : kOrderFortran);
  (*r)->record(Combiner::kSubarray, std::move(ints), {}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::subarray_c(int ndims, const int64_t* sizes, const int64_t* subsizes,
                                                       const int64_t* starts, bool c_order, const lz_datatype_s& old) {
  auto r = subarray_impl(ndims, sizes, subsizes, starts, c_order, old);
  if (!r.ok()) return r;
  std::vector<int64_t> large;
  for (const int64_t* a : {sizes, subsizes, starts}) large.insert(large.end(), a, a + ndims);
  (*r)->record(Combiner::kSubarray, {ndims, c_order ? kOrderC : kOrderFortran}, {}, {&old});
  (*r)->contents_.large_counts = std::move(large);
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::subarray_impl(int ndims, const int64_t* sizes, const int64_t* subsizes,
                                                          const int64_t* starts, bool c_order,
                                                          const lz_datatype_s& old) {
  static const std::string kFn = "MPI_Type_create_subarray: ";
  if (ndims <= 0) return lz::InvalidArgument(kFn + "ndims " + std::to_string(ndims) + " is not positive");
  // Element stride (in extents of old) of each dimension, and the check of each.
  std::vector<ptrdiff_t> stride(ndims);
  ptrdiff_t total = 1;
  for (int k = 0; k < ndims; ++k) {
    const int d = c_order ? ndims - 1 - k : k;  // fastest-varying dimension first
    const std::string dim = " of dimension " + std::to_string(d);
    if (sizes[d] <= 0) return lz::InvalidArgument(kFn + "size " + std::to_string(sizes[d]) + dim + " is not positive");
    if (subsizes[d] <= 0 || subsizes[d] > sizes[d]) {
      return lz::InvalidArgument(kFn + "subsize " + std::to_string(subsizes[d]) + dim + " is not in [1, " +
                                 std::to_string(sizes[d]) + "]");
    }
    if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d]) {
      return lz::InvalidArgument(kFn + "start " + std::to_string(starts[d]) + dim + " is not in [0, " +
                                 std::to_string(sizes[d] - subsizes[d]) + "]");
    }
    if (total > PTRDIFF_MAX / 2 / sizes[d]) return lz::InvalidArgument(kFn + "the array's size overflows");
    stride[d] = total;
    total *= sizes[d];
  }
  const ptrdiff_t ext = old.extent();
  // Build from the fastest-varying dimension outwards: a contiguous run, then
  // one hvector per further dimension.
  const int first = c_order ? ndims - 1 : 0;
  ptrdiff_t offset = static_cast<ptrdiff_t>(starts[first]) * stride[first] * ext;
  auto cur = contiguous_c(subsizes[first], old);
  if (!cur.ok()) return cur;
  lz_datatype_s* t = *cur;
  for (int k = 1; k < ndims; ++k) {
    const int d = c_order ? ndims - 1 - k : k;
    offset += static_cast<ptrdiff_t>(starts[d]) * stride[d] * ext;
    auto next = hvector_c(subsizes[d], 1, stride[d] * ext, *t);
    release(t);
    if (!next.ok()) return next;
    t = *next;
  }
  int one = 1;
  const lz_datatype_s* tp = t;
  auto placed = build_hindexed(Combiner::kSubarray, 1, &one, &offset, &tp);
  release(t);
  if (!placed.ok()) return placed;
  lz_datatype_s* n = *placed;
  n->name_basic_ = old.name_basic_;
  const bool has_data = !n->signature_.empty();
  n->explicit_bounds_ = true;
  n->finish(0, total * ext, has_data ? n->true_lb_ : 0, has_data ? n->true_ub_ : 0, true);
  return n;
}

// ---- the large-count constructors

void lz_datatype_s::record_large(std::vector<int> ints, std::vector<int64_t> large_counts) {
  contents_.ints = std::move(ints);
  contents_.addresses.clear();
  contents_.large_counts = std::move(large_counts);
}

namespace {

// Prepends `count` to the values of `arrays` (each `count` long).
std::vector<int64_t> count_and(int64_t count, std::initializer_list<const int64_t*> arrays,
                               std::initializer_list<int64_t> scalars = {}) {
  std::vector<int64_t> v{count};
  v.insert(v.end(), scalars);
  for (const int64_t* a : arrays) v.insert(v.end(), a, a + count);
  return v;
}

}  // namespace

lz::StatusOr<lz_datatype_s*> lz_datatype_s::contiguous_c(int64_t count, const lz_datatype_s& old) {
  if (count < 0) return lz::InvalidArgument("MPI_Type_contiguous_c: count " + std::to_string(count) + " is negative");
  auto r = build(
      Combiner::kContiguous, 1, [count](int64_t) { return count; }, [](int64_t) { return ptrdiff_t{0}; },
      [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kContiguous, {count}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::hvector_c(int64_t count, int64_t blocklength, int64_t stride_bytes,
                                                      const lz_datatype_s& old) {
  auto r = build(
      Combiner::kHvector, count, [blocklength](int64_t) { return blocklength; },
      [stride_bytes](int64_t i) { return static_cast<ptrdiff_t>(i * stride_bytes); },
      [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kHvector, {count, blocklength, stride_bytes}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::vector_c(int64_t count, int64_t blocklength, int64_t stride,
                                                     const lz_datatype_s& old) {
  const ptrdiff_t ext = old.extent();
  auto r = build(
      Combiner::kVector, count, [blocklength](int64_t) { return blocklength; },
      [stride, ext](int64_t i) { return static_cast<ptrdiff_t>(i * stride * ext); }, [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kVector, {count, blocklength, stride}, {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::indexed_c(int64_t count, const int64_t* blocklengths,
                                                      const int64_t* displacements, const lz_datatype_s& old) {
  const ptrdiff_t ext = old.extent();
  auto r = build(
      Combiner::kIndexed, count, [blocklengths](int64_t i) { return blocklengths[i]; },
      [displacements, ext](int64_t i) { return static_cast<ptrdiff_t>(displacements[i] * ext); },
      [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kIndexed, count_and(count, {blocklengths, displacements}), {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::hindexed_c(int64_t count, const int64_t* blocklengths,
                                                       const int64_t* displacements, const lz_datatype_s& old) {
  auto r = build(
      Combiner::kHindexed, count, [blocklengths](int64_t i) { return blocklengths[i]; },
      [displacements](int64_t i) { return static_cast<ptrdiff_t>(displacements[i]); },
      [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kHindexed, count_and(count, {blocklengths, displacements}), {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::indexed_block_c(int64_t count, int64_t blocklength,
                                                            const int64_t* displacements, const lz_datatype_s& old) {
  const ptrdiff_t ext = old.extent();
  auto r = build(
      Combiner::kIndexedBlock, count, [blocklength](int64_t) { return blocklength; },
      [displacements, ext](int64_t i) { return static_cast<ptrdiff_t>(displacements[i] * ext); },
      [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kIndexedBlock, count_and(count, {displacements}, {blocklength}), {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::hindexed_block_c(int64_t count, int64_t blocklength,
                                                             const int64_t* displacements, const lz_datatype_s& old) {
  auto r = build(
      Combiner::kHindexedBlock, count, [blocklength](int64_t) { return blocklength; },
      [displacements](int64_t i) { return static_cast<ptrdiff_t>(displacements[i]); },
      [&old](int64_t) { return &old; });
  if (r.ok()) (*r)->record_c(Combiner::kHindexedBlock, count_and(count, {displacements}, {blocklength}), {&old});
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::struct_c(int64_t count, const int64_t* blocklengths,
                                                     const int64_t* displacements, const lz_datatype_s* const* types) {
  auto r = build(
      Combiner::kStruct, count, [blocklengths](int64_t i) { return blocklengths[i]; },
      [displacements](int64_t i) { return static_cast<ptrdiff_t>(displacements[i]); },
      [types](int64_t i) { return types[i]; });
  if (r.ok()) {
    (*r)->record_c(Combiner::kStruct, count_and(count, {blocklengths, displacements}),
                   {types, types + (count > 0 ? count : 0)});
  }
  return r;
}

lz::StatusOr<lz_datatype_s*> lz_datatype_s::resized_c(const lz_datatype_s& old, int64_t lb, int64_t extent) {
  auto r = resized(old, static_cast<ptrdiff_t>(lb), static_cast<ptrdiff_t>(extent));
  if (r.ok()) (*r)->record_large({}, {lb, extent});
  return r;
}

bool lz_datatype_s::homogeneous(Basic* type, size_t* per_element) const {
  if (signature_.empty()) return false;
  size_t n = 0;
  for (const Run& r : signature_) {
    if (r.type != signature_[0].type) return false;
    n += r.count;
  }
  if (type) *type = signature_[0].type;
  if (per_element) *per_element = n;
  return true;
}

std::string lz_datatype_s::name() const {
  if (predefined_) return basic_info(basic_).mpi_name;
  std::string s = std::string("derived datatype (") + lz::dt::combiner_name(static_cast<int>(combiner_)) + ")";
  Basic b;
  if (homogeneous(&b, nullptr)) s += std::string(" of ") + basic_info(b).mpi_name;
  return s;
}

std::string lz_datatype_s::label() const {
  if (label_set_) return label_;
  return predefined_ ? basic_info(basic_).mpi_name : "";
}

void lz_datatype_s::pack(const void* src, int count, void* dst) const {
  if (count <= 0 || size_ == 0) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (contiguous_) {
    std::memcpy(d, s + true_lb_, size_ * count);
    return;
  }
  const ptrdiff_t ext = extent();
  if (vec_count_ != 0) {
    for (int e = 0; e < count; ++e) {
      const char* base = s + e * ext + vec_first_;
      // Constant-size copies for the common element sizes let the compiler
      // turn memcpy into a single load/store.
      switch (vec_block_) {
        case 4:
          for (size_t k = 0; k < vec_count_; ++k, d += 4) std::memcpy(d, base + k * vec_stride_, 4);
          break;
        case 8:
          for (size_t k = 0; k < vec_count_; ++k, d += 8) std::memcpy(d, base + k * vec_stride_, 8);
          break;
        default:
          for (size_t k = 0; k < vec_count_; ++k, d += vec_block_) std::memcpy(d, base + k * vec_stride_, vec_block_);
      }
    }
    return;
  }
  for (int e = 0; e < count; ++e) {
    const char* base = s + e * ext;
    for (const Block& b : blocks_) {
      std::memcpy(d, base + b.offset, b.length);
      d += b.length;
    }
  }
}

void lz_datatype_s::unpack(const void* packed, size_t bytes, int count, void* dst) const {
  if (count <= 0 || size_ == 0) return;
  size_t total = size_ * static_cast<size_t>(count);
  if (bytes > total) bytes = total;
  const char* s = static_cast<const char*>(packed);
  char* d = static_cast<char*>(dst);
  if (contiguous_) {
    std::memcpy(d + true_lb_, s, bytes);
    return;
  }
  size_t full = bytes / size_;
  const ptrdiff_t ext = extent();
  if (vec_count_ != 0) {
    for (size_t e = 0; e < full; ++e) {
      char* base = d + static_cast<ptrdiff_t>(e) * ext + vec_first_;
      switch (vec_block_) {
        case 4:
          for (size_t k = 0; k < vec_count_; ++k, s += 4) std::memcpy(base + k * vec_stride_, s, 4);
          break;
        case 8:
          for (size_t k = 0; k < vec_count_; ++k, s += 8) std::memcpy(base + k * vec_stride_, s, 8);
          break;
        default:
          for (size_t k = 0; k < vec_count_; ++k, s += vec_block_) std::memcpy(base + k * vec_stride_, s, vec_block_);
      }
    }
  } else {
    for (size_t e = 0; e < full; ++e) {
      char* base = d + static_cast<ptrdiff_t>(e) * ext;
      for (const Block& b : blocks_) {
        std::memcpy(base + b.offset, s, b.length);
        s += b.length;
      }
    }
  }
  if (bytes > full * size_) {
    walk_range<false>(d, count, full * size_, bytes - full * size_, const_cast<char*>(s));
  }
}

template <bool kPack>
size_t lz_datatype_s::walk_range(char* user, int count, size_t offset, size_t bytes, char* packed) const {
  if (count <= 0 || size_ == 0) return 0;
  size_t total = size_ * static_cast<size_t>(count);
  if (offset >= total) return 0;
  bytes = std::min(bytes, total - offset);
  if (contiguous_) {
    if (kPack) {
      std::memcpy(packed, user + true_lb_ + offset, bytes);
    } else {
      std::memcpy(user + true_lb_ + offset, packed, bytes);
    }
    return bytes;
  }
  size_t elem = offset / size_;
  size_t in_elem = offset % size_;
  // First block containing in_elem.
  size_t bi = std::upper_bound(block_packed_.begin(), block_packed_.end(), in_elem) - block_packed_.begin() - 1;
  size_t in_block = in_elem - block_packed_[bi];
  size_t done = 0;
  const ptrdiff_t ext = extent();
  while (done < bytes) {
    const Block& b = blocks_[bi];
    size_t n = std::min(b.length - in_block, bytes - done);
    char* u = user + static_cast<ptrdiff_t>(elem) * ext + b.offset + static_cast<ptrdiff_t>(in_block);
    if (kPack) {
      std::memcpy(packed + done, u, n);
    } else {
      std::memcpy(u, packed + done, n);
    }
    done += n;
    in_block = 0;
    if (++bi == blocks_.size()) {
      bi = 0;
      ++elem;
    }
  }
  return done;
}

size_t lz_datatype_s::pack_range(const void* src, int count, size_t offset, size_t bytes, void* dst) const {
  return walk_range<true>(const_cast<char*>(static_cast<const char*>(src)), count, offset, bytes,
                          static_cast<char*>(dst));
}

size_t lz_datatype_s::bytes_of_elements(size_t n) const {
  if (signature_elements_ == 0) return 0;
  size_t bytes = (n / signature_elements_) * size_;
  size_t rem = n % signature_elements_;
  for (const Run& r : signature_) {
    if (rem == 0) break;
    const auto& info = basic_info(r.type);
    const size_t run_elements = r.count * info.elements;
    if (rem >= run_elements) {
      bytes += r.count * info.size;
      rem -= run_elements;
      continue;
    }
    bytes += (rem / info.elements) * info.size;
    if (rem % info.elements != 0) bytes += info.first_size;  // a pair's value, without its index
    break;
  }
  return bytes;
}

const lz_datatype_s* lz_datatype_s::f90(Combiner combiner, std::vector<int> params, const lz_datatype_s& basic) {
  static std::mutex mu;
  static std::map<std::pair<int, std::vector<int>>, std::unique_ptr<lz_datatype_s>> made;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = made[{static_cast<int>(combiner), params}];
  if (!slot) {
    slot.reset(new lz_datatype_s(basic.basic()));
    slot->combiner_ = combiner;
    slot->contents_.ints = std::move(params);
  }
  return slot.get();
}

size_t lz_datatype_s::elements_in(size_t bytes) const {
  if (size_ == 0) return 0;
  size_t n = (bytes / size_) * signature_elements_;
  size_t rem = bytes % size_;
  for (const Run& r : signature_) {
    if (rem == 0) break;
    const auto& info = basic_info(r.type);
    size_t run_bytes = r.count * info.size;
    if (rem >= run_bytes) {
      n += r.count * info.elements;
      rem -= run_bytes;
      continue;
    }
    size_t k = rem / info.size;
    n += k * info.elements;
    rem -= k * info.size;
    if (info.elements == 2 && rem >= info.first_size) {  // the value of a pair, without its index
      n += 1;
      rem -= info.first_size;
    }
    break;
  }
  return rem == 0 ? n : kUndefinedElements;
}
