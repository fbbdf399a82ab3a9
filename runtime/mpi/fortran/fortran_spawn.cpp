// The Fortran binding of MPI_Comm_spawn and MPI_Comm_spawn_multiple, whose
// argument lists are arrays of CHARACTER strings: each element `len` bytes
// (the hidden length), blank padded, a list ending at its first blank
// element (MPI-3.1 section 10.3.2). MPI_ARGV_NULL, MPI_ARGVS_NULL and
// MPI_ERRCODES_IGNORE are the COMMON blocks of fortran_args.h.
#include <string>
#include <vector>

#include "lazarus/strings.h"
#include "mpi.h"
#include "mpi/fortran/fortran_args.h"

using lz::fortran::lz_f_string;
using lz::fortran::lz_f_string_keep_leading;

namespace {

// How an argument's blanks are read: trailing ones are padding; leading ones
// are dropped by `use mpi` / mpif.h and kept by `use mpi_f08` (" Ss" reaches
// the program as "Ss" and " Ss": what MPICH does, and its tests check).
enum class Blanks { kTrim, kKeepLeading };

// The argument strings of one command, read from `at`, `stride` bytes apart,
// up to the first blank one.
std::vector<std::string> arg_list(const char* at, size_t len, size_t stride, Blanks blanks) {
  std::vector<std::string> out;
  for (;; at += stride) {
    std::string a = blanks == Blanks::kTrim ? lz_f_string(at, len) : lz_f_string_keep_leading(at, len);
    if (a.empty()) break;
    out.push_back(std::move(a));
  }
  return out;
}

void comm_spawn(const char* command, const char* argv, const MPI_Fint* maxprocs, const MPI_Fint* info,
                const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* intercomm, MPI_Fint* errcodes, MPI_Fint* ierror,
                size_t command_len, size_t argv_len, Blanks blanks) {
  const std::string c_command = lz_f_string(command, command_len);
  std::vector<std::string> args;
  if (argv != lz_mpif_argv_null_) args = arg_list(argv, argv_len, argv_len, blanks);
  std::vector<char*> c_args = lz::str::c_array(args);
  MPI_Comm c_inter = MPI_COMM_NULL;
  const bool ignore = errcodes == lz_mpif_errcodes_ignore_;
  *ierror = MPI_Comm_spawn(c_command.c_str(), argv == lz_mpif_argv_null_ ? MPI_ARGV_NULL : c_args.data(), *maxprocs,
                           MPI_Info_f2c(*info), *root, MPI_Comm_f2c(*comm), &c_inter,
                           ignore ? MPI_ERRCODES_IGNORE : errcodes);
  *intercomm = MPI_Comm_c2f(c_inter);
}

void comm_spawn_multiple(const MPI_Fint* count, const char* commands, const char* argvs, const MPI_Fint* maxprocs,
                         const MPI_Fint* infos, const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* intercomm,
                         MPI_Fint* errcodes, MPI_Fint* ierror, size_t commands_len, size_t argvs_len, Blanks blanks) {
  const int n = *count > 0 ? *count : 0;
  std::vector<std::string> c_commands;
  std::vector<std::vector<std::string>> args(static_cast<size_t>(n));
  std::vector<std::vector<char*>> c_args(static_cast<size_t>(n));
  std::vector<char*> command_ptrs;
  std::vector<char**> argv_ptrs;
  std::vector<MPI_Info> c_infos;
  for (int i = 0; i < n; ++i) c_commands.push_back(lz_f_string(commands + i * commands_len, commands_len));
  for (int i = 0; i < n; ++i) {
    // array_of_argv(count, *): command i's arguments are row i, a column apart.
    if (argvs != lz_mpif_argvs_null_)
      args[static_cast<size_t>(i)] =
          arg_list(argvs + static_cast<size_t>(i) * argvs_len, argvs_len, static_cast<size_t>(n) * argvs_len, blanks);
    c_args[static_cast<size_t>(i)] = lz::str::c_array(args[static_cast<size_t>(i)]);
    command_ptrs.push_back(c_commands[static_cast<size_t>(i)].data());
    argv_ptrs.push_back(c_args[static_cast<size_t>(i)].data());
    c_infos.push_back(MPI_Info_f2c(infos[i]));
  }
  MPI_Comm c_inter = MPI_COMM_NULL;
  const bool ignore = errcodes == lz_mpif_errcodes_ignore_;
  *ierror = MPI_Comm_spawn_multiple(
      *count, command_ptrs.data(), argvs == lz_mpif_argvs_null_ ? MPI_ARGVS_NULL : argv_ptrs.data(), maxprocs,
      c_infos.data(), *root, MPI_Comm_f2c(*comm), &c_inter, ignore ? MPI_ERRCODES_IGNORE : errcodes);
  *intercomm = MPI_Comm_c2f(c_inter);
}

}  // namespace

extern "C" {

void mpi_comm_spawn_(const char* command, const char* argv, const MPI_Fint* maxprocs, const MPI_Fint* info,
                     const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* intercomm, MPI_Fint* errcodes,
                     MPI_Fint* ierror, size_t command_len, size_t argv_len) {
  LZ_F_OPTIONAL_IERROR(ierror);
  comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierror, command_len, argv_len,
             Blanks::kTrim);
}

void mpi_comm_spawn_multiple_(const MPI_Fint* count, const char* commands, const char* argvs, const MPI_Fint* maxprocs,
                              const MPI_Fint* infos, const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* intercomm,
                              MPI_Fint* errcodes, MPI_Fint* ierror, size_t commands_len, size_t argvs_len) {
  LZ_F_OPTIONAL_IERROR(ierror);
  comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, comm, intercomm, errcodes, ierror, commands_len,
                      argvs_len, Blanks::kTrim);
}

// mpi_f08's MPI_Comm_spawn and _spawn_multiple (gen_f08.py).
void lz_f08_comm_spawn_(const char* command, const char* argv, const MPI_Fint* maxprocs, const MPI_Fint* info,
                        const MPI_Fint* root, const MPI_Fint* comm, MPI_Fint* intercomm, MPI_Fint* errcodes,
                        MPI_Fint* ierror, size_t command_len, size_t argv_len) {
  LZ_F_OPTIONAL_IERROR(ierror);
  comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierror, command_len, argv_len,
             Blanks::kKeepLeading);
}

void lz_f08_comm_spawn_multiple_(const MPI_Fint* count, const char* commands, const char* argvs,
                                 const MPI_Fint* maxprocs, const MPI_Fint* infos, const MPI_Fint* root,
                                 const MPI_Fint* comm, MPI_Fint* intercomm, MPI_Fint* errcodes, MPI_Fint* ierror,
                                 size_t commands_len, size_t argvs_len) {
  LZ_F_OPTIONAL_IERROR(ierror);
  comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, comm, intercomm, errcodes, ierror, commands_len,
                      argvs_len, Blanks::kKeepLeading);
}

}  // extern "C"

// Profiling names (fortran_args.h).
LZ_F_PMPI(mpi_comm_spawn_);
LZ_F_PMPI(mpi_comm_spawn_multiple_);
