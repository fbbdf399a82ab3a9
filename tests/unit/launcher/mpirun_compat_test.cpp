// mpirun's compatibility layer (issue 42) on its own: the command line's
// words in Open MPI's and Hydra's spellings and MPMD contexts
// (runtime/cli/run_args.h), the programs' placement (launcher/job_plan.h),
// and Open MPI's and MPICH's tuning names (launcher/foreign_params.h).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "launcher/foreign_params.h"
#include "launcher/job_plan.h"
#include "launcher/launcher.h"
#include "run_args.h"
#include "temp_dir.h"

namespace lz {
namespace {

using cli::RunWords;
using cli::split_run_words;
using launcher::AppContext;
using launcher::ForeignParams;
using launcher::HostEntry;
using launcher::JobPlan;
using launcher::RunOptions;
using Words = std::vector<std::string>;

TEST(RunWords, SingleDashSpellingsBecomeTheirDoubleDashForms) {
  auto w = split_run_words({"-np", "4", "-host", "a,b", "-genv", "X", "1", "-ppn", "2", "-wdir", "/w", "./p", "-np"});
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->contexts.size(), 1u);
  EXPECT_EQ(w->contexts[0].options,
            (Words{"--np", "4", "--host", "a,b", "--genv", "X", "1", "--ppn", "2", "--wdir", "/w"}));
  EXPECT_EQ(w->contexts[0].program, (Words{"./p", "-np"})) << "the program's own arguments are left alone";
  w = split_run_words({"-machinefile", "hf", "-f", "hf2", "-l", "-c", "3", "./p"});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->contexts[0].options, (Words{"--hostfile", "hf", "--hostfile", "hf2", "--prepend-rank", "--np", "3"}));
}

TEST(RunWords, AnUnknownSingleDashWordIsAnErrorNamingIt) {
  auto w = split_run_words({"-bogus", "./p"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("'-bogus'"), std::string::npos) << w.status().message();
  w = split_run_words({"--np"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("needs 1 value"), std::string::npos) << w.status().message();
}

TEST(RunWords, ColonsSeparatePrograms) {
  auto w = split_run_words({"--timeout", "9", "-np", "2", "./a", "x", ":", "-n", "1", "-env", "K", "v", "./b"});
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->contexts.size(), 2u);
  EXPECT_EQ(w->contexts[0].program, (Words{"./a", "x"}));
  EXPECT_EQ(w->contexts[1].options, (Words{"-n", "1", "--env", "K", "v"}));
  EXPECT_EQ(w->contexts[1].program, (Words{"./b"}));
  auto bad = split_run_words({"-np", "1", "./a", ":", "--timeout", "5", "./b"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("applies to the whole job"), std::string::npos) << bad.status().message();
  bad = split_run_words({"-np", "1", "./a", ":", "-np", "1"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no program after ':'"), std::string::npos);
}

TEST(RunWords, AppfileConfigfileAndTuneFiles) {
  lz::test::TempDir d;
  const std::string app = d.write("appfile", "# two programs\n-np 2 ./a 'x y'\n-np 1 -x K=v ./b\n");
  auto w = split_run_words({"--timeout", "9", "--app", app});
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->contexts.size(), 2u);
  EXPECT_EQ(w->contexts[0].options, (Words{"--timeout", "9", "--np", "2"})) << "the job's options join the first";
  EXPECT_EQ(w->contexts[0].program, (Words{"./a", "x y"}));
  EXPECT_EQ(w->contexts[1].options, (Words{"--np", "1", "-x", "K=v"}));
  w = split_run_words({"-configfile", app});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->contexts.size(), 2u);
  auto bad = split_run_words({"--app", app, "./c"});
  ASSERT_FALSE(bad.ok()) << "a program on the command line beside an appfile";
  const std::string tune = d.write("tune", "-np 3\n-x A=1\n");
  w = split_run_words({"--tune", tune, "./p"});
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->contexts[0].options, (Words{"--np", "3", "-x", "A=1"}));
  EXPECT_EQ(cli::shell_words("a 'b c' \"d\\\"e\" f\\ g # comment").value(), (Words{"a", "b c", "d\"e", "f g"}));
}

RunOptions two_programs(int np_a, int np_b) {
  RunOptions o;
  o.apps = {AppContext{.argv = {"./a"}, .np = np_a}, AppContext{.argv = {"./b"}, .np = np_b}};
  return o;
}

std::vector<std::string> hosts_of(const JobPlan& p) {
  std::vector<std::string> h;
  for (const auto& x : p.placement) h.push_back(x.host);
  return h;
}

TEST(JobPlan, ProgramsFollowEachOtherOnTheFreeSlots) {
  auto p = launcher::plan_job(two_programs(2, 3), {{"h1", 2}, {"h2", 2}});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(hosts_of(*p), (Words{"h1", "h1", "h2", "h2", "h1"})) << "b takes h2's slots, then oversubscribes";
  EXPECT_EQ(p->rank_app, (std::vector<int>{0, 0, 1, 1, 1}));
  EXPECT_EQ(p->placement[4].local_rank, 2);
  EXPECT_EQ(p->placement[4].local_size, 3);
  RunOptions o = two_programs(1, 2);
  o.apps[1].hosts = {"h3:2"};
  p = launcher::plan_job(o, {{"h1", 2}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(hosts_of(*p), (Words{"h1", "h3", "h3"})) << "a program's own -host";
  EXPECT_EQ(p->hosts.size(), 2u);
  RunOptions none = two_programs(1, 0);
  EXPECT_FALSE(launcher::plan_job(none, {{"h1", 2}}).ok()) << "an MPMD program needs -np";
}

TEST(JobPlan, PerNodeRankByNodeAndNolocal) {
  RunOptions o;
  o.apps = {AppContext{.argv = {"./a"}}};
  o.npernode = 1;
  auto p = launcher::plan_job(o, {{"h1", 4}, {"h2", 4}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(hosts_of(*p), (Words{"h1", "h2"})) << "-N 1 without -np: one on every host";
  o.npernode = 0;
  o.map_by = "ppr:2:node";
  o.apps[0].np = 3;
  p = launcher::plan_job(o, {{"h1", 4}, {"h2", 4}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(hosts_of(*p), (Words{"h1", "h1", "h2"}));
  o.map_by = "slot:PE=2";
  p = launcher::plan_job(o, {{"h1", 4}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->cpus_per_rank, 2);
  o.map_by = "";
  o.rank_by = "node";
  o.apps[0].np = 4;
  p = launcher::plan_job(o, {{"h1", 2}, {"h2", 2}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(hosts_of(*p), (Words{"h1", "h2", "h1", "h2"}));
  o.nolocal = true;
  o.rank_by = "";
  p = launcher::plan_job(o, {{"localhost", 2}, {"h2", 2}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(hosts_of(*p), (Words{"h2", "h2", "h2", "h2"}));
  auto bad = launcher::plan_job(o, {{"localhost", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--nolocal"), std::string::npos);
  o.nolocal = false;
  o.map_by = "ppr:x:node";
  bad = launcher::plan_job(o, {{"h1", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'x' is not a positive count"), std::string::npos) << bad.status().message();
}

TEST(ForeignParams, OpenMpiNamesMapOrAreWarnedAbout) {
  ForeignParams f;
  f.add_ompi("btl", "self,vader,openib", "--mca");
  f.add_ompi("pml", "ucx", "--mca");
  f.add_ompi("plm_rsh_agent", "ssh -q : rsh", "--mca");
  f.add_ompi("btl_tcp_if_include", "eth0", "--mca");
  f.add_ompi("coll_tuned_allreduce_algorithm", "6", "--mca");
  f.add_ompi("hwloc_base_binding_policy", "core:overload-allowed", "--mca");
  f.add_ompi("orte_base_help_aggregate", "0", "OMPI_MCA_orte_base_help_aggregate");
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(f.mca(), (std::vector<P>{{"transport", "self,shm"},
                                     {"transport", "ucx,self"},
                                     {"launch_agent", "ssh -q"},
                                     {"transport_tcp_if_include", "eth0"},
                                     {"coll_tuned_allreduce_algorithm", "rabenseifner"}}));
  EXPECT_EQ(f.options().bind_to, "core");
  ASSERT_EQ(f.warnings().size(), 2u);
  EXPECT_NE(f.warnings()[0].find("openib has no Lazarus counterpart"), std::string::npos) << f.warnings()[0];
  EXPECT_NE(f.warnings()[1].find("orte_base_help_aggregate 0 (OMPI_MCA_orte_base_help_aggregate) has no effect"),
            std::string::npos)
      << f.warnings()[1];
  EXPECT_TRUE(ForeignParams::is_ompi_name("btl"));
  EXPECT_TRUE(ForeignParams::is_ompi_name("rmaps_base_mapping_policy"));
  EXPECT_FALSE(ForeignParams::is_ompi_name("transprot")) << "a misspelled Lazarus name stays the store's to refuse";
}

TEST(ForeignParams, AMisspelledOpenMpiNameIsWarnedWithTheNameItResembles) {
  ForeignParams f;
  f.add_ompi("btl_tcp_if_inclde", "lo", "--mca");
  EXPECT_TRUE(f.mca().empty());
  ASSERT_EQ(f.warnings().size(), 1u);
  EXPECT_NE(f.warnings()[0].find("has no effect here: Lazarus has no counterpart of it (did you mean "
                                 "'btl_tcp_if_include'?)"),
            std::string::npos)
      << f.warnings()[0];
}

TEST(ForeignParams, EnvironmentAndParameterFiles) {
  lz::test::TempDir d;
  const std::string conf = d.write("mca-params.conf", "# Open MPI\nbtl = tcp,self\n\nrmaps_base_oversubscribe = 1\n");
  ForeignParams f;
  ASSERT_TRUE(f.add_file(conf).ok());
  std::string a = "OMPI_MCA_pml=ob1", b = "MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=ring", c = "MPIR_CVAR_DEBUG_SUMMARY=1",
              other = "PATH=/bin";
  char* env[] = {a.data(), b.data(), c.data(), other.data(), nullptr};
  f.add_environment(env);
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(f.mca(), (std::vector<P>{{"transport", "tcp,self"}, {"coll_tuned_allgather_algorithm", "ring"}}));
  EXPECT_EQ(f.options().oversubscribe, 1);
  ASSERT_EQ(f.warnings().size(), 2u);
  EXPECT_NE(f.warnings()[0].find("pml ob1 (OMPI_MCA_pml) has no effect"), std::string::npos);
  EXPECT_NE(f.warnings()[1].find("MPIR_CVAR_DEBUG_SUMMARY=1"), std::string::npos);
  const std::string bad = d.write("bad.conf", "btl tcp\n");
  Status s = f.add_file(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad.conf:1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lz
