// RegisteredBuffer: a rendezvous send's buffer registered with the transport
// that carries it, so the receiver can read it with get_async(). Owned by the
// send request (Request::region); deregistered when the request completes,
// unless the registration is the RegistrationCache's (MPI_Alloc_mem memory),
// which keeps it for the next send.
#pragma once

#include "lazarus/frameworks/transport.h"

namespace lz::rt {

struct RegisteredBuffer {
  transport::Module* module = nullptr;
  transport::MemoryRegion region;
  bool cached = false;  // RegistrationCache's: not deregistered here
};

// What a receiver knows of a rendezvous source: the sender's buffer address
// and, when the sender offered it (wire::kFlagGet), the remote key to read it.
struct RndvSource {
  uint64_t addr = 0;
  bool get_offered = false;
  std::string_view key;
};

}  // namespace lz::rt
