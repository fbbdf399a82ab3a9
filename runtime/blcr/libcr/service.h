// libcr's service thread: the "dedicated checkpoint thread" of BLCR. It selects
// the checkpointer (backend.h) when it starts, owns
// the control socket (control_channel.h), queues requests from other
// processes and from this one, runs each checkpoint with the engine
// (checkpoint_engine.h) and keeps the results until the requester fetches
// them. Thread-context callbacks run on this thread.
//
// Around every checkpoint it closes the listening socket (CRIU cannot save a
// socket a requester is connected to, and requesters see "busy" meanwhile)
// and re-creates it afterwards, in the process that goes on and in every
// process restored from the image.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "backend.h"
#include "checkpoint_engine.h"
#include "lazarus/status.h"

namespace lz::libcr {

struct RequestResult {
  int status = 0;  // > 0 success; < 0: -errno, -CR_ERESTARTED in a restored copy
  std::string message;
  std::string dest;
};

class Service {
 public:
  static Service& instance();

  // Starts the thread and the socket, once per process (again in a forked
  // child that calls cr_init). Returns after the socket accepts requests.
  Status ensure_started();
  bool started() const;

  // A request from this process; the service takes ownership of req.dir_fd.
  uint64_t submit_local(const CheckpointRequest& req);
  // Waits for the result of a local request until `deadline` (CLOCK_MONOTONIC;
  // null: no limit). True when the result is there.
  bool wait_local(uint64_t id, const timespec* deadline, RequestResult* out);

  const std::string& socket_path() const { return socket_path_; }

  // pthread_atfork child handler: the child is not a libcr process (yet).
  static void after_fork_in_child();

 private:
  struct Pending {
    uint64_t id = 0;
    CheckpointRequest req;
    bool local = false;
  };

  void main_loop();
  void handle_connection(int conn);
  void serve(Pending p);
  void reopen_socket();
  void record(uint64_t id, RequestResult r);

  std::mutex start_mu_;
  Backend* backend_ = nullptr;
  pid_t started_pid_ = 0;
  std::string socket_path_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: a local request was queued

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  std::map<uint64_t, RequestResult> results_;
  uint64_t next_local_id_ = 1;
};

}  // namespace lz::libcr
