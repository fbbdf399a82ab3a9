// The datatype engine's datatype: where `count` elements live in a buffer and
// how they travel on the wire. Part of the base layer (runtime/datatype, CMake
// target lazarus_datatype): it knows nothing of MPI handles, communicators or
// the p2p engine, so the p2p engine, the MPI binding and collective components
// (built in or out of tree) all use it through this header.
//
// The engine keeps, for one element, a flattened list of (offset, length) byte
// blocks in type-map order, adjacent blocks merged, plus the basic-type
// signature (runs of one basic type) that reductions and MPI_Get_elements
// need. Element i of a buffer starts at buf + i * extent(). The packed form of
// `count` elements is exactly size() * count bytes: the blocks of element 0,
// then of element 1, ... with no padding (the same bytes on both sides;
// Lazarus is homogeneous).
//
//   lz::dt::Datatype* column;
//   LZ_ASSIGN_OR_RETURN(column, lz::dt::Datatype::vector(rows, 1, cols, lz::dt::internal_type(lz::dt::Basic::kDouble)));
//   column->commit();
//   std::vector<char> wire(column->size() * n);
//   column->pack(matrix, n, wire.data());          // gather n columns
//   column->unpack(wire.data(), wire.size(), n, out);
//   lz::dt::Datatype::release(column);             // MPI_Type_free
//
// The object is `struct lz_datatype_s`, and mpi.h's MPI_Datatype is a pointer
// to it: the MPI binding (runtime/mpi) hands the engine its handles as they
// are, with no translation table, and the predefined MPI_INT ... objects are
// engine objects defined by the binding (runtime/mpi/datatype/predefined.cpp).
//
// Lifetime: derived datatypes are reference counted. MPI_Type_free drops the
// user's reference; a pending request that uses a datatype holds its own
// (retain() when posted, release() when completed), so a type freed while a
// request is in flight stays alive until the request completes. Predefined
// datatypes are never freed. A derived datatype copies the flattened form of the
// types it was built from, and also keeps a reference to each of them in its
// contents() (what MPI_Type_get_contents returns), so freeing an old type never
// affects a new one: the old object lives on, unused by data movement, until
// every type recording it is freed.
//
// Thread-safety: a committed datatype is immutable; pack/unpack/queries may run
// concurrently. retain()/release() are atomic.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/datatype/basic.h"
#include "lazarus/status.h"

namespace lz::dt {


}  // namespace lz::dt

struct lz_datatype_s {
  using Basic = lz::dt::Basic;

  // One byte range of one element, relative to the element's start.
  struct Block {
    ptrdiff_t offset;
    size_t length;
  };
  // `count` consecutive basic elements of one type in the signature.
  struct Run {
    Basic type;
    size_t count;
  };

  // Which constructor built a type (MPI_Type_get_envelope's combiner).
  enum class Combiner : uint8_t {
    kNamed,
    kContiguous,
    kVector,
    kHvector,
    kIndexed,
    kStruct,
    kHindexed,
    kIndexedBlock,
    kHindexedBlock,
    kResized,
    kDup,
    kSubarray,
    kDarray,
    // The Fortran 90 parameterized types (MPI_Type_create_f90_*): a basic
    // type under another combiner, with the precision and range asked for.
    kF90Real,
    kF90Complex,
    kF90Integer
  };
  // The arguments of that constructor, in MPI_Type_get_contents's order
  // (MPI-3.1 section 4.1.13): integers, addresses, datatypes. The types are
  // references this type holds. Order and distribution arguments are
  // recorded with the values below, which mpi.h's MPI_ORDER_* and
  // MPI_DISTRIBUTE_* equal.
  struct Contents {
    std::vector<int> ints;
    std::vector<ptrdiff_t> addresses;
    std::vector<const lz_datatype_s*> types;
    // The counts of a large-count constructor (MPI-4.0's MPI_Type_*_c), in
    // MPI_Type_get_contents_c's order; empty for the int constructors, whose
    // counts are among `ints`.
    std::vector<int64_t> large_counts;
  };
  static constexpr int kOrderC = 56, kOrderFortran = 57;
  static constexpr int kDistributeBlock = 121, kDistributeCyclic = 122, kDistributeNone = 123,
                       kDistributeDfltDarg = -49767;

  // Returned by elements_in() when the bytes end inside a basic element.
  static constexpr size_t kUndefinedElements = SIZE_MAX;

  // A predefined basic type (used for the lz_mpi_dt_* objects of mpi.h).
  explicit lz_datatype_s(Basic b);
  lz_datatype_s(const lz_datatype_s&) = delete;
  lz_datatype_s& operator=(const lz_datatype_s&) = delete;
  ~lz_datatype_s();

  // ---- constructors (MPI_Type_*): a new, uncommitted type with one reference.
  // Errors (kInvalidArgument) name the bad argument; `old` must be valid but
  // need not be committed (MPI allows building from uncommitted types).
  static lz::StatusOr<lz_datatype_s*> contiguous(int count, const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> vector(int count, int blocklength, int stride,
                                                 const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> hvector(int count, int blocklength, ptrdiff_t stride_bytes,
                                                  const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> indexed(int count, const int* blocklengths, const int* displacements,
                                                  const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> create_struct(int count, const int* blocklengths,
                                                        const ptrdiff_t* displacements,
                                                        const lz_datatype_s* const* types);
  // Byte displacements (MPI_Type_create_hindexed).
  static lz::StatusOr<lz_datatype_s*> hindexed(int count, const int* blocklengths, const ptrdiff_t* displacements,
                                               const lz_datatype_s& old);
  // One block length for every block; displacements in extents of `old`
  // (MPI_Type_create_indexed_block) or in bytes (..._hindexed_block).
  static lz::StatusOr<lz_datatype_s*> indexed_block(int count, int blocklength, const int* displacements,
                                                    const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> hindexed_block(int count, int blocklength, const ptrdiff_t* displacements,
                                                     const lz_datatype_s& old);
  // `old` with lower bound `lb` and extent `extent` (MPI_Type_create_resized):
  // same type map, explicit bounds that later constructors inherit.
  static lz::StatusOr<lz_datatype_s*> resized(const lz_datatype_s& old, ptrdiff_t lb, ptrdiff_t extent);
  // An equal copy (MPI_Type_dup): committed if `old` is; the name is not copied.
  static lz::StatusOr<lz_datatype_s*> dup(const lz_datatype_s& old);
  // An n-dimensional subarray of an array of `old` (MPI_Type_create_subarray):
  // sizes/subsizes/starts per dimension, row-major when c_order, else
  // column-major. Lower bound 0, extent the whole array's.
  static lz::StatusOr<lz_datatype_s*> subarray(int ndims, const int* sizes, const int* subsizes, const int* starts,
                                               bool c_order, const lz_datatype_s& old);
  // Process `rank`'s part of an array distributed over a process grid
  // (MPI_Type_create_darray): per dimension kDistributeBlock,
  // kDistributeCyclic or kDistributeNone with darg a block size or
  // kDistributeDfltDarg; the grid is row-major whatever `order`
  // (kOrderC or kOrderFortran, the array's). Lower bound 0, extent the
  // whole array's. Built per dimension as an hindexed of the runs the
  // process owns (lz::dt::darray_runs) over the lower dimensions' type
  // resized to one row.
  static lz::StatusOr<lz_datatype_s*> darray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                                             const int* dargs, const int* psizes, int order, const lz_datatype_s& old);

  // ---- the large-count constructors (MPI-4.0's MPI_Type_*_c): the same
  // types as above with 64-bit counts, block lengths, strides and
  // displacements (hvector's stride and hindexed's displacements in bytes),
  // recorded with those in contents().large_counts and, in ints, only what
  // MPI-4.0 keeps there (subarray: ndims, order). A count of blocks is bounded
  // by memory (each block of a non-contiguous type is an entry); lengths and
  // displacements only by the 64-bit size.
  static lz::StatusOr<lz_datatype_s*> contiguous_c(int64_t count, const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> vector_c(int64_t count, int64_t blocklength, int64_t stride,
                                               const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> hvector_c(int64_t count, int64_t blocklength, int64_t stride_bytes,
                                                const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> indexed_c(int64_t count, const int64_t* blocklengths,
                                                const int64_t* displacements, const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> hindexed_c(int64_t count, const int64_t* blocklengths,
                                                 const int64_t* displacements, const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> indexed_block_c(int64_t count, int64_t blocklength,
                                                      const int64_t* displacements, const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> hindexed_block_c(int64_t count, int64_t blocklength,
                                                       const int64_t* displacements, const lz_datatype_s& old);
  static lz::StatusOr<lz_datatype_s*> struct_c(int64_t count, const int64_t* blocklengths,
                                               const int64_t* displacements, const lz_datatype_s* const* types);
  static lz::StatusOr<lz_datatype_s*> resized_c(const lz_datatype_s& old, int64_t lb, int64_t extent);
  static lz::StatusOr<lz_datatype_s*> subarray_c(int ndims, const int64_t* sizes, const int64_t* subsizes,
                                                 const int64_t* starts, bool c_order, const lz_datatype_s& old);
  // Records a type built by the int constructors as built by a large-count
  // one (darray_c, whose sizes the int darray() takes): ints and
  // large_counts replace the contents' integers and addresses.
  void record_large(std::vector<int> ints, std::vector<int64_t> large_counts);
  // Built by a large-count constructor (MPI_Type_get_envelope_c's
  // num_large_counts is not 0).
  bool has_large_counts() const { return !contents_.large_counts.empty(); }

  // The type MPI_Type_create_f90_real/_complex/_integer returns: `basic`
  // (a predefined type) under combiner kF90Real, kF90Complex or kF90Integer
  // with `params` (p, r; or r) as its contents. Predefined like `basic` (it
  // cannot be freed, and is basic where reductions ask); one per combiner
  // and parameters for the life of the process, as MPI requires.
  static const lz_datatype_s* f90(Combiner combiner, std::vector<int> params, const lz_datatype_s& basic);

  // ---- how it was built (MPI_Type_get_envelope / MPI_Type_get_contents)
  Combiner combiner() const { return combiner_; }
  const Contents& contents() const { return contents_; }

  // ---- lifetime
  void commit() { committed_ = true; }
  bool is_committed() const { return committed_; }
  bool is_predefined() const { return predefined_; }
  void retain() { if (!predefined_) refs_.fetch_add(1, std::memory_order_relaxed); }
  // Drops one reference; deletes a derived type when none is left. Null is ok.
  static void release(const lz_datatype_s* dt);
  // Called with a derived type just before it is deleted (the Fortran
  // binding forgets the type's INTEGER handle then: MPI_Type_get_contents
  // hands out more references to one object, each freed on its own).
  using DestroyHook = void (*)(const lz_datatype_s*);
  static void set_destroy_hook(DestroyHook hook);

  // ---- queries (MPI_Type_size, MPI_Type_get_extent, MPI_Type_get_true_extent)
  size_t size() const { return size_; }
  ptrdiff_t lb() const { return lb_; }
  ptrdiff_t extent() const { return ub_ - lb_; }
  ptrdiff_t true_lb() const { return true_lb_; }
  ptrdiff_t true_extent() const { return true_ub_ - true_lb_; }
  // `count` elements occupy exactly size()*count bytes at buf + true_lb(), in
  // packed order: pack/unpack are a memcpy and reductions run in place.
  bool is_contiguous() const { return contiguous_; }
  // A predefined basic type (not derived, not MPI_PACKED excepted: it is basic).
  bool is_basic() const { return predefined_; }
  Basic basic() const { return basic_; }  // meaningful when is_basic()

  // The one basic type every element of the signature has, or false when the
  // signature mixes types (or is empty). Predefined reductions need it.
  bool homogeneous(Basic* type, size_t* per_element) const;
  const std::vector<Block>& blocks() const { return blocks_; }
  const std::vector<Run>& signature() const { return signature_; }

  // "MPI_INT", or a short description of a derived type ("derived datatype
  // (MPI_Type_vector) of MPI_DOUBLE"), for error messages.
  std::string name() const;
  // The name set by MPI_Type_set_name; a predefined type's default is its MPI
  // name ("MPI_INT"), a derived type's is empty. Not thread-safe against a
  // concurrent set_label() of the same type (MPI leaves that to the user).
  std::string label() const;
  void set_label(std::string label) { label_ = std::move(label); label_set_ = true; }
  // True when the bounds were set explicitly (MPI_Type_create_resized) by this
  // type or one it was built from: then no alignment padding is added.
  bool explicit_bounds() const { return explicit_bounds_; }

  // ---- data movement
  // Writes the size()*count packed bytes of `count` elements at `src` to `dst`.
  void pack(const void* src, int count, void* dst) const;
  // Reads `bytes` (<= size()*count) packed bytes into `count` elements at
  // `dst`; a trailing partial element (a truncated receive) is filled as far as
  // the bytes go and the rest of `dst` is untouched.
  void unpack(const void* packed, size_t bytes, int count, void* dst) const;
  // The packed bytes [offset, offset+bytes) of `count` elements at `src`;
  // returns the number written (clipped to size()*count). For pipelined sends.
  size_t pack_range(const void* src, int count, size_t offset, size_t bytes, void* dst) const;

  // Basic elements in `bytes` of packed data (MPI_Get_elements); elements of a
  // pair type count twice. kUndefinedElements when `bytes` ends inside a
  // basic element.
  size_t elements_in(size_t bytes) const;
  // The packed bytes of the first `n` basic elements of a sequence of this
  // type (MPI_Status_set_elements): the inverse of elements_in. An element
  // ending after a pair's value (n odd inside a pair) counts the value only.
  size_t bytes_of_elements(size_t n) const;

 private:
  lz_datatype_s();  // derived, filled by the constructors

  // Records the constructor and its arguments (retains the types).
  void record(Combiner combiner, std::vector<int> ints, std::vector<ptrdiff_t> addresses,
              std::vector<const lz_datatype_s*> types);
  // record() of a large-count constructor: its counts go to large_counts.
  void record_c(Combiner combiner, std::vector<int64_t> large_counts, std::vector<const lz_datatype_s*> types) {
    record(combiner, {}, {}, std::move(types));
    contents_.large_counts = std::move(large_counts);
  }
  void finish(ptrdiff_t lb, ptrdiff_t ub, ptrdiff_t true_lb, ptrdiff_t true_ub, bool has_data);
  void append_block(ptrdiff_t offset, size_t length);
  void append_run(Basic type, size_t count);
  void append_copies(const lz_datatype_s& old, ptrdiff_t displacement, size_t n);
  static lz::StatusOr<lz_datatype_s*> build_hindexed(Combiner combiner, int count, const int* blocklengths,
                                                         const ptrdiff_t* displacements,
                                                         const lz_datatype_s* const* types);
  // build_hindexed over functions of the block index (block length,
  // displacement in bytes, type): 64-bit, and no arrays for the regular
  // constructors.
  template <class BlockLength, class Displacement, class TypeAt>
  static lz::StatusOr<lz_datatype_s*> build(Combiner combiner, int64_t count, BlockLength blocklength,
                                            Displacement displacement, TypeAt type);
  static lz::StatusOr<lz_datatype_s*> subarray_impl(int ndims, const int64_t* sizes, const int64_t* subsizes,
                                                    const int64_t* starts, bool c_order, const lz_datatype_s& old);

  // The one place that walks blocks for a packed-byte window.
  template <bool kPack>
  size_t walk_range(char* user, int count, size_t offset, size_t bytes, char* packed) const;

  Basic basic_ = Basic::kByte;
  Combiner combiner_ = Combiner::kNamed;
  bool predefined_ = false;
  bool committed_ = false;
  bool contiguous_ = false;
  bool explicit_bounds_ = false;
  bool label_set_ = false;
  std::atomic<int> refs_{1};
  std::string label_;
  Contents contents_;

  size_t size_ = 0;
  ptrdiff_t lb_ = 0, ub_ = 0, true_lb_ = 0, true_ub_ = 0;
  uint32_t align_ = 1;  // largest alignment of its basic types (struct epsilon)

  std::vector<Block> blocks_;           // one element, type-map order, merged
  std::vector<size_t> block_packed_;    // packed offset of each block (binary search)
  std::vector<Run> signature_;          // one element, merged
  size_t signature_elements_ = 0;       // basic elements (pairs count 2) in one element
  // Fast path for a vector of equal, equally spaced blocks (vector/hvector of
  // a contiguous type): vec_count_ blocks of vec_block_ bytes, vec_stride_ apart.
  size_t vec_count_ = 0, vec_block_ = 0;
  ptrdiff_t vec_stride_ = 0, vec_first_ = 0;
  Basic name_basic_ = Basic::kByte;  // the basic type derived types are named after
};

namespace lz::dt {
using Datatype = ::lz_datatype_s;

// The engine's own basic types, for transfers that have no user datatype
// (collectives send packed temporaries as bytes). Distinct objects from mpi.h's
// MPI_INT ..., equal in every property; compare types by basic(), not by address.
const Datatype& internal_type(Basic b) noexcept;
inline const Datatype& byte_type() noexcept { return internal_type(Basic::kByte); }

}  // namespace lz::dt
