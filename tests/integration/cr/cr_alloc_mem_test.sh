#!/bin/bash
# MPI_Alloc_mem memory across checkpoints: tests/integration/mpi/alloc_mem.c
# sends 2 MiB messages from and into MPI_Alloc_mem areas (under ucx and ofi
# through the registration cache) while cr/criu checkpoints the job every
# 300 ms and it goes on; then the job is restarted from its newest snapshot
# and runs to its end, checking every message again. Every checkpoint drops the areas' registrations
# and the sends after it must register them again.
# Usage: cr_alloc_mem_test.sh TRANSPORT BIN_DIR PROGRAM
set -u
TRANSPORT=$1 BIN=$2 PROG=$3
T=$(mktemp -d /tmp/lz-cralloc.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$BIN/lazarus" info --mca cr criu >/dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here (lazarus info --mca cr criu)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
# The ring runs its 400 iterations and then goes on until the stop file
# exists, which is made once the second snapshot has committed: two or more
# checkpoints during the run however fast this machine sends.
"$BIN/mpirun" -np 2 --timeout 300 --mca transport "$TRANSPORT" --mca cr criu --mca snapshot_root "$T/store" \
  --checkpoint-interval 300ms "$PROG" 400 "$T/stop" > "$T/run.out" 2>&1 &
job=$!
for _ in $(seq 1 1200); do
  grep -q 'snapshot 2 committed' "$T/run.out" && break
  kill -0 $job 2>/dev/null || break
  sleep 0.1
done
touch "$T/stop"
wait $job || { cat "$T/run.out"; fail "the checkpointed run"; }
grep -q 'alloc_mem: 2 ranks, [0-9]* iterations ok' "$T/run.out" || { cat "$T/run.out"; fail "no result"; }
n=$(grep -c 'snapshot [0-9]* committed' "$T/run.out")
[ "$n" -ge 2 ] || { cat "$T/run.out"; fail "$n snapshots committed during the run (expected 2 or more)"; }
# The restarted ring checks every message it receives and the closing
# allreduce as the first run did; it stops at the first iteration past 400
# after its snapshot, since the stop file is there.
"$BIN/lazarus" restart --timeout 300 "$T"/store/* > "$T/restart.out" 2>&1 || { cat "$T/restart.out"; fail "restart"; }
grep -q 'alloc_mem: 2 ranks, [0-9]* iterations ok' "$T/restart.out" || { cat "$T/restart.out"; fail "no result after the restart"; }
echo "ok: $n checkpoints during the run over $TRANSPORT, then a restart from the newest: every message and the allreduce right"
