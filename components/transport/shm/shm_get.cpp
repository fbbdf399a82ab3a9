// ShmTransport, single copy: get_async() reads a peer's memory with
// process_vm_readv and put_async() writes it with process_vm_writev (done
// when the call returns: the bytes are in the peer's pages). Both need
// ptrace access to the peer (Yama permitting); connect() probes each peer
// once, and a failed probe turns both off.
#include "shm_transport.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#include <cstdio>
#include <string>

#include "lazarus/log.h"

namespace lz::transport::shm {

// Yama's ptrace_scope, or -1 without Yama.
int ShmTransport::yama_ptrace_scope() {
  FILE* f = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
  if (f == nullptr) return -1;
  int v = -1;
  if (std::fscanf(f, "%d", &v) != 1) v = -1;
  std::fclose(f);
  return v;
}

// Single copy: peers read our memory with process_vm_readv, which needs
// ptrace access. Under Yama scope 1 only descendants may do that unless we
// name a tracer; like Open MPI's vader, allow any process of this user (the
// uid check still applies). Scope 3 forbids it outright. The real answer
// comes from probing each peer in connect(). The ptracer exception belongs to
// the process (not inherited by fork, not restored by a checkpointer): a
// restored rank sets it again in on_restart().
void ShmTransport::setup_single_copy() {
  get_ok_ = false;
  if (cfg_.single_copy) {
    const int scope = yama_ptrace_scope();
    if (scope == 1) ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    get_ok_ = scope != 3;
  }
}

std::string ShmTransport::single_copy_details(const ShmConfig& config) {
  const int scope = yama_ptrace_scope();
  std::string yama = scope < 0 ? "no Yama" : "Yama ptrace_scope " + std::to_string(scope);
  if (!config.single_copy) return "single copy: off (transport_shm_single_copy)";
  if (scope == 3) return "single copy: unavailable (" + yama + " forbids process_vm_readv)";
  return "single copy: process_vm_readv (" + yama + "; probed per peer at connect)";
}

void ShmTransport::probe_get(const ShmPeer& p) {
  uint64_t word = 0;
  struct iovec l{&word, sizeof word}, r{reinterpret_cast<void*>(p.address.probe_addr), sizeof word};
  const ssize_t n = ::process_vm_readv(p.address.pid, &l, 1, &r, 1, 0);
  if (n == static_cast<ssize_t>(sizeof word) && word == kProbeMagic) return;
  if (n < 0 && errno == ESRCH) return;  // the peer is gone; liveness reports it
  const int err = errno;
  get_ok_ = false;
  log::info("shm: single-copy get disabled: process_vm_readv from rank %d (pid %d) %s", p.rank,
            static_cast<int>(p.address.pid),
            n < 0 ? strerror(err) : "returned unexpected data");
}

Status ShmTransport::get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  (void)key;  // process_vm_readv needs no registration
  LZ_RETURN_IF_ERROR(access_peer_memory(peer, local, remote, len, false));
  done(Status::Ok());
  return Status::Ok();
}

Status ShmTransport::put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  (void)key;
  LZ_RETURN_IF_ERROR(access_peer_memory(peer, const_cast<void*>(local), remote, len, true));
  done(Status::Ok());
  return Status::Ok();
}

Status ShmTransport::access_peer_memory(int peer, void* local, uint64_t remote, size_t len, bool write) {
  const char* call = write ? "process_vm_writev" : "process_vm_readv";
  const char* what = write ? "put" : "get";
  if (!get_ok_)
    return Unimplemented(std::string("shm: single-copy ") + what +
                         " is not available (see `lazarus info` and the log)");
  if (checkpointed_)
    return Status(Code::kWouldBlock, std::string("shm: checkpointed; no ") + what + " before connect()");
  if (peer < 0 || static_cast<size_t>(peer) >= slot_of_rank_.size() || slot_of_rank_[static_cast<size_t>(peer)] < 0)
    return InvalidArgument("shm: rank " + std::to_string(peer) + " is not on this host");
  const ShmPeer& p = peers_[static_cast<size_t>(slot_of_rank_[static_cast<size_t>(peer)])];
  if (p.address.pid <= 0) return InvalidArgument("shm: rank " + std::to_string(peer) + " has no shm address");
  size_t done = 0;
  while (done < len) {
    struct iovec l{static_cast<char*>(local) + done, len - done};
    struct iovec r{reinterpret_cast<void*>(remote + done), len - done};
    const ssize_t n = write ? ::process_vm_writev(p.address.pid, &l, 1, &r, 1, 0)
                            : ::process_vm_readv(p.address.pid, &l, 1, &r, 1, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    const int err = n < 0 ? errno : EFAULT;
    if (err == EINTR) continue;
    if (err == ESRCH) return peer_gone_status(peer);
    if (err == EPERM)
      return PermissionDenied(std::string("shm: ") + call + " of rank " + std::to_string(peer) + ": " + strerror(err));
    if (err == EFAULT)
      return InvalidArgument(std::string("shm: ") + what + " of " + std::to_string(len) + " bytes at 0x" +
                             [&] {
                               char b[32];
                               std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(remote + done));
                               return std::string(b);
                             }() +
                             " in rank " + std::to_string(peer) + ": bad address");
    return ErrnoError(std::string("shm: ") + call + " of rank " + std::to_string(peer), err);
  }
  return Status::Ok();
}

}  // namespace lz::transport::shm
