"""The `mpi_f08` module of Lazarus (MPI-3.1 chapter 17.2), made by
gen_fortran.py from the same table as the `mpi` module.

No Fortran wrapper sits between a program and libmpi: every interface of the
module names the same mpi_xxx_ entry point the `mpi` module does, with the
Fortran 2008 types in place of INTEGER handles, except the routines with
choice buffers, which name a C function lz_f08_xxx that takes the buffers'
descriptors (array sections, f08_sections.h) and calls mpi_xxx_. That is sound because the
types are BIND(C) with one INTEGER (a handle's address is its MPI_VAL's, an
array of handles is an array of INTEGERs), TYPE(MPI_Status) is the six
INTEGERs of an `mpi` status, and gfortran passes an absent OPTIONAL ierror as
a null pointer, which every entry point tolerates (LZ_F_OPTIONAL_IERROR).
Handle equality (==, /=) is a pair of C functions per kind (fortran_bindings.cpp);
MPI_Comm_spawn and _spawn_multiple have entry points of their own (SPAWN_IFACES).
"""

import sys

# Handle kinds whose TYPE(MPI_<Kind>) the module defines (the table's kinds).
F08_TYPES = ['Comm', 'Datatype', 'Errhandler', 'File', 'Group', 'Info', 'Message', 'Op', 'Request', 'Win']

# Arguments whose mpi_f08 type is not the `mpi` one's (MPI-3.1 A.3).
# baseptr: the memory MPI allocated, for C_F_POINTER.
F08_OVERRIDES = {('Alloc_mem', 'baseptr'): 'type(c_ptr) :: baseptr',
                 ('Win_allocate', 'baseptr'): 'type(c_ptr) :: baseptr',
                 ('Win_allocate_shared', 'baseptr'): 'type(c_ptr) :: baseptr',
                 ('Win_shared_query', 'baseptr'): 'type(c_ptr) :: baseptr'}

# The deprecated MPI-1 attribute calls: not part of mpi_f08 (MPI-3.1 section 17.1.2).
NOT_IN_F08 = {'Keyval_free', 'Attr_delete'}

# Choice buffers are array sections (MPI_SUBARRAYS_SUPPORTED): a routine
# with one is a BIND(C) interface to lz_f08_<name>, its buffers TYPE(*),
# DIMENSION(..) (descriptors), which copies a non-contiguous section for the
# mpi_<name>_ entry point (f08_sections.h). Not these: memory the call keeps
# (MPI_BUFFER_ATTACH, MPI_FREE_MEM) is contiguous, and the external32 calls
# take a CHARACTER argument, which a BIND(C) interface cannot.
# Nor one-sided communication (RMA): a window's memory (MPI_WIN_CREATE's and
# _ATTACH's base, which _DETACH names again) is read and written by other
# ranks for the window's life, and an RMA call's origin, compare and result
# buffers are read or written asynchronously, until the synchronization that
# completes the call (a fence, MPI_WIN_UNLOCK, MPI_WIN_FLUSH ..., or the
# request of MPI_RPUT ...), not when the call or a request of the binding's
# returns: a copy of a section made for the call (and copied back after it)
# would be read, written or freed behind MPI's back. Their buffers are the
# program's own storage, DIMENSION(*) with ASYNCHRONOUS (RMA_BUFFERS), which
# takes contiguous memory; a non-contiguous section is not supported there
# (gfortran would pass a temporary, copy-in/copy-out, as for the `mpi` module).
RMA_BUFFERS = {'Win_create', 'Win_attach', 'Win_detach', 'Put', 'Get', 'Accumulate', 'Get_accumulate',
               'Fetch_and_op', 'Compare_and_swap', 'Rput', 'Rget', 'Raccumulate', 'Rget_accumulate'}
NO_SECTIONS = {'Buffer_attach', 'Free_mem', 'Pack_external', 'Unpack_external'} | RMA_BUFFERS
# Routines whose `buf` the call only reads (the others' buffers may be written).
SEND_BUF = {'Send', 'Ssend', 'Rsend', 'Bsend', 'Isend', 'Issend', 'Ibsend', 'Irsend',
            'Send_init', 'Ssend_init', 'Bsend_init', 'Rsend_init'}


def takes_sections(name, args):
    return name not in NO_SECTIONS and name not in NOT_IN_F08 and any(k == 'buf' for _, k, _ in args)


def section_call(name, args):
    """Sections::Call of MPI_<name>: blocking, non-blocking or persistent."""
    if not any(k == 'Request_out' for _, k, _ in args):
        return 'kBlocking'
    return 'kPersistent' if name.endswith('_init') else 'kNonblocking'


def section_wrapper(name, args, params):
    """lz_f08_<name>: the mpi_f08 entry point of a routine with choice
    buffers (params: the mpi_<name>_ parameters without ierror)."""
    if not takes_sections(name, args):
        return []
    lname = name.lower()
    wparams, call, adds = [], [], []
    for (a, kind, _), p in zip(args, params):
        if kind == 'buf':
            wparams.append(f'CFI_cdesc_t* {a}')
            out = 'false' if a in ('sendbuf', 'inbuf') or (a == 'buf' and name in SEND_BUF) else 'true'
            adds.append(f'  void* c_{a} = s.add({a}, {out});')
            call.append(f'c_{a}')
        else:
            wparams.append(p)
            call.append(a)
    comm = next((f'MPI_Comm_f2c(*{a})' for a, k, _ in args if k == 'Comm'), 'MPI_COMM_WORLD')
    request = next((a for a, k, _ in args if k == 'Request_out'), None)
    return ['', '#ifdef LZ_F08_SECTIONS',
            f'extern "C" void lz_f08_{lname}({", ".join(wparams + ["MPI_Fint* ierror"])}) {{',
            '  LZ_F_OPTIONAL_IERROR(ierror);',
            f'  Sections s("MPI_{name}", Sections::{section_call(name, args)});'] + adds + [
            f'  if (const int rc = s.refusal({comm}); rc != MPI_SUCCESS) {{',
            '    *ierror = rc;', '    return;', '  }',
            f'  mpi_{lname}_({", ".join(call + ["ierror"])});',
            f'  s.finish(*ierror, {request if request else "nullptr"});', '}', '#endif']

# Abstract interfaces of the user callbacks (MPI-3.1 section 17.1.2 / A.3).
CALLBACK_IFACES = """
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine
    subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, attribute_val_in, &
                                           attribute_val_out, flag, ierror)
      import
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine
    subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Comm) :: comm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine
    subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, attribute_val_in, &
                                           attribute_val_out, flag, ierror)
      import
      type(MPI_Datatype) :: oldtype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine
    subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Datatype) :: datatype
      integer :: type_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine
    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine
    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine
    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine
    subroutine MPI_Comm_errhandler_function(comm, error_code)
      import
      type(MPI_Comm) :: comm
      integer :: error_code
    end subroutine
    subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, attribute_val_in, &
                                          attribute_val_out, flag, ierror)
      import
      type(MPI_Win) :: oldwin
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine
    subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Win) :: win
      integer :: win_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine
    subroutine MPI_Win_errhandler_function(win, error_code)
      import
      type(MPI_Win) :: win
      integer :: error_code
    end subroutine
  end interface
"""

# MPI_Comm_spawn and _spawn_multiple: generic names for entry points of
# mpi_f08's own, which keep an argument's leading blanks (fortran_spawn.cpp).
SPAWN_IFACES = """
  interface MPI_Comm_spawn
    subroutine lz_f08_comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierror)
      import
      character(len=*) :: command
      character(len=*), dimension(*) :: argv
      integer :: maxprocs, root
      type(MPI_Info) :: info
      type(MPI_Comm) :: comm, intercomm
      integer, dimension(*) :: array_of_errcodes
      integer, optional :: ierror
    end subroutine
  end interface
  interface MPI_Comm_spawn_multiple
    subroutine lz_f08_comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, &
                                       root, comm, intercomm, array_of_errcodes, ierror)
      import
      integer :: count, root
      character(len=*), dimension(*) :: array_of_commands
      character(len=*), dimension(count, *) :: array_of_argv
      integer, dimension(*) :: array_of_maxprocs, array_of_errcodes
      type(MPI_Info), dimension(*) :: array_of_info
      type(MPI_Comm) :: comm, intercomm
      integer, optional :: ierror
    end subroutine
  end interface
"""

# The hand-written entry points (fortran_special.cpp).
SPECIAL_IFACES = """
  subroutine MPI_Init(ierror)
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Init_thread(required, provided, ierror)
    integer :: required, provided
    integer, optional :: ierror
  end subroutine
  double precision function MPI_Wtime()
  end function
  double precision function MPI_Wtick()
  end function
  double precision function PMPI_Wtime()
  end function
  double precision function PMPI_Wtick()
  end function
  subroutine MPI_Pcontrol(level)
    integer :: level
  end subroutine
  subroutine MPI_Op_create(user_fn, commute, op, ierror)
    import
    procedure(MPI_User_function) :: user_fn
    logical :: commute
    type(MPI_Op) :: op
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Op_free(op, ierror)
    import
    type(MPI_Op) :: op
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Comm_create_errhandler(comm_errhandler_fn, errhandler, ierror)
    import
    procedure(MPI_Comm_errhandler_function) :: comm_errhandler_fn
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Errhandler_free(errhandler, ierror)
    import
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, ierror)
    import
    procedure(MPI_Comm_copy_attr_function) :: comm_copy_attr_fn
    procedure(MPI_Comm_delete_attr_function) :: comm_delete_attr_fn
    integer :: comm_keyval
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Comm_set_attr(comm, comm_keyval, attribute_val, ierror)
    import
    type(MPI_Comm) :: comm
    integer :: comm_keyval
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Comm_get_attr(comm, comm_keyval, attribute_val, flag, ierror)
    import
    type(MPI_Comm) :: comm
    integer :: comm_keyval
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Type_create_keyval(type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state, ierror)
    import
    procedure(MPI_Type_copy_attr_function) :: type_copy_attr_fn
    procedure(MPI_Type_delete_attr_function) :: type_delete_attr_fn
    integer :: type_keyval
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Type_set_attr(datatype, type_keyval, attribute_val, ierror)
    import
    type(MPI_Datatype) :: datatype
    integer :: type_keyval
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Type_get_attr(datatype, type_keyval, attribute_val, flag, ierror)
    import
    type(MPI_Datatype) :: datatype
    integer :: type_keyval
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
    import
    procedure(MPI_Grequest_query_function) :: query_fn
    procedure(MPI_Grequest_free_function) :: free_fn
    procedure(MPI_Grequest_cancel_function) :: cancel_fn
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Request) :: request
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Info_create_env(info, ierror)
    import
    type(MPI_Info) :: info
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Get_address(location, address, ierror)
    import
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: location
    type(*), dimension(*) :: location
    integer(kind=MPI_ADDRESS_KIND) :: address
    integer, optional :: ierror
  end subroutine
  function MPI_Aint_add(base, disp)
    import
    integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_add, base, disp
  end function
  function MPI_Aint_diff(addr1, addr2)
    import
    integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_diff, addr1, addr2
  end function
  subroutine MPI_F_sync_reg(buf)
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
    type(*), dimension(*) :: buf
  end subroutine
  subroutine MPI_Comm_idup(comm, newcomm, request, ierror)
    import
    type(MPI_Comm) :: comm, newcomm
    type(MPI_Request) :: request
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Buffer_detach(buffer_addr, size, ierror)
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer_addr
    type(*), dimension(*) :: buffer_addr
    integer :: size
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Status_f2f08(f_status, f08_status, ierror)
    import
    integer :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status) :: f08_status
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Status_f082f(f08_status, f_status, ierror)
    import
    type(MPI_Status) :: f08_status
    integer :: f_status(MPI_STATUS_SIZE)
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Win_create_errhandler(win_errhandler_fn, errhandler, ierror)
    import
    procedure(MPI_Win_errhandler_function) :: win_errhandler_fn
    type(MPI_Errhandler) :: errhandler
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Win_create_keyval(win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state, ierror)
    import
    procedure(MPI_Win_copy_attr_function) :: win_copy_attr_fn
    procedure(MPI_Win_delete_attr_function) :: win_delete_attr_fn
    integer :: win_keyval
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Win_set_attr(win, win_keyval, attribute_val, ierror)
    import
    type(MPI_Win) :: win
    integer :: win_keyval
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    integer, optional :: ierror
  end subroutine
  subroutine MPI_Win_get_attr(win, win_keyval, attribute_val, flag, ierror)
    import
    type(MPI_Win) :: win
    integer :: win_keyval
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
    integer, optional :: ierror
  end subroutine
"""


def f08_decls(name, args):
    """The dummy declarations of MPI_<name>'s mpi_f08 interface."""
    out = ['import']
    for a, kind, _ in args:
        base = kind.split('_')[0]
        if (name, a) in F08_OVERRIDES:
            out.append(F08_OVERRIDES[(name, a)])
        elif kind == 'buf' and takes_sections(name, args):
            asynchronous = ', asynchronous' if section_call(name, args) != 'kBlocking' else ''
            out.append(f'type(*), dimension(..){asynchronous} :: {a}')
        elif kind == 'buf':
            asynchronous = ', asynchronous' if name in RMA_BUFFERS else ''
            out.append(f'!GCC$ ATTRIBUTES NO_ARG_CHECK :: {a}')
            out.append(f'type(*), dimension(*){asynchronous} :: {a}')
        elif kind in ('int', 'int_out', 'index_out'):
            out.append(f'integer :: {a}')
        elif kind in ('int_arr', 'weights', 'indices_out'):
            out.append(f'integer :: {a}(*)')
        elif kind == 'int_ranges':
            out.append(f'integer :: {a}(3, *)')
        elif kind in ('aint', 'aint_out'):
            out.append(f'integer(kind=MPI_ADDRESS_KIND) :: {a}')
        elif kind == 'aint_arr':
            out.append(f'integer(kind=MPI_ADDRESS_KIND) :: {a}(*)')
        elif kind in ('count', 'count_out'):
            out.append(f'integer(kind=MPI_COUNT_KIND) :: {a}')
        elif kind in ('logical', 'logical_out'):
            out.append(f'logical :: {a}')
        elif kind in ('logical_arr', 'logical_arr_out'):
            out.append(f'logical :: {a}(*)')
        elif kind in ('str', 'str_out'):
            out.append(f'character(len=*) :: {a}')
        elif base in F08_TYPES:
            out.append(f'type(MPI_{base}) :: {a}' + ('(*)' if '_arr' in kind else ''))
        elif kind in ('status_out', 'status_in', 'status_inout'):
            out.append(f'type(MPI_Status) :: {a}')
        elif kind == 'status_arr_out':
            out.append(f'type(MPI_Status) :: {a}(*)')
        else:
            sys.exit(f'MPI_{name}: no mpi_f08 declaration for kind {kind}')
    out.append('integer, optional :: ierror')
    return out


def equality_functions_cpp():
    """The C side of the handle types' == and /=: one pair per kind."""
    out = []
    for kind in F08_TYPES:
        k = kind.lower()
        out.append(f'extern "C" MPI_Fint lz_f08_eq_{k}_(const MPI_Fint* a, const MPI_Fint* b) {{ return *a == *b; }}')
        out.append(f'extern "C" MPI_Fint lz_f08_ne_{k}_(const MPI_Fint* a, const MPI_Fint* b) {{ return *a != *b; }}')
    return out


def equality_interfaces():
    out = []
    for op, tag in (('==', 'eq'), ('/=', 'ne')):
        out.append(f'  interface operator({op})')
        for kind in F08_TYPES:
            fn = f'lz_f08_{tag}_{kind.lower()}'
            out += [f'    logical function {fn}(a, b)', '      import',
                    f'      type(MPI_{kind}), intent(in) :: a, b', '    end function']
        out.append('  end interface')
    return out


def module(handles, aliases, fns, consts, sentinels, char_sentinels, wrap_free, sizeof_lines):
    """The source of the mpi_f08 module."""
    handle_names = {name for _, name in handles} | {alias for alias, _ in aliases}
    null_names = {f'MPI_{k.upper()}_NULL' for k in F08_TYPES}
    m = ['! The `mpi_f08` module of Lazarus. Generated by runtime/mpi/fortran/gen_fortran.py: do not edit.',
         'module mpi_f08', '  use, intrinsic :: iso_c_binding, only: c_ptr', '  implicit none', '  public',
         '  private :: c_ptr']
    # Integer constants (not the handles: those are typed below).
    for name, v in consts:
        if name not in handle_names and name not in null_names:
            m.append(f'  integer, parameter :: {name} = {v}')
    m.append('  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .true.')
    m.append('  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.')
    for kind in F08_TYPES:
        m += [f'  type, bind(C) :: MPI_{kind}', '    integer :: MPI_VAL', '  end type']
    m += ['  type, bind(C) :: MPI_Status', '    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
          '    integer, private :: lz_internal(MPI_STATUS_SIZE - 3)', '  end type']
    # Predefined handles: the values of the `mpi` module.
    value = dict(consts)
    kind_of = dict((name, kind) for kind, name in handles)
    for alias, name in aliases:
        kind_of[alias] = kind_of[name]
    for kind in F08_TYPES:
        m.append(f'  type(MPI_{kind}), parameter :: MPI_{kind.upper()}_NULL = MPI_{kind}(0)')
    for name, kind in kind_of.items():
        m.append(f'  type(MPI_{kind}), parameter :: {name} = MPI_{kind}({value[name]})')
    # The sentinels: the `mpi` module's COMMON blocks, typed for mpi_f08.
    for name, block, dims in sentinels:
        if name in ('MPI_STATUS_IGNORE', 'MPI_STATUSES_IGNORE'):
            m.append(f'  type(MPI_Status) :: {name}' + ('(1)' if 'STATUSES' in name else ''))
        else:
            m.append(f'  integer :: {name}{dims}')
        m.append(f'  common /{block}/ {name}')
    for name, block, dims in char_sentinels:
        m.append(f'  character :: {name}{dims}')
        m.append(f'  common /{block}/ {name}')
    m.append(CALLBACK_IFACES.rstrip())
    m += ['  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN',
          '  procedure(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN',
          '  procedure(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN',
          '  procedure(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN',
          '  procedure(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN',
          '  procedure(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN']
    m += equality_interfaces()
    m.append('  interface')
    m.append(SPECIAL_IFACES.rstrip())
    for name, args in fns:
        if name in NOT_IN_F08:
            continue
        bind = f' bind(C, name="lz_f08_{name.lower()}")' if takes_sections(name, args) else ''
        m += wrap_free(f'  subroutine MPI_{name}(', [a for a, _, _ in args] + ['ierror'], ')' + bind)
        m += ['    ' + d for d in f08_decls(name, args)]
        m.append('  end subroutine')
    m.append('  end interface')
    m.append(SPAWN_IFACES.rstrip())
    m += sizeof_lines
    m.append('end module mpi_f08')
    return '\n'.join(m) + '\n'
