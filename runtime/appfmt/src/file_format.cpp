#include "file_format.h"

#include <xxhash.h>

#include <cstring>

namespace lz::appfmt {

uint64_t xxh3(const void* data, size_t n) { return XXH3_64bits(data, n); }

std::string encode_header(const Header& h, bool big_endian_writer) {
  ByteOut o;
  o.bytes(kMagic, sizeof kMagic);
  o.u32(kFormatVersion);
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
  if (in.ok() && h->format_version != kFormatVersion)
    return Unimplemented(file + " has format version " + std::to_string(h->format_version) +
                         "; this Lazarus reads version " + std::to_string(kFormatVersion));
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

void encode_entry(ByteOut& o, const VariableInfo& v) {
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
}

bool decode_entry(ByteIn& in, VariableInfo* v) {
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
  return in.bytes(v->zero_bitmap.data(), map) && in.ok();
}

}  // namespace lz::appfmt
