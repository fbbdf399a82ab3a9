// MPI_Info: ordered (key, value) hints (MPI-3.1 chapter 9). Keys keep the
// order they were first set in (MPI_Info_get_nthkey); setting a key again
// replaces its value in place.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct lz_mpi_info_s {
  static constexpr uint32_t kMagic = 0x494e464f;  // "INFO"
  uint32_t magic = kMagic;
  bool predefined = false;  // MPI_INFO_ENV: never freed
  std::vector<std::pair<std::string, std::string>> entries;
  bool valid() const { return magic == kMagic; }
};
