#include "p2p/nbc_neighbor.h"

#include <cstddef>
#include <vector>

#include "p2p/comm.h"

namespace lz::rt {
namespace {

struct SendBlock {
  const void* buf;
  int count;
  const Datatype* dt;
};
struct RecvBlock {
  void* buf;
  int count;
  const Datatype* dt;
};

// The one round of every neighbourhood collective: send_at(j) is the block
// for out[j], recv_at(i) the block from in[i].
template <class SendAt, class RecvAt>
NbcPtr neighbour_round(lz_mpi_comm_s& c, const NeighbourLists& nb, SendAt send_at, RecvAt recv_at) {
  auto s = std::make_unique<NbcSchedule>(c, nbc_tag(c));
  // Receives first (fewer unexpected messages); in each Cartesian dimension
  // the +1 neighbour's block first (see the header).
  for (size_t k = 0; k < nb.in.size(); ++k) {
    const size_t i = nb.cartesian ? (k ^ 1u) : k;
    if (nb.in[i] == MPI_PROC_NULL) continue;
    const RecvBlock b = recv_at(i);
    s->recv(b.buf, b.count, *b.dt, nb.in[i]);
  }
  for (size_t j = 0; j < nb.out.size(); ++j) {
    if (nb.out[j] == MPI_PROC_NULL) continue;
    const SendBlock b = send_at(j);
    s->send(b.buf, b.count, *b.dt, nb.out[j]);
  }
  return s;
}

char* at(void* buf, ptrdiff_t bytes) { return static_cast<char*>(buf) + bytes; }
const char* at(const void* buf, ptrdiff_t bytes) { return static_cast<const char*>(buf) + bytes; }
ptrdiff_t elems(ptrdiff_t n, const Datatype& dt) { return n * static_cast<ptrdiff_t>(dt.extent()); }

}  // namespace

NbcPtr nbc_neighbor_allgather(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, int scount,
                              const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt) {
  return neighbour_round(
      c, nb,
      [&](size_t) {
        return SendBlock{sbuf, scount, &sdt};
      },
      [&](size_t i) {
        return RecvBlock{at(rbuf, elems(static_cast<ptrdiff_t>(i) * rcount, rdt)), rcount, &rdt};
      });
}

NbcPtr nbc_neighbor_allgatherv(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, int scount,
                               const Datatype& sdt, void* rbuf, const int* rcounts, const int* displs,
                               const Datatype& rdt) {
  return neighbour_round(
      c, nb,
      [&](size_t) {
        return SendBlock{sbuf, scount, &sdt};
      },
      [&](size_t i) {
        return RecvBlock{at(rbuf, elems(displs[i], rdt)), rcounts[i], &rdt};
      });
}

NbcPtr nbc_neighbor_alltoall(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, int scount,
                             const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt) {
  return neighbour_round(
      c, nb,
      [&](size_t j) {
        return SendBlock{at(sbuf, elems(static_cast<ptrdiff_t>(j) * scount, sdt)), scount, &sdt};
      },
      [&](size_t i) {
        return RecvBlock{at(rbuf, elems(static_cast<ptrdiff_t>(i) * rcount, rdt)), rcount, &rdt};
      });
}

NbcPtr nbc_neighbor_alltoallv(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, const int* scounts,
                              const int* sdispls, const Datatype& sdt, void* rbuf, const int* rcounts,
                              const int* rdispls, const Datatype& rdt) {
  return neighbour_round(
      c, nb,
      [&](size_t j) {
        return SendBlock{at(sbuf, elems(sdispls[j], sdt)), scounts[j], &sdt};
      },
      [&](size_t i) {
        return RecvBlock{at(rbuf, elems(rdispls[i], rdt)), rcounts[i], &rdt};
      });
}

NbcPtr nbc_neighbor_alltoallw(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, const int* scounts,
                              const MPI_Aint* sdispls, const Datatype* const* sdts, void* rbuf, const int* rcounts,
                              const MPI_Aint* rdispls, const Datatype* const* rdts) {
  return neighbour_round(
      c, nb,
      [&](size_t j) {
        return SendBlock{at(sbuf, sdispls[j]), scounts[j], sdts[j]};
      },
      [&](size_t i) {
        return RecvBlock{at(rbuf, rdispls[i]), rcounts[i], rdts[i]};
      });
}

}  // namespace lz::rt
