// Copies between the blocks of a decomposed C-order array: a rank's owned
// block packed (element after element, as the snapshot file holds it) and
// an allocation in memory (with halo cells, the owned block at an offset).
//
//   Box owned{start, shape};
//   pack_box(var, owned, out);                           // save: allocation -> packed owned block
//   unpack_box(var, old_block, packed, clip(...));       // load: the part of an old block in our allocation
#pragma once

#include <cstdint>
#include <vector>

#include "lazarus/frameworks/cr.h"

namespace lz::cr::app {

// A box of global indices: start[d] .. start[d] + shape[d] - 1.
struct Box {
  std::vector<int64_t> start, shape;
  bool empty() const;
  int64_t elements() const;
};

// The common part of two boxes (empty when they do not meet).
Box intersect(const Box& a, const Box& b);
// The part of the global array v's allocation covers (halo cells outside
// the global array left out).
Box allocation_box(const AppVariable& v);
Box owned_box(const AppVariable& v);

// Packs the elements of `box` (inside v's allocation) from v.addr, in C
// order, to `out` (box.elements() * v.type->size() bytes).
void pack_box(const AppVariable& v, const Box& box, char* out);
// Unpacks the elements of `part` from `block_data`, the packed elements of
// `block` (which contains `part`), into v's allocation.
void unpack_box(const AppVariable& v, const Box& block, const char* block_data, const Box& part);

}  // namespace lz::cr::app
