#!/bin/bash
# A job that spawned a job, under cr=app (app_spawn.c): the jobs take their
# snapshots every cr_app_every safe points, each at its own count; a task
# crosses every line over the intercommunicator (logged by crcp/c3).
# Scenario "tree":
#   1. the run ends with the right total; each of the parent's snapshots
#      lists the spawned job's snapshot of the same line ("spawned"), which
#      names its parent ("spawned_by");
#   2. `lazarus checkpoint` of the tree is refused, naming why;
#   3. a restart of the spawned job's snapshot alone is refused, naming the
#      job to restart; one whose spawned job's snapshot is damaged is
#      refused before anything starts, naming the file;
#   4. `lazarus restart` of the parent's snapshot 2 resumes both jobs at
#      step 19 (the program spawns again, the launcher resumes the spawned
#      job from its snapshot) and ends with the right total.
# Scenario "recover": a rank of the spawned job is killed (kill -9) after a
# snapshot; --recover auto restarts the tree and the run ends right.
# Usage: app_spawn_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM     (SCENARIO: tree | recover)
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

# 1-2. The run, with a checkpoint request while it runs.
"$BIN/mpirun" -np 2 "${MCA[@]}" --timeout 300 "$PROG" 40 100000 >"$T/job.out" 2>&1 &
JOB=$!
PARENT=""
for _ in $(seq 1 100); do PARENT=$("$LZ" ps | awk -v p=$JOB '$2 == p { print $1 }'); [ -n "$PARENT" ] && break; sleep 0.05; done
[ -n "$PARENT" ] || fail "the job did not appear in lazarus ps"
for _ in $(seq 1 100); do [ -n "$(parent_store)" ] && break; sleep 0.1; done
"$LZ" checkpoint --wait "$PARENT" >"$T/request.out" 2>&1 && fail "a checkpoint request of a cr=app spawn tree was accepted"
grep -q "every cr_app_every safe points" "$T/request.out" || fail "the refused request does not say why: $(cat "$T/request.out")"
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
