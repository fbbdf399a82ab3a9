// Checkpoint support: the interrupt that wakes a blocked progress wait for
// the CR thread, and the transports' checkpoint / continue / restart hooks.
#include <malloc.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "lazarus/cpu_list.h"
#include "lazarus/log.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"
#include "p2p/registration_cache.h"

namespace lz::rt {

using namespace engine_detail;

Status Engine::enable_interrupts() {
  if (interrupt_fd_ >= 0) return Status::Ok();
  interrupt_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (interrupt_fd_ < 0) return ErrnoError("eventfd for the CR interrupt", errno);
  return Status::Ok();
}

void Engine::request_interrupt() {
  interrupt_requested.store(true, std::memory_order_release);
  if (interrupt_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t n = write(interrupt_fd_, &one, sizeof one);
    (void)n;  // EAGAIN: already rung
  }
}

Status Engine::enable_thread_wakes() {
  if (wake_fd_ >= 0) return Status::Ok();
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return ErrnoError("eventfd for waking waits", errno);
  return Status::Ok();
}

void Engine::wake() {
  if (wake_fd_ < 0) return;
  uint64_t one = 1;
  ssize_t n = write(wake_fd_, &one, sizeof one);
  (void)n;  // EAGAIN: already rung
}

int Engine::progress_wait(int timeout_ms, int extra_fd) {
  int n = progress();
  if (n > 0 || self_dirty_) return n;
  if (!arm_waits() || self_dirty_) return progress();
  pollfd fds[kMaxWaitFds];
  nfds_t nfds = wait_fds(fds);
  if (extra_fd >= 0 && nfds < kMaxWaitFds) fds[nfds++] = {extra_fd, POLLIN, 0};
  int timeout = (pending_peers_ != 0 || any_without_fd_) ? std::min(timeout_ms, 1) : timeout_ms;
  poll(fds, nfds, timeout);
  return progress();
}

std::string Engine::transports_without_checkpoint() const {
  std::string out;
  for (size_t i = 0; i < modules_.size(); ++i)
    if (!(modules_[i]->capabilities() & transport::kCapCheckpoint))
      out += (out.empty() ? "" : ",") + module_names_[i];
  for (const auto& b : bridges_)
    for (size_t i = 0; i < b->modules().size(); ++i)
      if (!(b->modules()[i]->capabilities() & transport::kCapCheckpoint))
        out += (out.empty() ? "" : ",") + b->module_names()[i] + " (dpm_transport, to " + b->describe() + ")";
  return out;
}

Status Engine::checkpoint_transports(int timeout_ms) {
  live_ = false;  // the bootstrap's waits block until reconnect_transports()
  // MPI_Alloc_mem areas are registered again after the checkpoint, on first use.
  registration_cache().drop_registrations();
  rma_drop_all();
  const double t0 = now_seconds();
  auto release = [&](transport::Module* m, const std::string& what) -> Status {
    for (;;) {
      Status s = m->on_checkpoint();
      if (s.ok()) return s;
      if (s.code() != Code::kWouldBlock) return s.with_context(what + ": on_checkpoint");
      const long ms = static_cast<long>(1000 * (now_seconds() - t0));
      if (ms > timeout_ms)
        return Timeout(what + ": on_checkpoint still refused after " + std::to_string(ms) + " ms: " + s.message());
      progress_wait(1);
    }
  };
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (cr_released_[i]) continue;
    LZ_RETURN_IF_ERROR(release(modules_[i], "transport " + module_names_[i]));
    cr_released_[i] = true;
  }
  // After the world's: the peers of another job close theirs when their own
  // job's GO comes, earlier or later; the transport's orderly close waits
  // for them (bounded by its own timeout) without needing this job's peers.
  for (auto& b : bridges_) {
    for (size_t i = 0; i < b->modules().size(); ++i) {
      if (b->released(i)) continue;
      LZ_RETURN_IF_ERROR(release(b->modules()[i], "dpm transport " + b->module_names()[i] + " to " + b->describe()));
      b->set_released(i, true);
    }
  }
  // What the transports' libraries freed goes back to the kernel before the
  // image is taken: a core image holds every resident page, free or not.
  // glibc serves a large allocation by mmap only until one such is freed
  // (then it raises its mmap threshold), so from the second checkpoint on,
  // libfabric's tcp;ofi_rxm buffers (about 90 MiB a rank) came from the heap
  // and stayed resident after the endpoint closed: snapshot 1 of a 4-rank
  // job was 21 MB, snapshot 2 379 MB, and cr.recover.ofi_rxm timed out
  // taking 2 s checkpoints every second. malloc_trim also releases free
  // pages inside the heap, not only at its top.
  ::malloc_trim(0);
  return Status::Ok();
}

Status Engine::resume_transports(bool restarted) {
  // The layout the bootstrap holds now: a restart's, or the one a staying
  // rank read when it reconnected during a migration (kCrNewLayout).
  refresh_peer_info();
  Status first;
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (!cr_released_[i]) continue;
    Status s = restarted ? modules_[i]->on_restart() : modules_[i]->on_continue();
    if (!s.ok() && first.ok())
      first = s.with_context("transport " + module_names_[i] + (restarted ? ": on_restart" : ": on_continue"));
  }
  // A bridge's modules put their new addresses into the bridge (their
  // Host's modex), which reconnect_bridges() fences through the launchers.
  for (auto& b : bridges_) {
    for (size_t i = 0; i < b->modules().size(); ++i) {
      if (!b->released(i)) continue;
      transport::Module* m = b->modules()[i];
      Status s = restarted ? m->on_restart() : m->on_continue();
      if (!s.ok() && first.ok())
        first = s.with_context("dpm transport " + b->module_names()[i] + " to " + b->describe() +
                               (restarted ? ": on_restart" : ": on_continue"));
    }
  }
  return first;
}

std::string Engine::transfers_in_flight() const {
  std::string out;
  for (int r = 0; r < size_; ++r) {
    const Peer& p = peers_[static_cast<size_t>(r)];
    if (p.failed) continue;
    std::string what = unsent_to(r);
    if (p.waiting != nullptr) what += (what.empty() ? "" : ", ") + std::string("a transfer waiting for its reply");
    if (!what.empty()) out += (out.empty() ? "rank " : "; rank ") + std::to_string(r) + ": " + what;
  }
  if (!transfers_.empty())
    out +=
        (out.empty() ? "" : "; ") + std::to_string(transfers_.size()) + " get(s), put(s) or zero-copy send(s) running";
  if (!nbc_.empty()) out += (out.empty() ? "" : "; ") + std::to_string(nbc_.size()) + " non-blocking collective(s) running";
  return out;
}

Status Engine::reconnect_transports() {
  // This rank's CPUs again: it may have moved, and a process that joined the
  // job in a moved rank's place knows only this fence's entries.
  LZ_RETURN_IF_ERROR(boot_->put(kCpusKey, format_cpu_list(own_cpus())).with_context("modex put p2p.cpus"));
  LZ_RETURN_IF_ERROR(boot_->fence().with_context("modex fence after the checkpoint"));
  Status first;
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (!cr_released_[i]) continue;
    cr_released_[i] = false;
    Status s = modules_[i]->connect();
    if (!s.ok() && first.ok()) first = s.with_context("transport " + module_names_[i] + ": connect after the checkpoint");
  }
  control_dead_ = false;
  LZ_RETURN_IF_ERROR(first);
  LZ_RETURN_IF_ERROR(choose_transports());
  live_ = true;
  return Status::Ok();
}

}  // namespace lz::rt
