// MPI binding: opening, closing and managing files (MPI-3.1 sections
// 13.2 and 13.6.1, 13.7): MPI_File_open / _close / _delete, sizes, group,
// access mode, hints, atomicity, sync, error handlers and handles. Views
// are mpi_file_view.cpp, data access mpi_file_data.cpp and the files it
// names.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "io/io_queue.h"
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/io/file.h"
#include "mpi/io/file_record.h"
#include "mpi/io/hints.h"
#include "mpi/io/shared_pointer.h"
#include "p2p/comm_factory.h"

using lz::rt::io::check_file;
using lz::rt::io::class_of_errno;
using lz::rt::io::file_error;

namespace {

// ROMIO's file-system prefixes ("ufs:/scratch/x") name a driver; every
// file here goes through POSIX calls, so the prefix is dropped.
std::string strip_prefix(const char* name) {
  std::string s(name);
  for (const char* p : {"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "xfs:", "panfs:", "daos:", "testfs:"}) {
    const size_t n = std::strlen(p);
    if (s.compare(0, n, p) == 0) return s.substr(n);
  }
  return s;
}

std::string amode_problem(int amode) {
  const int rw =
      (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_WRONLY ? 1 : 0) + (amode & MPI_MODE_RDWR ? 1 : 0);
  if (rw != 1) return "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR must be given";
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return "MPI_MODE_RDONLY cannot be combined with MPI_MODE_CREATE or MPI_MODE_EXCL";
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return "MPI_MODE_RDWR cannot be combined with MPI_MODE_SEQUENTIAL";
  const int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE |
                    MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if (amode & ~known) return "unknown bits " + std::to_string(amode & ~known);
  return "";
}

// Every rank's outcome: the largest error class (0: all succeeded) and,
// when this rank succeeded, which rank failed first for the message.
int agree(MPI_Comm comm, int mine, int* worst) { return PMPI_Allreduce(&mine, worst, 1, MPI_INT, MPI_MAX, comm); }

}  // namespace

extern "C" {

int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  static constexpr const char* kFn = "MPI_File_open";
  LZ_MPI_ENTRY(kFn);
  if (comm == nullptr || !comm->valid()) return file_error(MPI_FILE_NULL, kFn, MPI_ERR_COMM, "invalid communicator");
  if (comm->is_inter()) return file_error(MPI_FILE_NULL, kFn, MPI_ERR_COMM, "an intercommunicator cannot open a file");
  if (filename == nullptr || *filename == '\0')
    return file_error(MPI_FILE_NULL, kFn, MPI_ERR_BAD_FILE, "the file name is empty");
  if (info != MPI_INFO_NULL && (info == nullptr || !info->valid()))
    return file_error(MPI_FILE_NULL, kFn, MPI_ERR_INFO, "invalid info object");
  if (fh == nullptr) return file_error(MPI_FILE_NULL, kFn, MPI_ERR_ARG, "fh is NULL");
  const std::string problem = amode_problem(amode);
  if (!problem.empty())
    return file_error(MPI_FILE_NULL, kFn, MPI_ERR_AMODE, "access mode " + std::to_string(amode) + ": " + problem);
  int modes[2] = {amode, -amode}, agreed[2];
  if (int e = PMPI_Allreduce(modes, agreed, 2, MPI_INT, MPI_MAX, comm)) return e;
  if (agreed[0] != -agreed[1])
    return file_error(MPI_FILE_NULL, kFn, MPI_ERR_NOT_SAME, "the ranks opened the file with different access modes");

  const std::string path = strip_prefix(filename);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  // A write-only file is opened for reading too when the system allows it,
  // as ROMIO does, so that sieving writes can read the holes between the
  // ranges (romio_ds_write); the access mode stays write-only.
  const int flags = O_CLOEXEC | (amode & MPI_MODE_RDONLY ? O_RDONLY : O_RDWR);
  bool fd_readable = !(amode & MPI_MODE_WRONLY);
  auto open_fd = [&](int extra) {
    int d = open(path.c_str(), flags | extra, 0666);
    if (d < 0 && (amode & MPI_MODE_WRONLY) && (errno == EACCES || errno == EPERM))
      d = open(path.c_str(), (flags & ~O_RDWR) | O_WRONLY | extra, 0666);
    else if (d >= 0 && (amode & MPI_MODE_WRONLY))
      fd_readable = true;
    return d;
  };
  // Rank 0 creates the file (exclusively when asked); the others open it then.
  int fd = -1, err = 0;
  if (amode & MPI_MODE_CREATE) {
    int created_err = 0;
    if (rank == 0) {
      fd = open_fd(O_CREAT | (amode & MPI_MODE_EXCL ? O_EXCL : 0));
      created_err = fd < 0 ? errno : 0;
    }
    if (int e = PMPI_Bcast(&created_err, 1, MPI_INT, 0, comm)) return e;
    err = created_err;
    if (rank != 0 && created_err == 0) {
      fd = open_fd(0);
      if (fd < 0) err = errno;
    }
  } else {
    fd = open_fd(0);
    if (fd < 0) err = errno;
  }
  int worst = 0;
  if (int e = agree(comm, err != 0 ? class_of_errno(err) : 0, &worst)) return e;
  if (worst != 0) {
    if (fd >= 0) close(fd);
    const std::string why = err != 0 ? std::strerror(err) : "another rank could not open it";
    return file_error(MPI_FILE_NULL, kFn, err != 0 ? class_of_errno(err) : worst, "cannot open '" + path + "': " + why);
  }
  auto dup = lz::rt::comm_dup(*comm);
  if (!dup.ok()) {
    close(fd);
    return file_error(MPI_FILE_NULL, kFn, lz::rt::mpi_class_of(dup.status()), dup.status().message());
  }
  auto* f = new lz_mpi_file_s;
  f->comm = *dup;
  // The file's own communicator returns errors: the file's handler is the
  // one that applies (a non-blocking operation's request names it).
  f->comm->errhandler = MPI_ERRORS_RETURN;
  f->path = path;
  f->amode = amode;
  f->fd = fd;
  f->fd_readable = fd_readable;
  f->errhandler = lz::rt::io::default_file_errhandler();
  if (info != MPI_INFO_NULL) f->info = info->entries;
  lz::rt::io::apply_hints(f);
  if (int e = lz::rt::io::shared_pointer_create(f)) {
    close(fd);
    lz::rt::comm_free(f->comm);
    delete f;
    return file_error(MPI_FILE_NULL, kFn, e, "creating the shared file pointer failed");
  }
  MPI_Offset shared_at = 0;
  if (amode & MPI_MODE_APPEND) {  // every pointer starts at the end (the default view counts bytes)
    struct stat st {};
    if (fstat(fd, &st) == 0) f->pointer = st.st_size;
    shared_at = f->pointer;
  }
  // A cr=app restart's record of the file, when it was in the default view.
  lz::rt::io::track_open(f);
  lz::rt::io::take_record(f, &shared_at);
  if (shared_at != 0) {
    lz::rt::io::shared_pointer_reset(f, shared_at);
    PMPI_Barrier(f->comm);
  }
  *fh = f;
  return MPI_SUCCESS;
}

int MPI_File_close(MPI_File* fh) {
  static constexpr const char* kFn = "MPI_File_close";
  LZ_MPI_ENTRY(kFn);
  if (fh == nullptr) return file_error(MPI_FILE_NULL, kFn, MPI_ERR_ARG, "fh is NULL");
  if (int e = check_file(kFn, *fh)) return e;
  MPI_File f = *fh;
  lz::io::IoQueue::instance().drain();  // its non-blocking operations end first
  lz::rt::io::track_close(f);
  lz::rt::io::shared_pointer_free(f);
  int err = close(f->fd) != 0 ? errno : 0;
  if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
    PMPI_Barrier(f->comm);  // every rank closed it
    int rank = 0;
    PMPI_Comm_rank(f->comm, &rank);
    if (rank == 0 && unlink(f->path.c_str()) != 0 && errno != ENOENT && err == 0) err = errno;
  }
  // An error is reported through the file's handler while it still exists.
  const int rc =
      err != 0 ? file_error(f, kFn, class_of_errno(err), std::string("close: ") + std::strerror(err)) : MPI_SUCCESS;
  lz::rt::comm_free(f->comm);
  f->magic = 0;
  delete f;
  *fh = MPI_FILE_NULL;
  return rc;
}

int MPI_File_delete(const char* filename, MPI_Info info) {
  static constexpr const char* kFn = "MPI_File_delete";
  LZ_MPI_ENTRY(kFn);
  if (filename == nullptr) return file_error(MPI_FILE_NULL, kFn, MPI_ERR_BAD_FILE, "the file name is NULL");
  if (info != MPI_INFO_NULL && (info == nullptr || !info->valid()))
    return file_error(MPI_FILE_NULL, kFn, MPI_ERR_INFO, "invalid info object");
  const std::string path = strip_prefix(filename);
  if (unlink(path.c_str()) != 0)
    return file_error(MPI_FILE_NULL, kFn, class_of_errno(errno),
                      "cannot delete '" + path + "': " + std::strerror(errno));
  return MPI_SUCCESS;
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  static constexpr const char* kFn = "MPI_File_set_size";
  LZ_MPI_ENTRY(kFn);
  if (int e = lz::rt::io::check_access(kFn, fh, true)) return e;
  if (size < 0) return file_error(fh, kFn, MPI_ERR_ARG, "negative size " + std::to_string(size));
  MPI_Offset sizes[2] = {size, -size}, agreed[2];
  PMPI_Allreduce(sizes, agreed, 2, MPI_OFFSET, MPI_MAX, fh->comm);
  if (agreed[0] != -agreed[1]) return file_error(fh, kFn, MPI_ERR_NOT_SAME, "the ranks gave different sizes");
  lz::io::IoQueue::instance().drain();
  int rank = 0, err = 0;
  PMPI_Comm_rank(fh->comm, &rank);
  if (rank == 0 && ftruncate(fh->fd, static_cast<off_t>(size)) != 0) err = errno;
  PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
  if (err != 0)
    return file_error(fh, kFn, class_of_errno(err),
                      "cannot set the size to " + std::to_string(size) + ": " + std::strerror(err));
  return MPI_SUCCESS;
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  static constexpr const char* kFn = "MPI_File_preallocate";
  LZ_MPI_ENTRY(kFn);
  if (int e = lz::rt::io::check_access(kFn, fh, true)) return e;
  if (size < 0) return file_error(fh, kFn, MPI_ERR_ARG, "negative size " + std::to_string(size));
  int rank = 0, err = 0;
  PMPI_Comm_rank(fh->comm, &rank);
  if (rank == 0 && size > 0) {
    // posix_fallocate never shrinks; a file system without fallocate gets it emulated by glibc.
    err = posix_fallocate(fh->fd, 0, static_cast<off_t>(size));
  }
  PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
  if (err != 0)
    return file_error(fh, kFn, class_of_errno(err),
                      "cannot preallocate " + std::to_string(size) + " bytes: " + std::strerror(err));
  return MPI_SUCCESS;
}

int MPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  static constexpr const char* kFn = "MPI_File_get_size";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (size == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "size is NULL");
  struct stat st {};
  if (fstat(fh->fd, &st) != 0) return file_error(fh, kFn, class_of_errno(errno), std::strerror(errno));
  *size = static_cast<MPI_Offset>(st.st_size);
  return MPI_SUCCESS;
}

int MPI_File_get_group(MPI_File fh, MPI_Group* group) {
  static constexpr const char* kFn = "MPI_File_get_group";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (group == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "group is NULL");
  return PMPI_Comm_group(fh->comm, group);
}

int MPI_File_get_amode(MPI_File fh, int* amode) {
  static constexpr const char* kFn = "MPI_File_get_amode";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (amode == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "amode is NULL");
  *amode = fh->amode;
  return MPI_SUCCESS;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info) {
  static constexpr const char* kFn = "MPI_File_set_info";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (info != MPI_INFO_NULL && (info == nullptr || !info->valid()))
    return file_error(fh, kFn, MPI_ERR_INFO, "invalid info object");
  if (info != MPI_INFO_NULL) lz::rt::io::merge_hints(fh, info->entries);
  return MPI_SUCCESS;
}

int MPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  static constexpr const char* kFn = "MPI_File_get_info";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (info_used == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "info_used is NULL");
  auto* i = new lz_mpi_info_s;
  i->entries = lz::rt::io::hints_in_use(fh);
  *info_used = i;
  return MPI_SUCCESS;
}

int MPI_File_set_atomicity(MPI_File fh, int flag) {
  static constexpr const char* kFn = "MPI_File_set_atomicity";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  int flags[2] = {flag != 0, -(flag != 0)}, agreed[2];
  PMPI_Allreduce(flags, agreed, 2, MPI_INT, MPI_MAX, fh->comm);
  if (agreed[0] != -agreed[1]) return file_error(fh, kFn, MPI_ERR_NOT_SAME, "the ranks gave different flags");
  lz::io::IoQueue::instance().drain();
  fh->atomic = flag != 0;
  fh->access.atomic = fh->atomic;
  return MPI_SUCCESS;
}

int MPI_File_get_atomicity(MPI_File fh, int* flag) {
  static constexpr const char* kFn = "MPI_File_get_atomicity";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  if (flag == nullptr) return file_error(fh, kFn, MPI_ERR_ARG, "flag is NULL");
  *flag = fh->atomic ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_File_sync(MPI_File fh) {
  static constexpr const char* kFn = "MPI_File_sync";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_file(kFn, fh)) return e;
  int err = fh->writable() && fsync(fh->fd) != 0 ? errno : 0;
  int worst = 0;
  agree(fh->comm, err, &worst);  // collective: every rank's writes are on disk when any returns
  if (err != 0) return file_error(fh, kFn, class_of_errno(err), std::string("fsync: ") + std::strerror(err));
  return MPI_SUCCESS;
}

// ---- error handlers and handles ------------------------------------------------------

int MPI_File_create_errhandler(MPI_File_errhandler_function* fn, MPI_Errhandler* errhandler) {
  static constexpr const char* kFn = "MPI_File_create_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (fn == nullptr || errhandler == nullptr)
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "function or errhandler is NULL");
  auto* h = new lz_mpi_errhandler_s{lz_mpi_errhandler_s::kUser};
  h->file_fn = fn;
  *errhandler = h;
  return MPI_SUCCESS;
}

int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  static constexpr const char* kFn = "MPI_File_set_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (errhandler == MPI_ERRHANDLER_NULL) return file_error(file, kFn, MPI_ERR_ARG, "invalid error handler");
  if (file == MPI_FILE_NULL) {  // the default of files opened from now on
    lz::rt::io::set_default_file_errhandler(errhandler);
    return MPI_SUCCESS;
  }
  if (int e = check_file(kFn, file)) return e;
  file->errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  static constexpr const char* kFn = "MPI_File_get_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (errhandler == nullptr) return file_error(file, kFn, MPI_ERR_ARG, "errhandler is NULL");
  if (file == MPI_FILE_NULL) {
    *errhandler = lz::rt::io::default_file_errhandler();
    return MPI_SUCCESS;
  }
  if (int e = check_file(kFn, file)) return e;
  *errhandler = file->errhandler;
  return MPI_SUCCESS;
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
  static constexpr const char* kFn = "MPI_File_call_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (fh != MPI_FILE_NULL)
    if (int e = check_file(kFn, fh)) return e;
  file_error(fh, kFn, errorcode, "error code " + std::to_string(errorcode) + " (raised by the program)");
  return MPI_SUCCESS;
}

}  // extern "C"
