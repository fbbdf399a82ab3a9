#include "fake_host.h"

#include <string>

namespace lz::test {

FakeHost::FakeHost(int rank, int size, Modex& modex, std::string secret, std::vector<uint64_t> node_of_rank)
    : rank_(rank), size_(size), modex_(modex), secret_(std::move(secret)) {
  for (int r = 0; r < size; ++r) {
    transport::PeerInfo p;
    p.rank = r;
    p.host = "localhost";
    p.node_id = static_cast<size_t>(r) < node_of_rank.size() ? node_of_rank[static_cast<size_t>(r)] : 1;
    peers_.push_back(p);
  }
}

const transport::PeerInfo& FakeHost::peer(int rank) const {
  if (rank < 0 || rank >= size_) {
    if (on_misuse)
      on_misuse("transport called Host::peer(" + std::to_string(rank) + ") outside [0, " + std::to_string(size_) +
                ")");
    return peers_.at(0);
  }
  return peers_[static_cast<size_t>(rank)];
}

void FakeHost::deliver(int src, const void* data, size_t len) {
  ++delivered;
  if (on_deliver) on_deliver(src, data, len);
}

void* FakeHost::place(int src, const void* head, size_t len) {
  if (placement_head_bytes == 0) return nullptr;
  if (len < placement_head_bytes || lent_.count(src) != 0) {
    if (on_misuse)
      on_misuse("transport called Host::place(" + std::to_string(src) + ", " + std::to_string(len) + " bytes) " +
                (lent_.count(src) ? "while a placement from that rank was under way" : "for a frame shorter than the head"));
    return nullptr;
  }
  std::string& f = lent_[src];
  f.assign(static_cast<const char*>(head), placement_head_bytes);
  f.resize(len);
  return f.data() + placement_head_bytes;
}

void FakeHost::deliver_placed(int src, const void* head, size_t len) {
  auto it = lent_.find(src);
  if (it == lent_.end() || it->second.size() != len ||
      it->second.compare(0, placement_head_bytes, static_cast<const char*>(head), placement_head_bytes) != 0) {
    if (on_misuse)
      on_misuse("transport called Host::deliver_placed(" + std::to_string(src) + ", " + std::to_string(len) +
                " bytes) not matching the placement it asked for");
    return;
  }
  const std::string f = std::move(it->second);
  lent_.erase(it);
  ++placed;
  deliver(src, f.data(), f.size());
}

void FakeHost::peer_failed(int rank, const Status& why) {
  failures.emplace_back(rank, why);
  if (on_failed) on_failed(rank, why);
}

}  // namespace lz::test
