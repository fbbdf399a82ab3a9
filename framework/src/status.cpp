#include "lazarus/status.h"

#include <cstring>

namespace lz {

const char* code_name(Code c) noexcept {
  switch (c) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "INVALID_ARGUMENT";
    case Code::kNotFound: return "NOT_FOUND";
    case Code::kUnavailable: return "UNAVAILABLE";
    case Code::kUnimplemented: return "UNIMPLEMENTED";
    case Code::kInternal: return "INTERNAL";
    case Code::kIo: return "IO";
    case Code::kTimeout: return "TIMEOUT";
    case Code::kInterrupted: return "INTERRUPTED";
    case Code::kWouldBlock: return "WOULD_BLOCK";
    case Code::kPermissionDenied: return "PERMISSION_DENIED";
    case Code::kDataLoss: return "DATA_LOSS";
    case Code::kProtocol: return "PROTOCOL";
    case Code::kAborted: return "ABORTED";
  }
  return "UNKNOWN";
}

Status Status::with_context(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += message_;
  return {code_, std::move(m)};
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  return std::string(code_name(code_)) + ": " + message_;
}

Status ErrnoError(std::string_view what, int err) {
  std::string m(what);
  m += ": ";
  m += std::strerror(err);
  return {Code::kIo, std::move(m)};
}

}  // namespace lz
