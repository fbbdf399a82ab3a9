#include "lazarus/appfmt/writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <set>
#include <vector>

#include "file_format.h"
#include "lazarus/appfmt/reader.h"

namespace lz::appfmt {

struct Writer::State {
  std::string path;
  int fd = -1;
  WriterOptions options;
  uint64_t offset = 0;
  Header header;
  std::vector<BaseFile> bases;
  std::vector<VariableInfo> index;
  std::set<std::string> names;
  bool finished = false;

  Status write_all(const void* p, uint64_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd, c, n > (1u << 30) ? (1u << 30) : n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return ErrnoError("cannot write " + path, errno);
      }
      c += w;
      n -= static_cast<uint64_t>(w);
      offset += static_cast<uint64_t>(w);
    }
    return Status::Ok();
  }
  void discard() {
    if (fd >= 0) {
      ::close(fd);
      fd = -1;
    }
    if (!finished) ::unlink(path.c_str());
  }
};

namespace {

bool host_big_endian(bool pretend) { return pretend || std::endian::native == std::endian::big; }

bool all_zero(const unsigned char* p, uint64_t n) { return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0); }

Status check_variable(const Variable& v, uint64_t bytes) {
  if (v.name.empty()) return InvalidArgument("a variable needs a name");
  if (v.signature.empty()) return InvalidArgument("variable '" + v.name + "' has an empty type signature");
  for (const Run& r : v.signature)
    if (static_cast<uint8_t>(r.scalar) == 0 || static_cast<uint8_t>(r.scalar) > kLastScalar)
      return InvalidArgument("variable '" + v.name + "' has an unknown scalar type in its signature");
  const uint64_t want = signature_size(v.signature) * v.count;
  if (bytes != want)
    return InvalidArgument("variable '" + v.name + "': " + std::to_string(bytes) + " bytes given for " +
                           std::to_string(v.count) + " elements of " + signature_text(v.signature) + " (" +
                           std::to_string(want) + " bytes)");
  const Decomposition& d = v.decomposition;
  if (!d.empty()) {
    if (d.owned_start.size() != d.global_shape.size() || d.owned_shape.size() != d.global_shape.size())
      return InvalidArgument("variable '" + v.name + "': global, start and owned shapes differ in rank");
    uint64_t n = 1;
    for (size_t i = 0; i < d.global_shape.size(); ++i) {
      if (d.owned_start[i] < 0 || d.owned_shape[i] < 0 || d.owned_start[i] + d.owned_shape[i] > d.global_shape[i])
        return InvalidArgument("variable '" + v.name + "': the owned block leaves the global array in dimension " +
                               std::to_string(i));
      n *= static_cast<uint64_t>(d.owned_shape[i]);
    }
    if (n != v.count)
      return InvalidArgument("variable '" + v.name + "': count " + std::to_string(v.count) +
                             " is not the product of the owned shape (" + std::to_string(n) + ")");
  }
  return Status::Ok();
}

}  // namespace

Writer::Writer(std::unique_ptr<State> s) : s_(std::move(s)) {}
Writer::Writer(Writer&&) noexcept = default;
Writer& Writer::operator=(Writer&&) noexcept = default;
Writer::~Writer() {
  if (s_) s_->discard();
}

const std::string& Writer::path() const { return s_->path; }

StatusOr<Writer> Writer::create(const std::string& path, const Header& header, const WriterOptions& options) {
  auto s = std::make_unique<State>();
  s->path = path;
  s->options = options;
  s->header = header;
  s->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (s->fd < 0) return ErrnoError("cannot create " + path, errno);
  const std::string h = encode_header(header, host_big_endian(options.pretend_big_endian_host), kFormatVersion);
  if (Status st = s->write_all(h.data(), h.size()); !st.ok()) {
    s->discard();
    return st;
  }
  return Writer(std::move(s));
}

uint32_t Writer::add_base(const std::string& relative_path, uint64_t seq) {
  s_->bases.push_back({relative_path, seq});
  return static_cast<uint32_t>(s_->bases.size() - 1);
}

Status Writer::add(const Variable& v, const void* packed, uint64_t bytes, const std::vector<int32_t>* in_base) {
  if (!s_ || s_->finished || s_->fd < 0) return Internal("add() on a finished or failed writer");
  LZ_RETURN_IF_ERROR(check_variable(v, bytes));
  const uint64_t blocks = block_count(bytes);
  if (in_base != nullptr) {
    if (in_base->size() != blocks)
      return InvalidArgument("variable '" + v.name + "': " + std::to_string(in_base->size()) + " base entries for " +
                             std::to_string(blocks) + " blocks");
    for (int32_t b : *in_base)
      if (b < -1 || b >= static_cast<int32_t>(s_->bases.size()))
        return InvalidArgument("variable '" + v.name + "': base " + std::to_string(b) + " was not added");
  }
  if (!s_->names.insert(v.name).second)
    return InvalidArgument("variable '" + v.name + "' is already in " + s_->path);

  // The bytes in disk order (little-endian): a swapped copy on a big-endian host.
  const unsigned char* raw = static_cast<const unsigned char*>(packed);
  std::vector<unsigned char> swapped;
  if (host_big_endian(s_->options.pretend_big_endian_host)) {
    swapped.assign(raw, raw + bytes);
    swap_scalars(v.signature, v.count, swapped.data());
    raw = swapped.data();
  }
  VariableInfo e;
  e.var = v;
  e.offset = s_->offset;
  e.raw_bytes = bytes;
  e.xxh3 = xxh3(raw, bytes);
  // All-zero blocks are left out, and blocks a base file holds; the others
  // are kept as contiguous ranges.
  e.zero_bitmap.assign((blocks + 7) / 8, 0);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // (offset, length) in raw
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t at = b * kBlockSize, len = std::min(kBlockSize, bytes - at);
    const int32_t base = in_base != nullptr ? (*in_base)[b] : -1;
    if (all_zero(raw + at, len)) {
      e.zero_bitmap[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
      ++e.zero_blocks;
    } else if (base >= 0) {
      auto& runs = e.base_runs;
      if (!runs.empty() && runs.back().base == static_cast<uint32_t>(base) &&
          runs.back().first + runs.back().count == b)
        ++runs.back().count;
      else
        runs.push_back({b, 1, static_cast<uint32_t>(base)});
    } else if (!ranges.empty() && ranges.back().first + ranges.back().second == at) {
      ranges.back().second += len;
    } else {
      ranges.emplace_back(at, len);
    }
  }
  Status st;
  if (s_->options.compress == Compress::kZstd) {
    std::string kept;
    for (const auto& [at, len] : ranges) kept.append(reinterpret_cast<const char*>(raw + at), len);
    std::string z(ZSTD_compressBound(kept.size()), '\0');
    const size_t n = ZSTD_compress(z.data(), z.size(), kept.data(), kept.size(), s_->options.zstd_level);
    if (ZSTD_isError(n)) return Internal("zstd: " + std::string(ZSTD_getErrorName(n)) + " compressing '" + v.name + "'");
    e.compressed = true;
    e.stored_bytes = n;
    st = s_->write_all(z.data(), n);
  } else {
    for (const auto& [at, len] : ranges) {
      e.stored_bytes += len;
      if (!(st = s_->write_all(raw + at, len)).ok()) break;
    }
  }
  if (!st.ok()) {
    s_->discard();
    return st;
  }
  s_->index.push_back(std::move(e));
  return Status::Ok();
}

Status Writer::finish() {
  if (!s_ || s_->finished || s_->fd < 0) return Internal("finish() on a finished or failed writer");
  // A file with base files is version 2: its header says so (same length).
  const uint32_t version = s_->bases.empty() ? kFormatVersion : kFormatVersionIncremental;
  ByteOut idx;
  if (version == kFormatVersionIncremental) encode_bases(idx, s_->bases);
  idx.u32(static_cast<uint32_t>(s_->index.size()));
  for (const VariableInfo& e : s_->index) encode_entry(idx, e, version);
  ByteOut trailer;
  trailer.u64(s_->offset);
  trailer.u64(idx.data().size());
  trailer.u64(xxh3(idx.data().data(), idx.data().size()));
  trailer.bytes(kEndMagic, sizeof kEndMagic);
  Status st = s_->write_all(idx.data().data(), idx.data().size());
  if (st.ok()) st = s_->write_all(trailer.data().data(), trailer.data().size());
  if (st.ok() && version != kFormatVersion) {
    const std::string h = encode_header(s_->header, host_big_endian(s_->options.pretend_big_endian_host), version);
    if (::pwrite(s_->fd, h.data(), h.size(), 0) != static_cast<ssize_t>(h.size()))
      st = ErrnoError("cannot write the header of " + s_->path, errno);
  }
  if (st.ok() && ::fsync(s_->fd) != 0) st = ErrnoError("cannot fsync " + s_->path, errno);
  if (st.ok() && ::close(s_->fd) != 0) st = ErrnoError("cannot close " + s_->path, errno);
  s_->fd = -1;
  if (!st.ok()) {
    s_->discard();
    return st;
  }
  s_->finished = true;
  return Status::Ok();
}

std::vector<uint64_t> Writer::referenced_seqs() const {
  std::set<uint64_t> seqs;
  for (const VariableInfo& e : s_->index)
    for (const VariableInfo::BaseRun& r : e.base_runs) seqs.insert(s_->bases[r.base].seq);
  return {seqs.begin(), seqs.end()};
}

std::vector<BlockHash> block_hashes(const void* data, uint64_t bytes, uint64_t block) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::vector<BlockHash> out((bytes + block - 1) / block);
  for (uint64_t b = 0; b < out.size(); ++b) {
    const uint64_t at = b * block;
    const XXH128_hash_t h = XXH3_128bits(p + at, std::min(block, bytes - at));
    out[b] = {h.low64, h.high64};
  }
  return out;
}

}  // namespace lz::appfmt
