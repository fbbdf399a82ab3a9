// The in-process stand-in communicator of coll_threads_test (see p2p/comm.h here).
#include <cstring>

#include "lazarus/datatype/datatype.h"
#include "p2p/comm.h"

lz::Status lz_mpi_comm_s::coll_send(const void* buf, int count, const lz::dt::Datatype& dt, int dst, int tag) {
  if (dst < 0 || dst >= size_) return lz::InvalidArgument("bad destination " + std::to_string(dst));
  if (count < 0) return lz::InvalidArgument("negative count");
  lz::test::Message m{rank_, tag, std::vector<char>(dt.size() * static_cast<size_t>(count))};
  dt.pack(buf, count, m.data.data());
  {
    std::lock_guard<std::mutex> lock(world_->mu);
    world_->inbox[dst].push_back(std::move(m));
    ++world_->messages;
  }
  world_->cv.notify_all();
  return lz::Status::Ok();
}

lz::Status lz_mpi_comm_s::coll_recv(void* buf, int count, const lz::dt::Datatype& dt, int src, int tag) {
  if (src < 0 || src >= size_) return lz::InvalidArgument("bad source " + std::to_string(src));
  lz::test::Message m;
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
        return lz::Timeout("rank " + std::to_string(rank_) + ": no message from " + std::to_string(src) +
                           " tag " + std::to_string(tag) + " (deadlock?)");
      }
    }
  }
  size_t cap = dt.size() * static_cast<size_t>(count);
  if (m.data.size() > cap) {
    return lz::DataLoss("rank " + std::to_string(rank_) + ": message of " + std::to_string(m.data.size()) +
                        " bytes from " + std::to_string(src) + " tag " + std::to_string(tag) +
                        " truncated to " + std::to_string(cap));
  }
  dt.unpack(m.data.data(), m.data.size(), count, buf);
  return lz::Status::Ok();
}

lz::Status lz_mpi_comm_s::coll_sendrecv(const void* sbuf, int scount, const lz::dt::Datatype& sdt, int dst, int stag,
                                        void* rbuf, int rcount, const lz::dt::Datatype& rdt, int src, int rtag) {
  LZ_RETURN_IF_ERROR(coll_send(sbuf, scount, sdt, dst, stag));
  return coll_recv(rbuf, rcount, rdt, src, rtag);
}

lz::StatusOr<lz_mpi_request_s*> lz_mpi_comm_s::coll_isend(const void* buf, int count, const lz::dt::Datatype& dt,
                                                         int dst, int tag) {
  LZ_RETURN_IF_ERROR(coll_send(buf, count, dt, dst, tag));
  return new lz_mpi_request_s{};
}

lz::StatusOr<lz_mpi_request_s*> lz_mpi_comm_s::coll_irecv(void* buf, int count, const lz::dt::Datatype& dt, int src,
                                                         int tag) {
  return new lz_mpi_request_s{true, buf, count, &dt, src, tag};
}

lz::Status lz_mpi_comm_s::coll_waitall(int n, lz_mpi_request_s** reqs) {
  lz::Status first;
  for (int i = 0; i < n; ++i) {
    if (reqs[i]->recv) {
      lz::Status s = coll_recv(reqs[i]->buf, reqs[i]->count, *reqs[i]->dt, reqs[i]->peer, reqs[i]->tag);
      if (first.ok() && !s.ok()) first = s;
    }
    delete reqs[i];
  }
  return first;
}
