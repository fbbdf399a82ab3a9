// Challenge/response authentication with the per-job secret, for every
// connection a job accepts (OOB and transports). MACs are libsodium's
// crypto_auth (HMAC-SHA-512-256); nothing here is home-made crypto.
//
// Protocol (both sides know `secret`; `context` names the channel, e.g.
// "oob" or "tcp", so a MAC for one cannot be replayed on the other):
//   acceptor  -> connector : nonce_a (kNonceBytes, random)
//   connector -> acceptor  : mac(secret, context, nonce_a, connector_id)
//   acceptor verifies; on failure it logs the peer address and closes.
//
//   auto nonce = lz::auth::random_nonce();
//   send(fd, nonce); read(fd, their_mac);
//   if (!lz::auth::verify(secret, "oob", nonce, id, their_mac)) { log; close(fd); }
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace lz::auth {

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kMacBytes = 32;
inline constexpr size_t kSecretBytes = 32;
using Nonce = std::array<uint8_t, kNonceBytes>;
using Mac = std::array<uint8_t, kMacBytes>;

// Fresh random secret of kSecretBytes bytes (binary).
std::string new_secret();
Nonce random_nonce();
// MAC over context || nonce || id, keyed by the secret.
Mac mac(std::string_view secret, std::string_view context, const Nonce& nonce, std::string_view id);
// Constant-time check of `m` against mac(secret, context, nonce, id).
bool verify(std::string_view secret, std::string_view context, const Nonce& nonce, std::string_view id, const Mac& m);

}  // namespace lz::auth
