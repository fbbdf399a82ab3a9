// C3Module's counters across a migration (crcp.h: export_counters /
// import_counters). The blob: little-endian uint64 values,
//   version, size, epoch, wild_posts,
//   sent_total[size], next_index[size],
//   per source: n, matched[n] (per epoch),
//   k, (source, stamp) * k          was-early registry
//   k, (receiver, stamp) * k        sends still to suppress after a restart
//   k, (wildcard number, source) * k  wildcard decisions still to replay
#include <cstring>

#include "c3_module.h"

namespace lz::crcp::c3 {
namespace {

constexpr uint64_t kVersion = 1;

void put(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

class Cursor {
 public:
  explicit Cursor(const std::string& b) : b_(b) {}
  bool get(uint64_t* v) {
    if (b_.size() - at_ < 8) return false;
    uint64_t x = 0;
    for (int i = 0; i < 8; ++i) x |= static_cast<uint64_t>(static_cast<unsigned char>(b_[at_ + i])) << (8 * i);
    at_ += 8;
    *v = x;
    return true;
  }
  // A count of entries of `width` values that the rest can hold.
  bool count(uint64_t* n, size_t width) { return get(n) && *n <= (b_.size() - at_) / (8 * width); }
  bool at_end() const { return at_ == b_.size(); }

 private:
  const std::string& b_;
  size_t at_ = 0;
};

}  // namespace

StatusOr<std::string> C3Module::export_counters() const {
  if (line_.open && !line_.done)
    return Unavailable("c3: a line is under way (its late messages are not all logged); a rank cannot move now");
  std::string out;
  put(out, kVersion);
  put(out, static_cast<uint64_t>(size_));
  put(out, epoch_);
  put(out, wild_posts_);
  for (uint64_t v : sent_total_) put(out, v);
  for (uint32_t v : next_index_) put(out, v);
  for (const auto& per_epoch : matched_) {
    put(out, per_epoch.size());
    for (uint64_t v : per_epoch) put(out, v);
  }
  put(out, early_.size());
  for (const auto& [a, b] : early_) put(out, a), put(out, b);
  put(out, suppress_.size());
  for (const auto& [receiver, stamp] : suppress_) put(out, static_cast<uint64_t>(receiver)), put(out, stamp);
  put(out, forced_.size());
  for (const auto& [n, src] : forced_) put(out, n), put(out, static_cast<uint64_t>(src));
  return out;
}

Status C3Module::import_counters(const std::string& blob) {
  Cursor c(blob);
  auto bad = [](const std::string& what) { return InvalidArgument("c3: the counters handed over " + what); };
  uint64_t version = 0, size = 0, epoch = 0, wild = 0;
  if (!c.get(&version) || version != kVersion) return bad("are of another version or not c3's");
  if (!c.get(&size) || size != static_cast<uint64_t>(size_))
    return bad("are of a job of " + std::to_string(size) + " ranks, this one has " + std::to_string(size_));
  if (!c.get(&epoch) || !c.get(&wild)) return bad("are truncated");
  const auto n = static_cast<size_t>(size_);
  std::vector<uint64_t> sent(n);
  std::vector<uint32_t> next(n);
  for (auto& v : sent)
    if (!c.get(&v)) return bad("are truncated");
  for (auto& v : next) {
    uint64_t x = 0;
    if (!c.get(&x)) return bad("are truncated");
    v = static_cast<uint32_t>(x);
  }
  std::vector<std::vector<uint64_t>> matched(n);
  for (auto& per_epoch : matched) {
    uint64_t k = 0;
    if (!c.count(&k, 1)) return bad("are truncated");
    per_epoch.resize(k);
    for (auto& v : per_epoch) c.get(&v);
  }
  uint64_t k = 0;
  std::vector<std::pair<uint64_t, uint64_t>> early;
  if (!c.count(&k, 2)) return bad("are truncated");
  for (uint64_t i = 0; i < k; ++i) {
    uint64_t a = 0, b = 0;
    c.get(&a), c.get(&b);
    early.push_back({a, b});
  }
  std::set<std::pair<int, uint64_t>> suppress;
  if (!c.count(&k, 2)) return bad("are truncated");
  for (uint64_t i = 0; i < k; ++i) {
    uint64_t a = 0, b = 0;
    c.get(&a), c.get(&b);
    suppress.insert({static_cast<int>(a), b});
  }
  std::map<uint64_t, int> forced;
  if (!c.count(&k, 2)) return bad("are truncated");
  for (uint64_t i = 0; i < k; ++i) {
    uint64_t a = 0, b = 0;
    c.get(&a), c.get(&b);
    forced[a] = static_cast<int>(b);
  }
  if (!c.at_end()) return bad("have trailing bytes");
  epoch_ = static_cast<uint32_t>(epoch);
  wild_posts_ = wild;
  sent_total_ = std::move(sent);
  next_index_ = std::move(next);
  matched_ = std::move(matched);
  early_ = std::move(early);
  suppress_ = std::move(suppress);
  forced_ = std::move(forced);
  line_ = Line{};
  return Status::Ok();
}

}  // namespace lz::crcp::c3
