! More of the Fortran binding through `use mpi`, the entry points whose
! argument lengths the binding computes or whose arguments are special:
! MPI_Alltoallw (types per rank of the communicator), MPI_Cart_sub (a LOGICAL
! per dimension of the topology), MPI_Neighbor_alltoallw (types per
! neighbour), MPI_Dist_graph_create_adjacent with MPI_UNWEIGHTED, strings
! out with a length argument (MPI_Info_get) or a fixed maximum
! (MPI_Get_library_version), persistent requests with MPI_Startall and
! MPI_Testall, matched probe, pack/unpack, a Fortran-order subarray and its
! decoding, an intercommunicator (create, remote size, MPI_Alltoallw sized by
! the remote group, allreduce, merge), the _x calls, MPI_Status_set_*, an F90
! parameterized type and MPI_Type_match_size; MPI-4.0's MPI_Allreduce_init
! started twice, MPI_Isendrecv and external32. Every result is checked; a mismatch
! aborts with exit code 1.
module checks2
  use mpi
  implicit none
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      print '(a,i0,2a)', 'rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end module

program fortran2
  use mpi
  use checks2
  implicit none
  integer :: ierr, rank, size, i, j, n, left, right, cart, sub, dims(2), graph, info, msg, pos, sub_t
  integer, allocatable :: sendbuf(:), recvbuf(:), counts(:), displs(:), types(:)
  integer(kind=MPI_ADDRESS_KIND), allocatable :: adispls(:)
  integer :: reqs(2), statuses(MPI_STATUS_SIZE, 2), status(MPI_STATUS_SIZE)
  integer :: sizes(2), subsizes(2), starts(2), a(4, 5), b(4, 5)
  integer :: ni, na, nd, combiner, ints(16), dtypes(4)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(4)
  logical :: flag, remain(2)
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=20) :: value
  character(len=64) :: packed
  double precision :: d, d2
  ! The persistent receive's buffer, written by calls that do not name it:
  ! MPI_F_SYNC_REG around them keeps it out of registers (without it,
  ! gfortran -O2 was seen to keep the -1 stored before MPI_Startall).
  integer :: pn
  integer(kind=MPI_COUNT_KIND) :: csize, clb, cext
  integer :: f90_t

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  left = mod(rank - 1 + size, size)
  right = mod(rank + 1, size)

  ! ---- MPI_Alltoallw: one INTEGER to every rank, byte displacements
  allocate(sendbuf(size), recvbuf(size), counts(size), displs(size), types(size))
  sendbuf = [(rank * 1000 + i, i = 0, size - 1)]
  recvbuf = -1
  counts = 1
  displs = [(4 * i, i = 0, size - 1)]
  types = MPI_INTEGER
  call MPI_Alltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, MPI_COMM_WORLD, ierr)
  call check(all(recvbuf == [(i * 1000 + rank, i = 0, size - 1)]), 'alltoallw')

  ! ---- Cartesian: MPI_Cart_sub keeps the second dimension
  dims = 0
  call MPI_Dims_create(size, 2, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.false., .true.], .false., cart, ierr)
  remain = [.false., .true.]
  call MPI_Cart_sub(cart, remain, sub, ierr)
  call MPI_Comm_size(sub, n, ierr)
  call check(n == dims(2), 'cart_sub size')
  ! neighbour alltoallw on the torus row: 2 neighbours per dimension
  deallocate(counts, types)
  allocate(counts(4), types(4), adispls(4))
  counts = 1
  types = MPI_INTEGER
  adispls = [(4 * i, i = 0, 3)]
  sendbuf(1:4) = [(rank * 10 + i, i = 1, 4)]
  recvbuf = -1
  call MPI_Neighbor_alltoallw(sendbuf, counts, adispls, types, recvbuf, counts, adispls, types, cart, ierr)
  call check(ierr == MPI_SUCCESS, 'neighbor_alltoallw')
  ! dimension 0 is not periodic: an edge's missing neighbour leaves -1
  call MPI_Cart_shift(cart, 1, 1, i, j, ierr)
  call check(recvbuf(3) == i * 10 + 4 .and. recvbuf(4) == j * 10 + 3, 'neighbor_alltoallw periodic dimension')
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(cart, ierr)

  ! ---- a ring as a distributed graph without weights
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, [left], MPI_UNWEIGHTED, 1, [right], MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  call MPI_Dist_graph_neighbors_count(graph, i, j, flag, ierr)
  call check(i == 1 .and. j == 1 .and. .not. flag, 'dist_graph unweighted')
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, n, 1, MPI_INTEGER, graph, ierr)
  call check(n == left, 'neighbor_allgather on the ring')
  call MPI_Comm_free(graph, ierr)

  ! ---- strings out
  call MPI_Get_library_version(version, n, ierr)
  call check(n > 0 .and. index(version, 'Lazarus') > 0, 'library version')
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'colour', 'dark blue', ierr)
  call MPI_Info_get(info, 'colour ', 4, value, flag, ierr)
  call check(flag .and. value == 'dark', 'info_get truncated to valuelen')
  call MPI_Info_get(info, 'colour', 20, value, flag, ierr)
  call check(flag .and. value == 'dark blue', 'info_get')
  call MPI_Info_get_valuelen(info, 'colour', n, flag, ierr)
  call check(flag .and. n == 9, 'info_get_valuelen')
  call MPI_Info_get(info, 'shape', 20, value, flag, ierr)
  call check(.not. flag, 'info_get of a missing key')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'info_free')

  ! ---- persistent requests, Startall and Testall
  call MPI_Send_init(rank, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Recv_init(pn, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(2), ierr)
  do j = 1, 3
    pn = -1
    call MPI_F_sync_reg(pn)
    call MPI_Startall(2, reqs, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(2, reqs, flag, statuses, ierr)
    end do
    call MPI_F_sync_reg(pn)
    call check(pn == left .and. statuses(MPI_SOURCE, 2) == left, 'persistent round')
    call check(reqs(1) /= MPI_REQUEST_NULL, 'persistent requests stay')
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'request_free')

  ! ---- matched probe
  call MPI_Send(rank * 2.0d0, 1, MPI_DOUBLE_PRECISION, right, 6, MPI_COMM_WORLD, ierr)
  call MPI_Mprobe(left, 6, MPI_COMM_WORLD, msg, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n, ierr)
  call check(n == 1 .and. msg /= MPI_MESSAGE_NULL, 'mprobe')
  call MPI_Mrecv(d, 1, MPI_DOUBLE_PRECISION, msg, status, ierr)
  call check(d == left * 2.0d0 .and. msg == MPI_MESSAGE_NULL, 'mrecv')

  ! ---- pack and unpack
  pos = 0
  call MPI_Pack(rank, 1, MPI_INTEGER, packed, 64, pos, MPI_COMM_WORLD, ierr)
  call MPI_Pack(0.5d0, 1, MPI_DOUBLE_PRECISION, packed, 64, pos, MPI_COMM_WORLD, ierr)
  call check(pos == 12, 'pack position')
  pos = 0
  call MPI_Unpack(packed, 64, pos, n, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Unpack(packed, 64, pos, d2, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call check(n == rank .and. d2 == 0.5d0, 'unpack')

  ! ---- a Fortran-order subarray: rows 2..3, columns 2..4 of a 4 x 5 array
  sizes = [4, 5]
  subsizes = [2, 3]
  starts = [1, 1]
  call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, sub_t, ierr)
  call MPI_Type_commit(sub_t, ierr)
  a = reshape([(rank * 100 + i, i = 1, 20)], [4, 5])
  b = 0
  call MPI_Sendrecv(a, 1, sub_t, right, 7, b, 1, sub_t, left, 7, MPI_COMM_WORLD, status, ierr)
  do j = 1, 5
    do i = 1, 4
      if (i >= 2 .and. i <= 3 .and. j >= 2 .and. j <= 4) then
        call check(b(i, j) == left * 100 + i + 4 * (j - 1), 'subarray element')
      else
        call check(b(i, j) == 0, 'outside the subarray')
      end if
    end do
  end do
  call MPI_Type_get_envelope(sub_t, ni, na, nd, combiner, ierr)
  call check(combiner == MPI_COMBINER_SUBARRAY .and. nd == 1 .and. ni == 3 * 2 + 2, 'subarray envelope')
  call MPI_Type_get_contents(sub_t, 16, 4, 4, ints, addrs, dtypes, ierr)
  call check(ints(1) == 2 .and. ints(2) == 4 .and. ints(4) == 2 .and. ints(ni) == MPI_ORDER_FORTRAN, 'subarray contents')
  call check(dtypes(1) == MPI_INTEGER, 'contents give MPI_INTEGER back')
  call MPI_Type_free(sub_t, ierr)

  ! ---- the _x calls, MPI_Status_set_*, an F90 parameterized type
  call MPI_Type_size_x(MPI_DOUBLE_PRECISION, csize, ierr)
  call check(csize == 8, 'MPI_Type_size_x')
  call MPI_Type_get_extent_x(MPI_INTEGER, clb, cext, ierr)
  call check(clb == 0 .and. cext == 4, 'MPI_Type_get_extent_x')
  call MPI_Status_set_elements_x(status, MPI_INTEGER, 6_MPI_COUNT_KIND, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  call check(n == 6, 'MPI_Status_set_elements_x then MPI_Get_count')
  call MPI_Get_elements_x(status, MPI_INTEGER, csize, ierr)
  call check(csize == 6, 'MPI_Get_elements_x')
  call MPI_Status_set_cancelled(status, .true., ierr)
  call MPI_Test_cancelled(status, flag, ierr)
  call check(flag, 'MPI_Status_set_cancelled')
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, f90_t, ierr)
  d = rank
  call MPI_Allreduce(d, d2, 1, f90_t, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(d2 == size * (size - 1) / 2, 'allreduce in MPI_Type_create_f90_real(15)')
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, f90_t, ierr)
  call check(f90_t == MPI_INTEGER8, 'MPI_Type_match_size')

  ! ---- an intercommunicator between the even and the odd ranks
  if (size >= 2) call intercomm_checks(rank, size)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call mpi4_checks(rank, size)
  if (rank == 0) print '(a)', 'fortran2: OK'
  call MPI_Finalize(ierr)
contains

  subroutine mpi4_checks(rank, size)
    integer, intent(in) :: rank, size
    integer :: req, ierr, it, status(MPI_STATUS_SIZE), back
    ! Read by MPI_Start and written by MPI_Wait, which do not name them: the
    ! compiler must not keep them in registers across those calls.
    integer, volatile :: mine, total, got
    character(len=16) :: packed
    integer(kind=MPI_ADDRESS_KIND) :: pos, esize
    call MPI_Allreduce_init(mine, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call check(ierr == MPI_SUCCESS, 'allreduce_init')
    do it = 1, 2
      mine = rank * it
      call MPI_Start(req, ierr)
      call MPI_Wait(req, status, ierr)
      call check(total == it * size * (size - 1) / 2, 'persistent allreduce')
    end do
    call MPI_Request_free(req, ierr)
    call check(req == MPI_REQUEST_NULL, 'persistent request freed')
    call MPI_Isendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, size), 3, got, 1, MPI_INTEGER, &
                       mod(rank + size - 1, size), 3, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, status, ierr)
    call check(got == mod(rank + size - 1, size) .and. status(MPI_SOURCE) == got, 'isendrecv')
    call MPI_Pack_external_size('external32', 1, MPI_INTEGER, esize, ierr)
    call check(esize == 4, 'external32 size of an INTEGER')
    pos = 0
    call MPI_Pack_external('external32', 258 + rank, 1, MPI_INTEGER, packed, 16_MPI_ADDRESS_KIND, pos, ierr)
    call check(pos == 4 .and. ichar(packed(3:3)) == 1, 'external32 is big-endian')
    pos = 0
    call MPI_Unpack_external('external32', packed, 4_MPI_ADDRESS_KIND, pos, back, 1, MPI_INTEGER, ierr)
    call check(back == 258 + rank, 'external32 round trip')
  end subroutine

  subroutine intercomm_checks(rank, size)
    integer, intent(in) :: rank, size
    integer :: colour, local, ic, merged, rsize, nevens, j, n, ierr, total
    integer, allocatable :: sa(:), ra(:), one(:), bd(:), types(:)
    logical :: inter
    colour = mod(rank, 2)
    nevens = (size + 1) / 2
    call MPI_Comm_split(MPI_COMM_WORLD, colour, rank, local, ierr)
    ! leaders: local rank 0 of each side, world ranks 0 and 1
    call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - colour, 42, ic, ierr)
    call check(ierr == MPI_SUCCESS, 'intercomm_create')
    call MPI_Comm_test_inter(ic, inter, ierr)
    call MPI_Comm_remote_size(ic, rsize, ierr)
    call check(inter .and. rsize == merge(size - nevens, nevens, colour == 0), 'remote size')
    ! MPI_Alltoallw: a type per remote rank (the binding sizes the arrays by it)
    allocate(sa(rsize), ra(rsize), one(rsize), bd(rsize), types(rsize))
    sa = [(rank * 100 + j, j = 0, rsize - 1)]
    ra = -1
    one = 1
    bd = [(4 * j, j = 0, rsize - 1)]
    types = MPI_INTEGER
    call MPI_Alltoallw(sa, one, bd, types, ra, one, bd, types, ic, ierr)
    ! remote rank j is world rank 2j + (1 - colour); I am its local rank rank / 2
    call check(all(ra == [((2 * j + 1 - colour) * 100 + rank / 2, j = 0, rsize - 1)]), 'alltoallw on an intercommunicator')
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, ic, ierr)
    call check(total == sum([(2 * j + 1 - colour, j = 0, rsize - 1)]), 'allreduce on an intercommunicator')
    ! the odd side high: the evens come first
    call MPI_Intercomm_merge(ic, colour == 1, merged, ierr)
    call MPI_Comm_size(merged, n, ierr)
    call MPI_Comm_rank(merged, j, ierr)
    call check(n == size .and. j == merge(rank / 2, nevens + rank / 2, colour == 0), 'intercomm_merge')
    call MPI_Comm_free(merged, ierr)
    call MPI_Comm_free(ic, ierr)
    call MPI_Comm_free(local, ierr)
  end subroutine
end program
