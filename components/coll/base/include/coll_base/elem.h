// Element addressing in a typed buffer: where element i of a buffer of
// datatype elements starts (the displacement arithmetic of every v-collective).
//
//   reqs.add(comm.irecv(lz::coll::base::elem(rbuf, displs[r], rdt), rcounts[r], rdt, r, kTag));
#pragma once

#include <cstddef>

#include "lazarus/datatype/datatype.h"

namespace lz::coll::base {

// Address of element `i` of a buffer of `dt` elements (buf + i * extent).
inline void* elem(void* buf, ptrdiff_t i, const dt::Datatype& dt) {
  return static_cast<char*>(buf) + i * dt.extent();
}
inline const void* elem(const void* buf, ptrdiff_t i, const dt::Datatype& dt) {
  return static_cast<const char*>(buf) + i * dt.extent();
}

}  // namespace lz::coll::base
