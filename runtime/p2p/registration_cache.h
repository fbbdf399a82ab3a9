// RegistrationCache: memory from MPI_Alloc_mem, registered once per transport
// and reused by every rendezvous from it.
//
// A rendezvous send that offers its buffer for the receiver's get registers
// it with the transport and deregisters it when the get is done
// (Engine::offer_get): for ucx that is ucp_mem_map + ucp_rkey_pack, for ofi
// fi_mr_reg, each costing microseconds per message. A buffer inside an area
// MPI_Alloc_mem returned is instead registered whole, on the first send from
// it over a transport, and that registration serves every later send from the
// area until MPI_Free_mem (Open MPI's rcache does the same for its mpool).
//
// Registrations do not survive a checkpoint: a transport closes its domain
// or worker then, and after a restart the modules may be new objects. So
// drop_registrations() deregisters every one before the transports'
// on_checkpoint() (Engine::checkpoint_transports) and at finalize; the areas
// stay, and the next send from one registers it again. The areas are
// ordinary memory of the process, in its core image under cr=criu.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "lazarus/frameworks/transport.h"

namespace lz::rt {

class RegistrationCache {
 public:
  struct Counts {
    uint64_t registrations = 0;  // areas registered with a transport
    uint64_t hits = 0;           // sends served by a registration made before
  };

  // MPI_Alloc_mem and MPI_Win_allocate: `bytes` of page-aligned memory (an
  // address of its own for 0) added as an area; null with the errno value
  // in *error when there is no memory. free_area() takes it back (false:
  // not an area's start).
  void* allocate_area(size_t bytes, int* error);
  bool free_area(void* base);
  // [base, base+len) may be registered from now on.
  void add_area(const void* base, size_t len);
  // MPI_Free_mem: false when `base` is not an area's start; otherwise the
  // area's registrations are deregistered and the area forgotten.
  bool remove_area(const void* base);
  // The registration with `module` of the area holding [addr, addr+len),
  // made now if there is none yet; nothing when the range is not inside one
  // area or the transport refuses (the caller then registers the buffer on
  // its own, as for any other memory).
  std::optional<transport::MemoryRegion> find(transport::Module* module, const void* addr, size_t len);
  // Deregisters every registration (checkpoint, finalize); the areas stay.
  void drop_registrations();

  size_t areas() const { return count_.load(std::memory_order_relaxed); }
  Counts counts() const;

 private:
  struct Area {
    size_t len = 0;
    std::vector<std::pair<transport::Module*, transport::MemoryRegion>> regions;
  };
  static void deregister_all(Area& a);

  mutable std::mutex mu_;
  std::map<uintptr_t, Area> areas_;  // by base address
  std::atomic<size_t> count_{0};     // areas_.size(), read without the lock
  Counts counts_;
};

// The process's cache (MPI_Alloc_mem / MPI_Free_mem and the p2p engine).
RegistrationCache& registration_cache();

}  // namespace lz::rt
