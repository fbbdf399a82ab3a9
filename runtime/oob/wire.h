// WireWriter / WireReader: the byte encoding of OOB message payloads.
//
// Integers are big-endian (network order, lazarus/wire.h); strings and byte blobs carry a u32
// length prefix. Every read is bounds-checked against the bytes that are
// actually there: a reader never trusts a length it has not compared with the
// remaining payload, so a hostile or broken peer can make a read fail but
// never make it read out of bounds or allocate more than the payload holds.
//
//   WireWriter w;  w.u32(rank); w.str(key);
//   WireReader r(payload);
//   uint32_t rank; std::string key;
//   if (!r.u32(&rank) || !r.str(&key, kMaxKeyBytes) || !r.at_end()) return ProtocolError("bad FENCE");
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::oob {

class WireWriter {
 public:
  void u8(uint8_t v) { buf_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void raw(const void* data, size_t n) { buf_.append(static_cast<const char*>(data), n); }
  // u32 length, then the bytes.
  void str(std::string_view s);

  const std::string& data() const { return buf_; }
  std::string take() { return std::move(buf_); }

 private:
  std::string buf_;
};

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  // Each returns false (and leaves *out unchanged) when the payload is too short.
  bool u8(uint8_t* out);
  bool u16(uint16_t* out);
  bool u32(uint32_t* out);
  bool u64(uint64_t* out);
  bool i32(int32_t* out);
  bool raw(void* out, size_t n);
  // A u32-length-prefixed string of at most `max_len` bytes.
  bool str(std::string* out, size_t max_len);

  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// A u32 count, then each string (as str()).
void put_strings(WireWriter& w, const std::vector<std::string>& v);
// The list put_strings() wrote: at most `max_count` strings of at most
// `max_len` bytes each. Each string takes at least its 4-byte length, so the
// count is checked against the remaining bytes before anything is reserved.
bool get_strings(WireReader& r, std::vector<std::string>* out, uint32_t max_count, size_t max_len);

// The kProtocol error of a message that does not decode: "malformed <what> message".
Status malformed(const char* what);

}  // namespace lz::oob
