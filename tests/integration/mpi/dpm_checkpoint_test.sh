#!/bin/bash
# A checkpoint of a job joined to another (here: a job and the 2 processes
# it spawned) is refused before anything is held or drained, naming why, and
# both jobs go on to their end with the right answer. (Checkpointing such
# jobs together is not supported yet: this is the answer until it is.)
# Usage: dpm_checkpoint_test.sh BIN_DIR PROGRAM
# Bounded by --timeout and the waits below: a hang is a failure.
set -u
BIN=$1 PROG=$2
T=$(mktemp -d /tmp/lz-dpm-cr.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/job: /' "$T/out" 2>/dev/null; exit 1; }
"$BIN/mpirun" -np 2 --timeout 120 "$PROG" loop "$T/release" >"$T/out" 2>&1 &
run=$!
# Both jobs (the parent's and the spawned one) show in lazarus ps.
jobs_seen=""
for _ in $(seq 1 300); do
  jobs_seen=$("$BIN/lazarus" ps 2>/dev/null | awk '/^[0-9a-f]+ / && /dpm/ {print $1}')
  [ "$(echo "$jobs_seen" | grep -c .)" -ge 2 ] && break
  kill -0 $run 2>/dev/null || fail "the job ended early"
  sleep 0.1
done
[ "$(echo "$jobs_seen" | grep -c .)" -ge 2 ] || fail "the parent and spawned jobs did not both appear in lazarus ps"
for j in $jobs_seen; do
  "$BIN/lazarus" checkpoint "$j" >"$T/ckpt.$j" 2>&1 || fail "lazarus checkpoint $j: $(cat "$T/ckpt.$j")"
done
# Each job says its checkpoint was refused, and why.
for _ in $(seq 1 300); do
  [ "$(grep -c "checkpoint 1 aborted: .*connected to another job" "$T/out")" -ge 2 ] && break
  sleep 0.1
done
[ "$(grep -c "checkpoint 1 aborted: .*connected to another job" "$T/out")" -ge 2 ] || fail "the refusals were not reported"
touch "$T/release"
wait $run
rc=$?
[ $rc -eq 0 ] || fail "the job exited with $rc after the refused checkpoints"
grep -q "dpm loop: 2 ranks ok" "$T/out" || fail "no verdict"
sed 's/^/job: /' "$T/out"
echo "PASS: checkpoints of joined jobs refused, the jobs went on"
