#include "lazarus/appfmt/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

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
    std::vector<uint64_t> all(block_count(v.raw_bytes));
    for (uint64_t b = 0; b < all.size(); ++b) all[b] = b;
    LZ_RETURN_IF_ERROR(fill(v, all, out));
    if (xxh3(out, v.raw_bytes) == v.xxh3) return Status::Ok();
    // A damaged base file is named: its own copy of the variable fails its checksum.
    std::vector<bool> seen(bases.size());
    std::vector<unsigned char> scratch;
    for (const VariableInfo::BaseRun& r : v.base_runs) {
      if (seen[r.base]) continue;
      seen[r.base] = true;
      LZ_ASSIGN_OR_RETURN(const State* base, base_file(r.base));
      for (const auto& e : base->vars) {
        if (e.var.name != v.var.name) continue;
        scratch.resize(e.raw_bytes);
        if (Status st = base->load(e, scratch.data()); !st.ok())
          return DataLoss(path + ": variable '" + v.var.name + "' takes unchanged blocks from " + base->path +
                          ", which is damaged: " + st.message());
      }
    }
    return DataLoss(path + ": checksum mismatch in variable '" + v.var.name + "' (the file is damaged)");
  }

  // Blocks `want` (ascending) of v into `out` (v's raw bytes): zero blocks
  // cleared, stored ones read (coalesced), the rest from the base files.
  Status fill(const VariableInfo& v, const std::vector<uint64_t>& want, unsigned char* out) const {
    const std::string what = "variable '" + v.var.name + "'";
    const uint64_t blocks = block_count(v.raw_bytes);
    // Per block: -1 zero, -2 - k in base k, else its offset in the kept bytes.
    std::vector<int64_t> where(blocks);
    uint64_t kept_bytes = 0;
    size_t run = 0;
    for (uint64_t b = 0; b < blocks; ++b) {
      while (run < v.base_runs.size() && v.base_runs[run].first + v.base_runs[run].count <= b) ++run;
      if (bit(v.zero_bitmap, b)) {
        where[b] = -1;
      } else if (run < v.base_runs.size() && v.base_runs[run].first <= b) {
        where[b] = -2 - static_cast<int64_t>(v.base_runs[run].base);
      } else {
        where[b] = static_cast<int64_t>(kept_bytes);
        kept_bytes += std::min(kBlockSize, v.raw_bytes - b * kBlockSize);
      }
    }
    std::string kept;  // the decompressed kept bytes (compressed entries only)
    if (v.compressed) {
      std::string stored(v.stored_bytes, '\0');
      LZ_RETURN_IF_ERROR(pread_all(stored.data(), stored.size(), v.offset, what));
      kept.resize(kept_bytes);
      const size_t n = ZSTD_decompress(kept.data(), kept.size(), stored.data(), stored.size());
      if (ZSTD_isError(n) || n != kept_bytes)
        return DataLoss(path + ": " + what + " does not decompress (" +
                        (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size") + ")");
    } else if (v.stored_bytes != kept_bytes) {
      return DataLoss(path + ": " + what + " has a stored size that does not match");
    }
    std::map<uint32_t, std::vector<uint64_t>> from_base;
    uint64_t run_at = 0, run_len = 0, run_out = 0;  // a pending read of adjacent stored blocks
    auto flush = [&]() -> Status {
      if (run_len == 0) return Status::Ok();
      Status st = pread_all(out + run_out, run_len, v.offset + run_at, what);
      run_len = 0;
      return st;
    };
    for (uint64_t b : want) {
      const uint64_t at = b * kBlockSize, len = std::min(kBlockSize, v.raw_bytes - at);
      if (where[b] == -1) {
        std::memset(out + at, 0, len);
      } else if (where[b] <= -2) {
        from_base[static_cast<uint32_t>(-2 - where[b])].push_back(b);
      } else if (v.compressed) {
        std::memcpy(out + at, kept.data() + where[b], len);
      } else if (run_len != 0 && run_at + run_len == static_cast<uint64_t>(where[b]) && run_out + run_len == at) {
        run_len += len;
      } else {
        LZ_RETURN_IF_ERROR(flush());
        run_at = static_cast<uint64_t>(where[b]), run_out = at, run_len = len;
      }
    }
    LZ_RETURN_IF_ERROR(flush());
    for (const auto& [k, list] : from_base) {
      LZ_ASSIGN_OR_RETURN(const State* base, base_file(k));
      const VariableInfo* bv = nullptr;
      for (const auto& e : base->vars)
        if (e.var.name == v.var.name) bv = &e;
      if (bv == nullptr || bv->raw_bytes != v.raw_bytes || bv->var.signature != v.var.signature)
        return DataLoss(path + ": " + what + " refers to base file " + base->path +
                        ", which holds no variable of that name, type and size");
      LZ_RETURN_IF_ERROR(base->fill(*bv, list, out));
    }
    return Status::Ok();
  }

  // Base file k, opened on first use and checked to be what the index names.
  StatusOr<const State*> base_file(uint32_t k) const {
    if (opened.size() < bases.size()) opened.resize(bases.size());
    if (!opened[k]) {
      const BaseFile& b = bases[k];
      const size_t slash = path.rfind('/');
      const std::string full =
          std::filesystem::path((slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/" + b.path)
              .lexically_normal()
              .string();
      const std::string refers =
          path + " refers to " + full + " (snapshot " + std::to_string(b.seq) + ") for its unchanged blocks, ";
      auto r = Reader::open(full, options);
      if (!r.ok()) return DataLoss(refers + "which cannot be read: " + r.status().message());
      const Header& h = r->header();
      if (h.job_id != header.job_id || h.rank != header.rank || h.seq != b.seq)
        return DataLoss(refers + "but that file is of job " + h.job_id + ", rank " + std::to_string(h.rank) +
                        ", snapshot " + std::to_string(h.seq));
      opened[k] = std::make_unique<Reader>(std::move(*r));
    }
    return opened[k]->s_.get();
  }

  std::vector<BaseFile> bases;
  mutable std::vector<std::unique_ptr<Reader>> opened;
};

Reader::Reader(std::unique_ptr<State> s) : s_(std::move(s)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

const std::string& Reader::path() const { return s_->path; }
const Header& Reader::header() const { return s_->header; }
const std::vector<VariableInfo>& Reader::variables() const { return s_->vars; }

const std::vector<BaseFile>& Reader::bases() const { return s_->bases; }

uint64_t VariableInfo::base_blocks() const {
  uint64_t n = 0;
  for (const BaseRun& r : base_runs) n += r.count;
  return n;
}

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
  const uint32_t version = s->header.format_version;
  if (version == kFormatVersionIncremental) {
    if (!decode_bases(in, &s->bases)) return DataLoss(path + ": malformed list of base files");
    for (const BaseFile& b : s->bases)
      if (b.seq >= s->header.seq)
        return DataLoss(path + ": base file " + b.path + " is of snapshot " + std::to_string(b.seq) +
                        ", not older than this file's " + std::to_string(s->header.seq));
  }
  const uint32_t n = in.u32();
  for (uint32_t i = 0; in.ok() && i < n; ++i) {
    VariableInfo v;
    if (!decode_entry(in, &v, version)) return DataLoss(path + ": malformed index entry " + std::to_string(i));
    for (const VariableInfo::BaseRun& r : v.base_runs)
      if (r.base >= s->bases.size())
        return DataLoss(path + ": variable '" + v.var.name + "' refers to base file " + std::to_string(r.base) +
                        " of " + std::to_string(s->bases.size()));
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
