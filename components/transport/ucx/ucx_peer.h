// UcxPeer: everything the ucx transport keeps about one other rank. It lives
// in process memory for the module's whole life (so it survives the
// checkpoint hooks and lands in the core image); only `ep`, `bulk_ep` and
// `pidfd` refer to resources outside it, and the hooks release those.
#pragma once

#include <sys/types.h>
#include <ucp/api/ucp.h>

#include <cstdint>
#include <map>
#include <string>

#include "lazarus/status.h"
#include "lazarus/unique_fd.h"

namespace lz::transport::ucx {

class UcxTransport;

// A data frame received ahead of its turn, or whose rendezvous data is still
// being fetched (ready false). A placed frame (ucx_head_frame.cpp) keeps only
// its head here; the rest is written where Host::place said.
struct HeldFrame {
  std::string data;
  bool ready = false;
  size_t placed = 0;     // a placed frame: its whole length
  bool dropped = false;  // the host took the placement back (drop_placement)
  // A head frame that came before its turn: UCX's descriptor of the rest,
  // fetched (and placed) when its turn comes; `rest` bytes.
  void* desc = nullptr;
  size_t rest = 0;
};

struct UcxPeer {
  enum class State {
    kNoAddress,   // published no ucx address (or not read yet): unreachable
    kActive,      // reachable; `ep` is created on the first send
    kSuspended,   // sent kCheckpoint: its worker is gone until connect() reads the new one
    kFinalized,   // sent kBye: its exit is not a failure
    kFailed,      // lost for good (reported once through Host::peer_failed)
  };

  UcxTransport* owner = nullptr;  // for UCX callbacks, whose argument is the peer
  int rank = -1;
  State state = State::kNoAddress;
  bool local = false;  // same host: watched through a pidfd
  bool shared_memory = false;  // UCX reaches it through shared memory (send() lets UCX gather)
  pid_t pid = 0;
  std::string address;  // packed UCP worker address, from the modex
  ucp_ep_h ep = nullptr;
  ucp_ep_h bulk_ep = nullptr;  // our pulls from it, without error handling (ucx_rma.cpp)
  // Our end of its bulk endpoint, from its kBulkHello: our head frames to it
  // (ucx_head_frame.cpp). Valid until the endpoints are closed.
  ucp_ep_h bulk_reply = nullptr;
  // The handshake on the bulk endpoint (ucx_bulk_endpoint.cpp).
  bool hello_wanted = false;  // it sent us a head frame: tend_eps() sends kBulkHello
  bool hello_sent = false;
  void* hello_op = nullptr;   // the kBulkHello in flight (counted outstanding)
  bool bulk_acked = false;    // its kBulkAck came: its end of our bulk endpoint is wired up
  bool hello_due = false;     // we sent it a head frame on `ep`: its kBulkHello will come
  void* ack_op = nullptr;     // our kBulkAck in flight (counted outstanding)
  UniqueFd pidfd;

  // Sending.
  uint64_t next_seq = 0;          // seq of the next data frame to it
  size_t inflight_bytes = 0;      // accepted by send(), request not complete
  size_t unflushed_bytes = 0;     // complete locally, no flush has covered them yet
  size_t flushing_bytes = 0;      // covered by the flush in flight
  bool flush_in_flight = false;
  bool want_flush = false;        // unsent_bytes() asked: progress() starts a flush

  // Receiving.
  uint64_t expect_seq = 0;              // seq of the next frame to deliver
  std::map<uint64_t, HeldFrame> held;   // frames not deliverable yet, by seq
  bool need_ep = false;                 // it sent to us and we have no endpoint: make one
  bool close_wanted = false;            // its endpoint failed while it checkpointed or finalized

  // Failure.
  bool lost = false;          // ep error or pidfd: to report once its frames are delivered
  bool reported = false;
  Status failure;
};

}  // namespace lz::transport::ucx
