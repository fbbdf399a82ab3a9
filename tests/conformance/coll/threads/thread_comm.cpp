// The in-process communicator of coll_threads_test (see thread_comm.h).
#include "thread_comm.h"

#include <chrono>
#include <cstring>
#include <string>

#include "lazarus/datatype/datatype.h"

namespace lz::test {
namespace {

// What isend/irecv hand out: a recorded receive, or an already done send.
struct PendingOp : coll::Request {
  bool recv = false;
  void* buf = nullptr;
  int count = 0;
  const dt::Datatype* dt = nullptr;
  int peer = 0;
  int tag = 0;
};

}  // namespace

Status ThreadComm::send(const void* buf, int count, const dt::Datatype& dt, int dst, int tag) {
  if (dst < 0 || dst >= size_) return InvalidArgument("bad destination " + std::to_string(dst));
  if (count < 0) return InvalidArgument("negative count");
  Message m{rank_, tag, std::vector<char>(dt.size() * static_cast<size_t>(count))};
  dt.pack(buf, count, m.data.data());
  {
    std::lock_guard<std::mutex> lock(world_->mu);
    world_->inbox[dst].push_back(std::move(m));
    ++world_->messages;
  }
  world_->cv.notify_all();
  return Status::Ok();
}

Status ThreadComm::recv(void* buf, int count, const dt::Datatype& dt, int src, int tag) {
  if (src < 0 || src >= size_) return InvalidArgument("bad source " + std::to_string(src));
  Message m;
  {
    std::unique_lock<std::mutex> lock(world_->mu);
    auto& q = world_->inbox[rank_];
    for (;;) {
      auto it = q.begin();
      for (; it != q.end(); ++it) {
        if (it->src == src && it->tag == tag) break;
      }
      if (it != q.end()) {
        m = std::move(*it);
        q.erase(it);
        break;
      }
      if (world_->cv.wait_for(lock, std::chrono::seconds(3)) == std::cv_status::timeout) {
        return Timeout("rank " + std::to_string(rank_) + ": no message from " + std::to_string(src) + " tag " +
                       std::to_string(tag) + " (deadlock?)");
      }
    }
  }
  size_t cap = dt.size() * static_cast<size_t>(count);
  if (m.data.size() > cap) {
    return DataLoss("rank " + std::to_string(rank_) + ": message of " + std::to_string(m.data.size()) +
                    " bytes from " + std::to_string(src) + " tag " + std::to_string(tag) + " truncated to " +
                    std::to_string(cap));
  }
  dt.unpack(m.data.data(), m.data.size(), count, buf);
  return Status::Ok();
}

Status ThreadComm::sendrecv(const void* sbuf, int scount, const dt::Datatype& sdt, int dst, int stag, void* rbuf,
                            int rcount, const dt::Datatype& rdt, int src, int rtag) {
  LZ_RETURN_IF_ERROR(send(sbuf, scount, sdt, dst, stag));
  return recv(rbuf, rcount, rdt, src, rtag);
}

StatusOr<coll::Request*> ThreadComm::isend(const void* buf, int count, const dt::Datatype& dt, int dst, int tag) {
  LZ_RETURN_IF_ERROR(send(buf, count, dt, dst, tag));
  return static_cast<coll::Request*>(new PendingOp{});
}

StatusOr<coll::Request*> ThreadComm::irecv(void* buf, int count, const dt::Datatype& dt, int src, int tag) {
  auto* op = new PendingOp{};
  op->recv = true;
  op->buf = buf;
  op->count = count;
  op->dt = &dt;
  op->peer = src;
  op->tag = tag;
  return static_cast<coll::Request*>(op);
}

Status ThreadComm::waitall(int n, coll::Request** reqs) {
  Status first;
  for (int i = 0; i < n; ++i) {
    auto* op = static_cast<PendingOp*>(reqs[i]);
    if (op == nullptr) continue;
    if (op->recv) {
      Status s = recv(op->buf, op->count, *op->dt, op->peer, op->tag);
      if (first.ok() && !s.ok()) first = s;
    }
    delete op;
    reqs[i] = nullptr;
  }
  return first;
}

}  // namespace lz::test
