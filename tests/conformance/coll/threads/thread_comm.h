// A collective-context communicator for coll_threads_test: ranks are threads
// of one process exchanging buffered in-memory messages. It implements
// lz::coll::Comm (coll.h), the same interface the runtime's communicator
// implements, so the collective components' algorithms run unchanged for
// every size and function without the p2p engine, transports or launcher.
// Matching follows MPI's rule: per (source, tag) in order; a receive whose
// buffer is too small fails with kDataLoss; a receive that waits more than 3 s
// fails with kTimeout (a deadlocked algorithm fails instead of hanging).
//
//   lz::test::World world(n);                    // shared by the n threads
//   lz::test::ThreadComm comm(&world, rank, n);  // one per thread
//   module.allreduce(sbuf, rbuf, count, dt, op, comm);
#pragma once

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

// Sends are buffered (complete at once); irecv only records the receive,
// which waitall performs.
class ThreadComm final : public coll::Comm {
 public:
  ThreadComm(World* world, int rank, int size) : world_(world), rank_(rank), size_(size) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status send(const void* buf, int count, const dt::Datatype& dt, int dst, int tag) override;
  Status recv(void* buf, int count, const dt::Datatype& dt, int src, int tag) override;
  Status sendrecv(const void* sbuf, int scount, const dt::Datatype& sdt, int dst, int stag, void* rbuf, int rcount,
                  const dt::Datatype& rdt, int src, int rtag) override;
  StatusOr<coll::Request*> isend(const void* buf, int count, const dt::Datatype& dt, int dst, int tag) override;
  StatusOr<coll::Request*> irecv(void* buf, int count, const dt::Datatype& dt, int src, int tag) override;
  Status waitall(int n, coll::Request** reqs) override;

 private:
  World* world_;
  int rank_, size_;
};

}  // namespace lz::test
