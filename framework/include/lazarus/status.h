// Status and StatusOr<T>: the one error type crossing every component boundary.
//
// No exceptions cross a component boundary. A function that can fail returns a
// Status (or a StatusOr<T> when it also produces a value); outputs are set only
// on success. The place that first decides an error writes the message; callers
// add context with Status::with_context() instead of logging again.
//
//   lz::StatusOr<int> parse_port(std::string_view s);
//   auto port = parse_port(text);
//   if (!port.ok()) return port.status().with_context("--port");
//   use(*port);
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace lz {

enum class Code : int {
  kOk = 0,
  kInvalidArgument,   // the caller passed a bad value (names the value)
  kNotFound,          // a named thing does not exist
  kUnavailable,       // not usable here (no device, no privilege); a component declines with it
  kUnimplemented,     // optional operation a module does not provide
  kInternal,          // a bug or an unexpected system failure
  kIo,                // a system call on a file or socket failed
  kTimeout,           // a bounded wait ran out
  kInterrupted,       // a blocking call was interrupted (for example by a checkpoint)
  kWouldBlock,        // a non-blocking operation cannot proceed now; retry after progress
  kPermissionDenied,  // authentication or privilege refused
  kDataLoss,          // corrupted or truncated data (checksum, size)
  kProtocol,          // a peer sent something that breaks the wire protocol
  kAborted,           // the job or operation was stopped
};

const char* code_name(Code c) noexcept;

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const noexcept { return code_ == Code::kOk; }
  Code code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

  // "context: message", keeping the code. Used by callers to say where an error
  // was met without logging it a second time.
  Status with_context(std::string_view context) const;

  // "CODE: message" for logs.
  std::string to_string() const;

  void ignore() const noexcept {}

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {Code::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
inline Status IoError(std::string m) { return {Code::kIo, std::move(m)}; }
inline Status Timeout(std::string m) { return {Code::kTimeout, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
inline Status DataLoss(std::string m) { return {Code::kDataLoss, std::move(m)}; }
inline Status ProtocolError(std::string m) { return {Code::kProtocol, std::move(m)}; }
// errno-carrying I/O error: "what: strerror(err)".
Status ErrnoError(std::string_view what, int err);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "StatusOr built from an ok Status");
  }

  bool ok() const noexcept { return std::holds_alternative<T>(v_); }
  // A reference, so `const auto& m = x.status().message();` stays valid.
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }

  T& value() & { assert(ok()); return std::get<T>(v_); }
  const T& value() const& { assert(ok()); return std::get<T>(v_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace lz

// Propagate a non-ok Status to the caller.
#define LZ_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::lz::Status lz_status_ = (expr);            \
    if (!lz_status_.ok()) return lz_status_;     \
  } while (0)

#define LZ_CONCAT_INNER_(a, b) a##b
#define LZ_CONCAT_(a, b) LZ_CONCAT_INNER_(a, b)
// `LZ_ASSIGN_OR_RETURN(auto x, f());` declares x from a StatusOr or returns its error.
#define LZ_ASSIGN_OR_RETURN(lhs, expr) \
  LZ_ASSIGN_OR_RETURN_IMPL_(LZ_CONCAT_(lz_statusor_, __LINE__), lhs, expr)
#define LZ_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
