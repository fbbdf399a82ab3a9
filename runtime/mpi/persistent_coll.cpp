#include "mpi/persistent_coll.h"

#include "mpi/errors.h"
#include "p2p/comm.h"
#include "p2p/engine.h"
#include "p2p/nbc_algorithms.h"
#include "p2p/runtime.h"

namespace lz::rt {

thread_local StartTarget g_start_target;

PersistentColl::~PersistentColl() {
  for (MPI_Datatype t : types) dt::Datatype::release(t);
  for (MPI_Op o : ops) dt::Op::release(o);
}

namespace persistent_coll {

int make(const char* fn, MPI_Comm comm, MPI_Request* request, std::initializer_list<MPI_Datatype> types,
         std::initializer_list<MPI_Op> ops, std::function<int(MPI_Request*)> start) {
  if (request == nullptr) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "request is NULL");
  *request = MPI_REQUEST_NULL;
  MPI_Request unused = MPI_REQUEST_NULL;
  int err, tag;
  {
    NbcFixedTag draw(0);
    g_start_target = {nullptr, true};
    err = start(&unused);  // the non-blocking call's checks, reported by it
    g_start_target = {};
    tag = NbcFixedTag::drawn();
  }
  if (err != MPI_SUCCESS) return err;
  auto* pc = new PersistentColl{std::move(start), {}, {}, tag};
  for (MPI_Datatype t : types)
    if (t != MPI_DATATYPE_NULL) {
      t->retain();
      pc->types.push_back(t);
    }
  for (MPI_Op o : ops)
    if (o != MPI_OP_NULL) {
      o->retain();
      pc->ops.push_back(o);
    }
  Request* r = request_pool().get();
  r->kind = Request::Kind::kColl;
  r->persistent = true;
  r->comm = comm;
  r->context = comm->coll_context();
  r->persistent_coll = pc;
  *request = r;
  return MPI_SUCCESS;
}

int start(Request* r) {
  MPI_Request out = MPI_REQUEST_NULL;
  NbcFixedTag same(r->persistent_coll->tag);
  g_start_target = {r, false};
  const int err = r->persistent_coll->start(&out);
  g_start_target = {};
  return err;
}

int free(Request* r) {
  if (r->active)
    return mpi_error(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                     "the persistent collective request is active (complete it first)");
  delete r->persistent_coll;
  r->persistent_coll = nullptr;
  request_pool().put(r);
  return MPI_SUCCESS;
}

}  // namespace persistent_coll
}  // namespace lz::rt
