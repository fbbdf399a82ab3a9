#include "oob/restart_info.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace lz::oob {
namespace {

constexpr size_t kMaxRestartInfo = 64 * 1024;

std::string to_hex(const std::string& bin) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(bin.size() * 2);
  for (unsigned char c : bin) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

bool from_hex(const std::string& hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string r;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = val(hex[i]), lo = val(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    r += static_cast<char>(hi * 16 + lo);
  }
  *out = std::move(r);
  return true;
}

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

std::string encode_restart_info(const RestartInfo& i) {
  std::ostringstream o;
  o << "lazarus-restart 1\n";
  o << "job " << i.job_id << "\n";
  o << "addr " << i.address << "\n";
  o << "secret " << to_hex(i.secret) << "\n";
  o << "rank " << i.rank << "\n";
  o << "snapshot " << i.snapshot_seq << "\n";
  return o.str();
}

StatusOr<RestartInfo> decode_restart_info(const std::string& text) {
  if (text.empty()) return NotFound("no restart information (the process continued)");
  std::istringstream in(text);
  std::string line;
  RestartInfo r;
  bool header = false;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto sp = line.find(' ');
    std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    auto bad = [&] { return ProtocolError("restart information line " + std::to_string(n) + " is malformed: `" + line + "`"); };
    if (n == 1) {
      if (line != "lazarus-restart 1") return bad();
      header = true;
    } else if (key == "job") {
      r.job_id = value;
    } else if (key == "addr") {
      r.address = value;
    } else if (key == "secret") {
      if (!from_hex(value, &r.secret)) return bad();
    } else if (key == "rank") {
      try {
        r.rank = std::stoi(value);
      } catch (...) {
        return bad();
      }
    } else if (key == "snapshot") {
      try {
        r.snapshot_seq = std::stoull(value);
      } catch (...) {
        return bad();
      }
    } else {
      return bad();
    }
  }
  if (!header || r.job_id.empty() || r.address.empty() || r.secret.empty() || r.rank < 0)
    return ProtocolError("restart information is incomplete (job, addr, secret and rank are required)");
  return r;
}

StatusOr<RestartInfo> read_restart_info(int fd, int timeout_ms) {
  std::string text;
  const int64_t deadline = now_ms() + timeout_ms;
  char buf[4096];
  while (true) {
    int left = static_cast<int>(deadline - now_ms());
    if (left <= 0) return Timeout("no restart information within " + std::to_string(timeout_ms) + " ms");
    pollfd p{fd, POLLIN, 0};
    int pr = poll(&p, 1, left);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) return ErrnoError("poll on the restart channel", errno);
    if (pr == 0) continue;
    ssize_t k = read(fd, buf, sizeof buf);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k < 0) return ErrnoError("reading the restart channel", errno);
    if (k == 0) break;
    text.append(buf, static_cast<size_t>(k));
    if (text.size() > kMaxRestartInfo) return ProtocolError("restart information larger than 64 KiB");
  }
  return decode_restart_info(text);
}

}  // namespace lz::oob
