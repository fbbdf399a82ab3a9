#include "p2p/request.h"

#include <cstdlib>
#include <new>
#include <type_traits>

#include "lazarus/datatype/datatype.h"
#include "p2p/bsend_buffer.h"

void lz_mpi_request_s::reset() {
  // Built in place: `*this = lz_mpi_request_s()` zeroed a temporary with
  // `rep stos` and copied it over with 16-byte loads of those 8-byte stores
  // (store-forwarding stalls), on every request the pool hands out. The
  // request is trivially destructible, so no destructor call is needed.
  static_assert(std::is_trivially_destructible_v<lz_mpi_request_s>);
  ::new (static_cast<void*>(this)) lz_mpi_request_s();
  magic = kMagic;
}

void lz_mpi_request_s::fill_status(MPI_Status* st) const {
  if (st == nullptr) return;
  st->MPI_SOURCE = st_source;
  st->MPI_TAG = st_tag;
  st->lz_cancelled = st_cancelled ? 1 : 0;
  st->lz_bytes = static_cast<long long>(st_bytes);
}

void lz_mpi_request_s::free_tmp() {
  if (tmp == nullptr) return;
  if (tmp_is_bsend) lz::rt::bsend_buffer().release(tmp);
  else std::free(tmp);
  tmp = nullptr;
  tmp_is_bsend = false;
}

namespace lz::rt {

static_assert(std::is_trivially_destructible_v<RequestPool>);
constinit RequestPool g_request_pool;

Request* RequestPool::get() {
  Request* r = free_;
  if (r != nullptr) {
    free_ = r->next;
    --free_count_;
  } else {
    r = new Request();
  }
  r->reset();
  return r;
}

void RequestPool::release_owned(Request* r) {
  if (r->bsend_xfer != nullptr) {  // its transfer outlives it: no longer linked
    r->bsend_xfer->bsend_owner = nullptr;
    r->bsend_xfer = nullptr;
  }
  r->free_tmp();
  lz::dt::Datatype::release(r->dt);
}

}  // namespace lz::rt
