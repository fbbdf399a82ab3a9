// What a restored rank learns from the launcher that restored it.
//
// A rank saved by a core-image checkpointer wakes up in a new job: another
// launcher (another address), another job id and secret. Before the dump the
// rank's CR thread opens a pipe and keeps only its read end (the "restart
// channel", cr::LocalSnapshot::restart_fd), whose identity is recorded with
// the image; the restorer passes a new pipe in its place (CRIU --inherit-fd,
// cr::RestoreRequest::restart_fd) after writing this text into it and closing
// the write end. In a process that simply continues the read end gives
// end-of-file at once, which is how the rank tells the two apart besides the
// checkpointer's own answer.
//
//   lazarus-restart 1
//   job <job id>
//   addr <host:port of the new launcher's OOB listener>
//   secret <job secret, hex>
//   rank <rank>            (a check: the restorer's idea of who this is)
//   snapshot <seq>
#pragma once

#include <cstdint>
#include <string>

#include "lazarus/status.h"

namespace lz::oob {

struct RestartInfo {
  std::string job_id;
  std::string address;
  std::string secret;  // binary
  int rank = -1;
  uint64_t snapshot_seq = 0;
};

std::string encode_restart_info(const RestartInfo& info);
// kProtocol naming the bad line; kNotFound for empty input (continued process).
StatusOr<RestartInfo> decode_restart_info(const std::string& text);

// Reads the whole pipe (bounded: 64 KiB, `timeout_ms`) and decodes it.
StatusOr<RestartInfo> read_restart_info(int fd, int timeout_ms);

}  // namespace lz::oob
