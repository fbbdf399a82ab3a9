#include "bootstrap/pmix/pmix_bootstrap.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "lazarus/auth.h"
#include "lazarus/log.h"

namespace lz::rt {
namespace {

Status pmix_error(const std::string& what, pmix_status_t rc) {
  return Unavailable("PMIx: " + what + ": " + PMIx_Error_string(rc));
}

// An integer of any of the widths servers answer with (Slurm and PRRTE
// differ); -1 if the value is no integer.
long long as_integer(const pmix_value_t* v) {
  switch (v->type) {
    case PMIX_UINT32:
      return v->data.uint32;
    case PMIX_UINT16:
      return v->data.uint16;
    case PMIX_UINT64:
      return static_cast<long long>(v->data.uint64);
    case PMIX_INT:
      return v->data.integer;
    case PMIX_PROC_RANK:
      return v->data.rank;
    default:
      return -1;
  }
}

}  // namespace

StatusOr<std::unique_ptr<PmixBootstrap>> PmixBootstrap::init() {
  std::unique_ptr<PmixBootstrap> b(new PmixBootstrap());
  if (pmix_status_t rc = PMIx_Init(&b->me_, nullptr, 0); rc != PMIX_SUCCESS)
    return pmix_error("PMIx_Init (PMIX_NAMESPACE is set, but its server does not answer)", rc);
  b->initialized_ = true;
  JobInfo& job = b->job_;
  job.rank = static_cast<int>(b->me_.rank);
  LZ_ASSIGN_OR_RETURN(pmix_value_t * size, b->fetch(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE));
  job.size = static_cast<int>(as_integer(size));
  release(size);
  if (job.size < 1 || job.rank < 0 || job.rank >= job.size)
    return DataLoss("PMIx: rank " + std::to_string(job.rank) + " of a job of size " + std::to_string(job.size));
  job.name_job("pmix-", b->me_.nspace);

  // Every rank's host, and node ids in the order hosts first appear.
  std::map<std::string, uint64_t> node_of_host;
  for (int r = 0; r < job.size; ++r) {
    LZ_ASSIGN_OR_RETURN(pmix_value_t * h, b->fetch(static_cast<pmix_rank_t>(r), PMIX_HOSTNAME));
    std::string host = h->type == PMIX_STRING && h->data.string != nullptr ? h->data.string : "";
    release(h);
    if (host.empty()) return DataLoss("PMIx: rank " + std::to_string(r) + " has no host name");
    auto [it, fresh] = node_of_host.emplace(host, node_of_host.size());
    (void)fresh;
    job.node_of_rank.push_back(it->second);
    job.hostname_of_rank.push_back(std::move(host));
  }
  job.hostname = job.hostname_of_rank[static_cast<size_t>(job.rank)];
  job.place_on_nodes();

  if (job.rank == 0) LZ_RETURN_IF_ERROR(b->put("lz.secret", auth::new_secret()));
  LZ_RETURN_IF_ERROR(b->fence());
  LZ_ASSIGN_OR_RETURN(b->secret_, b->get(0, "lz.secret"));
  log::set_identity("lazarus[rank " + std::to_string(job.rank) + "]");
  return b;
}

PmixBootstrap::~PmixBootstrap() {
  if (initialized_ && !finalized_) PMIx_Finalize(nullptr, 0);
}

StatusOr<pmix_value_t*> PmixBootstrap::fetch(pmix_rank_t rank, const char* key) const {
  pmix_proc_t p{};
  std::memcpy(p.nspace, me_.nspace, sizeof p.nspace);
  p.rank = rank;
  pmix_value_t* v = nullptr;
  pmix_status_t rc = PMIx_Get(&p, key, nullptr, 0, &v);
  if (rc == PMIX_ERR_NOT_FOUND) {
    const std::string who = rank == PMIX_RANK_WILDCARD ? "the job" : "rank " + std::to_string(rank);
    return NotFound("PMIx: " + who + " has no '" + key + "'");
  }
  if (rc != PMIX_SUCCESS || v == nullptr) return pmix_error(std::string("PMIx_Get of '") + key + "'", rc);
  return v;
}

void PmixBootstrap::release(pmix_value_t* v) {
  PMIx_Value_destruct(v);
  std::free(v);
}

Status PmixBootstrap::put(std::string_view key, std::string_view value) {
  pmix_value_t v{};
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = const_cast<char*>(value.data());
  v.data.bo.size = value.size();
  const std::string k(key);
  if (pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v); rc != PMIX_SUCCESS)
    return pmix_error("PMIx_Put of '" + k + "'", rc);
  return Status::Ok();
}

namespace {
struct FenceDone {
  std::atomic<bool> done{false};
  pmix_status_t status = PMIX_SUCCESS;
  int wake = -1;  // write end of the pipe the waiter polls
};
void fence_done(pmix_status_t status, void* cbdata) {
  auto* d = static_cast<FenceDone*>(cbdata);
  d->status = status;
  const char c = 1;
  (void)!::write(d->wake, &c, 1);  // before done: the waiter closes the pipe once done
  d->done.store(true, std::memory_order_release);
}
}  // namespace

Status PmixBootstrap::fence_with(bool collect) {
  if (collect) {
    if (pmix_status_t rc = PMIx_Commit(); rc != PMIX_SUCCESS) return pmix_error("PMIx_Commit", rc);
  }
  pmix_info_t info{};
  std::strncpy(info.key, PMIX_COLLECT_DATA, PMIX_MAX_KEYLEN);
  info.value.type = PMIX_BOOL;
  info.value.data.flag = collect;
  int pipe_fd[2];
  if (::pipe2(pipe_fd, O_CLOEXEC | O_NONBLOCK) != 0) return ErrnoError("PMIx fence: pipe", errno);
  FenceDone d;
  d.wake = pipe_fd[1];
  pmix_status_t rc = PMIx_Fence_nb(nullptr, 0, &info, 1, fence_done, &d);
  if (rc == PMIX_SUCCESS) {
    while (!d.done.load(std::memory_order_acquire)) {
      if (reply_wait_) {
        reply_wait_(pipe_fd[0]);
      } else {
        pollfd p{pipe_fd[0], POLLIN, 0};
        ::poll(&p, 1, 100);
      }
    }
    rc = d.status;
  } else if (rc == PMIX_OPERATION_SUCCEEDED) {
    rc = PMIX_SUCCESS;
  }
  ::close(pipe_fd[0]);
  ::close(pipe_fd[1]);
  return rc == PMIX_SUCCESS ? Status::Ok() : pmix_error("PMIx_Fence", rc);
}

StatusOr<std::string> PmixBootstrap::get(int rank, std::string_view key) const {
  if (rank < 0 || rank >= job_.size)
    return InvalidArgument("modex get: rank " + std::to_string(rank) + " outside a job of size " +
                           std::to_string(job_.size));
  const std::string k(key);
  auto v = fetch(static_cast<pmix_rank_t>(rank), k.c_str());
  if (!v.ok()) {
    if (v.status().code() == Code::kNotFound)
      return NotFound("modex: rank " + std::to_string(rank) + " published no '" + k + "'");
    return v.status();
  }
  const bool bytes = (*v)->type == PMIX_BYTE_OBJECT;
  std::string out = bytes ? std::string((*v)->data.bo.bytes, (*v)->data.bo.size) : std::string();
  release(*v);
  if (!bytes) return DataLoss("PMIx: rank " + std::to_string(rank) + "'s '" + k + "' is not bytes");
  return out;
}

Status PmixBootstrap::abort(int code, std::string_view reason) {
  const std::string msg(reason);
  log::error("rank %d aborted the job with code %d: %s", job_.rank, code, msg.c_str());
  pmix_status_t rc = PMIx_Abort(code, msg.c_str(), nullptr, 0);
  return rc == PMIX_SUCCESS ? Status::Ok() : pmix_error("PMIx_Abort", rc);
}

Status PmixBootstrap::finalize() {
  if (finalized_ || !initialized_) return Status::Ok();
  finalized_ = true;
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  return rc == PMIX_SUCCESS ? Status::Ok() : pmix_error("PMIx_Finalize", rc);
}

}  // namespace lz::rt

// The companion's entry point: a bootstrap, or null with *error set.
extern "C" __attribute__((visibility("default"))) lz::rt::Bootstrap* lz_pmix_bootstrap(lz::Status* error) {
  auto b = lz::rt::PmixBootstrap::init();
  if (!b.ok()) {
    *error = b.status();
    return nullptr;
  }
  return b->release();
}
