// A descriptor opened in another mount namespace, opened again here.
//
// A file opened before the job's mount namespace was made (the launcher's
// stdout, a log), or handed over by a process of another mount namespace
// (a requester outside an ordinary user's cr_restart), lies on a mount CRIU
// cannot look up from inside ("Can't lookup mount"). The same file is
// reachable here by the path /proc/self/fd shows for it.
#pragma once

#include <string>

namespace lz::userns {

// The path /proc/self/fd shows for `fd`, or "" when it cannot be read.
std::string path_of_fd(int fd);

// A new descriptor of the file behind `fd`, opened by its path in this
// process's mount namespace with `flags` (O_CLOEXEC added), or -1 when the
// path is not absolute, cannot be opened, or names another file (device and
// inode differ). `fd` is left open.
int reopen_here(int fd, int flags);

}  // namespace lz::userns
