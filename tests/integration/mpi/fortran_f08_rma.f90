! One-sided communication through `use mpi_f08` (np 2 or more): TYPE(MPI_Win)
! compared with == and /= (MPI_WIN_NULL), calls without ierror and with it;
! MPI_Win_allocate with a TYPE(C_PTR) baseptr (C_F_POINTER), MPI_Win_create
! over a DOUBLE PRECISION array (fence: MPI_Put, MPI_Accumulate, MPI_Get),
! general active target (MPI_Win_post / _start / _complete / _wait,
! MPI_Win_test), a dynamic window (MPI_Win_attach / _detach, addresses from
! MPI_Get_address), passive target with MPI_Win_lock_all and the request
! calls (MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate, MPI_Wait,
! MPI_Waitall), MPI_Win_flush_local(_all) and MPI_Win_sync, a shared window
! (MPI_Win_allocate_shared, MPI_Win_shared_query), window info, keyval and
! error handler callbacks to the f08 interfaces (TYPE(MPI_Win)), and the
! predefined MPI_WIN_DUP_FN / MPI_WIN_NULL_COPY_FN. Every result is checked;
! the first mismatch aborts the job with exit code 1. Rank 0 prints
! "fortran_f08_rma: OK" at the end.
module f08_rma_checks
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = 0, deletes = 0
  type(MPI_Win) :: handler_win
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

  subroutine win_handler(win, error_code)
    type(MPI_Win) :: win
    integer :: error_code
    handler_calls = handler_calls + 1
    handler_code = error_code
    handler_win = win
  end subroutine

  subroutine count_delete(win, keyval, val, extra, ierror)
    type(MPI_Win) :: win
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ierror = MPI_SUCCESS
    if (win == MPI_WIN_NULL .or. keyval == MPI_KEYVAL_INVALID .or. extra /= 9) ierror = MPI_ERR_OTHER
    if (val == 31) deletes = deletes + 1
  end subroutine
end module

program fortran_f08_rma
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
  use f08_rma_checks
  implicit none
  integer, parameter :: n = 6
  integer :: rank, nprocs, ierr, right, left, i, intsize, dblsize, keyval, rlen, ranks(1), disp_unit
  integer :: origin, fetched(2), shrank, shsize
  type(MPI_Win) :: win, win2, dwin, swin, copy
  type(MPI_Group) :: wgroup, from_group, to_group
  type(MPI_Request) :: reqs(3)
  type(MPI_Errhandler) :: eh
  type(MPI_Info) :: info, info_used
  type(MPI_Comm) :: shcomm
  type(c_ptr) :: baseptr, qptr
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp, val, val2, extra, addr, qsize
  integer(kind=MPI_ADDRESS_KIND) :: addrs(0:63)
  integer, pointer :: mem(:), shmem(:), neighbour(:)
  double precision :: darr(n), dbuf(n), dget(n)
  integer :: dyn(4), got(4)
  logical :: flag
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call check(nprocs <= 64, 'at most 64 ranks')
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_Type_size(MPI_INTEGER, intsize)
  call MPI_Type_size(MPI_DOUBLE_PRECISION, dblsize)
  win = MPI_WIN_NULL
  call check(win == MPI_WIN_NULL .and. .not. (win /= MPI_WIN_NULL) .and. MPI_WIN_NULL%MPI_VAL == 0, &
             'TYPE(MPI_Win): == and /= MPI_WIN_NULL')
  call check(MPI_REPLACE /= MPI_NO_OP .and. MPI_REPLACE /= MPI_OP_NULL .and. MPI_NO_OP /= MPI_SUM, &
             'TYPE(MPI_Op) MPI_REPLACE and MPI_NO_OP')

  ! ---- MPI_Win_allocate: TYPE(C_PTR) baseptr.
  winsize = n * intsize
  call MPI_Win_allocate(winsize, intsize, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  call check(ierr == MPI_SUCCESS .and. win /= MPI_WIN_NULL .and. c_associated(baseptr), 'MPI_Win_allocate')
  call c_f_pointer(baseptr, mem, [n])
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag)
  call check(flag .and. c_associated(baseptr, transfer(val, baseptr)), 'MPI_WIN_BASE is baseptr')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag)
  call check(flag .and. val == winsize, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag)
  call check(flag .and. val == intsize, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag)
  call check(flag .and. val == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, val, flag)
  call check(flag .and. (val == MPI_WIN_UNIFIED .or. val == MPI_WIN_SEPARATE), 'MPI_WIN_MODEL')
  copy = win
  call check(copy == win .and. .not. (copy /= win), 'TYPE(MPI_Win): == of two copies')

  ! ---- General active target: each rank exposes its window to its left
  ! neighbour and accesses its right neighbour's.
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win)
  mem = 0
  call MPI_Win_unlock(rank, win)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup)
  ranks(1) = left
  call MPI_Group_incl(wgroup, 1, ranks, from_group)
  ranks(1) = right
  call MPI_Group_incl(wgroup, 1, ranks, to_group)
  call MPI_Win_post(from_group, 0, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_post')
  call MPI_Win_start(to_group, 0, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_start')
  origin = 40 + rank
  disp = 1
  call MPI_Put(origin, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win)
  call MPI_Win_complete(win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_complete')
  flag = .false.
  do i = 1, 1000000
    call MPI_Win_test(win, flag, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_test')
    if (flag) exit
  end do
  if (.not. flag) call MPI_Win_wait(win)
  call check(mem(2) == 40 + left .and. mem(1) == 0 .and. mem(3) == 0, 'PSCW: MPI_Put from the left neighbour')
  ! Once more, completed by MPI_Win_wait.
  call MPI_Win_post(from_group, 0, win)
  call MPI_Win_start(to_group, 0, win)
  origin = 50 + rank
  disp = 2
  call MPI_Accumulate(origin, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, MPI_SUM, win)
  call MPI_Win_complete(win)
  call MPI_Win_wait(win, ierr)
  call check(ierr == MPI_SUCCESS .and. mem(3) == 50 + left, 'PSCW: MPI_Win_wait, MPI_Accumulate')
  call MPI_Group_free(from_group)
  call MPI_Group_free(to_group)

  ! ---- Passive target, every rank at once: request-based calls.
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_lock_all(MPI_MODE_NOCHECK, win)
  got = -1
  disp = 1
  call MPI_Rget(got, 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check(reqs(1) == MPI_REQUEST_NULL, 'MPI_Rget: MPI_Wait')
  call check(got(1) == 40 + rank .and. got(2) == 50 + rank .and. got(3) == -1, 'MPI_Rget: the values')
  origin = 1
  disp = 0
  call MPI_Raccumulate(origin, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call MPI_Win_flush(0, win)
  call MPI_Barrier(MPI_COMM_WORLD)
  fetched = -1
  call MPI_Rget_accumulate(origin, 1, MPI_INTEGER, fetched(1), 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, &
                           MPI_NO_OP, win, reqs(1))
  origin = 2
  disp = n - 1
  call MPI_Rget_accumulate(origin, 1, MPI_INTEGER, fetched(2), 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, &
                           MPI_REPLACE, win, reqs(2))
  reqs(3) = MPI_REQUEST_NULL
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE)
  call check(fetched(1) == nprocs, 'MPI_Rget_accumulate MPI_NO_OP: the sum of MPI_Raccumulate')
  call check(fetched(2) == 0 .or. fetched(2) == 2, 'MPI_Rget_accumulate MPI_REPLACE: the value before')
  call MPI_Win_flush_local(0, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_flush_local')
  call MPI_Win_flush_local_all(win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_flush_local_all')
  call MPI_Win_flush_all(win)
  call MPI_Win_sync(win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_sync')
  call MPI_Win_unlock_all(win)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win)
    call check(mem(1) == nprocs .and. mem(n) == 2, 'lock_all: the values at rank 0')
    call MPI_Win_unlock(0, win)
  end if

  ! ---- Info, name, keyval, error handler.
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'no_locks', 'false')
  call MPI_Win_set_info(win, info, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_set_info')
  call MPI_Info_free(info)
  call MPI_Win_get_info(win, info_used, ierr)
  call check(ierr == MPI_SUCCESS .and. info_used /= MPI_INFO_NULL, 'MPI_Win_get_info')
  call MPI_Info_get(info_used, 'no_locks', MPI_MAX_INFO_VAL, value, flag)
  call check(.not. flag .or. value == 'false', 'MPI_Win_get_info: no_locks')
  call MPI_Info_free(info_used)
  call MPI_Win_set_name(win, 'f08 window')
  call MPI_Win_get_name(win, name, rlen)
  call check(name == 'f08 window' .and. rlen == 10, 'MPI_Win_get_name')

  extra = 9
  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, count_delete, keyval, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create_keyval')
  val = 31
  call MPI_Win_set_attr(win, keyval, val)
  val = 0
  call MPI_Win_get_attr(win, keyval, val, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. val == 31, 'MPI_Win_get_attr of a keyval')
  call MPI_Win_delete_attr(win, keyval, ierr)
  call check(ierr == MPI_SUCCESS .and. deletes == 1, 'MPI_Win_delete_attr calls the delete callback')
  call MPI_Win_get_attr(win, keyval, val, flag)
  call check(.not. flag, 'MPI_Win_delete_attr: gone')
  val = 31
  call MPI_Win_set_attr(win, keyval, val)
  ! The predefined callbacks, called as procedures.
  val = 5
  val2 = -1
  call MPI_WIN_DUP_FN(win, keyval, extra, val, val2, flag, ierr)
  call check(flag .and. val2 == 5 .and. ierr == MPI_SUCCESS, 'MPI_WIN_DUP_FN')
  val2 = -1
  call MPI_WIN_NULL_COPY_FN(win, keyval, extra, val, val2, flag, ierr)
  call check(.not. flag .and. val2 == -1 .and. ierr == MPI_SUCCESS, 'MPI_WIN_NULL_COPY_FN')
  call MPI_WIN_NULL_DELETE_FN(win, keyval, val, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_NULL_DELETE_FN')

  call MPI_Win_create_errhandler(win_handler, eh, ierr)
  call check(ierr == MPI_SUCCESS .and. eh /= MPI_ERRHANDLER_NULL, 'MPI_Win_create_errhandler')
  call MPI_Win_set_errhandler(win, eh)
  call MPI_Errhandler_free(eh)
  call MPI_Win_call_errhandler(win, MPI_ERR_RMA_CONFLICT)
  call check(handler_calls == 1 .and. handler_code == MPI_ERR_RMA_CONFLICT .and. handler_win == win, &
             'an f08 window error handler gets TYPE(MPI_Win) and the code')
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)
  call MPI_Win_get_errhandler(win, eh)
  call check(eh == MPI_ERRORS_RETURN, 'MPI_Win_get_errhandler')

  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL .and. deletes == 2, 'MPI_Win_free: MPI_WIN_NULL, the attribute deleted')
  call MPI_Win_free_keyval(keyval)
  call check(keyval == MPI_KEYVAL_INVALID, 'MPI_Win_free_keyval')

  ! ---- MPI_Win_create over DOUBLE PRECISION, fence epochs.
  darr = 0
  winsize = n * dblsize
  call MPI_Win_create(darr, winsize, dblsize, MPI_INFO_NULL, MPI_COMM_WORLD, win2)
  call check(win2 /= MPI_WIN_NULL, 'MPI_Win_create')
  call MPI_Win_get_attr(win2, MPI_WIN_BASE, val, flag)
  call MPI_Get_address(darr, addr)
  call check(flag .and. val == addr, 'MPI_WIN_BASE of MPI_Win_create')
  dbuf = [(rank + 0.25d0 * i, i = 1, n)]
  call MPI_Win_fence(0, win2)
  disp = 0
  call MPI_Put(dbuf, n - 1, MPI_DOUBLE_PRECISION, right, disp, n - 1, MPI_DOUBLE_PRECISION, win2)
  call MPI_Win_fence(0, win2)
  do i = 1, n - 1
    call check(darr(i) == left + 0.25d0 * i, 'fence: MPI_Put of DOUBLE PRECISION')
  end do
  call check(darr(n) == 0, 'fence: MPI_Put, the element after')
  disp = n - 1
  call MPI_Accumulate(dbuf(1), 1, MPI_DOUBLE_PRECISION, 0, disp, 1, MPI_DOUBLE_PRECISION, MPI_SUM, win2)
  call MPI_Win_fence(0, win2)
  dget = -1
  call MPI_Get(dget, n, MPI_DOUBLE_PRECISION, 0, 0_MPI_ADDRESS_KIND, n, MPI_DOUBLE_PRECISION, win2)
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win2)
  call check(dget(n) == nprocs * 0.25d0 + nprocs * (nprocs - 1) / 2, 'fence: MPI_Accumulate MPI_SUM, MPI_Get')
  call MPI_Win_free(win2)
  call check(win2 == MPI_WIN_NULL, 'MPI_Win_free of MPI_Win_create')

  ! ---- A dynamic window: each rank attaches dyn and publishes its address.
  call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, dwin, ierr)
  call check(ierr == MPI_SUCCESS .and. dwin /= MPI_WIN_NULL, 'MPI_Win_create_dynamic')
  call MPI_Win_get_attr(dwin, MPI_WIN_CREATE_FLAVOR, val, flag)
  call check(flag .and. val == MPI_WIN_FLAVOR_DYNAMIC, 'MPI_WIN_FLAVOR_DYNAMIC')
  dyn = [(100 * rank + i, i = 1, 4)]
  call MPI_Win_attach(dwin, dyn, int(4 * intsize, MPI_ADDRESS_KIND), ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_attach')
  call MPI_Get_address(dyn(3), addrs(rank))
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, addrs, 1, MPI_AINT, MPI_COMM_WORLD)
  got = -1
  call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, dwin)
  call MPI_Get(got, 2, MPI_INTEGER, right, addrs(right), 2, MPI_INTEGER, dwin)
  call MPI_Win_unlock(right, dwin)
  call check(got(1) == 100 * right + 3 .and. got(2) == 100 * right + 4 .and. got(3) == -1, &
             'dynamic window: MPI_Get at an attached address')
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Win_detach(dwin, dyn, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_detach')
  call MPI_Win_free(dwin)
  call check(dwin == MPI_WIN_NULL, 'MPI_Win_free of a dynamic window')

  ! ---- A shared window among the ranks of this node.
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shcomm)
  call MPI_Comm_rank(shcomm, shrank)
  call MPI_Comm_size(shcomm, shsize)
  winsize = 2 * intsize
  call MPI_Win_allocate_shared(winsize, intsize, MPI_INFO_NULL, shcomm, baseptr, swin, ierr)
  call check(ierr == MPI_SUCCESS .and. swin /= MPI_WIN_NULL, 'MPI_Win_allocate_shared')
  call MPI_Win_get_attr(swin, MPI_WIN_CREATE_FLAVOR, val, flag)
  call check(flag .and. val == MPI_WIN_FLAVOR_SHARED, 'MPI_WIN_FLAVOR_SHARED')
  call c_f_pointer(baseptr, shmem, [2])
  call MPI_Win_lock_all(0, swin)
  shmem = [shrank, 10 * shrank]
  call MPI_Win_sync(swin)
  call MPI_Barrier(shcomm)
  call MPI_Win_sync(swin)
  call MPI_Win_shared_query(swin, mod(shrank + 1, shsize), qsize, disp_unit, qptr, ierr)
  call check(ierr == MPI_SUCCESS .and. qsize == winsize .and. disp_unit == intsize .and. c_associated(qptr), &
             'MPI_Win_shared_query')
  call c_f_pointer(qptr, neighbour, [2])
  call check(neighbour(1) == mod(shrank + 1, shsize) .and. neighbour(2) == 10 * mod(shrank + 1, shsize), &
             'MPI_Win_shared_query: the neighbour''s memory, read directly')
  call MPI_Win_unlock_all(swin)
  call MPI_Win_free(swin)
  call check(swin == MPI_WIN_NULL, 'MPI_Win_free of a shared window')
  call MPI_Comm_free(shcomm)
  call MPI_Group_free(wgroup)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'fortran_f08_rma: OK'
  call MPI_Finalize()
end program
