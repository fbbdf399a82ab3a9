// The sentinel COMMON blocks and the argument helpers of the Fortran binding
// (fortran_args.h).
#include "mpi/fortran/fortran_args.h"

#include <algorithm>
#include <cstring>

#include "mpi/fortran/handle_table.h"

// Defined here, not by the program: every Fortran unit that includes mpif.h
// or uses the mpi module names the same storage, and a C program linked with
// Fortran code finds them too.
extern "C" {
MPI_Fint lz_mpif_bottom_ = 0;
MPI_Fint lz_mpif_in_place_ = 0;
MPI_Fint lz_mpif_status_ignore_[LZ_F_STATUS_SIZE] = {};
MPI_Fint lz_mpif_statuses_ignore_[LZ_F_STATUS_SIZE] = {};
MPI_Fint lz_mpif_unweighted_[1] = {};
MPI_Fint lz_mpif_weights_empty_[1] = {};
MPI_Fint lz_mpif_errcodes_ignore_[1] = {};
char lz_mpif_argv_null_[1] = {};
char lz_mpif_argvs_null_[1] = {};
MPI_Fint* MPI_F_STATUS_IGNORE = lz_mpif_status_ignore_;
MPI_Fint* MPI_F_STATUSES_IGNORE = lz_mpif_statuses_ignore_;
MPI_F08_status* MPI_F08_STATUS_IGNORE = reinterpret_cast<MPI_F08_status*>(lz_mpif_status_ignore_);
MPI_F08_status* MPI_F08_STATUSES_IGNORE = reinterpret_cast<MPI_F08_status*>(lz_mpif_statuses_ignore_);
}

namespace lz::fortran {

std::string lz_f_string_keep_leading(const char* s, size_t len) {
  if (s == nullptr) return {};
  while (len > 0 && s[len - 1] == ' ') --len;
  return std::string(s, len);
}

std::string lz_f_string(const char* s, size_t len) {
  std::string t = lz_f_string_keep_leading(s, len);
  const size_t begin = t.find_first_not_of(' ');
  return begin == std::string::npos ? std::string() : t.substr(begin);
}

void lz_f_copy_string(const char* c, char* f, size_t len) {
  const size_t n = std::min(std::strlen(c), len);
  std::memcpy(f, c, n);
  std::memset(f + n, ' ', len - n);
}

int lz_f_update(Kind kind, MPI_Fint old, void* now) {
  if (now == nullptr) {
    if (old == 0) return 0;
    if (kind == Kind::kRequest) request_done(old);
    // Objects that C hands out more references to keep their value while
    // one lives: an error handler (MPI_COMM_GET_ERRHANDLER gives the one
    // the program created; never given back, there are few), a datatype
    // (MPI_TYPE_GET_CONTENTS; given back when the type is deleted,
    // handle_table.cpp). Two Fortran variables may hold one value, each to
    // be freed (MPICH's commerrf and typecntsf do so).
    if (kind != Kind::kErrhandler && kind != Kind::kDatatype) table(kind).release(old);
    return 0;
  }
  return table(kind).c2f(now);
}

int lz_f_comm_size(MPI_Comm comm) {
  int size = 0, inter = 0;
  // A null communicator is reported by the call itself.
  if (comm == MPI_COMM_NULL) return 0;
  // Per-rank arrays (Alltoallw's datatypes) name the remote group's ranks on
  // an intercommunicator.
  if (MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter)
    return MPI_Comm_remote_size(comm, &size) == MPI_SUCCESS ? size : 0;
  return MPI_Comm_size(comm, &size) == MPI_SUCCESS ? size : 0;
}

int lz_f_cartdim(MPI_Comm comm) {
  int status = MPI_UNDEFINED, ndims = 0;
  if (comm == MPI_COMM_NULL || MPI_Topo_test(comm, &status) != MPI_SUCCESS || status != MPI_CART) return 0;
  return MPI_Cartdim_get(comm, &ndims) == MPI_SUCCESS ? ndims : 0;
}

namespace {
void degrees(MPI_Comm comm, int* in, int* out) {
  *in = *out = 0;
  int status = MPI_UNDEFINED, rank = 0, weighted = 0;
  if (comm == MPI_COMM_NULL || MPI_Topo_test(comm, &status) != MPI_SUCCESS) return;
  if (status == MPI_CART) {
    int ndims = 0;
    MPI_Cartdim_get(comm, &ndims);
    *in = *out = 2 * ndims;
  } else if (status == MPI_GRAPH) {
    MPI_Comm_rank(comm, &rank);
    MPI_Graph_neighbors_count(comm, rank, in);
    *out = *in;
  } else if (status == MPI_DIST_GRAPH) {
    MPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
  }
}
}  // namespace

int lz_f_indegree(MPI_Comm comm) {
  int in, out;
  degrees(comm, &in, &out);
  return in;
}

int lz_f_outdegree(MPI_Comm comm) {
  int in, out;
  degrees(comm, &in, &out);
  return out;
}

}  // namespace lz::fortran
