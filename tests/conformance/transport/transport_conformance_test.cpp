// Transport conformance: one suite, instantiated over every transport component
// the Registry knows (built-in or plugin), so a new transport is covered the
// day it is added. Each test runs a small job of forked processes
// (tests/support/transport_job.h): two ranks on this host, or one rank
// talking to itself for a kCapSelf transport. A scenario that does not apply to a transport (a
// capability it does not declare, a second process it cannot reach) is a skip
// with the reason, never a silent pass.
//
//   ctest -L conformance                      # every transport
//   tests/bin/lz_conformance_transport_test --gtest_filter='*/tcp'
//   LZ_CONFORMANCE_TIMEOUT=300 ...            # per-job bound (default 120 s)
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attacker.h"
#include "frame_pattern.h"
#include "lazarus/frameworks/transport.h"
#include "lazarus/registry.h"
#include "transport_job.h"

namespace lz::conformance {
namespace {

using namespace ::lz::test;  // the multi-process job: run_job, Child, CT_ASSERT

using transport::kCapCheckpoint;
using transport::kCapGet;
using transport::kCapPut;
using transport::kCapSelf;
using transport::kCapWaitFd;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

// ---------------------------------------------------------------------------
// Sequenced frames: a 16-byte header {seq, src, payload length} and a payload
// whose every byte is checked. The iovec layout varies with seq (one piece,
// header + payload, header + empty + payload) to exercise gathering.

constexpr size_t kSeqHeader = 16;

uint64_t stream_seed(int src, uint64_t salt, uint64_t seq) { return (uint64_t(src) << 48) ^ (salt << 32) ^ seq; }

void make_seq_frame(int src, uint64_t salt, uint64_t seq, size_t payload, std::string& buf,
                    std::vector<iovec>& iov) {
  buf.resize(kSeqHeader + payload);
  const uint32_t s = static_cast<uint32_t>(src), len = static_cast<uint32_t>(payload);
  std::memcpy(buf.data(), &seq, 8);
  std::memcpy(buf.data() + 8, &s, 4);
  std::memcpy(buf.data() + 12, &len, 4);
  fill_pattern(stream_seed(src, salt, seq), 0, buf.data() + kSeqHeader, payload);
  iov.clear();
  char* p = buf.data();
  switch (seq % 3) {
    case 0: iov.push_back({p, buf.size()}); break;
    case 1:
      iov.push_back({p, kSeqHeader});
      iov.push_back({p + kSeqHeader, payload});
      break;
    default:
      iov.push_back({p, kSeqHeader});
      iov.push_back({p + kSeqHeader, 0});
      iov.push_back({p + kSeqHeader, payload});
      break;
  }
}

// Records a failure and returns false when `f` is not frame `seq` of `src`.
bool check_seq_frame(Child& c, const Frame& f, int src, uint64_t salt, uint64_t seq, size_t payload) {
  const std::string where = "frame #" + std::to_string(seq) + " expected from rank " + std::to_string(src);
  if (f.src != src) {
    c.fail(where + ": delivered with src " + std::to_string(f.src));
    return false;
  }
  if (f.data.size() < kSeqHeader) {
    c.fail(where + ": only " + std::to_string(f.data.size()) + " bytes (frame boundaries not preserved?)");
    return false;
  }
  uint64_t got_seq;
  uint32_t got_src, got_len;
  std::memcpy(&got_seq, f.data.data(), 8);
  std::memcpy(&got_src, f.data.data() + 8, 4);
  std::memcpy(&got_len, f.data.data() + 12, 4);
  if (got_seq != seq) {
    c.fail(where + ": got frame #" + std::to_string(got_seq) +
           (got_seq < seq ? " again (duplicated or reordered)" : " instead (lost or reordered)"));
    return false;
  }
  if (got_src != static_cast<uint32_t>(src) || got_len != payload || f.data.size() != kSeqHeader + payload) {
    c.fail(where + ": header says src " + std::to_string(got_src) + ", " + std::to_string(got_len) +
           " payload bytes; frame has " + std::to_string(f.data.size()) + " bytes, expected " +
           std::to_string(kSeqHeader + payload));
    return false;
  }
  size_t bad = first_mismatch(stream_seed(src, salt, seq), 0, f.data.data() + kSeqHeader, payload);
  if (bad != payload) {
    c.fail(where + ": payload byte " + std::to_string(bad) + " of " + std::to_string(payload) + " is corrupted");
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// The exchange driver: sends `send_count` frames to `peer` (retrying after
// progress() on kWouldBlock) and checks `recv_count` frames from `src`.

struct Flow {
  int peer = -1;
  size_t send_count = 0;
  std::function<void(size_t i, std::string& buf, std::vector<iovec>& iov)> make;
  int src = -1;
  size_t recv_count = 0;
  std::function<bool(size_t i, const Frame& f)> check;  // false: failure recorded
  bool send_before_receive = false;  // inspect nothing until every frame is sent
  std::function<void()> on_idle;     // called every iteration
  int wait_polls = 0;                // > 0: progress with progress_waiting(wait_polls)
};

bool run_flow(Child& c, Flow& f) {
  size_t sent = 0, got = 0;
  std::string buf;
  std::vector<iovec> iov;
  bool built = false;
  while (sent < f.send_count || got < f.recv_count) {
    bool moved = false;
    while (sent < f.send_count) {
      if (!built) {
        f.make(sent, buf, iov);
        built = true;
      }
      Status s = c.module().send(f.peer, iov.data(), static_cast<int>(iov.size()));
      if (s.ok()) {
        ++sent;
        built = false;
        moved = true;
        continue;
      }
      if (s.code() == Code::kWouldBlock) break;
      c.fail("send() of frame #" + std::to_string(sent) + " (" + std::to_string(buf.size()) + " bytes) to rank " +
             std::to_string(f.peer) + ": " + s.to_string());
      return false;
    }
    if (c.progress(f.wait_polls) > 0) moved = true;
    if (!f.send_before_receive || sent == f.send_count) {
      // Frames beyond recv_count stay in the inbox: the next flow (or the
      // harness, before finalize) reports them as duplicated or extra.
      while (!c.inbox().empty() && got < f.recv_count) {
        Frame fr = std::move(c.inbox().front());
        c.inbox().pop_front();
        if (!f.check(got, fr)) return false;
        ++got;
      }
    }
    if (f.on_idle) f.on_idle();
    if (c.failed()) return false;
    for (const auto& pf : c.peer_failures()) {
      c.fail("Host::peer_failed(" + std::to_string(pf.rank) + "): " + pf.why.to_string() + " during a healthy exchange");
      return false;
    }
    if (c.expired()) {
      c.fail("deadline passed with " + std::to_string(sent) + "/" + std::to_string(f.send_count) + " frames sent to rank " +
             std::to_string(f.peer) + " and " + std::to_string(got) + "/" + std::to_string(f.recv_count) +
             " received from rank " + std::to_string(f.src) + " (a lost frame or a stalled transport)");
      return false;
    }
    if (!moved) sched_yield();  // two ranks may share one core
  }
  return true;
}

// A flow of sequenced frames: rank `from` sends `count` frames to rank `to`
// (both directions when `symmetric`; in a one-rank job, to itself).
Flow seq_flow(Child& c, size_t count, uint64_t salt, std::function<size_t(uint64_t)> payload_of,
              bool symmetric) {
  Flow f;
  const bool sender = symmetric || c.size() == 1 || c.rank() == 0;
  const bool receiver = symmetric || c.size() == 1 || c.rank() == 1;
  f.peer = c.peer();
  f.src = c.peer();
  f.send_count = sender ? count : 0;
  f.recv_count = receiver ? count : 0;
  const int me = c.rank(), src = c.peer();
  f.make = [me, salt, payload_of](size_t i, std::string& buf, std::vector<iovec>& iov) {
    make_seq_frame(me, salt, i, payload_of(i), buf, iov);
  };
  f.check = [&c, src, salt, payload_of](size_t i, const Frame& fr) {
    return check_seq_frame(c, fr, src, salt, i, payload_of(i));
  };
  return f;
}

size_t clamp_payload(const Child& c, size_t want, size_t max_frame) {
  (void)c;
  return std::min(want, max_frame > kSeqHeader ? max_frame - kSeqHeader : 0);
}

// The peer's max_frame(), exchanged through the modex (a sync).
std::optional<size_t> peer_max_frame(Child& c) {
  if (!c.modex().put("test.max_frame", std::to_string(c.module().max_frame())).ok() || !c.sync()) return std::nullopt;
  auto v = c.modex().get(c.peer(), "test.max_frame");
  if (!v.ok()) {
    c.fail("peer's max_frame not found in the modex: " + v.status().to_string());
    return std::nullopt;
  }
  return std::stoull(*v);
}

// ---------------------------------------------------------------------------
// Sizes: messages of 0 B .. 16 MiB, split by the sender into max_frame pieces.

std::vector<size_t> message_sizes(size_t max_frame) {
  std::vector<size_t> s = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257};
  for (size_t p = 512; p <= 16 * MiB; p *= 2) {
    s.push_back(p - 1);
    s.push_back(p);
    if (p < 16 * MiB) s.push_back(p + 1);
  }
  s.push_back(12345);
  s.push_back(3 * MiB + 17);
  for (size_t m : {max_frame - 1, max_frame, max_frame + 1})
    if (m <= 16 * MiB) s.push_back(m);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

struct Piece {
  size_t message, offset, len, total;
};

std::vector<Piece> plan_pieces(const std::vector<size_t>& sizes, size_t max_frame) {
  std::vector<Piece> out;
  for (size_t m = 0; m < sizes.size(); ++m) {
    if (sizes[m] == 0) {
      out.push_back({m, 0, 0, 0});
      continue;
    }
    for (size_t off = 0; off < sizes[m]; off += max_frame)
      out.push_back({m, off, std::min(max_frame, sizes[m] - off), sizes[m]});
  }
  return out;
}

// ---------------------------------------------------------------------------
// The fixture.

std::vector<std::string> registered_transports() {
  Registry reg;  // built-in components; configure() adds plugins from component_path
  ConfigOptions o;
  o.read_user_file = false;
  if (!reg.configure(o).ok()) {
    // A broken user/environment setting must not hide the built-in list.
    Registry plain;
    return plain.framework("transport")->component_names();
  }
  return reg.framework("transport")->component_names();
}

class TransportConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Registry reg;
    ConfigOptions o;
    o.mca = {{"transport", GetParam()}};
    o.read_user_file = false;
    Status s = reg.configure(o);
    ASSERT_TRUE(s.ok()) << s.to_string();
    // query() does not acquire resources, so the parent can read capabilities.
    auto picked = reg.framework("transport")->select(reg.query_context());
    if (!picked.ok()) GTEST_SKIP() << "transport '" << GetParam() << "' cannot run here: " << picked.status().message();
    caps_ = picked->front().module->capabilities();
    nprocs_ = (caps_ & kCapSelf) ? 1 : 2;
  }

  bool is_self() const { return (caps_ & kCapSelf) != 0; }

  void Run(const Scenario& scenario, JobSpec spec = {}) {
    spec.transport = GetParam();
    spec.nprocs = nprocs_;
    const JobResult r = run_job(spec, scenario);
    for (const auto& n : r.notes()) std::cout << "[   NOTE   ] " << GetParam() << ": " << n << "\n";
    const auto problems = r.problems();
    for (const auto& p : problems) ADD_FAILURE() << p;
    if (problems.empty())
      if (auto why = r.skip_reason()) GTEST_SKIP() << *why;
  }

  uint64_t caps_ = 0;
  int nprocs_ = 2;
};

// ---------------------------------------------------------------------------
// Scenarios.

// 50k frames of 16..~270 bytes arrive in order, exactly once, intact.
TEST_P(TransportConformance, Ordering) {
  Run([](Child& c) {
    const size_t mf = c.module().max_frame();
    Flow f = seq_flow(c, 50000, 1, [&](uint64_t i) { return clamp_payload(c, (i * 7919) % 257, mf); }, false);
    run_flow(c, f);
  });
}

// A blocking wait's turn (progress_waiting(), transport.h) delivers as
// progress() does: 20k frames each way of 0..~3000 bytes, in order, exactly
// once, intact, counted in the turn's result (Child::progress checks it).
// Then, with nothing in flight, it returns (never blocks) and delivers
// nothing.
TEST_P(TransportConformance, ProgressWaitingDelivers) {
  Run([](Child& c) {
    const size_t mf = c.module().max_frame();
    Flow f = seq_flow(c, 20000, 14, [&](uint64_t i) { return clamp_payload(c, (i * 7919) % 3001, mf); }, true);
    f.wait_polls = 16;
    if (!run_flow(c, f) || !c.sync()) return;
    for (int i = 0; i < 1000 && !c.failed(); ++i) c.progress(16);
    CT_EXPECT(c, c.inbox().empty()) << c.inbox().size() << " frame(s) delivered after the exchange ended";
    (void)c.sync();
  });
}

// Messages of 0 B .. 16 MiB, each frame up to max_frame() sent directly
// (0, 1, max_frame-1 and max_frame included), larger ones cut into max_frame
// pieces by the test; every byte is checked, in both directions at once.
void exchange_sizes(Child& c) {
  const size_t mine = c.module().max_frame();
  auto theirs = peer_max_frame(c);
  if (!theirs) return;
  CT_ASSERT(c, mine > 0) << "max_frame() is 0";
  const auto out_sizes = message_sizes(mine), in_sizes = message_sizes(*theirs);
  const auto out = plan_pieces(out_sizes, mine), in = plan_pieces(in_sizes, *theirs);
  c.note("max_frame() = " + std::to_string(mine) + "; " + std::to_string(out_sizes.size()) + " messages in " +
         std::to_string(out.size()) + " frames");
  const int me = c.rank(), src = c.peer();
  Flow f;
  f.peer = c.peer();
  f.src = c.peer();
  f.send_count = out.size();
  f.recv_count = in.size();
  f.make = [&out, me](size_t i, std::string& buf, std::vector<iovec>& iov) {
    const Piece& p = out[i];
    buf.resize(p.len);
    fill_pattern(stream_seed(me, 2, p.message), p.offset, buf.data(), p.len);
    iov.clear();
    if (p.message % 2 == 0 || p.len < 2) {
      iov.push_back({buf.data(), buf.size()});
    } else {  // odd messages: three pieces, one of them empty
      iov.push_back({buf.data(), p.len / 3});
      iov.push_back({buf.data() + p.len / 3, 0});
      iov.push_back({buf.data() + p.len / 3, p.len - p.len / 3});
    }
  };
  f.check = [&c, &in, src](size_t i, const Frame& fr) {
    const Piece& p = in[i];
    const std::string where = "message " + std::to_string(p.message) + " (" + std::to_string(p.total) +
                              " bytes), piece at offset " + std::to_string(p.offset);
    if (fr.src != src || fr.data.size() != p.len) {
      c.fail(where + ": expected " + std::to_string(p.len) + " bytes from rank " + std::to_string(src) + ", got " +
             std::to_string(fr.data.size()) + " from rank " + std::to_string(fr.src));
      return false;
    }
    size_t bad = first_mismatch(stream_seed(src, 2, p.message), p.offset, fr.data.data(), p.len);
    if (bad != p.len) {
      c.fail(where + ": byte " + std::to_string(p.offset + bad) + " of the message is wrong");
      return false;
    }
    return true;
  };
  run_flow(c, f);
}

TEST_P(TransportConformance, Sizes) { Run(exchange_sizes); }

// The same with a host that places (transport.h, Host::place): a module may
// ask for any frame from the host's head on, and what it writes there must be
// the frame, byte for byte (FakeHost hands head + placed bytes to the
// checks). A module that never asks passes as in Sizes.
TEST_P(TransportConformance, SizesPlaced) {
  JobSpec spec;
  spec.placement_head = 48;
  Run(
      [](Child& c) {
        exchange_sizes(c);
        c.note(std::to_string(c.placed_frames()) + " frames placed");
      },
      spec);
}

// Send without progress until kWouldBlock (the first send on an idle
// transport must be accepted), then progress both sides until every frame
// arrived; then the transport must accept frames again. Small frames, then
// large ones.
TEST_P(TransportConformance, ManyOutstanding) {
  Run([](Child& c) {
    const size_t mf = c.module().max_frame();
    struct Round {
      size_t payload, cap;
    };
    const Round rounds[] = {{48, 200000}, {clamp_payload(c, 64 * KiB, mf), 1024}};
    uint64_t salt = 10;
    for (const Round& r : rounds) {
      ++salt;
      c.phase("many outstanding, payload " + std::to_string(r.payload));
      const bool sender = c.size() == 1 || c.rank() == 0;
      size_t burst = 0;
      if (sender) {
        std::string buf;
        std::vector<iovec> iov;
        for (; burst < r.cap; ++burst) {
          make_seq_frame(c.rank(), salt, burst, r.payload, buf, iov);
          Status s = c.module().send(c.peer(), iov.data(), static_cast<int>(iov.size()));
          if (s.code() == Code::kWouldBlock) break;
          CT_ASSERT(c, s.ok()) << "send() of outstanding frame #" << burst << ": " << s.to_string();
        }
        CT_ASSERT(c, burst > 0) << "the first send() on an idle transport returned kWouldBlock: a transport must "
                                   "accept at least one frame when idle";
        c.note("payload " + std::to_string(r.payload) + ": " +
               (burst == r.cap ? "no kWouldBlock after " + std::to_string(burst) + " frames (unbounded queue)"
                               : "kWouldBlock after " + std::to_string(burst) + " frames"));
        if (c.size() > 1) {
          CT_ASSERT(c, c.post(c.peer(), std::to_string(burst)));
        }
      } else {
        // Stay away from progress() until the sender's burst is over, so its
        // frames really pile up.
        auto m = c.wait_post(false);
        if (!m) return;
        burst = std::stoull(*m);
      }
      const size_t total = burst + 1000;  // and it takes more once drained
      Flow f = seq_flow(c, total, salt, [&](uint64_t) { return r.payload; }, false);
      if (sender) {
        // The burst is already sent: resume after it.
        const int me = c.rank();
        const size_t first = burst, payload = r.payload;
        const uint64_t sl = salt;
        f.send_count = total - burst;
        f.make = [me, first, payload, sl](size_t i, std::string& buf, std::vector<iovec>& iov) {
          make_seq_frame(me, sl, first + i, payload, buf, iov);
        };
      }
      if (!run_flow(c, f)) return;
      if (!c.sync()) return;
    }
  });
}

// Both ranks send 10k frames (some of them large) before looking at what they
// received: neither side may stall the other.
TEST_P(TransportConformance, BothDirections) {
  if (is_self()) GTEST_SKIP() << "self has a single endpoint: there is no second direction";
  Run([](Child& c) {
    const size_t mf = c.module().max_frame();
    Flow f = seq_flow(
        c, 10000, 3,
        [&](uint64_t i) { return clamp_payload(c, i % 97 == 0 ? 256 * KiB : (i * 131) % 512, mf); },
        /*symmetric=*/true);
    f.send_before_receive = true;
    run_flow(c, f);
  });
}

// What unsent_bytes() promises, and MPI_Finalize relies on: once it is 0 the
// frames have left the sender, and the peer gets them even if the sender
// exits right away. Rank 0's frames are the first of the pair and rank 1 is
// busy (not progressing) while rank 0 flushes, so a connection-oriented
// transport must finish making its connection as the receiver catches up.
TEST_P(TransportConformance, FlushedFramesSurviveSenderExit) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  Run([](Child& c) {
    constexpr size_t kFrames = 64;
    const size_t payload = clamp_payload(c, 1000, c.module().max_frame());
    // Both ranks are connected before rank 0 sends and ends (shm opens the
    // peer's doorbell in connect(), which a peer already gone cannot answer).
    CT_ASSERT(c, c.sync()) << "sync before the exchange";
    if (c.rank() == 0) {
      std::string buf;
      std::vector<iovec> iov;
      c.phase("sending the first frames of the pair");
      for (size_t i = 0; i < kFrames;) {
        make_seq_frame(0, 9, i, payload, buf, iov);
        Status s = c.module().send(1, iov.data(), static_cast<int>(iov.size()));
        if (s.ok()) {
          ++i;
          continue;
        }
        CT_ASSERT(c, s.code() == Code::kWouldBlock) << "send: " << s.to_string();
        c.progress();
        CT_ASSERT(c, !c.expired()) << "send() kept answering would-block";
      }
      c.phase("progressing until unsent_bytes(1) is 0");
      while (c.module().unsent_bytes(1) != 0) {
        c.progress();
        CT_ASSERT(c, !c.expired()) << "unsent_bytes(1) is still " << c.module().unsent_bytes(1)
                                   << " at the deadline, while rank 1 progresses";
      }
      c.exit_abruptly(false);
    }
    c.expect_peer_failure();  // rank 0 ends without finalize()
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // busy outside the transport
    c.phase("receiving what rank 0 flushed before it exited");
    for (size_t got = 0; got < kFrames;) {
      c.progress();
      while (!c.inbox().empty() && got < kFrames) {
        if (!check_seq_frame(c, c.inbox().front(), 0, 9, got, payload)) return;
        c.inbox().pop_front();
        ++got;
      }
      CT_ASSERT(c, !c.expired()) << "received " << got << " of the " << kFrames
                                 << " frames rank 0 flushed (unsent_bytes() == 0) before it exited";
    }
  });
}

// Rank 1 ends abruptly after receiving half of the stream; rank 0 keeps
// sending and progressing and must learn it through Host::peer_failed() or an
// error Status — no hang, no crash.
// A peer's death is reported as such: Host::peer_failed(), or an error Status
// from send() with Code::kAborted (the engine turns it into
// MPI_ERR_PROC_FAILED, which --recover needs to tell a dead peer from a
// broken rank). kHalf frames go to rank 1 first; with kHalf = 0 it dies
// before any traffic and rank 0 first sends after a pause without progress
// (the connection, where one is made lazily, is made to a dead process).
void peer_dies_mid_stream(Child& c, bool sigkill, size_t kHalf = 5000) {
  constexpr size_t kFrames = 10000;
  const size_t payload = clamp_payload(c, 4 * KiB, c.module().max_frame());
  // Without traffic first, rank 1 dies only once rank 0 has connected too
  // (else rank 0's connect() may find it gone already: a failed connection
  // to a peer that never was, not the death this case is about).
  if (kHalf == 0 && !c.sync()) return;
  if (c.rank() == 1) {
    Flow f = seq_flow(c, kHalf, 4, [&](uint64_t) { return payload; }, false);
    f.send_count = 0;
    if (kHalf > 0 && !run_flow(c, f)) return;
    c.exit_abruptly(sigkill);
  }
  if (kHalf == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an ordering, not a bound
  c.expect_peer_failure();
  std::string buf;
  std::vector<iovec> iov;
  size_t sent = 0;
  Status send_error;
  c.phase("sending to a peer that dies");
  for (;;) {
    bool found = false;
    for (const auto& pf : c.peer_failures()) {
      CT_ASSERT(c, pf.rank == 1) << "peer_failed() names rank " << pf.rank << "; only rank 1 died";
      CT_ASSERT(c, !pf.why.ok()) << "peer_failed() with an ok Status";
      found = true;
    }
    if (found) break;
    if (sent < kFrames) {
      make_seq_frame(0, 4, sent, payload, buf, iov);
      Status s = c.module().send(1, iov.data(), static_cast<int>(iov.size()));
      if (s.ok()) {
        ++sent;
      } else if (s.code() != Code::kWouldBlock) {
        send_error = s;
        break;
      }
    }
    c.progress();
    c.inbox().clear();  // rank 1 sends nothing; extra frames are reported below
    CT_ASSERT(c, !c.expired()) << "rank 1 ended after receiving " << kHalf << " frames; rank 0 sent " << sent
                               << " frames and kept progressing, but got neither Host::peer_failed(1) nor an error "
                                  "Status from send() before the deadline";
  }
  CT_EXPECT(c, send_error.ok() || send_error.code() == Code::kAborted)
      << "send() to the dead rank 1 returned " << send_error.to_string()
      << ": a peer's death must be Code::kAborted (or reported through Host::peer_failed)";
  if (!send_error.ok())
    c.note("peer death reported by send(): " + send_error.to_string() + " after " + std::to_string(sent) + " frames");
  else
    c.note("peer death reported by peer_failed(1): " + c.peer_failures().front().why.to_string() + " after " +
           std::to_string(sent) + " frames sent");
  // The module must stay usable (and quiet) for the engine to clean up.
  for (int i = 0; i < 100; ++i) c.progress();
  make_seq_frame(0, 4, sent, payload, buf, iov);
  Status again = c.module().send(1, iov.data(), static_cast<int>(iov.size()));
  if (again.ok()) c.note("send() to the dead peer after it was reported still returns Ok (frame silently dropped)");
  c.inbox().clear();
}

TEST_P(TransportConformance, PeerExitsMidStream) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  Run([](Child& c) { peer_dies_mid_stream(c, false); });
}

TEST_P(TransportConformance, PeerKilledMidStream) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  Run([](Child& c) { peer_dies_mid_stream(c, true); });
}

TEST_P(TransportConformance, PeerKilledBeforeFirstFrame) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  Run([](Child& c) { peer_dies_mid_stream(c, true, 0); });
}

// Rank 1 sends large frames to a rank 0 that does not read yet, then is
// killed: its last frame is cut somewhere, likely inside a frame rank 0's
// module is placing (a host that places, JobSpec::placement_head). Rank 0
// gets the frames before the cut intact and in order, never a partial one,
// then the death; drop_placement(1), as the engine calls it on a failed
// peer, leaves the module quiet and usable.
TEST_P(TransportConformance, PeerKilledMidPlacedFrame) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  JobSpec spec;
  spec.placement_head = 48;
  Run(
      [](Child& c) {
        constexpr size_t kFrames = 24;
        const size_t payload = clamp_payload(c, 512 * KiB, c.module().max_frame());
        // Connected first (a lazily made connection from a process killed
        // before it authenticated names no rank to report).
        Flow warm = seq_flow(c, 4, 7, [&](uint64_t) { return size_t{16}; }, true);
        if (!run_flow(c, warm) || !c.sync()) return;
        if (c.rank() == 1) {
          // As much as goes out within 300 ms (rank 0 reads nothing meanwhile).
          std::string buf;
          std::vector<iovec> iov;
          const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
          for (size_t sent = 0; sent < kFrames && std::chrono::steady_clock::now() < until;) {
            make_seq_frame(1, 6, sent, payload, buf, iov);
            Status s = c.module().send(0, iov.data(), static_cast<int>(iov.size()));
            CT_ASSERT(c, s.ok() || s.code() == Code::kWouldBlock) << "send: " << s.to_string();
            if (s.ok()) ++sent;
            c.progress();
          }
          c.exit_abruptly(true);
        }
        c.expect_peer_failure();
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // an ordering, not a bound
        c.phase("receiving from a peer killed mid-stream");
        size_t got = 0;
        auto take = [&] {
          for (; !c.inbox().empty(); c.inbox().pop_front(), ++got)
            if (!check_seq_frame(c, c.inbox().front(), 1, 6, got, payload)) return false;
          return true;
        };
        while (c.peer_failures().empty()) {
          c.progress();
          if (!take()) return;
          CT_ASSERT(c, !c.expired()) << "no Host::peer_failed(1) after rank 1 was killed (" << got << " frames in)";
        }
        if (!take()) return;
        c.module().drop_placement(1);
        for (int i = 0; i < 100; ++i) c.progress();
        CT_EXPECT(c, c.inbox().empty()) << c.inbox().size() << " frame(s) from rank 1 after its failure was reported";
        c.note(std::to_string(got) + " frames of " + std::to_string(payload) + " bytes arrived intact before the cut; " +
               std::to_string(c.placed_frames()) + " of them placed");
      },
      spec);
}

// Strangers connect to the peer's published address (garbage, silence, a
// half-sent prefix then EOF, a reset, a MAC under a wrong secret, the right
// secret over a stale nonce — both claiming to be a real rank) before the
// real ranks connect; the ranks then exchange 10k frames correctly, every
// hostile connection that spoke is closed by the acceptor (over ofi, whose
// acceptor is libfabric's, but the half-sent prefix: attacker.cpp), nothing
// crashes.
TEST_P(TransportConformance, MalformedAndUnauthenticatedConnections) {
  if (is_self()) GTEST_SKIP() << "no connection-oriented endpoint to attack (self)";
  auto attacker = std::make_shared<std::unique_ptr<Attacker>>();
  JobSpec spec;
  spec.after_fence = [attacker](Child& c) {
    std::string keys;
    for (const auto& [k, v] : c.entries_of(c.peer())) {
      keys += (keys.empty() ? "" : ", ") + k;
      auto addrs = parse_socket_addresses(v);
      if (addrs.empty()) continue;
      *attacker = std::make_unique<Attacker>(c.transport_name(), addrs.front(), c.job_secret(), c.rank(), c.peer());
      c.note("attacking " + k + " = " + v);
      break;
    }
    if (!*attacker) {
      c.skip("no connection-oriented endpoint to attack (rank " + std::to_string(c.peer()) +
             " published no socket address; modex keys: " + (keys.empty() ? "none" : keys) + ")");
      return;
    }
    if (!(*attacker)->start())
      for (const auto& p : (*attacker)->problems()) c.fail("attacker: " + p);
  };
  Run(
      [attacker](Child& c) {
        if (c.skipped() || !*attacker) return;
        Attacker& a = **attacker;
        const size_t mf = c.module().max_frame();
        Flow f = seq_flow(
            c, 10000, 5, [&](uint64_t i) { return clamp_payload(c, (i * 31) % 1500, mf); }, /*symmetric=*/true);
        f.on_idle = [&a] { a.step(); };
        if (!run_flow(c, f)) return;
        // Give the acceptor time (progress calls, bounded) to refuse what it
        // has read; not a timing assertion, only a bound on waiting.
        const auto grace = std::min(c.deadline(), std::chrono::steady_clock::now() + std::chrono::seconds(10));
        while (!a.not_refused().empty() && std::chrono::steady_clock::now() < grace) {
          a.step();
          c.progress();
          c.inbox().clear();
          sched_yield();
        }
        for (const auto& p : a.problems()) c.fail("attacker: " + p);
        for (const auto& s : a.not_refused()) c.fail(s);
        for (const auto& s : a.summary()) c.note("attack " + s);
        CT_EXPECT(c, c.peer_failures().empty()) << "a real peer was reported failed during the attack: "
                                                << c.peer_failures().front().why.to_string();
      },
      spec);
}

// kCapGet: get_async() copies the right bytes out of the peer's memory (an
// address that is only meaningful in the peer's process, inside a region the
// peer registered, named by the key it packed), and its completion runs
// exactly once.
std::string to_hex(std::string_view bytes) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char ch : bytes) {
    out += d[ch >> 4];
    out += d[ch & 15];
  }
  return out;
}

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

struct GetResult {
  int calls = 0;
  Status status;
};

void record_get(void* arg, const Status& s) {
  auto* g = static_cast<GetResult*>(arg);
  ++g->calls;
  g->status = s;
}

// get_async() (or, `put`, put_async()) until the transport takes it, then
// progress until it completes; the completion's status, or why it never
// came (checked to run exactly once).
Status transfer_blocking(Child& c, bool put, void* local, size_t len, uint64_t remote, std::string_view key) {
  const char* what = put ? "put_async" : "get_async";
  GetResult g;
  Status s;
  for (;;) {
    const transport::Completion done{&record_get, &g};
    s = put ? c.module().put_async(c.peer(), local, len, remote, key, done)
            : c.module().get_async(c.peer(), local, len, remote, key, done);
    if (s.code() != Code::kWouldBlock || c.expired()) break;
    c.progress();
  }
  if (!s.ok()) return s.with_context(std::string(what) + " not started");
  c.wait_until([&] { return g.calls > 0 || c.expired(); });
  if (g.calls == 0) return Timeout(std::string(what) + ": no completion before the deadline");
  for (int i = 0; i < 3; ++i) c.progress();
  if (g.calls != 1) return Internal(std::string(what) + ": completion ran " + std::to_string(g.calls) + " times");
  return g.status;
}

// A buffer of `len` bytes every rank exposes for its peer's get_async():
// filled with the pattern of (its rank, `salt`), registered when the module
// declares kCapGet (the peer may have 'get' even if this rank does not), its
// address and key in the modex. After the sync that publishes them,
// peer_base and peer_key name the peer's. `ready` stays false when the
// scenario ends here: a failure, or a skip without 'get' (the harness's final
// sync keeps `mine` alive for a peer that reads it).
struct SharedBuffer {
  std::vector<char> mine;
  transport::MemoryRegion region;
  uint64_t peer_base = 0;
  std::string peer_key;
  bool registered = false;
  bool ready = false;
};

void share_buffer(Child& c, size_t len, uint64_t salt, SharedBuffer& b) {
  b.mine.resize(len);
  fill_pattern(stream_seed(c.rank(), salt, 0), 0, b.mine.data(), len);
  if (c.caps() & kCapGet) {
    Status rs = c.module().register_memory(b.mine.data(), len, &b.region);
    CT_ASSERT(c, rs.ok()) << "register_memory(" << len << " bytes): " << rs.to_string();
    CT_ASSERT(c, b.region.key.size() <= transport::kMaxRemoteKey)
        << "a " << b.region.key.size() << "-byte remote key is over kMaxRemoteKey";
    b.registered = true;
  }
  CT_ASSERT(c, c.modex().put("test.get.addr", std::to_string(reinterpret_cast<uintptr_t>(b.mine.data()))).ok());
  CT_ASSERT(c, c.modex().put("test.get.key", to_hex(b.region.key)).ok());
  if (!c.sync()) return;
  if (!(c.caps() & kCapGet)) {
    c.skip("capability 'get' not declared after connect() (" + transport::capability_names(c.caps()) + ")");
    return;
  }
  auto addr = c.modex().get(c.peer(), "test.get.addr");
  auto key_hex = c.modex().get(c.peer(), "test.get.key");
  CT_ASSERT(c, addr.ok() && key_hex.ok()) << "the peer's buffer is not in the modex";
  b.peer_base = std::stoull(*addr);
  b.peer_key = from_hex(*key_hex);
  b.ready = true;
}

TEST_P(TransportConformance, GetReadsPeerMemory) {
  Run([](Child& c) {
    constexpr size_t kLen = 1 * MiB;
    SharedBuffer b;
    share_buffer(c, kLen, 6, b);
    if (!b.ready) return;
    const uint64_t base = b.peer_base;
    const std::string& key = b.peer_key;
    struct Range {
      size_t off, len;
    };
    for (Range r : {Range{0, kLen}, Range{7, 1}, Range{4095, 4097}, Range{kLen - 1, 1}, Range{12345, 500000}}) {
      std::vector<char> local(r.len + 2, '\x5a');
      Status s = transfer_blocking(c, false, local.data() + 1, r.len, base + r.off, key);
      CT_ASSERT(c, s.ok()) << "get_async(" << r.len << " bytes at offset " << r.off << "): " << s.to_string();
      size_t bad = first_mismatch(stream_seed(c.peer(), 6, 0), r.off, local.data() + 1, r.len);
      CT_EXPECT(c, bad == r.len) << "get(" << r.len << " bytes at offset " << r.off << "): byte " << bad
                                 << " differs from the peer's memory";
      CT_EXPECT(c, local.front() == '\x5a' && local.back() == '\x5a')
          << "get(" << r.len << " bytes at offset " << r.off << ") wrote outside the destination";
    }
    (void)c.sync();  // the peer keeps its buffer until everyone is done
    if (b.registered) c.module().deregister_memory(b.region);
  });
}

// kCapPut: put_async() writes the right bytes at the right place of the
// peer's registered memory, nothing around them, and its completion runs
// exactly once and means the bytes are there (the peer checks them after a
// sync that follows the completion).
TEST_P(TransportConformance, PutWritesPeerMemory) {
  Run([](Child& c) {
    constexpr size_t kLen = 1 * MiB;
    SharedBuffer b;
    share_buffer(c, kLen, 8, b);
    if (!b.ready) return;
    if (!(c.caps() & kCapPut)) {
      (void)c.sync();
      if (b.registered) c.module().deregister_memory(b.region);
      c.skip("capability 'put' not declared after connect() (" + transport::capability_names(c.caps()) + ")");
      return;
    }
    struct Range {
      size_t off, len;
    };
    const Range ranges[] = {{0, 4096}, {8191, 1}, {20000, 300000}, {kLen - 5, 5}};
    std::vector<char> src(kLen);
    fill_pattern(stream_seed(c.rank(), 9, 0), 0, src.data(), kLen);
    for (Range r : ranges) {
      Status s = transfer_blocking(c, true, src.data() + r.off, r.len, b.peer_base + r.off, b.peer_key);
      CT_ASSERT(c, s.ok()) << "put_async(" << r.len << " bytes at offset " << r.off << "): " << s.to_string();
    }
    if (!c.sync()) return;  // the peer's puts into this rank's buffer are complete
    // This rank's buffer: the peer's pattern in its ranges, the own one elsewhere.
    std::vector<char> expect(kLen), theirs(kLen);
    fill_pattern(stream_seed(c.rank(), 8, 0), 0, expect.data(), kLen);
    fill_pattern(stream_seed(c.peer(), 9, 0), 0, theirs.data(), kLen);
    for (Range r : ranges) std::copy_n(theirs.data() + r.off, r.len, expect.data() + r.off);
    size_t bad = 0;
    while (bad < kLen && b.mine[bad] == expect[bad]) ++bad;
    CT_EXPECT(c, bad == kLen) << "after the peer's puts, byte " << bad << " of this rank's region is "
                              << static_cast<int>(static_cast<unsigned char>(b.mine[bad])) << ", expected "
                              << static_cast<int>(static_cast<unsigned char>(expect[bad]));
    (void)c.sync();
    if (b.registered) c.module().deregister_memory(b.region);
  });
}

// kCapGet and a peer's death: rank 0 reads rank 1's 32 MiB region again and
// again, always one get_async() outstanding, while rank 1 serves it (a pull
// over UCX's tcp is answered by the owner), until one of them is killed by
// a thread of its own 300 ms in: at any point, inside the transport's
// progress too, most likely in the middle of a transfer. When the owner
// dies, the reader's outstanding get completes exactly once (an error, or Ok
// if it was done), Host::peer_failed(1) comes, and nothing hangs or aborts.
// When the reader dies, the owner learns it through Host::peer_failed(0) and
// is not taken down with it (say by its network library's handling of a
// connection lost mid-reply). Either survivor stays usable.
void get_while_peer_killed(Child& c, int dies) {
  constexpr size_t kLen = 32 * MiB;
  SharedBuffer b;
  share_buffer(c, kLen, 8, b);
  if (!b.ready) return;
  if (c.rank() == dies) {
    const auto kill_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    std::thread([&c, kill_at] {
      std::this_thread::sleep_until(kill_at);
      c.exit_abruptly(true);
    }).detach();
  } else {
    c.expect_peer_failure();
  }
  if (c.rank() == 1) {
    c.phase("serving rank 0's gets");
    c.wait_until([&] { return !c.peer_failures().empty() || c.expired(); });
    CT_ASSERT(c, !c.peer_failures().empty()) << "rank 0 was killed while reading this rank's memory; no "
                                                 "Host::peer_failed(0) before the deadline";
    CT_EXPECT(c, c.peer_failures().front().rank == 0) << "peer_failed() names rank " << c.peer_failures().front().rank;
    for (int i = 0; i < 100; ++i) c.progress();
    if (b.registered) c.module().deregister_memory(b.region);
    return;
  }
  std::vector<char> local(kLen);
  size_t done_ok = 0;
  Status failed;
  c.phase("reading rank 1's memory, one get outstanding at a time");
  while (c.peer_failures().empty()) {
    CT_ASSERT(c, !c.expired()) << done_ok << " reads of 32 MiB completed and rank " << dies
                               << " was not killed before the deadline";
    GetResult g;
    Status s = c.module().get_async(1, local.data(), kLen, b.peer_base, b.peer_key,
                                    transport::Completion{&record_get, &g});
    if (s.code() == Code::kWouldBlock) {
      c.progress();
      CT_ASSERT(c, !c.expired()) << "get_async() kept answering would-block";
      continue;
    }
    if (!s.ok()) {  // refused up front: rank 1 is known lost
      CT_ASSERT(c, dies == 1) << "get_async() from a live rank 1: " << s.to_string();
      failed = s;
      break;
    }
    while (g.calls == 0 && !c.expired()) c.progress();
    CT_ASSERT(c, g.calls == 1) << "a get_async() of 32 MiB from rank 1 " << (dies == 1 ? "(killed meanwhile) " : "")
                               << "did not complete before the deadline (" << done_ok << " completed before it)";
    for (int i = 0; i < 3; ++i) c.progress();
    CT_ASSERT(c, g.calls == 1) << "a get_async() completion ran " << g.calls << " times";
    if (!g.status.ok()) {
      CT_ASSERT(c, dies == 1) << "get_async() from a live rank 1 failed: " << g.status.to_string();
      failed = g.status;
      break;
    }
    ++done_ok;
    const size_t bad = first_mismatch(stream_seed(1, 8, 0), 0, local.data(), kLen);
    CT_ASSERT(c, bad == kLen) << "get #" << done_ok << ": byte " << bad << " differs from rank 1's memory";
  }
  c.phase("waiting for Host::peer_failed(1)");
  c.wait_until([&] { return !c.peer_failures().empty() || c.expired(); });
  CT_ASSERT(c, !c.peer_failures().empty()) << "no Host::peer_failed(1) after rank 1 was killed";
  CT_EXPECT(c, c.peer_failures().front().rank == 1) << "peer_failed() names rank " << c.peer_failures().front().rank;
  for (int i = 0; i < 100; ++i) c.progress();
  c.note(std::to_string(done_ok) + " reads of 32 MiB completed before rank 1 was killed; then " +
         (failed.ok() ? std::string("the death was reported first") : "a get failed: " + failed.to_string()));
  if (b.registered) c.module().deregister_memory(b.region);
}

TEST_P(TransportConformance, GetFromAPeerKilledMidTransfer) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  Run([](Child& c) { get_while_peer_killed(c, 1); });
}

TEST_P(TransportConformance, GetByAPeerKilledMidTransfer) {
  if (is_self()) GTEST_SKIP() << "self has no peer";
  Run([](Child& c) { get_while_peer_killed(c, 0); });
}

// Sends `frames` frames to the peer, odd ones by send_zcopy(), even ones by
// send(), and receives as many: in order and intact, each completion run
// once and successfully, and a buffer scribbled over once its completion ran
// (or at once after send()) changes nothing the peer got. With `head_alone`
// a frame's first 48 bytes are an iovec of their own, as the engine's header.
void zcopy_exchange(Child& c, uint64_t frames, uint64_t salt, const std::function<size_t(uint64_t)>& payload_of,
                    bool head_alone) {
  std::vector<std::string> bufs(frames);
  std::vector<std::vector<iovec>> iovs(frames);
  std::vector<GetResult> done(frames);
  uint64_t received = 0;
  bool ok = true;
  c.deliver_to([&](int src, const void* p, size_t n) {
    Frame f{src, std::string(static_cast<const char*>(p), n)};
    if (ok && !check_seq_frame(c, f, c.peer(), salt, received, payload_of(received))) ok = false;
    ++received;
  });
  for (uint64_t i = 0; i < frames && ok && !c.expired(); ++i) {
    make_seq_frame(c.rank(), salt, i, payload_of(i), bufs[i], iovs[i]);
    if (head_alone) iovs[i] = {{bufs[i].data(), 48}, {bufs[i].data() + 48, bufs[i].size() - 48}};
    for (;;) {
      Status s = (i % 2) ? c.module().send_zcopy(c.peer(), iovs[i].data(), static_cast<int>(iovs[i].size()),
                                                 transport::Completion{&record_get, &done[i]})
                         : c.module().send(c.peer(), iovs[i].data(), static_cast<int>(iovs[i].size()));
      if (s.ok()) break;
      CT_ASSERT(c, s.code() == Code::kWouldBlock) << "frame " << i << ": " << s.to_string();
      if (c.expired()) break;
      c.progress();
    }
    if (i % 2 == 0) done[i].calls = 1;  // a plain send(): the buffer is free at once
    for (uint64_t j = 0; j <= i; ++j)
      if (done[j].calls == 1 && !bufs[j].empty()) {
        std::fill(bufs[j].begin(), bufs[j].end(), '\xee');
        bufs[j].clear();
      }
    if (head_alone) c.progress();  // large frames: UCX's rendezvous needs both sides' progress
  }
  c.wait_until([&] {
    bool all = true;
    for (uint64_t j = 1; j < frames; j += 2) all = all && done[j].calls > 0;
    return (all && received >= frames) || !ok || c.expired();
  });
  CT_ASSERT(c, ok) << "a frame arrived wrong";
  CT_EXPECT(c, received == frames) << "received " << received << " of " << frames << " frames";
  for (uint64_t j = 1; j < frames; j += 2) {
    CT_EXPECT(c, done[j].calls == 1) << "send_zcopy frame " << j << ": completion ran " << done[j].calls << " times";
    CT_EXPECT(c, done[j].status.ok()) << "send_zcopy frame " << j << ": " << done[j].status.to_string();
    if (done[j].calls != 1) break;
  }
}

// send_zcopy() of small frames interleaved with send() (zcopy_exchange).
TEST_P(TransportConformance, ZeroCopySendCompletes) {
  Run([](Child& c) {
    const size_t mf = c.module().max_frame();
    zcopy_exchange(c, 2000, 11, [&](uint64_t i) { return clamp_payload(c, (i * 97) % 4000, mf); }, false);
    (void)c.sync();
  });
}

// send_zcopy() of large frames as the engine sends an eager message of at
// least Attributes::zcopy_threshold bytes (its header alone in the first
// iovec), every other frame a small send(), both ranks at once, to a host
// that places (zcopy_exchange). A module that declares a zcopy_threshold
// towards its peer places such frames (transport.h): it must have placed at
// least one.
TEST_P(TransportConformance, ZeroCopyLargeFramesPlaced) {
  JobSpec spec;
  spec.placement_head = 48;
  Run(
      [](Child& c) {
        const size_t mf = c.module().max_frame();
        constexpr uint64_t kFrames = 40;
        zcopy_exchange(c, kFrames, 12, [&](uint64_t i) {
          return clamp_payload(c, i % 2 ? (64 + (i * 37) % 960) * KiB : 48 + (i * 97) % 4000, mf);
        }, true);
        const size_t zt = c.module().attributes(c.peer()).zcopy_threshold;
        if (zt != 0 && c.peer() != c.rank()) {
          CT_EXPECT(c, c.placed_frames() > 0)
              << "zcopy_threshold " << zt << " declared towards rank " << c.peer() << ", but none of "
              << kFrames / 2 << " large frames was placed";
        }
        c.note(std::to_string(c.placed_frames()) + " of " + std::to_string(kFrames) + " frames placed");
        (void)c.sync();
      },
      spec);
}

// The re-entry rule (transport.h): Host::deliver may send. Rank 0 sends
// frame 0; each side answers every frame from inside deliver() with the next
// one, so the whole exchange of 20k frames runs inside progress() calls.
TEST_P(TransportConformance, DeliverMaySend) {
  Run([](Child& c) {
    const size_t mf = c.module().max_frame();
    constexpr uint64_t kRounds = 10000;
    constexpr uint64_t kSalt = 12;
    uint64_t next_in = 0, next_out = 0;
    bool ok = true;
    std::string buf;
    std::vector<iovec> iov;
    auto send_next = [&]() {
      make_seq_frame(c.rank(), kSalt, next_out, clamp_payload(c, (next_out * 13) % 3000, mf), buf, iov);
      for (;;) {
        Status s = c.module().send(c.peer(), iov.data(), static_cast<int>(iov.size()));
        if (s.ok()) break;
        if (s.code() != Code::kWouldBlock) {
          c.fail("send from inside deliver(), frame " + std::to_string(next_out) + ": " + s.to_string());
          ok = false;
          return;
        }
        // No room: the rule forbids progress() here; the frame waits for the
        // next turn of the scenario's loop (below).
        return;
      }
      ++next_out;
    };
    // Rank 0 (or a rank alone with itself) leads: it sends frame k once it
    // has received k frames; the other answers frame k with its frame k.
    const bool leads = c.rank() == 0 || c.peer() == c.rank();
    auto my_turn = [&] { return ok && next_out < kRounds && (leads ? next_out <= next_in : next_out < next_in); };
    c.deliver_to([&](int src, const void* p, size_t n) {
      Frame f{src, std::string(static_cast<const char*>(p), n)};
      if (ok && !check_seq_frame(c, f, c.peer(), kSalt, next_in, clamp_payload(c, (next_in * 13) % 3000, mf)))
        ok = false;
      ++next_in;
      if (my_turn()) send_next();
    });
    if (my_turn()) send_next();
    c.wait_until([&] {
      // A frame the transport had no room for inside deliver() goes out here.
      if (my_turn()) send_next();
      return (next_in >= kRounds && next_out >= kRounds) || !ok || c.expired();
    });
    CT_ASSERT(c, ok) << "a frame arrived wrong";
    CT_EXPECT(c, next_in == kRounds && next_out == kRounds)
        << "exchange stalled: sent " << next_out << ", received " << next_in << " of " << kRounds;
    (void)c.sync();
  });
}

// Attributes (transport.h): what the engine reads instead of guessing must be
// declared, and be coherent with the capabilities.
TEST_P(TransportConformance, AttributesDeclared) {
  Run([](Child& c) {
    for (int r = 0; r < c.size(); ++r) {
      if (!c.module().reaches(r)) continue;
      const transport::Attributes a = c.module().attributes(r);
      const std::string who = "attributes(" + std::to_string(r) + ")";
      CT_EXPECT(c, a.eager_limit > 0) << who << ": eager_limit 0 (every message would go by rendezvous)";
      CT_EXPECT(c, a.latency_us > 0 && a.latency_us < 1e6) << who << ": latency estimate " << a.latency_us << " us";
      CT_EXPECT(c, a.bandwidth_mbs > 0) << who << ": bandwidth estimate " << a.bandwidth_mbs << " MB/s";
      CT_EXPECT(c, a.exclusivity <= 100) << who << ": exclusivity " << a.exclusivity << " (0..100)";
      if (c.caps() & kCapSelf) CT_EXPECT(c, a.exclusivity == 100) << who << ": a self transport must win its rank";
      else CT_EXPECT(c, a.exclusivity < 100) << who << ": 100 is kept for self";
    }
    (void)c.sync();
  });
}

// kCapWaitFd: wait_fd() >= 0, and after arm_wait() returned true, poll() on
// it wakes when the peer sends.
TEST_P(TransportConformance, WaitFdWakesOnSend) {
  Run([](Child& c) {
    constexpr int kRounds = 20;
    const bool waiter = c.size() == 1 || c.rank() == 0;
    const bool sender = c.size() == 1 || c.rank() == 1;
    // Capabilities are read after connect(): a module may learn them in init().
    CT_ASSERT(c, c.modex().put("test.caps", std::to_string(c.caps())).ok());
    if (!c.sync()) return;
    auto waiter_caps = c.modex().get(0, "test.caps");
    CT_ASSERT(c, waiter_caps.ok()) << waiter_caps.status().to_string();
    if (!(std::stoull(*waiter_caps) & kCapWaitFd)) {
      c.skip("capability 'wait-fd' not declared after connect() (" +
             transport::capability_names(std::stoull(*waiter_caps)) + ")");
      return;
    }
    std::string buf;
    std::vector<iovec> iov;
    auto send_one = [&](int round) {
      make_seq_frame(c.rank(), 7, static_cast<uint64_t>(round), 64, buf, iov);
      for (;;) {
        Status s = c.module().send(c.peer(), iov.data(), static_cast<int>(iov.size()));
        if (s.ok()) return true;
        if (s.code() != Code::kWouldBlock || c.expired()) {
          c.fail("send() in round " + std::to_string(round) + ": " + s.to_string());
          return false;
        }
        c.progress();
      }
    };
    for (int round = 0; round < kRounds; ++round) {
      if (waiter) {
        const int fd = c.module().wait_fd();
        CT_ASSERT(c, fd >= 0) << "wait_fd() is " << fd << " although the module declares 'wait-fd'";
        int tries = 0;
        while (!c.module().arm_wait()) {
          c.progress();
          CT_ASSERT(c, c.inbox().empty()) << "a frame arrived before the peer was told to send";
          CT_ASSERT(c, ++tries < 100000) << "arm_wait() keeps returning false with nothing pending";
        }
        if (c.size() > 1) {
          CT_ASSERT(c, c.post(c.peer(), "send"));
        } else if (!send_one(round)) {
          return;
        }
        // Sleep as a blocking receive would; the deadline only bounds a hang.
        bool woke = false;
        while (!woke && !c.expired()) {
          pollfd p{fd, POLLIN, 0};
          int r = ::poll(&p, 1, 500);
          CT_ASSERT(c, r >= 0) << "poll(wait_fd): " << std::strerror(errno);
          woke = r > 0;
        }
        CT_ASSERT(c, woke) << "round " << round << ": wait_fd() never became readable after arm_wait() returned true "
                                                   "and the peer sent a frame";
        while (c.inbox().empty() && !c.expired()) c.progress();
        CT_ASSERT(c, !c.inbox().empty()) << "round " << round << ": wait_fd() woke but progress() delivers nothing";
        Frame f = std::move(c.inbox().front());
        c.inbox().pop_front();
        if (!check_seq_frame(c, f, c.peer(), 7, static_cast<uint64_t>(round), 64)) return;
      } else if (sender) {
        auto m = c.wait_post(true);
        if (!m) return;
        if (!send_one(round)) return;
      }
    }
  });
}

// ---------------------------------------------------------------------------
// Checkpoint/restart (kCapCheckpoint). The scenarios play the engine and the
// CR service around the hooks: the crcp drain (progress until every frame
// sent is delivered), on_checkpoint(), the checkpointer (nothing, or a fork
// for a new process set), on_continue()/on_restart(), the modex fence,
// connect(), traffic.

// What a core image must not hold (ARCHITECTURE.md): any IPv4/IPv6
// socket (CRIU 4.1.1 cannot dump one on kernels >= 6.16), and any file,
// mapping or pidfd shared with or about another rank (lz-shm.* segments and
// FIFOs). One line per offending descriptor or mapping.
std::vector<std::string> uncheckpointable_resources() {
  std::set<std::string> inet;  // socket inodes of this network namespace
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6", "/proc/self/net/udp", "/proc/self/net/udp6",
                            "/proc/self/net/raw", "/proc/self/net/raw6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string tok;
      for (int i = 0; i < 10 && (ls >> tok); ++i) {
      }
      if (ls) inet.insert(tok);  // the 10th column is the inode
    }
  }
  std::vector<std::string> out;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    const int self_fd = ::dirfd(d);
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' || std::atoi(e->d_name) == self_fd) continue;
      char target[512];
      const ssize_t n = ::readlinkat(self_fd, e->d_name, target, sizeof target - 1);
      if (n <= 0) continue;
      const std::string t(target, static_cast<size_t>(n));
      const std::string fd = std::string("fd ") + e->d_name + " -> " + t;
      if (t.rfind("socket:[", 0) == 0 && inet.count(t.substr(8, t.size() - 9)))
        out.push_back(fd + " (an inet socket)");
      else if (t.find("lz-shm.") != std::string::npos)
        out.push_back(fd + " (a shared-memory file of the shm transport)");
      else if (t == "anon_inode:[pidfd]")
        out.push_back(fd + " (a pidfd: refers to a process outside the image)");
    }
    ::closedir(d);
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("lz-shm.") != std::string::npos) out.push_back("mapping " + line);
  return out;
}

bool skip_without_checkpoint(Child& c) {
  if (c.caps() & kCapCheckpoint) return false;
  c.skip("capability 'checkpoint' not declared (" + transport::capability_names(c.caps()) + ")");
  return true;
}

// on_checkpoint() on drained channels, then the check that a core image of
// this process would hold nothing it cannot carry.
bool checkpoint_released(Child& c, const std::string& when) {
  c.phase("on_checkpoint " + when);
  Status s = c.module().on_checkpoint();
  if (!s.ok()) {
    c.fail("on_checkpoint() " + when + " on drained channels: " + s.to_string());
    return false;
  }
  for (const auto& r : uncheckpointable_resources())
    c.fail("after on_checkpoint() " + when + " the process still holds " + r);
  return !c.failed();
}

// on_continue() or on_restart(), this rank's extra modex entries, the fence,
// connect(): what the engine does after the hooks.
bool reconnect(Child& c, bool restart, const std::string& when,
               const std::map<std::string, std::string>& extra = {}) {
  const char* hook = restart ? "on_restart()" : "on_continue()";
  c.phase(std::string(hook) + " " + when);
  Status s = restart ? c.module().on_restart() : c.module().on_continue();
  if (!s.ok()) {
    c.fail(std::string(hook) + " " + when + ": " + s.to_string());
    return false;
  }
  for (const auto& [k, v] : extra)
    if (Status p = c.modex().put(k, v); !p.ok()) {
      c.fail("modex put " + k + ": " + p.to_string());
      return false;
    }
  c.phase("modex fence after " + std::string(hook) + " " + when);
  if (s = c.modex().fence(); !s.ok()) {
    c.fail("modex fence after " + std::string(hook) + " " + when + ": " + s.to_string());
    return false;
  }
  c.phase("connect() after " + std::string(hook) + " " + when);
  if (s = c.module().connect(); !s.ok()) {
    c.fail("connect() after " + std::string(hook) + " " + when + ": " + s.to_string());
    return false;
  }
  if (!c.module().reaches(c.peer())) {
    c.fail("reaches(" + std::to_string(c.peer()) + ") is false after " + hook + " " + when + " and connect()");
    return false;
  }
  return true;
}

// N sequenced frames each way (one rank: to itself), all sent before any is
// looked at, so that many are still queued or unread when sending ends; then
// progress until every frame is delivered (the crcp drain).
constexpr size_t kCrFrames = 2000;
Flow cr_flow(Child& c, size_t n, uint64_t salt) {
  const size_t mf = c.module().max_frame();
  Flow f = seq_flow(c, n, salt, [mf](uint64_t i) { return std::min<size_t>((i * 131) % 4000 + 1, mf - kSeqHeader); },
                    c.size() > 1);
  f.send_before_receive = true;
  return f;
}

// Data in flight both ways, drained, on_checkpoint (nothing uncheckpointable
// left), on_continue, fence, connect, then N more frames each way arrive
// exactly once, in order, intact. Twice. No barrier before on_checkpoint: a
// rank may checkpoint while its peer still drains what it sent.
TEST_P(TransportConformance, CheckpointContinue) {
  Run([](Child& c) {
    if (skip_without_checkpoint(c)) return;
    c.phase("traffic before the first checkpoint");
    Flow first = cr_flow(c, kCrFrames, 40);
    if (!run_flow(c, first)) return;
    for (int cycle = 1; cycle <= 2; ++cycle) {
      const std::string when = "(cycle " + std::to_string(cycle) + ")";
      if (!checkpoint_released(c, when) || !reconnect(c, false, when)) return;
      c.phase("traffic after checkpoint/continue " + when);
      Flow after = cr_flow(c, kCrFrames, 40 + static_cast<uint64_t>(cycle));
      if (!run_flow(c, after)) return;
    }
  });
}

// A restored process set without a checkpointer: after on_checkpoint() every
// rank continues in a forked copy (its memory is the rank's image) and the
// original exits; the copies (new pids) run on_restart(), publish, fence,
// connect, and exchange N frames each way. A transport with 'get' must read
// the peer's memory at its new pid; a second checkpoint/continue follows.
TEST_P(TransportConformance, CheckpointRestartNewProcesses) {
  Run([](Child& c) {
    if (skip_without_checkpoint(c)) return;
    c.phase("traffic before the checkpoint");
    Flow first = cr_flow(c, kCrFrames, 50);
    if (!run_flow(c, first)) return;
    if (!checkpoint_released(c, "(before the restart)")) return;
    c.phase("replacing the process by a copy");
    const pid_t old_pid = c.replace_process();
    if (old_pid < 0) return;
    CT_ASSERT(c, ::getpid() != old_pid);
    std::vector<unsigned char> mine(8192);
    fill_pattern(900 + static_cast<uint64_t>(c.rank()), 0, mine.data(), mine.size());
    if (!reconnect(c, true, "(in the new process)",
                   {{"test.cr.buf", std::to_string(reinterpret_cast<uintptr_t>(mine.data()))},
                    {"test.cr.pid", std::to_string(::getpid())}}))
      return;
    if (c.size() > 1 && (c.caps() & kCapGet)) {
      c.phase("get from the restarted peer");
      // Registered with the rebuilt module; the key goes out like the address.
      transport::MemoryRegion region;
      Status rs = c.module().register_memory(mine.data(), mine.size(), &region);
      CT_ASSERT(c, rs.ok()) << "register_memory after restart: " << rs.to_string();
      CT_ASSERT(c, c.modex().put("test.cr.key", to_hex(region.key)).ok());
      if (!c.sync()) return;
      auto addr = c.modex().get(c.peer(), "test.cr.buf");
      auto key = c.modex().get(c.peer(), "test.cr.key");
      CT_ASSERT(c, addr.ok() && key.ok()) << "the peer's buffer is not in the modex";
      std::vector<unsigned char> theirs(mine.size());
      Status s = transfer_blocking(c, false, theirs.data(), theirs.size(), std::stoull(*addr), from_hex(*key));
      CT_ASSERT(c, s.ok()) << "get() from rank " << c.peer() << " after restart (its pid is now "
                           << c.modex().get(c.peer(), "test.cr.pid").value() << "): " << s.to_string();
      const size_t bad = first_mismatch(900 + static_cast<uint64_t>(c.peer()), 0, theirs.data(), theirs.size());
      CT_ASSERT(c, bad == theirs.size()) << "get() after restart read wrong bytes at offset " << bad;
      if (!c.sync()) return;  // the peer read ours too
      c.module().deregister_memory(region);
    }
    c.phase("traffic in the new process set");
    Flow after = cr_flow(c, kCrFrames, 51);
    if (!run_flow(c, after)) return;
    if (!checkpoint_released(c, "(after the restart)") || !reconnect(c, false, "(after the restart)")) return;
    c.phase("traffic after a checkpoint/continue in the new process set");
    Flow again = cr_flow(c, kCrFrames, 52);
    run_flow(c, again);
  });
}

// on_checkpoint() while frames sent to this rank are still undelivered (in
// its rings or socket). It must not lose them: either it refuses with an
// error (nothing released: progress then delivers them all, and a drained
// checkpoint works afterwards), or it keeps them in process memory and
// delivers them after continue. The peer's side is told which one happened.
TEST_P(TransportConformance, CheckpointRefusedWhenNotDrained) {
  Run([](Child& c) {
    if (skip_without_checkpoint(c)) return;
    const bool two = c.size() > 1;
    const bool sender = !two || c.rank() == 0;
    const bool receiver = !two || c.rank() == 1;
    constexpr size_t kK = 64, kPayload = 200;
    c.phase("warm-up");
    Flow warm = seq_flow(c, 20, 60, [](uint64_t) { return size_t{100}; }, two);
    // The second sync does not progress: from there on the receiver takes
    // nothing until its on_checkpoint().
    if (!run_flow(c, warm) || !c.sync() || !c.sync(false)) return;

    std::string buf;
    std::vector<iovec> iov;
    if (sender) {
      c.phase("sending frames the peer will not progress");
      for (size_t i = 0; i < kK; ++i) {
        make_seq_frame(c.rank(), 61, i, kPayload, buf, iov);
        Status s = c.module().send(c.peer(), iov.data(), static_cast<int>(iov.size()));
        CT_ASSERT(c, s.ok()) << "send() of frame #" << i << " (" << kK << " small frames must fit): " << s.to_string();
      }
      if (two) {
        CT_ASSERT(c, c.post(c.peer(), "sent"));
      }
    }
    bool refused = false;
    if (receiver) {
      if (two) {
        auto m = c.wait_post(false);  // no progress: the frames stay undelivered
        if (!m) return;
      }
      // Let the bytes land without consuming them (a socket may still be
      // carrying them): sleep on wait_fd() when there is one.
      const int fd = c.module().wait_fd();
      if (fd >= 0 && c.module().arm_wait()) {
        pollfd p{fd, POLLIN, 0};
        CT_ASSERT(c, ::poll(&p, 1, 10000) == 1) << "wait_fd() never became readable with frames sent to this rank";
      }
      CT_ASSERT(c, c.inbox().empty()) << c.inbox().size() << " frame(s) delivered before the checkpoint";
      c.phase("on_checkpoint with undelivered frames");
      Status s = c.module().on_checkpoint();
      refused = !s.ok();
      if (refused) {
        CT_EXPECT(c, s.code() != Code::kUnimplemented && !s.message().empty())
            << "the refusal must say why: " << s.to_string();
        c.note("on_checkpoint() with undelivered frames refused: " + s.to_string());
      } else {
        c.note("on_checkpoint() with undelivered frames accepted; they must still arrive after continue");
      }
      if (two) {
        CT_ASSERT(c, c.post(c.peer(), refused ? "refused" : "accepted"));
      }
      if (!refused && !reconnect(c, false, "(after a checkpoint with undelivered frames)")) return;
      c.phase("receiving the frames held across the refused (or accepted) checkpoint");
      Flow rest;
      rest.src = c.peer();
      rest.recv_count = kK;
      const int src = c.peer();
      rest.check = [&c, src](size_t i, const Frame& f) { return check_seq_frame(c, f, src, 61, i, kPayload); };
      if (!run_flow(c, rest)) return;
    } else {
      auto m = c.wait_post(true);
      if (!m) return;
      if (*m == "accepted" &&
          !(checkpoint_released(c, "(peer accepted undelivered frames)") &&
            reconnect(c, false, "(peer accepted undelivered frames)")))
        return;
    }
    if (!c.sync()) return;
    c.phase("a drained checkpoint afterwards");
    Flow before = seq_flow(c, 100, 62, [](uint64_t i) { return size_t(i * 7); }, two);
    if (!run_flow(c, before)) return;
    if (!checkpoint_released(c, "(drained, after the refusal)") || !reconnect(c, false, "(after the refusal)")) return;
    Flow after = seq_flow(c, 100, 63, [](uint64_t i) { return size_t(i * 7); }, two);
    run_flow(c, after);
  });
}

// Checkpoint hooks: a transport without 'checkpoint' must refuse them (it
// must not claim CR silently); one with it must carry traffic in order after
// on_checkpoint() + on_continue() + the modex fence + connect() on drained
// channels (the scenarios above go further).
TEST_P(TransportConformance, CheckpointHooksHonest) {
  Run([](Child& c) {
    const bool has_cr = (c.caps() & kCapCheckpoint) != 0;
    const size_t mf = c.module().max_frame();
    auto payload = [&](uint64_t i) { return clamp_payload(c, (i * 37) % 300, mf); };
    Flow before = seq_flow(c, 1000, 8, payload, c.size() > 1);
    if (!run_flow(c, before) || !c.sync()) return;
    if (!has_cr) {
      for (auto [name, s] : {std::pair{"on_checkpoint", c.module().on_checkpoint()},
                             std::pair{"on_continue", c.module().on_continue()},
                             std::pair{"on_restart", c.module().on_restart()}})
        CT_EXPECT(c, !s.ok()) << name << "() returned Ok but the module does not declare 'checkpoint'";
    } else {
      c.phase("on_checkpoint");
      Status s = c.module().on_checkpoint();
      CT_ASSERT(c, s.ok()) << "on_checkpoint() on drained channels: " << s.to_string();
      if (!c.sync(false)) return;
      if (!reconnect(c, false, "(hooks honest)")) return;
    }
    c.phase("traffic after the hooks");
    Flow after = seq_flow(c, 1000, 9, payload, c.size() > 1);
    run_flow(c, after);
  });
}

// Sends that cannot be carried are refused with an error (not kWouldBlock,
// not a crash): an unknown rank, a frame larger than max_frame(). The module
// keeps working afterwards.
TEST_P(TransportConformance, InvalidSendsRejected) {
  Run([](Child& c) {
    char byte = 'x';
    iovec one{&byte, 1};
    for (int bad : {-1, c.size(), c.size() + 100}) {
      Status s = c.module().send(bad, &one, 1);
      CT_EXPECT(c, !s.ok() && s.code() != Code::kWouldBlock)
          << "send() to rank " << bad << " of a " << c.size() << "-rank job returned " << s.to_string();
    }
    const size_t mf = c.module().max_frame();
    // max_frame + 1 bytes without allocating them: one chunk repeated.
    const size_t chunk = std::min<size_t>(mf + 1, 16 * MiB);
    std::vector<char> block(chunk, 'y');
    std::vector<iovec> iov;
    for (size_t left = mf + 1; left > 0;) {
      size_t n = std::min(left, chunk);
      iov.push_back({block.data(), n});
      left -= n;
    }
    Status s = c.module().send(c.peer(), iov.data(), static_cast<int>(iov.size()));
    CT_EXPECT(c, !s.ok() && s.code() != Code::kWouldBlock)
        << "send() of max_frame()+1 = " << (mf + 1) << " bytes returned " << s.to_string();
    for (int i = 0; i < 100; ++i) c.progress();
    if (!c.inbox().empty()) {
      c.fail("a refused send() was delivered anyway (" + std::to_string(c.inbox().front().data.size()) + " bytes)");
      c.inbox().clear();
    }
    if (!c.sync()) return;
    Flow f = seq_flow(c, 100, 12, [](uint64_t i) { return size_t(i); }, c.size() > 1);
    run_flow(c, f);
  });
}

INSTANTIATE_TEST_SUITE_P(All, TransportConformance, ::testing::ValuesIn(registered_transports()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace lz::conformance
