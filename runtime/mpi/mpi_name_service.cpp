// MPI binding: the name service (MPI_Publish_name, _Lookup_name,
// _Unpublish_name). A published name is a file, in the directory
// dpm_names_dir (default: $XDG_RUNTIME_DIR/lazarus-names, else
// /tmp/lazarus-names-<uid>, mode 0700), holding the port name: every job of
// the user on the host, and on every host sharing that directory, sees it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "p2p/runtime.h"

using lz::rt::mpi_error;

namespace {

// The directory, made on first use.
lz::StatusOr<std::string> names_dir() {
  std::string dir = lz::rt::runtime().registry().params().get_string("dpm_names_dir");
  if (dir.empty()) {
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    dir = xdg != nullptr && *xdg != '\0' ? std::string(xdg) + "/lazarus-names"
                                         : "/tmp/lazarus-names-" + std::to_string(getuid());
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return lz::ErrnoError("mkdir " + dir, errno);
  return dir;
}

// A service name as a file name: letters, digits, '-', '.' and '_' as they
// are, every other byte as %XX (so no name reaches outside the directory).
std::string file_of(const std::string& dir, const char* service) {
  std::string f = dir + "/";
  for (const char* p = service; *p != '\0'; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        (c == '.' && p != service)) {
      f += static_cast<char>(c);
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      f += b;
    }
  }
  return f;
}

// The file of `service`, its directory made if need be.
lz::StatusOr<std::string> service_file(const char* service) {
  LZ_ASSIGN_OR_RETURN(std::string dir, names_dir());
  return file_of(dir, service);
}

int check_names(const char* fn, const char* service, const char* port) {
  if (service == nullptr || *service == '\0')
    return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "service_name is NULL or empty");
  if (port == nullptr) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "port_name is NULL");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  static constexpr const char* kFn = "MPI_Publish_name";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  if (int e = check_names(kFn, service_name, port_name)) return e;
  auto where = service_file(service_name);
  if (!where.ok()) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_SERVICE, where.status().message());
  const std::string& file = *where;
  // Written aside and linked into place: a lookup sees the whole name or none,
  // and a name published already stays as it is.
  const std::string tmp = file + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_SERVICE, "cannot write " + tmp + ": " + std::strerror(errno));
  const size_t n = std::strlen(port_name);
  const bool written = ::write(fd, port_name, n) == static_cast<ssize_t>(n);
  ::close(fd);
  const int linked = written ? ::link(tmp.c_str(), file.c_str()) : -1;
  const int err = errno;
  ::unlink(tmp.c_str());
  if (linked != 0)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_SERVICE,
                     err == EEXIST ? std::string("service '") + service_name + "' is published already (" + file + ")"
                                   : "cannot publish " + file + ": " + std::strerror(err));
  return MPI_SUCCESS;
}

int MPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  static constexpr const char* kFn = "MPI_Lookup_name";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  if (int e = check_names(kFn, service_name, port_name)) return e;
  auto where = service_file(service_name);
  if (!where.ok()) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_NAME, where.status().message());
  const std::string& file = *where;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_NAME,
                     std::string("service '") + service_name + "' is not published (no " + file + ")");
  const ssize_t n = ::read(fd, port_name, MPI_MAX_PORT_NAME - 1);
  ::close(fd);
  if (n < 0) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_NAME, "cannot read " + file + ": " + std::strerror(errno));
  port_name[n] = '\0';
  return MPI_SUCCESS;
}

int MPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  static constexpr const char* kFn = "MPI_Unpublish_name";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  if (int e = check_names(kFn, service_name, port_name)) return e;
  auto where = service_file(service_name);
  if (!where.ok()) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_SERVICE, where.status().message());
  const std::string& file = *where;
  if (::unlink(file.c_str()) != 0)
    return mpi_error(
        MPI_COMM_NULL, kFn, MPI_ERR_SERVICE,
        std::string("service '") + service_name + "' is not published (" + file + ": " + std::strerror(errno) + ")");
  return MPI_SUCCESS;
}

}  // extern "C"
