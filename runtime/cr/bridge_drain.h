// BridgeDrain: the in-band drain of a rank's bridges to other jobs
// (p2p/bridge.h) in a checkpoint of a spawn tree (oob/tree_messages.h,
// kCrSpawnTree).
//
// The crcp drain brings the world's channels to rest through the launcher's
// bookmark exchange, which knows only the job's own ranks. The channels to
// peers of other jobs are drained between the processes themselves, LAM/MPI
// style: with sends held (so the value cannot change), each process sends
// every live peer of another job a marker (p2p/protocol.h kMarker) carrying
// Engine::sent_to(peer), then progresses until, for every such peer, that
// peer's marker of this drain arrived and Engine::received_from(peer) equals
// its value. Markers go past the hold, straight to the transport, after
// every frame they count, and are not counted themselves.
//
//   BridgeDrain drain(engine, std::chrono::seconds(60));
//   Status s = drain.run(control_fd, [&] { return aborted_by_launcher(); });
//
// Which marker is this drain's: a marker of an earlier round that failed may
// still be on its way (the peer sent it after this process gave up). Each
// marker carries its generation (the sender's count of drains with that
// peer) and an echo (the last generation the sender received from the
// peer); only a marker whose echo is this process's current generation
// counts, i.e. one the peer sent after it had this drain's marker, so during
// its own drain of this round. A process whose peer's marker arrives with a
// new generation after its own went out sends its marker again with the new
// echo; each side sends at most two markers per peer and round, and never
// after the peer could have finished (the peer needs its last one). This
// holds when the tree's rounds do not overlap: no process starts round N+1's
// drain while another is still in round N's (the launchers finish a round
// everywhere before they start the next).
//
// Peers that are gone are skipped: failed (Engine::peer_lost), or whose
// transport refuses the marker as gone (kAborted: finalized, or unreachable).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::rt {

class Engine;

class BridgeDrain {
 public:
  // Called between progress turns: a non-Ok status ends the drain with it
  // (the launcher aborted the round).
  using Watch = std::function<Status()>;

  BridgeDrain(Engine& engine, std::chrono::milliseconds timeout) : eng_(engine), timeout_(timeout) {}

  // The drain, on the CR thread with sends held (Engine::hold_sends). Sleeps
  // in Engine::progress_wait, woken by `wake_fd` too (-1: none). Ok once
  // every live peer of another job is drained; kTimeout after `timeout`
  // naming each peer still behind as "rank R of job J" with its counts;
  // kInternal when more arrived from a peer than its marker says; the
  // watch's status; a transport's error sending a marker.
  Status run(int wake_fd, const Watch& watch);

 private:
  struct Owed {
    int index = 0;           // the engine's number of the peer
    bool gone = false;
    bool sent = false;       // a marker of this drain went out
    uint32_t echo_sent = 0;  // with this echo
  };
  // Sends `o` this drain's marker, or again with the newest echo; a
  // transport without room now leaves it for the next turn.
  Status send_owed(Owed& o);
  // Why `o` is not drained yet ("" when it is).
  StatusOr<std::string> behind(Owed& o);
  std::string name(int index) const;

  Engine& eng_;
  std::chrono::milliseconds timeout_;
  std::vector<Owed> owed_;
};

}  // namespace lz::rt
