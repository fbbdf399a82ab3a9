#include "ucx_address.h"

#include <cstdlib>

namespace lz::transport::ucx {

std::string encode_address(const UcxAddress& a) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = std::to_string(a.pid) + ":";
  out.reserve(out.size() + 2 * a.worker.size());
  for (unsigned char c : a.worker) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

StatusOr<UcxAddress> decode_address(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return ProtocolError("no '<pid>:' prefix");
  char* end = nullptr;
  const long pid = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() + colon || pid <= 0) return ProtocolError("bad pid '" + text.substr(0, colon) + "'");
  const std::string hex = text.substr(colon + 1);
  if (hex.empty() || hex.size() % 2 != 0) return ProtocolError("worker address of odd or zero length");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  UcxAddress a;
  a.pid = static_cast<pid_t>(pid);
  a.worker.resize(hex.size() / 2);
  for (size_t i = 0; i < a.worker.size(); ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return ProtocolError("non-hex character in the worker address");
    a.worker[i] = static_cast<char>(hi << 4 | lo);
  }
  return a;
}

}  // namespace lz::transport::ucx
