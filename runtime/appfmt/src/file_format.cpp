#include "file_format.h"

#include <xxhash.h>

#include <cstring>

namespace lz::appfmt {

uint64_t xxh3(const void* data, size_t n) { return XXH3_64bits(data, n); }

std::string encode_header(const Header& h, bool big_endian_writer, uint32_t version) {
  ByteOut o;
  o.bytes(kMagic, sizeof kMagic);
  o.u32(version);
  o.u32(big_endian_writer ? kFlagBigEndianWriter : 0);
  o.u32(static_cast<uint32_t>(h.rank));
  o.u32(static_cast<uint32_t>(h.nranks));
  o.u64(h.seq);
  o.u64(h.safe_point);
  o.str(h.job_id);
  const uint64_t sum = xxh3(o.data().data(), o.data().size());
  o.u64(sum);
  return o.data();
}

Status decode_header(const std::string& file, const char* p, size_t n, Header* h, uint64_t* end) {
  if (n < sizeof kMagic || std::memcmp(p, kMagic, sizeof kMagic) != 0)
    return DataLoss(file + " is not a Lazarus application-level snapshot file (bad magic)");
  ByteIn in(p + sizeof kMagic, n - sizeof kMagic);
  h->format_version = in.u32();
  if (in.ok() && h->format_version != kFormatVersion && h->format_version != kFormatVersionIncremental)
    return Unimplemented(file + " has format version " + std::to_string(h->format_version) +
                         "; this Lazarus reads versions " + std::to_string(kFormatVersion) + " and " +
                         std::to_string(kFormatVersionIncremental));
  const uint32_t flags = in.u32();
  h->writer_big_endian = (flags & kFlagBigEndianWriter) != 0;
  h->rank = static_cast<int>(in.u32());
  h->nranks = static_cast<int>(in.u32());
  h->seq = in.u64();
  h->safe_point = in.u64();
  h->job_id = in.str(4096);
  const size_t body = n - sizeof kMagic - in.left();
  const uint64_t sum = in.u64();
  if (!in.ok()) return DataLoss(file + ": truncated header");
  if (sum != xxh3(p, sizeof kMagic + body)) return DataLoss(file + ": header checksum mismatch (damaged file)");
  *end = sizeof kMagic + body + 8;
  return Status::Ok();
}

void encode_entry(ByteOut& o, const VariableInfo& v, uint32_t version) {
  o.str(v.var.name);
  o.u32(static_cast<uint32_t>(v.var.signature.size()));
  for (const Run& r : v.var.signature) {
    o.u8(static_cast<uint8_t>(r.scalar));
    o.u64(r.count);
  }
  o.u64(v.var.count);
  const Decomposition& d = v.var.decomposition;
  o.u32(static_cast<uint32_t>(d.global_shape.size()));
  for (size_t i = 0; i < d.global_shape.size(); ++i) {
    o.i64(d.global_shape[i]);
    o.i64(d.owned_start[i]);
    o.i64(d.owned_shape[i]);
  }
  o.u64(v.offset);
  o.u64(v.stored_bytes);
  o.u64(v.raw_bytes);
  o.u64(v.xxh3);
  o.u8(v.compressed ? kEntryCompressed : 0);
  o.u64(v.zero_blocks);
  o.u32(static_cast<uint32_t>(v.zero_bitmap.size()));
  o.bytes(v.zero_bitmap.data(), v.zero_bitmap.size());
  if (version < kFormatVersionIncremental) return;
  o.u32(static_cast<uint32_t>(v.base_runs.size()));
  for (const VariableInfo::BaseRun& r : v.base_runs) {
    o.u64(r.first);
    o.u64(r.count);
    o.u32(r.base);
  }
}

void encode_bases(ByteOut& o, const std::vector<BaseFile>& bases) {
  o.u32(static_cast<uint32_t>(bases.size()));
  for (const BaseFile& b : bases) {
    o.str(b.path);
    o.u64(b.seq);
  }
}

bool decode_bases(ByteIn& in, std::vector<BaseFile>* bases) {
  const uint32_t n = in.u32();
  if (!in.ok() || n > in.left() / 12) return false;
  for (uint32_t i = 0; i < n && in.ok(); ++i) {
    BaseFile b;
    b.path = in.str(4096);
    b.seq = in.u64();
    bases->push_back(std::move(b));
  }
  return in.ok();
}

bool decode_entry(ByteIn& in, VariableInfo* v, uint32_t version) {
  v->var.name = in.str(4096);
  const uint32_t runs = in.u32();
  if (!in.ok() || runs > in.left() / 9) return false;
  for (uint32_t i = 0; i < runs; ++i) {
    const uint8_t s = in.u8();
    const uint64_t count = in.u64();
    if (s == 0 || s > kLastScalar) return false;
    v->var.signature.push_back({static_cast<Scalar>(s), count});
  }
  v->var.count = in.u64();
  const uint32_t dims = in.u32();
  if (!in.ok() || dims > 32) return false;
  Decomposition& d = v->var.decomposition;
  for (uint32_t i = 0; i < dims; ++i) {
    d.global_shape.push_back(in.i64());
    d.owned_start.push_back(in.i64());
    d.owned_shape.push_back(in.i64());
  }
  v->offset = in.u64();
  v->stored_bytes = in.u64();
  v->raw_bytes = in.u64();
  v->xxh3 = in.u64();
  v->compressed = (in.u8() & kEntryCompressed) != 0;
  v->zero_blocks = in.u64();
  const uint32_t map = in.u32();
  if (!in.ok() || map != (block_count(v->raw_bytes) + 7) / 8 || map > in.left()) return false;
  v->zero_bitmap.resize(map);
  if (!in.bytes(v->zero_bitmap.data(), map) || !in.ok()) return false;
  if (version < kFormatVersionIncremental) return true;
  const uint32_t runs_n = in.u32();
  if (!in.ok() || runs_n > in.left() / 20) return false;
  const uint64_t blocks = block_count(v->raw_bytes);
  uint64_t next = 0;  // runs ascend and do not overlap
  for (uint32_t i = 0; i < runs_n; ++i) {
    VariableInfo::BaseRun r;
    r.first = in.u64();
    r.count = in.u64();
    r.base = in.u32();
    if (!in.ok() || r.first < next || r.count == 0 || r.count > blocks || r.first > blocks - r.count) return false;
    next = r.first + r.count;
    v->base_runs.push_back(r);
  }
  return true;
}

}  // namespace lz::appfmt
