#include "p2p/params.h"

#include <iterator>

namespace lz::rt {
namespace {
constexpr ParamSpec kParams[] = {
    {"p2p_eager_limit", ParamType::kSize, "0",
     "Largest message (packed bytes) sent eagerly; larger ones use rendezvous. 0: each transport's own limit "
     "(its attributes; 32k for self and tcp, transport_shm_get_threshold for shm). Clamped to each transport's "
     "max_frame minus the 48-byte p2p header",
     4},
    {"p2p_spin_count", ParamType::kInt, "2000",
     "Progress turns a blocking call busy-polls, yielding the CPU after each, before it sleeps in poll() on the "
     "transports' wait fds, when this rank's CPUs are shared by more ranks than they number",
     5},
    {"p2p_spin_yield_time", ParamType::kInt, "200",
     "Microseconds the yielding busy-poll of an oversubscribed rank lasts at most (p2p_spin_count turns or this, "
     "whichever ends first; 0: no time bound). On a busy machine a yield can last a whole time slice: sleeping in "
     "poll() then wakes the rank when its message lands",
     5},
    {"p2p_spin_time", ParamType::kInt, "1000",
     "Microseconds a blocking call busy-polls before it sleeps in poll() on the transports' wait fds, when this "
     "rank's CPUs are not oversubscribed (0: sleep at once)",
     5},
    {"p2p_wait_timeout_ms", ParamType::kInt, "10",
     "Longest sleep of one blocking-wait turn, in milliseconds (1 when a transport has no wait fd or frames "
     "wait for room)",
     6},
    {"p2p_flush_timeout", ParamType::kDouble, "600",
     "Seconds MPI_Finalize waits for frames already sent to leave this process (a peer busy outside MPI may "
     "not have accepted the connection yet) before it fails naming the peer; 0: as long as the peer lives. "
     "A peer that dies ends the wait at once",
     5},
    {"osc_progress_interval", ParamType::kInt, "1000",
     "Microseconds between the turns of the one-sided progress thread, which serves this rank's windows (locks, "
     "accumulates, gets of other ranks) while the program computes outside MPI; it runs only while a window has "
     "a rank that reaches it by messages (not for windows whose ranks all load and store each other's memory "
     "within a host) and only when the program is not inside an MPI call. 0: no thread (passive-target operations then "
     "wait for the target's next MPI call)",
     5},
    {"osc_load_store", ParamType::kBool, "true",
     "Ranks on one host reach each other's MPI_Win_allocate memory by load and store (a shared segment each "
     "maps), whatever transport carries their messages; false: by messages, as from another host. "
     "MPI_Win_allocate_shared windows are always loaded and stored",
     5},
    {"osc_native_rma", ParamType::kEnum, "auto",
     "Puts and gets of contiguous data to a rank reached by messages go straight into (out of) its window memory "
     "through the transport (capabilities put and get: ucx's ucp_put_nbx / ucp_get_nbx, ofi's fi_writemsg / "
     "fi_read, shm's process_vm_writev / _readv), without the target's agent, once access is certain: in a fence "
     "or post-start-complete-wait epoch, or under a lock taken with MPI_MODE_NOCHECK. auto: where the transport "
     "does it with nothing of the target's process (shm's CMA; ucx over rc/dc; ofi providers with the NIC's RMA), "
     "not where it emulates it through the target's progress (UCX's posix, cma and tcp; ofi's shm and tcp), "
     "which costs a small operation more than a message; on: wherever the transport can; off: always messages to "
     "the target's agent. Accumulates always go to the agent (their atomicity is the agent's)",
     5, "auto|on|off"},
    {"osc_bulk_copy_threshold", ParamType::kSize, "256k",
     "Bytes from which a put or get within a host, by load and store into the target's window memory, copies "
     "with streaming stores (put) or prefetching loads (get) instead of memcpy (x86-64 with AVX2); 0: always "
     "memcpy",
     5},
    {"dpm_transport", ParamType::kList, "tcp",
     "Transports that carry messages between processes of different jobs, joined by MPI_Comm_spawn, "
     "MPI_Comm_accept/_connect or MPI_Comm_join: each such connection opens its own modules of these",
     5},
    {"dpm_timeout", ParamType::kDouble, "120",
     "Seconds MPI_Comm_accept, _connect, _join and _spawn wait for the other side (spawned processes to start "
     "and connect back) before they fail; 0: no limit",
     5},
    {"dpm_names_dir", ParamType::kString, "",
     "Directory of the names MPI_Publish_name publishes (a file per name, holding the port); every job that "
     "uses the same directory sees them. Empty: $XDG_RUNTIME_DIR/lazarus-names, else /tmp/lazarus-names-<uid>",
     6},
};
}  // namespace

Status register_p2p_params(Registry& reg) {
  return reg.register_params(kParams, std::size(kParams), "runtime/p2p");
}

}  // namespace lz::rt
