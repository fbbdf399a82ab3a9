// MPI-IO hints (MPI-3.1 section 13.2.8) and the ones ROMIO made common:
// which are acted on, and what MPI_File_get_info reports as in use.
//
// Acted on: cb_buffer_size, cb_nodes, cb_config_list ("*:N" aggregators per
// host, "*:*"), romio_cb_read / romio_cb_write
// (enable | disable | automatic: collective buffering), romio_ds_read /
// romio_ds_write (data sieving), ind_rd_buffer_size / ind_wr_buffer_size
// (the sieve), striping_factor / striping_unit (the aggregators' file
// domains are aligned to the stripe unit). Any other key is kept and
// reported, and changes nothing.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mpi.h"

namespace lz::rt::io {

using Hints = std::vector<std::pair<std::string, std::string>>;

// Sets the file's access options from its hints.
void apply_hints(MPI_File fh);
// Adds or replaces hints (MPI_File_set_info, _set_view), then applies them.
void merge_hints(MPI_File fh, const Hints& more);
// The hints in use: the given ones and the defaults of the acted-on ones.
Hints hints_in_use(MPI_File fh);
// One acted-on hint's value in use: the program's, else the default ("" for
// cb_nodes before the first collective access: every rank).
std::string hint_in_use(MPI_File fh, const std::string& key);

}  // namespace lz::rt::io
