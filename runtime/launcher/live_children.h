// Whether this process has a running child that a predicate picks, read from
// /proc/self/task/<tid>/children (each thread's children; no reaping, so an
// exit the event loop has not collected yet is left to it).
//
//   std::optional<bool> other = any_live_child([&](pid_t p) { return !mine(p); });
//   if (!other) ...  // /proc unreadable: fall back to waitid()
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>

namespace lz::launcher {

// nullopt when /proc/self/task cannot be read.
std::optional<bool> any_live_child(const std::function<bool(pid_t)>& picks);

}  // namespace lz::launcher
