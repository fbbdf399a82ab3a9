// OobClient: a rank's blocking connection to its launcher's OOB listener.
//
// connect() opens the TCP connection, answers the launcher's challenge with a
// MAC proving knowledge of the job secret (lazarus/auth.h), and returns once
// the launcher welcomed the rank with the job layout. send()/receive() move
// whole frames; receive() returns kAborted when the launcher closed the
// connection and kProtocol when it sent something malformed.
//
//   LZ_ASSIGN_OR_RETURN(auto c, OobClient::connect(addr, job, rank, secret, 0, deadline_in(60)));
//   LZ_RETURN_IF_ERROR(c->send(MsgType::kBarrier, encode_seq({1})));
//   LZ_ASSIGN_OR_RETURN(Frame f, c->receive(kNoDeadline));
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "lazarus/status.h"
#include "oob/frame.h"
#include "oob/messages.h"
#include "oob/socket.h"

namespace lz::oob {

class OobClient {
 public:
  // `address` is "host:port"; `flags` are AuthMsg flags (kAuthReconnect, or
  // kAuthHelper for a per-host helper, whose `rank` is its host index).
  static StatusOr<std::unique_ptr<OobClient>> connect(const std::string& address, const std::string& job_id,
                                                      uint32_t rank, std::string_view secret, uint32_t flags,
                                                      Deadline deadline);

  Status send(MsgType type, std::string_view payload);
  StatusOr<Frame> receive(Deadline deadline);

  const WelcomeMsg& welcome() const { return welcome_; }
  int fd() const { return fd_.get(); }
  const std::string& address() const { return address_; }

 private:
  OobClient(Fd fd, std::string address) : fd_(std::move(fd)), address_(std::move(address)) {}

  Fd fd_;
  std::string address_;
  WelcomeMsg welcome_;
};

}  // namespace lz::oob
