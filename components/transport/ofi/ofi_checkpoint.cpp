// OfiTransport, checkpoint/continue/restart hooks (kCapCheckpoint).
//
// What of libfabric survives a CRIU dump/restore, and what must go:
//   Survives (process memory, restored as it was): the library and its
//   providers' global state (the provider list fi_getinfo built, the shm
//   provider's signal handlers, which after the close below have no region
//   left to clean up), and all of this module's state: configuration, the
//   provider choice, per-pair tags and sequence numbers, frames completed
//   early or kept by a refused checkpoint, pids seen, failure flags.
//   Must be torn down, all of it, by closing endpoint, AV, CQ, domain and
//   fabric (OfiFabric::close):
//   - tcp;ofi_rxm: the listening and connected TCP sockets (CRIU 4.1.1 cannot
//     dump a process holding an inet socket on kernels >= 6.16, and a
//     connection to a process outside the dump is never restorable), the
//     provider's epoll sets and its signalling fds;
//   - shm: the 16 MiB region /dev/shm/<pid>:<n>:<m> this rank created and the
//     mappings of its peers' regions (memory shared with other processes: a
//     restored copy would be a private snapshot, and peers' names carry their
//     old pids), and the CMA (process_vm_readv) state naming peer pids;
//   - the pidfds watching local peers (they refer to processes outside the
//     image) and every fi_addr_t (an AV index into a closed AV);
//   - memory registrations (closed before the domain; keys packed from them
//     are refused afterwards: every open draws a new epoch, ofi_rma.cpp).
//   None of it holds a thread: the hints ask for manual progress, so closing
//   leaves the thread count, fds, mappings and /dev/shm at their baseline
//   (measured: 50 close/re-open cycles in one process).
// Our own epoll wait set stays open (empty), so wait_fd() keeps its number.
//
// on_checkpoint() (CR thread, MPI lock held, channels drained by the crcp):
//   posts the backlogs and reads the CQ until every frame this rank accepted
//   has been posted and its send completed, and every read it posted has
//   completed (bounded by
//   transport_ofi_checkpoint_timeout: kTimeout, nothing closed). A frame that
//   arrives meanwhile is not lost: it is kept in process memory (stash) and
//   the hook refuses with kWouldBlock, nothing closed; the next progress()
//   delivers the stash first, in order, and the engine calls the hook again.
//   Then closes everything above.
// on_continue() / on_restart(): re-open a fabric (on restart after
//   re-reading the job's placement, the provider choice, the job secret and
//   the tags, forgetting failures of the old process set, and removing
//   /dev/shm regions of dead pids of this job), post the receive buffers and
//   publish the new endpoint name (modex put). After the engine's fence,
//   connect() re-reads every peer's name into a new AV.
// Sequence numbers continue across the hooks on both sides of each pair (a
// checkpoint is taken by every rank, and a restart restores every rank), so
// a frame is neither lost nor delivered twice.
#include <poll.h>
#include <unistd.h>

#include "lazarus/log.h"
#include "ofi_clock.h"
#include "ofi_shm_sweep.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {

Status OfiTransport::on_checkpoint() {
  if (host_ == nullptr) return Internal("ofi: on_checkpoint() before init()");
  if (checkpointed_) return Internal("ofi: on_checkpoint() twice without continue/restart and connect()");
  if (in_progress_) return Internal("ofi: on_checkpoint() from inside progress()");
  if (!stash_.empty())
    return Status(Code::kWouldBlock, "ofi: not drained: " + std::to_string(stash_.size()) +
                                         " frame(s) kept by an earlier checkpoint attempt are not delivered yet");
  const int64_t deadline = coarse_now_ms() + static_cast<int64_t>(config_.checkpoint_timeout * 1000);
  in_progress_ = true;
  stashing_ = true;
  Status verdict;
  for (;;) {
    flush_backlogs();
    read_cq();
    if (!stash_.empty()) {
      std::string from;
      for (const auto& [src, f] : stash_)
        if (from.find("rank " + std::to_string(src) + ",") == std::string::npos)
          from += "rank " + std::to_string(src) + ", ";
      verdict = Status(Code::kWouldBlock, "ofi: not drained: " + std::to_string(stash_.size()) +
                                              " frame(s) from " + from +
                                              "not yet delivered (progress, then checkpoint again)");
      break;
    }
    std::string waiting;
    for (const auto& p : peers_)  // a failed peer's sends die with the endpoint
      if (p.rank != rank_ && !p.failed && p.pending_bytes() != 0)
        waiting += (waiting.empty() ? "" : ", ") + std::to_string(p.rank);
    if (reads_outstanding() != 0)
      waiting += (waiting.empty() ? "" : ", ") + std::to_string(reads_outstanding()) + " read(s)";
    if (waiting.empty()) break;
    if (coarse_now_ms() > deadline) {
      verdict = Timeout("ofi: not drained: sends to rank(s) " + waiting + " did not complete within " +
                        std::to_string(config_.checkpoint_timeout) + " s (transport_ofi_checkpoint_timeout)");
      break;
    }
    if (fabric_wait_) {
      pollfd pf{fabric_.wait_fd(), POLLIN, 0};
      (void)::poll(&pf, 1, 1);
    } else {
      ::usleep(100);
    }
  }
  stashing_ = false;
  in_progress_ = false;
  if (!verdict.ok()) return verdict;
  close_fabric();
  // Our receive and bounce buffers (rx_buffers x max_frame: 4 MiB per rank
  // by default) are made again by the re-open; the image need not carry them.
  recv_ops_.clear();
  free_buffers_.clear();
  // What libfabric freed when the fabric closed goes back to the kernel
  // in the engine (malloc_trim once every transport's hook has run,
  // runtime/p2p/engine_cr.cpp), not here.
  checkpointed_ = true;
  log::debug("ofi: rank %d closed its %s endpoint for a checkpoint", rank_, provider_.c_str());
  return Status::Ok();
}

Status OfiTransport::reopen(bool restarted) {
  const char* hook = restarted ? "ofi: on_restart" : "ofi: on_continue";
  if (host_ == nullptr) return Internal(std::string(hook) + "() before init()");
  if (!checkpointed_) return Internal(std::string(hook) + "() without a successful on_checkpoint()");
  if (restarted) {
    // A restored process set: maybe other hosts (so maybe another provider
    // under auto), maybe a new launcher and secret; failures seen in the old
    // process set say nothing about the new one.
    if (host_->job_secret().empty())
      return PermissionDenied("ofi: no job secret after restart: frames could not be authenticated");
    rank_ = host_->rank();
    compute_tags();
    to_report_.clear();
    for (auto& p : peers_) {
      p.failed = false;
      p.reported = false;
      p.failure = Status();
      p.exit_seen_ms = 0;
      p.quiet_turns = 0;
    }
    // Our own pid's regions (CRIU gives a restored rank its old pid; a copy
    // killed after the checkpoint left its region) and regions of dead pids
    // of this job.
    std::vector<pid_t> pids = known_pids_;
    pids.push_back(::getpid());
    sweep_stale_shm_files(pids);
  }
  if (Status s = open_fabric(); !s.ok()) return s.with_context(hook);
  if (Status s = publish(); !s.ok()) {
    close_fabric();
    return s.with_context(hook);
  }
  return Status::Ok();
}

Status OfiTransport::on_continue() { return reopen(false); }
Status OfiTransport::on_restart() { return reopen(true); }

}  // namespace lz::transport::ofi
