// Selection: include/exclude lists, priorities and their override, single- and
// multi-select, declining components; on a Framework of fake components and on
// the real Registry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/framework.h"
#include "lazarus/frameworks/coll.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/frameworks/transport.h"
#include "lazarus/param_store.h"
#include "lazarus/registry.h"
#include "temp_dir.h"

namespace lz {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Names = std::vector<std::string>;

// A module that remembers what its component's query() was given.
class FakeModule final : public Module {
 public:
  explicit FakeModule(const QueryContext& ctx)
      : prefix(ctx.param_prefix), listing_only(ctx.listing_only), rank(ctx.rank), size(ctx.size) {}
  std::string prefix;
  bool listing_only;
  int rank, size;
};

StatusOr<std::unique_ptr<Module>> query_usable(const QueryContext& ctx) {
  return std::unique_ptr<Module>(new FakeModule(ctx));
}
StatusOr<std::unique_ptr<Module>> query_no_widget(const QueryContext&) {
  return Unavailable("no widget on this host");
}
StatusOr<std::unique_ptr<Module>> query_no_gadget(const QueryContext&) {
  return Unavailable("gadget driver not loaded");
}
StatusOr<std::unique_ptr<Module>> query_null(const QueryContext&) { return std::unique_ptr<Module>(); }
// Says what it found, for `lazarus info`, then declines.
StatusOr<std::unique_ptr<Module>> query_details(const QueryContext& ctx) {
  if (ctx.details) {
    ctx.details->push_back("library 1.2.3");
    ctx.details->push_back("devices: d0, d1");
  }
  return Unavailable("not asked for");
}

constexpr uint32_t kV = 1;
// Components of the test framework "tfw": a(10) b(20) c(30) usable, u(100) and
// g(5) decline. u outranks everything, so "priority decides" is only right if
// declining components are skipped.
const ComponentDescriptor kA = {kComponentMagic, kComponentAbiVersion, "tfw", "a", kV, "1", "fake a", 10,
                                nullptr, 0, &query_usable, nullptr};
const ComponentDescriptor kB = {kComponentMagic, kComponentAbiVersion, "tfw", "b", kV, "1", "fake b", 20,
                                nullptr, 0, &query_usable, nullptr};
const ComponentDescriptor kC = {kComponentMagic, kComponentAbiVersion, "tfw", "c", kV, "1", "fake c", 30,
                                nullptr, 0, &query_usable, nullptr};
const ComponentDescriptor kU = {kComponentMagic, kComponentAbiVersion, "tfw", "u", kV, "1", "declines", 100,
                                nullptr, 0, &query_no_widget, nullptr};
const ComponentDescriptor kG = {kComponentMagic, kComponentAbiVersion, "tfw", "g", kV, "1", "declines too", 5,
                                nullptr, 0, &query_no_gadget, nullptr};
const ComponentDescriptor kNull = {kComponentMagic, kComponentAbiVersion, "tfw", "nullmod", kV, "1", "bad", 1,
                                   nullptr, 0, &query_null, nullptr};
const ComponentDescriptor kNoQuery = {kComponentMagic, kComponentAbiVersion, "tfw", "noquery", kV, "1", "bad", 1,
                                      nullptr, 0, nullptr, nullptr};
const ComponentDescriptor kDetails = {kComponentMagic, kComponentAbiVersion, "tfw", "details", kV, "1", "details",
                                      1, nullptr, 0, &query_details, nullptr};
const ComponentDescriptor kForeign = {kComponentMagic, kComponentAbiVersion, "other", "a", kV, "1", "foreign", 1,
                                      nullptr, 0, &query_usable, nullptr};
const ComponentDescriptor kADuplicate = {kComponentMagic, kComponentAbiVersion, "tfw", "a", kV, "2", "dup", 1,
                                         nullptr, 0, &query_usable, nullptr};

const ComponentDescriptor* const kStandard[] = {&kA, &kB, &kC, &kU, &kG};

Names names_of(const std::vector<QueryResult>& rs) {
  Names out;
  for (const auto& r : rs) out.emplace_back(r.entry->desc->name);
  return out;
}

// A framework "tfw" of the given kind with `comps`, and a ParamStore holding
// its selection parameter and the components' priority parameters, as the
// Registry would register them.
class SelectionTest : public ::testing::Test {
 protected:
  void build(SelectKind kind, std::vector<const ComponentDescriptor*> comps = {std::begin(kStandard),
                                                                                std::end(kStandard)}) {
    fw_ = std::make_unique<Framework>("tfw", kind, kV, "test framework");
    ParamSpec sel{"tfw", ParamType::kList, "", "selection", 1};
    ASSERT_TRUE(ps_.register_param("tfw", sel, "framework tfw").ok());
    for (const auto* d : comps) {
      ASSERT_TRUE(fw_->add(d, "test").ok()) << d->name;
      prio_defaults_.push_back(std::to_string(d->default_priority));
      ParamSpec prio{"priority", ParamType::kInt, prio_defaults_.back().c_str(), "priority", 5};
      ASSERT_TRUE(ps_.register_param(fw_->priority_param(d->name), prio, std::string("tfw/") + d->name).ok());
    }
  }
  void set(const std::string& name, const std::string& value) {
    ps_.set(name, value, Source{SourceKind::kCommandLine, "--mca " + name});
    Status s = ps_.resolve();
    ASSERT_TRUE(s.ok()) << s.message();
  }
  QueryContext ctx() const {
    QueryContext c;
    c.params = &ps_;
    return c;
  }
  StatusOr<std::vector<QueryResult>> select() const { return fw_->select(ctx()); }
  Names select_names() const {
    auto r = select();
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? names_of(*r) : Names{"<error>"};
  }
  std::string select_error(Code code = Code::kInvalidArgument) const {
    auto r = select();
    EXPECT_FALSE(r.ok()) << "selected " << (r.ok() ? ::testing::PrintToString(names_of(*r)) : "");
    if (r.ok()) return "";
    EXPECT_EQ(r.status().code(), code) << r.status().to_string();
    return r.status().message();
  }

  std::vector<std::string> prio_defaults_;
  ParamStore ps_;
  std::unique_ptr<Framework> fw_;
};

TEST_F(SelectionTest, FrameworkKnowsItsComponents) {
  build(SelectKind::kSingle);
  EXPECT_EQ(fw_->name(), "tfw");
  EXPECT_EQ(fw_->kind(), SelectKind::kSingle);
  EXPECT_EQ(fw_->interface_version(), kV);
  EXPECT_EQ(fw_->description(), "test framework");
  EXPECT_EQ(fw_->component_names(), (Names{"a", "b", "c", "u", "g"}));
  ASSERT_NE(fw_->find("b"), nullptr);
  EXPECT_EQ(fw_->find("b")->desc, &kB);
  EXPECT_EQ(fw_->find("b")->origin, "test");
  EXPECT_EQ(fw_->find("zz"), nullptr);
  EXPECT_EQ(fw_->priority_param("b"), "tfw_b_priority");
}

TEST_F(SelectionTest, AddRefusesForeignAndDuplicateComponents) {
  build(SelectKind::kSingle);
  Status foreign = fw_->add(&kForeign, "somewhere.so");
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.message(), HasSubstr("somewhere.so"));
  EXPECT_THAT(foreign.message(), HasSubstr("'other'"));
  Status dup = fw_->add(&kADuplicate, "dup.so");
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.message(), HasSubstr("tfw/a"));
  EXPECT_THAT(dup.message(), HasSubstr("already provided by test"));
  EXPECT_EQ(fw_->components().size(), 5u);
  EXPECT_EQ(fw_->find("a")->desc, &kA);
}

TEST_F(SelectionTest, SingleSelectPicksTheHighestPriorityUsableComponent) {
  build(SelectKind::kSingle);
  auto r = select();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const QueryResult& q = r->front();
  EXPECT_STREQ(q.entry->desc->name, "c");
  EXPECT_EQ(q.priority, 30);
  ASSERT_NE(q.module, nullptr);
  EXPECT_TRUE(q.declined.ok());
  // The module is the one c's query() built, with c's parameter prefix.
  auto* m = dynamic_cast<FakeModule*>(q.module.get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->prefix, "tfw_c_");
}

TEST_F(SelectionTest, PriorityParameterOverridesTheDefault) {
  build(SelectKind::kSingle);
  set("tfw_a_priority", "50");
  auto r = select();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_STREQ(r->front().entry->desc->name, "a");
  EXPECT_EQ(r->front().priority, 50);
}

TEST_F(SelectionTest, NegativePriorityRanksLast) {
  build(SelectKind::kMulti);
  set("tfw_c_priority", "-1");
  EXPECT_EQ(select_names(), (Names{"b", "a", "c"}));
}

TEST_F(SelectionTest, DescriptorPriorityWhenNoParameterIsRegistered) {
  fw_ = std::make_unique<Framework>("tfw", SelectKind::kMulti, kV, "test framework");
  for (const auto* d : kStandard) ASSERT_TRUE(fw_->add(d, "test").ok());
  EXPECT_EQ(select_names(), (Names{"c", "b", "a"}));
}

TEST_F(SelectionTest, EqualPrioritiesKeepRegistrationOrder) {
  build(SelectKind::kMulti);
  set("tfw_a_priority", "30");
  EXPECT_EQ(select_names(), (Names{"a", "c", "b"}));
}

TEST_F(SelectionTest, IncludeListPicksTheNamedComponent) {
  build(SelectKind::kSingle);
  set("tfw", "b");
  EXPECT_EQ(select_names(), Names{"b"});
}

TEST_F(SelectionTest, SingleSelectIncludeOfSeveralTakesTheBestOfThem) {
  build(SelectKind::kSingle);
  set("tfw", "a,b");
  EXPECT_EQ(select_names(), Names{"b"});
}

TEST_F(SelectionTest, ExcludeListDropsTheNamedComponents) {
  build(SelectKind::kSingle);
  set("tfw", "^c");
  EXPECT_EQ(select_names(), Names{"b"});
}

TEST_F(SelectionTest, ExcludeAppliesToEveryNameInTheList) {
  build(SelectKind::kMulti);
  set("tfw", "^c,b");
  EXPECT_EQ(select_names(), Names{"a"});
}

TEST_F(SelectionTest, ExcludeWithCaretOnEveryName) {
  build(SelectKind::kMulti);
  set("tfw", "^c, ^a");
  EXPECT_EQ(select_names(), Names{"b"});
}

TEST_F(SelectionTest, ExcludingAnUnavailableComponentIsFine) {
  build(SelectKind::kSingle);
  set("tfw", "^u");
  EXPECT_EQ(select_names(), Names{"c"});
}

TEST_F(SelectionTest, MixedIncludeAndExcludeIsAnError) {
  build(SelectKind::kSingle);
  set("tfw", "a,^b");
  std::string m = select_error();
  EXPECT_THAT(m, HasSubstr("'tfw'"));
  EXPECT_THAT(m, HasSubstr("mixes"));
  EXPECT_THAT(m, HasSubstr("--mca tfw"));  // where the setting came from
  EXPECT_FALSE(fw_->filter(ps_).ok());
}

TEST_F(SelectionTest, UnknownIncludedNameSuggestsAndListsKnown) {
  build(SelectKind::kSingle);
  set("tfw", "bx");
  std::string m = select_error();
  EXPECT_THAT(m, HasSubstr("'bx'"));
  EXPECT_THAT(m, HasSubstr("did you mean 'b'"));
  EXPECT_THAT(m, HasSubstr("known: a, b, c, u, g"));
}

TEST_F(SelectionTest, UnknownExcludedNameIsAnErrorToo) {
  build(SelectKind::kMulti);
  set("tfw", "^zzzzzz");
  std::string m = select_error();
  EXPECT_THAT(m, HasSubstr("'zzzzzz'"));
  EXPECT_THAT(m, Not(HasSubstr("did you mean")));
  EXPECT_THAT(m, HasSubstr("known: a, b, c, u, g"));
}

TEST_F(SelectionTest, IncludedButUnavailableIsAHardErrorWithTheReason) {
  build(SelectKind::kSingle);
  set("tfw", "u");
  std::string m = select_error(Code::kUnavailable);
  EXPECT_THAT(m, HasSubstr("'u'"));
  EXPECT_THAT(m, HasSubstr("requested"));
  EXPECT_THAT(m, HasSubstr("no widget on this host"));
  EXPECT_THAT(m, HasSubstr("--mca tfw"));
}

TEST_F(SelectionTest, SingleSelectIncludeWithOneUnavailableIsStillAnError) {
  // The user asked for both by name; the one that cannot run must be reported,
  // not silently replaced.
  build(SelectKind::kSingle);
  set("tfw", "a,u");
  EXPECT_THAT(select_error(Code::kUnavailable), HasSubstr("no widget on this host"));
}

TEST_F(SelectionTest, MultiSelectReturnsEveryUsableComponentBestFirst) {
  build(SelectKind::kMulti);
  auto r = select();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(names_of(*r), (Names{"c", "b", "a"}));  // u and g decline
  for (const auto& q : *r) {
    ASSERT_NE(q.module, nullptr);
    EXPECT_EQ(dynamic_cast<FakeModule&>(*q.module).prefix, std::string("tfw_") + q.entry->desc->name + "_");
  }
  EXPECT_EQ((*r)[0].priority, 30);
  EXPECT_EQ((*r)[2].priority, 10);
}

TEST_F(SelectionTest, MultiSelectIncludeReturnsExactlyThoseBestFirst) {
  build(SelectKind::kMulti);
  set("tfw", "a,b");
  EXPECT_EQ(select_names(), (Names{"b", "a"}));
}

TEST_F(SelectionTest, MultiSelectIncludeOfAnUnavailableComponentIsAnError) {
  build(SelectKind::kMulti);
  set("tfw", "a,g");
  std::string m = select_error(Code::kUnavailable);
  EXPECT_THAT(m, HasSubstr("'g'"));
  EXPECT_THAT(m, HasSubstr("gadget driver not loaded"));
}

TEST_F(SelectionTest, NoneUsableIsUnavailableWithEveryReason) {
  build(SelectKind::kMulti, {&kU, &kG});
  std::string m = select_error(Code::kUnavailable);
  EXPECT_THAT(m, HasSubstr("no usable tfw component"));
  EXPECT_THAT(m, HasSubstr("u: no widget on this host"));
  EXPECT_THAT(m, HasSubstr("g: gadget driver not loaded"));
}

TEST_F(SelectionTest, NoneUsableInSingleSelectToo) {
  build(SelectKind::kSingle, {&kU});
  EXPECT_THAT(select_error(Code::kUnavailable), HasSubstr("no widget on this host"));
}

TEST_F(SelectionTest, ExcludingEveryUsableComponentLeavesNone) {
  build(SelectKind::kMulti);
  set("tfw", "^a,b,c");
  EXPECT_THAT(select_error(Code::kUnavailable), HasSubstr("no usable tfw component"));
}

TEST_F(SelectionTest, EmptyFrameworkSelectsNothing) {
  build(SelectKind::kMulti, {});
  EXPECT_THAT(select_error(Code::kUnavailable), HasSubstr("no usable tfw component"));
}

TEST_F(SelectionTest, QueryWithoutAModuleOrFunctionDeclines) {
  build(SelectKind::kMulti, {&kA, &kNull, &kNoQuery});
  EXPECT_EQ(select_names(), Names{"a"});
  auto all = fw_->query_all(ctx());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].module, nullptr);
  EXPECT_FALSE(all[1].declined.ok());
  EXPECT_THAT(all[1].declined.message(), HasSubstr("no module"));
  EXPECT_EQ(all[2].module, nullptr);
  EXPECT_THAT(all[2].declined.message(), HasSubstr("no query function"));
}

TEST_F(SelectionTest, SelectWithoutParametersIsAnInternalError) {
  build(SelectKind::kSingle);
  auto r = fw_->select(QueryContext{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInternal);
}

TEST_F(SelectionTest, QueryAllReportsEveryComponentWithReasonAndExclusion) {
  build(SelectKind::kMulti);
  set("tfw", "^b");
  auto all = fw_->query_all(ctx());
  ASSERT_EQ(names_of(all), (Names{"a", "b", "c", "u", "g"}));  // registration order, nothing dropped
  EXPECT_FALSE(all[0].excluded);
  EXPECT_TRUE(all[1].excluded);
  EXPECT_NE(all[1].module, nullptr);  // excluded, yet still queried for `lazarus info`
  EXPECT_EQ(all[3].module, nullptr);
  EXPECT_EQ(all[3].declined.code(), Code::kUnavailable);
  EXPECT_EQ(all[3].declined.message(), "no widget on this host");
  EXPECT_EQ(all[3].priority, 100);
  EXPECT_FALSE(all[3].excluded);
}

// QueryContext::details: lines a component gives `lazarus info` when
// listing, kept in the QueryResult whether it declines or not; never asked
// for (null) in a job's selection.
TEST_F(SelectionTest, DetailsAreCollectedOnlyWhenListing) {
  build(SelectKind::kMulti, {&kA, &kDetails});
  QueryContext c = ctx();
  c.listing_only = true;
  auto all = fw_->query_all(c);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(all[0].details.empty());
  EXPECT_EQ(all[1].details, (Names{"library 1.2.3", "devices: d0, d1"}));
  EXPECT_EQ(all[1].declined.message(), "not asked for");
  for (const auto& r : fw_->query_all(ctx())) EXPECT_TRUE(r.details.empty()) << r.entry->desc->name;
}

TEST_F(SelectionTest, QueryAllNeverFailsOnABadSelectionParameter) {
  build(SelectKind::kMulti);
  set("tfw", "a,^b");
  auto all = fw_->query_all(ctx());
  EXPECT_EQ(all.size(), 5u);
}

TEST_F(SelectionTest, ContextReachesTheQuery) {
  build(SelectKind::kSingle);
  QueryContext c = ctx();
  c.listing_only = true;
  c.rank = 3;
  c.size = 8;
  c.param_prefix = "ignored_";
  auto r = fw_->select(c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto& m = dynamic_cast<FakeModule&>(*r->front().module);
  EXPECT_TRUE(m.listing_only);
  EXPECT_EQ(m.rank, 3);
  EXPECT_EQ(m.size, 8);
  EXPECT_EQ(m.prefix, "tfw_c_");  // always the component's own prefix
}

TEST(SelectionFilter, Admits) {
  SelectionFilter all;
  EXPECT_TRUE(all.admits("x"));
  SelectionFilter inc{SelectionFilter::Mode::kInclude, {"a", "b"}};
  EXPECT_TRUE(inc.admits("a"));
  EXPECT_FALSE(inc.admits("c"));
  SelectionFilter exc{SelectionFilter::Mode::kExclude, {"a"}};
  EXPECT_FALSE(exc.admits("a"));
  EXPECT_TRUE(exc.admits("c"));
}

// --- the real Registry ---------------------------------------------------------------

char* kNoEnv[] = {nullptr};

// Reads nothing from the machine: no default or user file, no environment, no plugins.
ConfigOptions hermetic() {
  ConfigOptions o;
  o.read_default_file = false;
  o.read_user_file = false;
  o.envp = kNoEnv;
  o.load_plugins = false;
  return o;
}

// Fake cr components added to the real registry.
const ComponentDescriptor kCrFake = {LZ_COMPONENT_HEADER(cr, fakeok, cr::kInterfaceVersion), "1", "usable", 70,
                                     nullptr, 0, &query_usable, nullptr};
const ComponentDescriptor kCrDeclines = {LZ_COMPONENT_HEADER(cr, fakeno, cr::kInterfaceVersion), "1", "declines",
                                         80, nullptr, 0, &query_no_widget, nullptr};
constexpr ParamSpec kFakeTransportParams[] = {
    {"depth", ParamType::kInt, "3", "queue depth", 4},
};
const ComponentDescriptor kTransportFake = {LZ_COMPONENT_HEADER(transport, fakenet, transport::kInterfaceVersion),
                                           "1", "usable", 1, kFakeTransportParams,
                                           std::size(kFakeTransportParams), &query_usable, nullptr};
const ComponentDescriptor kNowhere = {LZ_COMPONENT_HEADER(nowhere, x, 1), "1", "unknown framework", 1,
                                      nullptr, 0, &query_usable, nullptr};

TEST(Registry, HasTheFourFrameworksAndTheBuiltIns) {
  Registry reg;
  Names fws;
  for (const auto& f : reg.frameworks()) fws.push_back(f->name());
  EXPECT_EQ(fws, (Names{"cr", "crcp", "transport", "coll"}));
  EXPECT_EQ(reg.framework("cr")->kind(), SelectKind::kSingle);
  EXPECT_EQ(reg.framework("crcp")->kind(), SelectKind::kSingle);
  EXPECT_EQ(reg.framework("transport")->kind(), SelectKind::kMulti);
  EXPECT_EQ(reg.framework("coll")->kind(), SelectKind::kMulti);
  EXPECT_EQ(reg.framework("nonesuch"), nullptr);
  EXPECT_NE(reg.framework("cr")->find("none"), nullptr);
  EXPECT_NE(reg.framework("cr")->find("criu"), nullptr);
  EXPECT_NE(reg.framework("transport")->find("self"), nullptr);
  EXPECT_EQ(reg.framework("cr")->find("none")->origin, "built-in");
  for (const char* p : {"cr", "crcp", "transport", "coll", "component_path", "log_level", "cr_criu_priority",
                        "cr_none_priority", "cr_criu_binary", "transport_self_priority"})
    EXPECT_TRUE(reg.params().is_registered(p)) << p;
  EXPECT_EQ(reg.params().find("cr_criu_priority")->owner, "cr/criu");
  EXPECT_EQ(reg.params().find("cr")->owner, "framework cr");
  // Priority parameters default to the descriptor's priority.
  for (const auto& f : reg.frameworks())
    for (const auto& e : f->components())
      EXPECT_EQ(reg.params().get_int(f->priority_param(e.desc->name)), e.desc->default_priority) << e.desc->name;
}

TEST(Registry, InterfaceVersions) {
  EXPECT_EQ(Registry::interface_version_of("cr"), cr::kInterfaceVersion);
  EXPECT_EQ(Registry::interface_version_of("crcp"), crcp::kInterfaceVersion);
  EXPECT_EQ(Registry::interface_version_of("transport"), transport::kInterfaceVersion);
  EXPECT_EQ(Registry::interface_version_of("coll"), coll::kInterfaceVersion);
  EXPECT_EQ(Registry::interface_version_of("nonesuch"), 0u);
  Registry reg;
  for (const auto& f : reg.frameworks())
    EXPECT_EQ(f->interface_version(), Registry::interface_version_of(f->name().c_str()));
}

TEST(Registry, UnknownCrComponentOnTheCommandLineFailsConfigure) {
  Registry reg;
  ConfigOptions o = hermetic();
  o.mca = {{"cr", "nonesuch"}};
  Status s = reg.configure(o);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'nonesuch'"));
  EXPECT_THAT(s.message(), HasSubstr("known: "));
  EXPECT_THAT(s.message(), HasSubstr("none"));
  EXPECT_THAT(s.message(), HasSubstr("criu"));
}

TEST(Registry, CrNoneSelectsNone) {
  Registry reg;
  ConfigOptions o = hermetic();
  o.mca = {{"cr", "none"}};
  Status s = reg.configure(o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(reg.params().find("cr")->source.kind, SourceKind::kCommandLine);
  EXPECT_EQ(reg.params().find("cr")->source.where, "--mca cr");
  auto sel = reg.framework("cr")->select(reg.query_context());
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  EXPECT_EQ(names_of(*sel), Names{"none"});
}

TEST(Registry, ExcludingNoneFromCrLeavesOnlyWhatCanRun) {
  Registry reg;
  ConfigOptions o = hermetic();
  o.mca = {{"cr", "^none"}};
  ASSERT_TRUE(reg.configure(o).ok());
  auto sel = reg.framework("cr")->select(reg.query_context());
  // criu may or may not run on this machine; none must not be picked either way.
  if (sel.ok()) {
    EXPECT_THAT(names_of(*sel), Not(::testing::Contains("none")));
  } else {
    EXPECT_EQ(sel.status().code(), Code::kUnavailable);
    EXPECT_THAT(sel.status().message(), HasSubstr("criu"));
  }
}

TEST(Registry, EnvironmentSelectionThroughSyntheticEnvp) {
  Registry reg;
  ConfigOptions o = hermetic();
  char e[] = "LZ_MCA_transport=self";
  char* envp[] = {e, nullptr};
  o.envp = envp;
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_EQ(reg.params().get_list("transport"), Names{"self"});
  EXPECT_EQ(reg.params().find("transport")->source.kind, SourceKind::kEnv);
  auto sel = reg.framework("transport")->select(reg.query_context());
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  EXPECT_EQ(names_of(*sel), Names{"self"});
}

// The program's own settings (MPI_T_cvar_write before MPI_Init) win over
// the command line and the environment, and a bad one is named by its source.
TEST(Registry, ProgramSettingsWinOverEveryOtherSource) {
  Registry reg;
  ConfigOptions o = hermetic();
  char e[] = "LZ_MCA_transport=self";
  char* envp[] = {e, nullptr};
  o.envp = envp;
  o.mca = {{"transport", "shm,self"}};
  o.api = {{"transport", "tcp,self"}};
  o.api_source = "MPI_T_cvar_write";
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_EQ(reg.params().get_list("transport"), (Names{"tcp", "self"}));
  EXPECT_EQ(reg.params().find("transport")->source.kind, SourceKind::kApi);
  EXPECT_EQ(reg.params().find("transport")->source.describe(), "set by MPI_T_cvar_write");

  Registry bad;
  ConfigOptions b = hermetic();
  b.api = {{"log_level", "loud"}};
  b.api_source = "MPI_T_cvar_write";
  Status s = bad.configure(b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'log_level' (set by MPI_T_cvar_write)"), std::string::npos) << s.message();
}

TEST(Registry, FakeComponentsTakePartInSelection) {
  Registry reg;
  // Exclude the built-ins so that what they can do on this machine does not matter.
  std::string exclude = "^";
  for (const auto& n : reg.framework("cr")->component_names()) exclude += n + ",";
  ASSERT_TRUE(reg.add_component(&kCrFake, "test").ok());
  ASSERT_TRUE(reg.add_component(&kCrDeclines, "test").ok());
  EXPECT_TRUE(reg.params().is_registered("cr_fakeok_priority"));
  EXPECT_EQ(reg.params().get_int("cr_fakeno_priority"), 80);
  ConfigOptions o = hermetic();
  o.mca = {{"cr", exclude}};
  ASSERT_TRUE(reg.configure(o).ok());
  auto sel = reg.framework("cr")->select(reg.query_context());
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  // fakeno (80) outranks fakeok (70) but declines.
  EXPECT_EQ(names_of(*sel), Names{"fakeok"});
  EXPECT_EQ(dynamic_cast<FakeModule&>(*sel->front().module).prefix, "cr_fakeok_");
}

TEST(Registry, PriorityOverrideOnTheCommandLine) {
  Registry reg;
  ASSERT_TRUE(reg.add_component(&kCrFake, "test").ok());
  ConfigOptions o = hermetic();
  o.mca = {{"cr_none_priority", "1000"}};
  ASSERT_TRUE(reg.configure(o).ok());
  auto sel = reg.framework("cr")->select(reg.query_context());
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  EXPECT_EQ(names_of(*sel), Names{"none"});
  EXPECT_EQ(sel->front().priority, 1000);
}

TEST(Registry, RequestedComponentThatDeclinesIsAHardErrorWithItsReason) {
  Registry reg;
  ASSERT_TRUE(reg.add_component(&kCrDeclines, "test").ok());
  ConfigOptions o = hermetic();
  o.mca = {{"cr", "fakeno"}};
  ASSERT_TRUE(reg.configure(o).ok());  // the name is known; whether it can run is select()'s business
  auto sel = reg.framework("cr")->select(reg.query_context());
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.status().code(), Code::kUnavailable);
  EXPECT_THAT(sel.status().message(), HasSubstr("'fakeno'"));
  EXPECT_THAT(sel.status().message(), HasSubstr("no widget on this host"));
}

TEST(Registry, ComponentParametersAreRegisteredWithPrefixAndSettable) {
  Registry reg;
  ASSERT_TRUE(reg.add_component(&kTransportFake, "test").ok());
  ConfigOptions o = hermetic();
  // Only these two, so that other built-in transports do not change the answer.
  o.mca = {{"transport_fakenet_depth", "9"}, {"transport", "fakenet,self"}};
  ASSERT_TRUE(reg.configure(o).ok());
  const Param* p = reg.params().find("transport_fakenet_depth");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->owner, "transport/fakenet");
  EXPECT_EQ(p->default_text, "3");
  EXPECT_EQ(reg.params().get_int("transport_fakenet_depth"), 9);
  auto sel = reg.framework("transport")->select(reg.query_context());
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  // Every usable transport, best first: self (100) leads, fakenet (1) comes last.
  Names got = names_of(*sel);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got.front(), "self");
  EXPECT_EQ(got.back(), "fakenet");
  for (size_t i = 1; i < sel->size(); ++i) EXPECT_GE((*sel)[i - 1].priority, (*sel)[i].priority) << got[i];
}

constexpr ParamSpec kBadDefaultParams[] = {
    {"depth", ParamType::kSize, "deep", "queue depth", 4},
};
const ComponentDescriptor kTransportBadDefault = {
    LZ_COMPONENT_HEADER(transport, baddef, transport::kInterfaceVersion), "1", "bad table", 1, kBadDefaultParams,
    std::size(kBadDefaultParams), &query_usable, nullptr};
constexpr ParamSpec kDupParams[] = {
    {"depth", ParamType::kInt, "1", "queue depth", 4},
    {"depth", ParamType::kInt, "2", "queue depth again", 4},
};
const ComponentDescriptor kTransportDupParams = {
    LZ_COMPONENT_HEADER(transport, dupparam, transport::kInterfaceVersion), "1", "dup table", 1, kDupParams,
    std::size(kDupParams), &query_usable, nullptr};

TEST(Registry, ComponentWithABadParameterTableIsNotAddedAtAll) {
  Registry reg;
  for (const ComponentDescriptor* d : {&kTransportBadDefault, &kTransportDupParams}) {
    SCOPED_TRACE(d->name);
    Status s = reg.add_component(d, "test");
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr(std::string("transport_") + d->name + "_depth"));
    EXPECT_EQ(reg.framework("transport")->find(d->name), nullptr);
    EXPECT_FALSE(reg.params().is_registered(std::string("transport_") + d->name + "_priority"));
  }
  EXPECT_FALSE(reg.params().is_registered("transport_dupparam_depth"));
  // A correct component of the same name can still be added afterwards.
  ASSERT_TRUE(reg.add_component(&kTransportFake, "test").ok());
}

TEST(Registry, AddComponentRefusesUnknownFrameworkAndDuplicates) {
  Registry reg;
  Status s = reg.add_component(&kNowhere, "x.so");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'nowhere'"));
  EXPECT_THAT(s.message(), HasSubstr("x.so"));
  ASSERT_TRUE(reg.add_component(&kCrFake, "first").ok());
  Status dup = reg.add_component(&kCrFake, "second");
  ASSERT_FALSE(dup.ok());
  EXPECT_THAT(dup.message(), HasSubstr("already provided by first"));
}

TEST(Registry, UnknownParameterFailsConfigureWithSuggestion) {
  Registry reg;
  ConfigOptions o = hermetic();
  o.mca = {{"cr_criu_priorty", "5"}};
  Status s = reg.configure(o);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'cr_criu_priorty'"));
  EXPECT_THAT(s.message(), HasSubstr("did you mean 'cr_criu_priority'"));
}

TEST(Registry, ConfigureTwiceIsRefused) {
  Registry reg;
  ASSERT_TRUE(reg.configure(hermetic()).ok());
  Status s = reg.configure(hermetic());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInternal);
}

TEST(Registry, RegisterParamsForTheRuntime) {
  Registry reg;
  static constexpr ParamSpec kRt[] = {{"rt_x", ParamType::kSize, "1k", "x", 1}};
  ASSERT_TRUE(reg.register_params(kRt, 1, "runtime").ok());
  EXPECT_EQ(reg.params().find("rt_x")->owner, "runtime");
  EXPECT_TRUE(reg.register_params(kRt, 1, "runtime").ok());  // the same table again: skipped
  EXPECT_FALSE(reg.register_params(kRt, 1, "runtime/other").ok());  // another owner's name
}

TEST(Registry, MissingConfigFileIsAnError) {
  test::TempDir dir;
  Registry reg;
  ConfigOptions o = hermetic();
  o.config_files = {dir.path() + "/missing.yaml"};
  Status s = reg.configure(o);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(dir.path() + "/missing.yaml"));
}

TEST(Registry, MissingDefaultFileIsSkipped) {
  test::TempDir dir;
  Registry reg;
  ConfigOptions o = hermetic();
  o.read_default_file = true;
  o.default_file = dir.path() + "/no-default.yaml";
  ASSERT_TRUE(reg.configure(o).ok());
  EXPECT_TRUE(reg.files_read().empty());
}

// The documented order, every level at once: default file < user file <
// --config < environment < command line.
TEST(Registry, SourcesStackInTheDocumentedOrder) {
  test::TempDir dir;
  const std::string def = dir.write("default.yaml", "t_p1: 1\nt_p2: 1\nt_p3: 1\nt_p4: 1\nt_p5: 1\n");
  const std::string user = dir.write("xdg/lazarus/lazarus.yaml", "t_p2: 2\nt_p3: 2\nt_p4: 2\nt_p5: 2\n");
  const std::string cfg = dir.write("cfg.yaml", "t_p3: 3\nt_p4: 3\nt_p5: 3\n");
  // user_config_file() follows XDG_CONFIG_HOME.
  const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
  std::string saved = old_xdg ? old_xdg : "";
  setenv("XDG_CONFIG_HOME", (dir.path() + "/xdg").c_str(), 1);
  EXPECT_EQ(Registry::user_config_file(), user);

  Registry reg;
  static constexpr ParamSpec kP[] = {
      {"t_p0", ParamType::kInt, "0", "p0", 1}, {"t_p1", ParamType::kInt, "0", "p1", 1},
      {"t_p2", ParamType::kInt, "0", "p2", 1}, {"t_p3", ParamType::kInt, "0", "p3", 1},
      {"t_p4", ParamType::kInt, "0", "p4", 1}, {"t_p5", ParamType::kInt, "0", "p5", 1}};
  ASSERT_TRUE(reg.register_params(kP, std::size(kP), "test").ok());
  ConfigOptions o = hermetic();
  o.read_default_file = true;
  o.default_file = def;
  o.read_user_file = true;
  o.config_files = {cfg};
  char e1[] = "LZ_MCA_t_p4=4";
  char e2[] = "LZ_MCA_t_p5=4";
  char* envp[] = {e1, e2, nullptr};
  o.envp = envp;
  o.mca = {{"t_p5", "5"}};
  Status s = reg.configure(o);
  if (old_xdg) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CONFIG_HOME");
  ASSERT_TRUE(s.ok()) << s.message();

  EXPECT_EQ(reg.files_read(), (Names{def, user, cfg}));
  const SourceKind kinds[] = {SourceKind::kDefault, SourceKind::kFile, SourceKind::kFile,
                              SourceKind::kFile,    SourceKind::kEnv,  SourceKind::kCommandLine};
  const std::string wheres[] = {"default", def + ":1", user + ":1", cfg + ":1", "LZ_MCA_t_p4", "--mca t_p5"};
  for (int i = 0; i <= 5; ++i) {
    const std::string name = "t_p" + std::to_string(i);
    EXPECT_EQ(reg.params().get_int(name), i) << name;
    EXPECT_EQ(reg.params().find(name)->source.kind, kinds[i]) << name;
    EXPECT_EQ(reg.params().find(name)->source.where, wheres[i]) << name;
  }
}

TEST(Registry, UserConfigFileFallsBackToHome) {
  const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
  const char* old_home = std::getenv("HOME");
  std::string saved_xdg = old_xdg ? old_xdg : "", saved_home = old_home ? old_home : "";
  unsetenv("XDG_CONFIG_HOME");
  setenv("HOME", "/some/home", 1);
  std::string f = Registry::user_config_file();
  setenv("XDG_CONFIG_HOME", "", 1);  // empty counts as unset
  std::string g = Registry::user_config_file();
  if (old_xdg) setenv("XDG_CONFIG_HOME", saved_xdg.c_str(), 1);
  else unsetenv("XDG_CONFIG_HOME");
  if (old_home) setenv("HOME", saved_home.c_str(), 1);
  else unsetenv("HOME");
  EXPECT_EQ(f, "/some/home/.config/lazarus/lazarus.yaml");
  EXPECT_EQ(g, "/some/home/.config/lazarus/lazarus.yaml");
}

TEST(Registry, QueryContextPointsAtTheParameters) {
  Registry reg;
  QueryContext c = reg.query_context(true);
  EXPECT_EQ(c.params, &reg.params());
  EXPECT_TRUE(c.listing_only);
  EXPECT_FALSE(reg.query_context().listing_only);
}

}  // namespace
}  // namespace lz
