// Reduction operations of the datatype engine: the object behind MPI_Op (mpi.h's
// MPI_Op is `struct lz_op_s*`, as MPI_Datatype is `struct lz_datatype_s*`).
//
// A predefined op (kMax ... kMinloc; mpi.h's MPI_SUM etc. are objects of this
// type defined by the binding) is applied element by element to the basic
// type of the datatype's signature: a predefined basic type, or a derived type
// whose signature is all one basic type (contiguous/vector of MPI_INT, ...).
// Which (op, type) pairs are valid follows MPI-3.1 section 5.9.2; check() says
// why a pair is not. A user op (MPI_Op_create) gets the buffers and the user's
// datatype handle as they are, for any datatype.
//
//   if (auto s = op.check(dt); !s.ok()) return mpi_error(comm, "MPI_Reduce", MPI_ERR_OP, s.message());
//   op.apply(incoming, accumulator, count, dt);   // accumulator = incoming OP accumulator
//
// Order: apply(in, inout) computes inout = in OP inout, MPI's order for
// non-commutative user functions. A collective that combines the
// contributions of ranks a < b must call apply(contribution_of_a, contribution_of_b).
//
// Lifetime as for datatypes: user ops are reference counted (a collective in
// flight keeps its op alive across MPI_Op_free); predefined ops are never freed.
#pragma once

#include <atomic>
#include <string>

#include "lazarus/datatype/basic.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/status.h"

// The C signature of a user reduction function (MPI_User_function).
extern "C" {
typedef void(lz_user_function)(void* invec, void* inoutvec, int* len, struct lz_datatype_s** datatype);
// Its large-count form (MPI-4.0's MPI_User_function_c).
typedef void(lz_user_function_c)(void* invec, void* inoutvec, long long* len, struct lz_datatype_s** datatype);
}

struct lz_op_s {
  // kReplace and kNoOp are one-sided accumulates' only (MPI_REPLACE:
  // inout = in; MPI_NO_OP: inout unchanged): check() refuses them, so
  // collectives do; apply_basic() applies them to any type.
  enum class Kind : uint8_t {
    kMax,
    kMin,
    kSum,
    kProd,
    kLand,
    kBand,
    kLor,
    kBor,
    kLxor,
    kBxor,
    kMaxloc,
    kMinloc,
    kReplace,
    kNoOp,
    kUser
  };

  // A predefined op.
  explicit lz_op_s(Kind k);
  // A user op (MPI_Op_create): one reference held by the caller.
  static lz_op_s* create_user(lz_user_function* fn, bool commutative);
  // A user op of MPI_Op_create_c: the function gets the count as a long long.
  static lz_op_s* create_user_c(lz_user_function_c* fn, bool commutative);
  lz_op_s(const lz_op_s&) = delete;
  lz_op_s& operator=(const lz_op_s&) = delete;

  Kind kind() const { return kind_; }
  bool is_predefined() const { return kind_ != Kind::kUser; }
  bool rma_only() const { return kind_ == Kind::kReplace || kind_ == Kind::kNoOp; }
  bool commutative() const { return commutative_; }
  // "MPI_SUM", or "user op".
  const char* name() const;

  // Ok when this op is defined on `dt`; otherwise kInvalidArgument whose
  // message names both ("MPI_BAND is not defined for MPI_FLOAT"); the MPI
  // binding reports it as MPI_ERR_OP.
  lz::Status check(const lz::dt::Datatype& dt) const;

  // inout[i] = in[i] OP inout[i] for `count` elements of `dt`. The pair must
  // have passed check(); both buffers use dt's layout.
  void apply(const void* in, void* inout, int count, const lz::dt::Datatype& dt) const;

  void retain() { if (!is_predefined()) refs_.fetch_add(1, std::memory_order_relaxed); }
  static void release(const lz_op_s* op);

 private:
  Kind kind_;
  bool commutative_ = true;
  lz_user_function* user_fn_ = nullptr;
  lz_user_function_c* user_fn_c_ = nullptr;  // instead of user_fn_ (MPI_Op_create_c)
  std::atomic<int> refs_{1};
};

namespace lz::dt {
using Op = ::lz_op_s;

// Applies predefined op `k` to `n` contiguous elements of basic type `b`.
// False when the pair is not valid (nothing is written).
bool apply_basic(Op::Kind k, Basic b, const void* in, void* inout, size_t n);
bool op_defined_on(Op::Kind k, Basic b);
}  // namespace lz::dt
