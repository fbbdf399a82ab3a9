// Progress: silent when the stream is not a terminal, one updating line when
// forced.
#include "snapshot/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace lz::snapshot {
namespace {

using ::testing::HasSubstr;

// Runs `fn(out)` with `out` the write end of a pipe and returns what was written.
template <typename Fn>
std::string capture_pipe(Fn fn) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  FILE* out = ::fdopen(fds[1], "w");
  EXPECT_NE(out, nullptr);
  fn(out);
  std::fclose(out);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  return text;
}

TEST(Progress, SilentWhenNotATerminal) {
  std::string text = capture_pipe([](FILE* out) {
    Progress p("verifying snapshot 1", 1 << 20, Progress::Mode::kAuto, out);
    EXPECT_FALSE(p.enabled());
    for (int i = 0; i < 16; ++i) p.add(1 << 16);
    p.finish();
  });
  EXPECT_EQ(text, "");
}

TEST(Progress, PrintsWhenForced) {
  std::string text = capture_pipe([](FILE* out) {
    Progress p("verifying snapshot 1", 1 << 20, Progress::Mode::kAlways, out);
    EXPECT_TRUE(p.enabled());
    for (int i = 0; i < 16; ++i) p.add(1 << 16);
    p.finish();
    p.finish();  // idempotent
  });
  EXPECT_EQ(text.front(), '\r');
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line, redrawn in place";
  EXPECT_THAT(text, HasSubstr("verifying snapshot 1: 1.0 MiB / 1.0 MiB (100%)"));
  EXPECT_THAT(text, HasSubstr(" s"));
}

TEST(Progress, NeverMeansNever) {
  std::string text = capture_pipe([](FILE* out) {
    Progress p("x", 10, Progress::Mode::kNever, out);
    p.add(10);
  });
  EXPECT_EQ(text, "");
}

TEST(Progress, LineFormat) {
  EXPECT_EQ(Progress::format_line("copy", 512ull << 20, 1ull << 30, 2.0),
            "copy: 512.0 MiB / 1.00 GiB (50%)  256.0 MiB/s  2.0 s");
  EXPECT_EQ(Progress::format_bytes(512), "512 B");
  EXPECT_EQ(Progress::format_bytes(1536), "1.5 KiB");
}

}  // namespace
}  // namespace lz::snapshot
