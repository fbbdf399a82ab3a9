#!/bin/bash
# A job that spawned a job is checkpointed and restarted as one job
# (cr=criu): parent and children, their intercommunicator intact.
#   1. the spawned job refuses a checkpoint of its own, naming the job to ask;
#   2. a checkpoint of the parent commits a snapshot of both jobs, lists the
#      child's snapshot in the parent's ("spawned"), and both jobs go on;
#   3. a --term checkpoint stops both; `lazarus restart` of the parent's
#      snapshot brings both back, and the run ends with the right total.
# Scenario "ended": the spawned job ends first (the parents go on alone,
# holding bridges to it); a --term checkpoint of the parent finds its
# processes gone, commits without them, and the restart ends right.
# Scenario "recover": a rank of the spawned job is killed after a
# checkpoint; --recover auto restarts the tree, and the run ends right.
# Scenario "during": a checkpoint while the parents are inside
# MPI_Comm_spawn is refused at once; a later one commits.
# Usage: cr_spawn_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM     (SCENARIO: tree | ended | recover | during)
# Bounded by --timeout and the waits below. Skips (77) only when CRIU cannot work here.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
ITERS=${CR_SPAWN_ITERS:-300}
T=$(mktemp -d /tmp/lz-crspawn.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
MCA=(--mca transport "$TRANSPORT" --mca cr criu --mca snapshot_root "$T/store")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; for f in "$T"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -40 "$f"; }; done; exit 1; }
info=$("$LZ" info --mca cr criu 2>&1) || skip "cr/criu is unavailable here: $(echo "$info" | grep -i 'criu' | head -2 | tr '\n' ' ')"

# "snapshot 1 committed: /path (123 bytes, 0.50 s)" -> /path
snapshot_of() { sed -n 's/^snapshot [0-9]* committed: \(\/[^ ]*\) (.*/\1/p' "$1" | head -1; }
# The parent's job id (its launcher is $1) and the spawned job's (the other
# job running this program), once both are listed.
PARENT="" CHILD=""
find_jobs() {
  local i
  for i in $(seq 1 300); do
    PARENT=$("$LZ" ps | awk -v p="$1" '$2 == p { print $1 }')
    CHILD=$("$LZ" ps | awk -v p="$1" -v prog="$(basename "$PROG")" '$2 != p && $0 ~ prog { print $1 }' | head -1)
    [ -n "$PARENT" ] && [ -n "$CHILD" ] && { sleep 1; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

job_file() { ls "${XDG_RUNTIME_DIR:-/nonexistent}/lazarus/jobs/$1.json" /tmp/lazarus-$(id -u)/jobs/$1.json 2>/dev/null | head -1; }
rank_pids() { grep -o '"pid": [0-9]*' "$(job_file "$1")" | awk '{ print $2 }'; }

if [ "$SCEN" = during ]; then
  # A checkpoint asked for while the parents are inside MPI_Comm_spawn (the
  # children sleep before MPI_Init) is refused at once, naming why; the
  # spawn completes, a later checkpoint commits, and the run ends right.
  "$LZ" run -np 2 "${MCA[@]}" --timeout 300 -x CR_ITER_RELEASE="$T/release" "$PROG" "$ITERS" 0 slowchildren \
    >"$T/job.out" 2>&1 &
  JOB=$!
  for _ in $(seq 1 100); do PARENT=$("$LZ" ps | awk -v p=$JOB '$2 == p { print $1 }'); [ -n "$PARENT" ] && break; sleep 0.05; done
  [ -n "$PARENT" ] || fail "the job did not appear in lazarus ps"
  "$LZ" checkpoint --wait "$PARENT" >"$T/early.out" 2>&1 && fail "a checkpoint during MPI_Comm_spawn was accepted"
  grep -q "MPI_Comm_spawn, _accept, _connect or _join is under way" "$T/early.out" ||
    fail "the refused checkpoint does not say why: $(cat "$T/early.out")"
  for _ in $(seq 1 300); do grep -q "cr_spawn: spawned" "$T/job.out" && break; sleep 0.1; done
  grep -q "cr_spawn: spawned" "$T/job.out" || fail "the spawn did not complete after the refused checkpoint"
  "$LZ" checkpoint --wait "$PARENT" >"$T/ckpt.out" 2>&1 || fail "the checkpoint after the spawn failed"
  [ -f "$(snapshot_of "$T/ckpt.out")/spawned" ] || fail "the snapshot does not list the spawned job"
  touch "$T/release"
  wait $JOB || fail "the job failed (status $?)"
  grep -q "cr_spawn: ok" "$T/job.out" || fail "the job did not end with the right total"
  grep "cr_spawn:" "$T/job.out"
  echo "PASS: a checkpoint during MPI_Comm_spawn was refused, and a later one of the tree committed"
  exit 0
fi

if [ "$SCEN" = recover ]; then
  # A rank of the spawned job is killed after a checkpoint of the tree:
  # --recover auto restarts the whole tree from it, and the run ends right.
  "$LZ" run -np 2 "${MCA[@]}" --recover auto --timeout 300 -x CR_ITER_RELEASE="$T/release" "$PROG" "$ITERS" \
    >"$T/job.out" 2>&1 &
  JOB=$!
  find_jobs $JOB || fail "the parent and the spawned job did not both appear in lazarus ps"
  "$LZ" checkpoint --wait "$PARENT" >"$T/ckpt.out" 2>&1 || fail "checkpoint of the parent failed"
  victim=$(rank_pids "$CHILD" | sed -n 2p)
  [ -n "$victim" ] || fail "cannot find a rank pid of the spawned job $CHILD"
  kill -9 "$victim"
  touch "$T/release"
  wait $JOB || fail "the recovered job failed (status $?)"
  grep -q "restarting from snapshot" "$T/job.out" || fail "no recovery message"
  grep -q "cr_spawn: ok" "$T/job.out" || fail "the recovered job did not end with the right total"
  grep -E "cr_spawn:|restarting" "$T/job.out"
  echo "PASS: a rank of the spawned job was killed and --recover auto restarted the tree from its snapshot"
  exit 0
fi

if [ "$SCEN" = ended ]; then
  "$LZ" run -np 2 "${MCA[@]}" --timeout 300 -x CR_ITER_RELEASE="$T/release" "$PROG" 20 "$ITERS" >"$T/job.out" 2>&1 &
  JOB=$!
  find_jobs $JOB || fail "the parent and the spawned job did not both appear in lazarus ps"
  for _ in $(seq 1 300); do "$LZ" ps | grep -q "^$CHILD " || break; sleep 0.1; done
  "$LZ" ps | grep -q "^$CHILD " && fail "the spawned job did not end after its 20 iterations"
  kill -0 $JOB 2>/dev/null || fail "the parent ended with its children"
  "$LZ" checkpoint --term --wait "$PARENT" >"$T/ckpt.out" 2>&1 || fail "the --term checkpoint after the children ended failed"
  wait $JOB
  grep -q "cr_spawn: ok" "$T/job.out" && fail "the job finished before its --term checkpoint (raise CR_SPAWN_ITERS)"
  SNAP=$(snapshot_of "$T/ckpt.out")
  [ -d "$SNAP" ] || fail "no snapshot directory in the checkpoint's answer: $(cat "$T/ckpt.out")"
  [ -f "$SNAP/spawned" ] && fail "the snapshot lists a spawned job that had ended: $(cat "$SNAP/spawned")"
  touch "$T/release"
  "$LZ" restart "$SNAP" --timeout 300 >"$T/restart.out" 2>&1 || fail "the restart exited with $?"
  grep -q "cr_spawn: ok" "$T/restart.out" || fail "the restarted job did not end with the right total"
  grep "cr_spawn:" "$T/restart.out"
  echo "PASS: a job whose spawned job had ended was checkpointed and restarted without it"
  exit 0
fi

"$LZ" run -np 2 "${MCA[@]}" --timeout 300 -x CR_ITER_RELEASE="$T/release" "$PROG" "$ITERS" >"$T/job.out" 2>&1 &
JOB=$!
find_jobs $JOB || fail "the parent and the spawned job did not both appear in lazarus ps"

# 1. The spawned job alone: refused, naming why.
"$LZ" checkpoint --wait "$CHILD" >"$T/child_ckpt.out" 2>&1 && fail "a checkpoint of the spawned job alone was accepted"
grep -q "was started by another job" "$T/child_ckpt.out" || fail "the spawned job's refusal does not say why"

# 2. Checkpoint and continue.
"$LZ" checkpoint --wait "$PARENT" >"$T/ckpt1.out" 2>&1 || fail "checkpoint of the parent failed"
SNAP1=$(snapshot_of "$T/ckpt1.out")
[ -d "$SNAP1" ] || fail "no snapshot directory in the checkpoint's answer: $(cat "$T/ckpt1.out")"
[ -f "$SNAP1/spawned" ] || fail "the parent's snapshot $SNAP1 does not list the spawned job's"
CHILD_SNAP=$(head -1 "$SNAP1/spawned")
[ -f "$CHILD_SNAP/COMMITTED" ] || fail "the spawned job's snapshot $CHILD_SNAP is not committed"
ls -d "$CHILD_SNAP"/rank.* >/dev/null 2>&1 || fail "the spawned job's snapshot has no rank images"
kill -0 $JOB 2>/dev/null || fail "the job ended after a checkpoint that continues"

# 3. --term, then restart.
"$LZ" checkpoint --term --wait "$PARENT" >"$T/ckpt2.out" 2>&1 || fail "the --term checkpoint failed"
for _ in $(seq 1 300); do kill -0 $JOB 2>/dev/null || break; sleep 0.1; done
kill -0 $JOB 2>/dev/null && fail "the job still runs 30 s after its --term checkpoint"
wait $JOB
grep -q "cr_spawn: ok" "$T/job.out" && fail "the job finished before its --term checkpoint (raise CR_SPAWN_ITERS)"
SNAP2=$(snapshot_of "$T/ckpt2.out")
[ -d "$SNAP2" ] || fail "no snapshot directory in the --term checkpoint's answer: $(cat "$T/ckpt2.out")"
# The spawned job's snapshot alone is refused: its ranks need their parent.
CHILD_SNAP2=$(head -1 "$SNAP2/spawned")
"$LZ" restart "$CHILD_SNAP2" >"$T/child_restart.out" 2>&1 && fail "a restart of the spawned job's snapshot alone was accepted"
grep -q "spawned by job $PARENT" "$T/child_restart.out" || fail "the refused restart does not name the parent: $(cat "$T/child_restart.out")"
touch "$T/release"
# A damaged image of the spawned job: the restart of the parent refuses
# before anything is restored, naming the file; nothing is left behind.
IMG=$(find "$CHILD_SNAP2" -type f -name '*.img' -size +4k | head -1)
[ -n "$IMG" ] || fail "no image file in the spawned job's snapshot $CHILD_SNAP2"
cp "$IMG" "$T/img.bak"
printf 'garbage' | dd of="$IMG" bs=1 seek=100 conv=notrunc 2>/dev/null
"$LZ" restart "$SNAP2" --timeout 300 >"$T/bad_restart.out" 2>&1 && fail "a restart with a damaged spawned job's snapshot was accepted"
grep -q "$(basename "$IMG")" "$T/bad_restart.out" || fail "the refused restart does not name the damaged file: $(cat "$T/bad_restart.out")"
"$LZ" ps | grep -q cr_spawn && fail "a job is left after the refused restart: $("$LZ" ps)"
cp "$T/img.bak" "$IMG"
"$LZ" restart "$SNAP2" --timeout 300 >"$T/restart.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the restart exited with $rc"
grep -q "cr_spawn: ok" "$T/restart.out" || fail "the restarted job did not end with the right total"
grep "cr_spawn:" "$T/restart.out"
echo "PASS: a job and the job it spawned were checkpointed, continued, stopped and restarted as one"
