// The slow half of an asymmetric Dekker pairing between a sender publishing a
// record and a receiver about to sleep, across processes.
//
// A sender publishes a record, then reads the receiver's "sleeping" flag; the
// receiver sets that flag, then reads the ring. Each side needs a full fence
// between its store and its load, or both may read the old value: the
// receiver sleeps on a record no one rings the doorbell for. A fence on the
// sender's side costs every send a locked instruction that waits for the
// record's cache line (measured: 0.50 us -> 0.34 us half round trip at 0 B,
// tests/perf/results/20261127-*). The receiver sleeps rarely. So the fence
// moves to it: membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) makes every
// running thread of every process registered with
// MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED execute a full memory barrier
// before it returns (a thread not running crossed one at its context switch),
// which turns the sender's plain store-then-load into a fenced one exactly
// when it matters. liburcu's "memb" flavour and folly's asymmetric barriers
// pair fast and slow paths the same way, within one process.
//
// Both sides must take part: a sender may skip its fence toward a receiver
// only if the sender itself is registered (so the receiver's barrier reaches
// it) and the receiver says, in its segment header, that it runs the barrier
// before sleeping. Registration is per process; CRIU may not carry it across
// a restore, so the transport registers again on restart.
#pragma once

namespace lz::transport::shm::membarrier {

// Registers this process for global expedited barriers. False when the
// kernel lacks them or a sandbox refuses the call (then every send fences).
bool register_process();

// Runs the barrier on every CPU running a registered process. False if the
// call failed; the caller must then not rely on it (and must not sleep).
bool run_global();

}  // namespace lz::transport::shm::membarrier
