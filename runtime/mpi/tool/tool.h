// The MPI tool interface's model (MPI-3.1 chapter 14): the variables and
// categories MPI_T_* (mpi_t_*.cpp) hand out by index.
//
//   control variables   every registered parameter (a Registry's
//                       ParamStore): the same names, help and levels as
//                       `lazarus info --param all all`;
//   performance vars.   what the runtime counts (pvars.cpp: traffic per
//                       transport, unexpected queue, rendezvous, checkpoints);
//   categories          one per framework, component and runtime part that
//                       owns parameters (their owner, "transport/tcp" ->
//                       "transport_tcp" under "transport").
//
// The tables are built by the first MPI_T_init_thread and kept for the
// process's life, so an index stays valid across MPI_T_finalize and a new
// MPI_T_init_thread. Before MPI_Init they come from the tool's own registry,
// which reads the same files and LZ_MCA_* variables as MPI_Init will; a
// control variable written then is handed to MPI_Init (set_settings_before_init)
// and wins over every other source. From MPI_Init on, values are the
// running process's (the runtime's registry); a parameter is read by the
// runtime and its components once, at start, so writes are refused from
// MPI_Init on (MPI_T_ERR_CVAR_SET_NOT_NOW).
//
// Every MPI_T_* call holds `mu` (any thread may call them, in any MPI state).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/param_store.h"
#include "lazarus/registry.h"
#include "mpi.h"

struct lz_mpi_t_enum_s {
  std::string name;
  std::vector<std::pair<int, std::string>> items;  // value, name
};

namespace lz::rt::tool {

struct Cvar {
  std::string name;  // the parameter's
  ParamSpec spec;
  std::string desc;
  int scope = MPI_T_SCOPE_LOCAL;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;  // kEnum: its choices, valued by position
  int count = 1;                          // MPI_CHAR: the buffer a read needs at most
  int category = -1;
};

// A value of a performance variable now: unsigned counts or seconds.
struct PvarValue {
  uint64_t u = 0;
  double d = 0;
};

struct Pvar {
  std::string name, desc;
  int var_class = MPI_T_PVAR_CLASS_COUNTER;
  int verbosity = MPI_T_VERBOSITY_USER_BASIC;
  bool is_double = false;  // MPI_DOUBLE (seconds), else MPI_UNSIGNED_LONG_LONG
  bool readonly = false;   // levels and high-water marks: the process's, not a handle's
  PvarValue (*read)(const std::string& arg) = nullptr;
  std::string arg;  // the transport's name for traffic variables
  int category = -1;
};

struct Category {
  std::string name, desc;
  std::vector<int> cvars, pvars, categories;
};

class Tool {
 public:
  static Tool& instance();

  std::mutex mu;
  int init_count = 0;

  // Builds the tables at the first call; false (and says why on stderr
  // once) when the parameters cannot be read.
  bool ensure_built();

  std::vector<Cvar> cvars;
  std::vector<Pvar> pvars;
  std::vector<Category> categories;
  std::deque<lz_mpi_t_enum_s> enums;

  // The parameter behind `c`, as the process has it now.
  const Param* param(const Cvar& c) const;
  // MPI_T_cvar_write's work: `text` checked against the parameter's type.
  int write(const Cvar& c, const std::string& text);

 private:
  Tool() = default;
  int category_of_owner(const std::string& owner);
  int add_category(const std::string& name, const std::string& desc, int parent);
  void add_pvars();

  std::unique_ptr<Registry> reg_;
  bool built_ = false, failed_ = false;
  std::vector<std::pair<std::string, std::string>> written_;
};

// The index of the entry of `v` named `name` (its .name), or -1.
template <typename V>
int index_of(const V& v, const char* name) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name) return static_cast<int>(i);
  return -1;
}

// Copies `s` into (buf, *len) as MPI_T's info calls do: a null `len` asks
// for nothing; a null `buf` or *len == 0 asks for the length needed (with
// the terminating NUL); otherwise at most *len - 1 characters and a NUL, and
// *len becomes what was written with it.
void copy_out(const std::string& s, char* buf, int* len);

}  // namespace lz::rt::tool

// The first statement of every MPI_T_* call but MPI_T_init_thread: the
// tool's lock, then the check that the interface is initialized. Declares
// `tool`.
#define LZ_MPI_T_ENTRY()                                         \
  ::lz::rt::tool::Tool& tool = ::lz::rt::tool::Tool::instance(); \
  std::lock_guard<std::mutex> lz_mpi_t_lock_(tool.mu);           \
  if (tool.init_count == 0) return MPI_T_ERR_NOT_INITIALIZED
