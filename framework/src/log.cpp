#include "lazarus/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace lz::log {
namespace {

Level initial_level() {
  const char* env = std::getenv("LZ_LOG_LEVEL");
  if (env == nullptr) return Level::kWarn;
  static const char* const kNames[] = {"error", "warn", "info", "debug", "trace"};
  for (int i = 0; i < 5; ++i)
    if (std::strcmp(env, kNames[i]) == 0) return static_cast<Level>(i);
  return Level::kWarn;
}

std::atomic<int> g_level{static_cast<int>(initial_level())};
std::mutex g_mu;
std::string g_who = "lazarus";

void emit(Level l, const char* tag, const char* fmt, va_list ap) {
  if (!enabled(l)) return;
  char buf[2048];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  std::lock_guard<std::mutex> lock(g_mu);
  std::fprintf(stderr, "%s: %s%s\n", g_who.c_str(), tag, buf);
}

}  // namespace

void set_level(Level l) noexcept { g_level.store(static_cast<int>(l), std::memory_order_relaxed); }
Level level() noexcept { return static_cast<Level>(g_level.load(std::memory_order_relaxed)); }
bool enabled(Level l) noexcept { return static_cast<int>(l) <= g_level.load(std::memory_order_relaxed); }
void set_identity(std::string who) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_who = std::move(who);
}

#define LZ_LOG_FN(fn, lvl, tag)          \
  void fn(const char* fmt, ...) {        \
    va_list ap;                          \
    va_start(ap, fmt);                   \
    emit(lvl, tag, fmt, ap);             \
    va_end(ap);                          \
  }
LZ_LOG_FN(error, Level::kError, "error: ")
LZ_LOG_FN(warn, Level::kWarn, "warning: ")
LZ_LOG_FN(info, Level::kInfo, "")
LZ_LOG_FN(debug, Level::kDebug, "debug: ")
LZ_LOG_FN(trace, Level::kTrace, "trace: ")
#undef LZ_LOG_FN

}  // namespace lz::log
