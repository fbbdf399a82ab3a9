// lz::CompanionLibrary (lazarus/companion_library.h): the library is looked
// for beside liblazarus; a missing file or symbol is an error that names
// the path and the reason, and leaves the output untouched.
#include "lazarus/companion_library.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace lz {
namespace {

TEST(CompanionLibrary, DirectoryIsLiblazarusOwn) {
  const std::string dir = lazarus_library_dir();
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(::access((dir + "/liblazarus.so").c_str(), F_OK), 0) << dir;
}

TEST(CompanionLibrary, MissingFileIsUnavailableNamingThePath) {
  auto lib = CompanionLibrary::open("demo", "liblazarus_no_such_companion.so");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), Code::kUnavailable);
  const std::string& m = lib.status().message();
  EXPECT_NE(m.find("demo: cannot load " + lazarus_library_dir() + "/liblazarus_no_such_companion.so"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("No such file"), std::string::npos) << m;  // dlerror's reason
}

// A real companion of this build (whichever is built here), its entry point
// found and a missing one named.
TEST(CompanionLibrary, EntryPointsFoundOrNamed) {
  const std::string dir = lazarus_library_dir();
  const char* file = nullptr;
  const char* entry = nullptr;
  if (::access((dir + "/liblazarus_ofi.so").c_str(), F_OK) == 0) {
    file = "liblazarus_ofi.so", entry = "lz_ofi_make_module";
  } else if (::access((dir + "/liblazarus_ucx.so").c_str(), F_OK) == 0) {
    file = "liblazarus_ucx.so", entry = "lz_ucx_make_module";
  } else {
    GTEST_SKIP() << "no companion library is built here (neither libfabric nor UCX found)";
  }
  auto lib = CompanionLibrary::open("demo", file);
  ASSERT_TRUE(lib.ok()) << lib.status().to_string();
  void* p = nullptr;
  EXPECT_TRUE(lib->find(entry, &p).ok());
  EXPECT_NE(p, nullptr);
  void* q = &p;
  Status s = lib->find("lz_no_such_entry_point", &q);
  EXPECT_EQ(s.code(), Code::kInternal);
  EXPECT_NE(s.message().find("lz_no_such_entry_point"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(file), std::string::npos) << s.message();
  EXPECT_EQ(q, static_cast<void*>(&p)) << "the output was changed on failure";
}

}  // namespace
}  // namespace lz
