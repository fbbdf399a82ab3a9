#include "snapshot/progress.h"

#include <unistd.h>

#include <utility>

namespace lz::snapshot {

namespace {
// A terminal redraw costs a write(2) and the terminal's time: ten a second is
// smooth to the eye and free next to a 1 MiB read.
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

Progress::Progress(std::string label, uint64_t total_bytes, Mode mode, FILE* out)
    : label_(std::move(label)), total_(total_bytes), out_(out ? out : stderr) {
  switch (mode) {
    case Mode::kAlways: enabled_ = true; break;
    case Mode::kNever: enabled_ = false; break;
    case Mode::kAuto: enabled_ = ::isatty(::fileno(out_)) == 1; break;
  }
  start_ = Clock::now();
  last_draw_ = start_;
}

Progress::~Progress() { finish(); }

void Progress::add(uint64_t bytes) {
  done_ += bytes;
  if (!enabled_ || finished_) return;
  auto now = Clock::now();
  if (now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  draw();
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  draw();
  std::fputc('\n', out_);
  std::fflush(out_);
}

void Progress::draw() {
  double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string line = format_line(label_, done_, total_, elapsed);
  // Pad over the previous, possibly longer, line instead of relying on a
  // terminal escape sequence.
  size_t len = line.size();
  if (len < last_len_) line.append(last_len_ - len, ' ');
  last_len_ = len;
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
}

std::string Progress::format_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return buf;
}

std::string Progress::format_line(const std::string& label, uint64_t done, uint64_t total, double elapsed_s) {
  std::string s = label + ": " + format_bytes(done);
  char buf[96];
  if (total > 0) {
    int pct = static_cast<int>(done >= total ? 100 : (done * 100) / total);
    s += " / " + format_bytes(total);
    std::snprintf(buf, sizeof buf, " (%d%%)", pct);
    s += buf;
  }
  if (elapsed_s > 0) {
    std::snprintf(buf, sizeof buf, "  %.1f MiB/s", static_cast<double>(done) / (1024.0 * 1024.0) / elapsed_s);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "  %.1f s", elapsed_s);
  s += buf;
  return s;
}

}  // namespace lz::snapshot
