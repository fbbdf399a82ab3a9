#!/bin/sh
# Builds a test program as a user of liblazarus-ft does:
#   mpicc.<vendor> prog.c $(lazarus-ft-config --cflags --libs --mpi <vendor>)
# usage: build_with_ft.sh VENDOR LAZARUS_FT_CONFIG OUTPUT SOURCE
set -e
flags=$("$2" --cflags --libs --mpi "$1")
exec "mpicc.$1" -O2 -Wall -o "$3" "$4" $flags
