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
  // Finalizes the modules (the engine's finalize()).
  Status finalize();

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
};

}  // namespace lz::rt
