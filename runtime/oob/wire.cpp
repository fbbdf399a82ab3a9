#include "oob/wire.h"

#include <cstring>

#include "lazarus/wire.h"

namespace lz::oob {

void WireWriter::u16(uint16_t v) {
  unsigned char b[2];
  wire::put_be16(b, v);
  raw(b, sizeof b);
}

void WireWriter::u32(uint32_t v) {
  unsigned char b[4];
  wire::put_be32(b, v);
  raw(b, sizeof b);
}

void WireWriter::u64(uint64_t v) {
  unsigned char b[8];
  wire::put_be64(b, v);
  raw(b, sizeof b);
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
  *out = wire::get_be16(reinterpret_cast<const unsigned char*>(data_.data() + pos_));
  pos_ += 2;
  return true;
}

bool WireReader::u32(uint32_t* out) {
  if (remaining() < 4) return false;
  *out = wire::get_be32(reinterpret_cast<const unsigned char*>(data_.data() + pos_));
  pos_ += 4;
  return true;
}

bool WireReader::u64(uint64_t* out) {
  if (remaining() < 8) return false;
  *out = wire::get_be64(reinterpret_cast<const unsigned char*>(data_.data() + pos_));
  pos_ += 8;
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

void put_strings(WireWriter& w, const std::vector<std::string>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const auto& s : v) w.str(s);
}

bool get_strings(WireReader& r, std::vector<std::string>* out, uint32_t max_count, size_t max_len) {
  uint32_t n = 0;
  if (!r.u32(&n) || n > max_count || r.remaining() / 4 < n) return false;
  out->resize(n);
  for (auto& s : *out)
    if (!r.str(&s, max_len)) return false;
  return true;
}

Status malformed(const char* what) { return ProtocolError(std::string("malformed ") + what + " message"); }

}  // namespace lz::oob
