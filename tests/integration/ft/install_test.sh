#!/bin/bash
# ft.install: `cmake --install` into a scratch prefix gives liblazarus-ft on
# its own: <prefix>/bin/lazarus-ft-config, lib/liblazarus-ft-<vendor>.so,
# include/lazarus-ft/lazarus/checkpoint.h; a program built with each vendor's
# mpicc and the prefix's lazarus-ft-config uses the prefix's library, writes
# snapshots that the prefix's `lazarus snapshot verify` accepts, and the
# module's only dynamic symbols are MPI_* and LZ_*.
# usage: install_test.sh BUILD_DIR SOURCE_DIR VENDOR...
set -u
build=$1 src=$2
shift 2
work=$(mktemp -d /tmp/lz-ft-install.XXXXXX)
trap 'for p in $(pgrep -f "^$work/"); do kill -9 $p 2>/dev/null; done; rm -rf "$work"' EXIT
prefix=$work/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: install"; exit 1; }
[ -x "$prefix/bin/lazarus-ft-config" ] || { echo "FAIL: no bin/lazarus-ft-config"; exit 1; }
[ -f "$prefix/include/lazarus-ft/lazarus/checkpoint.h" ] || bad "include/lazarus-ft/lazarus/checkpoint.h not installed"
[ -e "$prefix/include/lazarus-ft/mpi.h" ] && bad "Lazarus' mpi.h beside checkpoint.h would shadow the vendor's"
[ "$("$prefix/bin/lazarus-ft-config" --vendors)" = "$*" ] || bad "--vendors says '$("$prefix/bin/lazarus-ft-config" --vendors)', not '$*'"
"$prefix/bin/lazarus-ft-config" --libs --mpi nonesuch > /dev/null 2>&1 && bad "--mpi nonesuch accepted"
for v in "$@"; do
  lib=$prefix/lib/liblazarus-ft-$v.so
  [ -f "$lib" ] || { bad "$lib not installed"; continue; }
  other=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | grep -v -E '^(MPI_|LZ_)' | head -5)
  [ -z "$other" ] || bad "liblazarus-ft-$v exports more than MPI_* and LZ_*: $other"
  nm -D --defined-only "$lib" | grep -q ' T LZ_Checkpoint$' || bad "liblazarus-ft-$v does not export LZ_Checkpoint"
  flags=$("$prefix/bin/lazarus-ft-config" --cflags --libs --mpi "$v")
  echo "lazarus-ft-config --mpi $v: $flags"
  mpicc.$v -O2 "$src/examples/stencil.c" $flags -o "$work/stencil" > "$work/cc.log" 2>&1 || { bad "mpicc.$v"; cat "$work/cc.log"; continue; }
  used=$(ldd "$work/stencil" | awk -v n="liblazarus-ft-$v.so" '$1 == n { print $3 }')
  [ "$(readlink -f "$used")" = "$(readlink -f "$lib")" ] || bad "the program uses '$used', not the prefix's library"
  rm -rf "$work/store"
  case $v in
    openmpi) run=(mpirun.openmpi --allow-run-as-root --oversubscribe --timeout 100 -x LZ_MCA_snapshot_root -x LZ_MCA_cr_app_every) ;;
    mpich) run=(env MPIEXEC_TIMEOUT=100 mpirun.mpich) ;;
  esac
  LZ_MCA_snapshot_root=$work/store LZ_MCA_cr_app_every=10 timeout -s KILL 150 "${run[@]}" -np 2 "$work/stencil" 32 20 \
    > "$work/run.log" 2>&1 || { bad "the $v job failed"; cat "$work/run.log"; continue; }
  grep -q 'sum=' "$work/run.log" || bad "the $v job printed no result"
  snaps=$(ls -d "$work"/store/stencil.*/[0-9]* 2>/dev/null | wc -l)
  [ "$snaps" = 2 ] || bad "$v: $snaps snapshots, not 2 (20 safe points, every 10)"
  for s in "$work"/store/stencil.*/[0-9]*; do
    "$prefix/bin/lazarus" snapshot verify "$s" > "$work/verify.log" 2>&1 || { bad "lazarus snapshot verify $s"; cat "$work/verify.log"; }
  done
done
[ $fail = 0 ] && echo "PASS: ft.install ($*)"
exit $fail
