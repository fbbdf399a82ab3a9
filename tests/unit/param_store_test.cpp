// ParamStore: registration, the sources (YAML files, environment, command
// line, API) and their precedence, and the errors resolve() reports.
#include "lazarus/param_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace lz {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Names = std::vector<std::string>;

// Test parameters: a framework-less set ("t_*") and one nested name
// ("fw_comp_x") as a component would have.
constexpr ParamSpec kTestParams[] = {
    {"t_a", ParamType::kInt, "1", "an int", 1},
    {"t_b", ParamType::kBool, "false", "a bool", 1},
    {"t_sz", ParamType::kSize, "65536", "a size", 4},
    {"t_d", ParamType::kDouble, "0.25", "a double", 4},
    {"t_s", ParamType::kString, "", "a string", 2},
    {"t_e", ParamType::kEnum, "warn", "an enum", 2, "error|warn|info"},
    {"t_l", ParamType::kList, "x,y", "a list", 3},
    {"fw_comp_x", ParamType::kInt, "0", "a component's parameter", 5},
};

class ParamStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& p : kTestParams) ASSERT_TRUE(ps_.register_param(p.name, p, "test").ok()) << p.name;
  }
  // Resolves and fails the test on error.
  void resolve_ok() {
    Status s = ps_.resolve();
    ASSERT_TRUE(s.ok()) << s.message();
  }
  // Resolves, expects an error and returns its message.
  std::string resolve_error() {
    Status s = ps_.resolve();
    EXPECT_FALSE(s.ok()) << "resolve() succeeded but should have failed";
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    return s.message();
  }
  const Param& param(const std::string& name) {
    const Param* p = ps_.find(name);
    EXPECT_NE(p, nullptr) << name;
    static const Param kNone{};
    return p ? *p : kNone;
  }

  ParamStore ps_;
  test::TempDir dir_;
};

TEST_F(ParamStoreTest, DefaultsAreParsedAndCanonical) {
  EXPECT_EQ(ps_.get_int("t_a"), 1);
  EXPECT_FALSE(ps_.get_bool("t_b"));
  EXPECT_EQ(ps_.get_int("t_sz"), 65536);
  EXPECT_DOUBLE_EQ(ps_.get_double("t_d"), 0.25);
  EXPECT_EQ(ps_.get_string("t_s"), "");
  EXPECT_EQ(ps_.get_string("t_e"), "warn");
  EXPECT_EQ(ps_.get_list("t_l"), (Names{"x", "y"}));
  const Param& sz = param("t_sz");
  EXPECT_EQ(sz.default_text, "64k");  // canonical text, not the table's "65536"
  EXPECT_EQ(sz.owner, "test");
  EXPECT_EQ(sz.spec.type, ParamType::kSize);
  EXPECT_EQ(sz.spec.level, 4);
  EXPECT_EQ(sz.source.kind, SourceKind::kDefault);
  EXPECT_EQ(sz.source.where, "default");
  EXPECT_STREQ(param("t_e").spec.choices, "error|warn|info");
}

TEST_F(ParamStoreTest, LookupAndListing) {
  EXPECT_TRUE(ps_.is_registered("t_a"));
  EXPECT_FALSE(ps_.is_registered("t_zz"));
  EXPECT_EQ(ps_.find("t_zz"), nullptr);
  Names expected = {"fw_comp_x", "t_a", "t_b", "t_d", "t_e", "t_l", "t_s", "t_sz"};
  EXPECT_EQ(ps_.names(), expected);
  Names from_all;
  for (const Param* p : ps_.all()) from_all.push_back(p->name);
  EXPECT_EQ(from_all, expected);
}

TEST_F(ParamStoreTest, RegisteringTwiceFailsNamingBothOwners) {
  ParamSpec again{"t_a", ParamType::kInt, "2", "again", 1};
  Status s = ps_.register_param("t_a", again, "other");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'t_a'"));
  EXPECT_THAT(s.message(), HasSubstr("test"));
  EXPECT_THAT(s.message(), HasSubstr("other"));
  EXPECT_EQ(ps_.get_int("t_a"), 1);  // the first registration stands
}

TEST_F(ParamStoreTest, RegisteringABadDefaultFails) {
  ParamSpec bad{"t_bad", ParamType::kSize, "lots", "bad default", 1};
  Status s = ps_.register_param("t_bad", bad, "comp/x");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("t_bad"));
  EXPECT_THAT(s.message(), HasSubstr("comp/x"));
  EXPECT_THAT(s.message(), HasSubstr("'lots'"));
  EXPECT_FALSE(ps_.is_registered("t_bad"));
  ParamSpec empty{"", ParamType::kInt, "1", "no name", 1};
  EXPECT_FALSE(ps_.register_param("", empty, "comp/x").ok());
}

TEST_F(ParamStoreTest, DefaultTextDoesNotDependOnTheCallersStorage) {
  std::string def = "12";
  std::string name = "t_owned";
  ParamSpec spec{"t_owned", ParamType::kInt, def.c_str(), "help", 1};
  ASSERT_TRUE(ps_.register_param(name, spec, "test").ok());
  def = "99";  // the store must have copied what it needs
  EXPECT_EQ(param("t_owned").default_text, "12");
  EXPECT_EQ(ps_.get_int("t_owned"), 12);
}

// --- precedence --------------------------------------------------------------

// Sets t_a at every level up to `top`, in reverse precedence order (strongest
// first) so that the order of recording cannot be what decides.
void set_levels(ParamStore& ps, const std::string& yaml_file, SourceKind top, char** envp) {
  if (top >= SourceKind::kApi) ps.set("t_a", "5", Source{SourceKind::kApi, "test api"});
  if (top >= SourceKind::kCommandLine) ps.set("t_a", "4", Source{SourceKind::kCommandLine, "--mca"});
  if (top >= SourceKind::kEnv) ps.load_environment(envp);
  if (top >= SourceKind::kFile) {
    ASSERT_TRUE(ps.load_yaml_file(yaml_file).ok());
  }
}

TEST_F(ParamStoreTest, EachSourceOverridesTheOnesBelowIt) {
  const std::string file = dir_.write("a.yaml", "# comment\nt_a: 2\n");
  char env_a[] = "LZ_MCA_t_a=3";
  char* envp[] = {env_a, nullptr};
  struct Level {
    SourceKind top;
    int64_t value;
    std::string where;
  };
  const Level levels[] = {
      {SourceKind::kDefault, 1, "default"},
      {SourceKind::kFile, 2, file + ":2"},
      {SourceKind::kEnv, 3, "LZ_MCA_t_a"},
      {SourceKind::kCommandLine, 4, "--mca"},
      {SourceKind::kApi, 5, "test api"},
  };
  for (const auto& l : levels) {
    SCOPED_TRACE(source_kind_name(l.top));
    ParamStore ps;
    ASSERT_TRUE(ps.register_param("t_a", kTestParams[0], "test").ok());
    set_levels(ps, file, l.top, envp);
    Status s = ps.resolve();
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(ps.get_int("t_a"), l.value);
    EXPECT_EQ(ps.find("t_a")->source.kind, l.top);
    EXPECT_EQ(ps.find("t_a")->source.where, l.where);
  }
}

TEST_F(ParamStoreTest, CommandLineBeatsEnvironmentBeatsFileWhateverTheOrder) {
  const std::string file = dir_.write("a.yaml", "t_s: from-file\nt_e: info\nt_b: yes\n");
  char e1[] = "LZ_MCA_t_s=from-env";
  char e2[] = "LZ_MCA_t_e=error";
  char* envp[] = {e1, e2, nullptr};
  // Command line recorded first, file last.
  ps_.set("t_s", "from-cli", Source{SourceKind::kCommandLine, "--mca t_s"});
  ps_.load_environment(envp);
  ASSERT_TRUE(ps_.load_yaml_file(file).ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_string("t_s"), "from-cli");
  EXPECT_EQ(param("t_s").source.kind, SourceKind::kCommandLine);
  EXPECT_EQ(ps_.get_string("t_e"), "error");
  EXPECT_EQ(param("t_e").source.kind, SourceKind::kEnv);
  EXPECT_EQ(param("t_e").source.where, "LZ_MCA_t_e");
  EXPECT_TRUE(ps_.get_bool("t_b"));
  EXPECT_EQ(param("t_b").source.kind, SourceKind::kFile);
  EXPECT_EQ(param("t_b").source.where, file + ":3");
  EXPECT_EQ(param("t_a").source.kind, SourceKind::kDefault);  // untouched
}

TEST_F(ParamStoreTest, WithinOneSourceTheLastSettingWins) {
  ps_.set("t_a", "10", Source{SourceKind::kCommandLine, "--mca"});
  ps_.set("t_a", "11", Source{SourceKind::kCommandLine, "--mca"});
  ps_.set("t_a", "7", Source{SourceKind::kEnv, "LZ_MCA_t_a"});  // weaker, recorded later
  resolve_ok();
  EXPECT_EQ(ps_.get_int("t_a"), 11);
}

TEST_F(ParamStoreTest, LaterYamlFileWins) {
  const std::string first = dir_.write("first.yaml", "t_a: 2\nt_s: only-in-first\n");
  const std::string second = dir_.write("second.yaml", "\n\nt_a: 3\n");
  ASSERT_TRUE(ps_.load_yaml_file(first).ok());
  ASSERT_TRUE(ps_.load_yaml_file(second).ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_int("t_a"), 3);
  EXPECT_EQ(param("t_a").source.where, second + ":3");
  EXPECT_EQ(ps_.get_string("t_s"), "only-in-first");
  EXPECT_EQ(param("t_s").source.where, first + ":2");
}

TEST_F(ParamStoreTest, ResolvedValuesSurviveALaterResolve) {
  ps_.set("t_a", "9", Source{SourceKind::kCommandLine, "--mca"});
  resolve_ok();
  resolve_ok();  // settings were consumed; nothing reverts to the default
  EXPECT_EQ(ps_.get_int("t_a"), 9);
  EXPECT_EQ(param("t_a").source.kind, SourceKind::kCommandLine);
}

// --- YAML --------------------------------------------------------------------

TEST_F(ParamStoreTest, NestedYamlMappingsJoinWithUnderscore) {
  const std::string file = dir_.write("nested.yaml", "fw:\n  comp:\n    x: 7\nt_a: 2\n");
  ASSERT_TRUE(ps_.load_yaml_file(file).ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_int("fw_comp_x"), 7);
  EXPECT_EQ(param("fw_comp_x").source.kind, SourceKind::kFile);
  EXPECT_EQ(param("fw_comp_x").source.where, file + ":3");
  EXPECT_EQ(ps_.get_int("t_a"), 2);
}

TEST_F(ParamStoreTest, NestedFlowMappingAndPartialNesting) {
  ASSERT_TRUE(ps_.load_yaml_string("fw: {comp: {x: 7}}\n", "flow.yaml").ok());
  ASSERT_TRUE(ps_.load_yaml_string("fw_comp: {x: 8}\n", "partial.yaml").ok());  // later wins
  resolve_ok();
  EXPECT_EQ(ps_.get_int("fw_comp_x"), 8);
  EXPECT_EQ(param("fw_comp_x").source.where, "partial.yaml:1");
}

TEST_F(ParamStoreTest, CrCriuPriorityFromANestedMapping) {
  ParamSpec prio{"priority", ParamType::kInt, "50", "priority", 5};
  ASSERT_TRUE(ps_.register_param("cr_criu_priority", prio, "cr/criu").ok());
  ASSERT_TRUE(ps_.load_yaml_string("cr: {criu: {priority: 7}}\n", "x.yaml").ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_int("cr_criu_priority"), 7);
}

TEST_F(ParamStoreTest, YamlSequenceBecomesAList) {
  ASSERT_TRUE(ps_.load_yaml_string("t_l:\n  - tcp\n  - self\n", "seq.yaml").ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_list("t_l"), (Names{"tcp", "self"}));
}

TEST_F(ParamStoreTest, YamlNullIsTheEmptyText) {
  ASSERT_TRUE(ps_.load_yaml_string("t_s: before\n", "a.yaml").ok());
  ASSERT_TRUE(ps_.load_yaml_string("t_s:\nt_l:\n", "b.yaml").ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_string("t_s"), "");
  EXPECT_EQ(ps_.get_list("t_l"), Names{});
  EXPECT_EQ(param("t_l").source.kind, SourceKind::kFile);
}

TEST_F(ParamStoreTest, YamlTypedValuesGoThroughTheParameterParser) {
  ASSERT_TRUE(ps_.load_yaml_string("t_sz: 1G\nt_b: on\nt_d: 1.5\nt_e: info\n", "typed.yaml").ok());
  resolve_ok();
  EXPECT_EQ(ps_.get_int("t_sz"), int64_t{1} << 30);
  EXPECT_TRUE(ps_.get_bool("t_b"));
  EXPECT_DOUBLE_EQ(ps_.get_double("t_d"), 1.5);
  EXPECT_EQ(ps_.get_string("t_e"), "info");
}

TEST_F(ParamStoreTest, EmptyAndCommentOnlyFilesAreFine) {
  EXPECT_TRUE(ps_.load_yaml_file(dir_.write("empty.yaml", "")).ok());
  EXPECT_TRUE(ps_.load_yaml_file(dir_.write("comments.yaml", "# nothing\n# here\n")).ok());
  resolve_ok();
  EXPECT_EQ(param("t_a").source.kind, SourceKind::kDefault);
}

TEST_F(ParamStoreTest, MalformedYamlNamesFileAndLine) {
  const std::string file = dir_.write("bad.yaml", "t_a: 1\nt_s: x\nt_l: [a]]\n");
  Status s = ps_.load_yaml_file(file);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(file + ":3:"));
  EXPECT_THAT(s.message(), HasSubstr("malformed YAML"));
}

TEST_F(ParamStoreTest, MalformedYamlLineIsTheOffendingOne) {
  const std::string file = dir_.write("indent.yaml", "t_a: 1\nt_s: x\n t_b: 2\n");
  Status s = ps_.load_yaml_file(file);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(file + ":3:"));
}

TEST_F(ParamStoreTest, NonMappingYamlIsAnError) {
  const std::string file = dir_.write("list.yaml", "- a\n- b\n");
  Status s = ps_.load_yaml_file(file);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(file));
  EXPECT_THAT(s.message(), HasSubstr("mapping"));
}

TEST_F(ParamStoreTest, NestedSequenceOfMappingsIsAnError) {
  Status s = ps_.load_yaml_string("t_l:\n  - a\n  - {b: 1}\n", "seqmap.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("seqmap.yaml:3"));
  EXPECT_THAT(s.message(), HasSubstr("'t_l'"));
}

TEST_F(ParamStoreTest, MissingYamlFileIsAnIoErrorNamingIt) {
  const std::string file = dir_.path() + "/does-not-exist.yaml";
  Status s = ps_.load_yaml_file(file);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_THAT(s.message(), HasSubstr(file));
}

// --- errors from resolve() -------------------------------------------------------

TEST_F(ParamStoreTest, UnknownParameterSuggestsTheClosestName) {
  ps_.set("fw_comp_y", "1", Source{SourceKind::kCommandLine, "--mca fw_comp_y"});
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("unknown parameter 'fw_comp_y'"));
  EXPECT_THAT(m, HasSubstr("did you mean 'fw_comp_x'"));
  EXPECT_THAT(m, HasSubstr("--mca fw_comp_y"));  // where it was set
}

TEST_F(ParamStoreTest, UnknownParameterWithNothingCloseHasNoSuggestion) {
  ps_.set("completely_unrelated_name", "1", Source{SourceKind::kCommandLine, "--mca"});
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("'completely_unrelated_name'"));
  EXPECT_THAT(m, Not(HasSubstr("did you mean")));
}

TEST_F(ParamStoreTest, UnknownNamesAreListedNotErrorsWhenAskedFor) {
  ps_.set("transport", "tcp,self", Source{SourceKind::kEnv, "LZ_MCA_transport"});
  ps_.set("t_a", "7", Source{SourceKind::kEnv, "LZ_MCA_t_a"});
  std::vector<std::string> unknown;
  Status s = ps_.resolve(&unknown);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(ps_.get_int("t_a"), 7);  // the known one still applies
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_THAT(unknown[0], HasSubstr("'transport'"));
  EXPECT_THAT(unknown[0], HasSubstr("LZ_MCA_transport"));
}

TEST_F(ParamStoreTest, BadValuesAreErrorsEvenWhenUnknownNamesAreListed) {
  ps_.set("t_a", "many", Source{SourceKind::kCommandLine, "--mca t_a"});
  std::vector<std::string> unknown;
  Status s = ps_.resolve(&unknown);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'t_a'"));
}

TEST_F(ParamStoreTest, IllTypedValueNamesParameterValueAndSource) {
  char e[] = "LZ_MCA_t_a=lots";
  char* envp[] = {e, nullptr};
  ps_.load_environment(envp);
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("'t_a'"));
  EXPECT_THAT(m, HasSubstr("'lots'"));
  EXPECT_THAT(m, HasSubstr("LZ_MCA_t_a"));
  EXPECT_THAT(m, HasSubstr("int"));
  EXPECT_EQ(ps_.get_int("t_a"), 1);  // unchanged
}

TEST_F(ParamStoreTest, IllTypedValueFromAFileNamesFileAndLine) {
  const std::string file = dir_.write("typed.yaml", "t_a: 1\nt_sz: 5X\n");
  ASSERT_TRUE(ps_.load_yaml_file(file).ok());
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("'t_sz'"));
  EXPECT_THAT(m, HasSubstr("'5X'"));
  EXPECT_THAT(m, HasSubstr(file + ":2"));
}

TEST_F(ParamStoreTest, IllTypedEnumSuggestsAChoice) {
  ps_.set("t_e", "inf", Source{SourceKind::kCommandLine, "--mca t_e"});
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("'t_e'"));
  EXPECT_THAT(m, HasSubstr("did you mean 'info'"));
}

TEST_F(ParamStoreTest, AllProblemsAreReportedTogether) {
  const std::string file = dir_.write("p.yaml", "t_aa: 1\n");
  ASSERT_TRUE(ps_.load_yaml_file(file).ok());
  ps_.set("t_b", "maybe", Source{SourceKind::kCommandLine, "--mca t_b"});
  ps_.set("t_d", "fast", Source{SourceKind::kEnv, "LZ_MCA_t_d"});
  ps_.set("t_a", "3", Source{SourceKind::kCommandLine, "--mca t_a"});  // fine
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("'t_aa'"));
  EXPECT_THAT(m, HasSubstr("'maybe'"));
  EXPECT_THAT(m, HasSubstr("'fast'"));
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 2) << m;  // one line per problem
}

// --- peek and the environment ----------------------------------------------------

TEST_F(ParamStoreTest, PeekReturnsTheStrongestRawText) {
  EXPECT_FALSE(ps_.peek("t_sz").has_value());
  ASSERT_TRUE(ps_.load_yaml_string("t_sz: 1k\n", "a.yaml").ok());
  EXPECT_EQ(ps_.peek("t_sz"), "1k");
  ps_.set("t_sz", " 64K ", Source{SourceKind::kCommandLine, "--mca"});
  ps_.set("t_sz", "2k", Source{SourceKind::kEnv, "LZ_MCA_t_sz"});  // weaker, later
  EXPECT_EQ(ps_.peek("t_sz"), " 64K ");  // raw text, not the canonical "64k"
  ps_.set("t_sz", "128k", Source{SourceKind::kCommandLine, "--mca"});
  EXPECT_EQ(ps_.peek("t_sz"), "128k");  // same source: the later one
}

TEST_F(ParamStoreTest, PeekSeesUnregisteredNames) {
  // component_path is read before plugins register their parameters.
  ps_.set("component_path", "/a:/b", Source{SourceKind::kCommandLine, "--mca"});
  EXPECT_EQ(ps_.peek("component_path"), "/a:/b");
  EXPECT_FALSE(ps_.peek("component_pat").has_value());
}

TEST_F(ParamStoreTest, LoadEnvironmentTakesOnlyLzMcaEntries) {
  char e1[] = "LZ_MCA_t_a=5";
  char e2[] = "PATH=/usr/bin";
  char e3[] = "LZ_MCA_t_s=a=b";      // the value may hold '='
  char e4[] = "LZ_MCA_t_b";          // no '=': ignored
  char e5[] = "lz_mca_t_e=info";     // prefix is case sensitive
  char e6[] = "XLZ_MCA_t_d=2.0";     // prefix must start the entry
  char e7[] = "LZ_MCA_t_l=";         // empty value is a value
  char* envp[] = {e1, e2, e3, e4, e5, e6, e7, nullptr};
  ps_.load_environment(envp);
  EXPECT_EQ(ps_.peek("t_a"), "5");
  resolve_ok();
  EXPECT_EQ(ps_.get_int("t_a"), 5);
  EXPECT_EQ(param("t_a").source.kind, SourceKind::kEnv);
  EXPECT_EQ(param("t_a").source.where, "LZ_MCA_t_a");
  EXPECT_EQ(ps_.get_string("t_s"), "a=b");
  EXPECT_FALSE(ps_.get_bool("t_b"));
  EXPECT_EQ(param("t_b").source.kind, SourceKind::kDefault);
  EXPECT_EQ(ps_.get_string("t_e"), "warn");
  EXPECT_DOUBLE_EQ(ps_.get_double("t_d"), 0.25);
  EXPECT_EQ(ps_.get_list("t_l"), Names{});
  EXPECT_EQ(param("t_l").source.kind, SourceKind::kEnv);
}

TEST_F(ParamStoreTest, LoadEnvironmentAcceptsNull) {
  ps_.load_environment(nullptr);
  resolve_ok();
  EXPECT_EQ(param("t_a").source.kind, SourceKind::kDefault);
}

TEST_F(ParamStoreTest, UnknownEnvironmentParameterIsReported) {
  char e[] = "LZ_MCA_t_z=1";
  char* envp[] = {e, nullptr};
  ps_.load_environment(envp);
  std::string m = resolve_error();
  EXPECT_THAT(m, HasSubstr("'t_z'"));
  EXPECT_THAT(m, HasSubstr("LZ_MCA_t_z"));
}

// --- sources ---------------------------------------------------------------------

TEST(Source, KindNamesAndDescriptions) {
  EXPECT_STREQ(source_kind_name(SourceKind::kDefault), "default");
  EXPECT_STREQ(source_kind_name(SourceKind::kFile), "file");
  EXPECT_STREQ(source_kind_name(SourceKind::kEnv), "environment");
  EXPECT_STREQ(source_kind_name(SourceKind::kCommandLine), "command line");
  EXPECT_STREQ(source_kind_name(SourceKind::kApi), "api");
  EXPECT_EQ((Source{SourceKind::kDefault, "default"}).describe(), "default");
  EXPECT_EQ((Source{SourceKind::kFile, "a.yaml:3"}).describe(), "set in a.yaml:3");
  EXPECT_EQ((Source{SourceKind::kEnv, "LZ_MCA_cr"}).describe(), "set by environment variable LZ_MCA_cr");
  EXPECT_EQ((Source{SourceKind::kCommandLine, "--mca cr"}).describe(), "set by --mca cr on the command line");
  EXPECT_EQ((Source{SourceKind::kApi, "test"}).describe(), "set by test");
}

TEST(Source, PrecedenceOrderOfKinds) {
  EXPECT_LT(SourceKind::kDefault, SourceKind::kFile);
  EXPECT_LT(SourceKind::kFile, SourceKind::kEnv);
  EXPECT_LT(SourceKind::kEnv, SourceKind::kCommandLine);
  EXPECT_LT(SourceKind::kCommandLine, SourceKind::kApi);
}

}  // namespace
}  // namespace lz
