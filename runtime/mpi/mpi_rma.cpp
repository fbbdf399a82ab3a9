// MPI binding: the one-sided operations (MPI-3.1 section 11.3): MPI_Put,
// MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
// MPI_Compare_and_swap and the request-based MPI_R* forms. Arguments,
// epochs and ranges are checked here (the window's error handler reports
// them); the window sends (osc/window.h).
#include <memory>
#include <string>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/win_args.h"
#include "osc/window.h"
#include "p2p/engine.h"
#include "p2p/nbc_schedule.h"
#include "p2p/request.h"
#include "p2p/runtime.h"

using lz::rt::win_error;
using lz::rt::Window;
using lz::rt::win_args::check_rank;
using lz::rt::win_args::check_win;

namespace {

int check_type(const char* fn, MPI_Win win, MPI_Datatype dt, int count, const char* what) {
  if (dt == MPI_DATATYPE_NULL)
    return win_error(win, fn, MPI_ERR_TYPE, std::string("invalid ") + what + " (MPI_DATATYPE_NULL)");
  if (!dt->is_committed())
    return win_error(win, fn, MPI_ERR_TYPE, std::string(what) + " " + dt->name() + " is not committed");
  if (count < 0)
    return win_error(win, fn, MPI_ERR_COUNT, std::string("negative ") + what + " count " + std::to_string(count));
  return MPI_SUCCESS;
}

// The target side of an operation: its epoch, datatype, displacement and
// range in the target's window (a dynamic window's range is the target's to check).
int check_target(const char* fn, MPI_Win win, int target, MPI_Aint disp, int count, MPI_Datatype dt) {
  if (int e = check_type(fn, win, dt, count, "target datatype")) return e;
  if (!win->may_access(target))
    if (std::string why = win->access_error(target); !why.empty()) return win_error(win, fn, MPI_ERR_RMA_SYNC, why);
  if (win->flavor() == MPI_WIN_FLAVOR_DYNAMIC) return MPI_SUCCESS;
  if (disp < 0) return win_error(win, fn, MPI_ERR_DISP, "negative target displacement " + std::to_string(disp));
  if (count == 0 || dt->size() == 0) return MPI_SUCCESS;
  const long long at = static_cast<long long>(disp) * win->disp_unit_of(target);
  const long long lo = at + dt->true_lb() + std::min<long long>(0, dt->extent() * (count - 1LL));
  const long long hi = at + dt->true_lb() + dt->true_extent() + std::max<long long>(0, dt->extent() * (count - 1LL));
  if (lo < 0 || hi > win->size_of(target))
    return win_error(win, fn, MPI_ERR_RMA_RANGE,
                     "bytes [" + std::to_string(lo) + ", " + std::to_string(hi) + ") of rank " +
                         std::to_string(target) + "'s window, which has " + std::to_string(win->size_of(target)));
  return MPI_SUCCESS;
}

int check_match(const char* fn, MPI_Win win, MPI_Datatype a, int na, MPI_Datatype b, int nb, const char* what) {
  const unsigned long long x = a->size() * static_cast<unsigned long long>(na);
  const unsigned long long y = b->size() * static_cast<unsigned long long>(nb);
  if (x == y) return MPI_SUCCESS;
  return win_error(win, fn, MPI_ERR_TYPE,
                   std::string(what) + ": " + std::to_string(x) + " bytes against the target's " + std::to_string(y));
}

int check_op(const char* fn, MPI_Win win, MPI_Op op, MPI_Datatype target_dt) {
  if (op == MPI_OP_NULL) return win_error(win, fn, MPI_ERR_OP, "invalid op (MPI_OP_NULL)");
  if (!op->is_predefined())
    return win_error(win, fn, MPI_ERR_OP, "a user-defined op cannot be used in a one-sided accumulate");
  lz::dt::Basic b;
  if (target_dt->size() != 0 && !target_dt->homogeneous(&b, nullptr))
    return win_error(win, fn, MPI_ERR_TYPE,
                     "the target datatype " + target_dt->name() + " is not made of one predefined type");
  if (op->rma_only()) return MPI_SUCCESS;  // MPI_REPLACE, MPI_NO_OP: any predefined type
  // MPI_CHAR takes the integer ops as a signed char, as MPICH's one-sided
  // calls allow (its test suite's fetch_and_op_char).
  if (target_dt->size() != 0 && b == lz::dt::Basic::kChar &&
      lz::dt::op_defined_on(op->kind(), lz::dt::Basic::kSignedChar))
    return MPI_SUCCESS;
  if (lz::Status s = op->check(*target_dt); !s.ok()) return win_error(win, fn, MPI_ERR_OP, s.message());
  return MPI_SUCCESS;
}

int status_error(const char* fn, MPI_Win win, const lz::Status& s) {
  return s.ok() ? MPI_SUCCESS : win_error(win, fn, lz::rt::mpi_class_of(s), s.message());
}

// The request of an MPI_R* call: complete once *done is.
int make_request(MPI_Win win, std::shared_ptr<bool> done, MPI_Request* request) {
  auto s = std::make_unique<lz::rt::NbcSchedule>(win->comm(), 0);
  s->until([done] { return *done; });
  lz::rt::Request* r = lz::rt::request_pool().get();
  r->comm = &win->comm();
  lz::rt::runtime().engine().start_nbc(r, std::move(s));
  *request = r;
  return MPI_SUCCESS;
}

// What every operation does around its own checks and call: the window,
// the request of an MPI_R* call, the target rank (MPI_PROC_NULL: nothing
// to do, a complete request). `issue(done)` checks the rest and starts the
// operation; `done` is the request's flag (null without a request).
template <typename Issue>
int operation(const char* fn, MPI_Win win, int target, MPI_Request* request, Issue issue) {
  if (int e = check_win(fn, win)) return e;
  if (request != nullptr) *request = MPI_REQUEST_NULL;
  if (int e = check_rank(fn, win, target)) return e;
  auto done = request != nullptr ? std::make_shared<bool>(false) : nullptr;
  if (target == MPI_PROC_NULL) {
    if (done) *done = true;
  } else if (int e = issue(done)) {
    return e;
  }
  return request != nullptr ? make_request(win, done, request) : MPI_SUCCESS;
}

int put(const char* fn, const void* origin, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
        MPI_Datatype tdt, MPI_Win win, MPI_Request* request) {
  return operation(fn, win, target, request, [&](std::shared_ptr<bool> done) {
    if (int e = check_type(fn, win, odt, ocount, "origin datatype")) return e;
    if (int e = check_target(fn, win, target, disp, tcount, tdt)) return e;
    if (int e = check_match(fn, win, odt, ocount, tdt, tcount, "origin data")) return e;
    return status_error(fn, win, win->put(origin, ocount, *odt, target, disp, tcount, *tdt, done));
  });
}

int get(const char* fn, void* origin, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
        MPI_Datatype tdt, MPI_Win win, MPI_Request* request) {
  return operation(fn, win, target, request, [&](std::shared_ptr<bool> done) {
    if (int e = check_type(fn, win, odt, ocount, "origin datatype")) return e;
    if (int e = check_target(fn, win, target, disp, tcount, tdt)) return e;
    if (int e = check_match(fn, win, odt, ocount, tdt, tcount, "origin buffer")) return e;
    return status_error(fn, win, win->get(origin, ocount, *odt, target, disp, tcount, *tdt, done));
  });
}

int accumulate(const char* fn, const void* origin, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
               int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request* request) {
  return operation(fn, win, target, request, [&](std::shared_ptr<bool> done) {
    if (int e = check_type(fn, win, odt, ocount, "origin datatype")) return e;
    if (int e = check_target(fn, win, target, disp, tcount, tdt)) return e;
    if (int e = check_op(fn, win, op, tdt)) return e;
    if (op != MPI_NO_OP)
      if (int e = check_match(fn, win, odt, ocount, tdt, tcount, "origin data")) return e;
    return status_error(fn, win, win->accumulate(origin, ocount, *odt, target, disp, tcount, *tdt, *op, done));
  });
}

int get_accumulate(const char* fn, const void* origin, int ocount, MPI_Datatype odt, void* result, int rcount,
                   MPI_Datatype rdt, int target, MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                   MPI_Request* request) {
  return operation(fn, win, target, request, [&](std::shared_ptr<bool> done) {
    if (op != MPI_NO_OP)
      if (int e = check_type(fn, win, odt, ocount, "origin datatype")) return e;
    if (int e = check_type(fn, win, rdt, rcount, "result datatype")) return e;
    if (int e = check_target(fn, win, target, disp, tcount, tdt)) return e;
    if (int e = check_op(fn, win, op, tdt)) return e;
    if (op != MPI_NO_OP)
      if (int e = check_match(fn, win, odt, ocount, tdt, tcount, "origin data")) return e;
    if (int e = check_match(fn, win, rdt, rcount, tdt, tcount, "result buffer")) return e;
    return status_error(fn, win,
                        win->get_accumulate(origin, ocount, op == MPI_NO_OP ? *tdt : *odt, result, rcount, *rdt, target,
                                            disp, tcount, *tdt, *op, done));
  });
}

}  // namespace

int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Put");
  return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr);
}

int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Rput");
  if (request == nullptr) return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Rput", MPI_ERR_ARG, "request is NULL");
  return put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request);
}

int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Get");
  return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, nullptr);
}

int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Rget");
  if (request == nullptr) return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Rget", MPI_ERR_ARG, "request is NULL");
  return get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, request);
}

int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Accumulate");
  return accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, nullptr);
}

int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                    MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Raccumulate");
  if (request == nullptr) return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Raccumulate", MPI_ERR_ARG, "request is NULL");
  return accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win, request);
}

int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                       int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Get_accumulate");
  return get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, nullptr);
}

int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Rget_accumulate");
  if (request == nullptr)
    return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Rget_accumulate", MPI_ERR_ARG, "request is NULL");
  return get_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request);
}

int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Fetch_and_op");
  return get_accumulate("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                        target_disp, 1, datatype, op, win, nullptr);
}

int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Win win) {
  static const char* kFn = "MPI_Compare_and_swap";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (int e = check_type(kFn, win, datatype, 1, "datatype")) return e;
  if (!datatype->is_basic())
    return win_error(win, kFn, MPI_ERR_TYPE,
                     "MPI_Compare_and_swap takes a predefined datatype, not " + datatype->name());
  if (int e = check_rank(kFn, win, target_rank)) return e;
  if (target_rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_target(kFn, win, target_rank, target_disp, 1, datatype)) return e;
  return status_error(
      kFn, win, win->compare_and_swap(origin_addr, compare_addr, result_addr, *datatype, target_rank, target_disp));
}
