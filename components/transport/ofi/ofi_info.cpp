#include "ofi_info.h"

#include <rdma/fi_errno.h>

#include <algorithm>
#include <cstring>

#include "lazarus/strings.h"

namespace lz::transport::ofi {
namespace {

FiInfoPtr make_hints(const std::string& provider, bool rma) {
  FiInfoPtr h(fi_allocinfo());
  if (!h) return h;
  h->caps = FI_MSG | (rma ? FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE : 0);
  h->mode = 0;  // no FI_CONTEXT: our op contexts are our own structures
  h->ep_attr->type = FI_EP_RDM;
  h->tx_attr->msg_order = FI_ORDER_SAS;
  h->rx_attr->msg_order = FI_ORDER_SAS;
  // Without RMA no memory is registered. With it, the registration modes
  // this component handles (ofi_rma.cpp): remote addresses either virtual
  // or offsets, keys the provider's or ours, regions of allocated memory;
  // not FI_MR_LOCAL (frames and read destinations stay unregistered) nor
  // FI_MR_ENDPOINT or FI_MR_RAW.
  h->domain_attr->mr_mode = rma ? FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED : 0;
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
  h->domain_attr->control_progress = FI_PROGRESS_MANUAL;
  if (!provider.empty()) h->fabric_attr->prov_name = ::strdup(provider.c_str());  // freed by fi_freeinfo
  return h;
}

}  // namespace

std::string fi_error_text(int rc) {
  return "libfabric error " + std::to_string(rc) + " (" + fi_strerror(rc < 0 ? -rc : rc) + ")";
}

StatusOr<FiInfoPtr> get_info(const std::string& provider, const char* source, bool rma) {
  FiInfoPtr hints = make_hints(provider, rma);
  if (!hints) return Internal("ofi: fi_allocinfo failed");
  fi_info* out = nullptr;
  const int rc = fi_getinfo(kFiVersion, source, nullptr, source != nullptr ? FI_SOURCE : 0, hints.get(), &out);
  FiInfoPtr info(out);
  if (rc != 0 || !info) {
    const std::vector<std::string> found = rdm_providers();
    return Unavailable("libfabric " + library_version() + " has no usable RDM provider '" + provider + "'" +
                       (rma ? " with FI_RMA reads" : "") +
                       (source ? std::string(" bound to ") + source : std::string()) + " (" + fi_error_text(rc) +
                       "); providers found: " + (found.empty() ? std::string("none") : str::join(found, ", ")));
  }
  return info;
}

std::vector<std::string> rdm_providers(bool rma) {
  std::vector<std::string> names;
  FiInfoPtr hints = make_hints("", rma);
  if (!hints) return names;
  fi_info* out = nullptr;
  if (fi_getinfo(kFiVersion, nullptr, nullptr, 0, hints.get(), &out) != 0) return names;
  FiInfoPtr list(out);
  for (fi_info* i = list.get(); i != nullptr; i = i->next) {
    const std::string n = i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "?";
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return names;
}

std::string library_version() {
  const uint32_t v = fi_version();
  return std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v));
}

}  // namespace lz::transport::ofi
