#include "p2p/comm.h"

#include "lazarus/datatype/datatype.h"
#include "p2p/comm_record.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "p2p/runtime.h"

lz_mpi_comm_s lz_mpi_comm_world;
lz_mpi_comm_s lz_mpi_comm_self;

namespace {

lz::Status status_of(const lz_mpi_request_s* r) {
  switch (r->st_error) {
    case MPI_SUCCESS:
      return lz::Status::Ok();
    case MPI_ERR_TRUNCATE:
      return lz::DataLoss("message truncated: " + std::to_string(r->rndv_total ? r->rndv_total : r->st_bytes) +
                          " bytes arrived for a receive of " + std::to_string(r->bytes) + " bytes");
    case MPI_ERR_PROC_FAILED:
      return lz::Status(lz::Code::kAborted, "peer rank " + std::to_string(r->world_peer) + " failed");
    default:
      return lz::Internal("point-to-point error " + std::to_string(r->st_error));
  }
}

lz::Status check_rank(const lz_mpi_comm_s& c, int r, bool recv) {
  if (r == MPI_PROC_NULL || (r >= 0 && r < c.peer_size()) || (recv && r == MPI_ANY_SOURCE)) return lz::Status::Ok();
  return lz::InvalidArgument("invalid rank " + std::to_string(r) + " (" +
                             (c.is_inter() ? "remote group size " : "communicator size ") +
                             std::to_string(c.peer_size()) + ")");
}

lz_mpi_request_s* make(lz_mpi_comm_s* c, lz_mpi_request_s::Kind kind, const void* buf, int count,
                       const lz::dt::Datatype& dt, int peer, int tag) {
  lz_mpi_request_s* r = lz::rt::request_pool().get();
  r->kind = kind;
  r->buf = const_cast<void*>(buf);
  r->count = count;
  r->dt = &dt;
  const_cast<lz::dt::Datatype&>(dt).retain();
  r->comm = c;
  r->peer = peer;
  r->tag = tag;
  r->context = c->coll_context();
  return r;
}

// One application thread at a time sets communicators up (the MPI entry).
int g_unreplayable_alive = 0;

}  // namespace

int lz_mpi_comm_s::unreplayable_alive() { return g_unreplayable_alive; }

void lz_mpi_comm_s::mark_replayable() {
  if (replayable_ || predefined_) return;
  replayable_ = true;
  --g_unreplayable_alive;
  if (lz::rt::CommRecord::instance().recording()) lz::rt::CommRecord::instance().count_unrecorded(-1);
}

void lz_mpi_comm_s::setup(std::vector<int> world_ranks, int my_rank, uint32_t context, bool predefined) {
  world_ranks_ = std::move(world_ranks);
  size_ = static_cast<int>(world_ranks_.size());
  rank_ = my_rank;
  context_ = context;
  predefined_ = predefined;
  replayable_ = false;
  if (!predefined) {
    ++g_unreplayable_alive;
    if (lz::rt::CommRecord::instance().recording()) lz::rt::CommRecord::instance().count_unrecorded(1);
  }
  inter_ = false;
  remote_world_ranks_.clear();
  magic_ = kMagic;
  coll_table.fill(nullptr);
  coll_enabled.clear();
  auto& eng = lz::rt::runtime().engine();
  p2p_queue = eng.queue(context);
  coll_queue = eng.queue(context + 1);
}

void lz_mpi_comm_s::setup_inter(std::vector<int> local, int my_rank, std::vector<int> remote, uint32_t context) {
  setup(std::move(local), my_rank, context, false);
  inter_ = true;
  remote_world_ranks_ = std::move(remote);
}

void lz_mpi_comm_s::teardown() {
  if (valid() && !predefined_ && !replayable_) --g_unreplayable_alive;
  replayable_ = false;
  // Modules first: they may look at the communicator while releasing their
  // per-communicator state.
  for (auto it = coll_enabled.rbegin(); it != coll_enabled.rend(); ++it) (*it)->disable(*this);
  coll_enabled.clear();
  if (auto* rt = lz::rt::runtime_if_any()) {
    rt->engine().release_queue(context_);
    rt->engine().release_queue(context_ + 1);
  }
  p2p_queue = coll_queue = nullptr;
  coll_table.fill(nullptr);
  world_ranks_.clear();
  remote_world_ranks_.clear();
  inter_ = false;
  magic_ = 0;
  size_ = 0;
  rank_ = -1;
}

lz::Status lz_mpi_comm_s::send(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag) {
  LZ_RETURN_IF_ERROR(check_rank(*this, dst, false));
  bool done = false;
  lz::Status s = lz::rt::runtime().engine().send_now(this, dst, tag, coll_context(), buf, count, &dt, &done);
  if (done) return s;
  LZ_ASSIGN_OR_RETURN(lz::coll::Request * r, isend(buf, count, dt, dst, tag));
  return waitall(1, &r);
}

lz::Status lz_mpi_comm_s::recv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag) {
  LZ_ASSIGN_OR_RETURN(lz::coll::Request * r, irecv(buf, count, dt, src, tag));
  return waitall(1, &r);
}

lz::Status lz_mpi_comm_s::sendrecv(const void* sbuf, int scount, const lz::dt::Datatype& sdt, int dst, int stag,
                                   void* rbuf, int rcount, const lz::dt::Datatype& rdt, int src, int rtag) {
  lz::coll::Request* reqs[2];
  LZ_ASSIGN_OR_RETURN(reqs[0], irecv(rbuf, rcount, rdt, src, rtag));
  // An eager send that can go at once needs no request (Engine::send_now).
  lz::Status now = check_rank(*this, dst, false);
  bool done = false;
  if (now.ok()) now = lz::rt::runtime().engine().send_now(this, dst, stag, coll_context(), sbuf, scount, &sdt, &done);
  if (!now.ok() || done) {
    lz::Status r = waitall(1, reqs);
    return now.ok() ? r : now;
  }
  auto s = isend(sbuf, scount, sdt, dst, stag);
  if (!s.ok()) {
    waitall(1, reqs).ignore();
    return s.status();
  }
  reqs[1] = *s;
  return waitall(2, reqs);
}

lz::StatusOr<lz::coll::Request*> lz_mpi_comm_s::isend(const void* buf, int count, const lz::dt::Datatype& dt, int dst,
                                                      int tag) {
  LZ_RETURN_IF_ERROR(check_rank(*this, dst, false));
  lz_mpi_request_s* r = make(this, lz_mpi_request_s::Kind::kSend, buf, count, dt, dst, tag);
  lz::Status s = lz::rt::runtime().engine().start_send(r);
  if (!s.ok()) {
    lz::rt::request_pool().put(r);
    return s;
  }
  return static_cast<lz::coll::Request*>(r);
}

lz::StatusOr<lz::coll::Request*> lz_mpi_comm_s::irecv(void* buf, int count, const lz::dt::Datatype& dt, int src,
                                                      int tag) {
  LZ_RETURN_IF_ERROR(check_rank(*this, src, true));
  lz_mpi_request_s* r = make(this, lz_mpi_request_s::Kind::kRecv, buf, count, dt, src, tag);
  lz::Status s = lz::rt::runtime().engine().start_recv(r);
  if (!s.ok()) {
    lz::rt::request_pool().put(r);
    return s;
  }
  return static_cast<lz::coll::Request*>(r);
}

lz::Status lz_mpi_comm_s::waitall(int n, lz::coll::Request** creqs) {
  // Every request handed out by isend/irecv is an engine request.
  auto req = [creqs](int i) { return static_cast<lz_mpi_request_s*>(creqs[i]); };
  auto& eng = lz::rt::runtime().engine();
  eng.wait_until([&] {
    for (int i = 0; i < n; ++i)
      if (creqs[i] != nullptr && !req(i)->complete) return false;
    return true;
  });
  lz::Status first;
  for (int i = 0; i < n; ++i) {
    if (creqs[i] == nullptr) continue;
    if (first.ok()) first = status_of(req(i));
    lz::rt::request_pool().put(req(i));
    creqs[i] = nullptr;
  }
  return first;
}
