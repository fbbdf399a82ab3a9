// The error reports of the point-to-point argument checks (p2p_binding.h):
// each tests again what its check found wrong, and names it.
#include "mpi/p2p_binding.h"

namespace lz::rt::binding {

int report_common(const char* fn, MPI_Comm comm, int count, MPI_Datatype dt) {
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (count < 0) return mpi_error(comm, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  if (dt == nullptr) return mpi_error(comm, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (!dt->is_committed())
    return mpi_error(comm, fn, MPI_ERR_TYPE, "datatype " + dt->name() + " is not committed");
  return MPI_SUCCESS;
}

int report_dest(const char* fn, MPI_Comm comm, int dest, int tag) {
  if (dest != MPI_PROC_NULL && (dest < 0 || dest >= comm->peer_size()))
    return mpi_error(comm, fn, MPI_ERR_RANK,
                     "invalid destination rank " + std::to_string(dest) +
                         (comm->is_inter() ? " (remote group size " : " (communicator size ") +
                         std::to_string(comm->peer_size()) + ")");
  if (tag < 0 || tag > MPI_TAG_UB_VALUE)
    return mpi_error(comm, fn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  return MPI_SUCCESS;
}

int report_source(const char* fn, MPI_Comm comm, int source, int tag) {
  if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= comm->peer_size()))
    return mpi_error(comm, fn, MPI_ERR_RANK,
                     "invalid source rank " + std::to_string(source) +
                         (comm->is_inter() ? " (remote group size " : " (communicator size ") +
                         std::to_string(comm->peer_size()) + ")");
  if (tag != MPI_ANY_TAG && (tag < 0 || tag > MPI_TAG_UB_VALUE))
    return mpi_error(comm, fn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  return MPI_SUCCESS;
}

std::string request_error_text(const Request* r) {
  switch (r->st_error) {
    case MPI_ERR_TRUNCATE:
      return "message truncated: the message from rank " + std::to_string(r->st_source) + " (tag " +
             std::to_string(r->st_tag) + ") is longer than the receive buffer of " + std::to_string(r->bytes) +
             " bytes";
    case MPI_ERR_PROC_FAILED:
      return "peer process (world rank " + std::to_string(r->world_peer) + ") failed";
    case MPI_ERR_BUFFER:
      return "the attached buffer (MPI_Buffer_attach) has no room for this message";
    default:
      return "communication failed (error class " + std::to_string(r->st_error) + ")";
  }
}

}  // namespace lz::rt::binding
