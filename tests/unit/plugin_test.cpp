// Plugins: components loaded from `component_path` (.so files exporting
// lazarus_component_descriptor), and the refusal, with a clear message and
// without a crash, of files built for another interface or ABI version and of
// shared objects that are not components at all. The plugins are built by
// tests/unit/plugins with the project's lz_add_plugin().
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lazarus/frameworks/coll.h"
#include "lazarus/frameworks/transport.h"
#include "lazarus/plugin_loader.h"
#include "lazarus/registry.h"
#include "temp_dir.h"

namespace lz {
namespace {

using ::testing::HasSubstr;
using Names = std::vector<std::string>;

char* kNoEnv[] = {nullptr};

ConfigOptions with_path(const std::string& component_path) {
  ConfigOptions o;
  o.read_default_file = false;
  o.read_user_file = false;
  o.envp = kNoEnv;
  o.mca = {{"component_path", component_path}};
  return o;
}

const PluginProblem* problem_for(const Registry& reg, const std::string& path) {
  for (const auto& p : reg.plugin_problems())
    if (p.path == path) return &p;
  return nullptr;
}

const LoadedPlugin* plugin_for(const Registry& reg, const std::string& path) {
  for (const auto& p : reg.plugins())
    if (p.path == path) return &p;
  return nullptr;
}

TEST(PluginFiles, TheTestPluginsWereBuilt) {
  for (const char* f : {LZ_TEST_PLUGIN_GOOD_FILE, LZ_TEST_PLUGIN_BADVERSION_FILE, LZ_TEST_PLUGIN_BADABI_FILE,
                        LZ_TEST_PLUGIN_BADDEFAULT_FILE, LZ_TEST_PLUGIN_NOSYM_FILE})
    EXPECT_TRUE(std::filesystem::is_regular_file(f)) << f;
}

TEST(PluginFiles, ListsOnlySharedObjectsSorted) {
  test::TempDir dir;
  dir.write("b.so", "");
  dir.write("a.so", "");
  dir.write("notes.txt", "");
  dir.write("c.so.1", "");
  dir.write(".so", "");  // no name before the suffix
  dir.mkdir("d.so");     // a directory, not a file
  EXPECT_EQ(list_plugin_files(dir.path()), (Names{dir.path() + "/a.so", dir.path() + "/b.so"}));
}

TEST(PluginFiles, MissingDirectoryIsEmpty) {
  EXPECT_TRUE(list_plugin_files("/nonexistent/lazarus/plugins").empty());
  EXPECT_EQ(list_plugin_files(LZ_TEST_PLUGIN_GOOD_DIR), Names{LZ_TEST_PLUGIN_GOOD_FILE});
}

// --- load_plugin() directly ------------------------------------------------------------

TEST(LoadPlugin, GoodPluginYieldsItsDescriptor) {
  auto p = load_plugin(LZ_TEST_PLUGIN_GOOD_FILE, &Registry::interface_version_of);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->path, LZ_TEST_PLUGIN_GOOD_FILE);
  EXPECT_NE(p->handle, nullptr);
  ASSERT_NE(p->desc, nullptr);
  EXPECT_EQ(p->desc->magic, kComponentMagic);
  EXPECT_EQ(p->desc->abi_version, kComponentAbiVersion);
  EXPECT_STREQ(p->desc->framework, "coll");
  EXPECT_STREQ(p->desc->name, "testplug");
  EXPECT_EQ(p->desc->interface_version, coll::kInterfaceVersion);
  EXPECT_EQ(p->desc->default_priority, 5);
  ASSERT_EQ(p->desc->num_params, 1u);
  EXPECT_STREQ(p->desc->params[0].name, "fanout");
  EXPECT_EQ(p->desc->params[0].type, ParamType::kInt);
}

TEST(LoadPlugin, WrongInterfaceVersionIsRefusedNamingBothVersions) {
  auto p = load_plugin(LZ_TEST_PLUGIN_BADVERSION_FILE, &Registry::interface_version_of);
  ASSERT_FALSE(p.ok());
  const std::string m = p.status().message();  // status() returns a copy
  EXPECT_THAT(m, HasSubstr(LZ_TEST_PLUGIN_BADVERSION_FILE));
  EXPECT_THAT(m, HasSubstr("transport/oldabi"));
  EXPECT_THAT(m, HasSubstr("version 999"));
  EXPECT_THAT(m, HasSubstr("version " + std::to_string(transport::kInterfaceVersion)));
}

TEST(LoadPlugin, WrongDescriptorAbiIsRefusedNamingBothVersions) {
  auto p = load_plugin(LZ_TEST_PLUGIN_BADABI_FILE, &Registry::interface_version_of);
  ASSERT_FALSE(p.ok());
  const std::string m = p.status().message();  // status() returns a copy
  EXPECT_THAT(m, HasSubstr(LZ_TEST_PLUGIN_BADABI_FILE));
  EXPECT_THAT(m, HasSubstr("ABI version " + std::to_string(kComponentAbiVersion + 41)));
  EXPECT_THAT(m, HasSubstr("version " + std::to_string(kComponentAbiVersion)));
}

TEST(LoadPlugin, MissingEntrySymbolIsRefusedNamingIt) {
  auto p = load_plugin(LZ_TEST_PLUGIN_NOSYM_FILE, &Registry::interface_version_of);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr(LZ_TEST_PLUGIN_NOSYM_FILE));
  EXPECT_THAT(p.status().message(), HasSubstr("lazarus_component_descriptor"));
}

uint32_t knows_nothing(const char*) { return 0; }

TEST(LoadPlugin, UnknownFrameworkIsRefused) {
  auto p = load_plugin(LZ_TEST_PLUGIN_GOOD_FILE, &knows_nothing);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("unknown framework 'coll'"));
}

TEST(LoadPlugin, FilesThatAreNotSharedObjectsAreRefused) {
  test::TempDir dir;
  const std::string junk = dir.write("junk.so", "this is not an ELF file\n");
  auto p = load_plugin(junk, &Registry::interface_version_of);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr(junk));
  auto q = load_plugin(dir.path() + "/absent.so", &Registry::interface_version_of);
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(), HasSubstr(dir.path() + "/absent.so"));
}

// --- through the Registry ----------------------------------------------------------

TEST(RegistryPlugins, GoodPluginJoinsItsFramework) {
  Registry reg;
  Status s = reg.configure(with_path(LZ_TEST_PLUGIN_GOOD_DIR));
  ASSERT_TRUE(s.ok()) << s.message();
  const LoadedPlugin* lp = plugin_for(reg, LZ_TEST_PLUGIN_GOOD_FILE);
  ASSERT_NE(lp, nullptr);
  EXPECT_STREQ(lp->desc->name, "testplug");
  EXPECT_EQ(problem_for(reg, LZ_TEST_PLUGIN_GOOD_FILE), nullptr);

  const ComponentEntry* e = reg.framework("coll")->find("testplug");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->origin, LZ_TEST_PLUGIN_GOOD_FILE);
  EXPECT_EQ(e->desc, lp->desc);

  const Param* fanout = reg.params().find("coll_testplug_fanout");
  ASSERT_NE(fanout, nullptr);
  EXPECT_EQ(fanout->owner, "coll/testplug");
  EXPECT_EQ(fanout->source.kind, SourceKind::kDefault);
  EXPECT_EQ(reg.params().get_int("coll_testplug_fanout"), 4);
  EXPECT_EQ(reg.params().get_int("coll_testplug_priority"), 5);
}

TEST(RegistryPlugins, PluginParameterIsSettableFromTheCommandLine) {
  // Set before the plugin registers it: the registry resolves after loading.
  Registry reg;
  ConfigOptions o = with_path(LZ_TEST_PLUGIN_GOOD_DIR);
  o.mca.push_back({"coll_testplug_fanout", "16"});
  Status s = reg.configure(o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(reg.params().get_int("coll_testplug_fanout"), 16);
  EXPECT_EQ(reg.params().find("coll_testplug_fanout")->source.kind, SourceKind::kCommandLine);
}

TEST(RegistryPlugins, PluginParameterIsSettableFromTheEnvironment) {
  Registry reg;
  ConfigOptions o = with_path(LZ_TEST_PLUGIN_GOOD_DIR);
  char e[] = "LZ_MCA_coll_testplug_fanout=7";
  char* envp[] = {e, nullptr};
  o.envp = envp;
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_EQ(reg.params().get_int("coll_testplug_fanout"), 7);
  EXPECT_EQ(reg.params().find("coll_testplug_fanout")->source.kind, SourceKind::kEnv);
}

TEST(RegistryPlugins, ComponentPathFromTheEnvironment) {
  Registry reg;
  ConfigOptions o = with_path("");
  o.mca.clear();
  std::string var = std::string("LZ_MCA_component_path=") + LZ_TEST_PLUGIN_GOOD_DIR;
  char* envp[] = {var.data(), nullptr};
  o.envp = envp;
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_NE(reg.framework("coll")->find("testplug"), nullptr);
}

TEST(RegistryPlugins, PluginModuleIsSelectedAndSeesItsParameter) {
  Registry reg;
  ConfigOptions o = with_path(LZ_TEST_PLUGIN_GOOD_DIR);
  o.mca.push_back({"coll", "testplug"});
  o.mca.push_back({"coll_testplug_fanout", "9"});
  ASSERT_TRUE(reg.configure(o).ok());
  auto sel = reg.framework("coll")->select(reg.query_context());
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  ASSERT_EQ(sel->size(), 1u);
  EXPECT_STREQ(sel->front().entry->desc->name, "testplug");
  ASSERT_NE(sel->front().module, nullptr);
  EXPECT_NE(dynamic_cast<coll::Module*>(sel->front().module.get()), nullptr);
  // The test plugin reports its fanout as its capability bits.
  EXPECT_EQ(sel->front().module->capabilities(), 9u);
}

TEST(RegistryPlugins, PluginParameterIsUnknownWithoutThePlugin) {
  Registry reg;
  ConfigOptions o = with_path("");
  o.mca = {{"coll_testplug_fanout", "16"}};
  Status s = reg.configure(o);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("unknown parameter 'coll_testplug_fanout'"));
}

TEST(RegistryPlugins, LoadPluginsFalseLoadsNothing) {
  Registry reg;
  ConfigOptions o = with_path(LZ_TEST_PLUGIN_GOOD_DIR);
  o.load_plugins = false;
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_EQ(plugin_for(reg, LZ_TEST_PLUGIN_GOOD_FILE), nullptr);
  EXPECT_EQ(reg.framework("coll")->find("testplug"), nullptr);
}

TEST(RegistryPlugins, BadVersionPluginIsRefusedAndAbsent) {
  Registry reg;
  Status s = reg.configure(with_path(LZ_TEST_PLUGIN_BADVERSION_DIR));
  ASSERT_TRUE(s.ok()) << s.message();  // a refused plugin is reported, not fatal
  const PluginProblem* p = problem_for(reg, LZ_TEST_PLUGIN_BADVERSION_FILE);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->message, HasSubstr(LZ_TEST_PLUGIN_BADVERSION_FILE));
  EXPECT_THAT(p->message, HasSubstr("999"));
  EXPECT_THAT(p->message, HasSubstr("version " + std::to_string(transport::kInterfaceVersion)));
  EXPECT_EQ(reg.framework("transport")->find("oldabi"), nullptr);
  EXPECT_EQ(plugin_for(reg, LZ_TEST_PLUGIN_BADVERSION_FILE), nullptr);
  EXPECT_FALSE(reg.params().is_registered("transport_oldabi_priority"));
}

TEST(RegistryPlugins, BadAbiPluginIsRefusedAndAbsent) {
  Registry reg;
  ASSERT_TRUE(reg.configure(with_path(LZ_TEST_PLUGIN_BADABI_DIR)).ok());
  const PluginProblem* p = problem_for(reg, LZ_TEST_PLUGIN_BADABI_FILE);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->message, HasSubstr("ABI version"));
  EXPECT_EQ(reg.framework("coll")->find("futureabi"), nullptr);
}

TEST(RegistryPlugins, NoSymbolPluginIsRefusedNamingFileAndSymbol) {
  Registry reg;
  ASSERT_TRUE(reg.configure(with_path(LZ_TEST_PLUGIN_NOSYM_DIR)).ok());
  const PluginProblem* p = problem_for(reg, LZ_TEST_PLUGIN_NOSYM_FILE);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->message, HasSubstr(LZ_TEST_PLUGIN_NOSYM_FILE));
  EXPECT_THAT(p->message, HasSubstr("lazarus_component_descriptor"));
  EXPECT_EQ(plugin_for(reg, LZ_TEST_PLUGIN_NOSYM_FILE), nullptr);
}

TEST(RegistryPlugins, PluginWithAnUnparsableDefaultIsRefusedWhole) {
  Registry reg;
  ASSERT_TRUE(reg.configure(with_path(LZ_TEST_PLUGIN_BADDEFAULT_DIR)).ok());
  const PluginProblem* p = problem_for(reg, LZ_TEST_PLUGIN_BADDEFAULT_FILE);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->message, HasSubstr("coll_baddefault_fanout"));
  EXPECT_THAT(p->message, HasSubstr("'four'"));
  // Not half-registered: absent from the framework and without parameters, so
  // that selection never calls a query() whose parameters do not exist.
  EXPECT_EQ(reg.framework("coll")->find("baddefault"), nullptr);
  EXPECT_FALSE(reg.params().is_registered("coll_baddefault_priority"));
  EXPECT_FALSE(reg.params().is_registered("coll_baddefault_fanout"));
  EXPECT_EQ(plugin_for(reg, LZ_TEST_PLUGIN_BADDEFAULT_FILE), nullptr);
  auto sel = reg.framework("coll")->select(reg.query_context());  // must not abort
  if (sel.ok()) {
    for (const auto& q : *sel) EXPECT_STRNE(q.entry->desc->name, "baddefault");
  }
}

TEST(RegistryPlugins, GoodAndBadTogetherWithBothSeparators) {
  // ':' and ',' both separate directories; refusals do not stop the rest.
  Registry reg;
  const std::string path = std::string(LZ_TEST_PLUGIN_NOSYM_DIR) + ":" + LZ_TEST_PLUGIN_BADVERSION_DIR + "," +
                           LZ_TEST_PLUGIN_GOOD_DIR + ":" + LZ_TEST_PLUGIN_BADABI_DIR;
  ConfigOptions o = with_path(path);
  o.mca.push_back({"coll_testplug_fanout", "2"});
  Status s = reg.configure(o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_NE(reg.framework("coll")->find("testplug"), nullptr);
  EXPECT_EQ(reg.params().get_int("coll_testplug_fanout"), 2);
  EXPECT_NE(problem_for(reg, LZ_TEST_PLUGIN_NOSYM_FILE), nullptr);
  EXPECT_NE(problem_for(reg, LZ_TEST_PLUGIN_BADVERSION_FILE), nullptr);
  EXPECT_NE(problem_for(reg, LZ_TEST_PLUGIN_BADABI_FILE), nullptr);
  EXPECT_EQ(problem_for(reg, LZ_TEST_PLUGIN_GOOD_FILE), nullptr);
}

TEST(RegistryPlugins, SameDirectoryTwiceLoadsOnce) {
  Registry reg;
  const std::string path = std::string(LZ_TEST_PLUGIN_GOOD_DIR) + ":" + LZ_TEST_PLUGIN_GOOD_DIR;
  ASSERT_TRUE(reg.configure(with_path(path)).ok());
  int n = 0;
  for (const auto& p : reg.plugins()) n += p.path == LZ_TEST_PLUGIN_GOOD_FILE;
  EXPECT_EQ(n, 1);
  EXPECT_EQ(problem_for(reg, LZ_TEST_PLUGIN_GOOD_FILE), nullptr);
}

TEST(RegistryPlugins, SecondCopyOfAComponentIsRefusedNamingTheFirst) {
  test::TempDir dir;
  const std::string copy = dir.path() + "/testplug_copy.so";
  std::filesystem::copy_file(LZ_TEST_PLUGIN_GOOD_FILE, copy);
  Registry reg;
  const std::string path = std::string(LZ_TEST_PLUGIN_GOOD_DIR) + ":" + dir.path();
  ASSERT_TRUE(reg.configure(with_path(path)).ok());
  EXPECT_EQ(reg.framework("coll")->find("testplug")->origin, LZ_TEST_PLUGIN_GOOD_FILE);
  const PluginProblem* p = problem_for(reg, copy);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->message, HasSubstr("already provided by " LZ_TEST_PLUGIN_GOOD_FILE));
  EXPECT_EQ(plugin_for(reg, copy), nullptr);
}

TEST(RegistryPlugins, PluginCannotReplaceARegisteredComponent) {
  // A plugin naming a component that is already registered (here added by hand
  // before configure, as a built-in would be) is refused; the first one stays.
  Registry reg;
  auto lp = load_plugin(LZ_TEST_PLUGIN_GOOD_FILE, &Registry::interface_version_of);
  ASSERT_TRUE(lp.ok()) << lp.status().message();
  ASSERT_TRUE(reg.add_component(lp->desc, "by hand").ok());
  ASSERT_TRUE(reg.configure(with_path(LZ_TEST_PLUGIN_GOOD_DIR)).ok());
  EXPECT_EQ(reg.framework("coll")->find("testplug")->origin, "by hand");
  const PluginProblem* p = problem_for(reg, LZ_TEST_PLUGIN_GOOD_FILE);
  ASSERT_NE(p, nullptr);
  EXPECT_THAT(p->message, HasSubstr("already provided by by hand"));
}

}  // namespace
}  // namespace lz
