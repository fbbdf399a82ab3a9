#include "oob/wire.h"

#include <cstring>

namespace lz::oob {

void WireWriter::u16(uint16_t v) {
  u8(static_cast<uint8_t>(v >> 8));
  u8(static_cast<uint8_t>(v));
}

void WireWriter::u32(uint32_t v) {
  u16(static_cast<uint16_t>(v >> 16));
  u16(static_cast<uint16_t>(v));
}

void WireWriter::u64(uint64_t v) {
  u32(static_cast<uint32_t>(v >> 32));
  u32(static_cast<uint32_t>(v));
}

void WireWriter::str(std::string_view s) {
  u32(static_cast<uint32_t>(s.size()));
  buf_.append(s);
}

bool WireReader::u8(uint8_t* out) {
  if (remaining() < 1) return false;
  *out = static_cast<uint8_t>(data_[pos_++]);
  return true;
}

bool WireReader::u16(uint16_t* out) {
  if (remaining() < 2) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
  *out = static_cast<uint16_t>((p[0] << 8) | p[1]);
  pos_ += 2;
  return true;
}

bool WireReader::u32(uint32_t* out) {
  if (remaining() < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(data_.data() + pos_);
  *out = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
  pos_ += 4;
  return true;
}

bool WireReader::u64(uint64_t* out) {
  if (remaining() < 8) return false;
  uint32_t hi = 0, lo = 0;
  u32(&hi);
  u32(&lo);
  *out = (uint64_t{hi} << 32) | lo;
  return true;
}

bool WireReader::i32(int32_t* out) {
  uint32_t v = 0;
  if (!u32(&v)) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

bool WireReader::raw(void* out, size_t n) {
  if (remaining() < n) return false;
  std::memcpy(out, data_.data() + pos_, n);
  pos_ += n;
  return true;
}

bool WireReader::str(std::string* out, size_t max_len) {
  size_t save = pos_;
  uint32_t n = 0;
  if (!u32(&n)) return false;
  if (n > max_len || n > remaining()) {
    pos_ = save;
    return false;
  }
  out->assign(data_.data() + pos_, n);
  pos_ += n;
  return true;
}

}  // namespace lz::oob
