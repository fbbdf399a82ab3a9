! One-sided communication through `use mpi` (np 2 or more): a window from
! MPI_WIN_ALLOCATE (INTEGER(MPI_ADDRESS_KIND) baseptr) and one from
! MPI_WIN_CREATE over a Fortran array; fence epochs with MPI_PUT and MPI_GET;
! passive target (MPI_WIN_LOCK / _UNLOCK) with MPI_ACCUMULATE (MPI_SUM,
! MPI_REPLACE), MPI_FETCH_AND_OP (MPI_SUM, MPI_NO_OP), MPI_COMPARE_AND_SWAP,
! MPI_GET_ACCUMULATE and MPI_RPUT; the window attributes (MPI_WIN_BASE, _SIZE,
! _DISP_UNIT, _CREATE_FLAVOR, _MODEL), a keyval of the program's with a
! delete callback, the window's name and group, an error handler written in
! Fortran (MPI_WIN_CALL_ERRHANDLER), and MPI_WIN_NULL after MPI_WIN_FREE.
! Every result is checked; the first mismatch aborts the job with exit code
! 1. Rank 0 prints "fortran_rma: OK" at the end.
module rma_checks
  use mpi
  implicit none
  integer :: handler_calls = 0, handler_code = 0, handler_win = -1, deletes = 0
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

  subroutine win_handler(win, code)
    integer :: win, code
    handler_calls = handler_calls + 1
    handler_code = code
    handler_win = win
  end subroutine

  subroutine count_delete(win, keyval, val, extra, ierr)
    integer :: win, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ierr = MPI_SUCCESS
    if (win == MPI_WIN_NULL .or. keyval == MPI_KEYVAL_INVALID .or. extra /= 77) ierr = MPI_ERR_OTHER
    if (val == 4242) deletes = deletes + 1
  end subroutine
end module

program fortran_rma
  use, intrinsic :: iso_c_binding, only: c_f_pointer, c_null_ptr
  use rma_checks
  implicit none
  integer, parameter :: n = 8
  integer :: rank, nprocs, ierr, right, left, i, intsize, flavor, model, keyval, eh, eh2, rlen
  integer :: win, win2, group, wgroup, cmp, res, fetched, origin, compare, result
  integer :: arr(n), buf(n), values(n), request
  integer(kind=MPI_ADDRESS_KIND) :: baseptr, winsize, disp, val, extra, addr
  integer, pointer :: mem(:)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  call MPI_Type_size(MPI_INTEGER, intsize, ierr)

  ! The constants of the one-sided chapter.
  call check(MPI_WIN_NULL == 0, 'MPI_WIN_NULL is 0')
  call check(MPI_REPLACE /= MPI_OP_NULL .and. MPI_NO_OP /= MPI_OP_NULL .and. MPI_REPLACE /= MPI_NO_OP &
             .and. MPI_REPLACE /= MPI_SUM, 'MPI_REPLACE and MPI_NO_OP are ops of their own')
  call check(MPI_LOCK_EXCLUSIVE /= MPI_LOCK_SHARED, 'lock types differ')
  call check(iand(MPI_MODE_NOCHECK, MPI_MODE_NOSTORE) == 0 .and. iand(MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE) == 0 &
             .and. iand(MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED) == 0, 'assertions are bits')
  call check(MPI_ERR_WIN /= MPI_SUCCESS .and. MPI_ERR_RMA_SYNC /= MPI_ERR_WIN .and. MPI_ERR_RMA_FLAVOR > 0 &
             .and. MPI_ERR_LOCKTYPE > 0 .and. MPI_ERR_RMA_CONFLICT > 0, 'error classes')

  ! ---- MPI_WIN_ALLOCATE: n INTEGERs, displacement unit one INTEGER.
  winsize = n * intsize
  call MPI_Win_allocate(winsize, intsize, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  call check(ierr == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_allocate')
  call check(baseptr /= 0, 'MPI_Win_allocate: baseptr')
  call c_f_pointer(transfer(baseptr, c_null_ptr), mem, [n])
  mem = -1

  ! Attributes.
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. val == baseptr, 'MPI_WIN_BASE is baseptr')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call check(flag .and. val == winsize, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
  call check(flag .and. val == intsize, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  flavor = int(val)
  call check(flag .and. flavor == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR is MPI_WIN_FLAVOR_ALLOCATE')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, val, flag, ierr)
  model = int(val)
  call check(flag .and. (model == MPI_WIN_UNIFIED .or. model == MPI_WIN_SEPARATE), 'MPI_WIN_MODEL')

  ! ---- Fence: each rank puts its values into its right neighbour's window.
  do i = 1, n
    buf(i) = 100 * rank + i
  end do
  call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_fence')
  disp = 0
  call MPI_Put(buf, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Put')
  call MPI_Win_fence(0, win, ierr)
  do i = 1, n
    call check(mem(i) == 100 * left + i, 'fence: MPI_Put from the left neighbour')
  end do
  ! MPI_GET of elements 3..5 of the right neighbour's window (which holds
  ! what this rank put there).
  values = 0
  disp = 2
  call MPI_Get(values, 3, MPI_INTEGER, right, disp, 3, MPI_INTEGER, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Get')
  call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
  call check(all(values(1:3) == buf(3:5)) .and. all(values(4:) == 0), 'fence: MPI_Get')

  ! ---- Passive target: every rank adds to rank 0's element 1 (shared lock,
  ! MPI_SUM) and replaces its own element rank + 2 there (MPI_REPLACE).
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    mem = 0
    call MPI_Win_unlock(0, win, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_lock')
  origin = rank + 1
  disp = 0
  call MPI_Accumulate(origin, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Accumulate (MPI_SUM)')
  if (rank + 2 <= n) then
    origin = 1000 + rank
    disp = rank + 1
    call MPI_Accumulate(origin, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_REPLACE, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Accumulate (MPI_REPLACE)')
  end if
  call MPI_Win_unlock(0, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_unlock')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    call check(mem(1) == nprocs * (nprocs + 1) / 2, 'lock: MPI_Accumulate MPI_SUM')
    do i = 0, min(nprocs, n - 1) - 1
      call check(mem(i + 2) == 1000 + i, 'lock: MPI_Accumulate MPI_REPLACE')
    end do
    call MPI_Win_unlock(0, win, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! ---- MPI_FETCH_AND_OP: a counter at rank 0's element n; each rank adds 1
  ! and gets what was there (each value once), then reads the total with
  ! MPI_NO_OP.
  if (rank == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    mem(n) = 0
    call MPI_Win_unlock(0, win, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  disp = n - 1
  origin = 1
  fetched = -1
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call MPI_Fetch_and_op(origin, fetched, MPI_INTEGER, 0, disp, MPI_SUM, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Fetch_and_op')
  call MPI_Win_unlock(0, win, ierr)
  call check(fetched >= 0 .and. fetched < nprocs, 'MPI_Fetch_and_op: the value before')
  call MPI_Allreduce(MPI_IN_PLACE, fetched, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(fetched == nprocs * (nprocs - 1) / 2, 'MPI_Fetch_and_op: each value fetched once')
  result = -1
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call MPI_Fetch_and_op(origin, result, MPI_INTEGER, 0, disp, MPI_NO_OP, win, ierr)
  call MPI_Win_unlock(0, win, ierr)
  call check(result == nprocs, 'MPI_Fetch_and_op MPI_NO_OP reads the total')

  ! ---- MPI_COMPARE_AND_SWAP on rank 0's element n: the rank that finds
  ! nprocs there puts 7000 + rank; exactly one wins.
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  compare = nprocs
  origin = 7000 + rank
  result = -1
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
  call MPI_Compare_and_swap(origin, compare, result, MPI_INTEGER, 0, disp, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Compare_and_swap')
  call MPI_Win_unlock(0, win, ierr)
  if (result == nprocs) then
    res = 1
  else
    res = 0
    call check(result >= 7000 .and. result < 7000 + nprocs, 'MPI_Compare_and_swap: the winner''s value')
  end if
  call MPI_Allreduce(MPI_IN_PLACE, res, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(res == 1, 'MPI_Compare_and_swap: one winner')

  ! ---- MPI_GET_ACCUMULATE and MPI_RPUT under MPI_WIN_LOCK_ALL: each rank
  ! adds 10 to its right neighbour's element 1 and gets the value before,
  ! then puts 3 values with MPI_RPUT, completed by MPI_WAIT.
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
  mem = 0
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock_all(0, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_lock_all')
  origin = 10
  result = -1
  disp = 0
  call MPI_Get_accumulate(origin, 1, MPI_INTEGER, result, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, &
                          MPI_SUM, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Get_accumulate')
  call MPI_Win_flush(right, win, ierr)
  call check(ierr == MPI_SUCCESS .and. result == 0, 'MPI_Get_accumulate: the value before')
  buf(1:3) = [rank, rank * 2, rank * 3]
  disp = 4
  call MPI_Rput(buf, 3, MPI_INTEGER, right, disp, 3, MPI_INTEGER, win, request, ierr)
  call check(ierr == MPI_SUCCESS .and. request /= MPI_REQUEST_NULL, 'MPI_Rput')
  call MPI_Wait(request, status, ierr)
  call check(ierr == MPI_SUCCESS .and. request == MPI_REQUEST_NULL, 'MPI_Rput: MPI_Wait')
  call MPI_Win_flush_all(win, ierr)
  call MPI_Win_unlock_all(win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_unlock_all')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
  call check(mem(1) == 10, 'MPI_Get_accumulate: the sum at the target')
  call check(all(mem(5:7) == [left, left * 2, left * 3]), 'MPI_Rput: the values at the target')
  call MPI_Win_unlock(rank, win, ierr)

  ! ---- Name, group, keyval, error handler.
  call MPI_Win_set_name(win, 'rma window', ierr)
  call MPI_Win_get_name(win, name, rlen, ierr)
  call check(ierr == MPI_SUCCESS .and. name == 'rma window' .and. rlen == 10, 'MPI_Win_get_name')
  call MPI_Win_get_group(win, group, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Group_compare(group, wgroup, cmp, ierr)
  call check(cmp == MPI_IDENT, 'MPI_Win_get_group')
  call MPI_Group_free(group, ierr)
  call MPI_Group_free(wgroup, ierr)

  extra = 77
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, keyval, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create_keyval')
  val = 4242
  call MPI_Win_set_attr(win, keyval, val, ierr)
  val = 0
  call MPI_Win_get_attr(win, keyval, val, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. val == 4242, 'MPI_Win_get_attr of a keyval')

  call MPI_Win_create_errhandler(win_handler, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create_errhandler')
  call MPI_Win_set_errhandler(win, eh, ierr)
  call MPI_Win_get_errhandler(win, eh2, ierr)
  call check(eh2 == eh, 'MPI_Win_get_errhandler')
  call MPI_Errhandler_free(eh2, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC, ierr)
  call check(handler_calls == 1 .and. handler_code == MPI_ERR_RMA_SYNC .and. handler_win == win, &
             'a Fortran window error handler gets the window and the code')
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)
  call MPI_Win_lock(-99, right, 0, win, ierr)
  call check(ierr /= MPI_SUCCESS, 'MPI_Win_lock with a bad lock type fails')

  call MPI_Win_free(win, ierr)
  call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free gives MPI_WIN_NULL')
  call check(deletes == 1, 'MPI_Win_free deletes the attribute')
  call MPI_Win_free_keyval(keyval, ierr)
  call check(ierr == MPI_SUCCESS .and. keyval == MPI_KEYVAL_INVALID, 'MPI_Win_free_keyval')

  ! ---- MPI_WIN_CREATE over a Fortran array, displacement unit 1 (bytes).
  arr = 0
  winsize = n * intsize
  call MPI_Win_create(arr, winsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win2, ierr)
  call check(ierr == MPI_SUCCESS .and. win2 /= MPI_WIN_NULL, 'MPI_Win_create')
  call MPI_Get_address(arr, addr, ierr)
  call MPI_Win_get_attr(win2, MPI_WIN_BASE, val, flag, ierr)
  call check(flag .and. val == addr, 'MPI_WIN_BASE of MPI_Win_create is the array')
  call MPI_Win_get_attr(win2, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR is MPI_WIN_FLAVOR_CREATE')
  call MPI_Win_get_attr(win2, MPI_WIN_DISP_UNIT, val, flag, ierr)
  call check(flag .and. val == 1, 'MPI_WIN_DISP_UNIT 1')
  call MPI_Win_fence(0, win2, ierr)
  origin = 500 + rank
  disp = 3 * intsize   ! arr(4)
  call MPI_Put(origin, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win2, ierr)
  call MPI_Win_fence(0, win2, ierr)
  call check(arr(4) == 500 + left .and. count(arr /= 0) == 1, 'MPI_Win_create: MPI_Put into the array')
  call MPI_Win_free(win2, ierr)
  call check(win2 == MPI_WIN_NULL, 'MPI_Win_free of MPI_Win_create')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'fortran_rma: OK'
  call MPI_Finalize(ierr)
end program
