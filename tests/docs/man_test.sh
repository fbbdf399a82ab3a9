#!/usr/bin/env bash
# man_test.sh: the man pages install and read as a user reads them.
#
#   man_test.sh BUILD_DIR
#
# Installs the build into a scratch prefix (cmake --install), then reads,
# with `man -M <prefix>/share/man`, the page of lazarus, of every subcommand
# `lazarus --help` lists (and theirs), of mpirun/mpiexec, the compiler
# wrappers and the BLCR tools, and checks that each page shows its name and
# that lazarus-run and lazarus-checkpoint say what their --help says.
set -u
BUILD=$(cd "$1" && pwd) || exit 2
P=$(mktemp -d /tmp/lz-man.XXXXXX) || exit 1
trap 'rm -rf "$P"' EXIT
cmake --install "$BUILD" --prefix "$P" > "$P.log" 2>&1 || { cat "$P.log"; rm -f "$P.log"; echo "FAIL: cmake --install"; exit 1; }
rm -f "$P.log"
M=$P/share/man
export MANPAGER=cat MANWIDTH=100 LC_ALL=C.UTF-8
fail=0
# The subcommands, as the installed lazarus lists them (nested ones too).
subcommands() {  # WORDS...: the subcommand names under "Subcommands:" of their --help
  "$P/bin/lazarus" "$@" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}
pages="lazarus mpirun mpiexec mpicc mpicxx cr_run cr_checkpoint cr_restart"
for s in $(subcommands); do
  pages="$pages lazarus-$s"
  for t in $(subcommands "$s"); do pages="$pages lazarus-$s-$t"; done
done
for name in $pages; do
  out=$(man -M "$M" "$name" 2>&1) || { echo "FAIL: man -M $M $name: $out" | head -5; fail=1; continue; }
  first=$(echo "$out" | head -1)
  case "$name" in
    mpiexec) want=MPIRUN ;; mpicxx) want=MPICC ;; *) want=$(echo "$name" | tr a-z A-Z) ;;
  esac
  echo "$first" | grep -q "^$want(1)" || { echo "FAIL: man $name starts with '$first', not $want(1)"; fail=1; }
done
# What the pages say is what --help says.
run=$(man -M "$M" lazarus-run)
for want in "--checkpoint-interval" "--recover" "Oversubscription" "MPI_APPNUM"; do
  echo "$run" | grep -q -- "$want" || { echo "FAIL: man lazarus-run does not mention $want"; fail=1; }
done
man -M "$M" lazarus-checkpoint | grep -A1 -- '--term' | grep -q 'Stop the job once the snapshot is committed' ||
  { echo "FAIL: man lazarus-checkpoint: --term and its help"; fail=1; }
[ $fail = 0 ] && echo "man pages: $(echo $pages | wc -w) read from $M"
exit $fail
