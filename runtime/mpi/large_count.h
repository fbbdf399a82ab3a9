// MPI-4.0 large counts (the MPI_*_c calls): how a call with MPI_Count counts
// reaches the int call's code.
//
//   int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype dt, ...) {
//     LZ_LARGE_ENTRY("MPI_Send_c");
//     large::Count c(count, dt);
//     if (int e = c.check("MPI_Send_c", comm, "count")) return e;
//     return MPI_Send(buf, c.count(), c.type(), dest, tag, comm);
//   }
//
// A count that fits in an int is passed as it is, so the _c call behaves
// exactly as its int twin (the int call runs, under the _c call's name:
// ErrorName). A larger count of a type whose elements abut becomes one
// element of a contiguous type of `count` elements (as the BigMPI library
// does; the datatype engine's sizes and the wire's lengths are 64-bit);
// reductions go in pieces of at most kPiece elements (an op combines element
// by element). What cannot be expressed so is MPI_ERR_COUNT, naming the call,
// the argument and the limit (docs/mpi.md, "Large counts").
#pragma once

#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

// The first statement of every _c call: the entry guard, and errors named
// after the _c call while its int twin runs.
#define LZ_LARGE_ENTRY(function) \
  LZ_MPI_ENTRY(function);        \
  ::lz::rt::ErrorName lz_error_name_(function)

namespace lz::rt::large {

// The elements a reduction combines per int call.
constexpr MPI_Count kPiece = MPI_Count{1} << 30;

inline bool fits_int(MPI_Count v) { return v >= INT_MIN && v <= INT_MAX; }

// `count` elements of `type` as an int call takes them (see above).
class Count {
 public:
  Count(MPI_Count count, MPI_Datatype type);
  ~Count() { lz_datatype_s::release(made_); }
  Count(const Count&) = delete;
  Count& operator=(const Count&) = delete;

  // MPI_ERR_COUNT (through comm's error handler) when the count cannot be
  // expressed: more than INT_MAX elements of a type whose elements do not
  // abut (the engine would hold a block per element).
  int check(const char* fn, MPI_Comm comm, const char* what) const;
  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  MPI_Count requested_;
  int count_;
  MPI_Datatype type_;
  lz_datatype_s* made_ = nullptr;
  bool unsupported_ = false;
};

// `n` values of an MPI_Count or MPI_Aint array as ints, for the v and w
// collectives; null stays null. A value beyond an int is MPI_ERR_COUNT.
class Ints {
 public:
  template <class T>
  int set(const char* fn, MPI_Comm comm, const T* values, int n, const char* what) {
    if (values == nullptr || n < 0) return MPI_SUCCESS;
    v_ = std::make_shared<std::vector<int>>(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (!fits_int(values[i])) return too_large(fn, comm, what, i, values[i]);
      (*v_)[i] = static_cast<int>(values[i]);
    }
    return MPI_SUCCESS;
  }
  const int* get() const { return v_ ? v_->data() : nullptr; }
  // Kept alive by a persistent request's start function.
  std::shared_ptr<std::vector<int>> share() const { return v_; }

 private:
  static int too_large(const char* fn, MPI_Comm comm, const char* what, int i, long long value);
  std::shared_ptr<std::vector<int>> v_;
};

// MPI_ERR_COUNT for a count beyond INT_MAX that `fn` does not take.
int beyond_int(const char* fn, MPI_Comm comm, const char* what, MPI_Count value);

// A reduction of `count` elements as int calls of at most kPiece elements:
// piece(sendbuf, recvbuf, n) with both buffers advanced (MPI_IN_PLACE and
// null stay as they are). A count that fits, or an invalid type, is one call.
template <class Piece>
int in_pieces(MPI_Count count, MPI_Datatype dt, const void* sendbuf, void* recvbuf, Piece piece) {
  if (count <= INT_MAX || dt == MPI_DATATYPE_NULL || !dt->is_committed())
    return piece(sendbuf, recvbuf, count <= INT_MAX ? static_cast<int>(count < INT_MIN ? -1 : count) : 1);
  const ptrdiff_t ext = dt->extent();
  for (MPI_Count at = 0; at < count; at += kPiece) {
    const int n = static_cast<int>(count - at < kPiece ? count - at : kPiece);
    const void* s =
        sendbuf == MPI_IN_PLACE || sendbuf == nullptr ? sendbuf : static_cast<const char*>(sendbuf) + at * ext;
    void* r = recvbuf == nullptr ? recvbuf : static_cast<char*>(recvbuf) + at * ext;
    if (int e = piece(s, r, n)) return e;
  }
  return MPI_SUCCESS;
}

// The 64-bit cores of MPI_Pack / MPI_Unpack / MPI_Pack_size (mpi_datatype.cpp), which the
// int calls and the _c calls share.
int pack(const char* fn, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
         MPI_Count* position, MPI_Comm comm);
int pack_size(const char* fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size);
int unpack(const char* fn, const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
           MPI_Datatype datatype, MPI_Comm comm);

}  // namespace lz::rt::large
