#!/usr/bin/env bash
# buildsys_test.sh: build systems find Lazarus as they find Open MPI or MPICH.
#
#   buildsys_test.sh BUILD_DIR SOURCE_DIR CASE
#
# CASE:
#   wrappers     the wrappers answer Open MPI's --showme:* and MPICH's -show,
#                -compile_info, -link_info; -cc= and OMPI_CC/MPICH_CC/
#                LZ_MPICC_CC choose the compiler; mpic++, mpiCC, mpif77 exist
#   cmake        cmake_project/ (FindMPI, C, C++, Fortran) configured with
#                -DMPI_<LANG>_COMPILER=<build>/bin/mpi..., and again by PATH
#                alone; each built program runs under mpirun -np 2, sums the
#                ranks and is linked to the build's libmpi
#   header       mpi.h compiles without a warning under -Wall -Wextra
#                -pedantic -Werror as C89, C99, C11, C++98, C++11, C++17 and
#                C++20, with gcc and (where installed) clang
#   meson        meson_project/ (dependency('mpi') for C, C++, Fortran) found
#                by pkg-config with PKG_CONFIG_PATH=<build>/lib/pkgconfig
#                (Meson asks for ompi-c ...), then by the wrappers on PATH
#                alone (no .pc file visible: PKG_CONFIG_LIBDIR empty)
#   autoconf     autoconf_project/ (AX_MPI from autoconf-archive) with the
#                wrappers first on PATH
#   pkgconfig    mpi-c, mpi-cxx, mpi-fort, mpi and lazarus-mpi from
#                <build>/lib/pkgconfig: the programs built with the compilers
#                and `pkg-config --cflags --libs`, run and linked as above
#   prefix       the build installed into a scratch prefix (cmake --install):
#                FindMPI by MPI_HOME, then pkg-config from <prefix>/lib/pkgconfig;
#                the programs run by the prefix's mpirun, linked to its libmpi
# Open MPI and MPICH are installed here too (the benchmarks' peers), so each
# case checks that it is Lazarus that was found.
set -u
BUILD=$(cd "$1" && pwd) || exit 2
SRC=$(cd "$2" && pwd) || exit 2
CASE=$3
T=$(mktemp -d /tmp/lz-buildsys.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL ($CASE): $*"; exit 1; }
expect() {  # WHAT EXPECTED ACTUAL
  [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# configure_build_run PREFIX_BIN LIBDIR [cmake args...]: configure the
# project in a fresh directory, build it, run each program with
# PREFIX_BIN/mpirun -np 2, and check what was found and linked.
configure_build_run() {
  local bin=$1 lib=$2 b
  shift 2
  b=$(mktemp -d "$T/b.XXXX")
  cmake -S "$SRC/tests/integration/buildsys/cmake_project" -B "$b" "$@" > "$b.configure.log" 2>&1 ||
    { tail -40 "$b.configure.log"; fail "cmake configure $*"; }
  grep -q "hello_mpi: MPI_C_COMPILER=$bin/mpicc " "$b.configure.log" ||
    { grep 'hello_mpi:\|Found MPI' "$b.configure.log"; fail "FindMPI did not find $bin/mpicc"; }
  cmake --build "$b" > "$b.build.log" 2>&1 || { tail -40 "$b.build.log"; fail "build"; }
  for p in c cxx f; do run_checked "$bin" "$lib" $p "$b/hello_$p"; done
  echo "ok: FindMPI $* -> $bin/mpicc; C, C++, Fortran programs ran on 2 ranks"
}

# run_checked BIN LIB NAME PROGRAM: PROGRAM on 2 ranks sums the ranks and is
# linked to LIB/libmpi.so.
run_checked() {
  local out
  out=$("$1/mpirun" -np 2 --timeout 60 "$4" 2>&1) || fail "mpirun $3: $out"
  expect "$3" "hello $3 0/2 sum 1
hello $3 1/2 sum 1" "$(echo "$out" | sort)"
  # The library it loads, by its real path (an installed .pc's rpath is
  # <prefix>/lib/pkgconfig/../../lib).
  local got
  got=$(ldd "$4" | sed -n 's/^[[:space:]]*libmpi\.so[^ ]* => \([^ ]*\) .*/\1/p')
  expect "$4 loads" "$(readlink -f "$2/libmpi.so")" "$(readlink -f "$got")"
}

# meson_build_run DIR [VAR=value...]: meson_project configured and built in
# DIR with the environment given, each program run and checked.
meson_build_run() {
  local b=$1
  shift
  cp -r "$SRC/tests/integration/buildsys/meson_project" "$SRC/tests/integration/buildsys/cmake_project" "$T/" 2> /dev/null
  env "$@" meson setup "$b" "$T/meson_project" > "$b.log" 2>&1 || { tail -30 "$b.log"; fail "meson setup ($*)"; }
  grep -q "Run-time dependency MPI for fortran found: YES $LZ_VERSION" "$b.log" ||
    { grep 'dependency MPI' "$b.log"; fail "Meson did not find Lazarus $LZ_VERSION ($*)"; }
  env "$@" ninja -C "$b" > "$b.build.log" 2>&1 || { tail -30 "$b.build.log"; fail "ninja ($*)"; }
  for p in c cxx f; do run_checked "$BUILD/bin" "$BUILD/lib" $p "$b/hello_$p"; done
  echo "ok: Meson dependency('mpi') with $*: C, C++, Fortran programs ran on 2 ranks"
}

# pkgconfig_build_run PCDIR BIN LIB: each program built with plain compilers
# and pkg-config's flags for its language, then run.
pkgconfig_build_run() {
  local d=$SRC/tests/integration/buildsys/cmake_project b
  b=$(mktemp -d "$T/p.XXXX")
  export PKG_CONFIG_PATH=$1
  for pc in mpi lazarus-mpi mpi-c; do
    # shellcheck disable=SC2046
    cc $(pkg-config --cflags $pc) "$d/hello.c" -o "$b/hello_c" $(pkg-config --libs $pc) || fail "cc with $pc"
    run_checked "$2" "$3" c "$b/hello_c"
  done
  # shellcheck disable=SC2046
  c++ $(pkg-config --cflags mpi-cxx) "$d/hello.cpp" -o "$b/hello_cxx" $(pkg-config --libs mpi-cxx) || fail "c++ with mpi-cxx"
  run_checked "$2" "$3" cxx "$b/hello_cxx"
  if [ -x "$2/mpifort" ]; then
    # shellcheck disable=SC2046
    (cd "$b" && gfortran $(pkg-config --cflags mpi-fort) "$d/hello.f90" -o "$b/hello_f" $(pkg-config --libs mpi-fort)) ||
      fail "gfortran with mpi-fort"
    run_checked "$2" "$3" f "$b/hello_f"
  fi
  unset PKG_CONFIG_PATH
  echo "ok: pkg-config from $1: C (mpi, lazarus-mpi, mpi-c), C++, Fortran programs ran on 2 ranks"
}

case "$CASE" in
  wrappers)
    B=$BUILD/bin
    expect "mpicc --showme:compile" "-I$SRC/runtime/mpi/include" "$("$B/mpicc" --showme:compile)"
    expect "mpicc -showme:link" "-L$BUILD/lib -Wl,-rpath,$BUILD/lib -lmpi -llazarus" "$("$B/mpicc" -showme:link)"
    expect "mpicc --showme:incdirs" "$SRC/runtime/mpi/include" "$("$B/mpicc" --showme:incdirs)"
    expect "mpicc --showme:libdirs" "$BUILD/lib" "$("$B/mpicc" --showme:libdirs)"
    expect "mpicc --showme:libs" "mpi lazarus" "$("$B/mpicc" --showme:libs)"
    cc=$("$B/mpicc" --showme:command)
    expect "mpicc -show -c x.c" "$cc -I$SRC/runtime/mpi/include -c x.c" "$("$B/mpicc" -show -c x.c)"
    expect "mpicc -compile_info" "$cc -I$SRC/runtime/mpi/include" "$("$B/mpicc" -compile_info)"
    expect "mpicc -link_info" "$cc -I$SRC/runtime/mpi/include -L$BUILD/lib -Wl,-rpath,$BUILD/lib -lmpi -llazarus" \
      "$("$B/mpicc" -link_info)"
    expect "OMPI_CC" "mycc" "$(OMPI_CC=mycc "$B/mpicc" --showme:command)"
    expect "MPICH_CC" "mycc" "$(MPICH_CC=mycc "$B/mpicc" --showme:command)"
    expect "LZ_MPICC_CC before OMPI_CC" "lzcc" "$(LZ_MPICC_CC=lzcc OMPI_CC=mycc "$B/mpicc" --showme:command)"
    expect "-cc=" "other -I$SRC/runtime/mpi/include x.c -L$BUILD/lib -Wl,-rpath,$BUILD/lib -lmpi -llazarus" \
      "$("$B/mpicc" -cc=other -show x.c)"
    expect "OMPI_CXX" "mycxx" "$(OMPI_CXX=mycxx "$B/mpicxx" --showme:command)"
    for w in mpic++ mpiCC; do
      expect "$w is mpicxx" "$("$B/mpicxx" --showme:command)" "$("$B/$w" --showme:command)"
    done
    "$B/mpicc" --help | grep -q -- '--showme:compile' || fail "mpicc --help does not list --showme:compile"
    "$B/mpicc" --showme:bogus 2> "$T/err" && fail "--showme:bogus accepted"
    grep -q "unknown option --showme:bogus" "$T/err" || fail "--showme:bogus: $(cat "$T/err")"
    # -cc= is the wrapper's: the compiler never sees it.
    printf 'int main(void){return 0;}\n' > "$T/x.c"
    "$B/mpicc" -cc="$cc" "$T/x.c" -o "$T/x" || fail "mpicc -cc=$cc x.c"
    if [ -x "$B/mpifort" ]; then
      expect "mpif77 is mpifort" "$("$B/mpifort" --showme:compile)" "$("$B/mpif77" --showme:compile)"
      expect "OMPI_FC" "myfc" "$(OMPI_FC=myfc "$B/mpif90" --showme:command)"
    fi
    echo "ok: wrappers" ;;
  cmake)
    configure_build_run "$BUILD/bin" "$BUILD/lib" -DMPI_C_COMPILER="$BUILD/bin/mpicc" \
      -DMPI_CXX_COMPILER="$BUILD/bin/mpicxx" -DMPI_Fortran_COMPILER="$BUILD/bin/mpifort"
    PATH="$BUILD/bin:$PATH" configure_build_run "$BUILD/bin" "$BUILD/lib" ;;
  header)
    printf '#include <mpi.h>\nint main(int argc, char** argv) {\n  MPI_Status s;\n  MPI_Count n = 0;\n  MPI_Init(&argc, &argv);\n  (void)s;\n  (void)n;\n  return MPI_Finalize();\n}\n' > "$T/h.c"
    cp "$T/h.c" "$T/h.cpp"
    n=0
    for cc in gcc clang; do
      command -v $cc > /dev/null || { echo "($cc is not installed: not tried)"; continue; }
      cxx=g++
      [ $cc = clang ] && cxx=clang++
      for std in c89 c99 c11; do
        $cc -std=$std -Wall -Wextra -pedantic -Werror -I"$SRC/runtime/mpi/include" -c "$T/h.c" -o "$T/h.o" ||
          fail "mpi.h with $cc -std=$std"
        n=$((n + 1))
      done
      for std in c++98 c++11 c++17 c++20; do
        $cxx -std=$std -Wall -Wextra -pedantic -Werror -I"$SRC/runtime/mpi/include" -c "$T/h.cpp" -o "$T/h.o" ||
          fail "mpi.h with $cxx -std=$std"
        n=$((n + 1))
      done
    done
    echo "ok: mpi.h warning-free in $n compilations" ;;
  meson)
    command -v meson > /dev/null || fail "meson is not installed (scripts/setup installs it)"
    LZ_VERSION=$("$BUILD/bin/lazarus" --version | grep -o '[0-9][0-9.]*' | head -1)
    meson_build_run "$T/m1" PKG_CONFIG_PATH="$BUILD/lib/pkgconfig"
    mkdir "$T/no-pc"
    meson_build_run "$T/m2" PKG_CONFIG_LIBDIR="$T/no-pc" PATH="$BUILD/bin:$PATH" ;;
  autoconf)
    [ -f /usr/share/aclocal/ax_mpi.m4 ] || fail "AX_MPI is missing (autoconf-archive; scripts/setup installs it)"
    cp -r "$SRC/tests/integration/buildsys/autoconf_project" "$SRC/tests/integration/buildsys/cmake_project" "$T/"
    (cd "$T/autoconf_project" && autoreconf -fi) > "$T/autoreconf.log" 2>&1 || { cat "$T/autoreconf.log"; fail "autoreconf"; }
    mkdir "$T/b"
    (cd "$T/b" && PATH="$BUILD/bin:$PATH" ../autoconf_project/configure) > "$T/configure.log" 2>&1 ||
      { tail -30 "$T/configure.log"; fail "configure"; }
    grep -q '^checking for mpicc... mpicc$' "$T/configure.log" || { grep mpi "$T/configure.log"; fail "AX_MPI: no mpicc"; }
    (cd "$T/b" && PATH="$BUILD/bin:$PATH" make) > "$T/make.log" 2>&1 || { cat "$T/make.log"; fail "make"; }
    run_checked "$BUILD/bin" "$BUILD/lib" c "$T/b/hello_c"
    echo "ok: autoconf AX_MPI found mpicc; the program ran on 2 ranks" ;;
  pkgconfig) pkgconfig_build_run "$BUILD/lib/pkgconfig" "$BUILD/bin" "$BUILD/lib" ;;
  prefix)
    P=$T/prefix
    cmake --install "$BUILD" --prefix "$P" > "$T/install.log" 2>&1 || { tail "$T/install.log"; fail "cmake --install"; }
    libdir=$(dirname "$(find "$P" -name 'libmpi.so' | head -1)")
    [ -n "$libdir" ] || fail "no libmpi.so under $P"
    configure_build_run "$P/bin" "$libdir" -DMPI_HOME="$P"
    pkgconfig_build_run "$libdir/pkgconfig" "$P/bin" "$libdir" ;;
  *) echo "unknown case $CASE" >&2; exit 2 ;;
esac
