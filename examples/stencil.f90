! stencil.f90: a 2-D heat stencil in Fortran on an N x N grid, decomposed by
! columns (contiguous in Fortran's column-major order, so the halo columns go
! as plain MPI_DOUBLE_PRECISION arrays). Checkpointed as a core image (cr
! criu): nothing in the program knows about checkpoints. The result (a hash
! of the whole grid gathered on rank 0, "result <hash>") is the same after
! any checkpoint/restart as in an uninterrupted run on as many ranks.
!
!   mpifort stencil.f90 -o stencil_f
!   mpirun -np 4 ./stencil_f 400 &
!   lazarus checkpoint <job> --term --wait
!   lazarus restart ~/.lazarus/snapshots/stencil_f.<job>
!
! Arguments: [iterations (400)] [N (64)] [microseconds of sleep per
! iteration (20000: a checkpoint lands mid-run; 0 runs at full speed)]
program stencil
  use mpi
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function usleep(us) bind(c, name='usleep')
      import :: c_int
      integer(c_int), value :: us
    end function
  end interface
  integer :: ierr, rank, size, n, iters, delay, it, cols, first, left, right, i, j, p, at
  double precision, allocatable :: u(:, :), next(:, :), whole(:, :)
  integer, allocatable :: counts(:), displs(:)
  double precision :: local_change, change
  integer(kind=8) :: h
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  iters = 400
  n = 64
  delay = 20000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) delay
  end if
  if (n < 3 .or. n < size) then
    if (rank == 0) print '(a)', 'stencil: N must be at least 3 and at least the number of ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if

  ! Columns first .. first + cols - 1 (0-based, global) are this rank's;
  ! u(:, 0) and u(:, cols + 1) are the halos.
  cols = n / size
  if (rank < mod(n, size)) cols = cols + 1
  first = rank * (n / size) + min(rank, mod(n, size))
  allocate(u(n, 0:cols + 1), next(n, 0:cols + 1))
  u = 0
  do j = 1, cols
    do i = 1, n
      if (first + j - 1 == 0) then
        u(i, j) = 100.0d0  ! a hot left edge
      else
        u(i, j) = dble(mod((i * 7919 + (first + j) * 104729), 1000)) / 10.0d0
      end if
    end do
  end do
  left = rank - 1
  if (rank == 0) left = MPI_PROC_NULL
  right = rank + 1
  if (rank == size - 1) right = MPI_PROC_NULL

  do it = 1, iters
    call MPI_Sendrecv(u(:, 1), n, MPI_DOUBLE_PRECISION, left, 0, u(:, cols + 1), n, MPI_DOUBLE_PRECISION, &
                      right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(u(:, cols), n, MPI_DOUBLE_PRECISION, right, 1, u(:, 0), n, MPI_DOUBLE_PRECISION, &
                      left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    next = u
    local_change = 0
    do j = 1, cols
      if (first + j - 1 == 0 .or. first + j - 1 == n - 1) cycle  ! fixed boundary
      do i = 2, n - 1
        next(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        local_change = max(local_change, abs(next(i, j) - u(i, j)))
      end do
    end do
    u(:, 1:cols) = next(:, 1:cols)
    call MPI_Allreduce(local_change, change, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (delay > 0) i = usleep(int(delay, c_int))
  end do

  ! The whole grid on rank 0, in global order.
  allocate(counts(size), displs(size), whole(n, n))
  at = 0
  do p = 0, size - 1
    counts(p + 1) = n * (n / size)
    if (p < mod(n, size)) counts(p + 1) = counts(p + 1) + n
    displs(p + 1) = at
    at = at + counts(p + 1)
  end do
  call MPI_Gatherv(u(:, 1:cols), n * cols, MPI_DOUBLE_PRECISION, whole, counts, displs, &
                   MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    ! A hash of the bits of every value, below 2**31 so it never overflows.
    h = 7
    do j = 1, n
      do i = 1, n
        h = mod(h * 31 + modulo(transfer(whole(i, j), 0_8), 1000003_8), 2147483647_8)
      end do
    end do
    print '(a,i0,a,i0,a,es12.5)', 'stencil: N=', n, ' iterations=', iters, ' last change=', change
    print '(a,i0)', 'result ', h
  end if
  call MPI_Finalize(ierr)
end program
