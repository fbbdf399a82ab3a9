// TcpFrameReader's placement (transport.h, Host::place): a large frame's
// head is offered (kHead), the rest read from the socket straight into the
// buffer the caller names, and the frame handed back as kPlaced; declined
// frames are buffered whole; a dropped placement writes nothing more.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "socket_pair.h"
#include "tcp_frame.h"
#include "tcp_frame_reader.h"

namespace lz::transport::tcp {
namespace {

constexpr size_t kHead = 16;
constexpr size_t kBig = 300000;

std::string frame(const std::string& body) {
  unsigned char h[kFrameHeaderBytes];
  encode_frame_header(static_cast<uint32_t>(body.size()), h);
  return std::string(reinterpret_cast<char*>(h), sizeof h) + body;
}

std::string pattern(size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7 + (i >> 9)) & 0xff);
  return s;
}

void write_all(int fd, const std::string& bytes) {
  for (size_t off = 0; off < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    ASSERT_GT(n, 0);
    off += static_cast<size_t>(n);
  }
}

// Fills and takes items (may_place) until `want` items were taken or 10 s
// passed; `on_item` sees each (and answers kHead items itself).
template <typename OnItem>
size_t drive(TcpFrameReader& rd, int fd, size_t want, OnItem on_item) {
  size_t taken = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (taken < want && std::chrono::steady_clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    bool drained = false;
    int err = 0;
    if (rd.fill(fd, &drained, &err) != TcpFrameReader::FillResult::kData) break;
    for (;;) {
      Status why;
      const TcpFrameReader::Item it = rd.next(&why, true);
      if (it.kind == TcpFrameReader::Item::kNone) break;
      on_item(it);
      ++taken;
    }
  }
  return taken;
}

TEST(TcpPlacement, LargeFrameGoesWhereTheHostSaysAndTheStreamGoesOn) {
  SocketPair sp;
  TcpFrameReader rd(1 << 20);
  rd.set_placement(kHead, 1000);
  const std::string big = pattern(kBig, 1);
  const std::string wire = frame("small") + frame(big) + frame("after!!");
  // The first frames and a part of the big one, so that its head is in and
  // its end is not: the placement starts with bytes already buffered.
  const size_t first = frame("small").size() + kFrameHeaderBytes + 1000;
  write_all(sp.a, wire.substr(0, first));
  std::thread writer;
  std::vector<char> dst(kBig - kHead, 0);
  std::vector<std::string> seen;
  const size_t n = drive(rd, sp.b, 4, [&](const TcpFrameReader::Item& it) {
    switch (it.kind) {
      case TcpFrameReader::Item::kData: seen.push_back("data " + std::string(it.data, it.len)); break;
      case TcpFrameReader::Item::kHead:
        seen.push_back("head " + std::to_string(it.len));
        EXPECT_EQ(std::string(it.data, kHead), big.substr(0, kHead));
        EXPECT_GT(rd.buffered(), 0u);
        rd.place(dst.data());
        EXPECT_TRUE(rd.placing());
        writer = std::thread([&] { write_all(sp.a, wire.substr(first)); });
        break;
      case TcpFrameReader::Item::kPlaced:
        seen.push_back("placed " + std::to_string(it.len));
        EXPECT_EQ(std::string(it.data, kHead), big.substr(0, kHead));
        EXPECT_FALSE(rd.placing());
        break;
      default: ADD_FAILURE() << "unexpected item kind " << it.kind;
    }
  });
  if (writer.joinable()) writer.join();
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(seen, (std::vector<std::string>{"data small", "head 300000", "placed 300000", "data after!!"}));
  EXPECT_TRUE(std::string(dst.data(), dst.size()) == big.substr(kHead)) << "the placed bytes differ from the frame's";
  EXPECT_EQ(rd.buffered(), 0u);
}

TEST(TcpPlacement, DeclinedFrameIsHandedOutWhole) {
  SocketPair sp;
  TcpFrameReader rd(1 << 20);
  rd.set_placement(kHead, 1000);
  const std::string big = pattern(kBig, 2);
  const std::string wire = frame(big) + frame("next");
  std::thread writer([&] { write_all(sp.a, wire); });
  std::vector<std::string> seen;
  drive(rd, sp.b, 3, [&](const TcpFrameReader::Item& it) {
    if (it.kind == TcpFrameReader::Item::kHead) {
      seen.push_back("head");
      rd.decline();
    } else if (it.kind == TcpFrameReader::Item::kData) {
      seen.push_back(it.len == kBig ? (std::string(it.data, it.len) == big ? "big intact" : "big damaged")
                                    : "data " + std::string(it.data, it.len));
    } else {
      ADD_FAILURE() << "unexpected item kind " << it.kind;
    }
  });
  writer.join();
  EXPECT_EQ(seen, (std::vector<std::string>{"head", "big intact", "data next"}));
}

TEST(TcpPlacement, DroppedPlacementWritesNothingMore) {
  SocketPair sp;
  TcpFrameReader rd(1 << 20);
  rd.set_placement(kHead, 1000);
  const std::string big = pattern(kBig, 3);
  const std::string wire = frame(big) + frame("survivor");
  const size_t first = kFrameHeaderBytes + 5000;
  write_all(sp.a, wire.substr(0, first));
  // The lent buffer becomes inaccessible once dropped: a write after drop()
  // would kill the test.
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t span = (kBig + page - 1) / page * page;
  void* mem = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  std::thread writer;
  std::vector<std::string> seen;
  drive(rd, sp.b, 2, [&](const TcpFrameReader::Item& it) {
    if (it.kind == TcpFrameReader::Item::kHead) {
      seen.push_back("head");
      rd.place(static_cast<char*>(mem));
      rd.drop();
      // Still inside the frame: the rest is read and discarded, not left to
      // be parsed as frames.
      EXPECT_TRUE(rd.placing()) << "the rest of the dropped frame must still be read";
      EXPECT_GT(rd.buffered(), 0u);
      ASSERT_EQ(::mprotect(mem, span, PROT_NONE), 0);
      writer = std::thread([&] { write_all(sp.a, wire.substr(first)); });
    } else if (it.kind == TcpFrameReader::Item::kData) {
      seen.push_back("data " + std::string(it.data, it.len));
    } else {
      seen.push_back("kind " + std::to_string(it.kind));
    }
  });
  if (writer.joinable()) writer.join();
  EXPECT_EQ(seen, (std::vector<std::string>{"head", "data survivor"}));
  EXPECT_EQ(rd.buffered(), 0u);
  ::munmap(mem, span);
}

TEST(TcpPlacement, FramesAreWholeWhenPlacingIsNotAllowed) {
  // next() without may_place (a checkpoint closing connections): a large
  // frame is buffered and handed out whole, even with placement set.
  SocketPair sp;
  TcpFrameReader rd(1 << 20);
  rd.set_placement(kHead, 1000);
  const std::string big = pattern(kBig, 4);
  std::thread writer([&] { write_all(sp.a, frame(big)); });
  bool whole = false;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!whole && std::chrono::steady_clock::now() < until) {
    pollfd p{sp.b, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    bool drained = false;
    int err = 0;
    ASSERT_EQ(rd.fill(sp.b, &drained, &err), TcpFrameReader::FillResult::kData);
    Status why;
    const TcpFrameReader::Item it = rd.next(&why);
    if (it.kind == TcpFrameReader::Item::kNone) continue;
    ASSERT_EQ(it.kind, TcpFrameReader::Item::kData);
    EXPECT_TRUE(std::string(it.data, it.len) == big);
    whole = true;
  }
  writer.join();
  EXPECT_TRUE(whole);
}

}  // namespace
}  // namespace lz::transport::tcp
