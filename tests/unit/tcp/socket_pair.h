// A connected AF_UNIX stream pair for the tcp unit tests: `a` plays the peer,
// `b` the connection under test. A test may close either end and set it to -1.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lz::transport::tcp {

struct SocketPair {
  int a = -1, b = -1;
  SocketPair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    a = sv[0];
    b = sv[1];
  }
  ~SocketPair() {
    if (a >= 0) ::close(a);
    if (b >= 0) ::close(b);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
};

}  // namespace lz::transport::tcp
