! MPI-IO through `use mpi` (np 1 or more): MPI_FILE_OPEN with
! MPI_MODE_DELETE_ON_CLOSE, explicit offsets (INTEGER(MPI_OFFSET_KIND))
! written independently and collectively and read back from another rank's
! part, MPI_FILE_GET_SIZE, a view of MPI_INTEGER etypes interleaving the
! ranks (MPI_FILE_SET_VIEW / _GET_VIEW), the individual pointer
! (MPI_FILE_SEEK, _GET_POSITION, _GET_BYTE_OFFSET), a non-blocking
! MPI_FILE_IWRITE_AT completed by MPI_WAIT with MPI_GET_COUNT, ordered writes
! at the shared pointer (MPI_FILE_GET_POSITION_SHARED), the access mode and
! atomicity, and MPI_FILE_NULL after MPI_FILE_CLOSE. Every result is
! checked; the first mismatch aborts the job with exit code 1. Rank 0 prints
! "fortran_io: OK" at the end.
program fortran_io
  use mpi
  implicit none
  integer, parameter :: n = 4
  integer :: rank, size, ierr, fh, amode, i, count, req, filetype, etype, ftype
  integer :: status(MPI_STATUS_SIZE)
  integer :: mine(n), theirs(n), one(1)
  integer(kind=MPI_OFFSET_KIND) :: off, fsize, pos, byte, disp
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  logical :: flag
  character(len=MPI_MAX_DATAREP_STRING) :: rep
  character(len=64) :: job

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  amode = MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE
  ! A name of this job's own (Lazarus sets LZ_JOB_ID; another MPI gets "x"),
  ! so that jobs running at once in one directory do not share the file.
  call get_environment_variable('LZ_JOB_ID', job)
  if (len_trim(job) == 0) job = 'x'
  call MPI_File_open(MPI_COMM_WORLD, 'fortran_io.' // trim(job) // '.dat', amode, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_open')

  ! Explicit offsets: rank r's n integers at byte r * 4n, then read back
  ! the next rank's after a collective write of the same.
  do i = 1, n
    mine(i) = 1000 * rank + i
  end do
  off = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_write_at(fh, off, mine, n, MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == n, 'MPI_File_write_at count')
  call MPI_File_write_at_all(fh, off, mine, n, MPI_INTEGER, status, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  off = int(mod(rank + 1, size), MPI_OFFSET_KIND) * n * 4
  call MPI_File_read_at_all(fh, off, theirs, n, MPI_INTEGER, status, ierr)
  do i = 1, n
    call check(theirs(i) == 1000 * mod(rank + 1, size) + i, 'MPI_File_read_at_all value')
  end do
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == int(size, MPI_OFFSET_KIND) * n * 4, 'MPI_File_get_size')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! A view: one integer per rank in turn; the individual pointer counts etypes.
  call MPI_Type_vector(1, 1, size, MPI_INTEGER, filetype, ierr)
  call MPI_Type_get_extent(MPI_INTEGER, lb, extent, ierr)
  call MPI_Type_create_resized(filetype, 0_MPI_ADDRESS_KIND, extent * size, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  disp = int(rank, MPI_OFFSET_KIND) * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view')
  call MPI_File_get_view(fh, disp, etype, filetype, rep, ierr)
  call check(disp == int(rank, MPI_OFFSET_KIND) * 4 .and. etype == MPI_INTEGER .and. rep == 'native', &
             'MPI_File_get_view')
  call MPI_Type_free(filetype, ierr)
  call MPI_File_seek(fh, 2_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  call MPI_File_write(fh, mine, 1, MPI_INTEGER, status, ierr)
  call MPI_File_get_position(fh, pos, ierr)
  call check(pos == 3, 'MPI_File_get_position after one integer at 2')
  call MPI_File_get_byte_offset(fh, pos, byte, ierr)
  call check(byte == int(rank, MPI_OFFSET_KIND) * 4 + 3 * size * 4, 'MPI_File_get_byte_offset')

  ! Non-blocking, completed by MPI_WAIT.
  one(1) = -rank
  call MPI_File_iwrite_at(fh, 5_MPI_OFFSET_KIND, one, 1, MPI_INTEGER, req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == 1 .and. req == MPI_REQUEST_NULL, 'MPI_File_iwrite_at + MPI_Wait')
  call MPI_File_read_at(fh, 5_MPI_OFFSET_KIND, theirs, 1, MPI_INTEGER, status, ierr)
  call check(theirs(1) == -rank, 'MPI_File_read_at of the non-blocking write')

  ! Ordered writes: rank r writes r + 1 integers; the shared pointer ends past all.
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_write_ordered(fh, mine, rank + 1, MPI_INTEGER, status, ierr)
  call MPI_File_get_position_shared(fh, pos, ierr)
  call check(pos == int(size, MPI_OFFSET_KIND) * (size + 1) / 2, 'MPI_File_get_position_shared')

  call MPI_File_get_amode(fh, i, ierr)
  call check(i == amode, 'MPI_File_get_amode')
  call MPI_File_get_atomicity(fh, flag, ierr)
  call check(.not. flag, 'MPI_File_get_atomicity')
  call MPI_File_close(fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh == MPI_FILE_NULL, 'MPI_File_close')
  call MPI_Type_free(ftype, ierr)
  if (rank == 0) print '(a)', 'fortran_io: OK'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: r, e
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, r, e)
      print '(a,i0,2a)', 'rank ', r, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine
end program
