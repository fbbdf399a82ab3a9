! The Fortran binding through `use mpi`: point to point (blocking,
! non-blocking, wildcards, status fields), collectives on Fortran types with
! their ops, derived types, communicators and groups, error handlers
! (returning codes, and one written in Fortran), a Fortran reduction op,
! keyvals and attributes, a Cartesian topology. Every result is checked; the
! first mismatch aborts the job with exit code 1. Rank 0 prints
! "fortran: OK" at the end.
module checks
  use mpi
  implicit none
  integer :: handler_calls = 0, deletes = 0
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

  ! A user reduction: element-wise a*b + a + b on INTEGERs (commutative,
  ! associative), so that the result tells it ran and in what amount.
  subroutine combine(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    call check(datatype == MPI_INTEGER, 'user op gets MPI_INTEGER')
    do i = 1, len
      inoutvec(i) = invec(i) * inoutvec(i) + invec(i) + inoutvec(i)
    end do
  end subroutine

  ! Keyval callbacks: the copy doubles the value and adds the extra state;
  ! the delete counts its calls.
  subroutine copy_double(oldcomm, keyval, extra, valin, valout, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    ierr = MPI_SUCCESS
    if (oldcomm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID) ierr = MPI_ERR_OTHER
    valout = valin * 2 + extra
    flag = .true.
  end subroutine

  subroutine count_delete(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ierr = MPI_SUCCESS
    if (comm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID .or. extra /= 1) ierr = MPI_ERR_OTHER
    if (val > 0) deletes = deletes + 1
  end subroutine

  subroutine my_handler(comm, code)
    integer :: comm, code
    handler_calls = handler_calls + 1
    call check(comm == MPI_COMM_WORLD .and. code /= MPI_SUCCESS, 'handler gets MPI_COMM_WORLD and an error')
  end subroutine
end module

program fortran_test
  use mpi
  use checks
  implicit none
  integer :: ierr, rank, size, left, right, i, j, n, cls, len, provided
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4)
  integer :: reqs(4), idx, outcount, indices(4)
  integer :: ibuf(10), ibuf2(10), counts(64), displs(64)
  integer, allocatable :: gathered(:), a2a_in(:), a2a_out(:)
  real :: rbuf(3), rres(3)
  double precision :: dbuf(2), dres(2), t0
  complex :: cbuf(2), cres(2)
  logical :: lbuf(2), lres(2), flag
  integer :: pair(2), pairres(2)
  double precision :: dpair(2), dpairres(2)
  integer :: vec, col, st, oldtypes(2), blocklens(2)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(2), lb, extent, attr, extra
  integer :: grid(4, 3), recvcol(4)
  integer :: half, dup, world_group, even_group, evens, ranks(64), result, keyval, op, eh
  integer :: cart, dims(2), coords(2), src, dst
  logical :: periods(2)
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_OBJECT_NAME) :: name
  ! Written by a call that does not name them (through MPI_BOTTOM): volatile,
  ! or the compiler may keep them in registers across it.
  integer, volatile :: sn
  double precision, volatile :: sd(2)

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init_thread')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  left = mod(rank - 1 + size, size)
  right = mod(rank + 1, size)
  t0 = MPI_Wtime()

  ! ---- blocking ring with status fields
  ibuf = rank
  call MPI_Sendrecv(ibuf, 10, MPI_INTEGER, right, 7, ibuf2, 10, MPI_INTEGER, left, 7, &
                    MPI_COMM_WORLD, status, ierr)
  call check(all(ibuf2 == left), 'sendrecv data')
  call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 7, 'sendrecv status')
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  call check(n == 10, 'get_count')
  call MPI_Sendrecv(ibuf, 1, MPI_INTEGER, MPI_PROC_NULL, 1, ibuf2, 1, MPI_INTEGER, MPI_PROC_NULL, 1, &
                    MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == MPI_PROC_NULL .and. status(MPI_TAG) == MPI_ANY_TAG, 'PROC_NULL status')

  ! ---- non-blocking with wildcards; Waitany's and Waitsome's indices are 1-based
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, right, 100 + rank, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'waitall frees requests')
  call check(statuses(MPI_SOURCE, 1) == left .and. statuses(MPI_TAG, 1) == 100 + left, 'wildcard status')
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Send(ibuf, 10, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(2, reqs, idx, status, ierr)
  call check(idx == 1 .and. status(MPI_SOURCE) == left, 'waitany index')
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(ibuf, 10, MPI_INTEGER, right, 4, MPI_COMM_WORLD, ierr)
  outcount = 0
  do while (outcount == 0)
    call MPI_Waitsome(1, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
  end do
  call check(outcount == 1 .and. indices(1) == 1, 'waitsome indices')
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(ibuf, 10, MPI_INTEGER, right, 5, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE, ierr)
  end do
  call check(reqs(1) == MPI_REQUEST_NULL, 'test frees the request')

  ! ---- collectives on Fortran types
  if (rank == 0) ibuf = [(i, i = 1, 10)]
  call MPI_Bcast(ibuf, 10, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(all(ibuf == [(i, i = 1, 10)]), 'bcast')
  rbuf = [1.0, 2.0, real(rank)]
  call MPI_Allreduce(rbuf, rres, 3, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(rres(1) == size .and. rres(2) == 2 * size .and. rres(3) == size * (size - 1) / 2, 'sum REAL')
  dbuf = [dble(rank), -dble(rank)]
  call MPI_Allreduce(dbuf, dres, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(dres(1) == size - 1 .and. dres(2) == 0, 'max DOUBLE PRECISION')
  cbuf = [cmplx(1.0, real(rank)), cmplx(0.0, 1.0)]
  call MPI_Allreduce(cbuf, cres, 2, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(cres(1) == cmplx(real(size), real(size * (size - 1) / 2)) .and. cres(2) == cmplx(0.0, real(size)), &
             'sum COMPLEX')
  call MPI_Allreduce([cmplx(0.0, 1.0)], cres, 1, MPI_COMPLEX, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(abs(cres(1) - (0.0, 1.0)**size) < 1e-5, 'prod COMPLEX')
  lbuf = [.true., rank == 0]
  call MPI_Allreduce(lbuf, lres, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(lres(1) .and. (lres(2) .eqv. (size == 1)), 'land LOGICAL')
  call MPI_Allreduce(lbuf, lres, 2, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lres(1) .and. lres(2), 'lor LOGICAL')
  pair = [mod(rank, 3), rank]
  call MPI_Allreduce(pair, pairres, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(pairres(1) == min(size - 1, 2) .and. pairres(2) == min(size - 1, 2), 'maxloc 2INTEGER')
  dpair = [dble(-rank), dble(rank)]
  call MPI_Allreduce(dpair, dpairres, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(dpairres(1) == -(size - 1) .and. dpairres(2) == size - 1, 'minloc 2DOUBLE_PRECISION')
  ibuf(1) = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ibuf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ibuf(1) == size * (size + 1) / 2, 'allreduce MPI_IN_PLACE')
  call MPI_Scan(rank + 1, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(n == (rank + 1) * (rank + 2) / 2, 'scan')
  allocate(gathered(size), a2a_in(size), a2a_out(size))
  call MPI_Gather(rank * 2, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, size - 1, MPI_COMM_WORLD, ierr)
  if (rank == size - 1) call check(all(gathered == [(2 * i, i = 0, size - 1)]), 'gather')
  call MPI_Allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gathered == [(i, i = 0, size - 1)]), 'allgather')
  a2a_in = [(rank * 100 + i, i = 0, size - 1)]
  call MPI_Alltoall(a2a_in, 1, MPI_INTEGER, a2a_out, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(a2a_out == [(i * 100 + rank, i = 0, size - 1)]), 'alltoall')
  counts(1:size) = 1
  displs(1:size) = [(i, i = 0, size - 1)]
  call MPI_Allgatherv(rank, 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(gathered == [(i, i = 0, size - 1)]), 'allgatherv')
  call MPI_Iallreduce(rank, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call check(n == size * (size - 1) / 2 .and. reqs(1) == MPI_REQUEST_NULL, 'iallreduce')

  ! ---- a user op written in Fortran
  call MPI_Op_create(combine, .true., op, ierr)
  call check(ierr == MPI_SUCCESS .and. op /= MPI_OP_NULL, 'op_create')
  call MPI_Allreduce(1, n, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(n == 2**size - 1, 'user op result')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'op_free')

  ! ---- derived types: a row of a column-major array, a struct from MPI_BOTTOM
  grid = reshape([(rank * 100 + i, i = 1, 12)], [4, 3])
  call MPI_Type_vector(3, 1, 4, MPI_INTEGER, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call MPI_Type_size(vec, n, ierr)
  call check(n == 12, 'type_size vector')
  call MPI_Type_get_extent(vec, lb, extent, ierr)
  call check(lb == 0 .and. extent == 36, 'type_get_extent vector')
  ! row 2 of mine to the right; its row 2 lands in my row 4
  call MPI_Sendrecv(grid(2, 1), 1, vec, right, 9, grid(4, 1), 1, vec, left, 9, MPI_COMM_WORLD, status, ierr)
  call check(all(grid(4, :) == [left * 100 + 2, left * 100 + 6, left * 100 + 10]), 'vector row')
  call check(all(grid(1, :) == [rank * 100 + 1, rank * 100 + 5, rank * 100 + 9]), 'vector row untouched')
  call MPI_Type_contiguous(4, MPI_INTEGER, col, ierr)
  call MPI_Type_commit(col, ierr)
  call MPI_Sendrecv(grid(1, 3), 1, col, right, 10, recvcol, 4, MPI_INTEGER, left, 10, MPI_COMM_WORLD, status, ierr)
  call check(recvcol(1) == left * 100 + 9, 'contiguous column')
  call MPI_Type_free(col, ierr)
  call check(col == MPI_DATATYPE_NULL, 'type_free')
  call MPI_Get_address(sn, addrs(1), ierr)
  call MPI_Get_address(sd, addrs(2), ierr)
  blocklens = [1, 2]
  oldtypes = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blocklens, addrs, oldtypes, st, ierr)
  call MPI_Type_commit(st, ierr)
  sn = rank + 10
  sd = [dble(rank), 0.5d0 + rank]
  call MPI_Bcast(MPI_BOTTOM, 1, st, 0, MPI_COMM_WORLD, ierr)
  call check(sn == 10 .and. sd(1) == 0 .and. sd(2) == 0.5d0, 'struct from MPI_BOTTOM')
  call MPI_Type_free(st, ierr)
  call MPI_Type_free(vec, ierr)

  ! ---- communicators and groups
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_size(half, n, ierr)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'split size')
  call MPI_Comm_dup(half, dup, ierr)
  call MPI_Comm_compare(half, dup, result, ierr)
  call check(result == MPI_CONGRUENT, 'compare dup')
  call MPI_Comm_set_name(dup, 'halves  ', ierr)
  call MPI_Comm_get_name(dup, name, len, ierr)
  call check(name == 'halves' .and. len == 6, 'comm name')
  call MPI_Allreduce(1, n, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'allreduce on dup')
  call MPI_Comm_free(dup, ierr)
  call check(dup == MPI_COMM_NULL, 'comm_free')
  ! MPI_COMM_IDUP: the communicator is the program's once the request completes
  call MPI_Comm_idup(half, dup, reqs(1), ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call check(dup /= MPI_COMM_NULL, 'comm_idup gives a communicator at completion')
  call MPI_Comm_rank(dup, j, ierr)
  call MPI_Comm_rank(half, n, ierr)
  call check(j == n, 'rank in the idup communicator')
  call MPI_Allreduce(rank, n, 1, MPI_INTEGER, MPI_MAX, dup, ierr)
  call check(n == size - 1 - mod(size - 1 - mod(rank, 2), 2), 'allreduce on the idup communicator')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierr)
  n = (size + 1) / 2
  ranks(1:n) = [(2 * i, i = 0, n - 1)]
  call MPI_Group_incl(world_group, n, ranks, even_group, ierr)
  call MPI_Group_size(even_group, j, ierr)
  call check(j == n, 'group_incl size')
  call MPI_Group_translate_ranks(even_group, 1, [n - 1], world_group, ranks, ierr)
  call check(ranks(1) == 2 * (n - 1), 'translate_ranks')
  call MPI_Comm_create(MPI_COMM_WORLD, even_group, evens, ierr)
  if (mod(rank, 2) == 0) then
    call MPI_Comm_rank(evens, j, ierr)
    call check(j == rank / 2, 'rank in comm_create')
    call MPI_Comm_free(evens, ierr)
  else
    call check(evens == MPI_COMM_NULL, 'comm_create gives COMM_NULL outside')
  end if
  call MPI_Group_free(even_group, ierr)
  call MPI_Group_free(world_group, ierr)
  call check(world_group == MPI_GROUP_NULL, 'group_free')

  ! ---- keyvals and attributes
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, attr, flag, ierr)
  call check(flag .and. attr >= 32767, 'MPI_TAG_UB attribute')
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, extra, ierr)
  attr = 4242
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, attr, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  attr = 0
  call MPI_Comm_get_attr(dup, keyval, attr, flag, ierr)
  call check(flag .and. attr == 4242, 'attribute copied by MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call MPI_Comm_free_keyval(keyval, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'free_keyval')
  extra = 1
  call MPI_Comm_create_keyval(copy_double, count_delete, keyval, extra, ierr)
  attr = 10
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, attr, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(ierr == MPI_SUCCESS, 'dup with a Fortran copy callback')
  call MPI_Comm_get_attr(dup, keyval, attr, flag, ierr)
  call check(flag .and. attr == 21, 'Fortran copy callback')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1, 'Fortran delete callback on free')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call check(deletes == 2, 'Fortran delete callback on delete_attr')
  call MPI_Comm_free_keyval(keyval, ierr)
  ! MPI-1 names: INTEGER values
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, keyval, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, keyval, 77, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  j = 0
  call MPI_Attr_get(dup, keyval, j, flag, ierr)
  call check(flag .and. j == 77, 'MPI_DUP_FN through MPI_Keyval_create')
  call MPI_Comm_free(dup, ierr)
  call MPI_Attr_delete(MPI_COMM_WORLD, keyval, ierr)
  call MPI_Keyval_free(keyval, ierr)

  ! ---- Cartesian topology
  dims = 0
  call MPI_Dims_create(size, 2, dims, ierr)
  call check(dims(1) * dims(2) == size, 'dims_create')
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src == mod(coords(1) - 1 + dims(1), dims(1)) * dims(2) + coords(2), 'cart_shift periodic')
  call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
  if (coords(2) == dims(2) - 1) call check(dst == MPI_PROC_NULL, 'cart_shift edge')
  periods = [.false., .true.]
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierr)
  call check(periods(1) .and. .not. periods(2), 'cart_get periods')
  call MPI_Comm_free(cart, ierr)

  ! ---- errors returned as codes, and a handler written in Fortran
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, size + 5, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'invalid rank returns an error')
  call MPI_Error_class(ierr, cls, ierr)
  call check(cls == MPI_ERR_RANK, 'error class MPI_ERR_RANK')
  call MPI_Error_string(MPI_ERR_RANK, msg, len, ierr)
  call check(len > 0 .and. len_trim(msg) == len, 'error string')
  call MPI_Send(ibuf, 1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, j)
  call check(cls == MPI_ERR_TYPE, 'null datatype gives MPI_ERR_TYPE')
  ! an INTEGER that names no object is a null handle to the C side
  call MPI_Comm_size(123456, n, ierr)
  call MPI_Error_class(ierr, cls, j)
  call check(cls == MPI_ERR_COMM, 'unknown communicator gives MPI_ERR_COMM')
  call MPI_Type_size(-5, n, ierr)
  call MPI_Error_class(ierr, cls, j)
  call check(cls == MPI_ERR_TYPE, 'unknown datatype gives MPI_ERR_TYPE')
  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, -7, 0, MPI_COMM_WORLD, ierr)
  call check(handler_calls == 1, 'Fortran error handler called once')
  call MPI_Errhandler_free(eh, ierr)
  call check(eh == MPI_ERRHANDLER_NULL, 'errhandler_free')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  call check(MPI_Wtime() >= t0, 'wtime')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'fortran: OK'
  call MPI_Finalize(ierr)
end program
