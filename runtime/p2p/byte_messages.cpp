#include "p2p/byte_messages.h"

#include <cstdint>

#include "lazarus/datatype/datatype.h"

namespace lz::rt {

Status send_bytes(::lz_mpi_comm_s& c, const std::string& s, int dst, int tag) {
  const uint64_t n = s.size();
  LZ_RETURN_IF_ERROR(c.send(&n, sizeof n, dt::byte_type(), dst, tag));
  return c.send(s.data(), static_cast<int>(n), dt::byte_type(), dst, tag);
}

StatusOr<std::string> recv_bytes(::lz_mpi_comm_s& c, int src, int tag) {
  uint64_t n = 0;
  LZ_RETURN_IF_ERROR(c.recv(&n, sizeof n, dt::byte_type(), src, tag));
  if (n > (1u << 30)) return ProtocolError("a message of " + std::to_string(n) + " bytes where a group was expected");
  std::string s(static_cast<size_t>(n), '\0');
  LZ_RETURN_IF_ERROR(c.recv(s.data(), static_cast<int>(n), dt::byte_type(), src, tag));
  return s;
}

}  // namespace lz::rt
