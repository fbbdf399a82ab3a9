program hello
  use mpi
  implicit none
  integer :: rank, nranks, total, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (*, '(a, i0, a, i0, a, i0)') 'hello f ', rank, '/', nranks, ' sum ', total
  call MPI_Finalize(ierr)
end program hello
