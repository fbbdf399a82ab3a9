#!/usr/bin/env bash
# usage: compare_with_peer.sh OURS_LAUNCHER PEER_LAUNCHER NP OURS_BINARY PEER_BINARY
#
# Runs an MPI-IO test program built against two MPIs, each job with a fresh
# directory for its files (OURS_LAUNCHER NP OURS_BINARY DIR, the launchers
# being command prefixes split on blanks, e.g. "mpiexec.mpich -n"), then
# compares every *.out file of one directory with the same-named one of the
# other, byte for byte (cmp): one line per file. Exits 1 on a failed run, a
# file only one side wrote, no output at all or any difference; 2 on a usage
# error. Removes its directories.
set -euo pipefail

if [ $# -ne 5 ]; then
  echo "usage: $0 OURS_LAUNCHER PEER_LAUNCHER NP OURS_BINARY PEER_BINARY" >&2
  exit 2
fi
read -r -a ours_launcher <<<"$1"
read -r -a peer_launcher <<<"$2"
np=$3
ours_bin=$4
peer_bin=$5
if [ ${#ours_launcher[@]} -eq 0 ] || [ ${#peer_launcher[@]} -eq 0 ]; then
  echo "$0: empty launcher" >&2
  exit 2
fi
for b in "$ours_bin" "$peer_bin"; do
  if [ ! -x "$b" ]; then
    echo "$0: $b is not an executable" >&2
    exit 2
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lz_io_compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/ours" "$work/peer"

failed=0
run() { # run SIDE DIR COMMAND...
  local side=$1 dir=$2
  shift 2
  echo "== $side: $* $dir"
  local rc=0
  "$@" "$dir" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAILED: the $side run exited with status $rc"
    failed=1
  fi
}
run ours "$work/ours" "${ours_launcher[@]}" "$np" "$ours_bin"
run peer "$work/peer" "${peer_launcher[@]}" "$np" "$peer_bin"
if [ "$failed" -ne 0 ]; then
  exit 1
fi

outs() { (cd "$1" && find . -maxdepth 1 -type f -name '*.out' | sed 's|^\./||' | LC_ALL=C sort); }
ours_files=$(outs "$work/ours")
peer_files=$(outs "$work/peer")
if [ -z "$ours_files$peer_files" ]; then
  echo "FAILED: neither run wrote a *.out file"
  exit 1
fi
status=0
while read -r f; do
  [ -n "$f" ] || continue
  if [ ! -f "$work/ours/$f" ]; then
    echo "ONLY PEER: $f"
    status=1
  elif [ ! -f "$work/peer/$f" ]; then
    echo "ONLY OURS: $f"
    status=1
  elif cmp -s "$work/ours/$f" "$work/peer/$f"; then
    echo "same:      $f ($(wc -c <"$work/ours/$f") bytes)"
  else
    echo "DIFFERENT: $f: $(cd "$work"; cmp "ours/$f" "peer/$f" 2>&1 | head -n 1)"
    status=1
  fi
done < <(printf '%s\n%s\n' "$ours_files" "$peer_files" | LC_ALL=C sort -u)
# Anything else left behind (a temporary file not deleted) is only noted.
for side in ours peer; do
  (cd "$work/$side" && find . -mindepth 1 ! -name '*.out' | sed 's|^\./||') | while read -r f; do
    echo "note: the $side run left $f"
  done
done
if [ "$status" -eq 0 ]; then
  echo "PASS: $(printf '%s\n' "$ours_files" | wc -l) files the same"
fi
exit "$status"
