// The open MPI files in a cr=app snapshot, and their pointers put back when
// the restarted program opens them again.
//
// cr=app restarts a program from main: its setup opens its files and sets
// their views again, as it did the first time, and the restart has rolled
// each file back to its size at the checkpoint (runtime/procfiles). What the
// program cannot know is where its pointers were. So at every line each
// rank writes `mpi-files` into its snapshot directory, a line per open file:
// the absolute path, access mode, the file communicator's size and the
// rank's place in it, the view's etype size and representation, the
// individual pointer, atomicity, and the shared pointer as its last
// collective reset plus this rank's part since (the shared pointer at the
// ranks' safe points is the reset plus the sum of the parts: a line crosses
// no collective call, and what a rank adds after its line it adds again
// after the restart).
//
// On the restart LZ_Restore reads every old rank's record. A file the
// program opens (before or after LZ_Restore) gets the record of the same
// path and access mode, the first open of a path the first record of it;
// the record is put back each time the file's view has the recorded etype
// size and representation (at the open's default view, or at
// MPI_File_set_view), until the program moves a pointer itself (seek) or
// accesses data. On another rank count a rank takes the individual pointer
// that every old rank had (its part of an interleaving view, the usual
// case), and the shared pointer of a file the whole old job held; a pointer
// the old ranks had different values of is left at 0, with a warning naming
// the file.
//
//   MPI_File_open:      io::track_open(f)  ... io::take_record(f, &shared) when the view matches
//   MPI_File_close:     io::track_close(f)
//   AppService line:    io::save_open_files(rank_dir)   (the save hook set at MPI_Init)
//   LZ_Restore (first): io::load_file_records(snapshot_dir, old_nranks, rank, nranks)
#pragma once

#include <string>

#include "lazarus/status.h"
#include "mpi.h"

namespace lz::rt::io {

inline constexpr const char* kMpiFilesRecord = "mpi-files";

// The file list (in opening order), and a restart's records to match.
void track_open(MPI_File f);
void track_close(MPI_File f);
// Writes rank_dir/mpi-files (nothing when no file is open).
Status save_open_files(const std::string& rank_dir);
// Reads every old rank's record of the snapshot, keeps this rank's, and
// attaches them to the files open already (their views are checked at the
// next take_record).
Status load_file_records(const std::string& snapshot_dir, int old_nranks, int rank, int nranks);
// When f has a record and its view now has the recorded etype size and
// representation: puts its individual pointer and atomicity back, sets
// *shared to the recorded shared pointer (when known), true. Every rank of
// the file calls it at the same point and gets the same answer for
// `shared` (the records are the job's, the etype and representation the
// same at every rank); the caller resets the shared pointer collectively.
bool take_record(MPI_File f, MPI_Offset* shared);
// The program moved a pointer or accessed data: the record is done with.
void forget_record(MPI_File f);

}  // namespace lz::rt::io
