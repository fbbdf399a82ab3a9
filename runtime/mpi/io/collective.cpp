// Collective data access (MPI_File_read_all, _write_at_all ...): two-phase
// I/O with collective buffering, as ROMIO does it (Thakur, Gropp, Lusk,
// "Data sieving and collective I/O in ROMIO", 1999).
//
// The ranks' file ranges are spread over aggregators (every rank by
// default; cb_config_list and cb_nodes choose fewer), each owning one
// contiguous file domain.
// In rounds of cb_buffer_size bytes per domain, every rank sends each
// aggregator the pieces of its access that fall in the aggregator's window
// (an all-to-all of piece lists and data); the aggregator writes its window
// with one pwrite (or reads it with one pread and sends the pieces back).
// Many small interleaved accesses become a few large contiguous ones.
//
// Used when the ranks' accesses interleave (romio_cb_read / romio_cb_write
// "automatic", the default) or always ("enable"); otherwise, and with
// "disable", each rank accesses its own ranges (access()'s path), which is
// best for ranks writing disjoint contiguous blocks.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "io/file_access.h"
#include "mpi/errors.h"
#include "mpi/io/file.h"
#include "mpi/io/hints.h"

namespace lz::rt::io {

namespace {

using lz::io::Segment;

// One rank's access as every rank sees it after the exchange.
struct Extent {
  uint64_t lo, hi;  // file bytes [lo, hi); lo > hi: no data
};

// The aggregators: per host, as many ranks as cb_config_list allows ("*:*",
// the default: every rank; "*:N": N, ROMIO's "*:1" one per host), taken
// level by level (every host's first rank, then every host's second ...),
// at most cb_nodes of them.
//
// Every rank by default, not ROMIO's one per host: over a local file system
// the aggregators' system calls are copies into the page cache, which one
// core per host does alone; with every rank aggregating, each writes one
// contiguous domain and the exchange is a balanced all-to-all. Measured with
// tests/perf/io.c on one 2-core host, 1 GiB: np 4 write 3.2 against 1.9
// GB/s and read 5.1 against 2.0; np 8 write 1.8 against 1.1, read 2.9
// against 1.1. A parallel file system's clients may prefer fewer: "*:1".
const std::vector<int>& aggregators(MPI_File fh) {
  if (!fh->aggregators.empty()) return fh->aggregators;
  int rank = 0, size = 1;
  PMPI_Comm_rank(fh->comm, &rank);
  PMPI_Comm_size(fh->comm, &size);
  MPI_Comm local;
  PMPI_Comm_split_type(fh->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int local_rank = 0;
  PMPI_Comm_rank(local, &local_rank);
  PMPI_Comm_free(&local);
  std::vector<int> local_ranks(static_cast<size_t>(size));
  PMPI_Allgather(&local_rank, 1, MPI_INT, local_ranks.data(), 1, MPI_INT, fh->comm);
  const std::string config = hint_in_use(fh, "cb_config_list");
  int per_host = size;
  if (config.size() > 2 && config.compare(0, 2, "*:") == 0 && config != "*:*")
    per_host = std::max(1, std::atoi(config.c_str() + 2));
  int want = std::atoi(hint_in_use(fh, "cb_nodes").c_str());
  if (want <= 0) want = size;
  want = std::min(want, size);
  for (int level = 0; level < per_host && static_cast<int>(fh->aggregators.size()) < want; ++level) {
    const size_t before = fh->aggregators.size();
    for (int r = 0; r < size && static_cast<int>(fh->aggregators.size()) < want; ++r)
      if (local_ranks[static_cast<size_t>(r)] == level) fh->aggregators.push_back(r);
    if (fh->aggregators.size() == before) break;  // no host has that many ranks
  }
  std::sort(fh->aggregators.begin(), fh->aggregators.end());
  return fh->aggregators;
}

// The pieces of `segs` inside [wlo, whi), with their packed positions.
void pieces_in(const std::vector<Segment>& segs, const std::vector<uint64_t>& pos, uint64_t wlo, uint64_t whi,
               std::vector<Segment>* out, std::vector<uint64_t>* out_pos) {
  auto it = std::upper_bound(segs.begin(), segs.end(), wlo,
                             [](uint64_t v, const Segment& s) { return v < s.offset + s.length; });
  for (size_t i = static_cast<size_t>(it - segs.begin()); i < segs.size() && segs[i].offset < whi; ++i) {
    const uint64_t a = std::max(segs[i].offset, wlo), b = std::min(segs[i].offset + segs[i].length, whi);
    if (a >= b) continue;
    out->push_back({a, b - a});
    out_pos->push_back(pos[i] + (a - segs[i].offset));
  }
}

// The runs the pieces cover, merged, in file order.
std::vector<Segment> covered_runs(std::vector<Segment> pieces) {
  std::sort(pieces.begin(), pieces.end(), [](const Segment& a, const Segment& b) { return a.offset < b.offset; });
  std::vector<Segment> runs;
  for (const Segment& p : pieces) {
    if (!runs.empty() && p.offset <= runs.back().offset + runs.back().length) {
      runs.back().length = std::max(runs.back().offset + runs.back().length, p.offset + p.length) - runs.back().offset;
    } else {
      runs.push_back(p);
    }
  }
  return runs;
}

// Displacements of counts.
std::vector<int> displs_of(const std::vector<int>& counts) {
  std::vector<int> d(counts.size());
  int at = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    d[i] = at;
    at += counts[i];
  }
  return d;
}

// An aggregator's part of one round: the pieces the ranks sent it, and a
// buffer holding file bytes [lo, hi) into which the exchange lands them (a
// write) or from which it sends them (a read). The file is touched with one
// system call over the span when the holes between the pieces are small
// (a write then reads the span first: the holes are nobody's data in this
// call and must stay as they are), else with one per covered run.
struct Window {
  std::vector<Segment> runs;
  uint64_t lo = 0, hi = 0;
  bool whole_span = false;
  std::vector<char> buf;

  void plan(const std::vector<Segment>& pieces) {
    runs = covered_runs(pieces);
    if (runs.empty()) return;
    lo = runs.front().offset;
    hi = runs.back().offset + runs.back().length;
    uint64_t covered = 0;
    for (const Segment& r : runs) covered += r.length;
    whole_span = runs.size() == 1 || hi - lo <= 2 * covered;
    buf.resize(hi - lo);
  }
  // What the file system calls cover.
  std::vector<Segment> ranges() const {
    return whole_span && !runs.empty() ? std::vector<Segment>{{lo, hi - lo}} : runs;
  }
  // Reads the ranges (a read's data; a write's holes, before the exchange).
  Status read(MPI_File fh, int* err) {
    for (const Segment& r : ranges()) {
      std::vector<Segment> one{r};
      auto got = lz::io::read_segments(fh->fd, one, buf.data() + (r.offset - lo), fh->access, err);
      if (!got.ok()) return got.status();
      if (*got < r.length) std::memset(buf.data() + (r.offset - lo) + *got, 0, r.length - *got);
    }
    return Status::Ok();
  }
  Status write(MPI_File fh, int* err) {
    lz::io::AccessOptions o = fh->access;
    o.sieve_writes = false;  // the window is written whole (lock_writes stays: others may sieve around it)
    for (const Segment& r : ranges()) {
      std::vector<Segment> one{r};
      auto n = lz::io::write_segments(fh->fd, one, buf.data() + (r.offset - lo), o, err);
      if (!n.ok()) return n.status();
    }
    return Status::Ok();
  }
};

// An hindexed type of bytes over the pieces from one rank, placed in a
// window buffer that starts at file offset `lo` (MPI_DATATYPE_NULL: none).
MPI_Datatype pieces_type(const Segment* pieces, size_t n, uint64_t lo) {
  if (n == 0) return MPI_DATATYPE_NULL;
  std::vector<int> lens(n);
  std::vector<MPI_Aint> displs(n);
  for (size_t i = 0; i < n; ++i) {
    lens[i] = static_cast<int>(pieces[i].length);
    displs[i] = static_cast<MPI_Aint>(pieces[i].offset - lo);
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  PMPI_Type_create_hindexed(static_cast<int>(n), lens.data(), displs.data(), MPI_BYTE, &t);
  PMPI_Type_commit(&t);
  return t;
}

// The bytes of an access that lie before the end of the file, in stream
// order (the count of a collective read near the end).
uint64_t bytes_before_eof(MPI_File fh, const std::vector<Segment>& segs) {
  struct stat st {};
  if (fstat(fh->fd, &st) != 0) return 0;
  const uint64_t eof = static_cast<uint64_t>(st.st_size);
  uint64_t n = 0;
  for (const Segment& s : segs) {
    if (s.offset + s.length <= eof) {
      n += s.length;
      continue;
    }
    if (s.offset < eof) n += eof - s.offset;
    break;
  }
  return n;
}

}  // namespace

int access_all(const char* fn, MPI_File fh, bool write, bool at_pointer, MPI_Offset offset, const void* buf, int count,
               MPI_Datatype dt, MPI_Status* st) {
  if (int e = check_file(fn, fh)) return e;
  // A rank whose arguments are bad still takes part, with nothing.
  Transfer t{fh, write, 0, nullptr, 0, dt};
  const int bad =
      place(fn, fh, write, at_pointer ? Position::kIndividual : Position::kExplicit, offset, buf, count, dt, &t);
  auto independent = [&] {  // each rank its own ranges
    if (bad) return bad;
    run(&t);
    if (at_pointer) fh->pointer += static_cast<MPI_Offset>(t.done / fh->etype_size());
    return finish(fn, t, st);
  };
  const std::string mode = hint_in_use(fh, write ? "romio_cb_write" : "romio_cb_read");
  if (mode == "disable") return independent();  // no exchange at all

  std::vector<Segment> segs;
  if (!bad) fh->view.map(t.start, t.bytes, &segs);
  int size = 1, rank = 0;
  PMPI_Comm_size(fh->comm, &size);
  PMPI_Comm_rank(fh->comm, &rank);
  Extent mine{segs.empty() ? UINT64_MAX : segs.front().offset,
              segs.empty() ? 0 : segs.back().offset + segs.back().length};
  std::vector<Extent> all(static_cast<size_t>(size));
  PMPI_Allgather(&mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, fh->comm);
  uint64_t glo = UINT64_MAX, ghi = 0;
  std::vector<Extent> sorted;
  for (const Extent& e : all)
    if (e.lo < e.hi) {
      glo = std::min(glo, e.lo);
      ghi = std::max(ghi, e.hi);
      sorted.push_back(e);
    }
  std::sort(sorted.begin(), sorted.end(), [](const Extent& a, const Extent& b) { return a.lo < b.lo; });
  bool interleaved = false;
  for (size_t i = 1; i < sorted.size(); ++i) interleaved = interleaved || sorted[i].lo < sorted[i - 1].hi;
  if (glo >= ghi || (mode != "enable" && !interleaved)) return independent();

  // ---- two-phase ----------------------------------------------------------------
  const std::vector<int>& aggr = aggregators(fh);
  const uint64_t naggr = aggr.size();
  uint64_t unit = static_cast<uint64_t>(std::max(0LL, std::atoll(hint_in_use(fh, "striping_unit").c_str())));
  uint64_t domain = (ghi - glo + naggr - 1) / naggr;
  if (unit > 0) domain = (domain + unit - 1) / unit * unit;
  uint64_t cb = static_cast<uint64_t>(std::max(0LL, std::atoll(hint_in_use(fh, "cb_buffer_size").c_str())));
  if (cb == 0) cb = 4ull << 20;  // a bad value: the default
  const uint64_t rounds = (domain + cb - 1) / cb;

  FileBytes fb;
  char* data = nullptr;
  if (!bad) {
    data = write ? fb.for_write(&t) : fb.for_read(&t);
    if (data == nullptr) segs.clear();  // a failed conversion: take part with nothing
  }
  std::vector<uint64_t> pos(segs.size());
  for (size_t i = 0, at = 0; i < segs.size(); at += segs[i].length, ++i) pos[i] = at;

  int err_class = MPI_SUCCESS;
  std::string err_text;
  auto failed = [&](const Status& st, int err) {
    if (st.ok() || err_class != MPI_SUCCESS) return;
    err_class = class_of_errno(err);
    err_text = st.message();
  };
  Window window;
  for (uint64_t k = 0; k < rounds; ++k) {
    // What this rank has for each aggregator's window of this round: since
    // a view maps the stream to the file in order, it is one run of the
    // packed data, sent from (or received into) `data` as it is.
    std::vector<Segment> pieces;
    std::vector<uint64_t> piece_pos;
    std::vector<int> counts(2 * static_cast<size_t>(size), 0);  // per rank: piece-list bytes, data bytes
    std::vector<int> data_at(static_cast<size_t>(size), 0), data_bytes(static_cast<size_t>(size), 0);
    for (uint64_t a = 0; a < naggr; ++a) {
      const uint64_t dlo = glo + a * domain, dhi = std::min(ghi, dlo + domain);
      const uint64_t wlo = dlo + k * cb, whi = std::min(dhi, wlo + cb);
      if (wlo >= whi) continue;
      const size_t before = pieces.size();
      pieces_in(segs, pos, wlo, whi, &pieces, &piece_pos);
      if (pieces.size() == before) continue;
      const size_t dest = static_cast<size_t>(aggr[a]);
      counts[2 * dest] = static_cast<int>((pieces.size() - before) * sizeof(Segment));
      data_at[dest] = static_cast<int>(piece_pos[before]);
      for (size_t p = before; p < pieces.size(); ++p) data_bytes[dest] += static_cast<int>(pieces[p].length);
      counts[2 * dest + 1] = data_bytes[dest];
    }
    std::vector<int> recv_counts(2 * static_cast<size_t>(size));
    PMPI_Alltoall(counts.data(), 2, MPI_INT, recv_counts.data(), 2, MPI_INT, fh->comm);
    std::vector<int> send_list(static_cast<size_t>(size)), recv_list(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) {
      send_list[static_cast<size_t>(r)] = counts[2 * static_cast<size_t>(r)];
      recv_list[static_cast<size_t>(r)] = recv_counts[2 * static_cast<size_t>(r)];
    }
    const std::vector<int> sl_d = displs_of(send_list), rl_d = displs_of(recv_list);
    std::vector<Segment> theirs(static_cast<size_t>(rl_d.back() + recv_list.back()) / sizeof(Segment));
    PMPI_Alltoallv(pieces.data(), send_list.data(), sl_d.data(), MPI_BYTE, theirs.data(), recv_list.data(), rl_d.data(),
                   MPI_BYTE, fh->comm);

    // The aggregator's window and, per rank, the type placing its pieces there.
    window.plan(theirs);
    std::vector<MPI_Datatype> placed(static_cast<size_t>(size), MPI_BYTE);
    std::vector<int> placed_count(static_cast<size_t>(size), 0), zero(static_cast<size_t>(size), 0);
    for (int r = 0, at = 0; r < size; ++r) {
      const size_t n = static_cast<size_t>(recv_list[static_cast<size_t>(r)]) / sizeof(Segment);
      if (n > 0) {
        placed[static_cast<size_t>(r)] = pieces_type(theirs.data() + at, n, window.lo);
        placed_count[static_cast<size_t>(r)] = 1;
      }
      at += static_cast<int>(n);
    }
    std::vector<MPI_Datatype> bytes(static_cast<size_t>(size), MPI_BYTE);
    int err = 0;
    if (write) {
      // The holes are read, and written back, under a lock every sieving writer takes.
      const bool holes = !theirs.empty() && window.whole_span && window.runs.size() > 1;
      lz::io::RangeLock lock(holes ? fh->fd : -1, window.lo, window.hi - window.lo, true);
      if (holes) failed(window.read(fh, &err), err);
      PMPI_Alltoallw(data, data_bytes.data(), data_at.data(), bytes.data(), window.buf.data(), placed_count.data(),
                     zero.data(), placed.data(), fh->comm);
      if (!theirs.empty()) failed(window.write(fh, &err), err);
    } else {
      if (!theirs.empty()) failed(window.read(fh, &err), err);
      PMPI_Alltoallw(window.buf.data(), placed_count.data(), zero.data(), placed.data(), data, data_bytes.data(),
                     data_at.data(), bytes.data(), fh->comm);
    }
    for (MPI_Datatype& t : placed)
      if (t != MPI_BYTE) PMPI_Type_free(&t);
  }
  // Every rank learns whether an aggregator failed.
  int worst = 0;
  PMPI_Allreduce(&err_class, &worst, 1, MPI_INT, MPI_MAX, fh->comm);
  if (bad) return bad;
  if (t.error == MPI_SUCCESS && worst != MPI_SUCCESS) {
    t.error = worst;
    t.error_text = err_class != MPI_SUCCESS ? err_text : "an aggregator of the collective access failed";
  }
  if (t.error == MPI_SUCCESS) {
    if (write)
      t.done = t.bytes;
    else
      fb.deliver(&t, bytes_before_eof(fh, segs));
  }
  if (at_pointer) fh->pointer += static_cast<MPI_Offset>(t.done / fh->etype_size());
  return finish(fn, t, st);
}

}  // namespace lz::rt::io
