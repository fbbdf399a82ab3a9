#include "tcp_handshake.h"

#include <cstring>
#include <string>

#include "lazarus/wire.h"

namespace lz::transport::tcp {
namespace {

constexpr std::string_view kConnectorContext = "tcp";
constexpr std::string_view kAcceptorContext = "tcp-verdict";

void put_prefix(unsigned char* p, HsKind kind) {
  wire::put_le32(p, kHandshakeMagic);
  wire::put_le16(p + 4, kHandshakeVersion);
  wire::put_le16(p + 6, static_cast<uint16_t>(kind));
}

std::string verdict_id(uint32_t rank, Verdict v) {
  return std::to_string(rank) + ":" + std::to_string(static_cast<uint32_t>(v));
}

}  // namespace

size_t handshake_size(HsKind kind) {
  switch (kind) {
    case HsKind::kHello: return kHelloBytes;
    case HsKind::kAuth: return kAuthBytes;
    case HsKind::kVerdict: return kVerdictBytes;
  }
  return 0;
}

bool handshake_prefix_ok(HsKind kind, const unsigned char* p, size_t n) {
  unsigned char want[8];
  put_prefix(want, kind);
  return std::memcmp(p, want, n < 8 ? n : 8) == 0;
}

std::array<unsigned char, kHelloBytes> encode_hello(const auth::Nonce& nonce) {
  std::array<unsigned char, kHelloBytes> m{};
  put_prefix(m.data(), HsKind::kHello);
  std::memcpy(m.data() + 8, nonce.data(), nonce.size());
  return m;
}

StatusOr<auth::Nonce> decode_hello(const unsigned char* p) {
  if (!handshake_prefix_ok(HsKind::kHello, p, 8)) return ProtocolError("not a lazarus tcp HELLO");
  auth::Nonce n;
  std::memcpy(n.data(), p + 8, n.size());
  return n;
}

std::array<unsigned char, kAuthBytes> encode_auth(std::string_view secret, uint32_t rank, uint32_t target,
                                                  const auth::Nonce& server_nonce,
                                                  const auth::Nonce& client_nonce) {
  std::array<unsigned char, kAuthBytes> m{};
  put_prefix(m.data(), HsKind::kAuth);
  wire::put_le32(m.data() + 8, rank);
  wire::put_le32(m.data() + 12, target);
  std::memcpy(m.data() + 16, client_nonce.data(), client_nonce.size());
  const auth::Mac mac = auth::mac(secret, kConnectorContext, server_nonce, std::to_string(rank));
  std::memcpy(m.data() + 16 + auth::kNonceBytes, mac.data(), mac.size());
  return m;
}

StatusOr<AuthMsg> decode_auth(const unsigned char* p) {
  if (!handshake_prefix_ok(HsKind::kAuth, p, 8)) return ProtocolError("not a lazarus tcp AUTH");
  AuthMsg a;
  a.rank = wire::get_le32(p + 8);
  a.target = wire::get_le32(p + 12);
  std::memcpy(a.client_nonce.data(), p + 16, a.client_nonce.size());
  std::memcpy(a.mac.data(), p + 16 + auth::kNonceBytes, a.mac.size());
  return a;
}

bool verify_auth(std::string_view secret, const auth::Nonce& server_nonce, const AuthMsg& m) {
  return auth::verify(secret, kConnectorContext, server_nonce, std::to_string(m.rank), m.mac);
}

std::array<unsigned char, kVerdictBytes> encode_verdict(std::string_view secret, Verdict v, uint32_t rank,
                                                        const auth::Nonce& client_nonce) {
  std::array<unsigned char, kVerdictBytes> m{};
  put_prefix(m.data(), HsKind::kVerdict);
  wire::put_le32(m.data() + 8, static_cast<uint32_t>(v));
  wire::put_le32(m.data() + 12, rank);
  const auth::Mac mac = auth::mac(secret, kAcceptorContext, client_nonce, verdict_id(rank, v));
  std::memcpy(m.data() + 16, mac.data(), mac.size());
  return m;
}

StatusOr<VerdictMsg> decode_verdict(const unsigned char* p) {
  if (!handshake_prefix_ok(HsKind::kVerdict, p, 8)) return ProtocolError("not a lazarus tcp VERDICT");
  VerdictMsg v;
  const uint32_t code = wire::get_le32(p + 8);
  if (code < 1 || code > 3) return ProtocolError("unknown tcp handshake verdict " + std::to_string(code));
  v.verdict = static_cast<Verdict>(code);
  v.rank = wire::get_le32(p + 12);
  std::memcpy(v.mac.data(), p + 16, v.mac.size());
  return v;
}

bool verify_verdict(std::string_view secret, const auth::Nonce& client_nonce, const VerdictMsg& m) {
  return auth::verify(secret, kAcceptorContext, client_nonce, verdict_id(m.rank, m.verdict), m.mac);
}

}  // namespace lz::transport::tcp
