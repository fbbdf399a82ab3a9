// MPI binding: one-sided synchronization (MPI-3.1 section 11.5): fence,
// post/start/complete/wait/test, lock/unlock, lock_all/unlock_all, the
// flushes and MPI_Win_sync. Epoch rules are checked here; the window
// waits (osc/window.h).
//
// MPI_Win_fence: each rank tells every other how many operations it sent it
// in the epoch (Window::fence_exchange, a message each, all at once), then
// waits until it has executed as many: no acknowledgement per operation.
// With MPI_MODE_NOPRECEDE there is nothing to count (a barrier opens the
// epoch); with NOPRECEDE and NOSUCCEED together, nothing at all. When every
// rank reaches every other by load/store (osc/window_direct.cpp), there is
// nothing to count either: a barrier, in shared memory when the window has
// one (Window::direct_barrier).
#include <atomic>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/win_args.h"
#include "osc/window.h"
#include "p2p/group.h"

using lz::rt::win_error;
using lz::rt::Window;
using lz::rt::win_args::check_assert;
using lz::rt::win_args::check_rank;
using lz::rt::win_args::check_win;

namespace {

// The barrier of a fence on a window whose ranks all load and store each
// other's memory: the shared-memory one when the window has it, else
// MPI_Barrier. *by_messages: a checkpoint turned the window to messages
// while this rank waited in the shared-memory barrier and it had not
// passed; the fence then goes as over messages (counts, or MPI_Barrier
// under NOPRECEDE), as the ranks that had not arrived will.
int direct_fence_barrier(MPI_Win win, bool* by_messages) {
  *by_messages = false;
  if (!win->has_fence_barrier()) return PMPI_Barrier(&win->comm());
  *by_messages = !win->direct_barrier();
  return MPI_SUCCESS;
}

constexpr int kFenceAsserts = MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

// The window's ranks of `group`'s members (error naming a member outside it).
int group_ranks(const char* fn, MPI_Win win, MPI_Group group, std::vector<int>* ranks) {
  if (group == MPI_GROUP_NULL || !group->valid()) return win_error(win, fn, MPI_ERR_GROUP, "invalid group");
  const std::vector<int>& members = win->comm().world_ranks();
  for (int w : group->world_ranks) {
    int r = -1;
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == w) r = static_cast<int>(i);
    if (r < 0) return win_error(win, fn, MPI_ERR_GROUP, "the group holds a process outside the window's group");
    ranks->push_back(r);
  }
  return MPI_SUCCESS;
}

}  // namespace

int MPI_Win_fence(int assert, MPI_Win win) {
  static const char* kFn = "MPI_Win_fence";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (int e = check_assert(kFn, win, assert, kFenceAsserts)) return e;
  if (win->in_lock_epoch() || win->in_pscw_access() || win->in_pscw_exposure())
    return win_error(win, kFn, MPI_ERR_RMA_SYNC, "a lock or post/start epoch is open on the window");
  if (assert & MPI_MODE_NOPRECEDE) {
    for (int n : win->fence_counts())
      if (n != 0)
        return win_error(win, kFn, MPI_ERR_RMA_SYNC, "operations precede a fence asserting MPI_MODE_NOPRECEDE");
    if (!(assert& MPI_MODE_NOSUCCEED)) {
      bool by_messages = !win->all_direct();
      int e = by_messages ? MPI_SUCCESS : direct_fence_barrier(win, &by_messages);
      if (e == MPI_SUCCESS && by_messages) e = PMPI_Barrier(&win->comm());
      if (e != MPI_SUCCESS) return win_error(win, kFn, e, "the fence's barrier failed");
    }
    win->fence_finish(0, assert);
    return MPI_SUCCESS;
  }
  std::vector<int> sent = win->fence_counts();
  if (win->all_direct()) {  // every operation was a load or a store: nothing to count
    bool by_messages = false;
    if (int e = direct_fence_barrier(win, &by_messages)) return win_error(win, kFn, e, "the fence's barrier failed");
    if (!by_messages) {
      win->fence_finish(0, assert);
      return MPI_SUCCESS;
    }
  }
  win->fence_exchange(sent, assert);
  return MPI_SUCCESS;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  static const char* kFn = "MPI_Win_post";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (int e = check_assert(kFn, win, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)) return e;
  if (win->in_pscw_exposure()) return win_error(win, kFn, MPI_ERR_RMA_SYNC, "an exposure epoch is already open");
  std::vector<int> ranks;
  if (int e = group_ranks(kFn, win, group, &ranks)) return e;
  win->post(ranks, assert);
  return MPI_SUCCESS;
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  static const char* kFn = "MPI_Win_start";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (int e = check_assert(kFn, win, assert, MPI_MODE_NOCHECK)) return e;
  if (win->in_pscw_access() || win->in_lock_epoch())
    return win_error(win, kFn, MPI_ERR_RMA_SYNC, "an access epoch is already open");
  std::vector<int> ranks;
  if (int e = group_ranks(kFn, win, group, &ranks)) return e;
  win->start(ranks, assert);
  return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win win) {
  static const char* kFn = "MPI_Win_complete";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (!win->in_pscw_access()) return win_error(win, kFn, MPI_ERR_RMA_SYNC, "no MPI_Win_start epoch is open");
  win->complete();
  return MPI_SUCCESS;
}

int MPI_Win_wait(MPI_Win win) {
  static const char* kFn = "MPI_Win_wait";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (!win->in_pscw_exposure()) return win_error(win, kFn, MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch is open");
  win->wait();
  return MPI_SUCCESS;
}

int MPI_Win_test(MPI_Win win, int* flag) {
  static const char* kFn = "MPI_Win_test";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (flag == nullptr) return win_error(win, kFn, MPI_ERR_ARG, "flag is NULL");
  if (!win->in_pscw_exposure()) return win_error(win, kFn, MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch is open");
  win->progress_once();
  *flag = win->test() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  static const char* kFn = "MPI_Win_lock";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    return win_error(win, kFn, MPI_ERR_LOCKTYPE, "invalid lock type " + std::to_string(lock_type));
  if (int e = check_rank(kFn, win, rank)) return e;
  if (int e = check_assert(kFn, win, assert, MPI_MODE_NOCHECK)) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (win->locked(rank) || win->in_pscw_access())
    return win_error(win, kFn, MPI_ERR_RMA_SYNC,
                     "an access epoch to rank " + std::to_string(rank) + " is already open");
  win->lock(lock_type, rank, assert);
  return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  static const char* kFn = "MPI_Win_unlock";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (int e = check_rank(kFn, win, rank)) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (!win->locked(rank) || win->in_lock_all())
    return win_error(win, kFn, MPI_ERR_RMA_SYNC, "rank " + std::to_string(rank) + " is not locked by MPI_Win_lock");
  win->unlock(rank);
  return MPI_SUCCESS;
}

int MPI_Win_lock_all(int assert, MPI_Win win) {
  static const char* kFn = "MPI_Win_lock_all";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (int e = check_assert(kFn, win, assert, MPI_MODE_NOCHECK)) return e;
  if (win->in_lock_epoch() || win->in_pscw_access())
    return win_error(win, kFn, MPI_ERR_RMA_SYNC, "an access epoch is already open");
  win->lock_all(assert);
  return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win) {
  static const char* kFn = "MPI_Win_unlock_all";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (!win->in_lock_all()) return win_error(win, kFn, MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch is open");
  win->unlock_all();
  return MPI_SUCCESS;
}

namespace {
int flush(const char* fn, int rank, MPI_Win win, bool local) {
  if (int e = check_win(fn, win)) return e;
  if (int e = check_rank(fn, win, rank)) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (!win->locked(rank))
    return win_error(win, fn, MPI_ERR_RMA_SYNC, "no lock epoch to rank " + std::to_string(rank) + " is open");
  if (local)
    win->flush_local(rank);
  else
    win->flush(rank);
  return MPI_SUCCESS;
}
int flush_all(const char* fn, MPI_Win win, bool local) {
  if (int e = check_win(fn, win)) return e;
  if (!win->in_lock_epoch()) return win_error(win, fn, MPI_ERR_RMA_SYNC, "no lock epoch is open");
  if (local)
    win->flush_local_all();
  else
    win->flush_all();
  return MPI_SUCCESS;
}
}  // namespace

int MPI_Win_flush(int rank, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Win_flush");
  return flush("MPI_Win_flush", rank, win, false);
}

int MPI_Win_flush_local(int rank, MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Win_flush_local");
  return flush("MPI_Win_flush_local", rank, win, true);
}

int MPI_Win_flush_all(MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Win_flush_all");
  return flush_all("MPI_Win_flush_all", win, false);
}

int MPI_Win_flush_local_all(MPI_Win win) {
  LZ_MPI_ENTRY("MPI_Win_flush_local_all");
  return flush_all("MPI_Win_flush_local_all", win, true);
}

int MPI_Win_sync(MPI_Win win) {
  static const char* kFn = "MPI_Win_sync";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  // The unified model: one copy of the memory; order this rank's loads
  // and stores against the other ranks' (shared windows), and serve what
  // arrived meanwhile.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  win->progress_once();
  return MPI_SUCCESS;
}
