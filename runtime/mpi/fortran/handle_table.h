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
// Thread safety: every method may be called from any thread at once (one
// mutex per table: MPI_THREAD_MULTIPLE programs convert handles concurrently).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace lz::fortran {

enum class Kind : uint8_t { kComm, kGroup, kDatatype, kOp, kRequest, kErrhandler, kInfo, kMessage, kNumKinds };

class HandleTable {
 public:
  // `predefined[i]` gets index i + 1 and is never released.
  explicit HandleTable(const std::vector<void*>& predefined);

  // The index of `object` (0 for nullptr), giving it one if it has none.
  int c2f(void* object);
  // The object of `index`; nullptr for 0 and for an index that names no
  // object (the C binding then reports the null handle as invalid).
  void* f2c(int index) const;
  // Forgets a non-predefined index (after MPI_Comm_free, a completed request
  // ...): it may name another object later. Unknown indices are ignored.
  void release(int index);

 private:
  mutable std::mutex mu_;
  std::vector<void*> objects_;  // by index; nullptr: free slot (and index 0)
  std::unordered_map<void*, int> index_of_;
  std::vector<int> free_;
  int first_user_;  // indices below it are predefined
};

// The table of one kind (built on first use from the generated list of
// predefined objects, fortran_predefined.cpp).
HandleTable& table(Kind kind);

// The predefined objects of a kind, in the order of their Fortran indices
// (generated from fortran.tbl by gen_fortran.py).
std::vector<void*> predefined_objects(Kind kind);

}  // namespace lz::fortran
