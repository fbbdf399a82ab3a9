// MPI binding: MPI_Type_get_envelope and MPI_Type_get_contents, which decode
// a datatype into the constructor and arguments that built it (MPI-3.1
// section 4.1.13). The datatype engine records them (Datatype::contents()).
#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/datatype/type_args.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

namespace {

using lz::dt::Datatype;
using lz::rt::type_args::arg_error;
using lz::rt::type_args::check_type;

int mpi_combiner(Datatype::Combiner c) {
  using C = Datatype::Combiner;
  switch (c) {
    case C::kNamed:
      return MPI_COMBINER_NAMED;
    case C::kContiguous:
      return MPI_COMBINER_CONTIGUOUS;
    case C::kVector:
      return MPI_COMBINER_VECTOR;
    case C::kHvector:
      return MPI_COMBINER_HVECTOR;
    case C::kIndexed:
      return MPI_COMBINER_INDEXED;
    case C::kStruct:
      return MPI_COMBINER_STRUCT;
    case C::kHindexed:
      return MPI_COMBINER_HINDEXED;
    case C::kIndexedBlock:
      return MPI_COMBINER_INDEXED_BLOCK;
    case C::kHindexedBlock:
      return MPI_COMBINER_HINDEXED_BLOCK;
    case C::kResized:
      return MPI_COMBINER_RESIZED;
    case C::kDup:
      return MPI_COMBINER_DUP;
    case C::kSubarray:
      return MPI_COMBINER_SUBARRAY;
    case C::kDarray:
      return MPI_COMBINER_DARRAY;
    case C::kF90Real:
      return MPI_COMBINER_F90_REAL;
    case C::kF90Complex:
      return MPI_COMBINER_F90_COMPLEX;
    case C::kF90Integer:
      return MPI_COMBINER_F90_INTEGER;
  }
  return MPI_COMBINER_NAMED;
}

}  // namespace

extern "C" {

}  // extern "C"

namespace {

// Both forms of MPI_Type_get_envelope / _contents. The int forms refuse a
// type built by a large-count constructor (its counts are large counts,
// which they cannot return).
int envelope(const char* kFn, MPI_Datatype datatype, bool large, MPI_Count* num_integers, MPI_Count* num_addresses,
             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  if (int e = check_type(kFn, datatype)) return e;
  if (combiner == nullptr) return arg_error(kFn, "NULL output argument");
  const Datatype::Contents& c = datatype->contents();
  if (!large && datatype->has_large_counts())
    return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_TYPE,
                             "datatype " + datatype->name() +
                                 " was built by a large-count constructor: its arguments are for " + kFn + "_c");
  *num_integers = static_cast<MPI_Count>(c.ints.size());
  *num_addresses = static_cast<MPI_Count>(c.addresses.size());
  *num_large_counts = static_cast<MPI_Count>(c.large_counts.size());
  *num_datatypes = static_cast<MPI_Count>(c.types.size());
  *combiner = mpi_combiner(datatype->combiner());  // predefined: kNamed, or an F90 combiner
  return MPI_SUCCESS;
}

int contents(const char* kFn, MPI_Datatype datatype, bool large, MPI_Count max_integers, MPI_Count max_addresses,
             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
  if (int e = check_type(kFn, datatype)) return e;
  if (datatype->combiner() == Datatype::Combiner::kNamed)
    return arg_error(kFn, "datatype " + datatype->name() + " is predefined (combiner MPI_COMBINER_NAMED)");
  if (!large && datatype->has_large_counts())
    return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_TYPE,
                             "datatype " + datatype->name() +
                                 " was built by a large-count constructor: its arguments are for " + kFn + "_c");
  const Datatype::Contents& c = datatype->contents();
  const std::string envelope_fn = large ? "MPI_Type_get_envelope_c" : "MPI_Type_get_envelope";
  const auto short_array = [&](const char* what, MPI_Count max, size_t need, const void* array) -> int {
    if (max < 0 || static_cast<size_t>(max) < need)
      return arg_error(kFn, std::string("max_") + what + " " + std::to_string(max) + " is less than the " +
                                std::to_string(need) + " " + envelope_fn + " gives");
    if (need > 0 && array == nullptr) return arg_error(kFn, std::string("array_of_") + what + " is NULL");
    return MPI_SUCCESS;
  };
  if (int e = short_array("integers", max_integers, c.ints.size(), array_of_integers)) return e;
  if (int e = short_array("addresses", max_addresses, c.addresses.size(), array_of_addresses)) return e;
  if (int e = short_array("large_counts", max_large_counts, c.large_counts.size(), array_of_large_counts)) return e;
  if (int e = short_array("datatypes", max_datatypes, c.types.size(), array_of_datatypes)) return e;
  for (size_t i = 0; i < c.ints.size(); ++i) array_of_integers[i] = c.ints[i];
  for (size_t i = 0; i < c.addresses.size(); ++i) array_of_addresses[i] = c.addresses[i];
  for (size_t i = 0; i < c.large_counts.size(); ++i) array_of_large_counts[i] = c.large_counts[i];
  // Derived types are handed out as new references the caller frees
  // (MPI_Type_free); predefined ones as they are.
  for (size_t i = 0; i < c.types.size(); ++i) {
    auto* t = const_cast<Datatype*>(c.types[i]);
    t->retain();
    array_of_datatypes[i] = t;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                          int* combiner) {
  static constexpr const char* kFn = "MPI_Type_get_envelope";
  LZ_MPI_ENTRY(kFn);
  if (num_integers == nullptr || num_addresses == nullptr || num_datatypes == nullptr)
    return arg_error(kFn, "NULL output argument");
  MPI_Count ni = 0, na = 0, nl = 0, nd = 0;
  int e = envelope(kFn, datatype, false, &ni, &na, &nl, &nd, combiner);
  if (e != MPI_SUCCESS) return e;
  *num_integers = static_cast<int>(ni);
  *num_addresses = static_cast<int>(na);
  *num_datatypes = static_cast<int>(nd);
  return MPI_SUCCESS;
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                            MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  static constexpr const char* kFn = "MPI_Type_get_envelope_c";
  LZ_MPI_ENTRY(kFn);
  if (num_integers == nullptr || num_addresses == nullptr || num_large_counts == nullptr || num_datatypes == nullptr)
    return arg_error(kFn, "NULL output argument");
  return envelope(kFn, datatype, true, num_integers, num_addresses, num_large_counts, num_datatypes, combiner);
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  static constexpr const char* kFn = "MPI_Type_get_contents";
  LZ_MPI_ENTRY(kFn);
  return contents(kFn, datatype, false, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                  array_of_addresses, nullptr, array_of_datatypes);
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[]) {
  static constexpr const char* kFn = "MPI_Type_get_contents_c";
  LZ_MPI_ENTRY(kFn);
  return contents(kFn, datatype, true, max_integers, max_addresses, max_large_counts, max_datatypes,
                  array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
}

}  // extern "C"
