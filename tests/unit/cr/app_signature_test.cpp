// cr/app's portable signature of a datatype (components/cr/app/app_signature.h):
// one scalar per basic element, two per pair or complex element, runs merged;
// a basic type with no portable form refused, naming the variable.
#include "app_signature.h"

#include <gtest/gtest.h>

#include "lazarus/appfmt/variable.h"
#include "lazarus/datatype/datatype.h"

namespace lz::cr::app {
namespace {

using dt::Basic;
using dt::internal_type;

std::string text_of(Basic b) {
  auto sig = signature_of(internal_type(b), "v");
  return sig.ok() ? appfmt::signature_text(*sig) : "error: " + sig.status().message();
}

TEST(AppSignature, ScalarsPairsAndComplexNumbers) {
  EXPECT_EQ(text_of(Basic::kInt), "int32");
  EXPECT_EQ(text_of(Basic::kDouble), "float64");
  EXPECT_EQ(text_of(Basic::kCxxBool), "bool");
  EXPECT_EQ(text_of(Basic::kDoubleInt), "float64,int32");
  EXPECT_EQ(text_of(Basic::k2Int), "int32[2]");
  EXPECT_EQ(text_of(Basic::kLongDoubleInt), "float80,int32");
  EXPECT_EQ(text_of(Basic::kComplex), "float32[2]");
  EXPECT_EQ(text_of(Basic::kCDoubleComplex), "float64[2]");
  EXPECT_EQ(text_of(Basic::kComplex16), "float64[2]");
  EXPECT_EQ(text_of(Basic::kCxxLongDoubleComplex), "float80[2]");
}

TEST(AppSignature, RunsOfPairsKeepTheirOrder) {
  auto three = dt::Datatype::contiguous(3, internal_type(Basic::kFloatInt));
  ASSERT_TRUE(three.ok());
  auto sig = signature_of(**three, "v");
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  EXPECT_EQ(appfmt::signature_text(*sig), "float32,int32,float32,int32,float32,int32");
  auto four = dt::Datatype::contiguous(4, internal_type(Basic::kInt));
  ASSERT_TRUE(four.ok());
  sig = signature_of(**four, "v");
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(appfmt::signature_text(*sig), "int32[4]");
  dt::Datatype::release(*three);
  dt::Datatype::release(*four);
}

TEST(AppSignature, NoPortableFormIsRefusedByName) {
  for (Basic b : {Basic::kReal16, Basic::kComplex32, Basic::kInteger16}) {
    auto sig = signature_of(internal_type(b), "quad");
    ASSERT_FALSE(sig.ok()) << dt::basic_info(b).mpi_name;
    EXPECT_NE(sig.status().message().find("variable 'quad'"), std::string::npos) << sig.status().message();
    EXPECT_NE(sig.status().message().find("no portable form"), std::string::npos) << sig.status().message();
  }
}

}  // namespace
}  // namespace lz::cr::app
