#include "lazarus/userns/reopen.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace lz::userns {

int reopen_here(int fd, int flags) {
  char path[4096];
  const ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), path, sizeof path - 1);
  if (n <= 0 || path[0] != '/') return -1;
  path[n] = '\0';
  const int again = open(path, flags | O_CLOEXEC);
  if (again < 0) return -1;
  struct stat given {
  }, here{};
  if (fstat(fd, &given) != 0 || fstat(again, &here) != 0 || given.st_dev != here.st_dev ||
      given.st_ino != here.st_ino) {
    close(again);
    return -1;
  }
  return again;
}

}  // namespace lz::userns
