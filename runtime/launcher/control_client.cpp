#include "launcher/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lz::launcher {

StatusOr<oob::Fd> connect_control(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.sun_path) return InvalidArgument("bad control socket path '" + path + "'");
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket(AF_UNIX)", errno);
  oob::Fd s(fd);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return ErrnoError("cannot reach the launcher at " + path, errno);
  return s;
}

Status send_control_line(int fd, const std::string& line) {
  std::string s = line + "\n";
  return oob::write_all(fd, s.data(), s.size(), oob::deadline_in(10));
}

StatusOr<std::string> read_control_line(int fd, std::string* buffer, oob::Deadline deadline) {
  for (;;) {
    size_t nl = buffer->find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer->substr(0, nl);
      buffer->erase(0, nl + 1);
      return line;
    }
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, oob::poll_timeout_ms(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoError("poll", errno);
    if (r == 0) return Timeout("no answer from the launcher in time");
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read from the launcher", errno);
    if (n == 0) return Status(Code::kAborted, "the launcher closed the connection (the job ended?)");
    buffer->append(buf, static_cast<size_t>(n));
  }
}

}  // namespace lz::launcher
