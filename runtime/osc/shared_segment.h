// SharedSegment: the memory of an MPI_Win_allocate_shared window, one
// /dev/shm object every rank of the window maps (the ranks are on one host).
// Its first page is the segment's own header (the rendezvous counter of a
// re-share); the ranks' memory follows.
//
//   leader:  seg = SharedSegment::create(name, bytes);   // then the others:
//   others:  seg = SharedSegment::open(name, bytes);     // after the leader
//   every rank mapped:  leader seg->unlink();            // nothing left behind
//
// Checkpoints (windows_cr.h): a core image must not hold a mapping of a
// deleted shared object (it cannot be restored on another host, nor shared
// again), so before the image each rank turns its mapping into private
// memory at the same address holding only its own part (privatize()), and
// after it (continue or restart) the ranks map a new object at that same
// address again and each writes its part back (reshare()): the pointers
// MPI_Win_allocate_shared and MPI_Win_shared_query gave the program stay
// valid.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::osc {

class SharedSegment {
 public:
  static StatusOr<std::unique_ptr<SharedSegment>> create(const std::string& name, size_t bytes);
  static StatusOr<std::unique_ptr<SharedSegment>> open(const std::string& name, size_t bytes);
  ~SharedSegment();
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  // The ranks' memory (page-aligned, after the header page).
  char* data() const { return map_ + page(); }
  // The header page (target_words.h keeps its words there).
  char* header() const { return map_; }
  // Byte ranges of the whole mapping (header page included) a rank keeps
  // across a checkpoint.
  struct Range {
    size_t offset, length;
  };
  size_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }
  // Removes the object's name (the mappings stay).
  void unlink();

  // Private memory at the same address holding the `keep` ranges (the rest
  // reads as zeros).
  Status privatize(const std::vector<Range>& keep);
  // Shares again: the leader creates the object `name_`.g<generation>, the
  // others map it once it exists; each writes back its `keep` ranges, and
  // every rank returns once all `members` did (at most `timeout_s`).
  Status reshare(bool leader, const std::vector<Range>& keep, int members, double timeout_s);

  static size_t page();

 private:
  SharedSegment(std::string name, char* map, size_t bytes) : name_(std::move(name)), map_(map), bytes_(bytes) {}
  // Maps `path` (opened as fd) over [map_, map_ + total) at that address.
  static StatusOr<char*> map_fd(int fd, size_t total, void* at);

  std::string name_;
  char* map_;
  size_t bytes_;
  unsigned generation_ = 0;
};

}  // namespace lz::osc
