// Bridge: the transports that reach the processes of another job, opened by
// one dynamic-process connection (MPI_Comm_spawn, MPI_Comm_accept/_connect,
// MPI_Comm_join: p2p/dpm.h).
//
// Every process of both groups of the connection makes one. Its members are
// the processes of both groups, the accepting group first, each named by
// (job id, world rank in that job): member indices are the same in every
// process. The bridge is the transport::Host of transport modules of its own
// (parameter dpm_transport, tcp by default: a module's ranks are member
// indices, not world ranks) and their Modex: put() keeps this process's
// entries, fence() hands them to the exchange function its maker gives (which
// gathers them over the local group and swaps them between the two roots)
// and keeps every member's.
//
// Once open, the engine adopts it (Engine::adopt_bridge): each member of
// another job becomes a peer of the engine numbered after the world ranks,
// reached through the bridge's modules at its member index; frames those
// modules deliver reach the engine under that number.
//
//   LZ_ASSIGN_OR_RETURN(auto b, Bridge::open(members, me, secret, exchange));
//   LZ_ASSIGN_OR_RETURN(std::vector<int> index, engine.adopt_bridge(std::move(b)));
//
// The exchange function serves open() only (it may use the communicator of
// the join, gone once open() returned). A checkpoint of a spawn tree closes
// the modules with the world's and re-opens them afterwards through the
// launchers (Engine::reconnect_bridges, oob/tree_messages.h BRIDGE_FENCE):
//
//   b.next_epoch();                                    // once per checkpoint, at every member
//   msg = {b.fence_key(), b.rank(), b.size(), b.encoded_entries()};
//   ... the launchers answer every member with the table of the key ...
//   LZ_RETURN_IF_ERROR(b.take_entries(table.entries));  // then connect() the modules
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/modex.h"
#include "lazarus/status.h"
#include "p2p/process_name.h"

namespace lz {
class Registry;
}

namespace lz::rt {

class Engine;

class Bridge final : public transport::Host, public Modex {
 public:
  // Given this process's encoded entries, returns every member's (by member
  // index): collective over both groups.
  using Exchange = std::function<StatusOr<std::vector<std::string>>(const std::string& mine)>;

  // Opens the modules named by dpm_transport for `members` (this process is
  // members[me]), authenticated with `secret` (the same at every member),
  // fences their addresses through `exchange` and connects them. Collective
  // over both groups. `engine` receives what they deliver once it adopted
  // the bridge.
  static StatusOr<std::unique_ptr<Bridge>> open(Engine& engine, Registry& reg, std::vector<ProcessName> members, int me,
                                                std::string secret, Exchange exchange);
  ~Bridge() override;

  const std::vector<ProcessName>& members() const { return members_; }
  const std::vector<transport::Module*>& modules() const { return modules_; }
  const std::vector<std::string>& module_names() const { return names_; }
  // The engine's number of member `m` (set by Engine::adopt_bridge).
  void set_engine_index(int m, int index) { engine_index_[static_cast<size_t>(m)] = index; }
  int engine_index(int m) const { return index_of(m); }
  // Finalizes the modules (the engine's finalize()).
  Status finalize();
  // "job(s) a,b": the other jobs its members belong to, for messages.
  std::string describe() const;

  // ---- re-opening after a checkpoint (Engine::checkpoint_transports, reconnect_bridges) ----
  // modules()[i] was released by on_checkpoint() and not connect()ed since.
  bool released(size_t i) const { return released_[i]; }
  void set_released(size_t i, bool r) { released_[i] = r; }
  // The number of re-openings so far: every member re-opens once per checkpoint
  // of the spawn tree, so it is the same at every member.
  uint64_t epoch() const { return epoch_; }
  void next_epoch() { ++epoch_; }
  // The bridge and its epoch, the same at every member and no other bridge's:
  // 32 hex digits of a MAC keyed by the bridge's secret (which never leaves
  // the process), "/", the epoch. At most oob::kMaxBridgeKeyBytes.
  std::string fence_key() const;
  // This process's entries (put() since open), encoded as fence() sends them.
  std::string encoded_entries() const;
  // Every member's encoded entries, by member index (a fence's result): they
  // replace what get() answered. An empty string is a member that did not
  // re-open (its job ended): it has no entries and get() finds nothing for
  // it. A member's kHostKey / kJobKey entries, when present, replace its
  // host (and PeerInfo) and job id: processes move and get a new job id
  // when they are restarted.
  Status take_entries(const std::vector<std::string>& all);
  // Member `m` has entries (take_entries() gave it some, or open()'s fence did).
  bool has_entries(int m) const { return !store_[static_cast<size_t>(m)].empty(); }
  // Where each member says it is, in its entries.
  static constexpr const char* kHostKey = "dpm.host";
  static constexpr const char* kJobKey = "dpm.job";

  // ---- transport::Host ----
  int rank() const override { return me_; }
  int size() const override { return static_cast<int>(members_.size()); }
  const transport::PeerInfo& peer(int r) const override { return info_[static_cast<size_t>(r)]; }
  Modex& modex() override { return *this; }
  const std::string& job_secret() const override { return secret_; }
  void deliver(int src, const void* data, size_t len) override;
  void peer_failed(int r, const Status& why) override;
  size_t placement_head() const override;
  void* place(int src, const void* head, size_t len) override;
  void deliver_placed(int src, const void* head, size_t len) override;

  // ---- Modex ----
  Status put(std::string_view key, std::string_view value) override;
  // open()'s exchange; kInternal once open() returned (the
  // re-opening after a checkpoint goes through the launchers instead).
  Status fence() override;
  StatusOr<std::string> get(int rank, std::string_view key) const override;

 private:
  Bridge(Engine& engine, std::vector<ProcessName> members, int me, std::string secret, Exchange exchange);
  int index_of(int member) const { return engine_index_[static_cast<size_t>(member)]; }

  Engine& engine_;
  std::vector<ProcessName> members_;
  std::vector<transport::PeerInfo> info_;
  std::vector<int> engine_index_;
  int me_;
  std::string secret_;
  Exchange exchange_;
  using Entries = std::map<std::string, std::string, std::less<>>;
  Entries mine_;
  std::vector<Entries> store_;  // by member, after fence()
  std::vector<std::unique_ptr<lz::Module>> owned_;
  std::vector<transport::Module*> modules_;
  std::vector<std::string> names_;
  std::vector<bool> released_;  // parallel to modules_
  uint64_t epoch_ = 0;
};

}  // namespace lz::rt
