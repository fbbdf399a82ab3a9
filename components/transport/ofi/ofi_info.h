// What libfabric offers here: the fi_getinfo query every part of the component
// shares (one set of hints), the list of RDM providers it finds, and the
// library's version. Nothing here opens a fabric: query() and `lazarus info`
// use it to decide and to describe, init() to pick the provider it opens.
//
// The hints ask for FI_EP_RDM with FI_MSG (not FI_TAGGED): the transport moves
// frames, not tagged messages. Every incoming frame must land in the next
// posted buffer whoever sent it (matching is the engine's business), and
// FI_MSG gives exactly that; FI_TAGGED would add a match step per message and,
// for frames with a tag nobody posted for, an unexpected queue inside the
// provider that a stranger could grow. Also asked: send-after-send ordering
// (FI_ORDER_SAS) on both sides, manual progress (no provider thread: the
// engine progresses, and a checkpoint finds no thread to stop), no memory
// registration (mr_mode 0: buffers are ordinary memory) and
// FI_THREAD_DOMAIN (the engine serializes every call). With `rma`, also
// FI_RMA reads (FI_READ, FI_REMOTE_READ) and the registration modes
// ofi_rma.cpp handles: what init() asks first, for single-copy rendezvous.
//
//   LZ_ASSIGN_OR_RETURN(FiInfoPtr info, get_info("tcp;ofi_rxm", "127.0.0.1"));
//   fi_fabric(info->fabric_attr, ...);
#pragma once

#include <rdma/fabric.h>

#include <memory>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::transport::ofi {

// The API version the component is written against (libfabric 1.17 here).
inline constexpr uint32_t kFiVersion = FI_VERSION(1, 17);

struct FiInfoDeleter {
  void operator()(fi_info* p) const {
    if (p != nullptr) fi_freeinfo(p);
  }
};
using FiInfoPtr = std::unique_ptr<fi_info, FiInfoDeleter>;

// fi_info list for `provider` (exact name as fi_info prints it), RDM + FI_MSG
// + FI_ORDER_SAS (+ FI_RMA reads with `rma`); with `source` (an address of
// this host), FI_SOURCE so the endpoint binds there. kUnavailable with the
// providers found when none.
StatusOr<FiInfoPtr> get_info(const std::string& provider, const char* source, bool rma = false);

// Names of the providers that answer our hints (with FI_RMA reads when
// `rma`), in fi_getinfo's order (best first), each once.
std::vector<std::string> rdm_providers(bool rma = false);

// "1.17.0" from fi_version(), and the headers' version.
std::string library_version();

// "libfabric error -N (text)".
std::string fi_error_text(int rc);

}  // namespace lz::transport::ofi
