#!/bin/bash
# A job that spawned a job, under cr=app (app_spawn.c): the jobs take their
# snapshots every cr_app_every safe points, each at its own count; a task
# crosses every line over the intercommunicator (logged by crcp/c3).
# Scenario "tree":
#   1. the run ends with the right total; each of the parent's snapshots
#      lists the spawned job's snapshot of the same line ("spawned"), which
#      names its parent ("spawned_by");
#   2. `lazarus checkpoint` of the spawned job alone is refused, naming
#      the job to ask;
#   3. a restart of the spawned job's snapshot alone is refused, naming the
#      job to restart; one whose spawned job's snapshot is damaged is
#      refused before anything starts, naming the file;
#   4. `lazarus restart` of the parent's snapshot 2 resumes both jobs at
#      step 19 (the program spawns again, the launcher resumes the spawned
#      job from its snapshot) and ends with the right total.
# Scenario "recover": a rank of the spawned job is killed (kill -9) after a
# snapshot; --recover auto restarts the tree and the run ends right.
# Scenario "request": no cr_app_every; `lazarus checkpoint --wait` of the
# first job commits a snapshot of both, the job is stopped (SIGTERM), and
# `lazarus restart` of it ends with the right total.
# Scenario "levels": three jobs, each spawned by the one before; each
# snapshot of the first lists the second's, which lists the third's, and a
# restart of the first's snapshot 2 resumes all three, ending right.
# Scenario "ended": the spawned job ends after 40 steps and the first job
# goes on for 30 more: its snapshots from then on are dropped, naming the
# job that ended, and the run ends right, without waiting on them.
# Usage: app_spawn_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM     (SCENARIO: tree | recover | request | levels | ended)
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
T=$(mktemp -d /tmp/lz-appspawn.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
MCA=(--mca transport "$TRANSPORT" --mca cr app --mca cr_app_every 10 --mca cr_keep 0 --mca snapshot_root "$T/store")
fail() { echo "FAIL: $*"; for f in "$T"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done; exit 1; }
cd "$T" || exit 1

expected=$("$BIN/mpirun" -np 2 --mca cr none "$PROG" 40 | grep "app_spawn: total") || fail "the reference run failed"
# The store of the parent: the one whose snapshots list a spawned job's.
parent_store() { local f; f=$(ls "$T"/store/*/*/spawned 2>/dev/null | head -1); [ -n "$f" ] && dirname "$(dirname "$f")"; }

job_of() { local p; for _ in $(seq 1 100); do p=$("$LZ" ps | awk -v l="$1" '$2 == l { print $1 }'); [ -n "$p" ] && { echo "$p"; return 0; }; sleep 0.05; done; return 1; }

if [ "$SCEN" = ended ]; then
  ref=$("$BIN/mpirun" -np 2 --mca cr none "$PROG" 40 0 30 | grep "app_spawn: total") || fail "the reference run failed"
  "$BIN/mpirun" -np 2 "${MCA[@]}" --timeout 120 "$PROG" 40 10000 30 >"$T/job.out" 2>&1 || fail "the job failed (status $?)"
  grep -qx "$ref" "$T/job.out" || fail "the total is not the reference's ($ref)"
  grep -q "safe point 60) dropped: .* ended" "$T/job.out" || fail "the snapshot after the spawned job ended was not dropped naming it"
  [ -n "$(parent_store)" ] || fail "no snapshot of the tree was committed before the spawned job ended"
  echo "PASS: snapshots after a spawned job ended were dropped, naming it; the run ended right"
  exit 0
fi

if [ "$SCEN" = levels ]; then
  ref=$("$BIN/mpirun" -np 2 --mca cr none "$PROG" 40 0 0 3 | grep "app_spawn: total") || fail "the 3-level reference run failed"
  "$BIN/mpirun" -np 2 "${MCA[@]}" --timeout 300 "$PROG" 40 50000 0 3 >"$T/job.out" 2>&1 || fail "the job failed (status $?)"
  grep -qx "$ref" "$T/job.out" || fail "the total is not the reference's ($ref)"
  P=$(parent_store)
  # The first job's store is the one no snapshot names as spawned.
  for s in "$T"/store/*; do grep -qx "$s/2" "$T"/store/*/2/spawned || P=$s; done
  second=$(cat "$P/2/spawned" 2>/dev/null)
  third=$(cat "$second/spawned" 2>/dev/null)
  [ -f "$second/COMMITTED" ] && [ -f "$third/COMMITTED" ] ||
    fail "the first job's snapshot 2 does not list the second's, which lists the third's: '$second' '$third'"
  "$LZ" restart --timeout 300 "$P/2" >"$T/restart.out" 2>&1 || fail "the restart exited with $?"
  [ "$(grep -c "app_spawn: child restarted at step 19" "$T/restart.out")" = 2 ] || fail "both spawned jobs did not resume at step 19"
  grep -qx "$ref" "$T/restart.out" || fail "the restarted tree's total is not the reference's ($ref)"
  grep "app_spawn:" "$T/restart.out"
  echo "PASS: three jobs, each spawned by the one before, checkpointed and restarted as one under cr=app"
  exit 0
fi

if [ "$SCEN" = request ]; then
  "$BIN/mpirun" -np 2 --mca transport "$TRANSPORT" --mca cr app --mca snapshot_root "$T/store" --timeout 300 \
    "$PROG" 400 20000 >"$T/job.out" 2>&1 &
  JOB=$!
  PARENT=$(job_of $JOB) || fail "the job did not appear in lazarus ps"
  # Refused until every rank of both jobs is past MPI_Init.
  for _ in $(seq 1 100); do "$LZ" checkpoint --wait "$PARENT" >"$T/ckpt.out" 2>&1 && break; sleep 0.2; done
  grep -q "committed" "$T/ckpt.out" || fail "the checkpoint of the tree was not committed: $(cat "$T/ckpt.out")"
  SNAP=$(sed -n 's/.*committed at safe point [0-9]*: \(\/[^ ]*\) (.*/\1/p' "$T/ckpt.out" | head -1)
  [ -f "$SNAP/spawned" ] || fail "the requested snapshot $SNAP does not list the spawned job's"
  [ -f "$(cat "$SNAP/spawned")/COMMITTED" ] || fail "the spawned job's snapshot $(cat "$SNAP/spawned") is not committed"
  kill -TERM $JOB
  wait $JOB
  grep -q "app_spawn: ok" "$T/job.out" && fail "the job ended before it was stopped"
  "$LZ" restart --timeout 300 "$SNAP" >"$T/restart.out" 2>&1 || fail "the restart exited with $?"
  grep -q "app_spawn: child restarted at step" "$T/restart.out" || fail "the spawned job was not resumed"
  "$BIN/mpirun" -np 2 --mca cr none "$PROG" 400 | grep "app_spawn: total" >"$T/ref400.out"
  grep -qxf "$T/ref400.out" "$T/restart.out" || fail "the restarted tree's total is not the reference's ($(cat "$T/ref400.out"))"
  grep "app_spawn:" "$T/restart.out"
  echo "PASS: a requested checkpoint of a cr=app spawn tree committed both jobs; stopped and restarted, it ended right"
  exit 0
fi

if [ "$SCEN" = recover ]; then
  "$BIN/mpirun" -np 2 "${MCA[@]}" --recover auto --timeout 300 "$PROG" 400 20000 >"$T/job.out" 2>&1 &
  JOB=$!
  for _ in $(seq 1 300); do [ -n "$(parent_store)" ] && break; sleep 0.1; done
  [ -n "$(parent_store)" ] || fail "no snapshot of the tree was committed"
  # The spawned job's ranks: the app_spawn processes whose parent is not the job's launcher.
  victim=""
  for p in $(pgrep -f "^$PROG 400 20000"); do
    [ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$JOB" ] && continue
    grep -q "LZ_DPM_PARENT" "/proc/$p/environ" 2>/dev/null && victim=$p && break
  done
  [ -n "$victim" ] || fail "cannot find a rank of the spawned job"
  kill -9 "$victim"
  wait $JOB || fail "the recovered job failed (status $?)"
  grep -q "restarting from snapshot" "$T/job.out" || fail "no recovery message"
  grep -q "app_spawn: child restarted at step" "$T/job.out" || fail "the spawned job was not resumed from its snapshot"
  grep -q "app_spawn: ok" "$T/job.out" || fail "the recovered job did not end with the right total"
  grep -E "app_spawn:|restarting" "$T/job.out"
  echo "PASS: a rank of the spawned job was killed and --recover auto resumed the tree from its snapshots"
  exit 0
fi

# 1-2. The run; a checkpoint of the spawned job alone while it runs.
"$BIN/mpirun" -np 2 "${MCA[@]}" --timeout 300 "$PROG" 40 100000 >"$T/job.out" 2>&1 &
JOB=$!
PARENT=$(job_of $JOB) || fail "the job did not appear in lazarus ps"
CHILD=""
for _ in $(seq 1 100); do
  CHILD=$("$LZ" ps | awk -v p=$JOB '$2 != p && /app_spawn/ { print $1 }' | head -1)
  [ -n "$CHILD" ] && break
  sleep 0.05
done
[ -n "$CHILD" ] || fail "the spawned job did not appear in lazarus ps"
"$LZ" checkpoint --wait "$CHILD" >"$T/request.out" 2>&1 && fail "a checkpoint of the spawned job alone was accepted"
grep -q "was started by another job" "$T/request.out" || fail "the refused request does not say why: $(cat "$T/request.out")"
wait $JOB || fail "the job failed (status $?)"
grep -qx "$expected" "$T/job.out" || fail "the total is not the reference's ($expected)"
P=$(parent_store)
for n in 1 2 3 4; do
  [ -f "$P/$n/COMMITTED" ] || fail "the parent's snapshot $n was not committed"
  child=$(cat "$P/$n/spawned" 2>/dev/null)
  [ -f "$child/COMMITTED" ] || fail "the parent's snapshot $n does not list a committed snapshot of the spawned job: '$child'"
  [ "$(cat "$child/spawned_by")" = "$(basename "$P" | sed 's/.*\.//')" ] ||
    fail "the spawned job's snapshot $child does not name its parent"
done

# 3. Refusals.
CHILD2=$(cat "$P/2/spawned")
"$LZ" restart "$CHILD2" >"$T/alone.out" 2>&1 && fail "the spawned job's snapshot was restarted alone"
grep -q "restart that job's snapshot" "$T/alone.out" || fail "the refusal does not name the job to restart: $(cat "$T/alone.out")"
cp -a "$CHILD2" "$T/child2.bak"
victim=$(ls "$CHILD2"/rank.0/*.lzck | head -1)
printf 'XXXX' | dd of="$victim" bs=1 seek=100 conv=notrunc 2>/dev/null
"$LZ" restart "$P/2" >"$T/damaged.out" 2>&1 && fail "a restart with a damaged spawned job's snapshot was accepted"
grep -q "cannot be restarted: the snapshot of a job it spawned" "$T/damaged.out" ||
  fail "the refusal does not name the spawned job's snapshot: $(cat "$T/damaged.out")"
pgrep -f "$PROG 40" >/dev/null && fail "a refused restart left processes behind"
rm -rf "$CHILD2" && mv "$T/child2.bak" "$CHILD2"

# 4. The restart of the tree.
"$LZ" restart --timeout 300 "$P/2" >"$T/restart.out" 2>&1 || fail "the restart exited with $?"
grep -q "app_spawn: parent restarted at step 19" "$T/restart.out" || fail "the parent did not resume at step 19"
grep -q "app_spawn: child restarted at step 19" "$T/restart.out" || fail "the spawned job did not resume at step 19"
grep -qx "$expected" "$T/restart.out" || fail "the restarted tree's total is not the reference's ($expected)"
grep "app_spawn:" "$T/restart.out"
echo "PASS: a cr=app spawn tree checkpointed every 10 safe points, restarted as one with the right total"
