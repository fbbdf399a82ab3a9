// Progress: a one-line progress display for long byte-moving operations
// (checksumming a checkpoint at commit, verifying a snapshot before restart,
// copying snapshots), for the launcher's `checkpoint` and `restart` commands.
//
// On a terminal it redraws one line in place, at most ten times a second:
//
//   verifying snapshot 3: 512.0 MiB / 1.0 GiB (50%)  1843.2 MiB/s  0.3 s
//
// and ends it with a newline in finish(). When the stream is not a terminal
// (a log file, a pipe, a batch job's output) it prints nothing at all, so logs
// stay quiet; Mode::kAlways forces the display (tests, `--progress`), and
// Mode::kNever turns it off.
//
//   lz::snapshot::Progress p("verifying snapshot 3", total_bytes);
//   while (...) { read(block); p.add(block.size()); }
//   p.finish();  // also done by the destructor
//
// Not thread-safe: one Progress is driven by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lz::snapshot {

class Progress {
 public:
  enum class Mode { kAuto, kAlways, kNever };

  // `out` null means stderr. kAuto shows progress only when isatty(out).
  Progress(std::string label, uint64_t total_bytes, Mode mode = Mode::kAuto, FILE* out = nullptr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Adds `bytes` to the bytes done and redraws if the last draw is old enough.
  void add(uint64_t bytes);
  // Draws the final state and ends the line. Idempotent.
  void finish();

  bool enabled() const { return enabled_; }
  uint64_t done() const { return done_; }

  // The text of the line for `done` of `total` bytes after `elapsed_s` seconds
  // (exposed for tests).
  static std::string format_line(const std::string& label, uint64_t done, uint64_t total, double elapsed_s);
  // "1.5 GiB", "12.0 MiB", "512 B".
  static std::string format_bytes(uint64_t bytes);

 private:
  void draw();

  using Clock = std::chrono::steady_clock;
  std::string label_;
  uint64_t total_;
  uint64_t done_ = 0;
  FILE* out_;
  bool enabled_;
  bool finished_ = false;
  size_t last_len_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace lz::snapshot
