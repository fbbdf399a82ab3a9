#include "block_copy.h"

#include <algorithm>

#include "lazarus/datatype/datatype.h"

namespace lz::cr::app {
namespace {

// Linear index of global point g in an array of `shape` whose first element
// is global point `origin`.
int64_t linear(const std::vector<int64_t>& g, const std::vector<int64_t>& origin, const std::vector<int64_t>& shape) {
  int64_t idx = 0;
  for (size_t d = 0; d < shape.size(); ++d) idx = idx * shape[d] + (g[d] - origin[d]);
  return idx;
}

// Calls f(first point of the row) for every row (last dimension) of `box`.
template <typename F>
void for_each_row(const Box& box, F f) {
  if (box.empty()) return;
  const size_t n = box.shape.size();
  std::vector<int64_t> g = box.start;
  for (;;) {
    f(g);
    // Next row: advance the dimensions before the last one, odometer-style.
    size_t d = n - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++g[d] < box.start[d] + box.shape[d]) break;
      g[d] = box.start[d];
    }
  }
}

std::vector<int64_t> alloc_origin(const AppVariable& v) {
  std::vector<int64_t> o(v.global_shape.size());
  for (size_t d = 0; d < o.size(); ++d) o[d] = v.owned_start[d] - v.alloc_offset[d];
  return o;
}

}  // namespace

bool Box::empty() const {
  if (shape.empty()) return true;
  for (int64_t s : shape)
    if (s <= 0) return true;
  return false;
}

int64_t Box::elements() const {
  if (empty()) return 0;
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Box intersect(const Box& a, const Box& b) {
  Box r;
  for (size_t d = 0; d < a.start.size() && d < b.start.size(); ++d) {
    const int64_t lo = std::max(a.start[d], b.start[d]);
    const int64_t hi = std::min(a.start[d] + a.shape[d], b.start[d] + b.shape[d]);
    r.start.push_back(lo);
    r.shape.push_back(std::max<int64_t>(0, hi - lo));
  }
  return r;
}

Box allocation_box(const AppVariable& v) {
  Box alloc{alloc_origin(v), v.alloc_shape};
  Box whole{std::vector<int64_t>(v.global_shape.size(), 0), v.global_shape};
  return intersect(alloc, whole);
}

Box owned_box(const AppVariable& v) { return Box{v.owned_start, v.owned_shape}; }

void pack_box(const AppVariable& v, const Box& box, char* out) {
  const std::vector<int64_t> origin = alloc_origin(v);
  const ptrdiff_t extent = v.type->extent();
  const size_t size = v.type->size();
  const int64_t row = box.shape.back();
  for_each_row(box, [&](const std::vector<int64_t>& g) {
    const int64_t at = linear(g, origin, v.alloc_shape);
    v.type->pack(static_cast<const char*>(v.addr) + at * extent, static_cast<int>(row), out);
    out += row * static_cast<int64_t>(size);
  });
}

void unpack_box(const AppVariable& v, const Box& block, const char* block_data, const Box& part) {
  const std::vector<int64_t> origin = alloc_origin(v);
  const ptrdiff_t extent = v.type->extent();
  const size_t size = v.type->size();
  const int64_t row = part.shape.back();
  for_each_row(part, [&](const std::vector<int64_t>& g) {
    const int64_t from = linear(g, block.start, block.shape);
    const int64_t to = linear(g, origin, v.alloc_shape);
    v.type->unpack(block_data + from * static_cast<int64_t>(size), static_cast<size_t>(row) * size,
                   static_cast<int>(row), static_cast<char*>(v.addr) + to * extent);
  });
}

}  // namespace lz::cr::app
