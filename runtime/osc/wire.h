// The one-sided protocol's messages: what an origin sends a target's window
// agent (window.h) over the p2p engine, on the point-to-point context of the
// window's own communicator (a private duplicate of the one the program
// gave), so that they never meet the program's messages.
//
//   tag kTagOp    an operation or a synchronization message: Op + blocks +
//                 (kFlagInline) the packed data
//   tag kTagData  the packed data of the origin's next put or accumulate
//                 that did not go inline (a message of its own, from the
//                 origin's buffer and datatype, eager or rendezvous)
//   tag >= kFirstReplyTag  the target's answer to one request of the origin
//                 (get data, get-accumulate's old values, a flush, unlock
//                 or lock acknowledgement), received by a receive the origin
//                 posted before it sent the request
//
// A target takes each origin's messages in the order they were sent and
// executes them in that order: accumulates are ordered and atomic (no two
// run at once, none interleaves with a put or get), and a flush, unlock or
// MPI_Win_complete message acknowledges everything before it.
#pragma once

#include <cstdint>

namespace lz::osc::wire {

inline constexpr int kTagOp = 1;
inline constexpr int kTagData = 2;
inline constexpr int kFirstReplyTag = 16;
inline constexpr int kLastReplyTag = 0x3fffffff;

enum Kind : uint8_t {
  kPut = 1,
  kGet = 2,
  kAcc = 3,
  kGetAcc = 4,       // MPI_Get_accumulate and MPI_Fetch_and_op: the old values come back
  kCas = 5,          // data: the new value, then the compare value (one element each)
  kLock = 6,         // flags kFlagExclusive; reply_tag != 0: acknowledge the grant
  kUnlock = 7,       // acknowledged once every operation before it is done
  kFlush = 8,        // acknowledged once every operation before it is done
  kComplete = 9,     // MPI_Win_complete: the origin's access epoch ended
  kPost = 10,        // target -> origin: MPI_Win_post exposed the window to you
  kWake = 11,        // the fence barrier of a load/store window passed: wakes a rank asleep in it
  kFenceCount = 12,  // MPI_Win_fence: `bytes` operations of fence epoch `epoch` were sent to you
  kKeyReq = 13,      // origin -> target: answer with your transport's key of your window memory (window_native.cpp):
                     // an Op with `disp` its base, `epoch` the key generation (Engine::rma_generation),
                     // kFlagInline if it has one, `bytes` the key's length, the key after it
};

enum Flags : uint8_t {
  kFlagInline = 1,     // the data follows the blocks in this message
  kFlagExclusive = 2,  // kLock: an exclusive lock
  kFlagFence = 4,      // an operation of a fence epoch: counted for MPI_Win_fence
  kFlagDirect = 8,     // kUnlock: of a lock the origin took through the target's words (target_words.h)
};

// The target's side of an operation: `count` elements of a datatype whose
// one element is `nblocks` byte blocks (nblocks == 0: the bytes are
// contiguous, [disp, disp + bytes)), element i at disp + i * extent.
struct Op {
  uint8_t kind;
  uint8_t op;     // lz_op_s::Kind (accumulates)
  uint8_t basic;  // lz::dt::Basic of the target datatype's elements (accumulates)
  uint8_t flags;
  uint32_t nblocks;
  uint32_t reply_tag;
  uint32_t epoch;  // kFlagFence: the origin's fence count
  uint64_t disp;   // bytes from the window's base (a dynamic window: an address)
  uint64_t count;
  int64_t extent;
  uint64_t bytes;  // packed bytes to the target (put, accumulate) or back (get)
};
static_assert(sizeof(Op) == 48, "osc wire header layout changed");

struct Block {
  int64_t offset;
  uint64_t length;
};

}  // namespace lz::osc::wire
