// OfiTransport, wire-up: under the shm provider, connect() makes the
// connection with every local peer before it returns.
//
// libfabric's shm connects a pair on its first send: the sender puts a
// connection request in the peer's queue and gets -FI_EAGAIN until the peer's
// progress has processed it (one request sets up both directions). A frame
// refused so waits in our backlog for the sender's next progress. The
// engine completes an eager send once the frame is in the backlog, so a rank
// could leave MPI (its MPI_Allreduce done) with its frame still here and
// compute, while its peer waits in MPI for that frame until the sender comes
// back: a hang seen at start-up (tests/integration/mpi/finalize_test.sh
// after_checkpoint, about one job in twenty under ofi,self). Every rank
// calls connect() after the same modex fence (init, continue, restart), so
// here each rank probes each local peer with a 0-byte message until one is
// taken, reading its own completion queue meanwhile (that processes the
// peers' requests; frames that arrive are kept for the next progress()).
// Once connect() returns, the provider takes a frame to any local peer at
// once unless its queue is full.
#include <errno.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include "lazarus/log.h"
#include "ofi_clock.h"
#include "ofi_info.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {
// A peer that has passed the same fence reaches connect() within moments;
// this bounds a peer stopped or hung before it.
constexpr int64_t kWireUpLimitMs = 60000;
}  // namespace

Status OfiTransport::wire_up() {
  // Only shm, where the hang was seen; tcp;ofi_rxm makes its connections
  // in its own progress, and has not been seen to hang so.
  if (provider_ != "shm") return Status::Ok();
  std::vector<OfiPeer*> todo;
  for (auto& p : peers_)
    if (p.rank != rank_ && p.addr != FI_ADDR_NOTAVAIL && !p.failed && !p.finalized) todo.push_back(&p);
  const int64_t until = coarse_now_ms() + kWireUpLimitMs;
  stashing_ = true;
  Status result;
  while (!todo.empty()) {
    for (size_t i = 0; i < todo.size();) {
      OfiPeer& p = *todo[i];
      const ssize_t rc = fi_inject(fabric_.ep(), nullptr, 0, p.addr);
      // Not taken yet, from a peer alive: ask again after reading the CQ.
      if (rc == -FI_EAGAIN && !(p.pid > 0 && ::kill(p.pid, 0) != 0 && errno == ESRCH)) {
        ++i;
        continue;
      }
      // Taken; or a dead peer or a refusing endpoint, left to the data path,
      // which fails the peer on its first frame.
      if (rc == 0)
        p.connected = true;
      else if (rc != -FI_EAGAIN)
        log::debug("ofi: wire-up probe to rank %d: %s", p.rank, fi_error_text(static_cast<int>(rc)).c_str());
      todo[i] = todo.back();
      todo.pop_back();
    }
    if (todo.empty()) break;
    if (coarse_now_ms() > until) {
      std::string ranks;
      for (const OfiPeer* p : todo) ranks += (ranks.empty() ? "" : ", ") + std::to_string(p->rank);
      result = Unavailable("ofi: the shm provider's connection with rank(s) " + ranks + " was not made within " +
                           std::to_string(kWireUpLimitMs / 1000) +
                           " s (they did not progress after the modex fence: stopped or hung?)");
      break;
    }
    read_cq();
    ::usleep(50);  // oversubscribed: let the peers run
  }
  stashing_ = false;
  return result;
}

}  // namespace lz::transport::ofi
