// The Fortran handles of MPI objects: small integers standing for the C
// binding's pointers (mpi.h's handles are addresses of runtime objects; the
// Fortran binding, mpif.h and `use mpi`, needs INTEGER handles).
//
// One table per kind of handle. Index 0 is the null handle of every kind;
// the predefined objects (MPI_COMM_WORLD, MPI_INTEGER, MPI_SUM ...) hold the
// fixed indices that the generated mpif.h names, from 1 on; the program's
// own objects get the next free index the first time they cross into Fortran
// (c2f) and give it back when the Fortran binding frees them (release).
//
//   MPI_Fint f = lz::fortran::table(Kind::kComm).c2f(newcomm);   // 3, say
//   MPI_Comm c = static_cast<MPI_Comm>(lz::fortran::table(Kind::kComm).f2c(f));
//
// Thread safety: every method may be called from any thread at once
// (MPI_THREAD_MULTIPLE programs convert handles concurrently). f2c, on every
// Fortran call's path, takes no lock: slots live in chunks that are never
// moved nor freed, read with acquire loads; c2f and release take the
// table's mutex.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace lz::fortran {

enum class Kind : uint8_t {
  kComm,
  kGroup,
  kDatatype,
  kOp,
  kRequest,
  kErrhandler,
  kInfo,
  kMessage,
  kWin,
  kFile,
  kNumKinds
};

class HandleTable {
 public:
  // `predefined[i]` gets index i + 1 and is never released.
  explicit HandleTable(const std::vector<void*>& predefined);
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;
  ~HandleTable();

  static constexpr int kChunkBits = 10;
  static constexpr int kMaxChunks = 1024;
  static constexpr int kCapacity = kMaxChunks << kChunkBits;  // indices 0 .. kCapacity - 1

  // The index of `object` (0 for nullptr), giving it one if it has none
  // (0 as well when the table is full: kCapacity live handles).
  int c2f(void* object);
  // The object of `index`; nullptr for 0 and for an index that names no
  // object (the C binding then reports the null handle as invalid).
  void* f2c(int index) const;
  // Forgets a non-predefined index (after MPI_Comm_free, a completed request
  // ...): it may name another object later. Unknown indices are ignored.
  void release(int index);
  // Forgets the index of `object`, if it has one (the object is going away).
  void forget(const void* object);

 private:
  // The slot of `index`, allocating its chunk (under mu_). nullptr when full.
  std::atomic<void*>* slot(int index);

  std::mutex mu_;
  // Slots by index (nullptr: free, and index 0); chunk c holds indices
  // c << kChunkBits onwards.
  std::array<std::atomic<std::atomic<void*>*>, kMaxChunks> chunks_{};
  std::unordered_map<void*, int> index_of_;  // under mu_
  std::vector<int> free_;                    // under mu_
  int next_ = 1;                             // under mu_: the first never used index
  int first_user_;                           // indices below it are predefined
};

// The table of one kind (built on first use from predefined_objects()).
HandleTable& table(Kind kind);

// The predefined objects of a kind, in the order of their Fortran indices
// (generated from fortran.tbl by gen_fortran.py, in fortran_bindings.cpp).
std::vector<void*> predefined_objects(Kind kind);

}  // namespace lz::fortran
