// Typed copy between two buffers of possibly different datatypes.
#include "lazarus/datatype/copy.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace lz::dt {

void copy(const void* src, int scount, const Datatype& sdt, void* dst, int rcount, const Datatype& rdt) {
  size_t n = std::min(sdt.size() * static_cast<size_t>(std::max(scount, 0)),
                      rdt.size() * static_cast<size_t>(std::max(rcount, 0)));
  if (n == 0) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (sdt.is_contiguous() && rdt.is_contiguous()) {
    std::memmove(d + rdt.true_lb(), s + sdt.true_lb(), n);
  } else if (sdt.is_contiguous()) {
    rdt.unpack(s + sdt.true_lb(), n, rcount, d);
  } else if (rdt.is_contiguous()) {
    sdt.pack_range(s, scount, 0, n, d + rdt.true_lb());
  } else {
    std::vector<char> tmp(n);
    sdt.pack_range(s, scount, 0, n, tmp.data());
    rdt.unpack(tmp.data(), n, rcount, d);
  }
}

}  // namespace lz::dt
