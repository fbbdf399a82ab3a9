// A stand-in for runtime/p2p/comm.h used only by coll_threads_test: the same
// collective-context interface, with ranks as threads of one process and
// buffered in-memory messages. It checks the collective algorithms
// (components/coll/*) for every size and function without the p2p engine,
// transports or launcher. Matching follows MPI's rule: per (source, tag) in
// order; a receive whose buffer is too small fails with kDataLoss.
#pragma once

#include <array>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"

namespace lz::test {

struct Message {
  int src;
  int tag;
  std::vector<char> data;
};

// The shared "network" of one simulated job.
struct World {
  explicit World(int n) : inbox(n) {}
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::deque<Message>> inbox;  // per destination, arrival order
  long long messages = 0;
};

}  // namespace lz::test

struct lz_mpi_request_s {
  bool recv = false;
  void* buf = nullptr;
  int count = 0;
  const lz::dt::Datatype* dt = nullptr;
  int peer = 0;
  int tag = 0;
};

struct lz_mpi_comm_s {
  lz_mpi_comm_s(lz::test::World* world, int rank, int size) : world_(world), rank_(rank), size_(size) {}
  int rank() const { return rank_; }
  int size() const { return size_; }

  lz::Status coll_send(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag);
  lz::Status coll_recv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag);
  lz::Status coll_sendrecv(const void* sbuf, int scount, const lz::dt::Datatype& sdt, int dst, int stag, void* rbuf,
                           int rcount, const lz::dt::Datatype& rdt, int src, int rtag);
  lz::StatusOr<lz_mpi_request_s*> coll_isend(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag);
  lz::StatusOr<lz_mpi_request_s*> coll_irecv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag);
  lz::Status coll_waitall(int n, lz_mpi_request_s** reqs);

  std::array<lz::coll::Module*, lz::coll::kNumFunctions> coll_table{};

 private:
  lz::test::World* world_;
  int rank_, size_;
};

namespace lz::rt {
using Comm = ::lz_mpi_comm_s;
}  // namespace lz::rt
