#!/bin/sh
# Runs the collective conformance program with the linear reference
# algorithms (--mca coll basic) and with tuned stacked on basic, and checks
# that both succeed and print the same checksum of every result.
# Usage: compare_modules.sh MPIRUN NP PROGRAM
set -u
mpirun=$1 np=$2 prog=$3
basic=$("$mpirun" -np "$np" --timeout 240 --mca coll basic "$prog") || { echo "basic run failed: $basic"; exit 1; }
tuned=$("$mpirun" -np "$np" --timeout 240 --mca coll tuned,basic "$prog") || { echo "tuned run failed: $tuned"; exit 1; }
b=$(echo "$basic" | grep '^checksum')
t=$(echo "$tuned" | grep '^checksum')
echo "basic:       $b"
echo "tuned,basic: $t"
[ -n "$b" ] && [ "$b" = "$t" ] || { echo "tuned results differ from basic"; exit 1; }
