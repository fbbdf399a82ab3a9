// coll/basic scan and exscan: a chain through the ranks in order; rank r
// receives x0 op ... op x(r-1) from r-1 and passes its own prefix on.
#include "coll_basic.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll {

using dt::TypedBuffer;

Status BasicModule::scan(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  if (!is_in_place(sbuf)) dt::copy(sbuf, count, dt, rbuf, count, dt);
  if (me > 0) {
    TypedBuffer prefix(count, dt);
    LZ_RETURN_IF_ERROR(comm.recv(prefix.data(), count, dt, me - 1, basic_tag::kScan));
    op.apply(prefix.data(), rbuf, count, dt);  // rbuf = prefix op own
  }
  if (me < n - 1) return comm.send(rbuf, count, dt, me + 1, basic_tag::kScan);
  return Status::Ok();
}

Status BasicModule::exscan(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0 || n == 1) return Status::Ok();
  // With MPI_IN_PLACE the input is in rbuf, which the prefix overwrites.
  TypedBuffer own(count, dt);
  dt::copy(is_in_place(sbuf) ? rbuf : sbuf, count, dt, own.data(), count, dt);
  if (me == 0) return comm.send(own.data(), count, dt, 1, basic_tag::kExscan);  // rbuf is undefined on 0
  LZ_RETURN_IF_ERROR(comm.recv(rbuf, count, dt, me - 1, basic_tag::kExscan));
  if (me == n - 1) return Status::Ok();
  op.apply(rbuf, own.data(), count, dt);  // own = prefix op own
  return comm.send(own.data(), count, dt, me + 1, basic_tag::kExscan);
}

}  // namespace lz::coll
