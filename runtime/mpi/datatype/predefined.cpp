// The predefined datatypes and reduction operations of mpi.h (MPI_INT is
// &lz_mpi_dt_int, MPI_SUM is &lz_mpi_op_sum). Compiled into libmpi, next to the
// binding, so that a program linked with -lmpi alone finds them.
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "mpi.h"

using B = lz::dt::Basic;
using K = lz_op_s::Kind;

#define LZ_DT(var, basic) struct lz_datatype_s var(B::basic)
LZ_DT(lz_mpi_dt_char, kChar);
LZ_DT(lz_mpi_dt_signed_char, kSignedChar);
LZ_DT(lz_mpi_dt_unsigned_char, kUnsignedChar);
LZ_DT(lz_mpi_dt_byte, kByte);
LZ_DT(lz_mpi_dt_wchar, kWchar);
LZ_DT(lz_mpi_dt_short, kShort);
LZ_DT(lz_mpi_dt_unsigned_short, kUnsignedShort);
LZ_DT(lz_mpi_dt_int, kInt);
LZ_DT(lz_mpi_dt_unsigned, kUnsigned);
LZ_DT(lz_mpi_dt_long, kLong);
LZ_DT(lz_mpi_dt_unsigned_long, kUnsignedLong);
LZ_DT(lz_mpi_dt_long_long, kLongLong);
LZ_DT(lz_mpi_dt_unsigned_long_long, kUnsignedLongLong);
LZ_DT(lz_mpi_dt_float, kFloat);
LZ_DT(lz_mpi_dt_double, kDouble);
LZ_DT(lz_mpi_dt_long_double, kLongDouble);
LZ_DT(lz_mpi_dt_packed, kPacked);
LZ_DT(lz_mpi_dt_int8, kInt8);
LZ_DT(lz_mpi_dt_int16, kInt16);
LZ_DT(lz_mpi_dt_int32, kInt32);
LZ_DT(lz_mpi_dt_int64, kInt64);
LZ_DT(lz_mpi_dt_uint8, kUint8);
LZ_DT(lz_mpi_dt_uint16, kUint16);
LZ_DT(lz_mpi_dt_uint32, kUint32);
LZ_DT(lz_mpi_dt_uint64, kUint64);
LZ_DT(lz_mpi_dt_c_bool, kCBool);
LZ_DT(lz_mpi_dt_aint, kAint);
LZ_DT(lz_mpi_dt_offset, kOffset);
LZ_DT(lz_mpi_dt_count, kCount);
LZ_DT(lz_mpi_dt_float_int, kFloatInt);
LZ_DT(lz_mpi_dt_double_int, kDoubleInt);
LZ_DT(lz_mpi_dt_long_int, kLongInt);
LZ_DT(lz_mpi_dt_2int, k2Int);
LZ_DT(lz_mpi_dt_short_int, kShortInt);
LZ_DT(lz_mpi_dt_long_double_int, kLongDoubleInt);
LZ_DT(lz_mpi_dt_integer, kInteger);
LZ_DT(lz_mpi_dt_real, kReal);
LZ_DT(lz_mpi_dt_double_precision, kDoublePrecision);
LZ_DT(lz_mpi_dt_complex, kComplex);
LZ_DT(lz_mpi_dt_double_complex, kDoubleComplex);
LZ_DT(lz_mpi_dt_logical, kLogical);
LZ_DT(lz_mpi_dt_character, kCharacter);
LZ_DT(lz_mpi_dt_integer1, kInteger1);
LZ_DT(lz_mpi_dt_integer2, kInteger2);
LZ_DT(lz_mpi_dt_integer4, kInteger4);
LZ_DT(lz_mpi_dt_integer8, kInteger8);
LZ_DT(lz_mpi_dt_real4, kReal4);
LZ_DT(lz_mpi_dt_real8, kReal8);
LZ_DT(lz_mpi_dt_2integer, k2Integer);
LZ_DT(lz_mpi_dt_2real, k2Real);
LZ_DT(lz_mpi_dt_2double_precision, k2DoublePrecision);
LZ_DT(lz_mpi_dt_c_float_complex, kCFloatComplex);
LZ_DT(lz_mpi_dt_c_double_complex, kCDoubleComplex);
LZ_DT(lz_mpi_dt_c_long_double_complex, kCLongDoubleComplex);
LZ_DT(lz_mpi_dt_cxx_bool, kCxxBool);
LZ_DT(lz_mpi_dt_cxx_float_complex, kCxxFloatComplex);
LZ_DT(lz_mpi_dt_cxx_double_complex, kCxxDoubleComplex);
LZ_DT(lz_mpi_dt_cxx_long_double_complex, kCxxLongDoubleComplex);
LZ_DT(lz_mpi_dt_real16, kReal16);
LZ_DT(lz_mpi_dt_complex8, kComplex8);
LZ_DT(lz_mpi_dt_complex16, kComplex16);
LZ_DT(lz_mpi_dt_complex32, kComplex32);
LZ_DT(lz_mpi_dt_integer16, kInteger16);
#undef LZ_DT

#define LZ_OP(var, kind) struct lz_op_s var(K::kind)
LZ_OP(lz_mpi_op_max, kMax);
LZ_OP(lz_mpi_op_min, kMin);
LZ_OP(lz_mpi_op_sum, kSum);
LZ_OP(lz_mpi_op_replace, kReplace);
LZ_OP(lz_mpi_op_no_op, kNoOp);
LZ_OP(lz_mpi_op_prod, kProd);
LZ_OP(lz_mpi_op_land, kLand);
LZ_OP(lz_mpi_op_band, kBand);
LZ_OP(lz_mpi_op_lor, kLor);
LZ_OP(lz_mpi_op_bor, kBor);
LZ_OP(lz_mpi_op_lxor, kLxor);
LZ_OP(lz_mpi_op_bxor, kBxor);
LZ_OP(lz_mpi_op_maxloc, kMaxloc);
LZ_OP(lz_mpi_op_minloc, kMinloc);
#undef LZ_OP
