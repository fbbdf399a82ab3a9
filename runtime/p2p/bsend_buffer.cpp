#include "p2p/bsend_buffer.h"

#include "mpi.h"

namespace lz::rt {

bool BsendBuffer::attach(void* buf, size_t size) {
  if (base_ != nullptr) return false;
  base_ = static_cast<char*>(buf);
  size_ = size;
  free_.clear();
  used_.clear();
  if (size > 0) free_[0] = size;
  return true;
}

void BsendBuffer::detach(void** buf, size_t* size) {
  *buf = base_;
  *size = size_;
  base_ = nullptr;
  size_ = 0;
  free_.clear();
  used_.clear();
}

char* BsendBuffer::allocate(size_t bytes) {
  if (base_ == nullptr) return nullptr;
  size_t need = ((bytes + 15) & ~size_t{15}) + MPI_BSEND_OVERHEAD;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    size_t off = it->first;
    size_t len = it->second;
    free_.erase(it);
    if (len > need) free_[off + need] = len - need;
    // The overhead bytes lead the block; the data follows (16-byte aligned
    // relative to the buffer start).
    char* data = base_ + off + MPI_BSEND_OVERHEAD;
    used_[data] = {off, need};
    return data;
  }
  return nullptr;
}

void BsendBuffer::release(char* p) {
  auto it = used_.find(p);
  if (it == used_.end()) return;
  auto [off, len] = it->second;
  used_.erase(it);
  auto next = free_.lower_bound(off);
  if (next != free_.end() && next->first == off + len) {
    len += next->second;
    free_.erase(next);
  }
  auto prev = free_.lower_bound(off);
  if (prev != free_.begin()) {
    --prev;
    if (prev->first + prev->second == off) {
      prev->second += len;
      return;
    }
  }
  free_[off] = len;
}

BsendBuffer& bsend_buffer() {
  static BsendBuffer b;
  return b;
}

}  // namespace lz::rt
