// The performance variables: what the runtime counts (p2p/counters.h) and
// the traffic each transport carried (Engine::traffic_of).
#include "lazarus/framework.h"
#include "mpi/tool/tool.h"
#include "p2p/counters.h"
#include "p2p/engine.h"
#include "p2p/runtime.h"

namespace lz::rt::tool {

namespace {

uint64_t now_of(const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); }

// A transport's traffic: zero outside MPI_Init..MPI_Finalize. Read without
// the engine's thread: each count is one aligned 64-bit word, written by
// one thread at a time.
Engine::Traffic traffic(const std::string& transport) {
  Runtime* rt = runtime_if_any();
  return rt != nullptr ? rt->engine().traffic_of(transport) : Engine::Traffic{};
}

PvarValue u(uint64_t v) { return PvarValue{v, 0}; }
PvarValue seconds(uint64_t ns) { return PvarValue{0, static_cast<double>(ns) * 1e-9}; }

}  // namespace

void Tool::add_pvars() {
  auto add = [&](Pvar p, const std::string& owner) {
    p.category = category_of_owner(owner);
    categories[static_cast<size_t>(p.category)].pvars.push_back(static_cast<int>(pvars.size()));
    pvars.push_back(std::move(p));
  };
  if (Framework* fw = reg_->framework("transport")) {
    for (const ComponentEntry& e : fw->components()) {
      const std::string t = e.desc->name, pre = "transport_" + t + "_";
      const std::string owner = "transport/" + t;
      const std::string over = " over transport " + t + " (0 when this process did not select it)";
      add({pre + "messages_sent", "Messages this process sent" + over, MPI_T_PVAR_CLASS_COUNTER,
           MPI_T_VERBOSITY_USER_BASIC, false, false, [](const std::string& a) { return u(traffic(a).messages_sent); },
           t},
          owner);
      add({pre + "bytes_sent",
           "Bytes of every frame this process sent, wire headers and protocol replies included" + over,
           MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, false, false,
           [](const std::string& a) { return u(traffic(a).bytes_sent); }, t},
          owner);
      add({pre + "messages_received", "Messages this process received" + over, MPI_T_PVAR_CLASS_COUNTER,
           MPI_T_VERBOSITY_USER_BASIC, false, false,
           [](const std::string& a) { return u(traffic(a).messages_received); }, t},
          owner);
      add({pre + "bytes_received",
           "Bytes of every frame this process received, wire headers and protocol replies included" + over,
           MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, false, false,
           [](const std::string& a) { return u(traffic(a).bytes_received); }, t},
          owner);
    }
  }
  add({"p2p_unexpected_messages", "Messages waiting in the unexpected queues (arrived before their receive)",
       MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC, false, true,
       [](const std::string&) { return u(now_of(counters().unexpected_now)); }, ""},
      "runtime/p2p");
  add({"p2p_unexpected_messages_highwater", "The most messages the unexpected queues held at once since MPI_Init",
       MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_VERBOSITY_TUNER_BASIC, false, true,
       [](const std::string&) { return u(now_of(counters().unexpected_high)); }, ""},
      "runtime/p2p");
  add({"p2p_rendezvous_sends", "Sends that went by the rendezvous protocol (above the eager limit)",
       MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_BASIC, false, false,
       [](const std::string&) { return u(now_of(counters().rendezvous_sends)); }, ""},
      "runtime/p2p");
  add({"cr_checkpoints", "Checkpoints this process took part in and completed (continued or restarted from)",
       MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC, false, false,
       [](const std::string&) { return u(now_of(counters().checkpoints)); }, ""},
      "runtime/cr");
  add({"cr_checkpoint_time",
       "Seconds this process spent in completed checkpoints, from the request to done (not counting a restored "
       "process's)",
       MPI_T_PVAR_CLASS_TIMER, MPI_T_VERBOSITY_USER_BASIC, true, false,
       [](const std::string&) { return seconds(now_of(counters().checkpoint_ns)); }, ""},
      "runtime/cr");
  add({"cr_drain_time",
       "Seconds of cr_checkpoint_time spent draining the channels: bookmarks exchanged and met (cr=criu), or the "
       "wait for a recovery line's late messages after the variables were saved (cr=app)",
       MPI_T_PVAR_CLASS_TIMER, MPI_T_VERBOSITY_TUNER_BASIC, true, false,
       [](const std::string&) { return seconds(now_of(counters().drain_ns)); }, ""},
      "runtime/cr");
}

}  // namespace lz::rt::tool
