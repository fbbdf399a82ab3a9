// Diagnostics to stderr with a uniform prefix: "lazarus[<who>]: <level>: text".
//
// The place that first decides an error logs it (UCX rule); callers only add
// context. Verbosity comes from the `log_level` parameter (or LZ_LOG_LEVEL before
// parameters are loaded).
//
//   lz::log::error("tcp: connect to %s failed: %s", addr, strerror(errno));
#pragma once

#include <string>

namespace lz::log {

enum class Level : int { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3, kTrace = 4 };

void set_level(Level l) noexcept;
Level level() noexcept;
bool enabled(Level l) noexcept;
// The "who" of the prefix: "lazarus" by default, "rank 3" inside a job.
void set_identity(std::string who);

void error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void trace(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace lz::log
