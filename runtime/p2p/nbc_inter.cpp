#include "p2p/nbc_inter.h"

#include <vector>

#include "mpi.h"
#include "p2p/comm.h"

namespace lz::rt {
namespace {

NbcPtr make(lz_mpi_comm_s& c) { return std::make_unique<NbcSchedule>(c, nbc_tag(c)); }

void* at(void* buf, long elems, const Datatype& dt) { return static_cast<char*>(buf) + elems * dt.extent(); }
const void* at(const void* buf, long elems, const Datatype& dt) {
  return static_cast<const char*>(buf) + elems * dt.extent();
}

// Receives `count` elements from every remote rank into temporaries and
// reduces them into `acc` in the remote group's rank order:
// x0 op (x1 op (... op x_n-1)).
void add_remote_reduce(NbcSchedule& s, int nr, void* acc, int count, const Datatype& dt, const Op& op) {
  std::vector<void*> x(static_cast<size_t>(nr));
  for (int r = 0; r < nr; ++r) {
    x[static_cast<size_t>(r)] = s.temp(count, dt);
    s.recv(x[static_cast<size_t>(r)], count, dt, r);
  }
  s.next_round();
  s.copy(x[static_cast<size_t>(nr - 1)], count, dt, acc, count, dt);
  for (int r = nr - 2; r >= 0; --r) s.reduce(x[static_cast<size_t>(r)], acc, count, dt, op);
  s.next_round();
}

}  // namespace

NbcPtr inter_barrier(lz_mpi_comm_s& c) {
  auto s = make(c);
  for (int r = 0; r < c.remote_size(); ++r) {
    s->send(nullptr, 0, dt::byte_type(), r);
    s->recv(nullptr, 0, dt::byte_type(), r);
  }
  s->next_round();
  return s;
}

NbcPtr inter_bcast(lz_mpi_comm_s& c, void* buf, int count, const Datatype& dt, int root) {
  auto s = make(c);
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.remote_size(); ++r) s->send(buf, count, dt, r);
  } else if (root != MPI_PROC_NULL) {
    s->recv(buf, count, dt, root);
  }
  s->next_round();
  return s;
}

NbcPtr inter_reduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                    int root) {
  auto s = make(c);
  if (count == 0 || root == MPI_PROC_NULL) return s;
  if (root == MPI_ROOT) {
    add_remote_reduce(*s, c.remote_size(), rbuf, count, dt, op);
  } else {
    s->send(sbuf, count, dt, root);
    s->next_round();
  }
  return s;
}

NbcPtr inter_allreduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op) {
  auto s = make(c);
  if (count == 0) return s;
  for (int r = 0; r < c.remote_size(); ++r) s->send(sbuf, count, dt, r);
  add_remote_reduce(*s, c.remote_size(), rbuf, count, dt, op);
  return s;
}

NbcPtr inter_gatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf,
                     const int* rcounts, const int* displs, const Datatype& rdt, int root) {
  auto s = make(c);
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.remote_size(); ++r) s->recv(at(rbuf, displs[r], rdt), rcounts[r], rdt, r);
  } else if (root != MPI_PROC_NULL) {
    s->send(sbuf, scount, sdt, root);
  }
  s->next_round();
  return s;
}

NbcPtr inter_scatterv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* displs, const Datatype& sdt,
                      void* rbuf, int rcount, const Datatype& rdt, int root) {
  auto s = make(c);
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.remote_size(); ++r) s->send(at(sbuf, displs[r], sdt), scounts[r], sdt, r);
  } else if (root != MPI_PROC_NULL) {
    s->recv(rbuf, rcount, rdt, root);
  }
  s->next_round();
  return s;
}

namespace {
// The fixed-size calls are their v-variants with equal blocks one after another.
struct Uniform {
  std::vector<int> counts, displs;
  Uniform(int n, int count) : counts(static_cast<size_t>(n), count), displs(static_cast<size_t>(n)) {
    for (int r = 0; r < n; ++r) displs[static_cast<size_t>(r)] = r * count;
  }
};
}  // namespace

NbcPtr inter_gather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                    const Datatype& rdt, int root) {
  Uniform u(c.remote_size(), rcount);
  return inter_gatherv(c, sbuf, scount, sdt, rbuf, u.counts.data(), u.displs.data(), rdt, root);
}

NbcPtr inter_scatter(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                     const Datatype& rdt, int root) {
  Uniform u(c.remote_size(), scount);
  return inter_scatterv(c, sbuf, u.counts.data(), u.displs.data(), sdt, rbuf, rcount, rdt, root);
}

NbcPtr inter_allgatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf,
                        const int* rcounts, const int* displs, const Datatype& rdt) {
  auto s = make(c);
  for (int r = 0; r < c.remote_size(); ++r) {
    s->send(sbuf, scount, sdt, r);
    s->recv(at(rbuf, displs[r], rdt), rcounts[r], rdt, r);
  }
  s->next_round();
  return s;
}

NbcPtr inter_allgather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                       const Datatype& rdt) {
  Uniform u(c.remote_size(), rcount);
  return inter_allgatherv(c, sbuf, scount, sdt, rbuf, u.counts.data(), u.displs.data(), rdt);
}

NbcPtr inter_alltoallw(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls,
                       const Datatype* const* sdts, void* rbuf, const int* rcounts, const int* rdispls,
                       const Datatype* const* rdts) {
  auto s = make(c);
  for (int r = 0; r < c.remote_size(); ++r) {
    s->send(static_cast<const char*>(sbuf) + sdispls[r], scounts[r], *sdts[r], r);
    s->recv(static_cast<char*>(rbuf) + rdispls[r], rcounts[r], *rdts[r], r);
  }
  s->next_round();
  return s;
}

NbcPtr inter_alltoallv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt,
                       void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt) {
  auto s = make(c);
  for (int r = 0; r < c.remote_size(); ++r) {
    s->send(at(sbuf, sdispls[r], sdt), scounts[r], sdt, r);
    s->recv(at(rbuf, rdispls[r], rdt), rcounts[r], rdt, r);
  }
  s->next_round();
  return s;
}

NbcPtr inter_alltoall(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                      const Datatype& rdt) {
  Uniform su(c.remote_size(), scount), ru(c.remote_size(), rcount);
  return inter_alltoallv(c, sbuf, su.counts.data(), su.displs.data(), sdt, rbuf, ru.counts.data(), ru.displs.data(),
                         rdt);
}

NbcPtr inter_reduce_scatter(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                            const Op& op) {
  auto s = make(c);
  long total = 0, before = 0;
  for (int r = 0; r < c.size(); ++r) {
    if (r == c.rank()) before = total;
    total += rcounts[r];
  }
  if (total == 0) return s;
  const int n = static_cast<int>(total);
  for (int r = 0; r < c.remote_size(); ++r) s->send(sbuf, n, dt, r);
  void* acc = s->temp(n, dt);
  add_remote_reduce(*s, c.remote_size(), acc, n, dt, op);
  const int mine = rcounts[c.rank()];
  if (mine > 0) s->copy(at(static_cast<const void*>(acc), before, dt), mine, dt, rbuf, mine, dt);
  s->next_round();
  return s;
}

NbcPtr inter_reduce_scatter_block(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int rcount, const Datatype& dt,
                                  const Op& op) {
  std::vector<int> counts(static_cast<size_t>(c.size()), rcount);
  return inter_reduce_scatter(c, sbuf, rbuf, counts.data(), dt, op);
}

}  // namespace lz::rt
