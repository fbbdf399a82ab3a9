// Scatter + allgather broadcast (van de Geijn; MPICH's long-message bcast):
// the message is cut into n chunks, a binomial tree scatters them (relative
// rank v gets chunk v, an inner node first the chunks of its whole subtree),
// and the ring allgather (allgatherv_ring) gives every rank the others'. Each rank receives about
// twice the message once instead of the binomial tree's log2(n) times at the
// root's children: the large-message algorithm from n = 3 up. Works on the
// bytes of a contiguous datatype; others go to the binomial tree.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll_tuned.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll::tuned {

namespace {
// The byte range of chunks [first, last) of a `total`-byte message in
// `chunk`-byte pieces (clipped: the last chunks may be short or empty).
struct Span {
  int64_t offset, bytes;
};
Span chunks(int first, int last, int64_t chunk, int64_t total) {
  const int64_t lo = std::min<int64_t>(first * chunk, total), hi = std::min<int64_t>(last * chunk, total);
  return {lo, hi - lo};
}
}  // namespace

Status bcast_scatter_allgather(void* buf, int count, const Datatype& dt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (n == 1 || count == 0) return Status::Ok();
  const int64_t total = static_cast<int64_t>(count) * static_cast<int64_t>(dt.size());
  if (!dt.is_contiguous() || total < n || total > INT32_MAX) return bcast_binomial(buf, count, dt, root, comm);
  char* bytes = static_cast<char*>(buf) + dt.true_lb();
  const Datatype& byte = dt::byte_type();
  const int64_t chunk = (total + n - 1) / n;
  const int v = (me - root + n) % n;
  auto rank_of = [&](int rel) { return (rel + root) % n; };
  // Scatter: v receives chunks [v, v + lowbit(v)) from v - lowbit(v), then
  // gives each child v + m (m below that bit) the chunks [v + m, v + 2m).
  int mask = 1;
  while (mask < n && !(v & mask)) mask <<= 1;
  if (v != 0) {
    const Span s = chunks(v, std::min(v + mask, n), chunk, total);
    LZ_RETURN_IF_ERROR(comm.recv(bytes + s.offset, static_cast<int>(s.bytes), byte, rank_of(v - mask), kBcast));
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask >= n) continue;
    const Span s = chunks(v + mask, std::min(v + 2 * mask, n), chunk, total);
    LZ_RETURN_IF_ERROR(comm.send(bytes + s.offset, static_cast<int>(s.bytes), byte, rank_of(v + mask), kBcast));
  }
  // The ring allgather of the chunks, in place: rank r's block is chunk v(r).
  std::vector<int> counts(n), displs(n);
  for (int r = 0; r < n; ++r) {
    const int rel = (r - root + n) % n;
    const Span c = chunks(rel, rel + 1, chunk, total);
    counts[r] = static_cast<int>(c.bytes);
    displs[r] = static_cast<int>(c.offset);
  }
  return allgatherv_ring(in_place_buffer(), 0, byte, bytes, counts.data(), displs.data(), byte, comm);
}

}  // namespace lz::coll::tuned
