! The Fortran 2008 binding (`use mpi_f08`): calls without ierror and with it,
! TYPE(MPI_Comm) ... handles compared with == and /=, TYPE(MPI_Status) with
! its MPI_SOURCE / MPI_TAG / MPI_ERROR components and MPI_STATUS(ES)_IGNORE,
! arrays of requests and statuses, MPI_IN_PLACE, a user reduction written to
! the f08 interface (C pointers), keyval callbacks, a derived type, an error
! returned through ierror, strings, memory from MPI_Alloc_mem (a C pointer),
! datatype attributes, a generalized request with its callbacks, MPI_Sizeof,
! MPI_Info_create_env, and the `mpi` <-> `mpi_f08` status conversions. Every result is checked; the first mismatch aborts the job
! with exit code 1. Rank 0 prints "fortran_f08: OK" at the end.
module f08_checks
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: deletes = 0, type_deletes = 0, greq_frees = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      print '(a,i0,2a)', 'rank ', rank, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  ! Element-wise a*b + a + b on INTEGERs, to MPI_User_function's f08 form.
  subroutine combine(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call check(datatype == MPI_INTEGER, 'user op gets MPI_INTEGER')
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a * b + a + b
  end subroutine

  subroutine copy_triple(oldcomm, keyval, extra, valin, valout, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    ierror = MPI_SUCCESS
    if (oldcomm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID) ierror = MPI_ERR_OTHER
    valout = valin * 3 + extra
    flag = .true.
  end subroutine

  subroutine count_delete(comm, keyval, val, extra, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ierror = MPI_SUCCESS
    if (comm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID .or. extra /= 5) ierror = MPI_ERR_OTHER
    if (val > 0) deletes = deletes + 1
  end subroutine

  subroutine type_copy(oldtype, keyval, extra, valin, valout, flag, ierror)
    type(MPI_Datatype) :: oldtype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    ierror = MPI_SUCCESS
    if (oldtype == MPI_DATATYPE_NULL .or. keyval == MPI_KEYVAL_INVALID) ierror = MPI_ERR_OTHER
    valout = valin + extra
    flag = .true.
  end subroutine

  subroutine type_delete(datatype, keyval, val, extra, ierror)
    type(MPI_Datatype) :: datatype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ierror = MPI_SUCCESS
    if (datatype == MPI_DATATYPE_NULL .or. keyval == MPI_KEYVAL_INVALID .or. extra /= 100) ierror = MPI_ERR_OTHER
    if (val > 0) type_deletes = type_deletes + 1
  end subroutine

  ! A generalized request's callbacks: the query reports the extra state as
  ! the tag and 3 INTEGERs received.
  subroutine greq_query(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    type(MPI_Status) :: status
    integer :: ierror
    status%MPI_SOURCE = MPI_UNDEFINED
    status%MPI_TAG = int(extra)
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
  end subroutine

  subroutine greq_free(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    ierror = MPI_SUCCESS
    if (extra == 42) greq_frees = greq_frees + 1
  end subroutine

  subroutine greq_cancel(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
    if (extra /= 42 .or. complete) ierror = MPI_ERR_OTHER
  end subroutine
end module

! The `mpi` module's status, turned into an f08 one and back.
subroutine old_status_roundtrip(ok)
  use mpi, only: MPI_STATUS_SIZE, MPI_SOURCE, MPI_TAG, MPI_ERROR
  use mpi_f08, only: MPI_Status, MPI_Status_f2f08, MPI_Status_f082f
  implicit none
  logical, intent(out) :: ok
  integer :: old(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE), ierr
  type(MPI_Status) :: new
  old = [11, 22, 33, 44, 55, 66]
  call MPI_Status_f2f08(old, new, ierr)
  ok = ierr == 0 .and. new%MPI_SOURCE == 11 .and. new%MPI_TAG == 22 .and. new%MPI_ERROR == 33
  back = 0
  call MPI_Status_f082f(new, back)
  ok = ok .and. all(back == old) .and. old(MPI_SOURCE) == 11 .and. old(MPI_TAG) == 22 .and. old(MPI_ERROR) == 33
end subroutine

program fortran_f08
  use mpi_f08
  use f08_checks
  implicit none
  integer :: rank, size, ierr, i, n, keyval, len, count, provided
  integer :: buf(4), got(4), vals(8), packed(12)
  integer(kind=MPI_ADDRESS_KIND) :: attr, greq_state
  type(MPI_Comm) :: dup, half
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Op) :: op
  type(MPI_Datatype) :: vec, vec2
  type(MPI_Info) :: info
  type(c_ptr) :: mem
  integer, pointer :: block(:)
  type(MPI_Group) :: world_group
  character(len=MPI_MAX_OBJECT_NAME) :: name
  logical :: flag, ok

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(ierr == MPI_SUCCESS .and. size >= 1, 'MPI_Comm_size with ierror')
  call check(provided >= MPI_THREAD_SINGLE, 'MPI_Init_thread provided')
  call check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. .not. (MPI_COMM_WORLD == MPI_COMM_NULL), 'handle == and /=')
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')

  ! Point to point around a ring, the status' components checked.
  buf = [(rank * 10 + i, i = 1, 4)]
  status%MPI_ERROR = -7
  call MPI_Sendrecv(buf, 4, MPI_INTEGER, mod(rank + 1, size), 7, got, 4, MPI_INTEGER, &
                    mod(rank - 1 + size, size), 7, MPI_COMM_WORLD, status)
  n = mod(rank - 1 + size, size)
  call check(all(got == [(n * 10 + i, i = 1, 4)]), 'MPI_Sendrecv data')
  call check(status%MPI_SOURCE == n .and. status%MPI_TAG == 7, 'status components')
  call check(status%MPI_ERROR == -7, 'MPI_ERROR is left alone by a single completion (MPI-3.1 3.2.5)')
  call MPI_Get_count(status, MPI_INTEGER, count)
  call check(count == 4, 'MPI_Get_count')

  ! Non-blocking, arrays of requests and statuses; then with MPI_STATUSES_IGNORE.
  got = -1
  call MPI_Irecv(got, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(buf, 4, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(all(got == buf) .and. statuses(1)%MPI_SOURCE == rank .and. statuses(1)%MPI_TAG == 9, 'MPI_Waitall')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call MPI_Irecv(got, 4, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(buf, 4, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Send(buf, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD)
  call MPI_Recv(n, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(n == buf(1), 'a scalar buffer and MPI_STATUS_IGNORE')

  ! Collectives: MPI_IN_PLACE, a user op.
  n = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(n == size * (size + 1) / 2, 'MPI_Allreduce in place')
  call MPI_Op_create(combine, .true., op)
  n = 1
  call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(n == 2**size - 1 .or. size > 20, 'user op result')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL')
  vals = 0
  call MPI_Allgather(rank, 1, MPI_INTEGER, vals, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(vals(1:min(size, 8)) == [(i, i = 0, min(size, 8) - 1)]) .or. size > 8, 'MPI_Allgather')

  ! A derived type: every other INTEGER of 12.
  packed = [(i, i = 1, 12)]
  call MPI_Type_vector(6, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Type_size(vec, n)
  call check(n == 24, 'MPI_Type_size of the vector')
  if (rank == 0) then
    vals = 0
    call MPI_Sendrecv(packed, 1, vec, 0, 5, vals, 6, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, status)
    call check(all(vals(1:6) == [1, 3, 5, 7, 9, 11]), 'vector type data')
  end if
  call MPI_Type_free(vec)
  call check(vec == MPI_DATATYPE_NULL, 'MPI_Type_free sets MPI_DATATYPE_NULL')

  ! Communicators, groups, names.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, name, len)
  call check(name(1:len) == 'f08 dup' .and. len == 7, 'communicator name')
  call MPI_Comm_split(dup, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, n)
  call check(n == (size + 1 - mod(rank, 2)) / 2, 'MPI_Comm_split size')
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  call MPI_Group_size(world_group, n)
  call check(n == size, 'MPI_Group_size')
  call MPI_Group_free(world_group)

  ! Keyval callbacks to the f08 interfaces: a dup copies (x3 + 5), a free deletes.
  call MPI_Comm_create_keyval(copy_triple, count_delete, keyval, 5_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, keyval, 4_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, half)
  call MPI_Comm_get_attr(half, keyval, attr, flag)
  call check(flag .and. attr == 17, 'copy callback')
  call MPI_Comm_free(half)
  call MPI_Comm_free(dup)
  call check(deletes == 2, 'delete callback')
  call MPI_Comm_free_keyval(keyval)

  ! An error, returned through ierror; none when it is left out and all is well.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(buf, 1, MPI_INTEGER, size + 5, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'an invalid rank returns an error')
  call MPI_Error_class(ierr, n)
  call check(n == MPI_ERR_RANK, 'the error class is MPI_ERR_RANK')

  ! Memory from MPI_Alloc_mem, through a C pointer, used as a buffer.
  call MPI_Alloc_mem(4_MPI_ADDRESS_KIND * 16, MPI_INFO_NULL, mem)
  call c_f_pointer(mem, block, [16])
  block = 0
  call MPI_Sendrecv(buf, 4, MPI_INTEGER, rank, 6, block, 16, MPI_INTEGER, rank, 6, MPI_COMM_WORLD, status)
  call check(all(block(1:4) == buf) .and. all(block(5:) == 0), 'a buffer from MPI_Alloc_mem')
  call MPI_Free_mem(block)

  ! Datatype attributes: MPI_Type_dup copies (+100), MPI_Type_free deletes.
  call MPI_Type_create_keyval(type_copy, type_delete, keyval, 100_MPI_ADDRESS_KIND)
  call MPI_Type_contiguous(2, MPI_INTEGER, vec)
  call MPI_Type_set_attr(vec, keyval, 7_MPI_ADDRESS_KIND)
  call MPI_Type_dup(vec, vec2)
  call MPI_Type_get_attr(vec2, keyval, attr, flag)
  call check(flag .and. attr == 107, 'datatype attribute copied')
  call MPI_Type_delete_attr(vec2, keyval)
  call MPI_Type_get_attr(vec2, keyval, attr, flag)
  call check(.not. flag .and. type_deletes == 1, 'MPI_Type_delete_attr')
  call MPI_Type_free(vec)
  call MPI_Type_free(vec2)
  call check(type_deletes == 2, 'datatype attribute deleted with its type')
  call MPI_Type_free_keyval(keyval)
  call check(keyval == MPI_KEYVAL_INVALID, 'MPI_Type_free_keyval')

  ! A generalized request: started, completed, waited on.
  greq_state = 42
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, greq_state, reqs(1))
  call MPI_Test(reqs(1), flag, status)
  call check(.not. flag, 'a generalized request is not complete before MPI_Grequest_complete')
  call MPI_Grequest_complete(reqs(1))
  call MPI_Wait(reqs(1), status)
  call MPI_Get_count(status, MPI_INTEGER, count)
  call check(status%MPI_TAG == 42 .and. count == 3 .and. reqs(1) == MPI_REQUEST_NULL .and. greq_frees == 1, &
             'generalized request callbacks')

  ! MPI_SIZEOF: one element's size, for scalars and arrays of any kind.
  call MPI_Sizeof(1.0d0, n)
  call check(n == 8, 'MPI_Sizeof of a DOUBLE PRECISION')
  call MPI_Sizeof(buf, n)
  call check(n == 4, 'MPI_Sizeof of an INTEGER array')
  call MPI_Sizeof((1.0, 2.0), n, ierr)
  call check(n == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof of a COMPLEX')

  call MPI_Info_create_env(info)
  call check(info /= MPI_INFO_NULL, 'MPI_Info_create_env')
  call MPI_Info_free(info)

  call old_status_roundtrip(ok)
  call check(ok, 'MPI_Status_f2f08 / MPI_Status_f082f')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'fortran_f08: OK'
  call MPI_Finalize()
end program
