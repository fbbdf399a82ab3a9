// The shared file pointer of an MPI_File (MPI-3.1 section 13.4.4): one
// MPI_Offset, in etypes of the view, held in a window of the file's
// communicator at its rank 0 and moved by MPI_Fetch_and_op, so that any
// rank takes its part of the file without the others calling MPI (the
// window's progress serves it). No hidden file beside the data, as ROMIO
// keeps: the pointer is process memory that every checkpoint back end
// saves with rank 0 and restores with it, on any host.
#pragma once

#include "mpi.h"

namespace lz::rt::io {

// Collective over the file's communicator: the window, pointer 0.
int shared_pointer_create(MPI_File fh);
// Collective: frees it.
void shared_pointer_free(MPI_File fh);
// Adds `etypes` and returns the value before (atomically among the ranks);
// counts them in fh->shared_added.
int shared_pointer_fetch_add(MPI_File fh, MPI_Offset etypes, MPI_Offset* before);
// Collective (open, set_view, seek_shared), after the ranks agreed on
// `etypes`: rank 0 sets the pointer, and every rank notes the reset
// (fh->shared_resets, _reset_to, _added). The caller orders it: a barrier
// before and after.
int shared_pointer_reset(MPI_File fh, MPI_Offset etypes);

}  // namespace lz::rt::io
