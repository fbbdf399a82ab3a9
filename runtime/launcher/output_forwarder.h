// OutputForwarder: one rank's stdout or stderr, forwarded to the launcher's
// own stdout/stderr line by line, so lines of different ranks never mix
// mid-line, with an optional tag ("[job,rank]<stdout>:") for --tag-output,
// "[rank] " for -prepend-rank, a time stamp for --timestamp-output; and/or
// copied as it is into a file of the rank's own (--output-filename,
// -outfile-pattern). Each rank's lines keep their order; a partial last line
// is written by finish() when the rank's pipe closes.
//
//   OutputForwarder out(STDOUT_FILENO, "[4f2a,1]<stdout>:");
//   out.write(buf, n);  ...  out.finish();
#pragma once

#include <cstddef>
#include <string>

namespace lz::launcher {

class OutputForwarder {
 public:
  // dst_fd -1: the file alone; file_fd -1: no file. The caller keeps both open.
  OutputForwarder(int dst_fd, std::string prefix, bool timestamp = false, int file_fd = -1)
      : dst_(dst_fd), file_(file_fd), prefix_(std::move(prefix)), timestamp_(timestamp) {}

  void write(const char* data, size_t n);
  void finish();

 private:
  void emit(const char* line, size_t n);

  // A line longer than this is written in pieces rather than held.
  static constexpr size_t kMaxLine = 64 * 1024;
  int dst_;
  int file_;
  std::string prefix_;
  bool timestamp_;
  std::string partial_;
};

// Writes everything to `fd`, waiting out EAGAIN; errors (a closed terminal or
// pipe) drop the output silently: the job must not die of its own logging.
void write_fully(int fd, const char* data, size_t n);

}  // namespace lz::launcher
