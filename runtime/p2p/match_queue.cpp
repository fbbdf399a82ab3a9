#include "p2p/match_queue.h"

#include "p2p/counters.h"

namespace lz::rt {

MatchQueue::~MatchQueue() {
  for (Unexpected* u = unexp_head_; u != nullptr;) {
    Unexpected* n = u->next;
    counters().unexpected_removed();
    delete u;
    u = n;
  }
  for (Unexpected* u = free_; u != nullptr;) {
    Unexpected* n = u->next;
    delete u;
    u = n;
  }
}

void MatchQueue::post(Request* r) {
  r->next = nullptr;
  r->prev = posted_tail_;
  if (posted_tail_) posted_tail_->next = r;
  else posted_head_ = r;
  posted_tail_ = r;
}

bool MatchQueue::is_posted(const Request* r) const {
  for (Request* p = posted_head_; p != nullptr; p = p->next)
    if (p == r) return true;
  return false;
}

Unexpected* MatchQueue::new_unexpected() {
  if (free_ == nullptr) return new Unexpected();
  Unexpected* u = free_;
  free_ = u->next;
  u->next = u->prev = nullptr;
  return u;
}

MatchQueue::SourceList* MatchQueue::source_list(int src) {
  if (src < 0) return nullptr;
  const auto i = static_cast<size_t>(src);
  if (i >= by_source_.size()) by_source_.resize(i + 1);
  return &by_source_[i];
}

void MatchQueue::append(Unexpected* u) {
  u->next = nullptr;
  u->prev = unexp_tail_;
  if (unexp_tail_) unexp_tail_->next = u;
  else unexp_head_ = u;
  unexp_tail_ = u;
  u->src_next = u->src_prev = nullptr;
  if (SourceList* l = source_list(u->src)) {
    u->src_prev = l->tail;
    if (l->tail)
      l->tail->src_next = u;
    else
      l->head = u;
    l->tail = u;
  }
  counters().unexpected_added();
}

void MatchQueue::prepend(Unexpected* u) {
  u->prev = nullptr;
  u->next = unexp_head_;
  if (unexp_head_) unexp_head_->prev = u;
  else unexp_tail_ = u;
  unexp_head_ = u;
  u->src_next = u->src_prev = nullptr;
  if (SourceList* l = source_list(u->src)) {
    u->src_next = l->head;
    if (l->head)
      l->head->src_prev = u;
    else
      l->tail = u;
    l->head = u;
  }
  counters().unexpected_added();
}

void MatchQueue::unlink_unexpected(Unexpected* u) {
  if (u->prev) u->prev->next = u->next;
  else unexp_head_ = u->next;
  if (u->next) u->next->prev = u->prev;
  else unexp_tail_ = u->prev;
  u->next = u->prev = nullptr;
  if (SourceList* l = source_list(u->src)) {
    if (u->src_prev)
      u->src_prev->src_next = u->src_next;
    else
      l->head = u->src_next;
    if (u->src_next)
      u->src_next->src_prev = u->src_prev;
    else
      l->tail = u->src_prev;
  }
  u->src_next = u->src_prev = nullptr;
  counters().unexpected_removed();
}

Unexpected* MatchQueue::find_unexpected(int src, int tag, bool remove) {
  if (src != MPI_ANY_SOURCE && src >= 0) {
    const auto i = static_cast<size_t>(src);
    for (Unexpected* u = i < by_source_.size() ? by_source_[i].head : nullptr; u != nullptr; u = u->src_next) {
      if (!tag_matches(tag, u->tag)) continue;
      if (remove) unlink_unexpected(u);
      return u;
    }
    return nullptr;
  }
  for (Unexpected* u = unexp_head_; u != nullptr; u = u->next) {
    if (!src_matches(src, u->src) || !tag_matches(tag, u->tag)) continue;
    if (remove) unlink_unexpected(u);
    return u;
  }
  return nullptr;
}

Unexpected* MatchQueue::withdraw(int world_src, uint64_t sreq) {
  for (Unexpected* u = unexp_head_; u != nullptr; u = u->next) {
    if (u->world_src != world_src || u->sreq != sreq) continue;
    unlink_unexpected(u);
    return u;
  }
  return nullptr;
}

void MatchQueue::recycle(Unexpected* u) {
  // Keep small payload buffers for reuse; give large ones back.
  if (u->data.capacity() > (64u << 10)) std::vector<char>().swap(u->data);
  u->data.clear();
  u->prev = nullptr;
  u->next = free_;
  free_ = u;
}

}  // namespace lz::rt
