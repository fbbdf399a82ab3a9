// MPI binding: windows (MPI-3.1 sections 11.2 and 11.7): creation in each
// flavor, MPI_Win_free, dynamic regions, shared-memory queries, names,
// info, groups, attributes, keyvals and error handlers. The window itself
// and its protocol are runtime/osc (osc/window.h).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cr/entry_lock.h"
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/keyval.h"
#include "mpi/win_args.h"
#include "osc/shared_segment.h"
#include "osc/target_words.h"
#include "osc/window.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"
#include "p2p/registration_cache.h"
#include "p2p/runtime.h"

using lz::rt::Keyval;
using lz::rt::mpi_error;
using lz::rt::win_error;
using lz::rt::Window;
using lz::rt::win_args::check_win;

namespace {

// Windows need the entry lock whether or not checkpointing is on: the
// progress thread takes it to serve them while the program is outside MPI.
void enable_entry_lock() {
  using lz::rt::MpiState;
  const int st = lz::rt::g_mpi_state.load();
  if (st != static_cast<int>(MpiState::kRunning) && st != static_cast<int>(MpiState::kRunningMt)) return;
  lz::rt::cr_lock_init();
  lz::rt::g_mpi_state.store(
      static_cast<int>(st == static_cast<int>(MpiState::kRunning) ? MpiState::kRunningCr : MpiState::kRunningCrMt));
}

int check_create(const char* fn, MPI_Comm comm, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Win* win) {
  if (comm == nullptr || !comm->valid()) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (comm->is_inter()) return mpi_error(comm, fn, MPI_ERR_COMM, "an intercommunicator cannot make a window");
  if (size < 0) return mpi_error(comm, fn, MPI_ERR_SIZE, "negative size " + std::to_string(size));
  if (disp_unit <= 0)
    return mpi_error(comm, fn, MPI_ERR_DISP, "displacement unit " + std::to_string(disp_unit) + " is not positive");
  if (info != MPI_INFO_NULL && (info == nullptr || !info->valid()))
    return mpi_error(comm, fn, MPI_ERR_INFO, "invalid info object");
  if (win == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "win is NULL");
  return MPI_SUCCESS;
}

// The window's own communicator and every rank's size and unit; then the
// window, its info and its progress.
int make_window(const char* fn, MPI_Comm comm, int flavor, void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                Window** out, MPI_Comm* dup_out = nullptr) {
  auto dup = lz::rt::comm_dup(*comm);
  if (!dup.ok()) return mpi_error(comm, fn, dup.status());
  MPI_Comm wc = *dup;
  const int n = wc->size();
  long long mine[2] = {static_cast<long long>(size), disp_unit};
  std::vector<long long> all(2 * static_cast<size_t>(n));
  if (int e = PMPI_Allgather(mine, 2, MPI_LONG_LONG, all.data(), 2, MPI_LONG_LONG, wc)) {
    lz::rt::comm_free(wc);
    return mpi_error(comm, fn, e, "exchanging the window sizes failed");
  }
  std::vector<MPI_Aint> sizes(static_cast<size_t>(n));
  std::vector<int> units(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    sizes[static_cast<size_t>(r)] = static_cast<MPI_Aint>(all[2 * static_cast<size_t>(r)]);
    units[static_cast<size_t>(r)] = static_cast<int>(all[2 * static_cast<size_t>(r) + 1]);
  }
  enable_entry_lock();
  auto* w = new Window(wc, flavor, base, size, disp_unit, std::move(sizes), std::move(units));
  if (info != MPI_INFO_NULL) w->info = info->entries;
  *out = w;
  if (dup_out != nullptr) *dup_out = wc;
  return MPI_SUCCESS;
}

// A new /dev/shm name for a window's segment, unique in this process.
void segment_name(char (&name)[64]) {
  static unsigned counter = 0;
  std::snprintf(name, sizeof(name), "/lz-win-%d-%u", static_cast<int>(getpid()), counter++);
}

// MPI_Win_allocate_shared's segment: rank 0 of the window creates it, the
// others map it once it exists; every rank learns whether all could. The
// ranks' parts follow each other (page-aligned with alloc_shared_noncontig).
int share_segment(const char* fn, MPI_Comm comm, Window* w, MPI_Info info, void* baseptr) {
  const int n = w->size();
  bool noncontig = false;
  if (info != MPI_INFO_NULL)
    for (const auto& [k, v] : info->entries)
      if (k == "alloc_shared_noncontig" && v == "true") noncontig = true;
  const size_t page = lz::osc::SharedSegment::page();
  std::vector<size_t> offsets(static_cast<size_t>(n));
  size_t total = 0;
  for (int r = 0; r < n; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += static_cast<size_t>(w->size_of(r));
    if (noncontig) total = (total + page - 1) / page * page;
  }
  MPI_Comm wc = &w->comm();
  char name[64] = {};
  segment_name(name);
  if (int e = PMPI_Bcast(name, sizeof(name), MPI_CHAR, 0, wc))
    return mpi_error(comm, fn, e, "sharing the segment's name failed");
  lz::StatusOr<std::unique_ptr<lz::osc::SharedSegment>> seg = lz::Status::Ok();
  int ok = 1;
  if (w->rank() == 0) {
    seg = lz::osc::SharedSegment::create(name, total);
    ok = seg.ok();
  }
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, wc);  // the others open once it exists
  if (all_ok && w->rank() != 0) {
    seg = lz::osc::SharedSegment::open(name, total);
    ok = seg.ok();
  }
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, wc);
  if (w->rank() == 0 && seg.ok() && *seg) (*seg)->unlink();  // every rank mapped it (or gave up)
  if (!all_ok)
    return mpi_error(comm, fn, MPI_ERR_RMA_SHARED,
                     seg.ok() ? std::string("another rank could not map the shared segment (are all ranks of the "
                                            "communicator on one host? MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) "
                                            "gives such a communicator)")
                              : seg.status().message());
  char* mine = (*seg)->data() + offsets[static_cast<size_t>(w->rank())];
  // Every rank loads and stores every part (window_direct.cpp), with the
  // words of each in the header page while they fit there.
  if (64 + static_cast<size_t>(n) * sizeof(lz::osc::TargetWords) <= page) {
    for (int r = 0; r < n; ++r)
      w->set_direct(r, (*seg)->data() + offsets[static_cast<size_t>(r)], lz::osc::words_in((*seg)->header(), r));
    w->set_own_words(lz::osc::words_in((*seg)->header(), w->rank()));
    w->set_all_direct(true);
    if (64 + static_cast<size_t>(n) * sizeof(lz::osc::TargetWords) + lz::osc::fence_room(n) <= page)
      w->set_fence_barrier((*seg)->header(), page);
  }
  w->set_shared(std::move(*seg), std::move(offsets));
  w->set_base(mine);
  *static_cast<void**>(baseptr) = mine;
  return MPI_SUCCESS;
}

// Runs the delete callback of `win`'s attribute `it` and removes it.
int delete_one(const char* fn, MPI_Win win, std::vector<std::pair<int, void*>>::iterator it) {
  const int keyval = it->first;
  Keyval* kv = lz::rt::keyval_find(keyval, Keyval::Kind::kWin);
  if (kv != nullptr && kv->win_del != nullptr) {
    if (int e = kv->win_del(win, keyval, it->second, kv->extra_state); e != MPI_SUCCESS)
      return win_error(win, fn, e,
                       "the delete callback of keyval " + std::to_string(keyval) + " returned " + std::to_string(e));
  }
  win->attributes.erase(it);
  lz::rt::keyval_release(keyval);
  return MPI_SUCCESS;
}

bool predefined_win_keyval(int k) { return k >= MPI_WIN_BASE && k <= MPI_WIN_MODEL; }

auto find_attr(MPI_Win win, int keyval) {
  return std::find_if(win->attributes.begin(), win->attributes.end(),
                      [keyval](const auto& a) { return a.first == keyval; });
}

}  // namespace

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  static const char* kFn = "MPI_Win_create";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_create(kFn, comm, size, disp_unit, info, win)) return e;
  if (base == nullptr && size > 0)
    return mpi_error(comm, kFn, MPI_ERR_ARG, "base is NULL with a size of " + std::to_string(size));
  Window* w = nullptr;
  if (int e = make_window(kFn, comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, &w)) return e;
  *win = w;
  return MPI_SUCCESS;
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  static const char* kFn = "MPI_Win_allocate";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_create(kFn, comm, size, disp_unit, info, win)) return e;
  if (baseptr == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "baseptr is NULL");
  // With peers on this host (and osc_load_store), the memory is a segment
  // of its own that they map (load/store, window_direct.cpp), whatever
  // transport carries the messages; else page-aligned memory the
  // registration cache knows, as MPI_Alloc_mem's.
  lz::rt::Runtime& rt = lz::rt::runtime();
  const bool load_store = rt.registry().params().get_bool("osc_load_store");
  const uint64_t my_node = rt.engine().peer(rt.rank()).node_id;
  auto on_this_host = [&](const lz_mpi_comm_s& c, int r) {
    return load_store && r != c.rank() && rt.engine().peer(c.world_rank_of(r)).node_id == my_node;
  };
  bool host_peers = false;
  for (int r = 0; r < comm->size(); ++r) host_peers = host_peers || on_this_host(*comm, r);
  std::unique_ptr<lz::osc::SharedSegment> seg;
  char name[64] = {};
  void* p = nullptr;
  if (host_peers) {
    segment_name(name);
    auto made = lz::osc::SharedSegment::create(name, static_cast<size_t>(size));
    if (made.ok()) {
      seg = std::move(*made);
      p = seg->data();
    } else {
      name[0] = '\0';  // the others reach this rank by messages
    }
  }
  int rc = 0;
  if (p == nullptr && (p = lz::rt::registration_cache().allocate_area(static_cast<size_t>(size), &rc)) == nullptr)
    return mpi_error(comm, kFn, MPI_ERR_NO_MEM,
                     "cannot allocate " + std::to_string(size) + " bytes (" + std::strerror(rc) + ")");
  Window* w = nullptr;
  if (int e = make_window(kFn, comm, MPI_WIN_FLAVOR_ALLOCATE, p, size, disp_unit, info, &w)) {
    if (seg == nullptr)
      lz::rt::registration_cache().free_area(p);
    else
      seg->unlink();
    return e;
  }
  const int n = w->size();
  std::vector<char> names(64 * static_cast<size_t>(n));
  PMPI_Allgather(name, 64, MPI_CHAR, names.data(), 64, MPI_CHAR, &w->comm());
  char* header0 = nullptr;  // rank 0's header page, where the fence barrier lives
  for (int r = 0; r < n; ++r) {
    const char* peer = names.data() + 64 * static_cast<size_t>(r);
    if (peer[0] == '\0' || !on_this_host(w->comm(), r)) continue;
    auto theirs = lz::osc::SharedSegment::open(peer, static_cast<size_t>(w->size_of(r)));
    if (!theirs.ok()) continue;  // reached by messages, as over any other transport
    w->set_direct(r, (*theirs)->data(), lz::osc::words_in((*theirs)->header(), 0));
    if (r == 0) header0 = (*theirs)->header();
    w->add_peer_segment(std::move(*theirs));
  }
  if (seg != nullptr) {
    if (w->rank() == 0) header0 = seg->header();
    w->set_direct(w->rank(), seg->data(), lz::osc::words_in(seg->header(), 0));
    w->set_own_words(lz::osc::words_in(seg->header(), 0));
    w->set_own_segment(std::move(seg));
  } else {
    w->allocated = p;
  }
  int mine = 1, all = 0;
  for (int r = 0; r < n; ++r)
    if (!w->reaches_directly(r)) mine = 0;
  // Also the barrier after which every peer has mapped this rank's segment.
  PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, &w->comm());
  w->set_all_direct(all == 1);
  const size_t page = lz::osc::SharedSegment::page();
  if (all == 1 && 64 + sizeof(lz::osc::TargetWords) + lz::osc::fence_room(n) <= page)
    w->set_fence_barrier(header0, page);
  if (w->own_segment() != nullptr) w->own_segment()->unlink();
  *static_cast<void**>(baseptr) = w->base();
  *win = w;
  return MPI_SUCCESS;
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  static const char* kFn = "MPI_Win_allocate_shared";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_create(kFn, comm, size, disp_unit, info, win)) return e;
  if (baseptr == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "baseptr is NULL");
  Window* w = nullptr;
  if (int e = make_window(kFn, comm, MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, &w)) return e;
  if (int e = share_segment(kFn, comm, w, info, baseptr)) {
    delete w;
    return e;
  }
  *win = w;
  return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  static const char* kFn = "MPI_Win_shared_query";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (win->flavor() != MPI_WIN_FLAVOR_SHARED)
    return win_error(win, kFn, MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_allocate_shared");
  if (int e = lz::rt::win_args::check_rank(kFn, win, rank)) return e;
  if (size == nullptr || disp_unit == nullptr || baseptr == nullptr)
    return win_error(win, kFn, MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
  int r = rank;
  if (r == MPI_PROC_NULL) {  // the lowest rank with memory (MPI-3.1 11.2.3)
    r = 0;
    for (int i = 0; i < win->size(); ++i)
      if (win->size_of(i) > 0) {
        r = i;
        break;
      }
  }
  *size = win->size_of(r);
  *disp_unit = win->disp_unit_of(r);
  *static_cast<void**>(baseptr) = *size > 0 ? win->shared_base_of(r) : nullptr;
  return MPI_SUCCESS;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  static const char* kFn = "MPI_Win_create_dynamic";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_create(kFn, comm, 0, 1, info, win)) return e;
  Window* w = nullptr;
  if (int e = make_window(kFn, comm, MPI_WIN_FLAVOR_DYNAMIC, MPI_BOTTOM, 0, 1, info, &w)) return e;
  *win = w;
  return MPI_SUCCESS;
}

int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  static const char* kFn = "MPI_Win_attach";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (win->flavor() != MPI_WIN_FLAVOR_DYNAMIC)
    return win_error(win, kFn, MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_create_dynamic");
  if (size < 0) return win_error(win, kFn, MPI_ERR_SIZE, "negative size " + std::to_string(size));
  if (base == nullptr && size > 0) return win_error(win, kFn, MPI_ERR_ARG, "base is NULL");
  if (size == 0) return MPI_SUCCESS;
  lz::Status s = win->attach(base, size);
  return s.ok() ? MPI_SUCCESS : win_error(win, kFn, MPI_ERR_RMA_ATTACH, s.message());
}

int MPI_Win_detach(MPI_Win win, const void* base) {
  static const char* kFn = "MPI_Win_detach";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (win->flavor() != MPI_WIN_FLAVOR_DYNAMIC)
    return win_error(win, kFn, MPI_ERR_RMA_FLAVOR, "the window was not made by MPI_Win_create_dynamic");
  lz::Status s = win->detach(base);
  return s.ok() ? MPI_SUCCESS : win_error(win, kFn, MPI_ERR_RMA_ATTACH, s.message());
}

int MPI_Win_free(MPI_Win* win) {
  static const char* kFn = "MPI_Win_free";
  LZ_MPI_ENTRY(kFn);
  if (win == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "win is NULL");
  if (int e = check_win(kFn, *win)) return e;
  Window* w = *win;
  if (std::string busy = w->busy(); !busy.empty()) return win_error(w, kFn, MPI_ERR_RMA_SYNC, busy);
  // Every rank is done with every epoch, so with this rank's memory.
  if (int e = PMPI_Barrier(&w->comm())) return win_error(w, kFn, e, "the barrier of MPI_Win_free failed");
  w->finish();
  while (!w->attributes.empty())
    if (int e = delete_one(kFn, w, w->attributes.end() - 1)) return e;
  void* mem = w->allocated;
  delete w;
  if (mem != nullptr) lz::rt::registration_cache().free_area(mem);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  static const char* kFn = "MPI_Win_get_group";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (group == nullptr) return win_error(win, kFn, MPI_ERR_ARG, "group is NULL");
  return PMPI_Comm_group(&win->comm(), group);
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  static const char* kFn = "MPI_Win_set_info";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (info == MPI_INFO_NULL || !info->valid()) return win_error(win, kFn, MPI_ERR_INFO, "invalid info object");
  for (const auto& kv : info->entries) {
    auto it = std::find_if(win->info.begin(), win->info.end(), [&](const auto& e) { return e.first == kv.first; });
    if (it != win->info.end())
      it->second = kv.second;
    else
      win->info.push_back(kv);
  }
  return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  static const char* kFn = "MPI_Win_get_info";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (info_used == nullptr) return win_error(win, kFn, MPI_ERR_ARG, "info_used is NULL");
  if (int e = PMPI_Info_create(info_used)) return e;
  // What the window does, then the program's other hints as given.
  std::vector<std::pair<std::string, std::string>> used = {
      {"no_locks", "false"},
      {"accumulate_ordering", "rar,raw,war,waw"},
      {"accumulate_ops", "same_op_no_op"},
      {"same_size", "false"},
      {"same_disp_unit", "false"},
      {"alloc_shared_noncontig", "false"},
  };
  for (const auto& kv : win->info) {
    auto it = std::find_if(used.begin(), used.end(), [&](const auto& e) { return e.first == kv.first; });
    if (it != used.end())
      it->second = kv.second;
    else
      used.push_back(kv);
  }
  for (const auto& [k, v] : used) PMPI_Info_set(*info_used, k.c_str(), v.c_str());
  return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  static const char* kFn = "MPI_Win_set_name";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (win_name == nullptr) return win_error(win, kFn, MPI_ERR_ARG, "win_name is NULL");
  win->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  static const char* kFn = "MPI_Win_get_name";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (win_name == nullptr || resultlen == nullptr)
    return win_error(win, kFn, MPI_ERR_ARG, "win_name or resultlen is NULL");
  std::memcpy(win_name, win->name.c_str(), win->name.size() + 1);
  *resultlen = static_cast<int>(win->name.size());
  return MPI_SUCCESS;
}

// ---- error handlers ---------------------------------------------------------------------

int MPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  static const char* kFn = "MPI_Win_create_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (fn == nullptr || errhandler == nullptr)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "function or errhandler is NULL");
  auto* h = new lz_mpi_errhandler_s{lz_mpi_errhandler_s::kUser};
  h->win_fn = fn;
  *errhandler = h;
  return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  static const char* kFn = "MPI_Win_set_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (errhandler == MPI_ERRHANDLER_NULL) return win_error(win, kFn, MPI_ERR_ARG, "invalid error handler");
  win->errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  static const char* kFn = "MPI_Win_get_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (errhandler == nullptr) return win_error(win, kFn, MPI_ERR_ARG, "errhandler is NULL");
  *errhandler = win->errhandler != nullptr ? win->errhandler : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  static const char* kFn = "MPI_Win_call_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  win_error(win, kFn, errorcode, "error code " + std::to_string(errorcode) + " (raised by the program)");
  return MPI_SUCCESS;
}

// ---- attributes and keyvals ---------------------------------------------------------------

int lz_mpi_win_null_copy_fn(MPI_Win, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int lz_mpi_win_dup_fn(MPI_Win, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int lz_mpi_win_null_delete_fn(MPI_Win, int, void*, void*) { return MPI_SUCCESS; }

int MPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn, int* keyval,
                          void* extra_state) {
  static const char* kFn = "MPI_Win_create_keyval";
  LZ_MPI_ENTRY(kFn);
  if (keyval == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "keyval is NULL");
  Keyval k;
  k.kind = Keyval::Kind::kWin;
  k.win_copy = copy_fn;
  k.win_del = delete_fn;
  k.extra_state = extra_state;
  *keyval = lz::rt::keyval_create(k);
  return MPI_SUCCESS;
}

int MPI_Win_free_keyval(int* keyval) {
  static const char* kFn = "MPI_Win_free_keyval";
  LZ_MPI_ENTRY(kFn);
  if (keyval == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "keyval is NULL");
  if (predefined_win_keyval(*keyval))
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_KEYVAL, "a predefined keyval cannot be freed");
  if (lz::rt::keyval_find(*keyval, Keyval::Kind::kWin) == nullptr)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_KEYVAL, "invalid window keyval " + std::to_string(*keyval));
  lz::rt::keyval_free_handle(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int MPI_Win_set_attr(MPI_Win win, int keyval, void* value) {
  static const char* kFn = "MPI_Win_set_attr";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (predefined_win_keyval(keyval))
    return win_error(win, kFn, MPI_ERR_KEYVAL, "predefined attribute " + std::to_string(keyval) + " is read-only");
  if (lz::rt::keyval_find(keyval, Keyval::Kind::kWin) == nullptr)
    return win_error(win, kFn, MPI_ERR_KEYVAL, "invalid window keyval " + std::to_string(keyval));
  auto it = find_attr(win, keyval);
  if (it != win->attributes.end())
    if (int e = delete_one(kFn, win, it)) return e;
  lz::rt::keyval_retain(keyval);
  win->attributes.emplace_back(keyval, value);
  return MPI_SUCCESS;
}

int MPI_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag) {
  static const char* kFn = "MPI_Win_get_attr";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (value == nullptr || flag == nullptr) return win_error(win, kFn, MPI_ERR_ARG, "attribute_val or flag is NULL");
  *flag = 1;
  switch (keyval) {
    case MPI_WIN_BASE:
      *static_cast<void**>(value) = win->base();
      return MPI_SUCCESS;
    case MPI_WIN_SIZE:
      *static_cast<void**>(value) = &win->attr_size;
      return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
      *static_cast<void**>(value) = &win->attr_disp_unit;
      return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
      *static_cast<void**>(value) = &win->attr_flavor;
      return MPI_SUCCESS;
    case MPI_WIN_MODEL:
      *static_cast<void**>(value) = &win->attr_model;
      return MPI_SUCCESS;
    default:
      break;
  }
  if (lz::rt::keyval_find(keyval, Keyval::Kind::kWin) == nullptr)
    return win_error(win, kFn, MPI_ERR_KEYVAL, "invalid window keyval " + std::to_string(keyval));
  auto it = find_attr(win, keyval);
  *flag = it != win->attributes.end();
  if (*flag) *static_cast<void**>(value) = it->second;
  return MPI_SUCCESS;
}

int MPI_Win_delete_attr(MPI_Win win, int keyval) {
  static const char* kFn = "MPI_Win_delete_attr";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_win(kFn, win)) return e;
  if (predefined_win_keyval(keyval))
    return win_error(win, kFn, MPI_ERR_KEYVAL, "predefined attribute " + std::to_string(keyval) + " is read-only");
  if (lz::rt::keyval_find(keyval, Keyval::Kind::kWin) == nullptr)
    return win_error(win, kFn, MPI_ERR_KEYVAL, "invalid window keyval " + std::to_string(keyval));
  auto it = find_attr(win, keyval);
  if (it == win->attributes.end())
    return win_error(win, kFn, MPI_ERR_ARG, "no attribute of keyval " + std::to_string(keyval) + " on the window");
  return delete_one(kFn, win, it);
}
