#include "lazarus/auth.h"

#include <sodium.h>

#include <cstdlib>
#include <cstring>

#include "lazarus/log.h"

namespace lz::auth {
namespace {

void ensure_init() {
  static const bool ok = [] { return sodium_init() >= 0; }();
  if (!ok) {
    log::error("libsodium failed to initialise; cannot authenticate connections");
    std::abort();
  }
}

// crypto_auth keys are exactly crypto_auth_KEYBYTES; derive one from the secret
// (any length) with a keyed-less generic hash so every caller agrees.
void derive_key(std::string_view secret, std::string_view context, unsigned char key[crypto_auth_KEYBYTES]) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, crypto_auth_KEYBYTES);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(context.data()), context.size());
  crypto_generichash_final(&st, key, crypto_auth_KEYBYTES);
}

}  // namespace

static_assert(crypto_auth_BYTES == kMacBytes, "MAC size");

std::string new_secret() {
  ensure_init();
  std::string s(kSecretBytes, '\0');
  randombytes_buf(s.data(), s.size());
  return s;
}

Nonce random_nonce() {
  ensure_init();
  Nonce n;
  randombytes_buf(n.data(), n.size());
  return n;
}

Mac mac(std::string_view secret, std::string_view context, const Nonce& nonce, std::string_view id) {
  ensure_init();
  unsigned char key[crypto_auth_KEYBYTES];
  derive_key(secret, context, key);
  std::string msg;
  msg.reserve(nonce.size() + id.size());
  msg.append(reinterpret_cast<const char*>(nonce.data()), nonce.size());
  msg.append(id);
  Mac m;
  crypto_auth(m.data(), reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), key);
  sodium_memzero(key, sizeof key);
  return m;
}

bool verify(std::string_view secret, std::string_view context, const Nonce& nonce, std::string_view id, const Mac& m) {
  ensure_init();
  unsigned char key[crypto_auth_KEYBYTES];
  derive_key(secret, context, key);
  std::string msg;
  msg.append(reinterpret_cast<const char*>(nonce.data()), nonce.size());
  msg.append(id);
  bool ok = crypto_auth_verify(m.data(), reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), key) == 0;
  sodium_memzero(key, sizeof key);
  return ok;
}

}  // namespace lz::auth
