// Fuzz target: what a tcp transport reads from a connection. The first bytes
// go to the handshake decoders (HELLO, AUTH, VERDICT: fixed sizes, checked
// prefix by prefix as they arrive); the rest is fed through a socket to the
// frame reader, which must cut it into frames or declare the stream bad,
// never read past its buffer or reserve memory for a length it did not check.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tcp_frame_reader.h"
#include "tcp_handshake.h"

using namespace lz::transport::tcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  unsigned char hs[kMaxHandshakeBytes] = {};
  std::memcpy(hs, data, size < sizeof hs ? size : sizeof hs);
  for (HsKind k : {HsKind::kHello, HsKind::kAuth, HsKind::kVerdict})
    for (size_t n = 0; n <= handshake_size(k) && n <= size; ++n) (void)handshake_prefix_ok(k, data, n);
  (void)decode_hello(hs);
  (void)decode_auth(hs);
  (void)decode_verdict(hs);

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 0;
  TcpFrameReader reader(1u << 16);
  size_t off = 0;
  bool bad = false;
  while (!bad) {
    if (off < size) {
      const ssize_t w = write(sv[0], data + off, size - off < 8192 ? size - off : 8192);
      if (w > 0) off += static_cast<size_t>(w);
    } else if (sv[0] >= 0) {
      close(sv[0]);
      sv[0] = -1;
    }
    bool drained = false;
    int err = 0;
    const auto r = reader.fill(sv[1], &drained, &err);
    for (;;) {
      lz::Status why;
      const auto item = reader.next(&why);
      if (item.kind == TcpFrameReader::Item::kNone) break;
      if (item.kind == TcpFrameReader::Item::kBad) {
        bad = true;
        break;
      }
      if (item.kind == TcpFrameReader::Item::kData && item.len > 0) {
        volatile char sink = item.data[0] ^ item.data[item.len - 1];  // the payload must be readable
        (void)sink;
      }
    }
    if (r == TcpFrameReader::FillResult::kEof || r == TcpFrameReader::FillResult::kError) break;
  }
  if (sv[0] >= 0) close(sv[0]);
  close(sv[1]);
  return 0;
}
