#include "lazarus/userns/reopen.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace lz::userns {

std::string path_of_fd(int fd) {
  char buf[PATH_MAX];
  const ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  buf[n] = '\0';
  return buf;
}

int reopen_here(int fd, int flags) {
  const std::string path = path_of_fd(fd);
  if (path.empty() || path[0] != '/') return -1;
  const int again = open(path.c_str(), flags | O_CLOEXEC);
  if (again < 0) return -1;
  struct stat given {};
  struct stat here {};
  if (fstat(fd, &given) != 0 || fstat(again, &here) != 0 || given.st_dev != here.st_dev ||
      given.st_ino != here.st_ino) {
    close(again);
    return -1;
  }
  return again;
}

}  // namespace lz::userns
