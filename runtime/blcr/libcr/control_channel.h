// The per-process control socket of libcr, and the small message protocol
// spoken on it by cr_request_checkpoint() / the cr_checkpoint tool.
//
// Location: $LAZARUS_CR_SOCKET_DIR/<pid>.sock if set, else
// $XDG_RUNTIME_DIR/lazarus/cr/<pid>.sock when XDG_RUNTIME_DIR is a directory
// we own, else /tmp/lazarus-<uid>/cr/<pid>.sock. Directories 0700 and owned by
// us (a directory someone else owns is refused), socket 0600, peers checked
// with SO_PEERCRED (same uid, or root). SOCK_SEQPACKET: one message per
// datagram, the destination directory passed as a descriptor (SCM_RIGHTS).
//
//   requester                               target (service thread)
//   CHECKPOINT{id, signal, dest} + dir fd ->
//                                         <- ACCEPTED{id} | ERROR{errno, text}
//   (target closes the socket, runs the checkpoint, re-creates the socket)
//   RESULT{id}                            ->   (retried until the socket is back)
//                                         <- DONE{status, text} | PENDING | ERROR
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::libcr {

inline constexpr uint32_t kWireMagic = 0x52435a4c;  // "LZCR"
inline constexpr uint16_t kWireVersion = 1;

enum class Op : uint16_t { kCheckpoint = 1, kResult = 2, kAccepted = 3, kDone = 4, kPending = 5, kError = 6 };

struct WireMsg {
  uint32_t magic = kWireMagic;
  uint16_t version = kWireVersion;
  uint16_t op = 0;
  uint64_t id = 0;
  int32_t signal = 0;
  int32_t status = 0;  // kDone: > 0 success, < 0 -errno; kError: errno
  uint32_t flags = 0;
  uint32_t reserved = 0;
  char text[2048] = {};  // kCheckpoint: destination path; kDone/kError: message
};

void set_text(WireMsg* m, const std::string& s);
std::string text_of(const WireMsg& m);

// Sends one message (and `fd` if >= 0); receives one (and a descriptor into
// *fd_out if given). Receives fail with kProtocol on a malformed message.
Status send_msg(int sock, const WireMsg& m, int fd = -1);
Status recv_msg(int sock, WireMsg* m, int* fd_out = nullptr);

// This process's socket path (directory created on first use).
StatusOr<std::string> own_socket_path();
// Listening socket at `path` (an old socket file there is replaced).
StatusOr<int> listen_at(const std::string& path);

// Where the socket of `pid` may be, most likely first.
std::vector<std::string> candidate_paths(pid_t pid);

// Start time of `pid` (seconds since the epoch), 0 if it does not exist.
double process_start_time(pid_t pid);

// Connects to `pid`'s control socket. Errors: kNotFound (no such process),
// kUnimplemented (the process has no socket: not a libcr process, or a stale
// socket of an earlier process with that pid), kUnavailable (socket exists but
// refuses: a checkpoint is being taken; retry), kPermissionDenied.
StatusOr<int> connect_to(pid_t pid, std::string* path_used = nullptr);

}  // namespace lz::libcr
