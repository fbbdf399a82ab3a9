#include "service.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include "backend.h"
#include "control_channel.h"
#include "lazarus/libcr.h"
#include "lazarus/userns/reopen.h"
#include "libcr_state.h"

namespace lz::libcr {
namespace {

constexpr size_t kMaxKeptResults = 64;

void unlink_socket_at_exit() {
  Service& s = Service::instance();
  if (s.started() && !s.socket_path().empty()) unlink(s.socket_path().c_str());
}

// The requester's directory, opened again by its path when it is the same
// directory here: a requester in another mount namespace (outside the one an
// ordinary user's cr_restart made) hands over a descriptor of a mount that
// CRIU cannot find from here (lazarus/userns/reopen.h).
int own_mount_namespace_dir(int fd) {
  const int again = userns::reopen_here(fd, O_RDONLY | O_DIRECTORY);
  if (again < 0) return fd;
  close(fd);
  return again;
}

}  // namespace

Service& Service::instance() {
  static Service* s = new Service();  // never destroyed: the thread outlives static destructors
  return *s;
}

bool Service::started() const { return started_pid_ == getpid(); }

void Service::after_fork_in_child() {
  Service& s = instance();
  // Other threads do not exist in the child; their locks may be held forever.
  new (&s.mu_) std::mutex();
  new (&s.start_mu_) std::mutex();
  new (&s.cv_) std::condition_variable();
  s.started_pid_ = 0;
  if (s.listen_fd_ >= 0) close(s.listen_fd_);
  if (s.wake_fd_ >= 0) close(s.wake_fd_);
  s.listen_fd_ = s.wake_fd_ = -1;
  s.queue_.clear();
  s.results_.clear();
}

Status Service::ensure_started() {
  std::lock_guard<std::mutex> lock(start_mu_);
  if (started()) return Status::Ok();

  if (backend_ == nullptr) {
    // Selected once per process (a forked child inherits it): the cr module
    // `lazarus run` would pick, which must save a single process.
    LZ_ASSIGN_OR_RETURN(Backend b, Backend::open(cr::kCapSingleProcess, "checkpoint a single process"));
    backend_ = new Backend(std::move(b));  // never destroyed: the thread outlives static destructors
    CheckpointEngine::instance().set_backend(&backend_->module());
  }

  static bool once = [] {
    CheckpointEngine::install_signal_handler();
    pthread_atfork(nullptr, nullptr, &Service::after_fork_in_child);
    std::atexit(&unlink_socket_at_exit);
    return true;
  }();
  (void)once;

  LZ_ASSIGN_OR_RETURN(socket_path_, own_socket_path());
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return ErrnoError("eventfd", errno);
  auto l = listen_at(socket_path_);
  if (!l.ok()) {
    close(wake_fd_);
    wake_fd_ = -1;
    return l.status();
  }
  listen_fd_ = *l;

  // The service thread takes no asynchronous signal meant for the application.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    std::thread([this] { main_loop(); }).detach();
  } catch (const std::system_error& e) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return Internal(std::string("cannot start the libcr service thread: ") + e.what());
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  started_pid_ = getpid();
  return Status::Ok();
}

uint64_t Service::submit_local(const CheckpointRequest& req) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = (static_cast<uint64_t>(getpid()) << 32) | next_local_id_++;
    queue_.push_back({id, req, true});
  }
  uint64_t one = 1;
  ssize_t w = write(wake_fd_, &one, sizeof one);
  (void)w;
  return id;
}

bool Service::wait_local(uint64_t id, const timespec* deadline, RequestResult* out) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    auto it = results_.find(id);
    if (it != results_.end()) {
      *out = it->second;
      results_.erase(it);
      return true;
    }
    if (deadline == nullptr) {
      cv_.wait(lock);
      continue;
    }
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long left_ns = (deadline->tv_sec - now.tv_sec) * 1000000000LL + (deadline->tv_nsec - now.tv_nsec);
    if (left_ns <= 0) return false;
    cv_.wait_for(lock, std::chrono::nanoseconds(left_ns));
  }
}

void Service::record(uint64_t id, RequestResult r) {
  std::lock_guard<std::mutex> lock(mu_);
  results_[id] = std::move(r);
  while (results_.size() > kMaxKeptResults) results_.erase(results_.begin());
  cv_.notify_all();
}

void Service::main_loop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int n = poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "libcr: poll on the control socket failed: %s\n", std::strerror(errno));
      return;
    }
    if (fds[1].revents & POLLIN) {
      uint64_t v;
      ssize_t r = read(wake_fd_, &v, sizeof v);
      (void)r;
    }
    if (listen_fd_ >= 0 && (fds[0].revents & POLLIN)) {
      int conn = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn >= 0) {
        handle_connection(conn);
        close(conn);
      }
    }
    for (;;) {
      Pending p;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (queue_.empty()) break;
        p = queue_.front();
        queue_.pop_front();
      }
      serve(std::move(p));
    }
  }
}

void Service::handle_connection(int conn) {
  timeval tv{5, 0};  // a stuck requester must not stall the service
  setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ucred cred{};
  socklen_t len = sizeof cred;
  WireMsg reply;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || (cred.uid != 0 && cred.uid != geteuid())) {
    reply.op = static_cast<uint16_t>(Op::kError);
    reply.status = EPERM;
    set_text(&reply, "only the owner of process " + std::to_string(getpid()) + " or root may checkpoint it");
    send_msg(conn, reply).ignore();
    return;
  }
  WireMsg m;
  int fd = -1;
  if (!recv_msg(conn, &m, &fd).ok()) return;
  reply.id = m.id;
  switch (static_cast<Op>(m.op)) {
    case Op::kCheckpoint: {
      if (fd < 0) {
        reply.op = static_cast<uint16_t>(Op::kError);
        reply.status = EBADF;
        set_text(&reply, "checkpoint request without a destination directory");
        break;
      }
      CheckpointRequest req;
      req.dest = userns::path_of_fd(fd);
      req.dir_fd = own_mount_namespace_dir(fd);
      req.signal = m.signal;
      req.requester = cred.pid;
      {
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back({m.id, req, false});
      }
      reply.op = static_cast<uint16_t>(Op::kAccepted);
      break;
    }
    case Op::kResult: {
      if (fd >= 0) close(fd);
      std::lock_guard<std::mutex> lock(mu_);
      auto it = results_.find(m.id);
      if (it != results_.end()) {
        reply.op = static_cast<uint16_t>(Op::kDone);
        reply.status = it->second.status;
        set_text(&reply, it->second.message);
        results_.erase(it);
        break;
      }
      bool queued = false;
      for (const auto& p : queue_) queued = queued || p.id == m.id;
      reply.op = static_cast<uint16_t>(queued ? Op::kPending : Op::kError);
      reply.status = queued ? 0 : ESRCH;
      if (!queued) set_text(&reply, "process " + std::to_string(getpid()) + " knows no such checkpoint request");
      break;
    }
    default:
      if (fd >= 0) close(fd);
      reply.op = static_cast<uint16_t>(Op::kError);
      reply.status = EINVAL;
      set_text(&reply, "unknown request");
  }
  send_msg(conn, reply).ignore();
}

void Service::reopen_socket() {
  auto l = listen_at(socket_path_);
  if (!l.ok()) {
    std::fprintf(stderr, "libcr: cannot re-create the control socket: %s\n", l.status().message().c_str());
    return;
  }
  listen_fd_ = *l;
}

void Service::serve(Pending p) {
  // Requesters now get "connection refused" (busy) until the socket is back.
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;

  CheckpointEngine& engine = CheckpointEngine::instance();
  engine.begin(p.req);
  const int outcome = engine.run();

  RequestResult r;
  r.dest = p.req.dest;
  if (outcome == 0) {
    r.status = 1;
  } else if (outcome > 0) {
    r.status = -CR_ERESTARTED;  // this is a restored copy; the request belongs to the past
  } else {
    r.status = outcome == -CR_EOMITTED ? -ESRCH : outcome;
    r.message = engine.failure();
  }
  close(p.req.dir_fd);
  record(p.id, r);
  reopen_socket();
  engine.end();

  if (outcome == 0 && p.local && p.req.signal > 0) kill(getpid(), p.req.signal);
  if (outcome < 0 && engine.permanent_failure()) kill(getpid(), SIGKILL);
}

}  // namespace lz::libcr
