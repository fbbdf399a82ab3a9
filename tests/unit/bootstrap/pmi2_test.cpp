// runtime/bootstrap/pmi2_wire.h and pmi2_bootstrap.h. The process manager
// is a thread of the test speaking PMI-2 over a socketpair, as Slurm's
// slurmstepd answers on PMI_FD (its replies copied from what srun
// --mpi=pmi2 gave on this machine), with a job of one rank.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/pmi2_bootstrap.h"
#include "bootstrap/pmi2_wire.h"

namespace lz::rt {
namespace {

TEST(Pmi2Wire, CommandsAreFramedByASixCharacterLength) {
  const std::string f = pmi2::command("kvs-get", {{"key", "0/a"}, {"srcid", "0"}});
  EXPECT_EQ(f, "28    cmd=kvs-get;key=0/a;srcid=0;");
  EXPECT_EQ(pmi2::command("kvs-fence", {}), "14    cmd=kvs-fence;");
}

TEST(Pmi2Wire, RepliesParseIntoPairsAndJunkIsNamed) {
  auto r = pmi2::parse("cmd=kvs-get-response;rc=0;found=TRUE;value=0a=;");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ((*r)["cmd"], "kvs-get-response");
  EXPECT_EQ((*r)["found"], "TRUE");
  EXPECT_EQ((*r)["value"], "0a=") << "only the first '=' separates";
  auto bad = pmi2::parse("cmd=x;garbage");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("garbage"), std::string::npos) << bad.status().to_string();
}

TEST(Pmi2Wire, ProcessMappingGivesEveryRanksNode) {
  auto block = pmi2::node_of_rank("(vector,(0,2,2))", 4);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(*block, (std::vector<int>{0, 0, 1, 1}));
  auto cyclic = pmi2::node_of_rank("(vector,(0,2,1))", 4);  // srun -m cyclic: the pattern repeats
  ASSERT_TRUE(cyclic.ok());
  EXPECT_EQ(*cyclic, (std::vector<int>{0, 1, 0, 1}));
  auto uneven = pmi2::node_of_rank("(vector,(0,1,3),(1,1,1))", 4);
  ASSERT_TRUE(uneven.ok());
  EXPECT_EQ(*uneven, (std::vector<int>{0, 0, 0, 1}));
  for (const char* bad : {"", "(vector)", "(vector,(0,2))", "(vector,(0,0,1))", "(list,(0,1,1))"}) {
    auto r = pmi2::node_of_rank(bad, 2);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' was taken";
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("PMI_process_mapping"), std::string::npos);
    }
  }
  EXPECT_FALSE(pmi2::node_of_rank("(vector,(0,2,2))", 3).ok()) << "4 ranks mapped for a job of 3";
}

TEST(Pmi2Wire, HexCarriesEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  auto back = pmi2::from_hex(pmi2::to_hex(all));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, all);
  EXPECT_FALSE(pmi2::from_hex("abc").ok());
  EXPECT_FALSE(pmi2::from_hex("zz").ok());
}

// The process manager of a one-rank job: answers until the client closes,
// records every command's name.
class FakeManager {
 public:
  explicit FakeManager(std::string version_reply) : reply_(std::move(version_reply)) {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    client_fd = sv[0];
    fd_ = sv[1];
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeManager() {
    join();
    close(fd_);
  }
  // Waits until the manager has seen the client close (or abort).
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  int client_fd = -1;
  std::vector<std::string> seen;
  std::string abort_msg;

 private:
  bool read_n(char* at, size_t n) {
    while (n > 0) {
      ssize_t k = read(fd_, at, n);
      if (k <= 0) return false;
      at += k;
      n -= static_cast<size_t>(k);
    }
    return true;
  }
  void answer(const std::string& body) {
    char len[8];
    snprintf(len, sizeof len, "%-6zu", body.size());
    const std::string f = std::string(len, 6) + body;
    (void)!write(fd_, f.data(), f.size());
  }
  void serve() {
    std::string line;
    for (char c = 0; c != '\n' && read_n(&c, 1);) line.push_back(c);
    (void)!write(fd_, reply_.data(), reply_.size());
    if (reply_.find("pmi_version=2") == std::string::npos) return;
    std::map<std::string, std::string> kvs, pending;
    for (;;) {
      char len[7] = {};
      if (!read_n(len, 6)) return;
      std::string body(static_cast<size_t>(std::atoi(len)), '\0');
      if (!read_n(body.data(), body.size())) return;
      auto cmd = pmi2::parse(body);
      if (!cmd.ok()) return;
      const std::string name = (*cmd)["cmd"];
      seen.push_back(name);
      if (name == "fullinit")
        answer(
            "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=1;appnum=-1;debugged=FALSE;"
            "pmiverbose=FALSE;");
      else if (name == "info-getjobattr")
        answer("cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,1));");
      else if (name == "kvs-put") {
        EXPECT_LE((*cmd)["key"].size(), 64u) << "Slurm's keys hold 64 characters";
        EXPECT_LE((*cmd)["value"].size(), 1024u) << "Slurm's values hold 1024 characters";
        pending[(*cmd)["key"]] = (*cmd)["value"];
        answer("cmd=kvs-put-response;rc=0;");
      } else if (name == "kvs-fence") {
        kvs.insert(pending.begin(), pending.end());
        pending.clear();
        answer("cmd=kvs-fence-response;rc=0;");
      } else if (name == "kvs-get") {
        auto it = kvs.find((*cmd)["key"]);
        answer(it == kvs.end() ? "cmd=kvs-get-response;rc=0;found=FALSE;"
                               : "cmd=kvs-get-response;rc=0;found=TRUE;value=" + it->second + ";");
      } else if (name == "abort") {
        abort_msg = (*cmd)["msg"];
        return;
      } else if (name == "finalize") {
        answer("cmd=finalize-response;rc=0;");
      }
    }
  }

  std::string reply_;
  int fd_ = -1;
  std::thread thread_;
};

TEST(Pmi2Bootstrap, LearnsTheJobAndCarriesLongBinaryEntries) {
  FakeManager pm("cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n");
  {
    auto b = Pmi2Bootstrap::connect(pm.client_fd, 0, "7.0");
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    const JobInfo& job = (*b)->job();
    EXPECT_EQ(job.rank, 0);
    EXPECT_EQ(job.size, 1);
    EXPECT_EQ(job.local_size, 1);
    EXPECT_EQ(job.node_of_rank, (std::vector<uint64_t>{0}));
    ASSERT_EQ(job.hostname_of_rank.size(), 1u);
    EXPECT_EQ(job.hostname_of_rank[0], job.hostname);
    EXPECT_EQ(job.job_id, "pmi2-7-0") << "a job id that can name files";
    EXPECT_FALSE((*b)->secret().empty());

    std::string big;
    for (int i = 0; i < 3000; ++i) big.push_back(static_cast<char>(i * 7 + (i >> 8)));
    const std::string long_key(80, 'k');  // past Slurm's 64: hashed
    ASSERT_TRUE((*b)->put("transport.x.addr", big).ok());
    ASSERT_TRUE((*b)->put(long_key, "v;=w").ok());
    ASSERT_TRUE((*b)->put("empty", "").ok());
    ASSERT_TRUE((*b)->fence().ok());
    auto got = (*b)->get(0, "transport.x.addr");
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(*got, big) << "3000 bytes in chunks of a server's values";
    auto lk = (*b)->get(0, long_key);
    ASSERT_TRUE(lk.ok()) << lk.status().to_string();
    EXPECT_EQ(*lk, "v;=w");
    auto empty = (*b)->get(0, "empty");
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(*empty, "");
    auto missing = (*b)->get(0, "nothing");
    EXPECT_EQ(missing.status().code(), Code::kNotFound);
    EXPECT_EQ((*b)->get(1, "x").status().code(), Code::kInvalidArgument);
    ASSERT_TRUE((*b)->finalize().ok());
    ASSERT_TRUE((*b)->abort(3, "it; broke").ok());
  }
  pm.join();  // the destructor closed PMI_FD
  EXPECT_EQ(pm.seen.front(), "fullinit");
  EXPECT_EQ(pm.abort_msg, "code 3: it, broke") << "';' would end the value";
}

TEST(Pmi2Bootstrap, AManagerThatIsNotPmi2IsRefusedWithTheFix) {
  FakeManager pm("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  auto b = Pmi2Bootstrap::connect(pm.client_fd, 0, "7.0");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), Code::kUnavailable);
  EXPECT_NE(b.status().message().find("srun --mpi=pmi2"), std::string::npos) << b.status().to_string();
  close(pm.client_fd);
}

}  // namespace
}  // namespace lz::rt
