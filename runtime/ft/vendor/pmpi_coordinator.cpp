#include "pmpi_coordinator.h"

#include <cstdint>

namespace lz::ft {
namespace {

Status failed(const char* call, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  return Internal(std::string(call) + " failed: " + std::string(text, static_cast<size_t>(len)));
}

}  // namespace

PmpiCoordinator::PmpiCoordinator(MPI_Comm comm) : comm_(comm) {
  PMPI_Comm_rank(comm_, &rank_);
  PMPI_Comm_size(comm_, &size_);
}

Status PmpiCoordinator::sum(std::vector<uint64_t>& v) {
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_SUM, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : failed("MPI_Allreduce", rc);
}

Status PmpiCoordinator::broadcast(std::string& text) {
  uint64_t n = text.size();
  if (int rc = PMPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm_); rc != MPI_SUCCESS) return failed("MPI_Bcast", rc);
  text.resize(n);
  if (n == 0) return Status::Ok();
  const int rc = PMPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : failed("MPI_Bcast", rc);
}

}  // namespace lz::ft
