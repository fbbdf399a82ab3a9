// run_in_pid_namespace(): runs a function as pid 1 of a fresh PID namespace.
//
// CRIU restores every process under its original pid, so restoring a job
// while its original (or anything else) still holds those pids fails. A
// restart launcher therefore runs in its own PID namespace, where every pid
// is free and where it is, as pid 1, the reaper of the restored ranks.
//
// The caller unshare()s CLONE_NEWPID|CLONE_NEWNS and forks; the child (pid 1)
// makes its mount tree private, mounts a fresh /proc (so /proc/<pid> and
// CRIU see the namespace's pids), leads a new session (restored ranks join
// it, and CRIU saves them again only when their session leader is inside
// their PID namespace), runs `body` and exits with its result. The
// caller forwards SIGINT/SIGTERM/SIGHUP to the child, waits for it and
// returns its exit status (128 + signal when it was killed). The child never
// outlives the caller: when the caller dies (even by SIGKILL) the child gets
// SIGKILL, and with pid 1 gone the kernel ends the whole namespace, so
// killing the user's `mpirun` ends a job however many restarts it went
// through. When it has ended, the caller removes the /dev/shm names its
// processes left (lz-shm.<job>.<pidns>.*: transport/shm's segments of a
// rank killed before its peers had mapped them).
//
// A process can create one PID namespace for its children this way (a second
// unshare(CLONE_NEWPID) fails): a launcher that recovers again does so from
// inside the namespace, which nests.
//
//   int rc = run_in_pid_namespace([&] { return run_restart_here(opts); }, &err);
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace lz::userns {

// Returns the child's status, or -1 with *error set when no namespace could
// be created (namespaces disabled). An ordinary user's namespace is owned by
// a user namespace made with it (lazarus/userns/job_namespace.h).
int run_in_pid_namespace(const std::function<int()>& body, std::string* error);

// The pid that processes outside every namespace run_in_pid_namespace()
// made see for `pid` of this one: what the job registry shows, so that
// `lazarus ps` and a user's `kill` mean the rank. `pid` itself when this
// process is in no such namespace or the pid cannot be translated.
pid_t outer_pid_of(pid_t pid);

}  // namespace lz::userns
