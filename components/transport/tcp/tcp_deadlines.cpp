// TcpTransport, deadlines: one timer (the earliest of every handshake
// deadline and every pair's retry time) closes silent accepted sockets,
// gives up late connects and retries pairs whose winning connection never came.
#include "tcp_transport.h"

#include <cstdio>

#include "lazarus/log.h"

namespace lz::transport::tcp {

void TcpTransport::on_timer() {
  poller_.timer_fired();
  const double now = now_seconds();
  for (uint32_t s = 0; s < pending_.size(); ++s)
    if (pending_[s] && pending_[s]->deadline() <= now) {
      char why[96];
      std::snprintf(why, sizeof why, "no valid handshake within %g s", config_.handshake_timeout);
      if (pending_[s]->nothing_received()) {
        // Never answered our HELLO: a stranger, or as often a rank that was
        // busy outside MPI when it connected; such a rank notices and
        // connects again (retry_later), so this is no warning.
        log::info("tcp: closed a connection from %s that sent nothing within %g s (a rank busy outside MPI "
                  "connects again)",
                  pending_[s]->remote().to_string().c_str(), config_.handshake_timeout);
        ++stats_.silent_closed;
        refuse(s, why, /*quiet=*/true);
      } else {
        refuse(s, why);
      }
    }
  for (auto& ep : endpoints_) {
    if (!ep) continue;
    if (ep->state() == TcpEndpoint::State::kConnecting && ep->conn() && ep->conn()->deadline() <= now) {
      std::unique_ptr<TcpConnection> late = ep->detach();
      const Status why = Timeout("no answer within connect_timeout");
      if (!retry_later(*ep, *late, why)) attempt_failed(*ep, why);
      bury(std::move(late));
    } else if (ep->state() == TcpEndpoint::State::kWaitIncoming && ep->retry_at <= now) {
      // The winning connection never came (its initiator may have died):
      // try ourselves again; the race rule still holds if both retry.
      ep->next_address = 0;
      start_connect(*ep);
    }
  }
  arm_deadlines();
}

void TcpTransport::arm_deadlines() {
  double next = 0;
  auto consider = [&](double t) {
    if (next == 0 || t < next) next = t;
  };
  for (const auto& c : pending_)
    if (c) consider(c->deadline());
  for (const auto& ep : endpoints_) {
    if (!ep) continue;
    if (ep->state() == TcpEndpoint::State::kConnecting && ep->conn()) consider(ep->conn()->deadline());
    if (ep->state() == TcpEndpoint::State::kWaitIncoming) consider(ep->retry_at);
  }
  if (next != 0) poller_.arm_deadline(next);
}

}  // namespace lz::transport::tcp
