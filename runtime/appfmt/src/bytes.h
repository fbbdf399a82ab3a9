// Little-endian records for the file's header and index: an appending
// encoder and a bounds-checked decoder (a truncated or damaged index fails
// cleanly instead of reading past its end). Internal to runtime/appfmt.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "lazarus/wire.h"

namespace lz::appfmt {

class ByteOut {
 public:
  void u8(uint8_t v) { s_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    unsigned char b[4];
    wire::put_le32(b, v);
    s_.append(reinterpret_cast<char*>(b), 4);
  }
  void u64(uint64_t v) {
    unsigned char b[8];
    wire::put_le64(b, v);
    s_.append(reinterpret_cast<char*>(b), 8);
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void str(const std::string& v) {
    u32(static_cast<uint32_t>(v.size()));
    s_ += v;
  }
  void bytes(const void* p, size_t n) { s_.append(static_cast<const char*>(p), n); }
  const std::string& data() const { return s_; }

 private:
  std::string s_;
};

class ByteIn {
 public:
  ByteIn(const char* p, size_t n) : p_(reinterpret_cast<const unsigned char*>(p)), n_(n) {}
  bool ok() const { return ok_; }
  size_t left() const { return n_ - at_; }
  uint8_t u8() { return take(1) ? p_[at_ - 1] : 0; }
  uint32_t u32() { return take(4) ? wire::get_le32(p_ + at_ - 4) : 0; }
  uint64_t u64() { return take(8) ? wire::get_le64(p_ + at_ - 8) : 0; }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  std::string str(size_t limit = 1 << 20) {
    const uint32_t n = u32();
    if (n > limit || !take(n)) {
      ok_ = false;
      return {};
    }
    return std::string(reinterpret_cast<const char*>(p_ + at_ - n), n);
  }
  bool bytes(void* out, size_t n) {
    if (!take(n)) return false;
    std::memcpy(out, p_ + at_ - n, n);
    return true;
  }

 private:
  bool take(size_t k) {
    if (!ok_ || k > n_ - at_) {
      ok_ = false;
      return false;
    }
    at_ += k;
    return true;
  }
  const unsigned char* p_;
  size_t n_, at_ = 0;
  bool ok_ = true;
};

}  // namespace lz::appfmt
