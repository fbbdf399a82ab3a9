#!/usr/bin/env python3
"""Generates the Fortran binding of Lazarus from fortran.tbl and mpi.h.

  gen_fortran.py TABLE MPI_H OUT_CPP OUT_MPIF_H OUT_MODULE_F90 OUT_F08_F90

OUT_CPP     the mpi_xxx_ entry points gfortran calls (one per `fn` line:
            handles converted through the tables of handle_table.h, then the
            C function of the same name called) and predefined_objects()
OUT_MPIF_H  mpif.h: the constants (every integer #define MPI_* of mpi.h,
            the predefined handles, the Fortran-only ones), the sentinel
            COMMON blocks and the EXTERNAL/type declarations of functions;
            written to be valid in fixed and free source form
OUT_MODULE  the `mpi` module: the same constants and explicit interfaces of
            every routine (choice buffers marked NO_ARG_CHECK so that any type
            and rank is accepted, as MPI's "ignore TKR" asks)
OUT_F08     the `mpi_f08` module: the same routines with Fortran 2008 handle
            types, OPTIONAL ierror (gen_f08.py)
The hand-written routines (MPI_Init, callbacks, attributes, address
arithmetic; the window ones among them: MPI_WIN_CREATE_ERRHANDLER,
_CREATE_KEYVAL, _SET_ATTR, _GET_ATTR) are in fortran_special.cpp; their
interfaces are SPECIAL_IFACES.
"""
import re
import sys

import gen_f08

HANDLES = {
    # kind: (C type, f2c, c2f, HandleTable kind, null name)
    'Comm': ('MPI_Comm', 'MPI_Comm_f2c', 'MPI_Comm_c2f', 'kComm', 'MPI_COMM_NULL'),
    'Group': ('MPI_Group', 'MPI_Group_f2c', 'MPI_Group_c2f', 'kGroup', 'MPI_GROUP_NULL'),
    'Datatype': ('MPI_Datatype', 'MPI_Type_f2c', 'MPI_Type_c2f', 'kDatatype', 'MPI_DATATYPE_NULL'),
    'Op': ('MPI_Op', 'MPI_Op_f2c', 'MPI_Op_c2f', 'kOp', 'MPI_OP_NULL'),
    'Request': ('MPI_Request', 'MPI_Request_f2c', 'MPI_Request_c2f', 'kRequest', 'MPI_REQUEST_NULL'),
    'Errhandler': ('MPI_Errhandler', 'MPI_Errhandler_f2c', 'MPI_Errhandler_c2f', 'kErrhandler',
                   'MPI_ERRHANDLER_NULL'),
    'Info': ('MPI_Info', 'MPI_Info_f2c', 'MPI_Info_c2f', 'kInfo', 'MPI_INFO_NULL'),
    'Message': ('MPI_Message', 'MPI_Message_f2c', 'MPI_Message_c2f', 'kMessage', 'MPI_MESSAGE_NULL'),
    'Win': ('MPI_Win', 'MPI_Win_f2c', 'MPI_Win_c2f', 'kWin', 'MPI_WIN_NULL'),
    'File': ('MPI_File', 'MPI_File_f2c', 'MPI_File_c2f', 'kFile', 'MPI_FILE_NULL'),
}

# Constants only Fortran has.
FORTRAN_CONSTANTS = [
    ('MPI_STATUS_SIZE', 6), ('MPI_SOURCE', 1), ('MPI_TAG', 2), ('MPI_ERROR', 3),
    ('MPI_ADDRESS_KIND', 8), ('MPI_OFFSET_KIND', 8), ('MPI_COUNT_KIND', 8), ('MPI_INTEGER_KIND', 4),
]

# The COMMON blocks whose addresses the C side recognises (fortran_args.h).
SENTINELS = [
    ('MPI_BOTTOM', 'lz_mpif_bottom', ''),
    ('MPI_IN_PLACE', 'lz_mpif_in_place', ''),
    ('MPI_STATUS_IGNORE', 'lz_mpif_status_ignore', '(MPI_STATUS_SIZE)'),
    ('MPI_STATUSES_IGNORE', 'lz_mpif_statuses_ignore', '(MPI_STATUS_SIZE,1)'),
    ('MPI_UNWEIGHTED', 'lz_mpif_unweighted', '(1)'),
    ('MPI_WEIGHTS_EMPTY', 'lz_mpif_weights_empty', '(1)'),
    ('MPI_ERRCODES_IGNORE', 'lz_mpif_errcodes_ignore', '(1)'),
]
# CHARACTER sentinels: MPI_Comm_spawn's argv and _spawn_multiple's argvs.
CHAR_SENTINELS = [
    ('MPI_ARGV_NULL', 'lz_mpif_argv_null', '(1)'),
    ('MPI_ARGVS_NULL', 'lz_mpif_argvs_null', '(1,1)'),
]

# Predefined callbacks, Fortran-callable (fortran_special.cpp).
EXTERNALS = ['MPI_COMM_NULL_COPY_FN', 'MPI_COMM_NULL_DELETE_FN', 'MPI_COMM_DUP_FN',
             'MPI_TYPE_NULL_COPY_FN', 'MPI_TYPE_NULL_DELETE_FN', 'MPI_TYPE_DUP_FN',
             'MPI_NULL_COPY_FN', 'MPI_NULL_DELETE_FN', 'MPI_DUP_FN',
             'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_NULL_DELETE_FN', 'MPI_WIN_DUP_FN']

# Functions (not subroutines): Fortran type and name.
FUNCTIONS = [('double precision', 'MPI_WTIME'), ('double precision', 'MPI_WTICK'),
             ('integer(kind=MPI_ADDRESS_KIND)', 'MPI_AINT_ADD'),
             ('integer(kind=MPI_ADDRESS_KIND)', 'MPI_AINT_DIFF'),
             ('double precision', 'PMPI_WTIME'), ('double precision', 'PMPI_WTICK')]

SPECIAL_IFACES = """
  subroutine MPI_Init(ierror)
    integer :: ierror
  end subroutine
  subroutine MPI_Init_thread(required, provided, ierror)
    integer :: required, provided, ierror
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
    external :: user_fn
    logical :: commute
    integer :: op, ierror
  end subroutine
  subroutine MPI_Comm_create_errhandler(function, errhandler, ierror)
    external :: function
    integer :: errhandler, ierror
  end subroutine
  subroutine MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state, ierror)
    import :: MPI_ADDRESS_KIND
    external :: copy_fn, delete_fn
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
  subroutine MPI_Type_create_keyval(type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state, ierror)
    import :: MPI_ADDRESS_KIND
    external :: type_copy_attr_fn, type_delete_attr_fn
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
  subroutine MPI_Type_set_attr(datatype, type_keyval, attribute_val, ierror)
    import :: MPI_ADDRESS_KIND
    integer :: datatype, type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  end subroutine
  subroutine MPI_Type_get_attr(datatype, type_keyval, attribute_val, flag, ierror)
    import :: MPI_ADDRESS_KIND
    integer :: datatype, type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
  end subroutine
  subroutine MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
    import :: MPI_ADDRESS_KIND
    external :: query_fn, free_fn, cancel_fn
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: request, ierror
  end subroutine
  subroutine MPI_Info_create_env(info, ierror)
    integer :: info, ierror
  end subroutine
  subroutine MPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state, ierror)
    external :: copy_fn, delete_fn
    integer :: keyval, extra_state, ierror
  end subroutine
  subroutine MPI_Comm_set_attr(comm, keyval, attribute_val, ierror)
    import :: MPI_ADDRESS_KIND
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  end subroutine
  subroutine MPI_Comm_get_attr(comm, keyval, attribute_val, flag, ierror)
    import :: MPI_ADDRESS_KIND
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
  end subroutine
  subroutine MPI_Attr_put(comm, keyval, attribute_val, ierror)
    integer :: comm, keyval, attribute_val, ierror
  end subroutine
  subroutine MPI_Attr_get(comm, keyval, attribute_val, flag, ierror)
    integer :: comm, keyval, attribute_val, ierror
    logical :: flag
  end subroutine
  subroutine MPI_Get_address(location, address, ierror)
    import :: MPI_ADDRESS_KIND
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: location
    real, dimension(*) :: location
    integer(kind=MPI_ADDRESS_KIND) :: address
    integer :: ierror
  end subroutine
  function MPI_Aint_add(base, disp)
    import :: MPI_ADDRESS_KIND
    integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_add, base, disp
  end function
  function MPI_Aint_diff(addr1, addr2)
    import :: MPI_ADDRESS_KIND
    integer(kind=MPI_ADDRESS_KIND) :: MPI_Aint_diff, addr1, addr2
  end function
  subroutine MPI_Op_free(op, ierror)
    integer :: op, ierror
  end subroutine
  subroutine MPI_Errhandler_free(errhandler, ierror)
    integer :: errhandler, ierror
  end subroutine
  subroutine MPI_F_sync_reg(buf)
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
    real, dimension(*) :: buf
  end subroutine
  subroutine MPI_Comm_idup(comm, newcomm, request, ierror)
    integer :: comm, newcomm, request, ierror
  end subroutine
  subroutine MPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierror)
    character(len=*) :: command
    character(len=*), dimension(*) :: argv
    integer :: maxprocs, info, root, comm, intercomm, ierror
    integer, dimension(*) :: array_of_errcodes
  end subroutine
  subroutine MPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, &
                                     root, comm, intercomm, array_of_errcodes, ierror)
    integer :: count, root, comm, intercomm, ierror
    character(len=*), dimension(*) :: array_of_commands
    character(len=*), dimension(count, *) :: array_of_argv
    integer, dimension(*) :: array_of_maxprocs, array_of_info, array_of_errcodes
  end subroutine
  subroutine MPI_Buffer_detach(buffer_addr, size, ierror)
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer_addr
    real, dimension(*) :: buffer_addr
    integer :: size, ierror
  end subroutine
  subroutine MPI_Win_create_errhandler(win_errhandler_fn, errhandler, ierror)
    external :: win_errhandler_fn
    integer :: errhandler, ierror
  end subroutine
  subroutine MPI_Win_create_keyval(win_copy_attr_fn, win_delete_attr_fn, win_keyval, extra_state, ierror)
    import :: MPI_ADDRESS_KIND
    external :: win_copy_attr_fn, win_delete_attr_fn
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
  end subroutine
  subroutine MPI_Win_set_attr(win, win_keyval, attribute_val, ierror)
    import :: MPI_ADDRESS_KIND
    integer :: win, win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
  end subroutine
  subroutine MPI_Win_get_attr(win, win_keyval, attribute_val, flag, ierror)
    import :: MPI_ADDRESS_KIND
    integer :: win, win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val
    logical :: flag
  end subroutine
"""


# MPI_SIZEOF (MPI-3.1 section 17.1.9): a generic of one specific per
# intrinsic type and kind gfortran has, each an entry point that reports the
# size. Assumed rank, so scalars and arrays of any rank resolve alike.
SIZEOF_KINDS = [(f'integer({k})', f'i{k}', k) for k in (1, 2, 4, 8, 16)] + \
               [(f'real({k})', f'r{k}', k) for k in (4, 8, 16)] + \
               [(f'complex({k})', f'c{k}', 2 * k) for k in (4, 8, 16)] + \
               [(f'logical({k})', f'l{k}', k) for k in (1, 2, 4, 8)] + \
               [('character(len=*)', 'ch', 1)]


def sizeof_interface(ierror_decl):
    """The MPI_Sizeof generic of a module; ierror_decl declares its ierror."""
    out = ['  interface MPI_Sizeof']
    for ftype, tag, _ in SIZEOF_KINDS:
        out += [f'    subroutine lz_sizeof_{tag}(x, size, ierror)', f'      {ftype}, dimension(..) :: x',
                '      integer :: size', f'      {ierror_decl} :: ierror', '    end subroutine']
    out.append('  end interface')
    return out


def sizeof_functions_cpp():
    out = []
    for _, tag, size in SIZEOF_KINDS:
        hidden = ', size_t' if tag == 'ch' else ''
        out.append(f'extern "C" void lz_sizeof_{tag}_(const void*, MPI_Fint* size, MPI_Fint* ierror{hidden}) {{')
        out.append(f'  *size = {size};')
        out.append('  if (ierror) *ierror = MPI_SUCCESS;')
        out.append('}')
    return out


def parse_table(path):
    handles, aliases, fns = [], [], []
    first_line = {}  # fn name -> the line that declared it
    for lineno, raw in enumerate(open(path), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words[0] == 'handle':
            if len(words) != 3 or words[1] not in HANDLES:
                sys.exit(f'{path}:{lineno}: handle KIND NAME expected')
            handles.append((words[1], words[2]))
        elif words[0] == 'alias':
            aliases.append((words[1], words[2]))
        elif words[0] == 'fn':
            if words[1] in first_line:
                sys.exit(f'{path}:{lineno}: fn {words[1]} again (first at line {first_line[words[1]]})')
            first_line[words[1]] = lineno
            args = []
            for w in words[2:]:
                m = re.fullmatch(r'(\w+):(\w+)(?:\[(.+)\])?', w)
                if not m:
                    sys.exit(f'{path}:{lineno}: bad argument {w}')
                args.append((m.group(1), m.group(2), m.group(3)))
            fns.append((words[1], args))
        else:
            sys.exit(f'{path}:{lineno}: unknown line')
    return handles, aliases, fns


def c_length(expr):
    expr = re.sub(r'\bsize\(', 'lz_f_comm_size(', expr)
    expr = re.sub(r'\bcartdim\(', 'lz_f_cartdim(', expr)
    expr = re.sub(r'\bindeg\(', 'lz_f_indegree(', expr)
    expr = re.sub(r'\boutdeg\(', 'lz_f_outdegree(', expr)
    return expr


def gen_function(name, args):
    """The C++ entry point of MPI_<name>."""
    params, call, pre1, pre2, post, hidden = [], [], [], [], [], []
    prev_int_out = None
    # A string out beside a `flag` (MPI_INFO_GET) is written only when flag
    # is true: otherwise the program's variable keeps its value.
    found = ' && c_flag' if ('flag', 'logical_out', None) in args else ''
    for a, kind, n in args:
        base = kind.split('_')[0]
        if kind == 'int':
            params.append(f'const MPI_Fint* {a}')
            pre1.append(f'const int c_{a} = *{a};')
            call.append(f'c_{a}')
        elif kind == 'aint':
            params.append(f'const MPI_Aint* {a}')
            call.append(f'*{a}')
        elif kind in ('int_out', 'int_arr'):
            params.append(f'MPI_Fint* {a}')
            call.append(a)
            if kind == 'int_out':
                prev_int_out = a
        elif kind in ('aint_out', 'aint_arr'):
            params.append(f'MPI_Aint* {a}')
            call.append(a)
        elif kind == 'count':
            params.append(f'const MPI_Count* {a}')
            call.append(f'*{a}')
        elif kind == 'count_out':
            params.append(f'MPI_Count* {a}')
            call.append(a)
        elif kind == 'int_ranges':
            params.append(f'MPI_Fint* {a}')
            call.append(f'reinterpret_cast<int(*)[3]>({a})')
        elif kind == 'weights':
            params.append(f'MPI_Fint* {a}')
            call.append(f'lz_f_weights({a})')
        elif kind == 'buf':
            params.append(f'void* {a}')
            call.append(f'lz_f_buf({a})')
        elif kind == 'logical':
            params.append(f'const MPI_Fint* {a}')
            call.append(f'*{a} != 0')
        elif kind == 'logical_out':
            params.append(f'MPI_Fint* {a}')
            pre1.append(f'int c_{a} = 0;')
            call.append(f'&c_{a}')
            post.append(f'*{a} = c_{a} != 0;')
        elif kind == 'logical_arr':
            params.append(f'const MPI_Fint* {a}')
            pre2.append(f'std::vector<int> c_{a}(lz_f_len({c_length(n)}));')
            pre2.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) c_{a}[i] = {a}[i] != 0;')
            call.append(f'c_{a}.data()')
        elif kind == 'logical_arr_out':
            params.append(f'MPI_Fint* {a}')
            pre2.append(f'std::vector<int> c_{a}(lz_f_len({c_length(n)}));')
            call.append(f'c_{a}.data()')
            post.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) {a}[i] = c_{a}[i] != 0;')
        elif kind == 'str':
            params.append(f'const char* {a}')
            hidden.append(f'size_t {a}_len')
            pre1.append(f'const std::string c_{a} = lz_f_string({a}, {a}_len);')
            call.append(f'c_{a}.c_str()')
        elif kind == 'str_out':
            params.append(f'char* {a}')
            hidden.append(f'size_t {a}_len')
            pre2.append(f'std::vector<char> c_{a}(lz_f_len({c_length(n)}) + 1, 0);')
            call.append(f'c_{a}.data()')
            post.append(f'if (rc == MPI_SUCCESS{found}) lz_f_copy_string(c_{a}.data(), {a}, {a}_len);')
        elif base in HANDLES:
            ctype, f2c, c2f, tkind, _ = HANDLES[base]
            suffix = kind[len(base):]
            if suffix == '':
                params.append(f'const MPI_Fint* {a}')
                pre1.append(f'const {ctype} c_{a} = {f2c}(*{a});')
                call.append(f'c_{a}')
            elif suffix == '_out':
                params.append(f'MPI_Fint* {a}')
                pre1.append(f'{ctype} c_{a} = {HANDLES[base][4]};')
                call.append(f'&c_{a}')
                post.append(f'*{a} = {c2f}(c_{a});')
            elif suffix == '_inout':
                params.append(f'MPI_Fint* {a}')
                pre1.append(f'const MPI_Fint f_{a} = *{a};')
                pre1.append(f'{ctype} c_{a} = {f2c}(f_{a});')
                call.append(f'&c_{a}')
                post.append(f'*{a} = lz_f_update(Kind::{tkind}, f_{a}, c_{a});')
            elif suffix == '_arr':
                params.append(f'const MPI_Fint* {a}')
                pre2.append(f'std::vector<{ctype}> c_{a}(lz_f_len({c_length(n)}));')
                pre2.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) c_{a}[i] = {f2c}({a}[i]);')
                call.append(f'c_{a}.data()')
            elif suffix == '_arr_inout':
                params.append(f'MPI_Fint* {a}')
                pre2.append(f'std::vector<{ctype}> c_{a}(lz_f_len({c_length(n)}));')
                pre2.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) c_{a}[i] = {f2c}({a}[i]);')
                call.append(f'c_{a}.data()')
                post.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) '
                            f'{a}[i] = lz_f_update(Kind::{tkind}, {a}[i], c_{a}[i]);')
            elif suffix == '_arr_out':
                params.append(f'MPI_Fint* {a}')
                pre2.append(f'std::vector<{ctype}> c_{a}(lz_f_len({c_length(n)}));')
                call.append(f'c_{a}.data()')
                post.append(f'if (rc == MPI_SUCCESS) for (size_t i = 0; i < c_{a}.size(); ++i) '
                            f'{a}[i] = {c2f}(c_{a}[i]);')
            else:
                sys.exit(f'MPI_{name}: unknown kind {kind}')
        elif kind == 'status_out':
            # From the program's status: fields the call does not set
            # (MPI_ERROR, by single-completion calls) keep their values.
            params.append(f'MPI_Fint* {a}')
            pre1.append(f'MPI_Status c_{a}{{}};')
            pre1.append(f'if (!lz_f_status_ignored({a})) MPI_Status_f2c({a}, &c_{a});')
            call.append(f'lz_f_status_ignored({a}) ? MPI_STATUS_IGNORE : &c_{a}')
            post.append(f'if (!lz_f_status_ignored({a})) MPI_Status_c2f(&c_{a}, {a});')
        elif kind == 'status_inout':
            params.append(f'MPI_Fint* {a}')
            pre1.append(f'MPI_Status c_{a}{{}};')
            pre1.append(f'MPI_Status_f2c({a}, &c_{a});')
            call.append(f'&c_{a}')
            post.append(f'if (rc == MPI_SUCCESS) MPI_Status_c2f(&c_{a}, {a});')
        elif kind == 'status_in':
            params.append(f'const MPI_Fint* {a}')
            pre1.append(f'MPI_Status c_{a}{{}};')
            pre1.append(f'MPI_Status_f2c({a}, &c_{a});')
            call.append(f'&c_{a}')
        elif kind == 'status_arr_out':
            params.append(f'MPI_Fint* {a}')
            pre2.append(f'std::vector<MPI_Status> c_{a}(lz_f_statuses_ignored({a}) ? 0 : lz_f_len({c_length(n)}));')
            pre2.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) '
                        f'MPI_Status_f2c({a} + i * LZ_F_STATUS_SIZE, &c_{a}[i]);')
            call.append(f'lz_f_statuses_ignored({a}) ? MPI_STATUSES_IGNORE : c_{a}.data()')
            post.append(f'for (size_t i = 0; i < c_{a}.size(); ++i) '
                        f'MPI_Status_c2f(&c_{a}[i], {a} + i * LZ_F_STATUS_SIZE);')
        elif kind == 'index_out':
            params.append(f'MPI_Fint* {a}')
            pre1.append(f'int c_{a} = MPI_UNDEFINED;')
            call.append(f'&c_{a}')
            post.append(f'*{a} = c_{a} >= 0 ? c_{a} + 1 : c_{a};')
        elif kind == 'indices_out':
            if prev_int_out is None:
                sys.exit(f'MPI_{name}: indices_out needs an outcount before it')
            params.append(f'MPI_Fint* {a}')
            call.append(a)
            post.append(f'if (rc == MPI_SUCCESS) for (int i = 0; i < *{prev_int_out}; ++i) {a}[i] += 1;')
        else:
            sys.exit(f'MPI_{name}: unknown kind {kind}')
    if name == 'Request_free':
        # A non-blocking call's copy of an array section may still be in use
        # (f08_sections.h): it is let go, never freed.
        pre1.insert(0, 'lz_f08_sections_forget(*request);')
    wrapper = gen_f08.section_wrapper(name, args, params) if not hidden else []
    params.append('MPI_Fint* ierror')
    params += hidden
    body = [f'extern "C" void mpi_{name.lower()}_({", ".join(params)}) {{']
    body += ['  ' + s for s in pre1 + pre2]
    body.append(f'  const int rc = MPI_{name}({", ".join(call)});')
    body += ['  ' + s for s in post]
    body.append('  if (ierror) *ierror = rc;  // mpi_f08: an OPTIONAL ierror left out is null')
    body.append('}')
    body.append(f'LZ_F_PMPI(mpi_{name.lower()}_);')
    return '\n'.join(body + wrapper)


def f_decls(args):
    """The Fortran dummy declarations of an interface body."""
    out, needs = [], set()
    for a, kind, _ in args:
        base = kind.split('_')[0]
        if kind == 'buf':
            out.append(f'!GCC$ ATTRIBUTES NO_ARG_CHECK :: {a}')
            out.append(f'real, dimension(*) :: {a}')
        elif kind in ('int', 'int_out', 'index_out') or (base in HANDLES and '_arr' not in kind):
            out.append(f'integer :: {a}')
        elif kind in ('int_arr', 'weights', 'indices_out') or (base in HANDLES and '_arr' in kind):
            out.append(f'integer :: {a}(*)')
        elif kind == 'int_ranges':
            out.append(f'integer :: {a}(3, *)')
        elif kind in ('aint', 'aint_out'):
            out.append(f'integer(kind=MPI_ADDRESS_KIND) :: {a}')
            needs.add('MPI_ADDRESS_KIND')
        elif kind == 'aint_arr':
            out.append(f'integer(kind=MPI_ADDRESS_KIND) :: {a}(*)')
            needs.add('MPI_ADDRESS_KIND')
        elif kind in ('count', 'count_out'):
            out.append(f'integer(kind=MPI_COUNT_KIND) :: {a}')
            needs.add('MPI_COUNT_KIND')
        elif kind in ('logical', 'logical_out'):
            out.append(f'logical :: {a}')
        elif kind in ('logical_arr', 'logical_arr_out'):
            out.append(f'logical :: {a}(*)')
        elif kind in ('str', 'str_out'):
            out.append(f'character(len=*) :: {a}')
        elif kind in ('status_out', 'status_in', 'status_inout'):
            out.append(f'integer :: {a}(MPI_STATUS_SIZE)')
            needs.add('MPI_STATUS_SIZE')
        elif kind == 'status_arr_out':
            out.append(f'integer :: {a}(MPI_STATUS_SIZE, *)')
            needs.add('MPI_STATUS_SIZE')
        else:
            sys.exit(f'unknown kind {kind}')
    out.append('integer :: ierror')
    if needs:
        out.insert(0, 'import :: ' + ', '.join(sorted(needs)))
    return out


def wrap_free(head, items, tail, width=100):
    """A free-form statement head(items...)tail, continued with & to stay
    under gfortran's 132 columns."""
    lines, cur = [], head
    for i, it in enumerate(items):
        piece = it + (', ' if i + 1 < len(items) else '')
        if len(cur) + len(piece) > width:
            lines.append(cur.rstrip() + ' &')
            cur = '      '
        cur += piece
    if len(cur) + len(tail) > 130:
        lines.append(cur.rstrip() + ' &')
        cur = '      '
    lines.append(cur + tail)
    return lines


def integer_defines(mpi_h):
    """Every `#define MPI_X <integer>` of mpi.h, in order."""
    out = []
    for line in open(mpi_h):
        m = re.match(r'#define\s+(MPI_\w+)\s+(\(?-?(?:0x[0-9a-fA-F]+|\d+)\)?)\s*(?:/\*.*)?$', line)
        if m:
            out.append((m.group(1), int(m.group(2).strip('()'), 0)))
    return out


def constants(handles, aliases, mpi_h):
    consts = integer_defines(mpi_h) + FORTRAN_CONSTANTS
    for kind in HANDLES:
        consts.append((HANDLES[kind][4], 0))
    seen = {}
    for kind, name in handles:
        seen[kind] = seen.get(kind, 0) + 1
        consts.append((name, seen[kind]))
    value = dict(consts)
    for alias, name in aliases:
        consts.append((alias, value[name]))
    names = [c[0].upper() for c in consts]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f'constants defined twice: {sorted(dup)}')
    return consts


def fortran_constant_lines(consts):
    # Fixed-form safe: from column 7, under 72 columns, one name per line.
    lines = []
    for name, v in consts:
        lines.append(f'      integer {name}')
        lines.append(f'      parameter ({name}={v})')
    return lines


def main():
    table, mpi_h, out_cpp, out_mpif, out_mod, out_f08 = sys.argv[1:7]
    handles, aliases, fns = parse_table(table)
    consts = constants(handles, aliases, mpi_h)

    # --- C++ ---
    cpp = ['// Generated by runtime/mpi/fortran/gen_fortran.py from fortran.tbl: do not edit.',
           '#include <string>', '#include <vector>', '',
           '#include "mpi.h"', '#include "mpi/fortran/f08_sections.h"', '#include "mpi/fortran/fortran_args.h"',
           '#include "mpi/fortran/handle_table.h"', '',
           'using lz::fortran::Kind;', 'using namespace lz::fortran;', '',
           'namespace lz::fortran {', '',
           'std::vector<void*> predefined_objects(Kind kind) {', '  switch (kind) {']
    for kind, (ctype, _, _, tkind, _) in HANDLES.items():
        objs = [n for k, n in handles if k == kind]
        cpp.append(f'    case Kind::{tkind}:')
        cpp.append('      return {' + ', '.join(f'static_cast<void*>({n})' for n in objs) + '};')
    cpp += ['    default:', '      return {};', '  }', '}', '', '}  // namespace lz::fortran', '']
    for name, args in fns:
        cpp.append(gen_function(name, args))
        cpp.append('')
    cpp += gen_f08.equality_functions_cpp()
    cpp += sizeof_functions_cpp()
    open(out_cpp, 'w').write('\n'.join(cpp) + '\n')

    # --- mpif.h ---
    f = ['! mpif.h: the Fortran 77 binding of Lazarus (fixed and free form).',
         '! Generated by runtime/mpi/fortran/gen_fortran.py: do not edit.']
    f += fortran_constant_lines(consts)
    for name, block, dims in SENTINELS:
        f.append(f'      integer {name}{dims}')
        f.append(f'      common /{block}/ {name}')
    for name, block, dims in CHAR_SENTINELS:
        f.append(f'      character {name}{dims}')
        f.append(f'      common /{block}/ {name}')
    for t, name in FUNCTIONS:
        f.append(f'      {t} {name}')
        f.append(f'      external {name}')
    for name in EXTERNALS:
        f.append(f'      external {name}')
    open(out_mpif, 'w').write('\n'.join(f) + '\n')

    # --- module ---
    m = ['! The `mpi` module of Lazarus. Generated by runtime/mpi/fortran/gen_fortran.py: do not edit.',
         'module mpi', '  implicit none', '  public']
    m += ['  ' + l.strip() for l in fortran_constant_lines(consts)]
    for name, block, dims in SENTINELS:
        m.append(f'  integer :: {name}{dims}')
        m.append(f'  common /{block}/ {name}')
    for name, block, dims in CHAR_SENTINELS:
        m.append(f'  character :: {name}{dims}')
        m.append(f'  common /{block}/ {name}')
    m += wrap_free('  external :: ', EXTERNALS, '')
    m.append('  interface')
    m.append(SPECIAL_IFACES.rstrip())
    for name, args in fns:
        m += wrap_free(f'  subroutine MPI_{name}(', [a for a, _, _ in args] + ['ierror'], ')')
        m += ['    ' + d for d in f_decls(args)]
        m.append('  end subroutine')
    m.append('  end interface')
    m += sizeof_interface('integer')
    m.append('end module mpi')
    open(out_mod, 'w').write('\n'.join(m) + '\n')

    open(out_f08, 'w').write(gen_f08.module(handles, aliases, fns, consts, SENTINELS, CHAR_SENTINELS, wrap_free,
                                            sizeof_interface('integer, optional')))


if __name__ == '__main__':
    main()
