#include "cr/app_handover.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>

#include "oob/wire.h"

namespace lz::rt {
namespace {

constexpr char kMagic[] = "LZHANDOVER1";  // 11 bytes: the format's name and version
constexpr size_t kMaxPayload = size_t{1} << 40;

uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string path_of(const std::string& rank_dir) { return rank_dir + "/handover"; }

}  // namespace

Status write_app_handover(const std::string& rank_dir, const AppHandover& h) {
  oob::WireWriter w;
  w.raw(kMagic, sizeof kMagic - 1);
  w.str(h.job_id);
  w.u32(static_cast<uint32_t>(h.rank));
  w.u64(h.safe_point);
  w.u64(h.migration);
  w.u32(h.next_context);
  w.str(h.counters);
  w.u64(h.sent.size());
  for (size_t i = 0; i < h.sent.size(); ++i) {
    w.u64(h.sent[i]);
    w.u64(i < h.received.size() ? h.received[i] : 0);
  }
  w.u64(h.messages.size());
  for (const auto& m : h.messages) {
    w.u32(static_cast<uint32_t>(m.m.world_src));
    w.u32(m.m.context);
    w.u32(static_cast<uint32_t>(m.m.src));
    w.i32(m.m.tag);
    w.u64(m.m.stamp);
    w.u64(m.payload.size());
    w.raw(m.payload.data(), m.payload.size());
  }
  w.u64(h.comms.size());
  for (const auto& c : h.comms) {
    w.str(c.call);
    w.u32(c.context);
    w.u8(c.member ? 1 : 0);
    w.u32(static_cast<uint32_t>(c.world_ranks.size()));
    for (int r : c.world_ranks) w.u32(static_cast<uint32_t>(r));
  }
  w.u64(fnv1a(w.data()));
  const std::string path = path_of(rank_dir), tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("creating " + tmp, errno);
  const std::string& bytes = w.data();
  size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      return ErrnoError("writing " + tmp, e);
    }
    at += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    return ErrnoError("fsync " + tmp, e);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return ErrnoError("renaming " + tmp + " to " + path, errno);
  return Status::Ok();
}

StatusOr<AppHandover> read_app_handover(const std::string& rank_dir, const std::string& job_id, int rank) {
  const std::string path = path_of(rank_dir);
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": no hand-over (the moving rank did not write one)");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto damaged = [&](const std::string& what) { return DataLoss(path + ": " + what); };
  if (bytes.size() < sizeof kMagic - 1 + 8 || bytes.compare(0, sizeof kMagic - 1, kMagic) != 0)
    return damaged("not a Lazarus hand-over file (or of another version)");
  const std::string_view body(bytes.data(), bytes.size() - 8);
  oob::WireReader sum(std::string_view(bytes).substr(bytes.size() - 8));
  uint64_t want = 0;
  if (!sum.u64(&want) || want != fnv1a(body)) return damaged("checksum mismatch (truncated or damaged)");
  oob::WireReader r(body.substr(sizeof kMagic - 1));
  AppHandover h;
  uint32_t file_rank = 0;
  uint64_t peers = 0, count = 0;
  if (!r.str(&h.job_id, 4096) || !r.u32(&file_rank) || !r.u64(&h.safe_point) || !r.u64(&h.migration) ||
      !r.u32(&h.next_context) || !r.str(&h.counters, kMaxPayload) || !r.u64(&peers) || peers > r.remaining() / 16)
    return damaged("truncated header");
  h.sent.resize(peers);
  h.received.resize(peers);
  for (uint64_t i = 0; i < peers; ++i) r.u64(&h.sent[i]), r.u64(&h.received[i]);
  if (!r.u64(&count)) return damaged("truncated header");
  h.rank = static_cast<int>(file_rank);
  if (h.job_id != job_id || h.rank != rank)
    return damaged("holds rank " + std::to_string(h.rank) + " of job " + h.job_id + ", not rank " +
                   std::to_string(rank) + " of job " + job_id);
  if (count > r.remaining() / 32) return damaged("says " + std::to_string(count) + " messages, more than it holds");
  h.messages.resize(count);
  for (auto& m : h.messages) {
    uint32_t world = 0, src = 0;
    uint64_t n = 0;
    if (!r.u32(&world) || !r.u32(&m.m.context) || !r.u32(&src) || !r.i32(&m.m.tag) || !r.u64(&m.m.stamp) ||
        !r.u64(&n) || n > r.remaining())
      return damaged("truncated message list");
    m.m.world_src = static_cast<int>(world);
    m.m.src = static_cast<int>(src);
    m.payload.resize(n);
    if (!r.raw(m.payload.data(), n)) return damaged("truncated message payload");
  }
  uint64_t comms = 0;
  if (!r.u64(&comms) || comms > r.remaining() / 13) return damaged("truncated communicator record");
  h.comms.resize(comms);
  for (auto& c : h.comms) {
    uint8_t member = 0;
    uint32_t n = 0;
    if (!r.str(&c.call, 64) || !r.u32(&c.context) || !r.u8(&member) || !r.u32(&n) || n > r.remaining() / 4)
      return damaged("truncated communicator record");
    c.member = member != 0;
    c.world_ranks.resize(n);
    for (int& w : c.world_ranks) {
      uint32_t v = 0;
      r.u32(&v);
      w = static_cast<int>(v);
    }
  }
  if (!r.at_end()) return damaged("trailing bytes after the communicator record");
  return h;
}

}  // namespace lz::rt
