// The doorbell of a rank's receive segment: a FIFO in the backing directory.
//
// Why a FIFO: it is a pollable, cross-process wake-up that needs nothing but a
// file name (no Unix socket to pass an eventfd over, no ptrace permission as
// pidfd_getfd would need), and any number of senders can open it. The owner
// holds it O_RDWR, so it never reads EOF or POLLHUP when senders come and go;
// senders hold it O_RDWR|O_NONBLOCK too: ringing never blocks (a full FIFO
// already wakes the owner), and ringing a dead owner's bell is not EPIPE and
// its SIGPIPE, which would kill the survivor (a sender never reads it; the
// owner's death is learnt from its pidfd). The protocol around it (the
// "sleeping" flag that keeps senders from writing on every frame) is in
// shm_transport.cpp.
//
//   LZ_ASSIGN_OR_RETURN(Doorbell bell, Doorbell::create(path));   // owner
//   poll(bell.fd()) ...; bell.drain();
//   LZ_ASSIGN_OR_RETURN(DoorbellWriter w, DoorbellWriter::open(path));  // sender
//   w.ring();
#pragma once

#include <string>

#include "lazarus/status.h"
#include "lazarus/unique_fd.h"

namespace lz::transport::shm {

class Doorbell {
 public:
  Doorbell() = default;
  ~Doorbell() { reset(); }
  Doorbell(Doorbell&& o) noexcept;
  Doorbell& operator=(Doorbell&& o) noexcept;

  // Makes the FIFO (mode 0600, exclusively) and opens it non-blocking.
  static StatusOr<Doorbell> create(const std::string& path);

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  // Reads every pending byte; returns how many there were.
  int drain();
  // Removes the name (the open FIFO keeps working). Idempotent.
  Status unlink();
  void reset();

 private:
  UniqueFd fd_;
  std::string path_;
  bool linked_ = false;
};

class DoorbellWriter {
 public:
  // Opens a peer's doorbell for writing; refuses anything but a FIFO of ours.
  static StatusOr<DoorbellWriter> open(const std::string& path);
  // Wakes the owner. Never blocks; a full FIFO (EAGAIN) already does the job.
  void ring() const;
  bool valid() const { return fd_.valid(); }
  void reset() { fd_.reset(); }

 private:
  UniqueFd fd_;
};

}  // namespace lz::transport::shm
