// WaitGate: what the engine's waits need from a gate that several threads
// pass to call MPI (MPI_THREAD_MULTIPLE; the binding's ThreadGate,
// runtime/mpi/thread_gate.h, is the one implementation). The engine holds the
// gate whenever it runs; a wait with nothing to do lets go of it while it
// sleeps, so other threads' calls run meanwhile.
//
//   while (!done()) {                       // Engine::sleep_turn, simplified
//     if (gate->poller_active()) { gate->wait_turn(ms); continue; }
//     gate->release_for_poll(); poll(fds + gate->wake_fd()); gate->reacquire_after_poll();
//   }
//
// Every method is called by the thread holding the gate.
#pragma once

namespace lz::rt {

class WaitGate {
 public:
  virtual ~WaitGate() = default;
  // More than one thread is inside MPI (a spinning wait should sleep instead,
  // to let them in).
  virtual bool contended() const = 0;
  // This turn saw events or completed a request: the sleepers are woken when
  // the holder lets go of the gate.
  virtual void note_events() = 0;
  // Another thread is the poller (sleeps in poll() for everyone) now.
  virtual bool poller_active() const = 0;
  // Lets go of the gate until a holder with events or a leaving poller wakes
  // this thread, or `timeout_ms` pass; holds it again on return.
  virtual void wait_turn(int timeout_ms) = 0;
  // Becomes the poller and lets go of the gate for the poll() that follows;
  // reacquire_after_poll() takes it back, gives up the role and wakes another
  // waiter to poll next. wake_fd() belongs in that poll's set.
  virtual void release_for_poll() = 0;
  virtual void reacquire_after_poll() = 0;
  virtual int wake_fd() const = 0;
};

}  // namespace lz::rt
