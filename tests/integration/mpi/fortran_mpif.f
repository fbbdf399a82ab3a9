C     mpif.h in fixed source form: a ring and reductions, checked.
      program ringf
      implicit none
      include 'mpif.h'
      integer ierr, rank, size, left, right, val, sum
      integer status(MPI_STATUS_SIZE)
      double precision t
      real x, y
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
      left = mod(rank - 1 + size, size)
      right = mod(rank + 1, size)
      call MPI_SENDRECV(rank, 1, MPI_INTEGER, right, 1, val, 1,
     &     MPI_INTEGER, left, 1, MPI_COMM_WORLD, status, ierr)
      if (val .ne. left .or. status(MPI_SOURCE) .ne. left) then
         print *, 'rank', rank, ': FAILED ring', val
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      call MPI_ALLREDUCE(rank, sum, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (sum .ne. size * (size - 1) / 2) then
         print *, 'rank', rank, ': FAILED allreduce', sum
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
C     A REAL buffer to the routine that took INTEGERs above: mpif.h has
C     no interfaces, mpifort lets gfortran accept the mismatch.
      x = real(rank)
      call MPI_ALLREDUCE(x, y, 1, MPI_REAL, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      if (y .ne. real(size - 1)) then
         print *, 'rank', rank, ': FAILED allreduce REAL', y
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      t = MPI_WTIME()
      if (rank .eq. 0) print '(a)', 'mpif.h: OK'
      call MPI_FINALIZE(ierr)
      end
