// MPI_Message: a message taken out of matching by a matched probe
// (MPI_Mprobe / MPI_Improbe) until the receive given it (MPI_Mrecv /
// MPI_Imrecv) consumes it. MPI_MESSAGE_NO_PROC is the predefined one a
// probe of MPI_PROC_NULL returns.
#pragma once

#include <cstdint>

#include "mpi.h"
#include "p2p/match_queue.h"

struct lz_mpi_message_s {
  static constexpr uint32_t kMagic = 0x4d534721;  // "MSG!"
  uint32_t magic = kMagic;
  MPI_Comm comm = MPI_COMM_NULL;
  lz::rt::Unexpected* message = nullptr;  // null only in MPI_MESSAGE_NO_PROC
  bool valid() const { return magic == kMagic; }
};
