// Loader: fills registered variables from a global application-level
// snapshot, on the same or another number of ranks.
//
//   Loader l(snapshot_dir, rank, nranks);
//   LZ_RETURN_IF_ERROR(l.open());          // this rank's file (or rank 0's), the snapshot's rank count
//   LZ_RETURN_IF_ERROR(l.load(var));       // per variable
//
// A non-decomposed variable comes from this rank's file when the rank count
// is the same. On another count it comes from rank 0's file when it is a
// scalar or every old rank holds the same bytes (a replicated value), and is
// refused, naming it, when the old ranks' values differ (rank-private
// state cannot be split or merged). A decomposed array is filled element by
// element, halo cells included, from every old block that overlaps the
// allocation; old files are opened only when needed, once.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "lazarus/appfmt/reader.h"
#include "lazarus/frameworks/cr.h"

namespace lz::cr::app {

class Loader {
 public:
  Loader(std::string snapshot_dir, int rank, int nranks) : dir_(std::move(snapshot_dir)), rank_(rank), nranks_(nranks) {}
  Status open();
  Status load(const AppVariable& v);

 private:
  StatusOr<const appfmt::Reader*> file(int old_rank);
  Status load_plain(const AppVariable& v);
  Status load_decomposed(const AppVariable& v);
  Status check_type(const AppVariable& v, const appfmt::VariableInfo& info, const appfmt::Reader& r) const;

  std::string dir_;
  int rank_, nranks_;
  int old_nranks_ = 0;
  std::map<int, std::unique_ptr<appfmt::Reader>> files_;
};

}  // namespace lz::cr::app
