#include "ofi_fabric.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "lazarus/log.h"
#include "ofi_info.h"

namespace lz::transport::ofi {

Status OfiFabric::open(const fi_info& info, size_t cq_size) {
  if (is_open()) return Internal("ofi: fabric opened twice");
  auto fail = [&](const char* what, int rc) {
    close();
    return Unavailable(std::string("ofi: ") + what + " for provider " +
                       (info.fabric_attr->prov_name ? info.fabric_attr->prov_name : "?") + ": " + fi_error_text(rc));
  };
  int rc = fi_fabric(info.fabric_attr, &fabric_, nullptr);
  if (rc != 0) return fail("fi_fabric", rc);
  rc = fi_domain(fabric_, const_cast<fi_info*>(&info), &domain_, nullptr);
  if (rc != 0) return fail("fi_domain", rc);
  fi_cq_attr cqa{};
  cqa.format = FI_CQ_FORMAT_MSG;
  cqa.size = cq_size;
  cqa.wait_obj = FI_WAIT_FD;
  rc = fi_cq_open(domain_, &cqa, &cq_, nullptr);
  if (rc == -FI_ENOSYS || rc == -FI_EINVAL || rc == -FI_ENOMEM) {
    cqa.wait_obj = FI_WAIT_NONE;
    rc = fi_cq_open(domain_, &cqa, &cq_, nullptr);
  } else if (rc == 0 && fi_control(&cq_->fid, FI_GETWAIT, &wait_fd_) != 0) {
    wait_fd_ = -1;  // an fd wait object we cannot poll is no wait fd
  }
  if (rc != 0) return fail("fi_cq_open", rc);
  fi_av_attr ava{};
  ava.type = FI_AV_TABLE;
  rc = fi_av_open(domain_, &ava, &av_, nullptr);
  if (rc != 0) return fail("fi_av_open", rc);
  rc = fi_endpoint(domain_, const_cast<fi_info*>(&info), &ep_, nullptr);
  if (rc != 0) return fail("fi_endpoint", rc);
  if ((rc = fi_ep_bind(ep_, &av_->fid, 0)) != 0) return fail("fi_ep_bind(av)", rc);
  if ((rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV)) != 0) return fail("fi_ep_bind(cq)", rc);
  if ((rc = fi_enable(ep_)) != 0) return fail("fi_enable", rc);
  char name[256];
  size_t len = sizeof name;
  if ((rc = fi_getname(&ep_->fid, name, &len)) != 0) return fail("fi_getname", rc);
  name_.assign(name, len);
  provider_ = info.fabric_attr->prov_name ? info.fabric_attr->prov_name : "";
  addr_format_ = info.addr_format;
  inject_size_ = info.tx_attr->inject_size;
  tx_size_ = info.tx_attr->size;
  rx_size_ = info.rx_attr->size;
  max_msg_size_ = info.ep_attr->max_msg_size;
  mr_mode_ = static_cast<uint64_t>(info.domain_attr->mr_mode);
  rma_read_ = (info.caps & (FI_RMA | FI_READ | FI_REMOTE_READ)) == (FI_RMA | FI_READ | FI_REMOTE_READ);
  rma_write_ = rma_read_ && (info.caps & (FI_WRITE | FI_REMOTE_WRITE)) == (FI_WRITE | FI_REMOTE_WRITE);
  return Status::Ok();
}

void OfiFabric::close() {
  // Reverse order of opening; each close is logged, never thrown.
  auto shut = [](fid* f, const char* what) {
    if (f == nullptr) return;
    if (int rc = fi_close(f); rc != 0) log::warn("ofi: fi_close(%s): %s", what, fi_error_text(rc).c_str());
  };
  shut(ep_ ? &ep_->fid : nullptr, "endpoint");
  shut(av_ ? &av_->fid : nullptr, "address vector");
  shut(cq_ ? &cq_->fid : nullptr, "completion queue");
  shut(domain_ ? &domain_->fid : nullptr, "domain");
  shut(fabric_ ? &fabric_->fid : nullptr, "fabric");
  ep_ = nullptr;
  av_ = nullptr;
  cq_ = nullptr;
  domain_ = nullptr;
  fabric_ = nullptr;
  wait_fd_ = -1;
  name_.clear();
  rma_read_ = false;
  rma_write_ = false;
}

}  // namespace lz::transport::ofi
