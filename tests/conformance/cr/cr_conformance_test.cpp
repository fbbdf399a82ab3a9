// cr conformance: written once, instantiated over every cr component the
// Registry knows (built-in or plugin), cr/none being the reference. Checks
// cr.h's contract: a sane descriptor, query() gives a module or a reason,
// capabilities that match which optional methods answer kUnimplemented, the
// init/finalize rules, and for a back end with kCapCoreImage and kCapRestore
// (cr/criu as root) a save/restore round trip of a small forked child and a
// truncated image refused naming the file; for a back end with kCapAppLevel
// (cr/app) registered variables saved by two ranks and loaded back, on the
// same and (kCapChangeRanks) another rank count with halo cells filled, a
// rank-private variable refused by name on another count, and a truncated
// rank file refused naming the file. A missing capability, or a component
// that declines here, is a skip with the reason.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/param_store.h"
#include "lazarus/registry.h"

namespace lz::conformance {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kToken = 0x5eed1e55c0ffee42ull;

std::vector<std::string> registered_cr() {
  Registry reg;  // built-in components; configure() adds plugins from component_path
  ConfigOptions o;
  o.read_user_file = false;
  if (!reg.configure(o).ok()) {
    Registry plain;  // a broken user/environment setting must not hide the built-in list
    return plain.framework("cr")->component_names();
  }
  return reg.framework("cr")->component_names();
}

std::string read_all(int fd) {
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

int wait_status(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

class CrConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    reg_ = std::make_unique<Registry>();
    ConfigOptions o;
    o.read_user_file = false;
    o.mca = {{"cr", GetParam()}};
    Status s = reg_->configure(o);
    ASSERT_TRUE(s.ok()) << s.to_string();
    char tmpl[] = "/tmp/lz-cr-conformance.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // A fresh module of GetParam() in *out, or a skip naming why it declined.
  void ModuleOrSkip(std::unique_ptr<cr::Module>* out) {
    out->reset();
    auto picked = reg_->framework("cr")->select(reg_->query_context());
    if (!picked.ok()) GTEST_SKIP() << "cr/" << GetParam() << " cannot run here: " << picked.status().message();
    auto* m = dynamic_cast<cr::Module*>(picked->front().module.get());
    ASSERT_NE(m, nullptr) << "cr/" << GetParam() << "'s module is not a cr::Module";
    picked->front().module.release();
    out->reset(m);
  }

  // A module that can round-trip a process (initialised) in *out, or a skip
  // naming the missing capability.
  void CoreImageModuleOrSkip(std::unique_ptr<cr::Module>* out) {
    std::unique_ptr<cr::Module> m;
    ModuleOrSkip(&m);
    if (!m) return;
    const uint64_t need = cr::kCapCoreImage | cr::kCapRestore;
    if ((m->capabilities() & need) != need)
      GTEST_SKIP() << "cr/" << GetParam() << " lacks the capability `"
                   << cr::capability_names(need & ~m->capabilities()) << "`: no process image to round-trip";
    Status s = m->init();
    ASSERT_TRUE(s.ok()) << s.to_string();
    *out = std::move(m);
  }

  // Forks a child that saves itself into dir_ with checkpoint() and exits 10
  // when it continues, 42 (printing the token) when restored. Returns the
  // continued child's exit code.
  int SaveAForkedChild(cr::Module& m) {
    int out[2];
    if (pipe(out) != 0) return -1;
    pid_t child = fork();
    if (child == 0) {
      // Own session (CRIU cannot save a process whose session leader is
      // outside its PID namespace); stdout/stderr a pipe to the test; no other
      // descriptor, so nothing in the image refers to this test process.
      setsid();
      int null_fd = open("/dev/null", O_RDONLY);
      dup2(null_fd, 0);
      dup2(out[1], 1);
      dup2(out[1], 2);
      syscall(SYS_close_range, 3u, ~0u, 0);
      volatile uint64_t token = kToken;
      auto r = m.checkpoint({dir_, 1, 0, /*terminate=*/false});
      if (!r.ok()) {
        dprintf(2, "checkpoint: %s\n", r.status().message().c_str());
        _exit(3);
      }
      if (*r == cr::Outcome::kContinued) _exit(10);
      dprintf(1, "restarted %llx\n", static_cast<unsigned long long>(token));
      _exit(42);
    }
    close(out[1]);
    std::string said = read_all(out[0]);
    close(out[0]);
    const int rc = wait_status(child);
    if (rc != 10) ADD_FAILURE() << "the saved child exited " << rc << ": " << said;
    return rc;
  }

  std::unique_ptr<Registry> reg_;
  std::string dir_;
};

TEST_P(CrConformance, DescriptorIsSane) {
  const ComponentEntry* e = reg_->framework("cr")->find(GetParam());
  ASSERT_NE(e, nullptr);
  const ComponentDescriptor* d = e->desc;
  EXPECT_EQ(d->magic, kComponentMagic);
  EXPECT_EQ(d->abi_version, kComponentAbiVersion);
  EXPECT_STREQ(d->framework, "cr");
  EXPECT_EQ(GetParam(), d->name);
  EXPECT_EQ(d->interface_version, cr::kInterfaceVersion);
  EXPECT_TRUE(d->version != nullptr && *d->version);
  EXPECT_TRUE(d->description != nullptr && *d->description);
  EXPECT_NE(d->query, nullptr);
  EXPECT_TRUE(reg_->params().is_registered("cr_" + GetParam() + "_priority"));
  for (size_t i = 0; i < d->num_params; ++i) {
    const ParamSpec& p = d->params[i];
    EXPECT_TRUE(p.help != nullptr && *p.help) << p.name << " has no help";
    EXPECT_TRUE(reg_->params().is_registered("cr_" + GetParam() + "_" + p.name)) << p.name;
  }
}

TEST_P(CrConformance, QueryGivesAModuleOrAReason) {
  for (const QueryResult& q : reg_->framework("cr")->query_all(reg_->query_context(true))) {
    if (GetParam() != q.entry->desc->name) continue;
    if (q.module) EXPECT_NE(dynamic_cast<cr::Module*>(q.module.get()), nullptr);
    else EXPECT_FALSE(q.declined.ok() || q.declined.message().empty()) << "declined without a reason";
    return;
  }
  ADD_FAILURE() << "query_all() did not answer for cr/" << GetParam();
}

TEST_P(CrConformance, CapabilitiesMatchTheOptionalMethods) {
  std::unique_ptr<cr::Module> m;
  ModuleOrSkip(&m);
  if (!m) return;
  const uint64_t caps = m->capabilities();
  ASSERT_TRUE(m->init().ok());
  SCOPED_TRACE("capabilities: " + cr::capability_names(caps));

  // restore(): a missing image is refused by name, or the method is absent.
  cr::RestoreRequest req;
  req.dir = dir_ + "/no-such-image";
  auto pid = m->restore(req);
  ASSERT_FALSE(pid.ok()) << "restored a process from a directory that does not exist";
  if (caps & cr::kCapRestore) {
    EXPECT_NE(pid.status().code(), Code::kUnimplemented) << pid.status().to_string();
    EXPECT_NE(pid.status().message().find(req.dir), std::string::npos) << pid.status().message();
  } else {
    EXPECT_EQ(pid.status().code(), Code::kUnimplemented) << pid.status().to_string();
  }

  // checkpoint_process(): without a directory it is refused, or absent.
  auto saved = m->checkpoint_process({-1, ""});
  ASSERT_FALSE(saved.ok()) << "checkpoint_process() without a directory succeeded";
  const Code want = (caps & cr::kCapSingleProcess) ? Code::kInvalidArgument : Code::kUnimplemented;
  EXPECT_EQ(saved.status().code(), want) << saved.status().to_string();

  // A core image is restarted with restore() (the launcher, cr_restart).
  if (caps & cr::kCapCoreImage) {
    EXPECT_TRUE(caps & cr::kCapRestore) << "a core-image back end must restore";
  }
  // A back end that saves nothing must say so rather than claim an outcome.
  if (!(caps & (cr::kCapCoreImage | cr::kCapAppLevel))) {
    auto r = m->checkpoint({dir_, 1, 0, false});
    EXPECT_FALSE(r.ok()) << "cr/" << GetParam() << " saves nothing but checkpoint() gave an outcome";
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
  EXPECT_TRUE(m->finalize().ok());
}

TEST_P(CrConformance, InitAndFinalizeAreIdempotent) {
  std::unique_ptr<cr::Module> m;
  ModuleOrSkip(&m);
  if (!m) return;
  Status first = m->init();
  Status second = m->init();
  EXPECT_EQ(first.code(), second.code()) << first.to_string() << " then " << second.to_string();
  EXPECT_TRUE(m->finalize().ok());
  EXPECT_TRUE(m->finalize().ok()) << "a second finalize() must be harmless";
  std::unique_ptr<cr::Module> fresh;
  ModuleOrSkip(&fresh);
  if (!fresh) return;
  EXPECT_TRUE(fresh->finalize().ok()) << "finalize() without init() must be harmless";
}

TEST_P(CrConformance, ForkedChildRoundTrip) {
  std::unique_ptr<cr::Module> m;
  CoreImageModuleOrSkip(&m);
  if (!m) return;
  ASSERT_EQ(SaveAForkedChild(*m), 10);

  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  cr::RestoreRequest req;
  req.dir = dir_;
  req.rank = 0;
  req.stdout_fd = out[1];
  req.stderr_fd = out[1];
  auto pid = m->restore(req);
  close(out[1]);
  ASSERT_TRUE(pid.ok()) << pid.status().to_string();
  std::string said = read_all(out[0]);
  close(out[0]);
  EXPECT_EQ(wait_status(*pid), 42) << said;
  char want[64];
  snprintf(want, sizeof want, "restarted %llx", static_cast<unsigned long long>(kToken));
  EXPECT_NE(said.find(want), std::string::npos) << "the restored child said: " << said;
  EXPECT_TRUE(m->finalize().ok());
}

TEST_P(CrConformance, TruncatedImageIsRefusedNamingTheFile) {
  std::unique_ptr<cr::Module> m;
  CoreImageModuleOrSkip(&m);
  if (!m) return;
  ASSERT_EQ(SaveAForkedChild(*m), 10);
  // The largest image file loses its second half.
  std::string victim;
  uintmax_t size = 0;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.is_regular_file() && e.path().extension() == ".img" && e.file_size() > size) victim = e.path().string(), size = e.file_size();
  ASSERT_FALSE(victim.empty());
  ASSERT_EQ(truncate(victim.c_str(), static_cast<off_t>(size / 2)), 0);

  cr::RestoreRequest req;
  req.dir = dir_;
  auto pid = m->restore(req);
  if (pid.ok()) {
    wait_status(*pid);
    FAIL() << "restored a process from an image whose " << victim << " was truncated";
  }
  EXPECT_NE(pid.status().message().find(fs::path(victim).filename().string()), std::string::npos)
      << pid.status().to_string();
  EXPECT_TRUE(m->finalize().ok());
}

// ---- application-level back ends (kCapAppLevel)

// The global 6x5 int32 grid every AppLevel case saves: g(i, j) = 100 i + j.
constexpr int kRows = 6, kCols = 5;
int32_t grid_value(int64_t i, int64_t j) { return static_cast<int32_t>(100 * i + j); }

// One rank's registered state on `np` ranks: rows split in blocks, one halo
// row above and below in the allocation; a replicated double scalar (taken
// from rank 0 on another rank count); a rank-private array of two ints
// (different on every rank: refused on another rank count).
struct AppRank {
  std::vector<int32_t> grid;
  double step = 0;
  int32_t seed[2] = {0, 0};
  std::vector<cr::AppVariable> vars;
  int64_t first = 0, rows = 0;

  AppRank(int rank, int np, const lz_datatype_s* i32, const lz_datatype_s* f64) {
    first = kRows * rank / np;
    rows = kRows * (rank + 1) / np - first;
    grid.assign(static_cast<size_t>((rows + 2) * kCols), -1);
    cr::AppVariable g;
    g.name = "grid";
    g.addr = grid.data();
    g.count = static_cast<int64_t>(grid.size());
    g.type = i32;
    g.global_shape = {kRows, kCols};
    g.owned_start = {first, 0};
    g.owned_shape = {rows, kCols};
    g.alloc_shape = {rows + 2, kCols};
    g.alloc_offset = {1, 0};
    vars.push_back(g);
    vars.push_back({"step", &step, 1, f64, {}, {}, {}, {}, {}});
    vars.push_back({"seed", seed, 2, i32, {}, {}, {}, {}, {}});
  }
  void fill(int rank) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < kCols; ++j) grid[static_cast<size_t>((r + 1) * kCols + j)] = grid_value(first + r, j);
    step = 0.125;
    seed[0] = 1000 + rank;
    seed[1] = rank;
  }
  // Every allocated cell inside the global array holds g(i, j), halo included.
  std::string check() const {
    for (int64_t r = 0; r < rows + 2; ++r) {
      const int64_t i = first - 1 + r;
      if (i < 0 || i >= kRows) continue;
      for (int64_t j = 0; j < kCols; ++j) {
        const int32_t got = grid[static_cast<size_t>(r * kCols + j)];
        if (got != grid_value(i, j))
          return "grid(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(got) +
                 ", saved " + std::to_string(grid_value(i, j));
      }
    }
    return step == 0.125 ? "" : "step = " + std::to_string(step) + ", saved 0.125";
  }
};

class CrAppConformance : public CrConformance {
 protected:
  // An initialised module with kCapAppLevel in *out, or a skip.
  void AppModuleOrSkip(std::unique_ptr<cr::Module>* out) {
    std::unique_ptr<cr::Module> m;
    ModuleOrSkip(&m);
    if (!m) return;
    if (!(m->capabilities() & cr::kCapAppLevel))
      GTEST_SKIP() << "cr/" << GetParam() << " lacks the capability `app-level`: it saves no registered variables";
    Status s = m->init();
    ASSERT_TRUE(s.ok()) << s.to_string();
    *out = std::move(m);
  }
  // Two ranks save their part of snapshot 1 at safe point 7 into dir_.
  void SaveTwoRanks(cr::Module& m) {
    for (int rank = 0; rank < 2; ++rank) {
      AppRank st(rank, 2, &i32_, &f64_);
      st.fill(rank);
      const std::string dir = dir_ + "/rank." + std::to_string(rank);
      ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
      auto bytes = m.save_variables({dir, "conformance", 1, 7, rank, 2, &st.vars});
      ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
      EXPECT_GT(*bytes, 0u);
    }
  }
  lz_datatype_s i32_{lz::dt::Basic::kInt32};
  lz_datatype_s f64_{lz::dt::Basic::kDouble};
};

TEST_P(CrAppConformance, VariablesRoundTripOnTheSameRankCount) {
  std::unique_ptr<cr::Module> m;
  AppModuleOrSkip(&m);
  if (!m) return;
  SaveTwoRanks(*m);
  auto info = m->describe_snapshot(dir_);
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_EQ(info->nranks, 2);
  EXPECT_EQ(info->safe_point, 7u);
  for (int rank = 0; rank < 2; ++rank) {
    AppRank st(rank, 2, &i32_, &f64_);
    Status s = m->load_variables({dir_, rank, 2, &st.vars});
    ASSERT_TRUE(s.ok()) << "rank " << rank << ": " << s.to_string();
    EXPECT_EQ(st.check(), "") << "rank " << rank;
    EXPECT_EQ(st.seed[0], 1000 + rank) << "rank " << rank << "'s private variable";
    EXPECT_EQ(st.seed[1], rank) << "rank " << rank << "'s private variable";
  }
  EXPECT_TRUE(m->finalize().ok());
}

TEST_P(CrAppConformance, DecomposedArrayIsRedistributedOnAnotherRankCount) {
  std::unique_ptr<cr::Module> m;
  AppModuleOrSkip(&m);
  if (!m) return;
  if (!(m->capabilities() & cr::kCapChangeRanks))
    GTEST_SKIP() << "cr/" << GetParam() << " lacks the capability `change-ranks`";
  SaveTwoRanks(*m);
  for (int np : {1, 3}) {
    for (int rank = 0; rank < np; ++rank) {
      AppRank st(rank, np, &i32_, &f64_);
      std::vector<cr::AppVariable> shared(st.vars.begin(), st.vars.begin() + 2);  // grid, step
      Status s = m->load_variables({dir_, rank, np, &shared});
      ASSERT_TRUE(s.ok()) << "2 -> " << np << " ranks, rank " << rank << ": " << s.to_string();
      EXPECT_EQ(st.check(), "") << "2 -> " << np << " ranks, rank " << rank;
    }
  }
  // The rank-private `seed` differs between the saving ranks: refused by name.
  AppRank st(0, 3, &i32_, &f64_);
  Status s = m->load_variables({dir_, 0, 3, &st.vars});
  ASSERT_FALSE(s.ok()) << "a rank-private variable was loaded on another rank count";
  EXPECT_NE(s.message().find("seed"), std::string::npos) << s.to_string();
  EXPECT_TRUE(m->finalize().ok());
}

TEST_P(CrAppConformance, TruncatedRankFileIsRefusedNamingTheFile) {
  std::unique_ptr<cr::Module> m;
  AppModuleOrSkip(&m);
  if (!m) return;
  SaveTwoRanks(*m);
  std::string victim;
  for (const auto& e : fs::directory_iterator(dir_ + "/rank.1"))
    if (e.is_regular_file()) victim = e.path().string();
  ASSERT_FALSE(victim.empty()) << "rank 1 wrote no file";
  ASSERT_EQ(truncate(victim.c_str(), static_cast<off_t>(fs::file_size(victim) / 2)), 0);
  AppRank st(1, 2, &i32_, &f64_);
  Status s = m->load_variables({dir_, 1, 2, &st.vars});
  ASSERT_FALSE(s.ok()) << "loaded variables from a truncated " << victim;
  EXPECT_NE(s.message().find(fs::path(victim).filename().string()), std::string::npos) << s.to_string();
  EXPECT_TRUE(m->finalize().ok());
}

TEST_P(CrAppConformance, WithoutTheCapabilityTheMethodsAreAbsent) {
  std::unique_ptr<cr::Module> m;
  ModuleOrSkip(&m);
  if (!m) return;
  if (m->capabilities() & cr::kCapAppLevel) GTEST_SKIP() << "cr/" << GetParam() << " has `app-level` (checked above)";
  std::vector<cr::AppVariable> none;
  EXPECT_EQ(m->save_variables({dir_, "x", 1, 1, 0, 1, &none}).status().code(), Code::kUnimplemented);
  EXPECT_EQ(m->describe_snapshot(dir_).status().code(), Code::kUnimplemented);
  EXPECT_EQ(m->load_variables({dir_, 0, 1, &none}).code(), Code::kUnimplemented);
}

INSTANTIATE_TEST_SUITE_P(All, CrConformance, ::testing::ValuesIn(registered_cr()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(All, CrAppConformance, ::testing::ValuesIn(registered_cr()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace lz::conformance
