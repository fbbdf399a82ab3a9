// Data representations (MPI-3.1 section 13.5) beside "native": the portable
// "external32" (mpi_pack_external.cpp converts its packed form) and the
// representations a program registers with MPI_Register_datarep, which
// MPI-IO's file views use (runtime/mpi/io).
//
//   std::vector<unsigned char> ext(external32_size(*dt) * n);
//   external32_convert(*dt, n, native_packed, ext.data(), /*to=*/true);
#pragma once

#include <cstddef>
#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"

namespace lz::rt::datarep {

// A representation of MPI_Register_datarep.
struct Registered {
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra_state = nullptr;
};
// The registered representation `name`, or nullptr.
const Registered* find(const std::string& name);

// external32 bytes of one element of `dt`.
size_t external32_size(const lz::dt::Datatype& dt);
// Converts `count` elements of `dt` between the native packed form and
// external32 (`to`: native -> external32).
void external32_convert(const lz::dt::Datatype& dt, int count, const unsigned char* in, unsigned char* out, bool to);

}  // namespace lz::rt::datarep
