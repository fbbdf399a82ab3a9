#include "type_bridge.h"

#include <memory>
#include <string>
#include <vector>

namespace lz::ft {
namespace {

using lz::dt::Basic;

struct Named {
  MPI_Datatype type;
  Basic basic;
};

// Looked up by handle: MPI_INT is a pointer in Open MPI, an int in MPICH;
// either compares with ==.
const std::vector<Named>& named_types() {
  static const std::vector<Named> kNamed = {
      {MPI_CHAR, Basic::kChar}, {MPI_SIGNED_CHAR, Basic::kSignedChar}, {MPI_UNSIGNED_CHAR, Basic::kUnsignedChar},
      {MPI_BYTE, Basic::kByte}, {MPI_WCHAR, Basic::kWchar}, {MPI_SHORT, Basic::kShort},
      {MPI_UNSIGNED_SHORT, Basic::kUnsignedShort}, {MPI_INT, Basic::kInt}, {MPI_UNSIGNED, Basic::kUnsigned},
      {MPI_LONG, Basic::kLong}, {MPI_UNSIGNED_LONG, Basic::kUnsignedLong}, {MPI_LONG_LONG, Basic::kLongLong},
      {MPI_LONG_LONG_INT, Basic::kLongLong}, {MPI_UNSIGNED_LONG_LONG, Basic::kUnsignedLongLong},
      {MPI_FLOAT, Basic::kFloat}, {MPI_DOUBLE, Basic::kDouble}, {MPI_LONG_DOUBLE, Basic::kLongDouble},
      {MPI_PACKED, Basic::kPacked}, {MPI_INT8_T, Basic::kInt8}, {MPI_INT16_T, Basic::kInt16},
      {MPI_INT32_T, Basic::kInt32}, {MPI_INT64_T, Basic::kInt64}, {MPI_UINT8_T, Basic::kUint8},
      {MPI_UINT16_T, Basic::kUint16}, {MPI_UINT32_T, Basic::kUint32}, {MPI_UINT64_T, Basic::kUint64},
      {MPI_C_BOOL, Basic::kCBool}, {MPI_AINT, Basic::kAint}, {MPI_OFFSET, Basic::kOffset},
      {MPI_COUNT, Basic::kCount}, {MPI_FLOAT_INT, Basic::kFloatInt}, {MPI_DOUBLE_INT, Basic::kDoubleInt},
      {MPI_LONG_INT, Basic::kLongInt}, {MPI_2INT, Basic::k2Int}, {MPI_SHORT_INT, Basic::kShortInt},
      {MPI_LONG_DOUBLE_INT, Basic::kLongDoubleInt}, {MPI_INTEGER, Basic::kInteger}, {MPI_REAL, Basic::kReal},
      {MPI_DOUBLE_PRECISION, Basic::kDoublePrecision}, {MPI_COMPLEX, Basic::kComplex},
      {MPI_DOUBLE_COMPLEX, Basic::kDoubleComplex}, {MPI_LOGICAL, Basic::kLogical},
      {MPI_CHARACTER, Basic::kCharacter}, {MPI_C_FLOAT_COMPLEX, Basic::kCFloatComplex},
      {MPI_C_DOUBLE_COMPLEX, Basic::kCDoubleComplex}, {MPI_C_LONG_DOUBLE_COMPLEX, Basic::kCLongDoubleComplex},
  };
  return kNamed;
}

// The engine's predefined objects, one per basic type, for the process's life.
const lz_datatype_s& basic_type(Basic b) {
  static std::vector<std::unique_ptr<lz_datatype_s>> all = [] {
    std::vector<std::unique_ptr<lz_datatype_s>> v;
    for (int i = 0; i < static_cast<int>(Basic::kNumBasic); ++i)
      v.push_back(std::make_unique<lz_datatype_s>(static_cast<Basic>(i)));
    return v;
  }();
  return *all[static_cast<size_t>(b)];
}

std::string type_name(MPI_Datatype t) {
  char name[MPI_MAX_OBJECT_NAME] = "";
  int len = 0;
  if (PMPI_Type_get_name(t, name, &len) != MPI_SUCCESS || len == 0) return "a derived datatype";
  return std::string(name, static_cast<size_t>(len));
}

bool is_named(MPI_Datatype t) {
  int ni, na, nd, combiner;
  return PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

// The engine types of get_contents' datatypes, released with this object.
class Olds {
 public:
  ~Olds() {
    for (auto* t : engine_) lz_datatype_s::release(t);
  }
  Status add(MPI_Datatype t) {
    auto e = engine_type(t);
    if (!is_named(t)) PMPI_Type_free(&t);  // get_contents handed out a new reference
    if (!e.ok()) return e.status();
    engine_.push_back(*e);
    return Status::Ok();
  }
  const lz_datatype_s& operator[](size_t i) const { return *engine_[i]; }
  const lz_datatype_s* const* data() const { return engine_.data(); }

 private:
  std::vector<lz_datatype_s*> engine_;
};

StatusOr<lz_datatype_s*> derived(MPI_Datatype type, int combiner, int ni, int na, int nd) {
  std::vector<int> i(static_cast<size_t>(ni) + 1);
  std::vector<MPI_Aint> a(static_cast<size_t>(na) + 1);
  std::vector<MPI_Datatype> d(static_cast<size_t>(nd) + 1);
  if (PMPI_Type_get_contents(type, ni, na, nd, i.data(), a.data(), d.data()) != MPI_SUCCESS)
    return Internal("MPI_Type_get_contents failed on " + type_name(type));
  Olds old;
  for (int k = 0; k < nd; ++k) LZ_RETURN_IF_ERROR(old.add(d[static_cast<size_t>(k)]));
  std::vector<ptrdiff_t> bytes(a.begin(), a.end());
  const int n = ni > 0 ? i[0] : 0;
  if (combiner == MPI_COMBINER_DUP) return lz_datatype_s::dup(old[0]);
  if (combiner == MPI_COMBINER_CONTIGUOUS) return lz_datatype_s::contiguous(n, old[0]);
  if (combiner == MPI_COMBINER_VECTOR) return lz_datatype_s::vector(n, i[1], i[2], old[0]);
  if (combiner == MPI_COMBINER_HVECTOR) return lz_datatype_s::hvector(n, i[1], bytes[0], old[0]);
  if (combiner == MPI_COMBINER_INDEXED) return lz_datatype_s::indexed(n, &i[1], &i[1 + n], old[0]);
  if (combiner == MPI_COMBINER_HINDEXED) return lz_datatype_s::hindexed(n, &i[1], bytes.data(), old[0]);
  if (combiner == MPI_COMBINER_INDEXED_BLOCK) return lz_datatype_s::indexed_block(n, i[1], &i[2], old[0]);
  if (combiner == MPI_COMBINER_HINDEXED_BLOCK) return lz_datatype_s::hindexed_block(n, i[1], bytes.data(), old[0]);
  if (combiner == MPI_COMBINER_STRUCT) return lz_datatype_s::create_struct(n, &i[1], bytes.data(), old.data());
  if (combiner == MPI_COMBINER_RESIZED) return lz_datatype_s::resized(old[0], bytes[0], bytes[1]);
  if (combiner == MPI_COMBINER_SUBARRAY)
    return lz_datatype_s::subarray(n, &i[1], &i[1 + n], &i[1 + 2 * n], i[1 + 3 * n] == MPI_ORDER_C, old[0]);
  return Unimplemented(type_name(type) + " is built by a constructor liblazarus-ft does not rebuild (combiner " +
                       std::to_string(combiner) + "); register its bytes as MPI_BYTE instead");
}

}  // namespace

StatusOr<lz_datatype_s*> engine_type(MPI_Datatype type) {
  int ni = 0, na = 0, nd = 0, combiner = 0;
  if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
    return InvalidArgument("invalid datatype");
  if (combiner == MPI_COMBINER_NAMED) {
    for (const Named& n : named_types())
      if (n.type != MPI_DATATYPE_NULL && n.type == type) return const_cast<lz_datatype_s*>(&basic_type(n.basic));
    return InvalidArgument("datatype " + type_name(type) + " has no portable form in application-level snapshots");
  }
  LZ_ASSIGN_OR_RETURN(lz_datatype_s * t, derived(type, combiner, ni, na, nd));
  t->commit();
  return t;
}

}  // namespace lz::ft
