// CPU lists in the kernel's format (lazarus/cpu_list.h).
#include "lazarus/cpu_list.h"

#include <gtest/gtest.h>
#include <sched.h>

namespace lz {
namespace {

TEST(CpuList, FormatsRangesLikeTheKernel) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({5}), "5");
  EXPECT_EQ(format_cpu_list({}), "");
}

TEST(CpuList, ParsesWhatItFormatsAndSortsDuplicates) {
  auto l = parse_cpu_list("8,0-3,10-11,2");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(*l, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  auto again = parse_cpu_list(format_cpu_list(*l));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *l);
}

TEST(CpuList, RefusesBadTextNamingThePart) {
  for (const char* bad : {"", "a", "3-1", "1,,2", "-1", "0-", "99999"}) {
    auto l = parse_cpu_list(bad);
    ASSERT_FALSE(l.ok()) << "'" << bad << "' was accepted";
    EXPECT_EQ(l.status().code(), Code::kInvalidArgument);
    EXPECT_NE(l.status().message().find(std::string("'") + bad + "'"), std::string::npos) << l.status().message();
  }
}

TEST(CpuList, OwnCpusIsThisProcessMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus = own_cpus();
  EXPECT_EQ(static_cast<int>(cpus.size()), CPU_COUNT(&set));
  for (int c : cpus) EXPECT_TRUE(CPU_ISSET(c, &set)) << c;
}

}  // namespace
}  // namespace lz
