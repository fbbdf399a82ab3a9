// Descriptor of transport/shm (listed by `lazarus info` without starting it).
#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <memory>

#include "shm_config.h"
#include "shm_transport.h"
#include "lazarus/procfiles/file_scan.h"

namespace lz::transport::shm {
namespace {

// Declines, with the reason, when the backing directory cannot hold segments.
// Opens nothing: `lazarus info` calls this just to list availability.
Status check_backing_dir(const ShmConfig& c) {
  if (::access(c.backing_dir.c_str(), W_OK | X_OK) != 0)
    return Unavailable(c.backing_dir + " is not usable for shared memory (" + strerror(errno) +
                       "); set transport_shm_backing_dir to a writable tmpfs");
  struct statvfs fs;
  if (::statvfs(c.backing_dir.c_str(), &fs) != 0)
    return Unavailable("cannot statvfs " + c.backing_dir + ": " + strerror(errno));
  const uint64_t avail = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (avail < 4 * c.ring_bytes)
    return Unavailable(c.backing_dir + " has only " + std::to_string(avail) + " bytes free");
  return Status::Ok();
}

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  LZ_ASSIGN_OR_RETURN(ShmConfig config, ShmConfig::from_params(ctx));
  if (ctx.details != nullptr) ctx.details->push_back(ShmTransport::single_copy_details(config));
  LZ_RETURN_IF_ERROR(check_backing_dir(config));
  // Its segments are the runtime's, not files of the program a cr=app rank saves.
  if (!ctx.listing_only) procfiles::add_runtime_files(config.backing_dir + "/lz-shm.*");
  return std::unique_ptr<lz::Module>(new ShmTransport(config));
}

}  // namespace
}  // namespace lz::transport::shm

LZ_COMPONENT(transport, shm) = {
    LZ_COMPONENT_HEADER(transport, shm, lz::transport::kInterfaceVersion),
    "1.0.0", "Shared memory between ranks of one host (SPSC rings, FIFO doorbell, process_vm_readv get)",
    /*default_priority=*/50, lz::transport::shm::kParams, lz::transport::shm::kNumParams,
    &lz::transport::shm::query, nullptr};
