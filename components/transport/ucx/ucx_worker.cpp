#include "ucx_worker.h"

#include <cstdlib>
#include <vector>

#include "lazarus/log.h"
#include "lazarus/strings.h"
#include "ucx_library.h"

namespace lz::transport::ucx {
namespace {

Status ucx_error(const char* call, ucs_status_t st) {
  return Unavailable(std::string("ucx: ") + call + " failed: " + ucs_status_string(st));
}

}  // namespace

Status UcxWorker::open(const Options& o) {
  if (worker_ != nullptr) return Internal("ucx: worker opened twice");
  keep_memory_hooks_off();

  ucp_config_t* config = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) return ucx_error("ucp_config_read", st);
  // Shared memory (posix) offers peer-failure handling only when asked; UCP
  // refuses a transport without it for an endpoint in
  // UCP_ERR_HANDLING_MODE_PEER, so without this a job on one host would fall
  // back to tcp. (Its keepalive notices a dead peer after 20 s; our pidfds
  // do it at once, see ucx_liveness.cpp.) Names UCP does not know are cached
  // and set on every UCT interface config, matched against the config
  // table's own field names: the environment's UCX_POSIX_ERROR_HANDLING
  // (component prefix POSIX_) is the field ERROR_HANDLING of the sub-table
  // MM_ that posix and sysv share, so the name here is MM_ERROR_HANDLING
  // ("POSIX_ERROR_HANDLING" matches nothing and UCX warns it is unused).
  // Set only when the list may hold posix or sysv: an unused name makes UCX
  // warn at every worker creation.
  std::vector<std::pair<const char*, const char*>> settings = {{"TLS", o.tls.c_str()}};
  bool may_use_mm = !o.tls.empty() && o.tls[0] == '^';
  for (const char* mm : {"posix", "sysv", "sm", "shm", "mm", "all"})
    for (const std::string& item : str::split(o.tls, ','))
      may_use_mm = may_use_mm || item == mm || item == std::string(mm) + ":aux";
  if (may_use_mm) settings.push_back({"MM_ERROR_HANDLING", "y"});
  // Larger shared-memory FIFO elements: a frame fits one (UCX's short
  // protocol, written in place) only below the element's size, and ours
  // carry 80 bytes of headers (UCP's, ucx_frame.h's and the engine's) where
  // Open MPI's pml ucx sends 8. With UCX's 128 a 64-byte message already
  // took the copy through a separate descriptor. 0/64/512/900-byte
  // ping-pongs over posix, bound, 128 against 1024: 0.16/0.23/0.26/0.29 us
  // against 0.16/0.17/0.20/0.23; 4 and 32 KiB alike. The FIFO grows from
  // 8 to 64 KiB a rank. A user's setting wins.
  if (may_use_mm && std::getenv("UCX_POSIX_FIFO_ELEM_SIZE") == nullptr &&
      std::getenv("UCX_SYSV_FIFO_ELEM_SIZE") == nullptr && std::getenv("UCX_MM_FIFO_ELEM_SIZE") == nullptr)
    settings.push_back({"MM_FIFO_ELEM_SIZE", "1024"});
  // Copy-out buffers that hold an eager frame whole (the engine's eager
  // limit, 32 KiB, and our 80 bytes of headers): with UCX's 8256 bytes a
  // 16 or 32 KiB message went as UCP fragments, reassembled in a buffer of
  // UCP's before we copied it out. 16 and 32 KiB ping-pongs over posix,
  // bound: 0.80 and 1.24 us against 1.25 and 1.58 (Open MPI 0.62 and 0.93).
  // A rank's receive buffers grow from about 0.5 to 2 MiB. It must stay
  // below 64 KiB: UCX 1.13 keeps a descriptor's length in 16 bits, and with
  // UCX_POSIX_SEG_SIZE=66000 64 and 128 KiB ping-pongs hung. A user's
  // setting wins.
  if (may_use_mm && std::getenv("UCX_POSIX_SEG_SIZE") == nullptr && std::getenv("UCX_SYSV_SEG_SIZE") == nullptr &&
      std::getenv("UCX_MM_SEG_SIZE") == nullptr)
    settings.push_back({"MM_SEG_SIZE", "33792"});
  // No UCX rendezvous under our frames: they are at most max_frame, and the
  // engine above runs its own rendezvous (RTS/CTS) for large messages. UCX's
  // adds a round trip per frame, and a message of several frames stalled on
  // it: 1 MiB ping-pongs over posix+cma took 1.3-1.7 ms with it and 42 us
  // without, 4 MiB 5.2 ms and 3.4 ms (shm: 0.12 and 1.2 ms). A user's
  // UCX_RNDV_THRESH still wins, and the receive side handles rendezvous
  // frames (ucx_progress.cpp).
  if (std::getenv("UCX_RNDV_THRESH") == nullptr) settings.push_back({"RNDV_THRESH", "inf"});
  // The keepalive's turn in every ucp_worker_progress() costs a shared-memory
  // ping-pong more than the checks it makes: 0-byte ping-pongs over posix,
  // bound, raw UCP (UCP_ERR_HANDLING_MODE_PEER): 0.10 us without it against
  // 0.11 with it (see the commit). A user's setting wins.
  if (!o.keepalive && std::getenv("UCX_KEEPALIVE_INTERVAL") == nullptr)
    settings.push_back({"KEEPALIVE_INTERVAL", "inf"});
  for (const auto& [k, v] : settings) {
    st = ucp_config_modify(config, k, v);
    if (st != UCS_OK) {
      ucp_config_release(config);
      return InvalidArgument(std::string("ucx: UCX refuses ") + k + "=" + v + ": " + ucs_status_string(st));
    }
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
  // RMA: the engine's rendezvous reads a sender's buffer with ucp_get_nbx
  // (cma on a host; UCP emulates it over active messages where a transport
  // has no get of its own, tcp here).
  params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP | UCP_FEATURE_RMA;
  params.mt_workers_shared = 0;
  params.name = o.name.c_str();
  st = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (st != UCS_OK) {
    context_ = nullptr;
    return Unavailable("ucx: ucp_init with UCX_TLS=" + o.tls + " failed: " + ucs_status_string(st) +
                       " (UCX finds: " + tl_summary() + ")");
  }

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE | UCP_WORKER_PARAM_FIELD_NAME;
  // One thread at a time (transport.h); the MPI entry lock orders the CR
  // thread's calls after the application thread's.
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  wp.name = o.name.c_str();
  st = ucp_worker_create(context_, &wp, &worker_);
  if (st != UCS_OK) {
    worker_ = nullptr;
    close();
    return ucx_error("ucp_worker_create", st);
  }

  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                  UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = kAmId;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.cb = o.on_am;
  hp.arg = o.am_arg;
  st = ucp_worker_set_am_recv_handler(worker_, &hp);
  if (st == UCS_OK) st = ucp_worker_get_efd(worker_, &efd_);
  if (st != UCS_OK) {
    close();
    return ucx_error("ucp_worker_set_am_recv_handler/ucp_worker_get_efd", st);
  }

  ucp_address_t* addr = nullptr;
  size_t len = 0;
  st = ucp_worker_get_address(worker_, &addr, &len);
  if (st != UCS_OK) {
    close();
    return ucx_error("ucp_worker_get_address", st);
  }
  address_.assign(reinterpret_cast<const char*>(addr), len);
  ucp_worker_release_address(worker_, addr);

  return Status::Ok();
}

void UcxWorker::close() {
  if (worker_ != nullptr) ucp_worker_destroy(worker_);
  worker_ = nullptr;
  efd_ = -1;
  address_.clear();
  if (context_ != nullptr) ucp_cleanup(context_);
  context_ = nullptr;
}

}  // namespace lz::transport::ucx
