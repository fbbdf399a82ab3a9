#include "c3_module.h"

#include <algorithm>

#include "c3_line_file.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"

namespace lz::crcp::c3 {

Status C3Module::quiesce(Coordinator& c) {
  if (c.size() == 1) return Status::Ok();  // nothing can be in flight (crcp.h's contract without kCapDrain)
  return Unavailable(
      "crcp/c3 coordinates application-level checkpoints (cr=app) at LZ_Checkpoint safe points; a core-image "
      "checkpoint needs --mca crcp bkmrk");
}

Status C3Module::resume(Coordinator& c, bool restarted) {
  (void)c;
  (void)restarted;
  return Status::Ok();
}

Status C3Module::attach(int rank, int size) {
  rank_ = rank;
  size_ = size;
  const auto n = static_cast<size_t>(size);
  sent_total_.assign(n, 0);
  next_index_.assign(n, 0);
  matched_.assign(n, {});
  return Status::Ok();
}

void C3Module::grow(size_t peers) {
  if (peers <= sent_total_.size()) return;
  sent_total_.resize(peers, 0);
  next_index_.resize(peers, 0);
  matched_.resize(peers);
  if (line_.open) {
    line_.matched_before.resize(peers, 0);
    line_.late_expected.resize(peers, 0);
    line_.late_logged.resize(peers, 0);
  }
}

bool C3Module::stamp_send(int dst, uint64_t* stamp) {
  const auto d = static_cast<size_t>(dst);
  if (__builtin_expect(d >= sent_total_.size(), 0)) grow(d + 1);
  *stamp = (uint64_t{epoch_} << 32) | next_index_[d]++;
  ++sent_total_[d];
  if (!suppress_.empty()) {
    auto it = suppress_.find({dst, *stamp});
    if (it != suppress_.end()) {
      suppress_.erase(it);
      log::debug("c3: message %u.%u to rank %d was received before the restart; not sent again",
                 stamp_epoch(*stamp), stamp_index(*stamp), dst);
      return false;
    }
  }
  return true;
}

bool C3Module::on_match(const Matched& m) {
  const uint32_t e = stamp_epoch(m.stamp);
  if (__builtin_expect(static_cast<size_t>(m.world_src) >= matched_.size(), 0)) grow(m.world_src + size_t{1});
  std::vector<uint64_t>& per_epoch = matched_[static_cast<size_t>(m.world_src)];
  if (e >= per_epoch.size()) per_epoch.resize(e + 1, 0);
  ++per_epoch[e];
  if (e > epoch_) {
    early_.push_back({static_cast<uint64_t>(m.world_src), m.stamp});
    return false;
  }
  return e < epoch_ && line_.open && !line_.done;
}

void C3Module::log_payload(const Matched& m, const void* data, size_t bytes) {
  Replayed r;
  r.m = m;
  r.payload.assign(static_cast<const char*>(data), bytes);
  line_.state.late.push_back(std::move(r));
  ++line_.late_logged[static_cast<size_t>(m.world_src)];
  check_complete();
}

uint64_t C3Module::wildcard_posted(uint32_t context, int* forced) {
  (void)context;
  const uint64_t n = wild_posts_++;
  *forced = -1;
  if (!forced_.empty()) {
    auto it = forced_.find(n);
    if (it != forced_.end()) {
      *forced = it->second;
      forced_.erase(it);
    }
  }
  if (line_.open && !line_.done) ++line_.wild_open;
  return n;
}

void C3Module::wildcard_matched(uint64_t number, int src) {
  if (!line_.open || line_.done || line_.wild_open == 0) return;
  line_.state.wild.push_back({number, static_cast<uint64_t>(src)});
  --line_.wild_open;
  check_complete();
}

std::vector<Replayed> C3Module::take_replay() { return std::move(replay_); }

std::vector<uint64_t> C3Module::begin_line() {
  if (line_.open && !line_.done)
    log::debug("c3: line %u superseded before its log was complete", line_.state.epoch);
  ++epoch_;
  line_ = Line();
  line_.open = true;
  LineState& s = line_.state;
  s.epoch = epoch_;
  s.sent = sent_total_;
  const size_t n = sent_total_.size();  // the world, then the bridges' peers
  line_.matched_before.assign(n, 0);
  line_.late_expected.assign(n, 0);
  line_.late_logged.assign(n, 0);
  for (size_t p = 0; p < n; ++p)
    for (uint32_t e = 0; e < matched_[p].size(); ++e) {
      const uint64_t count = matched_[p][e];
      if (count == 0) continue;
      s.matched.push_back({p, e, count});
      if (e < epoch_) line_.matched_before[p] += count;
    }
  // Early for this line: every recorded message of an epoch >= this one.
  std::vector<std::pair<uint64_t, uint64_t>> later;
  for (const auto& x : early_) {
    s.early.push_back(x);
    if (stamp_epoch(x.second) > epoch_) later.push_back(x);
  }
  early_ = std::move(later);
  std::fill(next_index_.begin(), next_index_.end(), 0);
  wild_posts_ = 0;
  forced_.clear();
  return s.sent;
}

void C3Module::expect(const std::vector<uint64_t>& sent_to_me) {
  if (!line_.open) return;
  for (size_t p = 0; p < sent_to_me.size() && p < line_.late_expected.size(); ++p) {
    if (sent_to_me[p] < line_.matched_before[p]) {
      log::error("c3: rank %zu says it sent %llu messages before its line, but %llu were matched here", p,
                 static_cast<unsigned long long>(sent_to_me[p]),
                 static_cast<unsigned long long>(line_.matched_before[p]));
      continue;
    }
    line_.late_expected[p] = sent_to_me[p] - line_.matched_before[p];
  }
  line_.expected = true;
  check_complete();
}

void C3Module::await_peers(const std::vector<int>& peers) {
  if (!line_.open || line_.done) return;
  for (int p : peers) {
    grow(static_cast<size_t>(p) + 1);
    line_.awaited.insert(p);
  }
}

void C3Module::expect_peer(int peer, uint64_t sent_to_me) {
  if (!line_.open || line_.awaited.erase(peer) == 0) return;
  const auto p = static_cast<size_t>(peer);
  if (sent_to_me < line_.matched_before[p]) {
    log::error("c3: peer %d of another job says it sent %llu messages before its line, but %llu were matched here",
               peer, static_cast<unsigned long long>(sent_to_me),
               static_cast<unsigned long long>(line_.matched_before[p]));
    return;
  }
  line_.late_expected[p] = sent_to_me - line_.matched_before[p];
  check_complete();
}

size_t C3Module::early_count(int first_peer) const {
  if (!line_.open) return 0;
  size_t n = 0;
  for (const auto& [src, stamp] : line_.state.early)
    if (src >= static_cast<uint64_t>(first_peer) && stamp_epoch(stamp) >= line_.state.epoch) ++n;
  return n;
}

void C3Module::check_complete() {
  if (!line_.open || !line_.expected || line_.done || line_.wild_open != 0 || !line_.awaited.empty()) return;
  for (size_t p = 0; p < line_.late_expected.size(); ++p)
    if (line_.late_logged[p] < line_.late_expected[p]) return;
  line_.done = true;
  if (on_complete_) on_complete_();
}

StatusOr<uint64_t> C3Module::save_line(const LineFile& where) {
  appfmt::Header h;
  h.job_id = where.job_id;
  h.rank = where.rank;
  h.nranks = size_;
  h.seq = where.seq;
  h.safe_point = where.safe_point;
  return write_line_file(where.rank_dir + "/rank." + std::to_string(where.rank) + ".c3", line_.state, h);
}

Status C3Module::load_line(const std::string& snapshot_dir, int rank, int nranks, int old_nranks) {
  auto path = [&](int r) { return snapshot_rank_dir(snapshot_dir, r) + "/rank." + std::to_string(r) + ".c3"; };
  if (nranks != old_nranks) {
    for (int r = 0; r < old_nranks; ++r) {
      LZ_ASSIGN_OR_RETURN(LineState s, read_line_file(path(r)));
      if (!s.late.empty() || !s.early.empty() || !s.wild.empty())
        return InvalidArgument("the snapshot has messages in flight at its line (rank " + std::to_string(r) + ": " +
                               std::to_string(s.late.size()) + " late, " + std::to_string(s.early.size()) +
                               " early, " + std::to_string(s.wild.size()) +
                               " wildcard receives logged), so it can be restarted only on its own " +
                               std::to_string(old_nranks) + " ranks");
      epoch_ = s.epoch;
    }
    return Status::Ok();  // counters start from zero on every rank
  }
  LZ_ASSIGN_OR_RETURN(LineState mine, read_line_file(path(rank)));
  epoch_ = mine.epoch;
  grow(mine.sent.size());  // the bridges' peers, when the line had any
  std::copy(mine.sent.begin(), mine.sent.end(), sent_total_.begin());
  std::fill(next_index_.begin(), next_index_.end(), 0);
  // Messages of the restored epoch and later were sent by ranks that
  // restored first (their fence counts, a window's operations) and matched
  // here before this rank restored: they stay counted, or this rank's next
  // line would wait for them as late messages forever.
  for (auto& m : matched_) {
    for (size_t e = 0; e < m.size() && e < epoch_; ++e) m[e] = 0;
  }
  for (const auto& [p, e, count] : mine.matched)
    if (p < matched_.size()) {
      // A sender runs at most a few lines ahead; an epoch far past this line's
      // is damage, not a reason to allocate gigabytes.
      if (e > uint64_t{epoch_} + (1u << 16))
        return DataLoss("the line file of rank " + std::to_string(rank) + " counts messages of epoch " +
                        std::to_string(e) + ", far past its own epoch " + std::to_string(epoch_));
      if (e >= matched_[p].size()) matched_[p].resize(e + 1, 0);
      matched_[p][e] += count;
    }
  early_.clear();
  for (const auto& x : mine.early)
    if (stamp_epoch(x.second) > epoch_) early_.push_back(x);
  replay_ = std::move(mine.late);
  forced_.clear();
  for (const auto& [n, src] : mine.wild) forced_[n] = static_cast<int>(src);
  wild_posts_ = 0;
  suppress_.clear();
  for (int r = 0; r < nranks; ++r) {
    const LineState* s = &mine;
    LineState other;
    if (r != rank) {
      LZ_ASSIGN_OR_RETURN(other, read_line_file(path(r)));
      s = &other;
    }
    for (const auto& [src, stamp] : s->early)
      if (static_cast<int>(src) == rank) suppress_.insert({r, stamp});
  }
  line_ = Line();
  log::debug("c3: restored line %u: %zu late messages to replay, %zu wildcard decisions, %zu sends to suppress",
             epoch_, replay_.size(), forced_.size(), suppress_.size());
  return Status::Ok();
}

}  // namespace lz::crcp::c3
