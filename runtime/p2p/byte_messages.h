// Byte strings of any length between two processes of a communicator, on its
// collective context (the runtime's own agreements: intercomm_factory.h,
// dpm.h): the length first, then the bytes.
#pragma once

#include <string>

#include "lazarus/status.h"
#include "p2p/comm.h"

namespace lz::rt {

Status send_bytes(::lz_mpi_comm_s& c, const std::string& s, int dst, int tag);
// kProtocol for a length over 1 GiB (no agreement sends that much).
StatusOr<std::string> recv_bytes(::lz_mpi_comm_s& c, int src, int tag);

}  // namespace lz::rt
