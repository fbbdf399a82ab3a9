! Dynamic processes through the Fortran binding (`use mpi`): the world
! spawns 2 copies of this program with CHARACTER arguments (the child checks
! them), then 1 + 1 more with MPI_Comm_spawn_multiple (a 2-D argument array,
! and MPI_ERRCODES_IGNORE); parents and children exchange over the
! intercommunicator and merge it; MPI_Comm_get_parent, MPI_Comm_disconnect;
! a port opened, published, looked up, unpublished and closed; the error of
! a lookup of a name never published. Rank 0 prints "fortran_dpm: OK".
program fortran_dpm
  use mpi
  implicit none
  integer :: rank, size, ierr, parent, inter, rsize, v, merged, msize, i, nargs
  integer :: codes(2), maxprocs(2), infos(2), eclass
  character(len=32) :: args(3), arg
  character(len=256) :: cmds(2)
  character(len=16) :: argvs(2, 3)
  character(len=MPI_MAX_PORT_NAME) :: port, found
  character(len=64) :: service, job

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    ! A child: argv(1) names the mode, argv(2) a word to check.
    nargs = command_argument_count()
    call check(nargs == 2, 'a child has two arguments')
    call get_command_argument(2, arg)
    call check(trim(arg) == 'two words' .or. trim(arg) == 'multi', 'the argument reached the child: '//trim(arg))
    call MPI_Comm_remote_size(parent, rsize, ierr)
    call MPI_Bcast(v, 1, MPI_INTEGER, 0, parent, ierr)
    call check(v == 42, 'bcast from the parents')
    call MPI_Intercomm_merge(parent, .true., merged, ierr)
    call MPI_Comm_size(merged, msize, ierr)
    call check(msize == size + rsize, 'merged size')
    call MPI_Comm_free(merged, ierr)
    call MPI_Comm_disconnect(parent, ierr)
    call check(parent == MPI_COMM_NULL, 'disconnect frees the handle')
    call MPI_Finalize(ierr)
    stop
  end if

  args(1) = 'child'
  args(2) = 'two words'
  args(3) = ' '
  call get_command_argument(0, cmds(1))
  call MPI_Comm_spawn(trim(cmds(1)), args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_spawn')
  do i = 1, 2
    call check(codes(i) == MPI_SUCCESS, 'errcodes')
  end do
  call talk(inter, 2)

  cmds(2) = cmds(1)
  argvs = ' '
  argvs(1, 1) = 'child'
  argvs(1, 2) = 'multi'
  argvs(2, 1) = 'child'
  argvs(2, 2) = 'multi'
  maxprocs = 1
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_spawn_multiple')
  call talk(inter, 2)

  ! One name per job: the tests run side by side.
  call get_environment_variable('LZ_JOB_ID', job)
  service = 'lz-fortran-dpm-'//trim(job)
  if (rank == 0) then
    call MPI_Open_port(MPI_INFO_NULL, port, ierr)
    call check(port(1:13) == 'lazarus-port:', 'MPI_Open_port: '//trim(port))
    call MPI_Publish_name(trim(service), MPI_INFO_NULL, port, ierr)
    call MPI_Lookup_name(trim(service), MPI_INFO_NULL, found, ierr)
    call check(found == port, 'MPI_Lookup_name gives the port back')
    call MPI_Unpublish_name(trim(service), MPI_INFO_NULL, port, ierr)
    call MPI_Close_port(port, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Lookup_name(trim(service), MPI_INFO_NULL, found, ierr)
    call MPI_Error_class(ierr, eclass, i)
    call check(eclass == MPI_ERR_NAME, 'a name unpublished is not found')
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'fortran_dpm: OK'
  call MPI_Finalize(ierr)

contains

  subroutine talk(ic, expect)
    integer, intent(inout) :: ic
    integer, intent(in) :: expect
    integer :: n, e, root, m, ms
    call MPI_Comm_remote_size(ic, n, e)
    call check(n == expect, 'spawned processes')
    root = MPI_PROC_NULL
    if (rank == 0) root = MPI_ROOT
    v = 42
    call MPI_Bcast(v, 1, MPI_INTEGER, root, ic, e)
    call MPI_Intercomm_merge(ic, .false., m, e)
    call MPI_Comm_size(m, ms, e)
    call check(ms == size + n, 'merged size (parents)')
    call MPI_Comm_free(m, e)
    call MPI_Comm_disconnect(ic, e)
  end subroutine

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
