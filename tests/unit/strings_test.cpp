// lz::str: trimming, splitting and the "did you mean" machinery every
// unknown-name error relies on.
#include "lazarus/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lz::str {
namespace {

using Names = std::vector<std::string>;

TEST(Strings, TrimRemovesSurroundingWhitespaceOnly) {
  EXPECT_EQ(trim("  a b \t\n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(Strings, SplitTrimsAndDropsEmptyPieces) {
  EXPECT_EQ(split("a, b,,c", ','), (Names{"a", "b", "c"}));
  EXPECT_EQ(split(" , ,", ','), Names{});
  EXPECT_EQ(split("", ','), Names{});
  EXPECT_EQ(split("one", ','), Names{"one"});
  EXPECT_EQ(split("a:b", ':'), (Names{"a", "b"}));
}

TEST(Strings, JoinAndLower) {
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({}, ","), "");
  EXPECT_EQ(join({"x"}, ","), "x");
  EXPECT_EQ(to_lower("MiXeD-1G"), "mixed-1g");
}

TEST(EditDistance, BasicOperations) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("abc", "abd"), 1u);   // substitution
  EXPECT_EQ(edit_distance("abc", "abcd"), 1u);  // insertion
  EXPECT_EQ(edit_distance("abcd", "acd"), 1u);  // deletion
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(EditDistance, AdjacentTranspositionCountsOnce) {
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(edit_distance("cr_criu_priorty", "cr_criu_priority"), 1u);  // missing letter
  EXPECT_EQ(edit_distance("tcp", "tpc"), 1u);
  // Optimal string alignment, not unrestricted Damerau-Levenshtein: a
  // transposed pair is not edited again ("ca" -> "ac" -> "abc" is not allowed).
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(EditDistance, IsSymmetric) {
  const char* const words[] = {"", "a", "self", "shm", "tcp", "transport_tcp_eager_limit", "ucx", "ofi"};
  for (const char* a : words)
    for (const char* b : words) EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " / " << b;
}

TEST(Closest, PicksTheNearestCandidate) {
  EXPECT_EQ(closest("cr_criu_priorty", {"cr_none_priority", "cr_criu_priority", "cr_criu_binary"}),
            "cr_criu_priority");
  EXPECT_EQ(closest("tpc", {"self", "tcp", "shm"}), "tcp");
}

TEST(Closest, ExactMatchIsItsOwnClosest) { EXPECT_EQ(closest("shm", {"tcp", "shm", "self"}), "shm"); }

TEST(Closest, FirstCandidateWinsATie) {
  EXPECT_EQ(closest("ab", {"xb", "ax"}), "xb");
  EXPECT_EQ(closest("ab", {"ax", "xb"}), "ax");
}

TEST(Closest, NothingWhenNoCandidateIsPlausible) {
  EXPECT_EQ(closest("zzzzzz", {"tcp", "self", "shm"}), "");
  EXPECT_EQ(closest("anything", {}), "");
}

TEST(Closest, ThresholdIsMaxOfTwoAndAThirdOfTheLength) {
  // Short names: up to 2 edits.
  EXPECT_EQ(closest("abc", {"xyc"}), "xyc");
  EXPECT_EQ(closest("abc", {"xyz"}), "");
  // A 12-letter name: up to 4 edits, not 5.
  EXPECT_EQ(closest("abcdefghijkl", {"abcdefghWXYZ"}), "abcdefghWXYZ");
  EXPECT_EQ(closest("abcdefghijkl", {"abcdefgVWXYZ"}), "");
}

TEST(DidYouMean, FormatsTheSuggestion) {
  EXPECT_EQ(did_you_mean("crui", {"criu", "none"}), " (did you mean 'criu'?)");
  EXPECT_EQ(did_you_mean("qqqqqqqq", {"criu", "none"}), "");
  EXPECT_EQ(did_you_mean("x", {}), "");
}

TEST(CArray, PointsAtEachStringThenNull) {
  const std::vector<std::string> v{"lazarus", "run", ""};
  const std::vector<char*> a = c_array(v);
  ASSERT_EQ(a.size(), 4u);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(a[i], v[i].c_str());
  EXPECT_EQ(a[3], nullptr);
  EXPECT_EQ(c_array({}), std::vector<char*>{nullptr});
}

}  // namespace
}  // namespace lz::str
