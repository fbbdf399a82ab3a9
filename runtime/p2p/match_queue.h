// MatchQueue: MPI matching for one context id — the posted-receive queue and
// the unexpected-message queue.
//
// Both queues are kept in arrival order and searched from the front, which
// gives MPI's non-overtaking rule per (source, tag, communicator): transports
// deliver each peer's frames in order, and an earlier message or receive is
// always found first. MPI_ANY_SOURCE / MPI_ANY_TAG are wildcards of the
// receive side only. Each unexpected message is also in its source's own
// list, in the same order, which a receive from one source searches: a
// sender that runs far ahead (oversubscribed ranks, a gather's root behind
// its leaves) no longer makes every other source's receive walk past its
// messages (np 4 gather of 8 B: find_unexpected was 37 % of the samples).
#pragma once

#include <cstdint>
#include <vector>

#include "p2p/request.h"

namespace lz::rt {

// A message that arrived before its receive was posted.
struct Unexpected {
  int src = 0;        // sender's rank in the communicator
  int tag = 0;
  int world_src = 0;  // sender's world rank (for replies)
  uint8_t type = 0;   // wire::kEager or wire::kRts
  uint8_t flags = 0;
  uint64_t length = 0;  // message bytes
  uint64_t sreq = 0;
  uint64_t addr = 0;    // kRts: sender's buffer address
  uint64_t stamp = 0;   // the sender's application-level checkpoint stamp (protocol.h)
  std::vector<char> data;  // kEager: the payload; kRts: the remote key (capacity kept across reuse)
  Unexpected* next = nullptr;  // arrival order, all sources
  Unexpected* prev = nullptr;
  Unexpected* src_next = nullptr;  // arrival order, this source's messages
  Unexpected* src_prev = nullptr;
};

inline bool tag_matches(int want, int have) { return want == MPI_ANY_TAG || want == have; }
inline bool src_matches(int want, int have) { return want == MPI_ANY_SOURCE || want == have; }

class MatchQueue {
 public:
  MatchQueue() = default;
  MatchQueue(const MatchQueue&) = delete;
  MatchQueue& operator=(const MatchQueue&) = delete;
  ~MatchQueue();

  // Posted receives.
  void post(Request* r);
  void unpost(Request* r) {
    if (r->prev) r->prev->next = r->next;
    else posted_head_ = r->next;
    if (r->next) r->next->prev = r->prev;
    else posted_tail_ = r->prev;
    r->next = r->prev = nullptr;
  }
  bool is_posted(const Request* r) const;
  // The first posted receive matching (src, tag), removed from the queue.
  Request* match_posted(int src, int tag) {
    Request* r = find_posted(src, tag);
    if (r != nullptr) unpost(r);
    return r;
  }
  // The same receive, left in the queue (unpost() takes it).
  Request* find_posted(int src, int tag) const {
    for (Request* r = posted_head_; r != nullptr; r = r->next)
      if (src_matches(r->peer, src) && tag_matches(r->tag, tag)) return r;
    return nullptr;
  }

  // Unexpected messages.
  Unexpected* new_unexpected();  // from the free list; caller fills and append()s
  void append(Unexpected* u);
  // Puts `u` before every unexpected message (replayed ones, older than any arrival).
  void prepend(Unexpected* u);
  // The first unexpected message matching (src, tag); `remove` takes it out.
  Unexpected* find_unexpected(int src, int tag, bool remove);
  // The unexpected message `sreq` of world rank `world_src`, taken out of
  // the queue (a sender withdrawing it); null when a receive or a matched
  // probe has taken it already.
  Unexpected* withdraw(int world_src, uint64_t sreq);
  void recycle(Unexpected* u);

  bool empty() const { return posted_head_ == nullptr && unexp_head_ == nullptr; }
  // The oldest unexpected message (follow `next`), or null.
  Unexpected* unexpected_head() const { return unexp_head_; }
  // Takes `u` out of the unexpected messages (its links cleared); recycle() it after.
  void remove_unexpected(Unexpected* u) { unlink_unexpected(u); }
  Request* posted_head() const { return posted_head_; }

 private:
  // Takes `u` out of the unexpected list (its links cleared).
  void unlink_unexpected(Unexpected* u);
  // One source's unexpected messages, oldest first.
  struct SourceList {
    Unexpected* head = nullptr;
    Unexpected* tail = nullptr;
  };
  // The list of source `src`; null for a negative one (in no source list).
  SourceList* source_list(int src);

  Request* posted_head_ = nullptr;
  Request* posted_tail_ = nullptr;
  Unexpected* unexp_head_ = nullptr;
  Unexpected* unexp_tail_ = nullptr;
  std::vector<SourceList> by_source_;  // indexed by the sender's rank in the communicator
  Unexpected* free_ = nullptr;
};

}  // namespace lz::rt
