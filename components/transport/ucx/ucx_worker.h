// UcxWorker: the UCX resources of one rank, owned together because they live
// and die together: the UCP context (ucp_init), its one worker, the
// active-message handler, the worker's event fd and its packed address.
// close() releases all of it (ucp_worker_destroy + ucp_cleanup); measured on
// this machine, 50 open/close cycles leave threads, fds, /dev/shm files,
// SysV segments and mappings at their baseline, which is what the checkpoint
// hooks rely on. Endpoints belong to the transport (ucx_peer.h) and must be
// closed before close().
//
//   UcxWorker w;
//   LZ_RETURN_IF_ERROR(w.open({.tls = "posix,cma,tcp,self", .name = "rank 3", .on_am = cb, .am_arg = this}));
//   modex.put(key, w.address());
//   ucp_worker_progress(w.worker());
//   w.close();
#pragma once

#include <ucp/api/ucp.h>

#include <string>

#include "lazarus/status.h"

namespace lz::transport::ucx {

// The active-message id of every frame (one handler, one id).
inline constexpr unsigned kAmId = 0x4c5a;  // "LZ"

class UcxWorker {
 public:
  struct Options {
    std::string tls;                          // UCX_TLS of the context
    std::string name;                         // context/worker name in UCX logs
    ucp_am_recv_callback_t on_am = nullptr;   // handler of kAmId
    void* am_arg = nullptr;
    // UCX's keepalive (UCX_KEEPALIVE_INTERVAL) on the job's endpoints. Off
    // when every peer is on this host: their pidfds notice a death at once
    // (ucx_liveness.cpp), where the keepalive takes 20 s.
    bool keepalive = true;
  };

  UcxWorker() = default;
  ~UcxWorker() { close(); }
  UcxWorker(const UcxWorker&) = delete;
  UcxWorker& operator=(const UcxWorker&) = delete;

  // Errors name the UCX call and status; nothing stays open on failure.
  Status open(const Options& o);
  // Destroys the worker and the context (endpoints must be closed already).
  void close();

  bool is_open() const { return worker_ != nullptr; }
  ucp_worker_h worker() const { return worker_; }
  ucp_context_h context() const { return context_; }
  int event_fd() const { return efd_; }
  // The worker's packed address (binary), as ucp_ep_create expects it.
  const std::string& address() const { return address_; }

 private:
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int efd_ = -1;
  std::string address_;
};

}  // namespace lz::transport::ucx
