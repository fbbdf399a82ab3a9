// coll/basic barrier: fan-in to rank 0, fan-out from it.
#include "coll_basic.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll {

Status BasicModule::barrier(Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (n == 1) return Status::Ok();
  const Datatype& byte = dt::byte_type();
  if (me != 0) {
    LZ_RETURN_IF_ERROR(comm.send(nullptr, 0, byte, 0, basic_tag::kBarrier));
    return comm.recv(nullptr, 0, byte, 0, basic_tag::kBarrier);
  }
  base::Requests in(comm);
  for (int r = 1; r < n; ++r) in.add(comm.irecv(nullptr, 0, byte, r, basic_tag::kBarrier));
  LZ_RETURN_IF_ERROR(in.wait());
  base::Requests out(comm);
  for (int r = 1; r < n; ++r) out.add(comm.isend(nullptr, 0, byte, r, basic_tag::kBarrier));
  return out.wait();
}

}  // namespace lz::coll
