#include "p2p/nbc_schedule.h"

#include <algorithm>

#include "lazarus/datatype/copy.h"
#include "p2p/comm.h"
#include "p2p/request.h"

namespace lz::rt {

NbcSchedule::~NbcSchedule() {
  // The engine deletes a schedule once advance() said it ended, with no
  // transfer left in flight.
  for (const dt::Datatype* t : types_) dt::Datatype::release(t);
  for (const dt::Op* o : ops_) dt::Op::release(o);
}

void NbcSchedule::add(Step s) {
  for (const dt::Datatype* t : {s.dt, s.out_dt})
    if (t != nullptr) {
      const_cast<dt::Datatype*>(t)->retain();
      types_.push_back(t);
    }
  if (s.op != nullptr) {
    const_cast<dt::Op*>(s.op)->retain();
    ops_.push_back(s.op);
  }
  rounds_.back().steps.push_back(s);
}

void NbcSchedule::send(const void* buf, int count, const dt::Datatype& dt, int peer) {
  Step s{StepKind::kSend};
  s.in = buf;
  s.count = count;
  s.dt = &dt;
  s.peer = peer;
  add(s);
}

void NbcSchedule::recv(void* buf, int count, const dt::Datatype& dt, int peer) {
  Step s{StepKind::kRecv};
  s.out = buf;
  s.count = count;
  s.dt = &dt;
  s.peer = peer;
  add(s);
}

void NbcSchedule::await(Request* started, Request* status_into) {
  Step s{StepKind::kAwait};
  s.in = started;
  s.out = status_into;
  add(s);
}

void NbcSchedule::copy(const void* src, int scount, const dt::Datatype& sdt, void* dst, int dcount,
                       const dt::Datatype& ddt) {
  Step s{StepKind::kCopy};
  s.in = src;
  s.count = scount;
  s.dt = &sdt;
  s.out = dst;
  s.out_count = dcount;
  s.out_dt = &ddt;
  add(s);
}

void NbcSchedule::reduce(const void* in, void* inout, int count, const dt::Datatype& dt, const dt::Op& op) {
  Step s{StepKind::kReduce};
  s.in = in;
  s.out = inout;
  s.count = count;
  s.dt = &dt;
  s.op = &op;
  add(s);
}

void NbcSchedule::call(std::function<Status()> fn) {
  Step s{StepKind::kCall};
  s.peer = static_cast<int>(calls_.size());
  calls_.push_back(std::move(fn));
  add(s);
}

void NbcSchedule::until(std::function<bool()> done) {
  Step s{StepKind::kUntil};
  s.peer = static_cast<int>(untils_.size());
  untils_.push_back(std::move(done));
  add(s);
}

void NbcSchedule::next_round() {
  if (!rounds_.back().steps.empty()) rounds_.emplace_back();
}

void* NbcSchedule::temp(int count, const dt::Datatype& dt) {
  temps_.push_back(std::make_unique<dt::TypedBuffer>(count, dt));
  return temps_.back()->data();
}

std::vector<int>* NbcSchedule::ints(int n) {
  int_arrays_.push_back(std::make_unique<std::vector<int>>(static_cast<size_t>(n), 0));
  return int_arrays_.back().get();
}

Status NbcSchedule::start_round() {
  for (const Step& s : rounds_[current_].steps) {
    if (s.kind == StepKind::kAwait) {
      pending_.push_back(static_cast<Request*>(const_cast<void*>(s.in)));
      continue;
    }
    if (s.kind != StepKind::kSend && s.kind != StepKind::kRecv) continue;
    auto r = s.kind == StepKind::kSend ? comm_.isend(s.in, s.count, *s.dt, s.peer, tag_)
                                       : comm_.irecv(s.out, s.count, *s.dt, s.peer, tag_);
    if (!r.ok()) return r.status();
    pending_.push_back(*r);
  }
  started_ = true;
  return Status::Ok();
}

bool NbcSchedule::transfers_done() {
  for (const Step& s : rounds_[current_].steps)
    if (s.kind == StepKind::kUntil && !untils_[static_cast<size_t>(s.peer)]()) return false;
  return std::all_of(pending_.begin(), pending_.end(),
                     [](coll::Request* r) { return static_cast<Request*>(r)->complete; });
}

Status NbcSchedule::finish_round() {
  // Every transfer has completed: waitall only releases them (and reports
  // a truncation or a failed peer), after the awaited ones gave their status.
  for (const Step& st : rounds_[current_].steps) {
    if (st.kind != StepKind::kAwait || st.out == nullptr) continue;
    const auto* from = static_cast<const Request*>(st.in);
    auto* into = static_cast<Request*>(st.out);
    into->st_source = from->st_source;
    into->st_tag = from->st_tag;
    into->st_bytes = from->st_bytes;
    into->st_cancelled = from->st_cancelled;
  }
  Status s = comm_.waitall(static_cast<int>(pending_.size()), pending_.data());
  pending_.clear();
  LZ_RETURN_IF_ERROR(s);
  // By index, on a copy of each step: a call may append rounds (rounds_ grows).
  for (size_t i = 0; i < rounds_[current_].steps.size(); ++i) {
    const Step st = rounds_[current_].steps[i];
    if (st.kind == StepKind::kCopy) dt::copy(st.in, st.count, *st.dt, st.out, st.out_count, *st.out_dt);
    if (st.kind == StepKind::kReduce) st.op->apply(st.in, st.out, st.count, *st.dt);
    if (st.kind == StepKind::kCall) LZ_RETURN_IF_ERROR(calls_[static_cast<size_t>(st.peer)]());
  }
  return Status::Ok();
}

bool NbcSchedule::advance() {
  while (error_.ok() && current_ < rounds_.size()) {
    if (!started_) error_ = start_round();
    if (!transfers_done()) return false;  // a failed start too: what was posted must end first
    if (!error_.ok()) break;
    error_ = finish_round();
    ++current_;
    started_ = false;
  }
  if (!pending_.empty()) {  // the round that failed to start: release what it posted
    comm_.waitall(static_cast<int>(pending_.size()), pending_.data()).ignore();
    pending_.clear();
  }
  return true;
}

}  // namespace lz::rt
