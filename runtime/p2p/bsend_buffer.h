// BsendBuffer: the user buffer of MPI_Buffer_attach, carved into the copies
// of buffered sends that could not leave at once.
//
// Each allocation costs its size rounded up to 16 bytes plus MPI_BSEND_OVERHEAD,
// as MPI tells applications to budget. First fit over a list of free ranges.
#pragma once

#include <cstddef>
#include <map>

namespace lz::rt {

class BsendBuffer {
 public:
  bool attached() const { return base_ != nullptr; }
  // False if a buffer is already attached.
  bool attach(void* buf, size_t size);
  // Returns the attached buffer; the caller first waits until in_use() == 0.
  void detach(void** buf, size_t* size);
  // Null when the buffer has no room for `bytes`.
  char* allocate(size_t bytes);
  void release(char* p);
  size_t in_use() const { return used_.size(); }

 private:
  char* base_ = nullptr;
  size_t size_ = 0;
  std::map<size_t, size_t> free_;  // offset -> length
  std::map<char*, std::pair<size_t, size_t>> used_;  // data pointer -> (offset, length)
};

BsendBuffer& bsend_buffer();

}  // namespace lz::rt
