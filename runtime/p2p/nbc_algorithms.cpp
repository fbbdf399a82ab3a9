#include "p2p/nbc_algorithms.h"

#include <vector>

#include "mpi.h"
#include "p2p/comm.h"

namespace lz::rt {
namespace {

// Below the runtime's own negative tags (comm_factory: -4096) and never
// MPI_ANY_TAG; 2^20 calls in flight on one communicator before a tag recurs.
constexpr int kNbcTagBase = -8192;
constexpr uint32_t kNbcTagSpan = 1u << 20;

bool in_place(const void* p) { return p == MPI_IN_PLACE; }

// Element i of a buffer of dt elements (displacements count elements).
void* block(void* buf, int i, const Datatype& dt) {
  return static_cast<char*>(buf) + static_cast<ptrdiff_t>(i) * dt.extent();
}
const void* block(const void* buf, int i, const Datatype& dt) {
  return static_cast<const char*>(buf) + static_cast<ptrdiff_t>(i) * dt.extent();
}

// `off` bytes into a buffer (alltoallw's displacements).
void* bytes_at(void* buf, int off) { return static_cast<char*>(buf) + off; }
const void* bytes_at(const void* buf, int off) { return static_cast<const char*>(buf) + off; }

// The fixed-size collectives are their v-variants with every count equal
// and the blocks one after the other.
struct Uniform {
  std::vector<int> counts, displs;
  Uniform(int n, int count) : counts(static_cast<size_t>(n), count), displs(static_cast<size_t>(n)) {
    for (int r = 0; r < n; ++r) displs[static_cast<size_t>(r)] = r * count;
  }
};

NbcPtr make(lz_mpi_comm_s& c) { return std::make_unique<NbcSchedule>(c, nbc_tag(c)); }

// Binomial-tree bcast rounds from `root` into `buf`, added to `s`.
void add_bcast(NbcSchedule& s, int n, int me, void* buf, int count, const Datatype& dt, int root) {
  const int v = (me - root + n) % n;  // rank relative to the root
  int low = 1;                        // the subtree of v spans [v, v + low)
  if (v == 0) {
    while (low < n) low <<= 1;
  } else {
    low = v & -v;
    s.recv(buf, count, dt, (v - low + root) % n);  // parent: v without its lowest bit
    s.next_round();
  }
  for (int m = low >> 1; m >= 1; m >>= 1)  // children, the largest subtree first
    if (v + m < n) s.send(buf, count, dt, (v + m + root) % n);
  s.next_round();
}

// Linear reduce to `root` in rank order: x0 op (x1 op (... op x_n-1)).
void add_reduce(NbcSchedule& s, int n, int me, const void* sbuf, void* rbuf, int count, const Datatype& dt,
                const Op& op, int root) {
  if (me != root) {
    s.send(sbuf, count, dt, root);
    s.next_round();
    return;
  }
  std::vector<const void*> x(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    void* t = s.temp(count, dt);
    s.recv(t, count, dt, r);
    x[static_cast<size_t>(r)] = t;
  }
  // The root's own contribution, kept apart while rbuf accumulates.
  const void* own = sbuf;
  if (in_place(sbuf)) {
    void* t = s.temp(count, dt);
    s.copy(rbuf, count, dt, t, count, dt);
    own = t;
  }
  x[static_cast<size_t>(me)] = own;
  s.copy(x[static_cast<size_t>(n - 1)], count, dt, rbuf, count, dt);
  for (int r = n - 2; r >= 0; --r) s.reduce(x[static_cast<size_t>(r)], rbuf, count, dt, op);
  s.next_round();
}

}  // namespace

void add_allreduce(NbcSchedule& s, int n, int me, const void* sbuf, void* rbuf, int count, const Datatype& dt,
                   const Op& op) {
  s.next_round();
  if (n > 1 && (n & (n - 1)) == 0) {
    // Recursive doubling: log2(n) rounds, each an exchange of the whole
    // vector with me ^ mask and one combination, the lower ranks' data on
    // the left. The reduce + bcast below moves the vector twice one way
    // after the other (np 2, 2 MiB: 726 us against the blocking call's 434).
    if (!in_place(sbuf)) s.copy(sbuf, count, dt, rbuf, count, dt);
    s.next_round();
    void* theirs = s.temp(count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
      const int peer = me ^ mask;
      s.send(rbuf, count, dt, peer);
      s.recv(theirs, count, dt, peer);
      if (peer < me || op.commutative()) {
        s.reduce(theirs, rbuf, count, dt, op);  // rbuf = theirs op mine
      } else {
        s.reduce(rbuf, theirs, count, dt, op);  // theirs = mine op theirs
        s.copy(theirs, count, dt, rbuf, count, dt);
      }
      s.next_round();
    }
    return;
  }
  // Off the root, MPI_IN_PLACE means the contribution is in rbuf.
  const void* mine = me != 0 && in_place(sbuf) ? rbuf : sbuf;
  add_reduce(s, n, me, mine, rbuf, count, dt, op, 0);
  add_bcast(s, n, me, rbuf, count, dt, 0);
}

namespace {
thread_local int g_fixed_tag = 0;  // NbcFixedTag's
thread_local int g_drawn_tag = 0;
}  // namespace

int nbc_tag(lz_mpi_comm_s& comm) {
  g_drawn_tag = g_fixed_tag != 0 ? g_fixed_tag : kNbcTagBase - static_cast<int>(comm.nbc_calls++ % kNbcTagSpan);
  return g_drawn_tag;
}

NbcFixedTag::NbcFixedTag(int tag) {
  g_fixed_tag = tag;
  g_drawn_tag = 0;
}
NbcFixedTag::~NbcFixedTag() { g_fixed_tag = 0; }
int NbcFixedTag::drawn() { return g_drawn_tag; }

NbcPtr nbc_barrier(lz_mpi_comm_s& c) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  for (int k = 1; k < n; k <<= 1) {
    s->send(nullptr, 0, dt::byte_type(), (me + k) % n);
    s->recv(nullptr, 0, dt::byte_type(), (me - k + n) % n);
    s->next_round();
  }
  return s;
}

NbcPtr nbc_bcast(lz_mpi_comm_s& c, void* buf, int count, const Datatype& dt, int root) {
  auto s = make(c);
  if (count > 0) add_bcast(*s, c.size(), c.rank(), buf, count, dt, root);
  return s;
}

NbcPtr nbc_reduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                  int root) {
  auto s = make(c);
  if (count > 0) add_reduce(*s, c.size(), c.rank(), sbuf, rbuf, count, dt, op, root);
  return s;
}

NbcPtr nbc_allreduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op) {
  auto s = make(c);
  if (count == 0) return s;
  add_allreduce(*s, c.size(), c.rank(), sbuf, rbuf, count, dt, op);
  return s;
}

NbcPtr nbc_gather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                  const Datatype& rdt, int root) {
  Uniform u(c.size(), rcount);
  return nbc_gatherv(c, sbuf, scount, sdt, rbuf, u.counts.data(), u.displs.data(), rdt, root);
}

NbcPtr nbc_scatter(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                   const Datatype& rdt, int root) {
  Uniform u(c.size(), scount);
  return nbc_scatterv(c, sbuf, u.counts.data(), u.displs.data(), sdt, rbuf, rcount, rdt, root);
}

NbcPtr nbc_allgather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                     const Datatype& rdt) {
  Uniform u(c.size(), rcount);
  return nbc_allgatherv(c, sbuf, scount, sdt, rbuf, u.counts.data(), u.displs.data(), rdt);
}

NbcPtr nbc_alltoall(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                    const Datatype& rdt) {
  Uniform su(c.size(), scount), ru(c.size(), rcount);
  return nbc_alltoallv(c, sbuf, su.counts.data(), su.displs.data(), sdt, rbuf, ru.counts.data(), ru.displs.data(), rdt);
}

NbcPtr nbc_gatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                   const int* displs, const Datatype& rdt, int root) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  if (me != root) {
    s->send(sbuf, scount, sdt, root);
    return s;
  }
  for (int r = 0; r < n; ++r)
    if (r != me) s->recv(block(rbuf, displs[r], rdt), rcounts[r], rdt, r);
  if (!in_place(sbuf)) s->copy(sbuf, scount, sdt, block(rbuf, displs[me], rdt), rcounts[me], rdt);
  return s;
}

NbcPtr nbc_scatterv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* displs, const Datatype& sdt,
                    void* rbuf, int rcount, const Datatype& rdt, int root) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  if (me != root) {
    s->recv(rbuf, rcount, rdt, root);
    return s;
  }
  for (int r = 0; r < n; ++r)
    if (r != me) s->send(block(sbuf, displs[r], sdt), scounts[r], sdt, r);
  if (!in_place(rbuf)) s->copy(block(sbuf, displs[me], sdt), scounts[me], sdt, rbuf, rcount, rdt);
  return s;
}

NbcPtr nbc_allgatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf,
                      const int* rcounts, const int* displs, const Datatype& rdt) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  const bool ip = in_place(sbuf);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    if (ip) s->send(block(rbuf, displs[me], rdt), rcounts[me], rdt, r);
    else s->send(sbuf, scount, sdt, r);
    s->recv(block(rbuf, displs[r], rdt), rcounts[r], rdt, r);
  }
  if (!ip) s->copy(sbuf, scount, sdt, block(rbuf, displs[me], rdt), rcounts[me], rdt);
  return s;
}

NbcPtr nbc_alltoallv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt,
                     void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  const void* from = sbuf;
  const Datatype* fdt = &sdt;
  const int* fcounts = scounts;
  const int* fdispls = sdispls;
  std::vector<int>* tdispls = nullptr;
  if (in_place(sbuf)) {
    // rbuf is both sides: send from a packed-by-block copy, taken in a round of its own.
    int total = 0;
    for (int r = 0; r < n; ++r) total += rcounts[r];
    char* t = static_cast<char*>(s->temp(total, rdt));
    tdispls = s->ints(n);
    for (int r = 0, at = 0; r < n; ++r) {
      (*tdispls)[static_cast<size_t>(r)] = at;
      s->copy(block(rbuf, rdispls[r], rdt), rcounts[r], rdt, block(t, at, rdt), rcounts[r], rdt);
      at += rcounts[r];
    }
    s->next_round();
    from = t;
    fdt = &rdt;
    fcounts = rcounts;
    fdispls = tdispls->data();
  }
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    s->send(block(from, fdispls[r], *fdt), fcounts[r], *fdt, r);
    s->recv(block(rbuf, rdispls[r], rdt), rcounts[r], rdt, r);
  }
  if (!in_place(sbuf))
    s->copy(block(sbuf, sdispls[me], sdt), scounts[me], sdt, block(rbuf, rdispls[me], rdt), rcounts[me], rdt);
  return s;
}

NbcPtr nbc_alltoallw(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls,
                     const Datatype* const* sdts, void* rbuf, const int* rcounts, const int* rdispls,
                     const Datatype* const* rdts) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  const void* from = sbuf;
  const int* fdispls = sdispls;
  const int* fcounts = scounts;
  const Datatype* const* fdts = sdts;
  if (in_place(sbuf)) {
    // rbuf is both sides: send from a copy of each block, in a round of its own.
    std::vector<int>& tdispls = *s->ints(n);
    size_t total = 0;
    for (int r = 0; r < n; ++r) {
      tdispls[static_cast<size_t>(r)] = static_cast<int>(total);
      total += static_cast<size_t>(rcounts[r]) * static_cast<size_t>(rdts[r]->extent());
    }
    char* t = static_cast<char*>(s->temp(static_cast<int>(total), dt::byte_type()));
    for (int r = 0; r < n; ++r)
      s->copy(bytes_at(static_cast<const void*>(rbuf), rdispls[r]), rcounts[r], *rdts[r], t + tdispls[static_cast<size_t>(r)],
              rcounts[r], *rdts[r]);
    s->next_round();
    from = t;
    fdispls = tdispls.data();
    fcounts = rcounts;
    fdts = rdts;
  }
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    s->send(bytes_at(from, fdispls[r]), fcounts[r], *fdts[r], r);
    s->recv(bytes_at(rbuf, rdispls[r]), rcounts[r], *rdts[r], r);
  }
  if (!in_place(sbuf))
    s->copy(bytes_at(sbuf, sdispls[me]), scounts[me], *sdts[me], bytes_at(rbuf, rdispls[me]), rcounts[me], *rdts[me]);
  return s;
}

NbcPtr nbc_reduce_scatter(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                          const Op& op) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  std::vector<int>& displs = *s->ints(n);
  int total = 0;
  for (int r = 0; r < n; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += rcounts[r];
  }
  if (total == 0) return s;
  // MPI_IN_PLACE: the whole input is in rbuf.
  const void* mine = in_place(sbuf) ? rbuf : sbuf;
  void* all = me == 0 ? s->temp(total, dt) : nullptr;
  add_reduce(*s, n, me, mine, all, total, dt, op, 0);
  if (me != 0) {
    s->recv(rbuf, rcounts[me], dt, 0);
    return s;
  }
  for (int r = 1; r < n; ++r) s->send(block(all, displs[static_cast<size_t>(r)], dt), rcounts[r], dt, r);
  s->copy(all, rcounts[0], dt, rbuf, rcounts[0], dt);
  return s;
}

NbcPtr nbc_scan(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                bool exclusive) {
  auto s = make(c);
  const int n = c.size(), me = c.rank();
  if (count == 0) return s;
  const void* mine = in_place(sbuf) ? rbuf : sbuf;
  void* prev = me > 0 ? s->temp(count, dt) : nullptr;
  if (me > 0) s->recv(prev, count, dt, me - 1);
  // What goes on to the next rank: the prefix up to and including this one.
  void* incl = rbuf;
  if (exclusive) {
    incl = s->temp(count, dt);
    s->copy(mine, count, dt, incl, count, dt);
    if (me > 0) {
      s->reduce(prev, incl, count, dt, op);  // incl = prev op mine
      s->copy(prev, count, dt, rbuf, count, dt);
    }
  } else {
    if (mine != rbuf) s->copy(mine, count, dt, rbuf, count, dt);
    if (me > 0) s->reduce(prev, rbuf, count, dt, op);  // rbuf = prev op mine
  }
  s->next_round();
  if (me + 1 < n) s->send(incl, count, dt, me + 1);
  return s;
}

}  // namespace lz::rt
