// What CRIU cannot save of a process, said before it tries.
//
// A dump that fails on something the program holds ends with a line of
// CRIU's log ("Task ... with SysVIPC shmem map ... doesn't live in IPC ns",
// "sockets: Can't get 1:16 opt: Operation not supported") that names neither
// the program's resource nor a way out. The dumping process looks at itself
// and its children first, once its runtime has released what is its own
// (sockets, shared segments: the transports' checkpoint hooks), so that what
// is left is the program's, and refuses naming it:
//  - System V shared memory attached (CRIU saves it only with the IPC
//    namespace it lives in, which a rank does not own);
//  - IPv4/IPv6 sockets, which CRIU 4.1.1 cannot read back on kernels >= 6.16.
//
//   LZ_RETURN_IF_ERROR(check_dumpable(getpid()));   // kUnavailable, naming each
#pragma once

#include <sys/types.h>

#include "lazarus/status.h"

namespace lz::cr::criu {

Status check_dumpable(pid_t root);

}  // namespace lz::cr::criu
