// A datatype as a data representation lays it out in a file (datarep_layout.h).
#include "mpi/datatype/datarep_layout.h"

#include <algorithm>
#include <vector>

#include "mpi.h"
#include "mpi/datatype/datarep.h"

namespace lz::rt::datarep {

namespace {

using lz::dt::Datatype;
using Combiner = Datatype::Combiner;

bool is_native(const std::string& rep) { return rep == "native" || rep == "internal"; }

// The predefined types `dt` is built from, each once.
void leaves(const Datatype& dt, std::vector<const Datatype*>* out) {
  if (dt.is_predefined()) {
    if (std::find(out->begin(), out->end(), &dt) == out->end()) out->push_back(&dt);
    return;
  }
  for (const Datatype* c : dt.contents().types) leaves(*c, out);
}

// A type of a large-count constructor (MPI_Type_*_c) rebuilt over `old`
// (`types`: a struct's), from its contents' large counts.
lz::StatusOr<Datatype*> rebuild_large(const Datatype& dt, const Datatype& old,
                                      const std::vector<const Datatype*>& types) {
  const int64_t* l = dt.contents().large_counts.data();
  const int* n = dt.contents().ints.data();
  switch (dt.combiner()) {
    case Combiner::kContiguous:
      return Datatype::contiguous_c(l[0], old);
    case Combiner::kVector:
      return Datatype::vector_c(l[0], l[1], l[2], old);
    case Combiner::kHvector:
      return Datatype::hvector_c(l[0], l[1], l[2], old);
    case Combiner::kIndexed:
      return Datatype::indexed_c(l[0], l + 1, l + 1 + l[0], old);
    case Combiner::kHindexed:
      return Datatype::hindexed_c(l[0], l + 1, l + 1 + l[0], old);
    case Combiner::kIndexedBlock:
      return Datatype::indexed_block_c(l[0], l[1], l + 2, old);
    case Combiner::kHindexedBlock:
      return Datatype::hindexed_block_c(l[0], l[1], l + 2, old);
    case Combiner::kStruct:
      return Datatype::struct_c(l[0], l + 1, l + 1 + l[0], types.data());
    case Combiner::kResized:
      return Datatype::resized_c(old, l[0], l[1]);
    case Combiner::kSubarray:
      return Datatype::subarray_c(n[0], l, l + n[0], l + 2 * n[0], n[1] == Datatype::kOrderC, old);
    case Combiner::kDarray: {  // ints: size, rank, ndims, distribs, dargs, psizes, order; gsizes large (they fit an
                               // int)
      const int nd = n[2];
      const std::vector<int> gsizes(l, l + nd);
      return Datatype::darray(n[0], n[1], nd, gsizes.data(), n + 3, n + 3 + nd, n + 3 + 2 * nd, n[3 + 3 * nd], old);
    }
    default:
      return lz::Internal("the datatype " + dt.name() + " has a large-count constructor the file layout does not know");
  }
}

// `dt` rebuilt with each predefined type as bytes of its file size (uncommitted).
lz::StatusOr<Datatype*> rebuild(const std::string& rep, const Datatype& dt) {
  if (dt.is_predefined()) {
    LZ_ASSIGN_OR_RETURN(size_t n, file_size_of(rep, dt));
    return Datatype::contiguous(static_cast<int>(n), lz::dt::byte_type());
  }
  const Datatype::Contents& c = dt.contents();
  std::vector<HeldType> kids;  // released when the new type holds them
  std::vector<const Datatype*> rebuilt;
  for (const Datatype* kid : c.types) {
    LZ_ASSIGN_OR_RETURN(Datatype * k, rebuild(rep, *kid));
    kids.emplace_back(k);
    rebuilt.push_back(k);
  }
  const int* n = c.ints.data();
  const ptrdiff_t* a = c.addresses.data();
  if (rebuilt.empty() && dt.combiner() != Combiner::kStruct)
    return lz::Internal("the datatype " + dt.name() + " records no type it was built from");
  // (A struct of no members has no type; any serves as `old`.)
  const Datatype& old = rebuilt.empty() ? lz::dt::byte_type() : *rebuilt.front();
  if (dt.has_large_counts()) return rebuild_large(dt, old, rebuilt);
  switch (dt.combiner()) {
    case Combiner::kContiguous:
      return Datatype::contiguous(n[0], old);
    case Combiner::kVector:
      return Datatype::vector(n[0], n[1], n[2], old);
    case Combiner::kHvector:
      return Datatype::hvector(n[0], n[1], a[0], old);
    case Combiner::kIndexed:
      return Datatype::indexed(n[0], n + 1, n + 1 + n[0], old);
    case Combiner::kHindexed:
      return Datatype::hindexed(n[0], n + 1, a, old);
    case Combiner::kIndexedBlock:
      return Datatype::indexed_block(n[0], n[1], n + 2, old);
    case Combiner::kHindexedBlock:
      return Datatype::hindexed_block(n[0], n[1], a, old);
    case Combiner::kStruct:
      return Datatype::create_struct(n[0], n + 1, a, rebuilt.data());
    case Combiner::kResized:
      return Datatype::resized(old, a[0], a[1]);
    case Combiner::kDup:
      return Datatype::dup(old);
    case Combiner::kSubarray: {
      const int nd = n[0];
      return Datatype::subarray(nd, n + 1, n + 1 + nd, n + 1 + 2 * nd, n[1 + 3 * nd] == Datatype::kOrderC, old);
    }
    case Combiner::kDarray: {
      const int nd = n[2];
      const int* g = n + 3;
      return Datatype::darray(n[0], n[1], nd, g, g + nd, g + 2 * nd, g + 3 * nd, g[4 * nd], old);
    }
    default:
      return lz::Internal("the datatype " + dt.name() + " has a constructor the file layout does not know");
  }
}

}  // namespace

lz::StatusOr<size_t> file_size_of(const std::string& rep, const lz::dt::Datatype& basic) {
  if (is_native(rep)) return basic.size();
  if (rep == "external32") return external32_size(basic);
  const Registered* reg = find(rep);
  if (reg == nullptr) return lz::InvalidArgument("unknown data representation \"" + rep + "\"");
  MPI_Aint ext = 0;
  if (int rc = reg->extent(const_cast<Datatype*>(&basic), &ext, reg->extra_state))
    return lz::InvalidArgument("the extent function of \"" + rep + "\" returned " + std::to_string(rc) + " for " +
                               basic.name());
  if (ext < 0)
    return lz::InvalidArgument("the extent function of \"" + rep + "\" gave " + basic.name() + " a negative extent (" +
                               std::to_string(ext) + ")");
  return static_cast<size_t>(ext);
}

lz::StatusOr<bool> resizes(const std::string& rep, const lz::dt::Datatype& dt) {
  if (is_native(rep)) return false;
  std::vector<const Datatype*> basics;
  leaves(dt, &basics);
  for (const Datatype* b : basics) {
    LZ_ASSIGN_OR_RETURN(size_t n, file_size_of(rep, *b));
    if (n != b->size()) return true;
  }
  return false;
}

lz::StatusOr<lz::dt::Datatype*> file_layout(const std::string& rep, const lz::dt::Datatype& dt) {
  LZ_ASSIGN_OR_RETURN(bool resized, resizes(rep, dt));
  if (!resized) {
    const_cast<Datatype&>(dt).retain();
    return const_cast<Datatype*>(&dt);
  }
  LZ_ASSIGN_OR_RETURN(Datatype * t, rebuild(rep, dt));
  t->commit();
  return t;
}

lz::StatusOr<size_t> file_type_size(const std::string& rep, const lz::dt::Datatype& dt) {
  if (is_native(rep)) return dt.size();
  if (rep == "external32") return external32_size(dt);
  LZ_ASSIGN_OR_RETURN(bool resized, resizes(rep, dt));
  if (!resized) return dt.size();
  LZ_ASSIGN_OR_RETURN(Datatype * t, rebuild(rep, dt));
  return HeldType(t)->size();
}

}  // namespace lz::rt::datarep
