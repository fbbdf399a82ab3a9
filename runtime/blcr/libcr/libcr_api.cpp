// The BLCR C entry points (lazarus/libcr.h) over the service thread, the
// checkpoint engine and the control channel.
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "callback_registry.h"
#include "checkpoint_engine.h"
#include "control_channel.h"
#include "lazarus/cpu_relax.h"
#include "lazarus/libcr.h"
#include "lazarus/userns/reopen.h"
#include "libcr_state.h"
#include "service.h"

using namespace lz::libcr;

namespace {

std::atomic<int> g_next_client{1};

struct Handle {
  bool local = false;
  uint64_t id = 0;
  pid_t pid = 0;
  double start_time = 0;
  int signal = 0;
  unsigned timeout = 0;  // cr_timeout seconds, 0: none
  timespec requested{};
  std::string dest;
  bool done = false;
  int status = 0;
  std::string message;
};

std::mutex g_handles_mu;
std::set<Handle*> g_handles;

int errno_of(const lz::Status& s) {
  switch (s.code()) {
    case lz::Code::kNotFound:
      return ESRCH;
    case lz::Code::kUnimplemented:
      return CR_ENOSUPPORT;
    case lz::Code::kPermissionDenied:
      return EPERM;
    case lz::Code::kInvalidArgument:
      return EINVAL;
    case lz::Code::kUnavailable:
      return EAGAIN;
    default:
      return EIO;
  }
}

timespec now_mono() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t;
}

timespec plus(timespec t, long long ns) {
  t.tv_sec += ns / 1000000000LL;
  t.tv_nsec += ns % 1000000000LL;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

bool passed(const timespec& deadline) {
  timespec n = now_mono();
  return n.tv_sec > deadline.tv_sec || (n.tv_sec == deadline.tv_sec && n.tv_nsec >= deadline.tv_nsec);
}

std::string cwd() {
  char buf[PATH_MAX];
  return getcwd(buf, sizeof buf) ? buf : ".";
}

int open_dir_created(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return -1;
  return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

// Turns cr_fd into an images directory (see the header banner). Returns a new
// descriptor of it, or -1 after fail().
int destination_dir(int cr_fd, pid_t target, std::string* dest) {
  if (cr_fd == CR_DEST_CWD || cr_fd == -1) {
    *dest = cwd() + "/context." + std::to_string(target);
    int d = open_dir_created(*dest);
    if (d < 0) return fail(errno, "cannot create the image directory " + *dest + ": " + std::strerror(errno));
    return d;
  }
  struct stat st {};
  if (fstat(cr_fd, &st) != 0) return fail(EBADF, "cr_fd " + std::to_string(cr_fd) + " is not an open descriptor");
  if (S_ISDIR(st.st_mode)) {
    int d = fcntl(cr_fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0) return fail(errno, "cannot duplicate cr_fd");
    *dest = lz::userns::path_of_fd(d);
    return d;
  }
  if (S_ISREG(st.st_mode)) {
    std::string file = lz::userns::path_of_fd(cr_fd);
    if (file.empty() || file[0] != '/') return fail(EINVAL, "cannot tell the path of cr_fd");
    *dest = file + ".criu";
    int d = open_dir_created(*dest);
    if (d < 0) return fail(errno, "cannot create the image directory " + *dest + ": " + std::strerror(errno));
    std::string pointer = "lazarus-criu-images " + *dest + "\n";
    if (ftruncate(cr_fd, 0) == 0) {
      ssize_t w = pwrite(cr_fd, pointer.data(), pointer.size(), 0);
      (void)w;  // a read-only cr_fd only loses the pointer; the images are in *dest
    }
    return d;
  }
  return fail(EINVAL, "cr_fd must be a directory or a regular file: CRIU writes a directory of images");
}

Handle* lookup(cr_checkpoint_handle_t* handle) {
  if (handle == nullptr) return nullptr;
  Handle* h = reinterpret_cast<Handle*>(*handle);
  std::lock_guard<std::mutex> lock(g_handles_mu);
  return g_handles.count(h) ? h : nullptr;
}

void release(cr_checkpoint_handle_t* handle, Handle* h) {
  {
    std::lock_guard<std::mutex> lock(g_handles_mu);
    g_handles.erase(h);
  }
  delete h;
  *handle = 0;
}

bool alive(const Handle* h) {
  if (kill(h->pid, 0) != 0 && errno == ESRCH) return false;
  double st = process_start_time(h->pid);
  return st == 0 || h->start_time == 0 || st < h->start_time + 2;  // same process, not a new one with its pid
}

void finish(Handle* h, int status, const std::string& message) {
  h->done = true;
  h->status = status;
  h->message = message;
  // BLCR sends cr_signal once the checkpoint is taken; CRIU leaves the process
  // running, so the requester sends it when it learns the outcome.
  if (!h->local && status > 0 && h->signal > 0) kill(h->pid, h->signal);
}

// One attempt to fetch the outcome of a remote request. True when it is known.
bool fetch_remote(Handle* h) {
  auto conn = connect_to(h->pid);
  if (!conn.ok()) {
    if (conn.status().code() == lz::Code::kNotFound || !alive(h)) {
      finish(h, -ESRCH, "process " + std::to_string(h->pid) + " exited before its checkpoint completed");
      return true;
    }
    if (conn.status().code() == lz::Code::kPermissionDenied) {
      finish(h, -EPERM, conn.status().message());
      return true;
    }
    return false;  // busy checkpointing: socket closed, or being re-created
  }
  WireMsg m;
  m.op = static_cast<uint16_t>(Op::kResult);
  m.id = h->id;
  WireMsg reply;
  bool known = false;
  if (send_msg(*conn, m).ok() && recv_msg(*conn, &reply).ok()) {
    switch (static_cast<Op>(reply.op)) {
      case Op::kDone:
        finish(h, reply.status, text_of(reply));
        known = true;
        break;
      case Op::kError:
        finish(h, -(reply.status ? reply.status : EIO), text_of(reply));
        known = true;
        break;
      default:
        break;  // pending
    }
  }
  close(*conn);
  return known;
}

}  // namespace

extern "C" {

cr_client_id_t cr_init(void) {
  clear_error();
  lz::Status s = Service::instance().ensure_started();
  if (!s.ok())
    return fail(s.code() == lz::Code::kUnavailable || s.code() == lz::Code::kPermissionDenied ? ENOSYS : errno_of(s),
                "cr_init: " + s.message());
  if (tl_client_id == 0) tl_client_id = g_next_client.fetch_add(1);
  return tl_client_id;
}

cr_callback_id_t cr_register_callback(cr_callback_t func, void* arg, int flags) {
  if (!Service::instance().started()) return fail(CR_ENOINIT, "cr_register_callback before cr_init()");
  if (tl_in_callback) return fail(EBUSY, "cr_register_callback called from a callback");
  const int ctx = flags & (CR_THREAD_CONTEXT | CR_SIGNAL_CONTEXT);
  if (ctx == CR_THREAD_CONTEXT) return CallbackRegistry::instance().add_thread(func, arg);
  if (ctx == CR_SIGNAL_CONTEXT) return CallbackRegistry::instance().add_signal(func, arg);
  return fail(EINVAL, "flags must hold exactly one of CR_THREAD_CONTEXT and CR_SIGNAL_CONTEXT");
}

int cr_replace_callback(cr_callback_id_t id, cr_callback_t func, void* arg, int flags) {
  if (!Service::instance().started()) return fail(CR_ENOINIT, "cr_replace_callback before cr_init()");
  if (tl_in_callback) return fail(EBUSY, "cr_replace_callback called from a callback");
  return CallbackRegistry::instance().replace(id, func, arg, flags);
}

int cr_replace_self(cr_callback_t func, void* arg, int flags) {
  return CheckpointEngine::instance().replace_self(func, arg, flags);
}

int cr_checkpoint(int flags) { return CheckpointEngine::instance().checkpoint_from_callback(flags); }

// Critical sections: increment, then look at the state; the engine sets the
// state, then looks at the count (checkpoint_engine.cpp), so one of the two
// always sees the other.
static int enter_cs(cr_client_id_t id, bool may_block) {
  if (tl_in_callback) return 0;
  if (id == CR_ID_CALLBACK) {
    errno = EINVAL;
    return -1;
  }
  if (!Service::instance().started()) {
    errno = CR_ENOINIT;
    return -1;
  }
  if (tl_cs_depth > 0) {
    ++tl_cs_depth;
    g_cs_count.fetch_add(1);
    return 0;
  }
  for (;;) {
    g_cs_count.fetch_add(1);
    if (g_state.load() == kIdle) {
      tl_cs_depth = 1;
      return 0;
    }
    if (g_cs_count.fetch_sub(1) == 1) futex_wake_all(&g_cs_count);
    if (!may_block) return 1;
    int gen = g_idle_gen.load();
    if (g_state.load() != kIdle) futex_wait(&g_idle_gen, gen);
  }
}

int cr_enter_cs(cr_client_id_t id) { return enter_cs(id, true); }
int cr_tryenter_cs(cr_client_id_t id) { return enter_cs(id, false); }

int cr_leave_cs(cr_client_id_t id) {
  if (tl_in_callback) return 0;
  if (id == CR_ID_CALLBACK || tl_cs_depth == 0) {
    errno = EINVAL;
    return -1;
  }
  const int gen = g_idle_gen.load();
  --tl_cs_depth;
  const int left = g_cs_count.fetch_sub(1) - 1;
  if (left == 0 && g_state.load() != kIdle) {
    futex_wake_all(&g_cs_count);
    // BLCR: leaving the last section lets the pending checkpoint run, and
    // returns once it has been taken.
    if (tl_cs_depth == 0)
      while (g_idle_gen.load() == gen) futex_wait(&g_idle_gen, gen);
  }
  return 0;
}

int cr_status(void) {
  if (!Service::instance().started()) {
    errno = CR_ENOINIT;
    return -1;
  }
  if (tl_in_callback) return CR_STATE_ACTIVE;
  return g_state.load();
}

int cri_init_checkpoint_args_t(cr_version_t version, cr_checkpoint_args_t* args) {
  if (args == nullptr || version != CR_CHECKPOINT_ARGS_VERSION) {
    errno = EINVAL;
    return -1;
  }
  std::memset(args, 0, sizeof *args);
  args->cr_version = version;
  args->cr_scope = CR_SCOPE_PROC;
  args->cr_target = 0;
  args->cr_fd = CR_DEST_CWD;
  return 0;
}

int cr_request_checkpoint(cr_checkpoint_args_t* args, cr_checkpoint_handle_t* handle) {
  clear_error();
  if (args == nullptr || handle == nullptr) return fail(EINVAL, "cr_request_checkpoint: null argument");
  if (args->cr_scope != CR_SCOPE_PROC)
    return fail(EINVAL, "only CR_SCOPE_PROC is supported (use `lazarus checkpoint` for whole jobs)");
  if (args->cr_target < 0) return fail(EINVAL, "cr_target must be a pid (or 0 for this process)");
  const pid_t target = args->cr_target == 0 ? getpid() : args->cr_target;
  const bool local = target == getpid();
  if (local && !Service::instance().started())
    return fail(CR_ENOINIT, "this process has not called cr_init(), so it cannot checkpoint itself");
  if (!local && kill(target, 0) != 0 && errno == ESRCH)
    return fail(ESRCH, "no process with pid " + std::to_string(target));

  auto* h = new Handle();
  h->local = local;
  h->pid = target;
  h->signal = args->cr_signal;
  h->timeout = args->cr_timeout;
  h->requested = now_mono();
  int dir_fd = destination_dir(args->cr_fd, target, &h->dest);
  if (dir_fd < 0) {
    int err = errno;
    delete h;
    errno = err;
    return -1;
  }

  if (local) {
    CheckpointRequest req;
    req.dir_fd = dir_fd;
    req.dest = h->dest;
    req.signal = args->cr_signal;
    req.requester = getpid();
    h->id = Service::instance().submit_local(req);
  } else {
    h->start_time = process_start_time(target);
    if (getrandom(&h->id, sizeof h->id, 0) != sizeof h->id)
      h->id = (static_cast<uint64_t>(getpid()) << 32) ^ time(nullptr);
    const timespec deadline = plus(h->requested, static_cast<long long>(h->timeout) * 1000000000LL);
    for (long long backoff_ms = 5;; backoff_ms = std::min(backoff_ms * 2, 200LL)) {
      auto conn = connect_to(target);
      if (conn.ok()) {
        WireMsg m;
        m.op = static_cast<uint16_t>(Op::kCheckpoint);
        m.id = h->id;
        m.signal = args->cr_signal;
        set_text(&m, h->dest);
        WireMsg reply;
        lz::Status s = send_msg(*conn, m, dir_fd);
        if (s.ok()) s = recv_msg(*conn, &reply);
        close(*conn);
        if (s.ok() && reply.op == static_cast<uint16_t>(Op::kAccepted)) break;
        close(dir_fd);
        delete h;
        if (!s.ok()) return fail(EIO, "checkpoint request to pid " + std::to_string(target) + ": " + s.message());
        return fail(reply.status ? reply.status : EIO, text_of(reply));
      }
      // Busy (another checkpoint is being taken): retry until cr_timeout.
      if (conn.status().code() != lz::Code::kUnavailable || (h->timeout > 0 && passed(deadline))) {
        close(dir_fd);
        delete h;
        return fail(errno_of(conn.status()), conn.status().message());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
    }
    close(dir_fd);
  }
  {
    std::lock_guard<std::mutex> lock(g_handles_mu);
    g_handles.insert(h);
  }
  *handle = reinterpret_cast<cr_checkpoint_handle_t>(h);
  return 0;
}

int cr_wait_checkpoint(cr_checkpoint_handle_t* handle, struct timeval* timeout) {
  Handle* h = lookup(handle);
  if (h == nullptr) return fail(EINVAL, "no checkpoint request for this handle");
  if (h->done) return 1;
  timespec deadline{};
  bool bounded = false;
  if (timeout != nullptr) {
    deadline = plus(now_mono(), static_cast<long long>(timeout->tv_sec) * 1000000000LL + timeout->tv_usec * 1000LL);
    bounded = true;
  }
  if (h->timeout > 0) {
    timespec t = plus(h->requested, static_cast<long long>(h->timeout) * 1000000000LL);
    if (!bounded || t.tv_sec < deadline.tv_sec) deadline = t;
    bounded = true;
  }
  if (h->local) {
    if (tl_cs_depth > 0)
      return fail(EDEADLK,
                  "waiting inside a critical section for a checkpoint of this process would never end: "
                  "the checkpoint waits for the section to be left");
    RequestResult r;
    if (!Service::instance().wait_local(h->id, bounded ? &deadline : nullptr, &r)) return 0;
    finish(h, r.status, r.message);
    return 1;
  }
  for (long long backoff_ms = 5;; backoff_ms = std::min(backoff_ms * 2, 100LL)) {
    if (fetch_remote(h)) return 1;
    if (bounded && passed(deadline)) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
  }
}

int cr_reap_checkpoint(cr_checkpoint_handle_t* handle) {
  Handle* h = lookup(handle);
  if (h == nullptr) return fail(EINVAL, "no checkpoint request for this handle");
  if (!h->done) return fail(EAGAIN, "the checkpoint has not completed");
  const int status = h->status;
  const std::string message = h->message;
  release(handle, h);
  if (status > 0) return 1;
  return fail(-status, message.empty() ? cr_strerror(-status) : message);
}

int cr_poll_checkpoint(cr_checkpoint_handle_t* handle, struct timeval* timeout) {
  int w = cr_wait_checkpoint(handle, timeout);
  if (w < 0) return CR_POLL_CHKPT_ERR_PRE;
  if (w == 0) return 0;
  if (cr_reap_checkpoint(handle) < 0) return CR_POLL_CHKPT_ERR_POST;
  return 1;
}

int cr_forward_checkpoint(cr_scope_t, pid_t) {
  return fail(ENOSYS, "cr_forward_checkpoint is not supported by the CRIU back end");
}

const struct cr_checkpoint_info* cr_get_checkpoint_info(void) {
  if (!tl_in_callback) return nullptr;
  return CheckpointEngine::instance().checkpoint_info();
}

const struct cr_restart_info* cr_get_restart_info(void) {
  if (!tl_in_callback) return nullptr;
  return CheckpointEngine::instance().restart_info();
}

void cr_spinlock_init(cr_spinlock_t* lock) { __atomic_store_n(lock, 0u, __ATOMIC_RELEASE); }
void cr_spinlock_lock(cr_spinlock_t* lock) {
  while (__atomic_exchange_n(lock, 1u, __ATOMIC_ACQUIRE) != 0u)
    while (__atomic_load_n(lock, __ATOMIC_RELAXED) != 0u) lz::cpu_relax();
}
void cr_spinlock_unlock(cr_spinlock_t* lock) { __atomic_store_n(lock, 0u, __ATOMIC_RELEASE); }
int cr_spinlock_trylock(cr_spinlock_t* lock) { return __atomic_exchange_n(lock, 1u, __ATOMIC_ACQUIRE) == 0u; }

const char* cr_strerror(int e) {
  switch (e) {
    case CR_ETEMPFAIL:
      return "Temporary failure: a callback cancelled the checkpoint";
    case CR_EPERMFAIL:
      return "Permanent failure: a callback cancelled the checkpoint and the process is killed";
    case CR_ENOSUPPORT:
      return "The process is not checkpointable with libcr (no cr_init, not under cr_run)";
    case CR_EVERSION:
      return "Unsupported interface version";
    case CR_EOMITTED:
      return "A callback asked to leave this process out of the checkpoint";
    case CR_EBADARCH:
      return "The image does not match this architecture";
    case CR_EPTRACED:
      return "The process is being ptraced";
    case CR_EPTRACER:
      return "The process is ptracing others";
    case CR_ERSTRTABRT:
      return "The restart was aborted";
    case CR_ERESTARTED:
      return "The request belongs to the process before its restart";
    case CR_ENOTCB:
      return "Only valid inside a checkpoint callback";
    case CR_ENOINIT:
      return "cr_init() has not been called";
    default:
      return std::strerror(e);
  }
}

const char* cr_lz_last_error(void) { return last_error(); }

}  // extern "C"
