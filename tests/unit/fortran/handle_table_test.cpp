// Fortran handles: the predefined ones have the values the generated mpif.h
// gives them, null handles are 0 both ways, the program's handles get fresh
// indices that are given back and reused, and statuses convert losslessly.
#include "mpi/fortran/handle_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/fortran/fortran_args.h"

namespace {

using lz::fortran::HandleTable;
using lz::fortran::Kind;

// NAME -> value of every `parameter (NAME=value)` of mpif.h.
std::map<std::string, long> mpif_parameters() {
  std::ifstream in(LZ_TEST_MPIF_H);
  std::map<std::string, long> out;
  std::regex re(R"(^\s+parameter \((\w+)=(-?\d+)\))");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) out[m[1]] = std::stol(m[2]);
  return out;
}

TEST(FortranHandles, PredefinedHandlesHaveTheValuesOfMpifH) {
  auto p = mpif_parameters();
  ASSERT_FALSE(p.empty()) << "no parameters in " << LZ_TEST_MPIF_H;
  struct Named {
    const char* name;
    MPI_Fint value;
  };
#define LZ_H(conv, name) \
  Named { #name, conv(name) }
  const Named handles[] = {
      LZ_H(MPI_Comm_c2f, MPI_COMM_WORLD),
      LZ_H(MPI_Comm_c2f, MPI_COMM_SELF),
      LZ_H(MPI_Comm_c2f, MPI_COMM_NULL),
      LZ_H(MPI_Group_c2f, MPI_GROUP_EMPTY),
      LZ_H(MPI_Group_c2f, MPI_GROUP_NULL),
      LZ_H(MPI_Errhandler_c2f, MPI_ERRORS_ARE_FATAL),
      LZ_H(MPI_Errhandler_c2f, MPI_ERRORS_RETURN),
      LZ_H(MPI_Info_c2f, MPI_INFO_ENV),
      LZ_H(MPI_Info_c2f, MPI_INFO_NULL),
      LZ_H(MPI_Message_c2f, MPI_MESSAGE_NO_PROC),
      LZ_H(MPI_Request_c2f, MPI_REQUEST_NULL),
      LZ_H(MPI_Op_c2f, MPI_SUM),
      LZ_H(MPI_Op_c2f, MPI_MAXLOC),
      LZ_H(MPI_Op_c2f, MPI_LXOR),
      LZ_H(MPI_Op_c2f, MPI_OP_NULL),
      LZ_H(MPI_Type_c2f, MPI_INTEGER),
      LZ_H(MPI_Type_c2f, MPI_REAL),
      LZ_H(MPI_Type_c2f, MPI_DOUBLE_PRECISION),
      LZ_H(MPI_Type_c2f, MPI_COMPLEX),
      LZ_H(MPI_Type_c2f, MPI_DOUBLE_COMPLEX),
      LZ_H(MPI_Type_c2f, MPI_LOGICAL),
      LZ_H(MPI_Type_c2f, MPI_CHARACTER),
      LZ_H(MPI_Type_c2f, MPI_INTEGER8),
      LZ_H(MPI_Type_c2f, MPI_REAL8),
      LZ_H(MPI_Type_c2f, MPI_2INTEGER),
      LZ_H(MPI_Type_c2f, MPI_2DOUBLE_PRECISION),
      LZ_H(MPI_Type_c2f, MPI_BYTE),
      LZ_H(MPI_Type_c2f, MPI_INT),
      LZ_H(MPI_Type_c2f, MPI_DOUBLE),
      LZ_H(MPI_Type_c2f, MPI_LONG_LONG),
      LZ_H(MPI_Type_c2f, MPI_LONG_LONG_INT),
      LZ_H(MPI_Type_c2f, MPI_LONG_DOUBLE_INT),
      LZ_H(MPI_Type_c2f, MPI_DATATYPE_NULL),
  };
#undef LZ_H
  for (const Named& h : handles) {
    ASSERT_TRUE(p.count(h.name)) << h.name << " is not in mpif.h";
    EXPECT_EQ(p[h.name], h.value) << h.name;
  }
  // And back.
  EXPECT_EQ(MPI_Comm_f2c(static_cast<MPI_Fint>(p["MPI_COMM_WORLD"])), MPI_COMM_WORLD);
  EXPECT_EQ(MPI_Type_f2c(static_cast<MPI_Fint>(p["MPI_2REAL"])), MPI_2REAL);
  EXPECT_EQ(MPI_Op_f2c(static_cast<MPI_Fint>(p["MPI_MINLOC"])), MPI_MINLOC);
  // mpi.h's integer constants are mpif.h's.
  EXPECT_EQ(p["MPI_ERR_RANK"], MPI_ERR_RANK);
  EXPECT_EQ(p["MPI_ANY_SOURCE"], MPI_ANY_SOURCE);
  EXPECT_EQ(p["MPI_UNDEFINED"], MPI_UNDEFINED);
  EXPECT_EQ(p["MPI_TAG_UB_VALUE"], MPI_TAG_UB_VALUE);
  EXPECT_EQ(p["MPI_STATUS_SIZE"] * static_cast<long>(sizeof(MPI_Fint)), static_cast<long>(sizeof(MPI_Status)));
}

TEST(FortranHandles, NullAndUnknownIndicesConvertToNull) {
  EXPECT_EQ(MPI_Comm_f2c(0), MPI_COMM_NULL);
  EXPECT_EQ(MPI_Comm_f2c(-3), MPI_COMM_NULL);
  EXPECT_EQ(MPI_Comm_f2c(1 << 30), MPI_COMM_NULL);
  EXPECT_EQ(MPI_Request_c2f(MPI_REQUEST_NULL), 0);
}

TEST(FortranHandles, TableGivesIndicesBackAndReusesThem) {
  int a, b, c, d;
  HandleTable t({&a, &b});
  EXPECT_EQ(t.c2f(&a), 1);
  EXPECT_EQ(t.c2f(&b), 2);
  const int ic = t.c2f(&c);
  EXPECT_EQ(ic, 3);
  EXPECT_EQ(t.c2f(&c), ic) << "an object keeps its index";
  EXPECT_EQ(t.f2c(ic), &c);
  t.release(ic);
  EXPECT_EQ(t.f2c(ic), nullptr) << "a released index names nothing";
  EXPECT_EQ(t.c2f(&d), ic) << "and is reused";
  EXPECT_EQ(t.f2c(ic), &d);
  EXPECT_EQ(t.c2f(&c), 4) << "the released object, seen again, gets a new index";
  t.release(1);
  EXPECT_EQ(t.f2c(1), &a) << "predefined indices are never released";
  t.release(99);  // unknown: ignored
  t.release(0);
  EXPECT_EQ(t.f2c(0), nullptr);
}

TEST(FortranHandles, ForgetReleasesAnObjectsIndex) {
  int a, c;
  HandleTable t({&a});
  const int ic = t.c2f(&c);
  t.forget(&c);
  EXPECT_EQ(t.f2c(ic), nullptr) << "a forgotten object's index names nothing";
  t.forget(&c);  // no index any more: ignored
  t.forget(&a);  // predefined: kept
  EXPECT_EQ(t.f2c(1), &a);
}

// A derived datatype with two references (MPI_Type_get_contents of a dup
// hands the inner type out again) keeps its Fortran value when one is freed
// through the binding (lz_f_update of MPI_TYPE_FREE), and gives it back when
// the type itself is deleted (the destroy hook).
TEST(FortranHandles, DatatypeValueLivesAsLongAsTheType) {
  auto made = lz::dt::Datatype::contiguous(2, *MPI_INT);
  ASSERT_TRUE(made.ok());
  lz_datatype_s* type = *made;
  const MPI_Fint f = MPI_Type_c2f(type);
  ASSERT_GT(f, 0);
  type->retain();  // the second reference
  lz_datatype_s::release(type);
  EXPECT_EQ(lz::fortran::lz_f_update(Kind::kDatatype, f, nullptr), 0) << "the freed variable reads null";
  EXPECT_EQ(MPI_Type_f2c(f), type) << "the other reference's value still names the type";
  lz_datatype_s::release(type);  // the last reference: the type is deleted
  EXPECT_EQ(MPI_Type_f2c(f), MPI_DATATYPE_NULL) << "the deleted type's value names nothing";
}

// Threads converting their own objects while others read a predefined one
// (f2c takes no lock): every index names its object until released.
TEST(FortranHandles, ConcurrentConversionsKeepIndicesConsistent) {
  int world;
  HandleTable t({&world});
  constexpr int kThreads = 4, kObjects = 3000;
  std::vector<std::vector<int>> objects(kThreads, std::vector<int>(kObjects));
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      std::vector<int> idx(kObjects);
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < kObjects; ++i) idx[i] = t.c2f(&objects[k][i]);
        for (int i = 0; i < kObjects; ++i) {
          if (t.f2c(idx[i]) != &objects[k][i]) ++bad[k];
          if (t.f2c(1) != &world) ++bad[k];
        }
        for (int i = 0; i < kObjects; ++i) t.release(idx[i]);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < kThreads; ++k) EXPECT_EQ(bad[k], 0) << "thread " << k;
}

TEST(FortranHandles, StatusRoundTrip) {
  MPI_Status s{};
  s.MPI_SOURCE = 3;
  s.MPI_TAG = 77;
  s.MPI_ERROR = MPI_ERR_TRUNCATE;
  s.lz_bytes = (1LL << 40) + 5;
  MPI_Fint f[6] = {};
  ASSERT_EQ(MPI_Status_c2f(&s, f), MPI_SUCCESS);
  EXPECT_EQ(f[0], 3);  // MPI_SOURCE = 1 in Fortran
  EXPECT_EQ(f[1], 77);
  EXPECT_EQ(f[2], MPI_ERR_TRUNCATE);
  MPI_Status back{};
  ASSERT_EQ(MPI_Status_f2c(f, &back), MPI_SUCCESS);
  EXPECT_EQ(back.MPI_SOURCE, 3);
  EXPECT_EQ(back.lz_bytes, s.lz_bytes);
  EXPECT_NE(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_SUCCESS);
}

}  // namespace
