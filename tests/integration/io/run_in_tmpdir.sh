#!/bin/sh
# usage: run_in_tmpdir.sh COMMAND [ARG...]
# Runs COMMAND ARG... DIR, DIR a fresh directory made under ${TMPDIR:-/tmp}
# and removed afterwards; exits with the command's status. (The MPI-IO test
# programs take the directory to write their files in as last argument.)
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/lz_io.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
"$@" "$dir"
status=$?
exit $status
