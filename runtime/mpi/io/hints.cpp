#include "mpi/io/hints.h"

#include <cstdlib>

#include "mpi/io/file.h"

namespace lz::rt::io {

namespace {

// The acted-on hints and their defaults, in MPI_File_get_info's order.
const Hints& defaults() {
  static const Hints d = {{"cb_buffer_size", "16777216"},
                          {"romio_cb_read", "automatic"},
                          {"romio_cb_write", "automatic"},
                          {"cb_nodes", "1"},
                          {"romio_ds_read", "automatic"},
                          {"romio_ds_write", "disable"},
                          {"ind_rd_buffer_size", "4194304"},
                          {"ind_wr_buffer_size", "524288"},
                          {"striping_unit", "0"},
                          {"striping_factor", "0"}};
  return d;
}

}  // namespace

void apply_hints(MPI_File fh) {
  const std::string ds_read = fh->hint("romio_ds_read", "automatic");
  const std::string ds_write = fh->hint("romio_ds_write", "disable");
  fh->access.sieve_reads = ds_read != "disable";
  fh->access.sieve_writes = ds_write == "enable";
  const long long rd = std::atoll(fh->hint("ind_rd_buffer_size", "4194304").c_str());
  if (rd > 0) fh->access.sieve_bytes = static_cast<uint64_t>(rd);
}

void merge_hints(MPI_File fh, const Hints& more) {
  for (const auto& [k, v] : more) {
    bool replaced = false;
    for (auto& [k0, v0] : fh->info)
      if (k0 == k) {
        v0 = v;
        replaced = true;
      }
    if (!replaced) fh->info.emplace_back(k, v);
  }
  apply_hints(fh);
}

Hints hints_in_use(MPI_File fh) {
  Hints out;
  for (const auto& [k, v] : defaults()) out.emplace_back(k, fh->hint(k, v));
  for (const auto& [k, v] : fh->info) {
    bool known = false;
    for (const auto& d : defaults()) known = known || d.first == k;
    if (!known) out.emplace_back(k, v);
  }
  return out;
}

}  // namespace lz::rt::io
