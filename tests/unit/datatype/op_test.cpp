// Reduction operations: every (op, basic type) pair MPI allows applies
// element-wise; every other pair is rejected with a message naming both;
// MAXLOC/MINLOC ties keep the lowest index; user ops see MPI's argument order.
#include <gtest/gtest.h>

#include <cstring>
#include <complex>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::dt {
namespace {

using Kind = Op::Kind;

template <typename T>
std::vector<T> run(Kind k, Basic b, std::vector<T> in, std::vector<T> io) {
  Op op(k);
  EXPECT_TRUE(op.check(internal_type(b)).ok()) << op.name() << " " << basic_info(b).mpi_name;
  op.apply(in.data(), io.data(), static_cast<int>(in.size()), internal_type(b));
  return io;
}

TEST(Op, ArithmeticOnIntegersAndFloats) {
  EXPECT_EQ(run<int>(Kind::kSum, Basic::kInt, {1, -2, 3}, {10, 20, 30}), (std::vector<int>{11, 18, 33}));
  EXPECT_EQ(run<int>(Kind::kProd, Basic::kInt, {2, 3, -1}, {5, 7, 9}), (std::vector<int>{10, 21, -9}));
  EXPECT_EQ(run<int>(Kind::kMax, Basic::kInt, {2, 30, -1}, {5, 7, -9}), (std::vector<int>{5, 30, -1}));
  EXPECT_EQ(run<int>(Kind::kMin, Basic::kInt, {2, 30, -1}, {5, 7, -9}), (std::vector<int>{2, 7, -9}));
  EXPECT_EQ(run<unsigned short>(Kind::kProd, Basic::kUnsignedShort, {65535}, {65535}),
            (std::vector<unsigned short>{1}));  // wraps, no UB
  EXPECT_EQ(run<int8_t>(Kind::kSum, Basic::kInt8, {127}, {1}), (std::vector<int8_t>{-128}));
  EXPECT_EQ(run<double>(Kind::kSum, Basic::kDouble, {0.5, 1}, {0.25, 2}), (std::vector<double>{0.75, 3}));
  EXPECT_EQ(run<float>(Kind::kMax, Basic::kFloat, {0.5f, -1}, {0.25f, 2}), (std::vector<float>{0.5f, 2}));
  EXPECT_EQ(run<long double>(Kind::kProd, Basic::kLongDouble, {3}, {4}), (std::vector<long double>{12}));
  using cld = std::complex<long double>;
  EXPECT_EQ(run<cld>(Kind::kProd, Basic::kCLongDoubleComplex, {cld(1, 2)}, {cld(3, -1)}),
            (std::vector<cld>{cld(5, 5)}));
  EXPECT_EQ(run<std::complex<float>>(Kind::kSum, Basic::kCxxFloatComplex, {{1, 2}}, {{0.5f, -1}}),
            (std::vector<std::complex<float>>{{1.5f, 1}}));
  EXPECT_EQ(run<long long>(Kind::kSum, Basic::kCount, {1LL << 40}, {1}), (std::vector<long long>{(1LL << 40) + 1}));
}

TEST(Op, LogicalAndBitwise) {
  EXPECT_EQ(run<int>(Kind::kLand, Basic::kInt, {0, 2, 3, 0}, {0, 0, 5, 7}), (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(run<int>(Kind::kLor, Basic::kInt, {0, 2, 0}, {0, 0, 5}), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(run<int>(Kind::kLxor, Basic::kInt, {0, 2, 3, 0}, {0, 0, 5, 7}), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(run<unsigned>(Kind::kBand, Basic::kUnsigned, {0xf0f0}, {0xff00}), (std::vector<unsigned>{0xf000}));
  EXPECT_EQ(run<unsigned>(Kind::kBor, Basic::kUnsigned, {0xf0f0}, {0xff00}), (std::vector<unsigned>{0xfff0}));
  EXPECT_EQ(run<unsigned>(Kind::kBxor, Basic::kUnsigned, {0xf0f0}, {0xff00}), (std::vector<unsigned>{0x0ff0}));
  EXPECT_EQ(run<unsigned char>(Kind::kBxor, Basic::kByte, {0x0f}, {0xff}), (std::vector<unsigned char>{0xf0}));
  std::vector<bool> dummy;
  bool in[3] = {true, false, true}, io[3] = {true, true, false};
  Op lxor(Kind::kLxor);
  ASSERT_TRUE(lxor.check(internal_type(Basic::kCBool)).ok());
  lxor.apply(in, io, 3, internal_type(Basic::kCBool));
  EXPECT_FALSE(io[0]);
  EXPECT_TRUE(io[1]);
  EXPECT_TRUE(io[2]);
}

TEST(Op, MaxlocMinlocTiesKeepLowestIndex) {
  struct DI { double v; int i; };
  DI in[3] = {{5, 7}, {2, 1}, {3, 0}};
  DI io[3] = {{5, 3}, {9, 4}, {3, 2}};
  Op maxloc(Kind::kMaxloc);
  maxloc.apply(in, io, 3, internal_type(Basic::kDoubleInt));
  EXPECT_EQ(io[0].v, 5); EXPECT_EQ(io[0].i, 3);  // tie: lowest index
  EXPECT_EQ(io[1].v, 9); EXPECT_EQ(io[1].i, 4);
  EXPECT_EQ(io[2].v, 3); EXPECT_EQ(io[2].i, 0);  // tie
  struct SI { short v; int i; };
  SI a[2] = {{1, 9}, {4, 2}}, b[2] = {{1, 5}, {3, 8}};
  Op minloc(Kind::kMinloc);
  minloc.apply(a, b, 2, internal_type(Basic::kShortInt));
  EXPECT_EQ(b[0].v, 1); EXPECT_EQ(b[0].i, 5);
  EXPECT_EQ(b[1].v, 3); EXPECT_EQ(b[1].i, 8);
  // On a strided derived type of pairs (packed layout differs from memory).
  auto v = Datatype::vector(2, 1, 2, internal_type(Basic::kShortInt));
  ASSERT_TRUE(v.ok());
  (*v)->commit();
  ASSERT_TRUE(maxloc.check(**v).ok());
  SI x[4] = {{7, 1}, {0, 0}, {1, 1}, {0, 0}}, y[4] = {{7, 0}, {9, 9}, {2, 5}, {9, 9}};
  maxloc.apply(x, y, 1, **v);
  EXPECT_EQ(y[0].v, 7); EXPECT_EQ(y[0].i, 0);
  EXPECT_EQ(y[1].v, 9);  // gap untouched
  EXPECT_EQ(y[2].v, 2); EXPECT_EQ(y[2].i, 5);
  Datatype::release(*v);
}

TEST(Op, EveryPairIsValidOrRejectedByName) {
  int valid = 0;
  for (int k = 0; k < static_cast<int>(Kind::kUser); ++k) {
    Op op(static_cast<Kind>(k));
    for (int b = 0; b < static_cast<int>(Basic::kNumBasic); ++b) {
      const Datatype& dt = internal_type(static_cast<Basic>(b));
      Status s = op.check(dt);
      if (op_defined_on(static_cast<Kind>(k), static_cast<Basic>(b))) {
        EXPECT_TRUE(s.ok()) << s.message();
        ++valid;
        // Applies to zeros without crashing (sanitizers watch).
        std::vector<char> a(dt.extent() * 4, 0), c(dt.extent() * 4, 0);
        op.apply(a.data(), c.data(), 4, dt);
      } else {
        ASSERT_FALSE(s.ok()) << op.name() << " " << dt.name();
        EXPECT_NE(s.message().find(op.name()), std::string::npos) << s.message();
        EXPECT_NE(s.message().find(dt.name()), std::string::npos) << s.message();
      }
    }
  }
  // 18 C integers x 10 + 3 floats x 4 + bool x 3 + byte x 3 + 3 multi-language x 10 + 6 pairs x 2,
  // and Fortran's: 5 integers x 7 (no logical ops) + 4 reals x 4 + 2 complex x 2 (sum, prod)
  // + LOGICAL x 3 + 3 pairs x 2, C's and C++'s 6 complex x 2 + C++'s bool x 3,
  // and Fortran's REAL16 x 4 + COMPLEX8/16/32 x 2 + INTEGER16 x 7
  EXPECT_EQ(valid,
            18 * 10 + 3 * 4 + 3 + 3 + 3 * 10 + 6 * 2 + 5 * 7 + 4 * 4 + 2 * 2 + 3 + 3 * 2 + 6 * 2 + 3 + 4 + 3 * 2 + 7);
  Op sum(Kind::kSum), band(Kind::kBand);
  EXPECT_EQ(band.check(internal_type(Basic::kFloat)).message(), "MPI_BAND is not defined for MPI_FLOAT");
  EXPECT_FALSE(sum.check(internal_type(Basic::kChar)).ok());
  EXPECT_FALSE(sum.check(internal_type(Basic::k2Int)).ok());
  EXPECT_FALSE(Op(Kind::kMaxloc).check(internal_type(Basic::kInt)).ok());
  // A derived type mixing basic types has no predefined reduction.
  int bl[] = {1, 1};
  ptrdiff_t disp[] = {0, 8};
  const Datatype* types[] = {&internal_type(Basic::kInt), &internal_type(Basic::kDouble)};
  auto mixed = Datatype::create_struct(2, bl, disp, types);
  ASSERT_TRUE(mixed.ok());
  EXPECT_FALSE(sum.check(**mixed).ok());
  Datatype::release(*mixed);
}

TEST(Op, PredefinedOnHomogeneousDerivedTypes) {
  auto v = Datatype::vector(3, 1, 2, internal_type(Basic::kInt));
  ASSERT_TRUE(v.ok());
  (*v)->commit();
  Op sum(Kind::kSum);
  ASSERT_TRUE(sum.check(**v).ok());
  int in[5] = {1, 100, 2, 100, 3}, io[5] = {10, -1, 20, -1, 30};
  sum.apply(in, io, 1, **v);
  int expect[5] = {11, -1, 22, -1, 33};
  EXPECT_EQ(0, std::memcmp(io, expect, sizeof io));
  Datatype::release(*v);
}

void concat_digits(void* in, void* inout, int* len, lz_datatype_s**) {
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] * 10 + b[i];  // "a then b"
}

TEST(Op, UserOpGetsInThenInout) {
  Op* op = Op::create_user(&concat_digits, false);
  EXPECT_FALSE(op->commutative());
  EXPECT_TRUE(op->check(internal_type(Basic::kChar)).ok());  // user ops accept any type
  int in[2] = {1, 4}, io[2] = {2, 5};
  op->apply(in, io, 2, internal_type(Basic::kInt));
  EXPECT_EQ(io[0], 12);
  EXPECT_EQ(io[1], 45);
  op->retain();
  Op::release(op);
  EXPECT_FALSE(op->commutative());  // still alive
  Op::release(op);
}

}  // namespace
}  // namespace lz::dt
