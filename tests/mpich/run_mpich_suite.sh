#!/usr/bin/env bash
# Runs MPICH's own test suite (test/mpi of MPICH 4.0.2, Debian bookworm's
# `mpich` source package) over Lazarus and over Open MPI (and, on request,
# over MPICH itself), side by side, and writes per-directory pass counts.
# See --help.
set -uo pipefail

# The whole script is one block, closed on the last line, so bash has parsed
# all of it before running: editing this file during a run cannot derail it.
{

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

MPICH_VERSION=4.0.2
MPICH_SRC_SUITE=bookworm
MPICH_TARBALL="mpich_${MPICH_VERSION}.orig.tar.xz"
# SHA256 of the upstream tarball as apt fetched it (also in mpich_4.0.2-3.dsc).
MPICH_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
DEBIAN_MIRROR=http://deb.debian.org/debian
TOPDIR="mpich-${MPICH_VERSION}/test/mpi"

DEFAULT_DIRS="attr coll comm datatype errhan group info init mpi_t pt2pt spawn topo"
KNOWN_DIRS="$DEFAULT_DIRS threads f77 f90 f08 cxx rma io"

WORK="$ROOT/build/mpich-tests"
DIRS="$DEFAULT_DIRS"
MPIS=both
LAZ_PREFIX="$ROOT/build"
LAZ_HINT=""
SRC_CACHE="$ROOT/build/deps/src"
DEFAULT_TIMEOUT=180
WITH_DTP=0
RECONFIGURE=0
STRICT=1
ONLY=""
# Open MPI's one-sided component for the rma directory, as --mca osc: ucx,
# as Open MPI's default (osc rdma over the BTLs, osc sm for windows of one
# node) was seen to crash in MPI_Win_lock.  osc ucx has no shared-memory
# windows (MPI_Win_allocate_shared fails): Open MPI 4.1.4 here, 2 cores,
# --timeout 60: 140/195 pass with ucx, 174/195 with the default (no crash in
# that run).  "default": no --mca osc.
OMPI_OSC=ucx

usage() {
    cat <<EOF
Usage: tests/mpich/run_mpich_suite.sh [OPTIONS]

Fetches MPICH $MPICH_VERSION's test suite ($TOPDIR of the Debian
$MPICH_SRC_SUITE source package, with apt-get source and a private apt state),
builds it with each MPI's compiler wrappers and runs it, one test at a time,
with that MPI's mpirun and each testlist line's process count.  Prints a
Markdown table of per-directory counts and writes it to WORK/summary.md; per-test results go to
WORK/<mpi>/<dir>/results.txt (full output: WORK/<mpi>/<dir>/<prog>.np<N>.out,
build log: WORK/<mpi>/<dir>/<prog>.build.log).

Options:
  --mpi LIST                   which MPI(s) to test, comma- or space-separated:
                               lazarus, openmpi, mpich (MPICH itself:
                               mpicc.mpich, mpirun.mpich), both (= lazarus
                               openmpi, the default) or all (the three)
  --dirs "a b c"               test directories (default: "$DEFAULT_DIRS";
                               also accepted: threads f77 f90 f08 cxx rma io)
  --ompi-osc NAME              Open MPI's one-sided component in the rma
                               directory, as --mca osc NAME (default: ucx;
                               "default" lets Open MPI choose)
  --only "prog1 prog2"         run only these programs of the directories
  --work DIR                   work directory (default: build/mpich-tests)
  --lazarus-prefix DIR         Lazarus build/install with bin/mpicc, bin/mpirun
                               (default: $ROOT/build)
  --timeout S                  time limit of a test without timeLimit= (default: 180)
  --dtp                        also run the generated testlist.dtp (DTPools) lists
  --reconfigure                run configure again even when a build tree exists
  --no-strict                  configure without --enable-strictmpi and run the
                               strict=false lines (MPICH extensions such as
                               MPI_LAND on MPI_CHAR); default: strict, as
                               neither MPI is MPICH
  -h, --help                   this help

Counting (per testlist line, as MPICH's runtests does):
  pass     exit status 0 and a line " No Errors" in the output (for resultTest=
           TestStatus/TestErrFatal: a non-zero exit; TestStatusNoErrors: both)
  fail     anything else; timeout is counted apart (timeout command, the line's
           timeLimit= or --timeout)
  build    'make <prog>' failed (first compiler/linker error in results.txt)
  skip     not MPI-3.1 (both MPIs are 3.1): the line has mpiversion= above 3.1,
           or the program does not build only because its first error names an
           MPI-4 routine/constant, an MPICH extension (MPIX_, QMPI_) or an MPI-1
           routine removed in MPI-3.0 (MPI_Errhandler_create, MPI_Type_extent, ...)
xfail= lines are run and counted like the others (marked xfail in results.txt).

One-sided (rma): the directory is configured in when the MPI links the
window routines MPICH's test library calls (MPI_Win_create, _free,
_create_keyval, _free_keyval, _get_attr, _set_attr); otherwise the tree is
configured with --disable-rma and each rma test fails to build, naming the
first missing symbol.

Exit status: 0 when the tests ran (whatever the counts); non-zero when the
source could not be fetched or extracted, or configure failed.
EOF
}

die() { echo "run_mpich_suite: error: $*" >&2; exit 1; }
log() { echo "run_mpich_suite: $*" >&2; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --mpi) MPIS="${2:?}"; shift 2 ;;
        --mpi=*) MPIS="${1#*=}"; shift ;;
        --dirs) DIRS="${2:?}"; shift 2 ;;
        --dirs=*) DIRS="${1#*=}"; shift ;;
        --only) ONLY="${2:?}"; shift 2 ;;
        --work) WORK="${2:?}"; shift 2 ;;
        --work=*) WORK="${1#*=}"; shift ;;
        --lazarus-prefix) LAZ_PREFIX="${2:?}"; shift 2 ;;
        --lazarus-prefix=*) LAZ_PREFIX="${1#*=}"; shift ;;
        --timeout) DEFAULT_TIMEOUT="${2:?}"; shift 2 ;;
        --dtp) WITH_DTP=1; shift ;;
        --reconfigure) RECONFIGURE=1; shift ;;
        --no-strict) STRICT=0; shift ;;
        --ompi-osc) OMPI_OSC="${2:?}"; shift 2 ;;
        --ompi-osc=*) OMPI_OSC="${1#*=}"; shift ;;
        -j|--jobs) shift 2 ;;   # accepted, ignored: tests run serially
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option '$1'" ;;
    esac
done

_mpis=""
for m in ${MPIS//,/ }; do
    case "$m" in
        both) _mpis+=" lazarus openmpi" ;;
        all) _mpis+=" lazarus openmpi mpich" ;;
        lazarus|openmpi|mpich) _mpis+=" $m" ;;
        *) die "--mpi takes lazarus, openmpi, mpich, both or all (got '$m')" ;;
    esac
done
MPIS="$(printf '%s\n' $_mpis | awk '!seen[$0]++' | tr '\n' ' ')"
[[ -n "${MPIS// /}" ]] || die "--mpi: no MPI given"
for d in $DIRS; do
    [[ " $KNOWN_DIRS " == *" $d "* ]] || die "unknown test directory '$d' (known: $KNOWN_DIRS)"
done
mkdir -p "$WORK" || die "cannot create the work directory $WORK"
WORK="$(cd "$WORK" && pwd)"
SRC="$WORK/src/$TOPDIR"

# ---------------------------------------------------------------- fetch
sha256_ok() { [[ "$(sha256sum "$1" | awk '{ print $1 }')" == "$MPICH_SHA256" ]]; }

# Like scripts/setup's fetch_criu_source: apt-get source with a private apt
# state (sources.list, lists, cache under WORK/apt); nothing goes to /etc/apt.
fetch_mpich_source() {
    local tarball="$SRC_CACHE/$MPICH_TARBALL"
    mkdir -p "$SRC_CACHE" || die "fetch: cannot create $SRC_CACHE"
    if [[ -f "$tarball" ]]; then
        if sha256_ok "$tarball"; then
            log "using cached $tarball"
            return 0
        fi
        log "cached $tarball has a wrong SHA256: downloading it again"
        rm -f "$tarball"
    fi
    local keyrings=() k
    for k in /usr/share/keyrings/debian-archive-keyring.gpg \
             /usr/share/keyrings/debian-archive-bookworm-automatic.gpg \
             /usr/share/keyrings/debian-archive-bookworm-stable.gpg; do
        [[ -f "$k" ]] && keyrings+=("$k")
    done
    [[ ${#keyrings[@]} -gt 0 ]] || die "fetch: no Debian archive keyring in /usr/share/keyrings (install debian-archive-keyring)"
    local signed_by apt_dir="$WORK/apt"
    signed_by="$(IFS=,; echo "${keyrings[*]}")"
    rm -rf "$apt_dir"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    printf 'deb-src [signed-by=%s] %s %s main\n' "$signed_by" "$DEBIAN_MIRROR" "$MPICH_SRC_SUITE" \
        > "$apt_dir/sources.list"
    local -a apt_opts=(
        -o "Dir::Etc::SourceList=$apt_dir/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::Cache=$apt_dir/cache"
        -o "Dir::Cache::pkgcache="
        -o "Dir::Cache::srcpkgcache="
        -o "APT::Get::Only-Source=true"
    )
    [[ $EUID -eq 0 ]] && apt_opts+=(-o "APT::Sandbox::User=root")
    log "fetching the $MPICH_SRC_SUITE deb-src index (private apt state in $apt_dir)"
    apt-get "${apt_opts[@]}" update -qq \
        || die "fetch: apt-get update of the $MPICH_SRC_SUITE deb-src index failed (is $DEBIAN_MIRROR reachable? is the keyring current?)"
    log "apt-get source --download-only mpich/$MPICH_SRC_SUITE"
    local rc=0 out
    out="$(cd "$SRC_CACHE" && apt-get "${apt_opts[@]}" source --download-only "mpich/$MPICH_SRC_SUITE" 2>&1)" || rc=$?
    if [[ ! -f "$tarball" ]]; then
        printf '%s\n' "$out" >&2
        die "fetch: apt-get source (exit $rc) did not fetch $MPICH_TARBALL (output above)"
    fi
    # Keep only the upstream tarball.
    find "$SRC_CACHE" -maxdepth 1 -name 'mpich_*' ! -name "$MPICH_TARBALL" -delete
    if ! sha256_ok "$tarball"; then
        local got
        got="$(sha256sum "$tarball" | awk '{ print $1 }')"
        mv -f "$tarball" "$tarball.bad"
        die "fetch: SHA256 mismatch for $MPICH_TARBALL: got $got, expected $MPICH_SHA256 (moved to $tarball.bad)"
    fi
    log "SHA256 of $MPICH_TARBALL verified"
    rm -rf "$apt_dir"
}

extract_tests() {
    [[ -f "$WORK/src/.extracted-$MPICH_VERSION" && -x "$SRC/configure" ]] && return 0
    rm -rf "$WORK/src"
    mkdir -p "$WORK/src"
    log "extracting $TOPDIR into $WORK/src"
    tar -xJf "$SRC_CACHE/$MPICH_TARBALL" -C "$WORK/src" "$TOPDIR" \
        || die "extract: tar failed on $SRC_CACHE/$MPICH_TARBALL (delete it to download it again)"
    [[ -x "$SRC/configure" ]] || die "extract: $SRC/configure is missing (unexpected tarball layout)"
    touch "$WORK/src/.extracted-$MPICH_VERSION"
}

# ---------------------------------------------------------------- per MPI
# Sets CC_W CXX_W FC_W RUN (array) for an MPI.
setup_mpi() {
    local mpi="$1"
    case "$mpi" in
        lazarus)
            CC_W="$LAZ_PREFIX/bin/mpicc" CXX_W="$LAZ_PREFIX/bin/mpicxx" FC_W="$LAZ_PREFIX/bin/mpifort"
            RUN=("$LAZ_PREFIX/bin/mpirun")
            LAZ_HINT=" -- is $LAZ_PREFIX complete, or being rebuilt right now? (re-run when 'cmake --build' is done)"
            [[ -x "$CC_W" && -x "${RUN[0]}" ]] \
                || die "lazarus: $CC_W or ${RUN[0]} missing (build Lazarus, or give --lazarus-prefix)"
            ;;
        openmpi)
            CC_W=mpicc.openmpi CXX_W=mpicxx.openmpi FC_W=mpifort.openmpi
            RUN=(mpirun.openmpi --oversubscribe)
            [[ $EUID -eq 0 ]] && RUN+=(--allow-run-as-root)
            command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null \
                || die "openmpi: mpicc.openmpi/mpirun.openmpi not found (apt-get install openmpi-bin libopenmpi-dev)"
            ;;
        mpich)
            CC_W=mpicc.mpich CXX_W=mpicxx.mpich FC_W=mpifort.mpich
            RUN=(mpirun.mpich)
            command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null \
                || die "mpich: mpicc.mpich/mpirun.mpich not found (apt-get install mpich libmpich-dev)"
            ;;
    esac
}

# Does a C snippet compile and link with this MPI's mpicc?
probe() {
    local body="$1" d
    d="$(mktemp -d)"
    printf '#include <mpi.h>\nint main(int argc, char **argv) { %s; return 0; }\n' "$body" > "$d/p.c"
    "$CC_W" -o "$d/p" "$d/p.c" >/dev/null 2>&1
    local rc=$?
    rm -rf "$d"
    return $rc
}

configure_mpi() {
    local mpi="$1" b="$WORK/$1"
    local -a extra=()
    # mpitest.h declares MTestGetWin(MPI_Win *) when HAVE_MPI_WIN_CREATE,
    # and util/mtest.c (linked into every test) then calls these window
    # routines: unless all of them link, say --disable-rma (every test of
    # every directory would fail to link otherwise).
    if ! probe 'MPI_Win w; int k, f; void *v; MPI_Win_create(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
                MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k, 0);
                MPI_Win_set_attr(w, k, 0); MPI_Win_get_attr(w, k, &v, &f);
                MPI_Win_free(&w); MPI_Win_free_keyval(&k)'; then
        extra+=(--disable-rma)
        [[ " $DIRS " == *" rma "* ]] \
            && log "$mpi: warning: $CC_W does not link MPI_Win_create/_free/_create_keyval/_free_keyval/_get_attr/_set_attr: configured with --disable-rma, the rma tests will fail to build"
    fi
    # The io directory is configured in (MPICH's configure calls it romio)
    # when the MPI links MPI-IO.
    if ! probe 'MPI_File f; MPI_File_open(MPI_COMM_WORLD, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, &f); MPI_File_close(&f)'; then
        extra+=(--disable-romio)
    fi
    if ! probe 'MPI_Comm c; MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c, MPI_ERRCODES_IGNORE)'; then
        extra+=(--disable-spawn)
    fi
    local -a args=(
        MPICC="$CC_W" MPICXX="$CXX_W" MPIF77="$FC_W" MPIFC="$FC_W"
        CC="$CC_W" CXX="$CXX_W" FC="$FC_W" F77="$FC_W"
        FFLAGS=-fallow-argument-mismatch FCFLAGS=-fallow-argument-mismatch
        --with-pm=none --disable-ft-tests --disable-perftest --disable-checkfaults
        --disable-checkpointing --disable-large-tests --disable-part
        --disable-dependency-tracking "${extra[@]}"
    )
    [[ $STRICT -eq 1 ]] && args+=(--enable-strictmpi)
    # Reconfigure (and so rebuild everything) when the MPI's headers or
    # wrapper flags change, e.g. after a rebuild of Lazarus.
    local inc key
    inc="$("$CC_W" -show 2>/dev/null || "$CC_W" --showme 2>/dev/null)"
    key="${args[*]} | $inc | $(for i in $(printf '%s\n' $inc | sed -n 's/^-I//p'); do cat "$i/mpi.h" 2>/dev/null; done | md5sum)"
    if [[ $RECONFIGURE -eq 0 && -f "$b/config.status" && -f "$b/.configured" && "$(cat "$b/.configured")" == "$key" ]]; then
        log "$mpi: using the configured tree $b"
    else
        # Keep the results of earlier runs (a new configure wipes the tree).
        local keep; keep="$(mktemp -d)"
        (cd "$b" 2>/dev/null && find . -name results.txt -print0 | tar --null -T - -cf - | tar -xf - -C "$keep") 2>/dev/null
        rm -rf "$b"
        mkdir -p "$b"
        (cd "$keep" && tar -cf - . | tar -xf - -C "$b") 2>/dev/null
        rm -rf "$keep"
        log "$mpi: configuring MPICH's tests in $b (${extra[*]:-no feature disabled}; log: $b/configure.out)"
        (cd "$b" && "$SRC/configure" "${args[@]}") > "$b/configure.out" 2>&1 \
            || { tail -n 15 "$b/configure.out" >&2
                 die "configure for $mpi failed (log $b/configure.out, details $b/config.log); check that $CC_W compiles a C program"; }
        printf '%s' "$key" > "$b/.configured"
    fi
    # The test library (util/mtest) and DTPools (linked into every test).
    # DTPools is harness code: build it with shims so that a gap in an MPI's
    # mpi.h does not fail every test (only this library sees the shims).
    local cpp=""
    if [[ "$mpi" == openmpi ]]; then
        cpp="-DOMPI_OMIT_MPI1_COMPAT_DECLS=0"   # dtpools calls MPI_Type_hvector
    else
        local shim="$b/dtpools-shim.h" t
        : > "$shim.new"
        for t in MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX MPI_C_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX; do
            probe "MPI_Datatype t = $t; (void) t" || printf '#define %s MPI_DATATYPE_NULL\n' "$t" >> "$shim.new"
        done
        # DTPools calls MPI_Type_hvector/hindexed, removed in MPI-3.0.
        probe 'MPI_Datatype t; MPI_Type_hvector(1, 1, 8, MPI_INT, &t)' \
            || printf '#define MPI_Type_hvector MPI_Type_create_hvector\n' >> "$shim.new"
        probe 'MPI_Datatype t; MPI_Aint d = 0; int l = 1; MPI_Type_hindexed(1, &l, &d, MPI_INT, &t)' \
            || printf '#define MPI_Type_hindexed MPI_Type_create_hindexed\n' >> "$shim.new"
        cmp -s "$shim.new" "$shim" || { mv -f "$shim.new" "$shim"; rm -f "$b/dtpools/.built"; }
        rm -f "$shim.new"
        cpp="-include $shim"
    fi
    if [[ ! -f "$b/dtpools/src/libdtpools.la" || ! -f "$b/dtpools/.built" ]]; then
        make -C "$b/dtpools" clean > /dev/null 2>&1
        log "$mpi: building DTPools (CPPFLAGS=$cpp)"
        make -C "$b/dtpools" CPPFLAGS="$cpp" > "$b/dtpools.build.log" 2>&1 \
            || { tail -n 15 "$b/dtpools.build.log" >&2; die "$mpi: building DTPools failed (log $b/dtpools.build.log)"; }
        touch "$b/dtpools/.built"
    fi
    # The C test library is needed by every test; the C++ one (cxx/) may fail
    # (Open MPI 4.1's C++ bindings lack MPI::Win::NULL_COPY_FN).
    make -C "$b/util" libmtest_single.la > "$b/util.build.log" 2>&1 \
        || { tail -n 15 "$b/util.build.log" >&2; die "$mpi: building the test library util/ failed (log $b/util.build.log)"; }
    make -C "$b/util" >> "$b/util.build.log" 2>&1 \
        || log "$mpi: warning: part of util/ did not build (C++/Fortran test library? see $b/util.build.log)"
    # MPICH's configure turns its f08 tests on only inside MPICH's own build
    # (FROM_MPICH=yes), but writes their Makefiles anyway: their test library
    # (util/mtest_f08.f90, `use mpi_f08`) is built here as automake would.
    if [[ " $DIRS " == *" f08 "* ]]; then
        make -C "$b/util" libmtest_f08.la am_libmtest_f08_la_OBJECTS=mtest_f08.lo am_libmtest_f08_la_rpath= \
            >> "$b/util.build.log" 2>&1 \
            || log "$mpi: warning: the f08 test library did not build (does the MPI have mpi_f08? see $b/util.build.log)"
    fi
}

# Is this MPI usable at all: compile, link and run a 2-rank program.
sanity_check() {
    local mpi="$1" d rc=0
    d="$(mktemp -d)"
    printf '#include <mpi.h>\n#include <stdio.h>\nint main(int c, char **v) { int r; MPI_Init(&c, &v); MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Barrier(MPI_COMM_WORLD); if (!r) printf("sane\\n"); MPI_Finalize(); return 0; }\n' > "$d/s.c"
    if ! "$CC_W" -o "$d/s" "$d/s.c" > "$d/log" 2>&1; then
        cat "$d/log" >&2; rm -rf "$d"
        die "$mpi: $CC_W cannot build a hello-world (output above)${LAZ_HINT:-}"
    fi
    (cd "$d" && timeout -k 5 60 "${RUN[@]}" -np 2 ./s) > "$d/log" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]] || ! grep -q '^sane$' "$d/log"; then
        cat "$d/log" >&2; rm -rf "$d"
        die "$mpi: ${RUN[*]} -np 2 of a hello-world failed (exit $rc, output above)${LAZ_HINT:-}"
    fi
    rm -rf "$d"
}

# ---------------------------------------------------------------- tests
MPI4_RE='MPI_Isendrecv|MPI_Sendrecv_init|MPI_Info_create_env|MPI_Info_get_string|MPI_Comm_idup_with_info|MPI_Session|MPI_Comm_create_from_group|MPI_Group_from_session_pset|MPI_Intercomm_create_from_groups|MPI_Psend_init|MPI_Precv_init|MPI_Pready|MPI_Parrived|MPI_ERR_PROC_ABORTED|MPI_ERR_SESSION|MPI_(Allreduce|Bcast|Barrier|Reduce|Allgatherv?|Alltoall[vw]?|Gatherv?|Scatterv?|Scan|Exscan|Reduce_scatter(_block)?|Neighbor_[a-z]+)_init|MPI_[A-Za-z_]+_c\b|MPI_COMM_TYPE_HW_[A-Z]+|MPI_T_source_|MPI_T_event_|MPI_T_cat_get_num_events|MPI_T_cat_get_events|MPI_T_(pvar|cvar|category)_get_index|MPI_T_BIND_MPI_SESSION|MPIX_|QMPI_|MPI_Errhandler_(create|set|get)\b|MPI_Type_(extent|lb|ub|struct|hvector|hindexed)\b|MPI_Address\b|MPI_(LB|UB)\b|MPI_COMBINER_(HVECTOR|HINDEXED|STRUCT)_INTEGER|was removed in MPI-3.0'

# Signs that the MPI's own libraries were being rewritten while we used them.
INFRA_RE='file not recognized|file too short|error while loading shared libraries|needed by .* not found|undefined reference to .lz_|failed to run command'

# One-line reason of a build failure, from the build log.
build_reason() {
    local logf="$1" r
    r="$(grep -m1 -oE "undefined reference to \`[^']*'" "$logf")"
    [[ -z "$r" ]] && r="$(grep -E 'error:' "$logf" | grep -v 'ld returned' | head -n 1 | sed -E 's/^[^ ]*: *(fatal )?error: *//; s/; did you mean.*//')"
    [[ -z "$r" ]] && r="$(grep -m1 -E 'file not recognized|cannot find -l|not found' "$logf")"
    [[ -z "$r" ]] && r="$(grep -m1 -iE 'error|No rule to make' "$logf")"
    echo "${r:-unknown (see build log)}"
}

# The first compiler or linker error of a build log, a Fortran binding's
# symbol written as the routine (mpi_type_hindexed_ -> mpi_type_hindexed):
# matched against MPI4_RE without case (gfortran says "Error:" and names
# routines in lower case).
first_error() {
    grep -m1 -E '[Ee]rror:|undefined reference' "$1" | sed -E 's/\b(mpi_[a-z0-9_]*[a-z0-9])_\b/\1/gI'
}

declare -A BUILT   # "dir/prog" -> ok|fail|mpi4
DIR_RUN_ARGS=()    # launcher arguments of the directory being run (see main)

# run_list MPI BUILDROOT RELDIR TOPREL RESULTS
run_list() {
    local mpi="$1" b="$2" rel="$3" top="$4" results="$5"
    local dir="$b/$rel" line tl0
    # testlist is generated from testlist.in in some directories; others
    # (group, info, init, ...) only have it in the source tree.
    tl0="$dir/testlist"
    [[ -f "$tl0" ]] || tl0="$SRC/$rel/testlist"
    [[ -f "$tl0" && -d "$dir" ]] || { log "$mpi: no testlist for $rel (directory not configured for this MPI?)"; return; }
    local -a lists=("$tl0")
    [[ $WITH_DTP -eq 1 && -f "$dir/testlist.dtp" ]] && lists+=("$dir/testlist.dtp")
    local lf
    for lf in "${lists[@]}"; do
        while IFS= read -r line || [[ -n "$line" ]]; do
            line="${line%%#*}"
            line="$(echo "$line" | sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//')"
            [[ -z "$line" ]] && continue
            if [[ "$line" =~ ^!([^:]*):(.*)$ ]]; then
                (cd "$dir/${BASH_REMATCH[1]}" && make ${BASH_REMATCH[2]}) >/dev/null 2>&1
                continue
            fi
            local -a f
            read -r -a f <<<"$line"
            local prog="${f[0]}" np="${f[1]:-1}"
            if [[ -d "$dir/$prog" ]]; then   # a subdirectory with its own testlist
                # One-sided and I/O are left out everywhere, as their top
                # directories are (f77/rma, f90/io ...: issues of their own).
                if [[ "$prog" == rma || "$prog" == io ]]; then
                    log "$mpi: $rel/$prog left out (one-sided and I/O are not compared)"
                    continue
                fi
                run_list "$mpi" "$b" "$rel/$prog" "$top" "$results"
                continue
            fi
            [[ -n "$ONLY" && " $ONLY " != *" $prog "* ]] && continue
            local tl="$DEFAULT_TIMEOUT" result_test="" xfail="" mpiver="" kv
            local -a targs=() tenv=() mpiexecargs=()
            for kv in "${f[@]:2}"; do
                case "$kv" in
                    arg=*) targs+=("${kv#arg=}") ;;
                    env=*) tenv+=("${kv#env=}") ;;
                    mpiexecarg=*) mpiexecargs+=("${kv#mpiexecarg=}") ;;
                    timeLimit=*) tl="${kv#timeLimit=}" ;;
                    resultTest=*) result_test="${kv#resultTest=}" ;;
                    xfail=*) xfail="${xfail:+$xfail,}${kv#xfail=}" ;;
                    mpiversion=*) mpiver="${kv#mpiversion=}" ;;
                    strict=*) [[ $STRICT -eq 1 && "${kv,,}" == strict=false ]] && mpiver=strict ;;
                esac
            done
            if [[ "$mpiver" == strict ]]; then
                printf '%s\t%s\tskip\tstrict=false (MPICH extension, skipped in strict mode)\n' "$prog" "$np" >> "$results"
                printf '[%s] %-40s np=%-2s skip (strict=false)\n' "$mpi" "$rel/$prog" "$np"
                continue
            fi
            local name="$rel/$prog" tag="${xfail:+ [xfail=$xfail]}"
            if [[ -n "$mpiver" ]] && awk -v v="$mpiver" 'BEGIN { exit !(v > 3.1) }'; then
                printf '%s\t%s\tskip\tmpiversion=%s%s\n' "$prog" "$np" "$mpiver" "$tag" >> "$results"
                printf '[%s] %-40s np=%-2s skip (mpiversion=%s)\n' "$mpi" "$name" "$np" "$mpiver"
                continue
            fi
            # Build (once per program).
            local blog="$dir/$prog.build.log"
            if [[ -z "${BUILT[$mpi/$name]:-}" ]]; then
                local try
                for try in 1 2; do
                    (cd "$dir" && make "$prog") > "$blog" 2>&1 && [[ -x "$dir/$prog" ]] && break
                    # The MPI's own libraries half-written (a rebuild of Lazarus under way)?
                    grep -qE "$INFRA_RE" "$blog" && [[ $try == 1 ]] || break
                    log "$mpi: $name: the MPI's library looks half-written (being rebuilt?); retrying in 30 s"
                    sleep 30
                done
                if [[ -x "$dir/$prog" ]] && ! grep -qE 'Error [0-9]' "$blog"; then
                    BUILT[$mpi/$name]=ok
                elif first_error "$blog" | grep -qiE "$MPI4_RE"; then
                    BUILT[$mpi/$name]=mpi4
                else
                    BUILT[$mpi/$name]=fail
                fi
            fi
            case "${BUILT[$mpi/$name]}" in
                fail)
                    local r; r="$(build_reason "$blog")"
                    printf '%s\t%s\tbuild\t%s%s\n' "$prog" "$np" "$r" "$tag" >> "$results"
                    printf '[%s] %-40s np=%-2s BUILD: %s\n' "$mpi" "$name" "$np" "$r"
                    continue ;;
                mpi4)
                    local r; r="$(first_error "$blog" | grep -m1 -oiE "$MPI4_RE")"
                    printf '%s\t%s\tskip\tnot MPI-3.1: %s%s\n' "$prog" "$np" "$r" "$tag" >> "$results"
                    printf '[%s] %-40s np=%-2s skip (not MPI-3.1: %s)\n' "$mpi" "$name" "$np" "$r"
                    continue ;;
            esac
            # Run.
            local argstr="${targs[*]:-}"
            local out="$dir/$prog.np$np${argstr:+.$(printf '%s' "$argstr" | md5sum | cut -c1-6)}.out"
            local t0 t1 rc status
            for try in 1 2; do
                t0=$(date +%s.%N)
                (cd "$dir" && exec env MPIEXEC_TIMEOUT="$tl" "${tenv[@]}" \
                    timeout -k 10 "$tl" "${RUN[@]}" "${DIR_RUN_ARGS[@]}" -np "$np" "${mpiexecargs[@]}" "./$prog" "${targs[@]}") \
                    > "$out" 2>&1 < /dev/null
                rc=$?
                t1=$(date +%s.%N)
                [[ $rc -ne 0 && $try == 1 ]] && grep -qE "$INFRA_RE" "$out" || break
                log "$mpi: $name: the MPI's library looks half-written (being rebuilt?); retrying in 30 s"
                sleep 30
            done
            # Ranks left behind by a killed launcher: end them by pid.
            local p
            for p in /proc/[0-9]*; do
                [[ "$(readlink "$p/exe" 2>/dev/null)" == "$dir/$prog" ]] && kill -9 "${p#/proc/}" 2>/dev/null
            done
            local noerr=0
            grep -qE '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$out" && noerr=1
            case "$result_test" in
                TestStatus|TestErrFatal)
                    if [[ $rc -ne 0 ]]; then status=pass; else status=fail; fi ;;
                TestStatusNoErrors)
                    if [[ $rc -ne 0 && $noerr -eq 1 ]]; then status=pass; else status=fail; fi ;;
                *)
                    if [[ $rc -eq 0 && $noerr -eq 1 ]]; then status=pass; else status=fail; fi ;;
            esac
            [[ $status == fail && ( $rc -eq 124 || $rc -eq 137 ) ]] && status=timeout
            # The launcher's own time limit (MPIEXEC_TIMEOUT, the same limit)
            # may fire first: Open MPI's and MPICH's hydra's messages.
            [[ $status == fail ]] && grep -qE 'APPLICATION TIMED OUT|time limit for job execution has been reached' "$out" \
                && status=timeout
            local secs; secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
            printf '%s\t%s\t%s\texit=%s %ss%s%s\n' "$prog" "$np" "$status" "$rc" "$secs" \
                "${argstr:+ args: $argstr}" "$tag" >> "$results"
            if [[ $status != pass ]]; then
                grep -v '^[[:space:]]*$' "$out" | head -n 3 | sed 's/^/    | /' >> "$results"
            fi
            printf '[%s] %-40s np=%-2s %-7s %5ss%s\n' "$mpi" "$name" "$np" "$status" "$secs" "${argstr:+ ($argstr)}"
        done < "$lf"
    done
}

count() {   # count RESULTS STATUS
    [[ -f "$1" ]] || { echo "-"; return; }
    awk -F'\t' -v s="$2" '!/^    / && ($3 == s || (s == "skip" && $3 == "skip-mpi4")) { n++ } END { print n + 0 }' "$1"
}

write_summary() {
    local s="$WORK/summary.md" d mpi
    local all_dirs="" x
    # MPICH's columns only when it was run (now or before): the table of
    # Lazarus beside Open MPI stays as it was otherwise.
    local cols="lazarus openmpi" title="Lazarus beside Open MPI"
    if [[ " $MPIS " == *" mpich "* ]] || compgen -G "$WORK/mpich/*/results.txt" > /dev/null; then
        cols+=" mpich"; title+=" and MPICH"
    fi
    # Every directory with results (runs of subsets add up), in a fixed order.
    for x in $KNOWN_DIRS; do
        local have=0
        for mpi in $cols; do [[ -f "$WORK/$mpi/$x/results.txt" ]] && have=1; done
        if [[ " $DIRS " == *" $x "* || $have -eq 1 ]]; then
            all_dirs+=" $x"
        fi
    done
    declare -A name=([lazarus]=Lazarus [openmpi]="Open MPI" [mpich]=MPICH)
    {
        echo "# MPICH $MPICH_VERSION test/mpi: $title"
        echo
        echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by tests/mpich/run_mpich_suite.sh; per test: <work>/<mpi>/<dir>/results.txt."
        echo "fail excludes timeouts; build = did not compile/link; skip = not MPI-3.1 (MPI-4, MPICH extension, or removed in MPI-3.0)."
        [[ " $all_dirs " == *" rma "* && -f "$WORK/openmpi/rma/results.txt" ]] \
            && echo "Open MPI's rma directory: $(sed -n '1s/.*launcher arguments: \(.*\))$/\1/p' "$WORK/openmpi/rma/results.txt" | grep . || echo 'its default osc component')."
        echo
        local hdr="| dir" sep="|---"
        for mpi in $cols; do
            hdr+=" | ${name[$mpi]} pass | fail | timeout | build | skip"
            sep+="|---:|---:|---:|---:|---:"
        done
        echo "$hdr |"
        echo "$sep|"
        local -A tot=()
        for d in $all_dirs; do
            local row="| $d"
            for mpi in $cols; do
                local r="$WORK/$mpi/$d/results.txt" st v
                for st in pass fail timeout build skip; do
                    v="$(count "$r" "$st")"
                    row+=" | $v"
                    [[ "$v" != - ]] && tot[$mpi.$st]=$(( ${tot[$mpi.$st]:-0} + v ))
                done
            done
            echo "$row |"
        done
        local row="| **total**"
        for mpi in $cols; do
            for st in pass fail timeout build skip; do row+=" | ${tot[$mpi.$st]:--}"; done
        done
        echo "$row |"
    } > "$s"
    cat "$s"
}

# ---------------------------------------------------------------- main
fetch_mpich_source
extract_tests
for mpi in $MPIS; do
    setup_mpi "$mpi"
    sanity_check "$mpi"
    configure_mpi "$mpi"
    for d in $DIRS; do
        mkdir -p "$WORK/$mpi/$d"
        res="$WORK/$mpi/$d/results.txt"
        DIR_RUN_ARGS=()
        if [[ "$mpi" == openmpi && "$d" == rma && "$OMPI_OSC" != default ]]; then
            DIR_RUN_ARGS=(--mca osc "$OMPI_OSC")
        fi
        if [[ -n "$ONLY" && -f "$res" ]]; then
            # Replace only the lines of the programs run again.
            awk -F'\t' -v only=" $ONLY " '
                !/^    / { keep = index(only, " " $1 " ") == 0 }
                keep' "$res" > "$res.tmp" && mv "$res.tmp" "$res"
        else
            printf '# test\tnp\tresult\tdetail (MPICH %s test/mpi/%s over %s, %s%s)\n' \
                "$MPICH_VERSION" "$d" "$mpi" "$(date -u '+%F %T UTC')" \
                "${DIR_RUN_ARGS[*]:+; launcher arguments: ${DIR_RUN_ARGS[*]}}" > "$res"
        fi
        log "$mpi: directory $d${DIR_RUN_ARGS[*]:+ (${RUN[0]} ${DIR_RUN_ARGS[*]})}"
        run_list "$mpi" "$WORK/$mpi" "$d" "$d" "$res"
    done
done
write_summary
exit 0
}
