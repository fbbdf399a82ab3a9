#include "ucx_frame.h"

#include <cstring>

#include "lazarus/auth.h"

namespace lz::transport::ucx {

uint64_t job_tag(const std::string& secret) {
  const auth::Nonce zero{};
  const auth::Mac m = auth::mac(secret, "ucx-frame-tag", zero, "v1");
  uint64_t t;
  std::memcpy(&t, m.data(), sizeof t);
  return t;
}

}  // namespace lz::transport::ucx
