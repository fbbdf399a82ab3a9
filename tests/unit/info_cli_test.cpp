// `lazarus info`, run as a real process (the built binary): JSON and text
// output, the sources of parameter values, and the errors a user sees. Every
// run gets an empty HOME and an environment without LZ_MCA_* so that nothing
// on the machine interferes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lazarus/registry.h"
#include "run_command.h"
#include "temp_dir.h"

namespace lz {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using Names = std::vector<std::string>;

class InfoCli : public ::testing::Test {
 protected:
  // Runs `lazarus <args>` with `extra_env` ("NAME=value") added.
  test::CommandResult run(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> argv = {LZ_TEST_LAZARUS_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = test::hermetic_env(home_.path());
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    test::CommandResult r = test::run_command(argv, env);
    EXPECT_FALSE(r.signaled) << "lazarus was killed by a signal; stderr:\n" << r.err;
    return r;
  }
  // Runs and parses stdout as JSON; fails the test if it does not parse.
  json run_json(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {},
                int expected_exit = 0) {
    test::CommandResult r = run(args, extra_env);
    EXPECT_EQ(r.exit_code, expected_exit) << "stderr:\n" << r.err;
    json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << "stdout is not JSON:\n" << r.out;
    return j;
  }

  test::TempDir home_;
  test::TempDir work_;
};

const json* find_named(const json& array, const std::string& name) {
  if (!array.is_array()) return nullptr;
  for (const auto& e : array)
    if (e.is_object() && e.value("name", "") == name) return &e;
  return nullptr;
}

Names names_in(const json& array) {
  Names out;
  for (const auto& e : array) out.push_back(e.value("name", ""));
  return out;
}

Names strings_in(const json& array) {
  Names out;
  for (const auto& e : array) out.push_back(e.get<std::string>());
  return out;
}

TEST_F(InfoCli, JsonListsFrameworksComponentsAndParameters) {
  json j = run_json({"info", "--json"});
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j.contains("version"));
  ASSERT_TRUE(j.contains("frameworks"));
  ASSERT_TRUE(j["frameworks"].is_array());
  EXPECT_EQ(names_in(j["frameworks"]), (Names{"cr", "crcp", "transport", "coll"}));
  for (const auto& f : j["frameworks"]) {
    SCOPED_TRACE(f.value("name", "?"));
    ASSERT_TRUE(f.contains("components"));
    EXPECT_TRUE(f["components"].is_array());
    EXPECT_TRUE(f["selected"].is_array());
    EXPECT_EQ(f.value("interface_version", 0u), Registry::interface_version_of(f.value("name", "").c_str()));
  }
  const json* cr = find_named(j["frameworks"], "cr");
  ASSERT_NE(cr, nullptr);
  EXPECT_EQ((*cr)["select"], "single");
  EXPECT_NE(find_named((*cr)["components"], "none"), nullptr);
  EXPECT_NE(find_named((*cr)["components"], "criu"), nullptr);
  EXPECT_EQ((*find_named(j["frameworks"], "transport"))["select"], "multi");
  EXPECT_NE(find_named((*find_named(j["frameworks"], "transport"))["components"], "self"), nullptr);

  ASSERT_TRUE(j["parameters"].is_array());
  const json* prio = find_named(j["parameters"], "cr_criu_priority");
  ASSERT_NE(prio, nullptr);
  EXPECT_EQ((*prio)["type"], "int");
  EXPECT_EQ((*prio)["value"], "50");
  EXPECT_EQ((*prio)["default"], "50");
  EXPECT_EQ((*prio)["source"], "default");
  EXPECT_EQ((*prio)["owner"], "cr/criu");
  const json* lvl = find_named(j["parameters"], "log_level");
  ASSERT_NE(lvl, nullptr);
  EXPECT_EQ((*lvl)["type"], "enum");
  EXPECT_THAT(strings_in((*lvl)["choices"]), ::testing::Contains("debug"));
}

TEST_F(InfoCli, JsonComponentsSayWhetherTheyCanRunAndWhyNot) {
  json j = run_json({"info", "--json"});
  for (const auto& f : j["frameworks"]) {
    for (const auto& c : f["components"]) {
      SCOPED_TRACE(f.value("name", "?") + "/" + c.value("name", "?"));
      // Built in, or a plugin from the installed plugin directory (a path).
      const std::string origin = c.value("origin", "");
      EXPECT_TRUE(origin == "built-in" || origin.find(".so") != std::string::npos) << origin;
      ASSERT_TRUE(c["available"].is_boolean());
      if (c["available"].get<bool>()) {
        EXPECT_TRUE(c.contains("capabilities"));
      } else {
        ASSERT_TRUE(c.contains("reason"));
        EXPECT_FALSE(c["reason"].get<std::string>().empty());
      }
    }
  }
  const json* none = find_named((*find_named(j["frameworks"], "cr"))["components"], "none");
  ASSERT_NE(none, nullptr);
  EXPECT_TRUE((*none)["available"].get<bool>());
  EXPECT_EQ((*none)["priority"], 0);
}

TEST_F(InfoCli, DefaultRunSucceedsEvenWithAnEmptyFramework) {
  // coll may have no usable component here; that is not the user's error.
  test::CommandResult r = run({"info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Framework cr"));
  EXPECT_THAT(r.out, HasSubstr("Framework coll"));
  EXPECT_THAT(r.out, HasSubstr("cr_criu_priority = 50"));
  EXPECT_EQ(r.err, "");
}

TEST_F(InfoCli, UnknownComponentInTheEnvironmentFails) {
  test::CommandResult r = run({"info"}, {"LZ_MCA_cr=nonesuch"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("nonesuch"));
  EXPECT_THAT(r.err, HasSubstr("LZ_MCA_cr"));
  EXPECT_THAT(r.err, HasSubstr("lazarus: error:"));
}

TEST_F(InfoCli, MisspelledParameterSuggestsTheRightOne) {
  test::CommandResult r = run({"info", "--mca", "cr_criu_priorty", "5"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("'cr_criu_priorty'"));
  EXPECT_THAT(r.err, HasSubstr("did you mean 'cr_criu_priority'"));
}

TEST_F(InfoCli, IllTypedValueIsAnErrorNamingIt) {
  test::CommandResult r = run({"info", "--mca", "cr_criu_priority", "high"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("'cr_criu_priority'"));
  EXPECT_THAT(r.err, HasSubstr("'high'"));
}

TEST_F(InfoCli, SeveralProblemsArePrintedOneLineEach) {
  test::CommandResult r = run({"info", "--mca", "cr_criu_priorty", "5", "--mca", "cr_none_priority", "x"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("cr_criu_priorty"));
  EXPECT_THAT(r.err, HasSubstr("'x'"));
  size_t lines = 0;
  for (size_t pos = 0; (pos = r.err.find("lazarus: error:", pos)) != std::string::npos; ++pos) ++lines;
  EXPECT_EQ(lines, 2u) << r.err;
}

TEST_F(InfoCli, ParamFilterShowsOnlyThatComponent) {
  test::CommandResult r = run({"info", "--param", "cr", "criu"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cr_criu_binary"));
  EXPECT_THAT(r.out, HasSubstr("cr_criu_priority"));
  EXPECT_THAT(r.out, Not(HasSubstr("transport_self_priority")));
  EXPECT_THAT(r.out, Not(HasSubstr("cr_none_priority")));
  EXPECT_THAT(r.out, Not(HasSubstr("Framework cr")));  // parameters only
}

TEST_F(InfoCli, ParamFilterInJson) {
  json j = run_json({"info", "--json", "--param", "cr", "all"});
  EXPECT_FALSE(j.contains("frameworks"));
  Names names = names_in(j["parameters"]);
  EXPECT_THAT(names, ::testing::Contains("cr_criu_binary"));
  EXPECT_THAT(names, ::testing::Contains("cr_none_priority"));
  EXPECT_THAT(names, ::testing::Contains("cr"));  // the selection parameter
  for (const auto& n : names) EXPECT_EQ(n.rfind("cr", 0), 0u) << n;
  EXPECT_THAT(names, Not(::testing::Contains("crcp_none_priority")));
}

TEST_F(InfoCli, ParamFilterAllListsEverything) {
  json everything = run_json({"info", "--json"});
  json all = run_json({"info", "--json", "--param", "all", "all"});
  EXPECT_EQ(names_in(all["parameters"]), names_in(everything["parameters"]));
}

TEST_F(InfoCli, ParamFilterWithUnknownNamesSuggests) {
  test::CommandResult r = run({"info", "--param", "trasnport"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("did you mean 'transport'"));
  test::CommandResult c = run({"info", "--param", "cr", "crui"});
  EXPECT_NE(c.exit_code, 0);
  EXPECT_THAT(c.err, HasSubstr("did you mean 'criu'"));
}

TEST_F(InfoCli, CrNoneOnTheCommandLineIsSelected) {
  json j = run_json({"info", "--mca", "cr", "none", "--json"});
  const json* cr = find_named(j["frameworks"], "cr");
  ASSERT_NE(cr, nullptr);
  EXPECT_EQ(strings_in((*cr)["selected"]), Names{"none"});
  const json* p = find_named(j["parameters"], "cr");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["value"], "none");
  EXPECT_EQ((*p)["source"], "command line");
  EXPECT_EQ((*p)["where"], "--mca cr");
}

TEST_F(InfoCli, ExcludedComponentIsMarked) {
  json j = run_json({"info", "--mca", "cr", "^criu", "--json"});
  const json* criu = find_named((*find_named(j["frameworks"], "cr"))["components"], "criu");
  ASSERT_NE(criu, nullptr);
  EXPECT_TRUE((*criu)["excluded"].get<bool>());
  EXPECT_EQ(strings_in((*find_named(j["frameworks"], "cr"))["selected"]), Names{"none"});
}

TEST_F(InfoCli, RequestThatLeavesNothingUsableExitsNonZero) {
  // Exclude every transport that is built in, whatever the build has.
  json all = run_json({"info", "--json"});
  std::string exclude = "^";
  for (const auto& c : (*find_named(all["frameworks"], "transport"))["components"])
    exclude += c["name"].get<std::string>() + ",";
  exclude.pop_back();
  test::CommandResult r = run({"info", "--mca", "transport", exclude, "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no usable transport component"));
  json j = json::parse(r.out, nullptr, false);  // the report is still printed
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_TRUE((*find_named(j["frameworks"], "transport")).contains("selection_error"));
}

TEST_F(InfoCli, ConfigFileValueShowsItsSource) {
  const std::string cfg = work_.write("my.yaml", "cr_criu_priority: 7\n");
  json j = run_json({"info", "--json", "--config", cfg});
  const json* p = find_named(j["parameters"], "cr_criu_priority");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["value"], "7");
  EXPECT_EQ((*p)["source"], "file");
  EXPECT_EQ((*p)["where"], cfg + ":1");
  EXPECT_THAT(strings_in(j["config_files"]), ::testing::Contains(cfg));
  EXPECT_EQ((*find_named((*find_named(j["frameworks"], "cr"))["components"], "criu"))["priority"], 7);
}

TEST_F(InfoCli, ConfigFileValueInTextOutput) {
  const std::string cfg = work_.write("nested.yaml", "cr:\n  criu:\n    priority: 7\n");
  test::CommandResult r = run({"info", "--config", cfg, "--param", "cr", "criu"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cr_criu_priority = 7  [set in " + cfg + ":3"));
}

TEST_F(InfoCli, MalformedConfigFileNamesFileAndLine) {
  const std::string cfg = work_.write("bad.yaml", "cr_criu_priority: 7\ncr: [none]]\n");
  test::CommandResult r = run({"info", "--config", cfg});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr(cfg + ":2:"));
}

TEST_F(InfoCli, MissingConfigFileIsRefused) {
  test::CommandResult r = run({"info", "--config", work_.path() + "/absent.yaml"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("absent.yaml"));
}

TEST_F(InfoCli, UserFileIsReadFromHomeAndConfigOverridesIt) {
  const std::string user = home_.write(".config/lazarus/lazarus.yaml", "cr_none_priority: 3\ncr_criu_priority: 3\n");
  const std::string cfg = work_.write("cfg.yaml", "cr_criu_priority: 4\n");
  json j = run_json({"info", "--json", "--config", cfg});
  Names files = strings_in(j["config_files"]);
  ASSERT_GE(files.size(), 2u);
  EXPECT_EQ(files[files.size() - 2], user);  // user file, then --config
  EXPECT_EQ(files.back(), cfg);
  EXPECT_EQ((*find_named(j["parameters"], "cr_none_priority"))["value"], "3");
  EXPECT_EQ((*find_named(j["parameters"], "cr_none_priority"))["where"], user + ":1");
  EXPECT_EQ((*find_named(j["parameters"], "cr_criu_priority"))["value"], "4");
  EXPECT_EQ((*find_named(j["parameters"], "cr_criu_priority"))["where"], cfg + ":1");
}

TEST_F(InfoCli, EnvironmentBeatsFilesAndCommandLineBeatsEnvironment) {
  const std::string cfg = work_.write("cfg.yaml", "cr_criu_priority: 4\ncr_none_priority: 4\n");
  json j = run_json({"info", "--json", "--config", cfg, "--mca", "cr_criu_priority", "9"},
                    {"LZ_MCA_cr_criu_priority=6", "LZ_MCA_cr_none_priority=6"});
  const json* criu = find_named(j["parameters"], "cr_criu_priority");
  const json* none = find_named(j["parameters"], "cr_none_priority");
  ASSERT_NE(criu, nullptr);
  ASSERT_NE(none, nullptr);
  EXPECT_EQ((*criu)["value"], "9");
  EXPECT_EQ((*criu)["source"], "command line");
  EXPECT_EQ((*none)["value"], "6");
  EXPECT_EQ((*none)["source"], "environment");
  EXPECT_EQ((*none)["where"], "LZ_MCA_cr_none_priority");
}

TEST_F(InfoCli, GoodPluginAppearsWithItsOriginAndParameter) {
  json j = run_json({"info", "--json", "--mca", "component_path", LZ_TEST_PLUGIN_GOOD_DIR, "--mca",
                     "coll_testplug_fanout", "8"});
  const json* coll = find_named(j["frameworks"], "coll");
  ASSERT_NE(coll, nullptr);
  const json* tp = find_named((*coll)["components"], "testplug");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ((*tp)["origin"], LZ_TEST_PLUGIN_GOOD_FILE);
  EXPECT_TRUE((*tp)["available"].get<bool>());
  EXPECT_THAT(strings_in((*coll)["selected"]), ::testing::Contains("testplug"));
  const json* fanout = find_named(j["parameters"], "coll_testplug_fanout");
  ASSERT_NE(fanout, nullptr);
  EXPECT_EQ((*fanout)["value"], "8");
  EXPECT_EQ((*fanout)["default"], "4");
  bool listed = false;
  for (const auto& p : j["plugins"]) listed |= p.value("path", "") == LZ_TEST_PLUGIN_GOOD_FILE;
  EXPECT_TRUE(listed);
}

TEST_F(InfoCli, RefusedPluginIsReportedNotFatal) {
  json j = run_json({"info", "--json", "--mca", "component_path", LZ_TEST_PLUGIN_BADVERSION_DIR});
  const json* problem = nullptr;
  for (const auto& p : j["plugin_problems"])
    if (p.value("path", "") == LZ_TEST_PLUGIN_BADVERSION_FILE) problem = &p;
  ASSERT_NE(problem, nullptr) << j["plugin_problems"].dump();
  EXPECT_THAT((*problem)["message"].get<std::string>(), HasSubstr("999"));
  EXPECT_EQ(find_named((*find_named(j["frameworks"], "transport"))["components"], "oldabi"), nullptr);
  test::CommandResult text = run({"info", "--mca", "component_path", LZ_TEST_PLUGIN_NOSYM_DIR});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("Plugin refused:"));
  EXPECT_THAT(text.out, HasSubstr("lazarus_component_descriptor"));
}

TEST_F(InfoCli, PluginWithABadParameterTableDoesNotCrashInfo) {
  json j = run_json({"info", "--json", "--mca", "component_path", LZ_TEST_PLUGIN_BADDEFAULT_DIR});
  bool reported = false;
  for (const auto& p : j["plugin_problems"]) reported |= p.value("path", "") == LZ_TEST_PLUGIN_BADDEFAULT_FILE;
  EXPECT_TRUE(reported) << j["plugin_problems"].dump();
  EXPECT_EQ(find_named((*find_named(j["frameworks"], "coll"))["components"], "baddefault"), nullptr);
}

TEST_F(InfoCli, TopLevelHelp) {
  test::CommandResult r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("info"));
  EXPECT_THAT(r.out, HasSubstr("Lazarus"));
}

TEST_F(InfoCli, InfoHelp) {
  test::CommandResult r = run({"info", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* opt : {"--json", "--mca", "--config", "--param"}) EXPECT_THAT(r.out, HasSubstr(opt));
}

TEST_F(InfoCli, VersionFlag) {
  test::CommandResult r = run({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("lazarus "));
}

TEST_F(InfoCli, MissingOrUnknownSubcommandFails) {
  test::CommandResult none = run({});
  EXPECT_NE(none.exit_code, 0);
  test::CommandResult bogus = run({"frobnicate"});
  EXPECT_NE(bogus.exit_code, 0);
  EXPECT_EQ(bogus.out, "");
}

}  // namespace
}  // namespace lz
