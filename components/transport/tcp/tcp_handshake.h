// Wire format and checks of the transport/tcp connection handshake.
//
// Mutual challenge/response with the per-job secret (lazarus/auth.h):
//
//   acceptor  -> connector : HELLO   {magic, version, kind, nonce_a}
//   connector -> acceptor  : AUTH    {magic, version, kind, rank, target rank,
//                                     nonce_c, mac(secret, "tcp", nonce_a, "<rank>")}
//   acceptor  -> connector : VERDICT {magic, version, kind, verdict, acceptor rank,
//                                     mac(secret, "tcp-verdict", nonce_c, "<rank>:<verdict>")}
//
// The acceptor proves itself too, so a connector never sends job data to a
// process that merely reuses a stale address (after a restart, ports change).
// Frames follow VERDICT=kAccept on the same stream. Every message has a fixed
// size and a fixed 8-byte prefix, so a stranger's bytes are refused as soon as
// the prefix differs. Integers are little-endian.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lazarus/auth.h"
#include "lazarus/status.h"

namespace lz::transport::tcp {

inline constexpr uint32_t kHandshakeMagic = 0x48545a4c;  // "LZTH"
inline constexpr uint16_t kHandshakeVersion = 1;
enum class HsKind : uint16_t { kHello = 1, kAuth = 2, kVerdict = 3 };
enum class Verdict : uint32_t {
  kAccept = 1,
  kDuplicate = 2,    // a connection between the pair exists or wins (see TcpTransport)
  kWrongTarget = 3,  // the connector wanted another rank (stale address)
};

inline constexpr size_t kHelloBytes = 8 + auth::kNonceBytes;                       // 40
inline constexpr size_t kAuthBytes = 8 + 4 + 4 + auth::kNonceBytes + auth::kMacBytes;  // 80
inline constexpr size_t kVerdictBytes = 8 + 4 + 4 + auth::kMacBytes;               // 48
inline constexpr size_t kMaxHandshakeBytes = kAuthBytes;

struct AuthMsg {
  uint32_t rank = 0;
  uint32_t target = 0;
  auth::Nonce client_nonce{};
  auth::Mac mac{};
};
struct VerdictMsg {
  Verdict verdict = Verdict::kAccept;
  uint32_t rank = 0;
  auth::Mac mac{};
};

// Size of a message of `kind`.
size_t handshake_size(HsKind kind);
// False as soon as the first n bytes cannot start a message of `kind`.
bool handshake_prefix_ok(HsKind kind, const unsigned char* p, size_t n);

std::array<unsigned char, kHelloBytes> encode_hello(const auth::Nonce& nonce);
StatusOr<auth::Nonce> decode_hello(const unsigned char* p);

std::array<unsigned char, kAuthBytes> encode_auth(std::string_view secret, uint32_t rank, uint32_t target,
                                                  const auth::Nonce& server_nonce,
                                                  const auth::Nonce& client_nonce);
StatusOr<AuthMsg> decode_auth(const unsigned char* p);
bool verify_auth(std::string_view secret, const auth::Nonce& server_nonce, const AuthMsg& m);

std::array<unsigned char, kVerdictBytes> encode_verdict(std::string_view secret, Verdict v, uint32_t rank,
                                                        const auth::Nonce& client_nonce);
StatusOr<VerdictMsg> decode_verdict(const unsigned char* p);
bool verify_verdict(std::string_view secret, const auth::Nonce& client_nonce, const VerdictMsg& m);

}  // namespace lz::transport::tcp
