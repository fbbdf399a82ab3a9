// The registered-variable list shared by the runtime's AppService and
// liblazarus-ft's Session (lazarus/datatype/registered_variables.h): unique
// names, removal by name, and each variable loaded once after a restart,
// whenever it was registered.
#include "lazarus/datatype/registered_variables.h"

#include <gtest/gtest.h>

#include "lazarus/datatype/basic.h"
#include "lazarus/datatype/datatype.h"

namespace lz::dt {
namespace {

cr::AppVariable var(const std::string& name, const Datatype* type) {
  cr::AppVariable v;
  v.name = name;
  v.count = 1;
  v.type = type;
  return v;
}

TEST(RegisteredVariables, ANameRegisteredTwiceIsRefusedNamingIt) {
  RegisteredVariables vars;
  const Datatype& i = internal_type(Basic::kInt);
  ASSERT_TRUE(vars.add(var("u", &i)).ok());
  Status s = vars.add(var("u", &i));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("'u' is registered already"), std::string::npos) << s.message();
  EXPECT_EQ(vars.all().size(), 1u);
}

TEST(RegisteredVariables, RemoveTakesTheNamedOneAndRefusesAnUnknownName) {
  RegisteredVariables vars;
  const Datatype& i = internal_type(Basic::kInt);
  ASSERT_TRUE(vars.add(var("a", &i)).ok());
  ASSERT_TRUE(vars.add(var("b", &i)).ok());
  ASSERT_TRUE(vars.remove("a").ok());
  ASSERT_EQ(vars.all().size(), 1u);
  EXPECT_EQ(vars.all()[0].name, "b");
  EXPECT_EQ(vars.remove("a").code(), Code::kNotFound);
}

TEST(RegisteredVariables, EachVariableIsLoadedOnceWheneverItWasRegistered) {
  RegisteredVariables vars;
  const Datatype& i = internal_type(Basic::kInt);
  ASSERT_TRUE(vars.add(var("a", &i)).ok());
  ASSERT_EQ(vars.unloaded().size(), 1u);
  vars.mark_loaded();
  EXPECT_TRUE(vars.unloaded().empty());
  ASSERT_TRUE(vars.add(var("late", &i)).ok());  // registered after the first restore
  auto todo = vars.unloaded();
  ASSERT_EQ(todo.size(), 1u);
  EXPECT_EQ(todo[0].name, "late");
}

TEST(RegisteredVariables, TheListHoldsTheDerivedTypeUntilTheVariableGoes) {
  auto made = Datatype::contiguous(4, internal_type(Basic::kInt));
  ASSERT_TRUE(made.ok()) << made.status().message();
  Datatype* t = *made;
  t->commit();
  {
    RegisteredVariables vars;
    t->retain();  // the list's reference
    ASSERT_TRUE(vars.add(var("v", t)).ok());
    t->retain();  // a second registration's reference, released by the refusal
    EXPECT_FALSE(vars.add(var("v", t)).ok());
    ASSERT_TRUE(vars.remove("v").ok());
  }
  // Ours is the last reference: the type is still usable, then freed. A list
  // that released once too often or too rarely shows as an invalid read or a
  // leak under scripts/sanitizers (ASan) or valgrind.
  EXPECT_EQ(t->size(), 4 * sizeof(int));
  Datatype::release(t);
}

}  // namespace
}  // namespace lz::dt
