#include "launcher/spawn_tree.h"

#include <fcntl.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "lazarus/log.h"

namespace lz::launcher {

using oob::MsgType;

std::vector<std::string> read_snapshot_list(const std::string& snapshot_dir, const char* name) {
  std::vector<std::string> lines;
  std::ifstream in(snapshot_dir + "/" + name);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

Status write_snapshot_list(const std::string& snapshot_dir, const char* name, const std::vector<std::string>& lines) {
  const std::string path = snapshot_dir + "/" + name;
  std::ofstream out(path, std::ios::trunc);
  for (const std::string& l : lines) out << l << "\n";
  out.close();
  if (!out) return Status(Code::kIo, "cannot write " + path);
  return Status::Ok();
}

SpawnTree::SpawnTree(EventLoop& loop, ToRank to_rank, Fail fail)
    : loop_(loop), to_rank_(std::move(to_rank)), fail_(std::move(fail)) {}

SpawnTree::~SpawnTree() = default;

Status SpawnTree::adopt_parent_from_env() {
  if (const char* job = std::getenv(oob::kSpawnParentJobEnv); job != nullptr) {
    parent_job_ = job;
    unsetenv(oob::kSpawnParentJobEnv);
  }
  const char* v = std::getenv(oob::kSpawnLinkFdEnv);
  if (v == nullptr) return Status::Ok();
  char* end = nullptr;
  const long fd = std::strtol(v, &end, 10);
  const std::string text = v;
  unsetenv(oob::kSpawnLinkFdEnv);
  if (end == v || *end != '\0' || fd < 3 || fcntl(static_cast<int>(fd), F_GETFD) < 0)
    return InvalidArgument(std::string(oob::kSpawnLinkFdEnv) + "=" + text +
                           " names no open descriptor (it is set by the launcher that spawns a job, not by hand)");
  (void)fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  parent_ = std::make_unique<SpawnLink>(
      loop_, oob::Fd(static_cast<int>(fd)), [this](oob::Frame& f) { on_parent_frame(f); },
      [](const Status& why) { log::debug("spawn tree: link to the parent launcher: %s", why.message().c_str()); });
  return Status::Ok();
}

void SpawnTree::add_child(pid_t child, oob::Fd fd) {
  ever_children_ = true;
  children_[child] = std::make_unique<SpawnLink>(
      loop_, std::move(fd), [this, child](oob::Frame& f) { on_child_frame(child, f); },
      [this, child](const Status& why) {
        if (handler_) handler_->on_child_lost(child, "the launcher of spawned job " + std::to_string(child) + ": " +
                                                         why.message());
      });
}

void SpawnTree::drop_child(pid_t child) {
  auto it = children_.find(child);
  if (it == children_.end()) return;
  closed_.push_back(std::move(it->second));
  children_.erase(it);
  if (handler_) handler_->on_child_lost(child, "the launcher of a spawned job (pid " + std::to_string(child) + ") ended");
  loop_.add_timer(oob::deadline_in(0.001), [this] { closed_.clear(); });
}

std::vector<pid_t> SpawnTree::children() const {
  std::vector<pid_t> out;
  for (const auto& [pid, link] : children_)
    if (link->open()) out.push_back(pid);
  return out;
}

void SpawnTree::to_parent(MsgType type, const std::string& payload) {
  if (parent_) parent_->send(type, payload);
}

void SpawnTree::to_child(pid_t child, MsgType type, const std::string& payload) {
  auto it = children_.find(child);
  if (it != children_.end()) it->second->send(type, payload);
}

void SpawnTree::on_rank_fence(int rank, const std::string& payload) { on_fence({rank, -1}, payload); }

void SpawnTree::on_fence(const Contributor& from, const std::string& payload) {
  oob::BridgeFenceMsg m;
  if (Status s = oob::decode_bridge_fence(payload, &m); !s.ok()) {
    fail_(s.message());
    return;
  }
  Pending& p = fences_[m.key];
  if (p.members == 0) p.members = m.members;
  if (p.members != m.members) {
    oob::BridgeTableMsg t{m.key, "members disagree on the bridge's size (" + std::to_string(p.members) + " and " +
                                     std::to_string(m.members) + ")", {}};
    p.to.push_back(from);
    answer(m.key, p, t);
    return;
  }
  p.to.push_back(from);
  if (parent_) {  // the root answers
    parent_->send(MsgType::kBridgeFence, payload);
    return;
  }
  p.entries[m.member] = std::move(m.entries);
  p.gone.insert(m.gone.begin(), m.gone.end());
  for (uint32_t member = 0; member < p.members; ++member)
    if (p.entries.count(member) == 0 && p.gone.count(member) == 0) return;  // still to come
  oob::BridgeTableMsg t;
  t.key = m.key;
  // A member found gone (its job ended) gets an empty entry: the others take it as lost.
  for (uint32_t member = 0; member < p.members; ++member) t.entries.push_back(std::move(p.entries[member]));
  answer(m.key, p, t);
}

void SpawnTree::on_table(const std::string& payload) {
  oob::BridgeTableMsg t;
  if (Status s = oob::decode_bridge_table(payload, &t); !s.ok()) {
    fail_(s.message());
    return;
  }
  auto it = fences_.find(t.key);
  if (it == fences_.end()) {
    log::debug("spawn tree: BRIDGE_TABLE for a bridge no one here waits for; ignored");
    return;
  }
  answer(t.key, it->second, t);
}

void SpawnTree::answer(const std::string& key, Pending& p, const oob::BridgeTableMsg& table) {
  const std::string bytes = oob::encode_bridge_table(table);
  std::vector<pid_t> told;
  for (const Contributor& c : p.to) {
    if (c.rank >= 0) {
      to_rank_(c.rank, MsgType::kBridgeTable, bytes);
    } else if (std::find(told.begin(), told.end(), c.child) == told.end()) {
      told.push_back(c.child);  // one table per link: its launcher hands it to each of its own
      to_child(c.child, MsgType::kBridgeTable, bytes);
    }
  }
  fences_.erase(key);
}

void SpawnTree::on_parent_frame(oob::Frame& f) {
  auto broke = [&](const Status& s) { fail_("the parent launcher broke the spawn-tree protocol: " + s.message()); };
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kBridgeTable:
      on_table(f.payload);
      return;
    case MsgType::kTreeCheckpoint:
    case MsgType::kTreeGo: {
      oob::TreeRoundMsg m;
      if (Status s = oob::decode_tree_round(f.payload, &m); !s.ok()) return broke(s);
      if (!handler_) return;
      if (f.type == static_cast<uint16_t>(MsgType::kTreeGo))
        handler_->on_tree_go(m.round);
      else
        handler_->on_tree_checkpoint(m);
      return;
    }
    case MsgType::kTreeAbort: {
      oob::TreeDoneMsg m;
      if (Status s = oob::decode_tree_done(f.payload, &m); !s.ok()) return broke(s);
      if (handler_) handler_->on_tree_abort(m.round, m.reason);
      return;
    }
    default:
      broke(ProtocolError("unexpected " + oob::msg_type_name(f.type)));
  }
}

void SpawnTree::on_child_frame(pid_t child, oob::Frame& f) {
  auto broke = [&](const Status& s) {
    fail_("the launcher of a spawned job (pid " + std::to_string(child) + ") broke the spawn-tree protocol: " +
          s.message());
  };
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kBridgeFence:
      on_fence({-1, child}, f.payload);
      return;
    case MsgType::kTreeDrained: {
      oob::TreeRoundMsg m;
      if (Status s = oob::decode_tree_round(f.payload, &m); !s.ok()) return broke(s);
      if (handler_) handler_->on_child_drained(child, m.round);
      return;
    }
    case MsgType::kTreeDone: {
      oob::TreeDoneMsg m;
      if (Status s = oob::decode_tree_done(f.payload, &m); !s.ok()) return broke(s);
      if (handler_) handler_->on_child_done(child, m);
      return;
    }
    default:
      broke(ProtocolError("unexpected " + oob::msg_type_name(f.type)));
  }
}

}  // namespace lz::launcher
