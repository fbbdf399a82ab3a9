// Scratch buffers laid out as user memory of a datatype.
#include "lazarus/datatype/typed_buffer.h"

#include <algorithm>

namespace lz::dt {

void TypedBuffer::reset(int count, const Datatype& dt) {
  extent_ = dt.extent();
  size_t bytes = count > 0 ? static_cast<size_t>((count - 1) * extent_ + dt.true_extent()) : 0;
  storage_.assign(std::max<size_t>(bytes, 1), 0);
  base_ = storage_.data() - dt.true_lb();
}

}  // namespace lz::dt
