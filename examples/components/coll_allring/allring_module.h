// coll/allring: an example collective module built out of tree with the
// Lazarus SDK. It provides only allreduce; every other function falls
// through to the next module of the stack (`--mca coll allring,basic`).
//
// Algorithm: a ring allgather of the contributions (n-1 sendrecv steps, one
// block each), then every rank reduces the n blocks itself in rank order,
// x0 op (x1 op (... op x(n-1))), so the result is the same bits on every rank
// and right for non-commutative operations. Memory: n * count elements.
#pragma once

#include "lazarus/frameworks/coll.h"

namespace allring {

class AllringModule final : public lz::coll::Module {
 public:
  AllringModule(int min_size, bool verbose) : min_size_(min_size), verbose_(verbose) {}
  // Allreduce only, on communicators of at least `min_size` ranks (the
  // same answer on every rank: it depends on the size alone).
  uint32_t enable(lz::coll::Comm& comm) override;
  lz::Status allreduce(const void* sbuf, void* rbuf, int count, const lz::coll::Datatype& dt,
                       const lz::coll::Op& op, lz::coll::Comm& comm) override;

 private:
  int min_size_;
  bool verbose_;
};

}  // namespace allring
