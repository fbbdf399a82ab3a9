// A collective's temporary vector: `count` elements of a datatype laid out as
// in user memory (data() is shifted by -true_lb, as dt::TypedBuffer's), but
// NOT zeroed, and held inline when small. An algorithm that receives into its
// temporary before reading it needs neither the zeroing nor, for a few
// elements, a heap allocation: both were a visible part of an allreduce
// (zeroing 2 MiB costs about as much as sending it through shared memory).
//
//   base::Scratch tmp(count, dt);
//   LZ_RETURN_IF_ERROR(comm.sendrecv(rbuf, count, dt, peer, kTag, tmp.data(), count, dt, peer, kTag));
//   op.apply(tmp.data(), rbuf, count, dt);
#pragma once

#include <cstddef>
#include <memory>

#include "lazarus/datatype/datatype.h"
#include "lazarus/frameworks/coll.h"

namespace lz::coll::base {

class Scratch {
 public:
  Scratch(int count, const Datatype& dt) {
    const ptrdiff_t extent = dt.extent();
    const size_t bytes = count > 0 ? static_cast<size_t>((count - 1) * extent + dt.true_extent()) : 0;
    char* p = inline_;
    if (bytes > sizeof inline_) {
      heap_.reset(new char[bytes]);
      p = heap_.get();
    }
    base_ = p - dt.true_lb();
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* data() { return base_; }

 private:
  alignas(64) char inline_[256];
  std::unique_ptr<char[]> heap_;
  void* base_ = nullptr;
};

}  // namespace lz::coll::base
