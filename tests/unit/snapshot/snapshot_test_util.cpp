#include "snapshot_test_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace lz::snapshot::test {

void write_pattern(const std::string& path, uint64_t bytes, uint32_t seed, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (fd < 0) throw std::runtime_error("open " + path);
  ::fchmod(fd, mode);
  std::vector<uint32_t> block(16384);
  uint32_t x = seed * 2654435761u + 1;
  while (bytes > 0) {
    for (auto& w : block) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      w = x;
    }
    size_t n = std::min<uint64_t>(bytes, block.size() * sizeof(uint32_t));
    if (::write(fd, block.data(), n) != static_cast<ssize_t>(n)) throw std::runtime_error("write " + path);
    bytes -= n;
  }
  ::close(fd);
}

void write_text(const std::string& path, const std::string& text, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (fd < 0) throw std::runtime_error("open " + path);
  ::fchmod(fd, mode);
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) throw std::runtime_error("write");
  ::close(fd);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return static_cast<mode_t>(-1);
  return st.st_mode & 07777;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

JobRecord sample_job(const std::string& id) {
  JobRecord j;
  j.name = "solver";
  j.id = id;
  j.argv = {"./solver", "-n", "100", "with space", "quote\"and\\backslash"};
  j.np = 2;
  j.hosts = {"node1", "node2"};
  j.cwd = "/home/alice/run";
  j.parameters = {{"cr", "criu"}, {"transport", "shm,self"}};
  j.environment = {{"OMP_NUM_THREADS", "2"}, {"MULTI", "line1\nline2"}};
  return j;
}

}  // namespace lz::snapshot::test
