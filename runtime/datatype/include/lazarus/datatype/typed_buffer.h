// A scratch buffer holding `count` elements of a datatype laid out as in user
// memory, so that it can be passed to point-to-point calls and reduction ops
// together with that datatype (collective algorithms keep their temporaries
// in these).
//
//   lz::dt::TypedBuffer tmp(count, dt);
//   LZ_RETURN_IF_ERROR(comm.recv(tmp.data(), count, dt, src, kTag));
//   op.apply(tmp.data(), rbuf, count, dt);   // rbuf = tmp op rbuf
#pragma once

#include <cstddef>
#include <vector>

#include "lazarus/datatype/datatype.h"

namespace lz::dt {

// Allocates count*extent (+ true-extent slack) bytes, zeroed; data() is the
// address to pass as the buffer, i.e. already shifted by -true_lb. Owns its
// storage; not copyable (a copy would keep pointing into the original).
class TypedBuffer {
 public:
  TypedBuffer() = default;
  TypedBuffer(int count, const Datatype& dt) { reset(count, dt); }
  TypedBuffer(const TypedBuffer&) = delete;
  TypedBuffer& operator=(const TypedBuffer&) = delete;
  // Drops the old contents and allocates for `count` elements of `dt`.
  void reset(int count, const Datatype& dt);
  // The buffer address for `dt` (null until reset() or the sizing constructor).
  void* data() { return base_; }
  // Address of element i.
  void* at(int i) { return static_cast<char*>(base_) + static_cast<ptrdiff_t>(i) * extent_; }

 private:
  std::vector<char> storage_;
  void* base_ = nullptr;
  ptrdiff_t extent_ = 0;
};

}  // namespace lz::dt
