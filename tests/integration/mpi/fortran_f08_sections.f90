! Array sections as choice buffers of `use mpi_f08` (MPI_SUBARRAYS_SUPPORTED,
! MPI-3.1 section 17.1.12): non-contiguous sections given to blocking,
! non-blocking and collective calls are read and written in place, the
! elements around them untouched; a non-blocking receive into a section is
! complete when its request is (not when the call returns); a persistent
! request on a non-contiguous section is refused with MPI_ERR_BUFFER. Every
! result is checked; the first mismatch aborts the job with exit code 1.
! Rank 0 prints "fortran_f08_sections: OK" at the end.
program fortran_f08_sections
  use mpi_f08
  implicit none
  integer :: rank, size, next, prev, i, j, ierr, cls
  integer :: a(9, 9), b(9, 9), v(30), w(30), r(3, 8), s(3, 8)
  integer, asynchronous :: c(9, 9)
  type(MPI_Request) :: req(2), preq
  type(MPI_Status) :: status

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')
  next = mod(rank + 1, size)
  prev = mod(rank - 1 + size, size)

  ! Non-blocking: columns 2, 4, 6 of a 9x9 array (test14's section of
  ! MPICH) around the ring; the receive's columns arrive at MPI_Waitall.
  forall (i = 1:9, j = 1:9) a(i, j) = rank * 1000 + i * 10 + j
  c = -1
  call MPI_Irecv(c(:, 2:6:2), 27, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, req(1))
  call MPI_Isend(a(:, 2:6:2), 27, MPI_INTEGER, next, 1, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  do j = 1, 9
    do i = 1, 9
      if (j == 2 .or. j == 4 .or. j == 6) then
        call check(c(i, j) == prev * 1000 + i * 10 + j, 'MPI_Irecv into c(:, 2:6:2)')
      else
        call check(c(i, j) == -1, 'MPI_Irecv left the other columns of c alone')
      end if
    end do
  end do

  ! Blocking: a row (stride 9 elements) sent, received into every third element.
  v = -1
  call MPI_Sendrecv(a(3, :), 9, MPI_INTEGER, next, 2, v(1:27:3), 9, MPI_INTEGER, prev, 2, &
                    MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == prev, 'MPI_Sendrecv status')
  do i = 1, 30
    if (mod(i - 1, 3) == 0 .and. i <= 27) then
      call check(v(i) == prev * 1000 + 30 + (i - 1) / 3 + 1, 'MPI_Sendrecv into v(1:27:3)')
    else
      call check(v(i) == -1, 'MPI_Sendrecv left the rest of v alone')
    end if
  end do

  ! A collective on sections of 2-d arrays: every other column of row 2.
  forall (i = 1:3, j = 1:8) r(i, j) = rank + i * j
  s = 0
  call MPI_Allreduce(r(2, 1:8:2), s(2, 2:8:2), 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do j = 1, 8
    do i = 1, 3
      if (i == 2 .and. mod(j, 2) == 0) then
        call check(s(i, j) == size * (size - 1) / 2 + size * 2 * (j - 1), 'MPI_Allreduce into s(2, 2:8:2)')
      else
        call check(s(i, j) == 0, 'MPI_Allreduce left the rest of s alone')
      end if
    end do
  end do

  ! A non-blocking collective into a section: every other element of rank
  ! 0's first column to everyone.
  b = -2
  if (rank == 0) b(:, 1) = [(100 + i, i = 1, 9)]
  call MPI_Ibcast(b(1:9:2, 1), 5, MPI_INTEGER, 0, MPI_COMM_WORLD, req(1))
  call MPI_Wait(req(1), MPI_STATUS_IGNORE)
  call check(all(b(1:9:2, 1) == [101, 103, 105, 107, 109]), 'MPI_Ibcast into b(1:9:2, 1)')
  if (rank /= 0) call check(all(b(2:8:2, 1) == -2) .and. all(b(:, 2:9) == -2), 'MPI_Ibcast left the rest of b alone')

  ! A persistent request on a non-contiguous section is refused.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send_init(a(1, :), 9, MPI_INTEGER, next, 3, MPI_COMM_WORLD, preq, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_BUFFER, 'MPI_Send_init of a non-contiguous section is refused with MPI_ERR_BUFFER')
  ! ... and one on a contiguous section is not.
  call MPI_Send_init(a(:, 1), 9, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, preq, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Send_init of a contiguous section')
  call MPI_Start(preq)
  call MPI_Recv(w(1:9), 9, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(preq, MPI_STATUS_IGNORE)
  call MPI_Request_free(preq)
  call check(all(w(1:9) == a(:, 1)), 'a persistent send of a contiguous section')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'fortran_f08_sections: OK'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
