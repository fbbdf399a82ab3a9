// Parameter values: parsing of every type from text, and the canonical text
// of a value (format_param_value), which must parse back to the same value.
#include "lazarus/param.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace lz {
namespace {

using ::testing::HasSubstr;
using Names = std::vector<std::string>;

ParamSpec spec_of(ParamType t, const char* choices = nullptr) {
  return ParamSpec{"t", t, "", "test parameter", 1, choices};
}

// Parses `text` as `t`; fails the test (and returns a default) on error.
template <typename T>
T parse_ok(ParamType t, const std::string& text, const char* choices = nullptr) {
  auto v = parse_param_value(spec_of(t, choices), text);
  EXPECT_TRUE(v.ok()) << "'" << text << "': " << v.status().message();
  if (!v.ok()) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*v)) << "'" << text << "' parsed to the wrong alternative";
  return std::holds_alternative<T>(*v) ? std::get<T>(*v) : T{};
}

// The error message of a parse that must fail.
std::string parse_error(ParamType t, const std::string& text, const char* choices = nullptr) {
  auto v = parse_param_value(spec_of(t, choices), text);
  EXPECT_FALSE(v.ok()) << "'" << text << "' parsed but should not have";
  if (v.ok()) return "";
  EXPECT_EQ(v.status().code(), Code::kInvalidArgument);
  return v.status().message();
}

TEST(ParamTypeName, EveryTypeHasItsName) {
  EXPECT_STREQ(param_type_name(ParamType::kBool), "bool");
  EXPECT_STREQ(param_type_name(ParamType::kInt), "int");
  EXPECT_STREQ(param_type_name(ParamType::kSize), "size");
  EXPECT_STREQ(param_type_name(ParamType::kDouble), "double");
  EXPECT_STREQ(param_type_name(ParamType::kString), "string");
  EXPECT_STREQ(param_type_name(ParamType::kEnum), "enum");
  EXPECT_STREQ(param_type_name(ParamType::kList), "list");
}

TEST(ParseBool, TrueSpellings) {
  for (const char* s : {"1", "true", "yes", "on", "enabled", "TRUE", "Yes", "  on  ", "Enabled"})
    EXPECT_TRUE(parse_ok<bool>(ParamType::kBool, s)) << s;
}

TEST(ParseBool, FalseSpellings) {
  for (const char* s : {"0", "false", "no", "off", "disabled", "FALSE", "No", " off\t", "DISABLED"})
    // parse_ok returns false on failure too, so check success separately.
    EXPECT_FALSE(parse_ok<bool>(ParamType::kBool, s)) << s;
  EXPECT_TRUE(parse_param_value(spec_of(ParamType::kBool), "no").ok());
}

TEST(ParseBool, RejectsOtherWordsAndNamesThem) {
  for (const char* s : {"", "2", "y", "truee", "nope", "-1"}) {
    std::string m = parse_error(ParamType::kBool, s);
    EXPECT_THAT(m, HasSubstr("'" + std::string(s) + "'")) << s;
    EXPECT_THAT(m, HasSubstr("boolean"));
  }
}

TEST(ParseInt, DecimalValues) {
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "0"), 0);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "42"), 42);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "-17"), -17);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "  7 "), 7);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "-9223372036854775808"), std::numeric_limits<int64_t>::min());
}

TEST(ParseInt, HexadecimalPrefixIsAccepted) { EXPECT_EQ(parse_ok<int64_t>(ParamType::kInt, "0x10"), 16); }

TEST(ParseInt, RejectsNonNumbersAndNamesThem) {
  for (const char* s : {"abc", "12abc", "1.5", "1e3", "--3", "4k"}) {
    std::string m = parse_error(ParamType::kInt, s);
    EXPECT_THAT(m, HasSubstr("'" + std::string(s) + "'")) << s;
    EXPECT_THAT(m, HasSubstr("not an integer")) << s;
  }
  EXPECT_THAT(parse_error(ParamType::kInt, ""), HasSubstr("empty"));
  EXPECT_THAT(parse_error(ParamType::kInt, "   "), HasSubstr("empty"));
}

TEST(ParseInt, RejectsOverflow) {
  for (const char* s : {"9223372036854775808", "-9223372036854775809", "99999999999999999999999"}) {
    std::string m = parse_error(ParamType::kInt, s);
    EXPECT_THAT(m, HasSubstr(s));
    EXPECT_THAT(m, HasSubstr("out of range"));
  }
}

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "0"), 0);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "4096"), 4096);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "100b"), 100);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, " 12 "), 12);
}

TEST(ParseSize, BinarySuffixes) {
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "64k"), 65536);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "64K"), 65536);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "64kB"), 65536);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "64KiB"), 65536);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "16M"), int64_t{16} << 20);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "16m"), int64_t{16} << 20);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "1G"), int64_t{1} << 30);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "1GiB"), int64_t{1} << 30);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "3T"), int64_t{3} << 40);
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "2 M"), int64_t{2} << 20);
}

TEST(ParseSize, DirectEntryPointAgrees) {
  auto v = parse_size("64k");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 65536);
  EXPECT_FALSE(parse_size("5X").ok());
}

TEST(ParseSize, UnknownSuffixNamesTheText) {
  std::string m = parse_error(ParamType::kSize, "5X");
  EXPECT_THAT(m, HasSubstr("'5X'"));
  EXPECT_THAT(m, HasSubstr("suffix"));
  EXPECT_THAT(parse_error(ParamType::kSize, "1.5G"), HasSubstr("'1.5G'"));
  EXPECT_THAT(parse_error(ParamType::kSize, "10kk"), HasSubstr("'10kk'"));
}

TEST(ParseSize, RejectsNonNumbers) {
  EXPECT_THAT(parse_error(ParamType::kSize, ""), HasSubstr("empty"));
  EXPECT_THAT(parse_error(ParamType::kSize, "k"), HasSubstr("'k'"));
  EXPECT_THAT(parse_error(ParamType::kSize, "-5"), HasSubstr("'-5'"));  // sizes are not negative
  EXPECT_THAT(parse_error(ParamType::kSize, "big"), HasSubstr("'big'"));
}

TEST(ParseSize, RejectsOverflow) {
  EXPECT_EQ(parse_ok<int64_t>(ParamType::kSize, "8388607T"), int64_t{8388607} << 40);  // the largest in T
  EXPECT_THAT(parse_error(ParamType::kSize, "8388608T"), HasSubstr("too large"));
  EXPECT_THAT(parse_error(ParamType::kSize, "9223372036854775808"), HasSubstr("too large"));
  EXPECT_THAT(parse_error(ParamType::kSize, "99999999999999999999999"), HasSubstr("too large"));
}

TEST(ParseDouble, Values) {
  EXPECT_DOUBLE_EQ(parse_ok<double>(ParamType::kDouble, "0.5"), 0.5);
  EXPECT_DOUBLE_EQ(parse_ok<double>(ParamType::kDouble, "-2"), -2.0);
  EXPECT_DOUBLE_EQ(parse_ok<double>(ParamType::kDouble, "1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(parse_ok<double>(ParamType::kDouble, " 3.25 "), 3.25);
}

TEST(ParseDouble, RejectsNonFiniteAndGarbage) {
  for (const char* s : {"", "abc", "1.5x", "inf", "nan", "1e999"}) {
    std::string m = parse_error(ParamType::kDouble, s);
    EXPECT_THAT(m, HasSubstr("finite number")) << s;
  }
  EXPECT_THAT(parse_error(ParamType::kDouble, "1.5x"), HasSubstr("'1.5x'"));
}

TEST(ParseString, KeepsTextTrimmed) {
  EXPECT_EQ(parse_ok<std::string>(ParamType::kString, "  /usr/sbin/criu "), "/usr/sbin/criu");
  EXPECT_EQ(parse_ok<std::string>(ParamType::kString, ""), "");
  EXPECT_EQ(parse_ok<std::string>(ParamType::kString, "a b,c"), "a b,c");
}

TEST(ParseEnum, AcceptsAChoice) {
  EXPECT_EQ(parse_ok<std::string>(ParamType::kEnum, "warn", "error|warn|info"), "warn");
  EXPECT_EQ(parse_ok<std::string>(ParamType::kEnum, " info ", "error|warn|info"), "info");
}

TEST(ParseEnum, RejectsOtherWordsListingChoicesAndSuggesting) {
  std::string m = parse_error(ParamType::kEnum, "wrn", "error|warn|info");
  EXPECT_THAT(m, HasSubstr("'wrn'"));
  EXPECT_THAT(m, HasSubstr("error, warn, info"));
  EXPECT_THAT(m, HasSubstr("did you mean 'warn'"));
  // Case matters: choices are exact words.
  EXPECT_THAT(parse_error(ParamType::kEnum, "WARN", "error|warn|info"), HasSubstr("'WARN'"));
  // Nothing close: no suggestion.
  EXPECT_THAT(parse_error(ParamType::kEnum, "zzzzzzzz", "error|warn|info"),
              ::testing::Not(HasSubstr("did you mean")));
}

TEST(ParseList, SplitsTrimsAndDropsEmpties) {
  EXPECT_EQ(parse_ok<Names>(ParamType::kList, "a, b,,c"), (Names{"a", "b", "c"}));
  EXPECT_EQ(parse_ok<Names>(ParamType::kList, ""), Names{});
  EXPECT_EQ(parse_ok<Names>(ParamType::kList, "^tcp,self"), (Names{"^tcp", "self"}));
}

// format(parse(text)) is the canonical text; parse(format(v)) == v.
void expect_round_trip(ParamType t, const std::string& text, const std::string& canonical,
                       const char* choices = nullptr) {
  auto v = parse_param_value(spec_of(t, choices), text);
  ASSERT_TRUE(v.ok()) << text << ": " << v.status().message();
  std::string f = format_param_value(t, *v);
  EXPECT_EQ(f, canonical) << "from '" << text << "'";
  auto again = parse_param_value(spec_of(t, choices), f);
  ASSERT_TRUE(again.ok()) << f << ": " << again.status().message();
  EXPECT_EQ(*again, *v) << "'" << f << "' does not parse back to the value of '" << text << "'";
}

TEST(FormatParamValue, SizesUseTheLargestExactSuffix) {
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{65536})), "64k");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{0})), "0");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{1000})), "1000");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{1536})), "1536");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{3} << 20)), "3M");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{1} << 30)), "1G");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{5} << 40)), "5T");
  EXPECT_EQ(format_param_value(ParamType::kSize, ParamValue(int64_t{1} << 50)), "1024T");  // T is the largest
}

TEST(FormatParamValue, RoundTripsEveryType) {
  expect_round_trip(ParamType::kBool, "yes", "true");
  expect_round_trip(ParamType::kBool, "OFF", "false");
  expect_round_trip(ParamType::kInt, "-12", "-12");
  expect_round_trip(ParamType::kInt, "0x20", "32");
  expect_round_trip(ParamType::kSize, "65536", "64k");
  expect_round_trip(ParamType::kSize, "64KiB", "64k");
  expect_round_trip(ParamType::kSize, "2048M", "2G");
  expect_round_trip(ParamType::kSize, "1536", "1536");
  expect_round_trip(ParamType::kDouble, "0.5", "0.5");
  expect_round_trip(ParamType::kDouble, "1e3", "1000");
  expect_round_trip(ParamType::kString, " a b ", "a b");
  expect_round_trip(ParamType::kEnum, "info", "info", "error|warn|info");
  expect_round_trip(ParamType::kList, "a, b,,c", "a,b,c");
  expect_round_trip(ParamType::kList, "", "");
}

TEST(FormatParamValue, DoublesKeepFullPrecision) {
  // The canonical text is what `lazarus info` shows and what is handed on to
  // other processes: it must not lose digits.
  for (double d : {0.1, 1.0 / 3.0, 2.718281828459045, 1e-300, 123456789.123456789}) {
    std::string f = format_param_value(ParamType::kDouble, ParamValue(d));
    auto back = parse_param_value(spec_of(ParamType::kDouble), f);
    ASSERT_TRUE(back.ok()) << f;
    EXPECT_EQ(std::get<double>(*back), d) << "formatted as '" << f << "'";
  }
  EXPECT_EQ(format_param_value(ParamType::kDouble, ParamValue(0.1)), "0.1");
}

}  // namespace
}  // namespace lz
