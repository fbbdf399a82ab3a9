#include "lazarus/appfmt/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "file_format.h"

namespace lz::appfmt {

struct Reader::State {
  std::string path;
  int fd = -1;
  ReaderOptions options;
  Header header;
  std::vector<VariableInfo> vars;
  ~State() {
    if (fd >= 0) ::close(fd);
  }
  Status pread_all(void* out, uint64_t n, uint64_t at, const std::string& what) const {
    char* p = static_cast<char*>(out);
    while (n > 0) {
      const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(at));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return ErrnoError("cannot read " + what + " of " + path, errno);
      if (r == 0) return DataLoss(path + ": truncated (" + what + " ends past the end of the file)");
      p += r;
      n -= static_cast<uint64_t>(r);
      at += static_cast<uint64_t>(r);
    }
    return Status::Ok();
  }
  // The raw bytes (disk order) of v, checksum verified.
  Status load(const VariableInfo& v, unsigned char* out) const {
    const std::string what = "variable '" + v.var.name + "'";
    std::string stored(v.stored_bytes, '\0');
    LZ_RETURN_IF_ERROR(pread_all(stored.data(), stored.size(), v.offset, what));
    uint64_t kept_bytes = 0;
    const uint64_t blocks = block_count(v.raw_bytes);
    for (uint64_t b = 0; b < blocks; ++b)
      if (!bit(v.zero_bitmap, b)) kept_bytes += std::min(kBlockSize, v.raw_bytes - b * kBlockSize);
    std::string kept;
    if (v.compressed) {
      kept.resize(kept_bytes);
      const size_t n = ZSTD_decompress(kept.data(), kept.size(), stored.data(), stored.size());
      if (ZSTD_isError(n) || n != kept_bytes)
        return DataLoss(path + ": " + what + " does not decompress (" +
                        (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size") + ")");
    } else {
      if (stored.size() != kept_bytes) return DataLoss(path + ": " + what + " has a stored size that does not match");
      kept.swap(stored);
    }
    uint64_t from = 0;
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint64_t at = b * kBlockSize, len = std::min(kBlockSize, v.raw_bytes - at);
      if (bit(v.zero_bitmap, b)) {
        std::memset(out + at, 0, len);
      } else {
        std::memcpy(out + at, kept.data() + from, len);
        from += len;
      }
    }
    if (xxh3(out, v.raw_bytes) != v.xxh3)
      return DataLoss(path + ": checksum mismatch in " + what + " (the file is damaged)");
    return Status::Ok();
  }
};

Reader::Reader(std::unique_ptr<State> s) : s_(std::move(s)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

const std::string& Reader::path() const { return s_->path; }
const Header& Reader::header() const { return s_->header; }
const std::vector<VariableInfo>& Reader::variables() const { return s_->vars; }

const VariableInfo* Reader::find(const std::string& name) const {
  for (const auto& v : s_->vars)
    if (v.var.name == name) return &v;
  return nullptr;
}

StatusOr<Reader> Reader::open(const std::string& path, const ReaderOptions& options) {
  auto s = std::make_unique<State>();
  s->path = path;
  s->options = options;
  s->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (s->fd < 0) return ErrnoError("cannot open " + path, errno);
  struct stat st {};
  if (::fstat(s->fd, &st) != 0) return ErrnoError("cannot stat " + path, errno);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  // The header.
  std::string head(std::min<uint64_t>(size, 8192), '\0');
  LZ_RETURN_IF_ERROR(s->pread_all(head.data(), head.size(), 0, "the header"));
  uint64_t header_end = 0;
  LZ_RETURN_IF_ERROR(decode_header(path, head.data(), head.size(), &s->header, &header_end));
  // The trailer, then the index it points to.
  if (size < header_end + kTrailerSize)
    return DataLoss(path + ": truncated (no index: the file ends after " + std::to_string(size) + " bytes)");
  char trailer[kTrailerSize];
  LZ_RETURN_IF_ERROR(s->pread_all(trailer, kTrailerSize, size - kTrailerSize, "the trailer"));
  if (std::memcmp(trailer + 24, kEndMagic, sizeof kEndMagic) != 0)
    return DataLoss(path + ": truncated or damaged (no end marker: the write did not finish)");
  ByteIn t(trailer, 24);
  const uint64_t index_at = t.u64(), index_len = t.u64(), index_sum = t.u64();
  if (index_at < header_end || index_at + index_len + kTrailerSize != size)
    return DataLoss(path + ": damaged (the index does not fit the file size " + std::to_string(size) + ")");
  std::string index(index_len, '\0');
  LZ_RETURN_IF_ERROR(s->pread_all(index.data(), index_len, index_at, "the index"));
  if (xxh3(index.data(), index.size()) != index_sum)
    return DataLoss(path + ": index checksum mismatch (the file is damaged)");
  ByteIn in(index.data(), index.size());
  const uint32_t n = in.u32();
  for (uint32_t i = 0; in.ok() && i < n; ++i) {
    VariableInfo v;
    if (!decode_entry(in, &v)) return DataLoss(path + ": malformed index entry " + std::to_string(i));
    if (v.offset < header_end || v.offset + v.stored_bytes > index_at || v.offset + v.stored_bytes < v.offset)
      return DataLoss(path + ": variable '" + v.var.name + "' lies outside the file's data");
    if (v.raw_bytes != signature_size(v.var.signature) * v.var.count)
      return DataLoss(path + ": variable '" + v.var.name + "' has a size that does not match its type and count");
    s->vars.push_back(std::move(v));
  }
  if (!in.ok() || in.left() != 0) return DataLoss(path + ": malformed index");
  return Reader(std::move(s));
}

Status Reader::read(const std::string& name, void* out, uint64_t bytes) const {
  const VariableInfo* v = find(name);
  if (v == nullptr) return NotFound("variable '" + name + "' is not in " + s_->path);
  if (bytes != v->raw_bytes)
    return InvalidArgument("variable '" + name + "' in " + s_->path + " has " + std::to_string(v->raw_bytes) +
                           " bytes (" + std::to_string(v->var.count) + " x " + signature_text(v->var.signature) +
                           "), not " + std::to_string(bytes));
  auto* p = static_cast<unsigned char*>(out);
  LZ_RETURN_IF_ERROR(s_->load(*v, p));
  if (s_->options.pretend_big_endian_host || std::endian::native == std::endian::big)
    swap_scalars(v->var.signature, v->var.count, p);
  return Status::Ok();
}

Status Reader::verify() const {
  for (const auto& v : s_->vars) {
    std::vector<unsigned char> buf(v.raw_bytes);
    LZ_RETURN_IF_ERROR(s_->load(v, buf.data()));
  }
  return Status::Ok();
}

}  // namespace lz::appfmt
