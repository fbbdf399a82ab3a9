// Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
// from the real encoders, so the seeds are valid inputs of today's formats:
//   build/tests/bin/lz_fuzz_make_seeds tests/fuzz/corpus
// Run it again when a format changes, and commit what it writes.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lazarus/appfmt/writer.h"
#include "oob/frame.h"
#include "oob/messages.h"
#include "oob/restart_info.h"
#include "snapshot/commit_record.h"
#include "snapshot/manifest.h"
#include "tcp_frame.h"
#include "tcp_handshake.h"

namespace fs = std::filesystem;
using namespace lz;

namespace {

std::string root;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(root + "/" + target);
  std::ofstream(root + "/" + target + "/" + name, std::ios::binary) << bytes;
}

std::string tcp_data_frame(const std::string& payload) {
  unsigned char h[transport::tcp::kFrameHeaderBytes];
  transport::tcp::encode_frame_header(static_cast<uint32_t>(payload.size()), h);
  return std::string(reinterpret_cast<char*>(h), sizeof h) + payload;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  root = argv[1];
  // OOB: a job size byte, then frames as a rank and a launcher send them.
  {
    oob::HelloMsg hello;
    hello.job_id = "job42";
    oob::WelcomeMsg w{"job42", 2, {0, 0}, {"node1", "node1"}};
    oob::FenceMsg fence{3, {{"addr.0", "tcp://127.0.0.1:4000"}, {"shm.0", "seg"}}};
    oob::FenceDoneMsg done{3, {{0, "addr.0", "x"}, {1, "addr.1", "y"}}};
    oob::CrBookmarksMsg bm{5, {{10, 1000}, {3, 300}}};
    std::string s(1, '\x02');
    s += oob::encode_frame(oob::MsgType::kHello, oob::encode_hello(hello));
    s += oob::encode_frame(oob::MsgType::kAuth, oob::encode_auth({1, 0, {}}));
    put("oob_stream", "handshake", s);
    put("oob_stream", "welcome_fence",
        std::string(1, '\x02') + oob::encode_frame(oob::MsgType::kWelcome, oob::encode_welcome(w)) +
            oob::encode_frame(oob::MsgType::kFence, oob::encode_fence(fence)) +
            oob::encode_frame(oob::MsgType::kFenceDone, oob::encode_fence_done(done)));
    put("oob_stream", "checkpoint",
        std::string(1, '\x02') +
            oob::encode_frame(oob::MsgType::kCheckpointRequest, oob::encode_cr_request({5, 0, "/snap/5/rank.1"})) +
            oob::encode_frame(oob::MsgType::kCheckpointReady, oob::encode_cr_bookmarks(bm)) +
            oob::encode_frame(oob::MsgType::kCheckpointDone, oob::encode_cr_done({5, 0, 123456})) +
            oob::encode_frame(oob::MsgType::kCheckpointFailed, oob::encode_cr_reason({5, "disk full"})) +
            oob::encode_frame(oob::MsgType::kAbort, oob::encode_abort({3, "bad input"})) +
            oob::encode_frame(oob::MsgType::kError, oob::encode_error({"stopping"})));
  }
  // tcp: HELLO, AUTH, VERDICT, then data and control frames.
  {
    auth::Nonce a{}, b{};
    a[0] = 1;
    b[0] = 2;
    const auto hello = transport::tcp::encode_hello(a);
    const auto authm = transport::tcp::encode_auth("secret", 1, 0, a, b);
    const auto verdict = transport::tcp::encode_verdict("secret", transport::tcp::Verdict::kAccept, 0, b);
    put("tcp_stream", "hello", std::string(hello.begin(), hello.end()) + tcp_data_frame("payload"));
    put("tcp_stream", "auth", std::string(authm.begin(), authm.end()) + tcp_data_frame(std::string(300, 'x')));
    unsigned char bye[transport::tcp::kFrameHeaderBytes];
    transport::tcp::encode_frame_header(transport::tcp::kControlBit | 1u, bye);
    put("tcp_stream", "verdict_frames",
        std::string(verdict.begin(), verdict.end()) + tcp_data_frame("a") + tcp_data_frame("") +
            std::string(reinterpret_cast<char*>(bye), sizeof bye));
  }
  put("restart_info", "info", oob::encode_restart_info({"job42", "127.0.0.1:4000", std::string("\x01\x00\xff", 3), 1, 7}));
  {
    snapshot::CommitRecord r;
    r.seq = 3;
    r.meta = {2, "criu", "bkmrk", 1718000000, "job42"};
    r.files = {{"rank.0/pages-1.img", 4096, 0x8d1ec0a2b5e9f4c1ull}, {"rank.1/core-7.img", 1024, 0x03ff2a9c0d5b7e61ull}};
    put("snapshot_records", "committed", r.format());
    snapshot::Manifest m;
    m.job = {"solver", "job42", {"./solver", "-n", "100"}, 2, {"node1", "node1"}, "/home/a", {{"cr", "criu"}}, {{"X", "1"}}};
    put("snapshot_records", "manifest", m.format());
  }
  put("config_yaml", "params", "fz_int: 3\nfz_size: 64k\nfz_double: 2.5\nfz_bool: true\nfz_string: \"hello\"\n");
  put("config_yaml", "nested", "mca:\n  fz_int: 7\n  fz_string: [a, b]\n");
  {
    const std::string path = root + "/appfmt_file/rank.0.lzck";
    fs::create_directories(root + "/appfmt_file");
    fs::remove(path);
    auto w = appfmt::Writer::create(path, {.job_id = "job42", .rank = 0, .nranks = 2, .seq = 1, .safe_point = 10},
                                    {.compress = appfmt::Compress::kZstd});
    std::vector<double> grid(600, 0.0);
    grid[5] = 1.5;
    int32_t step = 10;
    if (!w.ok() ||
        !w->add({"grid", {{appfmt::Scalar::kFloat64, 1}}, grid.size(), {{20, 60}, {10, 0}, {10, 60}}}, grid.data(),
                grid.size() * 8)
             .ok() ||
        !w->add({"step", {{appfmt::Scalar::kInt32, 1}}, 1, {}}, &step, 4).ok() || !w->finish().ok()) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::printf("seeds written under %s\n", root.c_str());
  return 0;
}
