// A datatype as a data representation lays it out in a file (MPI-3.1
// section 13.5.1): where "external32" or a registered representation gives
// a predefined type another size than in memory (external32's 4-byte long,
// its 16-byte long double), a view's etype and filetype are read in the
// file's sizes. The type is rebuilt from its constructor's arguments with
// each predefined type replaced by bytes of its size in the file: counts,
// strides and displacements in elements scale with it, byte displacements
// (hvector, hindexed, struct, resized) are kept as given, as the standard
// says. MPI_File_get_type_extent answers with the rebuilt type's extent.
//
//   auto t = file_layout(rep, *filetype);   // the filetype itself, or rebuilt
//   HeldType held(*t);                       // released when it goes
//   ... held->extent() ...;                 // its extent in the file
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "lazarus/datatype/datatype.h"
#include "lazarus/status.h"

namespace lz::rt::datarep {

// A reference to a datatype, released when it goes.
struct ReleaseType {
  void operator()(lz::dt::Datatype* t) const { lz::dt::Datatype::release(t); }
};
using HeldType = std::unique_ptr<lz::dt::Datatype, ReleaseType>;

// The bytes predefined type `basic` takes in a file of representation `rep`
// ("native", "internal", "external32" or a registered one).
lz::StatusOr<size_t> file_size_of(const std::string& rep, const lz::dt::Datatype& basic);
// Whether `rep` gives some predefined type `dt` is built from another size
// in the file than in memory.
lz::StatusOr<bool> resizes(const std::string& rep, const lz::dt::Datatype& dt);
// `dt` as laid out in a file of representation `rep`, with one reference
// the caller releases: `dt` itself where `rep` keeps the sizes of its
// types, else a new committed type.
lz::StatusOr<lz::dt::Datatype*> file_layout(const std::string& rep, const lz::dt::Datatype& dt);
// The bytes of one element of `dt` in a file of representation `rep`.
lz::StatusOr<size_t> file_type_size(const std::string& rep, const lz::dt::Datatype& dt);

}  // namespace lz::rt::datarep
