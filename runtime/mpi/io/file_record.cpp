#include "mpi/io/file_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"
#include "lazarus/unique_fd.h"
#include "lazarus/write_file_at.h"
#include "mpi/io/file.h"
#include "mpi/io/shared_pointer.h"

namespace lz::rt::io {
namespace {

constexpr const char* kHeader = "lazarus-mpi-files 1";

// One file as one old rank recorded it.
struct Line {
  std::string path, datarep;
  int amode = 0, comm_size = 0, comm_rank = 0;
  uint64_t etype_size = 1;
  MPI_Offset pointer = 0;
  bool atomic = false;
  uint64_t resets = 0;
  MPI_Offset reset_to = 0, added = 0;
};

// A record waiting for the file to be opened again.
struct Pending {
  std::string path;
  int amode = 0;
  lz_mpi_file_s::Recorded rec;
};

std::vector<MPI_File>& open_files() {
  static std::vector<MPI_File> files;
  return files;
}
std::vector<Pending>& pending() {
  static std::vector<Pending> p;
  return p;
}

// Bytes that would break a line's fields, as %XX.
std::string escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c <= ' ' || c == '%' || c == 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}
bool unescape(const std::string& s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      *out += s[i];
      continue;
    }
    unsigned v = 0;
    if (i + 2 >= s.size()) return false;
    if (std::sscanf(s.c_str() + i + 1, "%2X", &v) != 1) return false;
    *out += static_cast<char>(v);
    i += 2;
  }
  return true;
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// old rank `r`'s lines; an absent record is a rank that held no MPI file.
StatusOr<std::vector<Line>> read_rank(const std::string& snapshot_dir, int r) {
  const std::string name = snapshot_rank_dir(snapshot_dir, r) + "/" + kMpiFilesRecord;
  std::vector<Line> lines;
  std::ifstream in(name);
  if (!in) {
    if (::access(name.c_str(), F_OK) != 0 && errno == ENOENT) return lines;
    return ErrnoError("cannot read " + name, errno);
  }
  std::string text;
  if (!std::getline(in, text) || text != kHeader)
    return DataLoss(name + ": not a record of MPI files (first line '" + text + "', expected '" + kHeader + "')");
  int n = 1;
  while (std::getline(in, text)) {
    ++n;
    std::istringstream f(text);
    Line l;
    std::string datarep, path;
    int atomic = 0;
    if (!(f >> l.pointer >> l.amode >> l.comm_size >> l.comm_rank >> l.etype_size >> atomic >> l.resets >> l.reset_to >>
          l.added >> datarep >> path) ||
        !unescape(datarep, &l.datarep) || !unescape(path, &l.path) || l.comm_size < 1 || l.etype_size < 1)
      return DataLoss(name + ": line " + std::to_string(n) + " is damaged: '" + text + "'");
    l.atomic = atomic != 0;
    lines.push_back(std::move(l));
  }
  return lines;
}

// The file of `lines[i]` is the k-th open file of its path on its rank.
int occurrence(const std::vector<Line>& lines, size_t i) {
  return static_cast<int>(std::count_if(lines.begin(), lines.begin() + static_cast<long>(i),
                                        [&](const Line& l) { return l.path == lines[i].path; }));
}

// Rank 0 of the file's communicator (which warns for the file).
bool first_of_file(MPI_File f) {
  int rank = 0;
  PMPI_Comm_rank(f->comm, &rank);
  return rank == 0;
}

// Attaches the first pending record of f's path and access mode.
void match(MPI_File f) {
  auto& p = pending();
  auto it =
      std::find_if(p.begin(), p.end(), [&](const Pending& x) { return x.path == f->abs_path && x.amode == f->amode; });
  if (it == p.end()) return;
  f->recorded = it->rec;
  p.erase(it);
}

}  // namespace

void track_open(MPI_File f) {
  f->abs_path = absolute(f->path);
  open_files().push_back(f);
  match(f);
}

void track_close(MPI_File f) {
  auto& files = open_files();
  files.erase(std::remove(files.begin(), files.end(), f), files.end());
}

Status save_open_files(const std::string& rank_dir) {
  if (open_files().empty()) return Status::Ok();
  std::string text = std::string(kHeader) + "\n";
  for (MPI_File f : open_files()) {
    int size = 0, rank = 0;
    PMPI_Comm_size(f->comm, &size);
    PMPI_Comm_rank(f->comm, &rank);
    text += std::to_string(f->pointer) + " " + std::to_string(f->amode) + " " + std::to_string(size) + " " +
            std::to_string(rank) + " " + std::to_string(f->etype_size()) + " " + (f->atomic ? "1" : "0") + " " +
            std::to_string(f->shared_resets) + " " + std::to_string(f->shared_reset_to) + " " +
            std::to_string(f->shared_added) + " " + escape(f->datarep) + " " + escape(f->abs_path) + "\n";
  }
  UniqueFd dir(open(rank_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return ErrnoError("cannot open the rank's snapshot directory " + rank_dir, errno);
  return write_file_at(dir.get(), kMpiFilesRecord, text, 0644);
}

Status load_file_records(const std::string& snapshot_dir, int old_nranks, int rank, int nranks) {
  std::vector<std::vector<Line>> ranks;
  for (int r = 0; r < old_nranks; ++r) {
    auto lines = read_rank(snapshot_dir, r);
    if (!lines.ok()) return lines.status();
    ranks.push_back(std::move(*lines));
  }
  // Every old rank's record of one file: (path, k-th open of it).
  std::map<std::pair<std::string, int>, std::vector<const Line*>> groups;
  for (const auto& lines : ranks)
    for (size_t i = 0; i < lines.size(); ++i) groups[{lines[i].path, occurrence(lines, i)}].push_back(&lines[i]);
  // The shared pointer at the ranks' lines: the reset every rank saw plus
  // every rank's part (unknown when the records do not make one file).
  auto shared_of = [&](const std::vector<const Line*>& g) -> std::optional<MPI_Offset> {
    if (static_cast<int>(g.size()) != g[0]->comm_size) return std::nullopt;
    MPI_Offset v = g[0]->reset_to;
    for (const Line* l : g) {
      if (l->resets != g[0]->resets || l->reset_to != g[0]->reset_to) return std::nullopt;
      v += l->added;
    }
    return v;
  };
  pending().clear();
  const bool same = nranks == old_nranks;
  const std::vector<Line>& mine = same ? ranks[static_cast<size_t>(rank)] : ranks[0];
  for (size_t i = 0; i < mine.size(); ++i) {
    const Line& l = mine[i];
    const std::vector<const Line*>& g = groups[{l.path, occurrence(mine, i)}];
    lz_mpi_file_s::Recorded rec;
    rec.etype_size = l.etype_size;
    rec.datarep = l.datarep;
    rec.atomic = l.atomic;
    rec.shared = shared_of(g);
    if (same) {
      rec.pointer = l.pointer;
    } else if (l.comm_size != old_nranks || static_cast<int>(g.size()) != old_nranks) {
      if (rank == 0)
        log::warn("%s was open on %d of the snapshot's %d ranks: on %d ranks its pointers are not put back",
                  l.path.c_str(), static_cast<int>(g.size()), old_nranks, nranks);
      continue;
    } else if (std::all_of(g.begin(), g.end(), [&](const Line* x) { return x->pointer == l.pointer; })) {
      rec.pointer = l.pointer;
    }
    pending().push_back({l.path, l.amode, rec});
  }
  // Files the program opened before LZ_Restore (every rank of each calls
  // it): their pointers now, when the views are set already.
  for (MPI_File f : open_files()) {
    if (!f->recorded) match(f);
    MPI_Offset to = 0;
    if (!take_record(f, &to)) continue;
    PMPI_Barrier(f->comm);
    shared_pointer_reset(f, to);
    PMPI_Barrier(f->comm);
  }
  return Status::Ok();
}

void forget_record(MPI_File f) { f->recorded.reset(); }

bool take_record(MPI_File f, MPI_Offset* shared) {
  if (!f->recorded) return false;
  const lz_mpi_file_s::Recorded& r = *f->recorded;
  if (r.etype_size != f->etype_size() || r.datarep != f->datarep) return false;
  if (r.pointer) {
    f->pointer = *r.pointer;
  } else if (first_of_file(f)) {
    log::warn(
        "%s: the snapshot's ranks had their individual pointers at different places, which do not map to "
        "this rank count: they start at 0 (the program seeks them itself, or restarts on the old count)",
        f->abs_path.c_str());
  }
  f->atomic = r.atomic;
  f->access.atomic = r.atomic;
  if (!r.shared) {
    if (first_of_file(f))
      log::warn(
          "%s: the snapshot's records of the file do not give its shared pointer (not every rank of its "
          "communicator recorded it at the same reset): it starts at 0",
          f->abs_path.c_str());
    return false;
  }
  *shared = *r.shared;
  return true;
}

}  // namespace lz::rt::io
