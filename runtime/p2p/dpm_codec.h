// The byte strings of the dynamic-process connections (p2p/dpm.h,
// p2p/bridge.h): 32-bit big-endian integers and length-prefixed strings,
// read with bounds checks (a short or malformed string is kProtocol, naming
// what was being read).
//
//   DpmWriter w;  w.u32(n);  w.str(job_id);
//   DpmReader r(w.bytes(), "the accepting group");
//   LZ_ASSIGN_OR_RETURN(uint32_t n, r.u32());
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lazarus/status.h"
#include "lazarus/wire.h"

namespace lz::rt {

class DpmWriter {
 public:
  void u32(uint32_t v) {
    unsigned char b[4];
    wire::put_be32(b, v);
    out_.append(reinterpret_cast<const char*>(b), 4);
  }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class DpmReader {
 public:
  DpmReader(std::string_view in, const char* what) : in_(in), what_(what) {}
  StatusOr<uint32_t> u32() {
    if (in_.size() < 4) return short_read();
    const uint32_t v = wire::get_be32(reinterpret_cast<const unsigned char*>(in_.data()));
    in_.remove_prefix(4);
    return v;
  }
  StatusOr<std::string> str() {
    LZ_ASSIGN_OR_RETURN(uint32_t n, u32());
    if (in_.size() < n) return short_read();
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  bool done() const { return in_.empty(); }

 private:
  Status short_read() const { return ProtocolError(std::string(what_) + " is cut short"); }
  std::string_view in_;
  const char* what_;
};

}  // namespace lz::rt
