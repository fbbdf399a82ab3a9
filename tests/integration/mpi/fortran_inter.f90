! Intercommunicators and the added send modes through the Fortran binding
! (`use mpi`): the world splits into even and odd ranks joined by
! MPI_Intercomm_create; remote size and group, a point-to-point exchange
! from MPI_ANY_SOURCE, MPI_Alltoallw (its datatype arrays hold one per rank
! of the remote group), MPI_Allreduce, MPI_Intercomm_merge, MPI_Ibsend /
! MPI_Irsend / MPI_Ssend_init / MPI_Bsend_init / MPI_Rsend_init, and the
! cancel of an unmatched synchronous send. Rank 0 prints "fortran_inter: OK".
program fortran_inter
  use mpi
  implicit none
  integer :: rank, size, ierr, local, ic, merged, lrank, lsize, rsize, i, v, total, mrank
  integer :: group, wgroup, color, req, st(MPI_STATUS_SIZE), bufsize
  integer, allocatable :: sendb(:), recvb(:), counts(:), displs(:), types(:), remote(:), world(:)
  integer :: ranks(1), big(100000), reqs(4), rreqs(5), vals(5)
  character, allocatable :: attached(:)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(size >= 2, 'run with 2 ranks or more')
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, local, ierr)
  call MPI_Comm_rank(local, lrank, ierr)
  call MPI_Comm_size(local, lsize, ierr)
  call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, ic, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Intercomm_create')
  call MPI_Comm_test_inter(ic, flag, ierr)
  call check(flag, 'MPI_Comm_test_inter')
  call MPI_Comm_remote_size(ic, rsize, ierr)
  call check(rsize == (size + color) / 2, 'remote size')
  ! The remote group: the other parity's world ranks in order.
  allocate(remote(rsize), world(rsize))
  call MPI_Comm_remote_group(ic, group, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  do i = 1, rsize
    ranks(1) = i - 1
    call MPI_Group_translate_ranks(group, 1, ranks, wgroup, world(i), ierr)
    call check(world(i) == 2 * (i - 1) + 1 - color, 'remote group member')
  end do
  call MPI_Group_free(group, ierr)
  call MPI_Group_free(wgroup, ierr)

  ! Each process sends its world rank to every remote one; received from
  ! MPI_ANY_SOURCE, the status names a remote rank.
  do i = 0, rsize - 1
    call MPI_Send(rank, 1, MPI_INTEGER, i, 3, ic, ierr)
  end do
  do i = 1, rsize
    call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3, ic, st, ierr)
    call check(v == world(st(MPI_SOURCE) + 1), 'p2p from MPI_ANY_SOURCE')
  end do

  ! Alltoallw: to remote rank j, rank * 100 + j.
  allocate(sendb(rsize), recvb(rsize), counts(rsize), displs(rsize), types(rsize))
  do i = 1, rsize
    sendb(i) = rank * 100 + (i - 1)
    counts(i) = 1
    displs(i) = (i - 1) * 4
    types(i) = MPI_INTEGER
  end do
  recvb = -1
  call MPI_Alltoallw(sendb, counts, displs, types, recvb, counts, displs, types, ic, ierr)
  do i = 1, rsize
    call check(recvb(i) == world(i) * 100 + lrank, 'alltoallw')
  end do
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, ic, ierr)
  call check(total == sum(world), 'allreduce: the remote group''s sum')

  ! Merge, the even group first.
  call MPI_Intercomm_merge(ic, color == 1, merged, ierr)
  call MPI_Comm_rank(merged, mrank, ierr)
  if (color == 0) then
    call check(mrank == lrank, 'merged rank (low group)')
  else
    call check(mrank == rsize + lrank, 'merged rank (high group)')
  end if
  call MPI_Comm_free(merged, ierr)

  ! The send modes added, between the group leaders: five messages with one
  ! tag, taken in order by receives posted before the sender is told.
  if (lrank == 0) then
    bufsize = 4 * (4 + MPI_BSEND_OVERHEAD)
    allocate(attached(bufsize))
    call MPI_Buffer_attach(attached, bufsize, ierr)
    if (color == 0) then
      vals = (/ 1, 2, 3, 4, 5 /)
      ! Unmatched (the other leader never receives tag 9): cancelled.
      call MPI_Issend(big, 100000, MPI_INTEGER, 0, 9, ic, req, ierr)
      call MPI_Cancel(req, ierr)
      call MPI_Wait(req, st, ierr)
      call MPI_Test_cancelled(st, flag, ierr)
      call check(flag, 'cancel of an unmatched synchronous send')
      call MPI_Recv(v, 1, MPI_INTEGER, 0, 4, ic, st, ierr)
      call MPI_Ibsend(vals(1), 1, MPI_INTEGER, 0, 5, ic, reqs(1), ierr)
      call MPI_Irsend(vals(2), 1, MPI_INTEGER, 0, 5, ic, reqs(2), ierr)
      call MPI_Ssend_init(vals(3), 1, MPI_INTEGER, 0, 5, ic, reqs(3), ierr)
      call MPI_Rsend_init(vals(4), 1, MPI_INTEGER, 0, 5, ic, reqs(4), ierr)
      call MPI_Startall(2, reqs(3:4), ierr)
      call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
      call MPI_Request_free(reqs(3), ierr)
      call MPI_Request_free(reqs(4), ierr)
      call MPI_Bsend_init(vals(5), 1, MPI_INTEGER, 0, 5, ic, req, ierr)
      call MPI_Start(req, ierr)
      call MPI_Wait(req, st, ierr)
      call MPI_Request_free(req, ierr)
    else
      vals = -1
      do i = 1, 5
        call MPI_Irecv(vals(i), 1, MPI_INTEGER, 0, 5, ic, rreqs(i), ierr)
      end do
      call MPI_Send(0, 1, MPI_INTEGER, 0, 4, ic, ierr)
      call MPI_Waitall(5, rreqs, MPI_STATUSES_IGNORE, ierr)
      do i = 1, 5
        call check(vals(i) == i, 'the send modes, in order')
      end do
    end if
    call MPI_Buffer_detach(attached, bufsize, ierr)
  end if
  call MPI_Comm_free(ic, ierr)
  call MPI_Comm_free(local, ierr)
  if (rank == 0) print '(a)', 'fortran_inter: OK'
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
