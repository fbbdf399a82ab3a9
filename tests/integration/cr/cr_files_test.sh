#!/bin/bash
# A restarted job's own files hold what an uninterrupted run writes: the
# files cr_files.c keeps open across its checkpoints (a log in append mode, a
# status rewritten in place, records written with pwrite, a file and a
# /dev/shm object mapped shared, OpenMP threads' output, a popen'ed child's
# output, stdin read from a file) are compared byte for byte with a
# reference run's after each scenario:
#   restart   checkpoint, the job goes on, --term, restart from the first
#             snapshot (every file grew since: rolled back); snapshot show
#             lists the files and what a restart does to each
#   recover   kill -9 of a rank under --recover auto
#   migrate   a checkpoint the job continues from, then both ranks migrated
#   app       cr=app, kill -9 under --recover auto (the program reopens its
#             files itself; stdin is /dev/null: its position is the program's)
#   policies  what CRIU cannot save (System V shm, a UDP socket) refused by
#             name before anything is written, the job going on;
#             cr_files=keep at restart (files left, each change reported),
#             a read input that changed (reported), a deleted file (the
#             restart refuses, naming it), and cr_files=copy (a deleted file
#             and one rewritten in place come back from the snapshot)
# Usage: cr_files_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM
# Every job is bounded with --timeout; nothing measures wall-clock time.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
NP=2
ITERS=300
T=$(mktemp -d /tmp/lz-crfiles.XXXXXX)
TAG=$(basename "$T")
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2> /dev/null; done
  rm -rf "$T"
  rm -f /dev/shm/lzcrf."$TAG".* /dev/shm/lzcrf."$TAG"r.*
}
trap cleanup EXIT
CR=criu
[ "$SCEN" = app ] && CR=app
MCA=(--mca transport "$TRANSPORT" --mca cr $CR --mca snapshot_root "$T/store")
INPUT=$T/input
seq 1 1000 > "$INPUT"
[ "$SCEN" = app ] && INPUT=/dev/null
FILES="log status data map shm omp child"

. "$(dirname "$0")/cr_job.sh"
JOB_STDIN=$INPUT

if [ $CR = criu ]; then
  info=$("$LZ" info --mca cr criu 2>&1) || skip "cr/criu is unavailable here: $(echo "$info" | grep -i 'criu' | head -2 | tr '\n' ' ')"
fi

. "$(dirname "$0")/../../support/reference_run.sh"
reference() {
  reference_run "$T/ref" "cr_files.np$NP.it$ITERS.${TRANSPORT//,/_}.$(basename "$INPUT")" "$PROG" \
    sh -c 'exec "$@" < "$0"' "$INPUT" "$LZ" run -np $NP --mca transport "$TRANSPORT" --mca cr none --timeout 300 \
    "$PROG" $ITERS "${TAG}r" || fail "reference run failed"
  [ -n "$(result_of "$T/ref/out")" ] || fail "reference run printed no result"
}
# Every file of the reference run, byte for byte, in $1; and the result in $2.
same_files() {
  local r f
  for r in $(seq 0 $((NP - 1))); do
    for f in $FILES; do
      cmp "$T/ref/$f.$r" "$1/$f.$r" > /dev/null 2>&1 ||
        fail "$1/$f.$r differs from an uninterrupted run's: $(cmp "$T/ref/$f.$r" "$1/$f.$r" 2>&1)"
    done
  done
  [ "$(result_of "$2")" = "$(result_of "$T/ref/out")" ] ||
    fail "result '$(result_of "$2")' != reference '$(result_of "$T/ref/out")'"
}
# Runs until rank 0's log has 60 lines, checkpoints (snapshot 1, the job
# goes on), runs until 150 lines, stops it with a second checkpoint.
run_then_term() {
  start_job "$@"
  wait_lines "$T/$1" 60
  checkpoint
  SNAP1=$SNAP
  wait_lines "$T/$1" 150
  checkpoint --term
  wait $JOB_PID || fail "job stopped by --term exited $?"
  [ -n "$(result_of "$T/$1/out")" ] && fail "the job finished before the --term checkpoint"
  return 0
}

case "$SCEN" in
restart)
  reference
  run_then_term job
  "$LZ" snapshot show "$SNAP1" > "$T/show.out" 2>&1 || fail "snapshot show failed: $(cat "$T/show.out")"
  for want in "$T/job/log.0: written; truncate to [0-9]* bytes" "$T/job/map.1: written, mapped shared; copy (lazarus-files/" \
              "/dev/shm/lzcrf.$TAG.0: written, mapped shared; copy" "$T/job/child.1: written; truncate" \
              "$INPUT: read; check"; do
    grep -q "$want" "$T/show.out" || fail "snapshot show lacks '$want': $(cat "$T/show.out")"
  done
  # Restarted from another directory: each rank's working directory is its own.
  (cd / && "$LZ" restart "$SNAP1" --timeout 300 > "$T/rs.out" 2> "$T/rs.err") || fail "restart failed"
  grep -q "rank 0: $T/job/log.0: truncated to its size at the checkpoint" "$T/rs.err" ||
    fail "the restart does not say it truncated log.0: $(cat "$T/rs.err")"
  grep -q "rank 1: $T/job/map.1: restored from the snapshot's copy" "$T/rs.err" ||
    fail "the restart does not say it restored map.1: $(cat "$T/rs.err")"
  same_files "$T/job" "$T/rs.out"
  ;;
recover)
  reference
  start_job job --recover auto
  wait_lines "$T/job" 60
  checkpoint
  wait_lines "$T/job" 150
  kill_rank_and_wait 1
  grep -q "restarting from snapshot 1" "$T/job/err" || fail "no recovery from snapshot 1: $(tail -5 "$T/job/err")"
  grep -q "log.1: truncated to its size at the checkpoint" "$T/job/err" || fail "log.1 was not rolled back"
  same_files "$T/job" "$T/job/out"
  ;;
migrate)
  reference
  start_job job
  wait_lines "$T/job" 50
  checkpoint
  "$LZ" migrate "$JOB_ID" --rank 1 --to "$(hostname)" > "$T/mig1.out" 2>&1 || fail "migrate rank 1: $(cat "$T/mig1.out")"
  wait_lines "$T/job" 150
  "$LZ" migrate "$JOB_ID" --rank 0 --to "$(hostname)" > "$T/mig0.out" 2>&1 || fail "migrate rank 0: $(cat "$T/mig0.out")"
  wait $JOB_PID || fail "job failed after the migrations (status $?)"
  grep -q "truncated" "$T/job/err" && fail "a migration rolled a file back: $(grep truncated "$T/job/err")"
  same_files "$T/job" "$T/job/out"
  ;;
app)
  reference
  start_job job --mca cr_app_every 40 --recover auto
  for i in $(seq 1 400); do grep -q "snapshot 2 committed" "$T/job/err" && break; sleep 0.05; done
  grep -q "snapshot 2 committed" "$T/job/err" || fail "no second snapshot"
  wait_lines "$T/job" 100
  kill_rank_and_wait 1
  grep -q "restarting from snapshot" "$T/job/err" || fail "no recovery: $(tail -5 "$T/job/err")"
  grep -q "rank 1: $T/job/log.1: truncated to its size at the checkpoint" "$T/job/err" ||
    fail "log.1 was not rolled back before the program ran again"
  same_files "$T/job" "$T/job/out"
  ;;
policies)
  reference
  # What CRIU cannot save is refused before anything is written, naming it;
  # the job goes on to the uninterrupted result.
  start_job refused -x CR_FILES_SYSV=1 -x CR_FILES_UDP=1
  wait_lines "$T/refused" 60
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/refused.out" 2>&1 && fail "a checkpoint of System V shm and a socket succeeded"
  grep -q "has System V shared memory attached (/SYSV" "$T/refused.out" || fail "SysV shm not named: $(cat "$T/refused.out")"
  if [ "$(uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 16)) }')" = 1 ]; then
    grep -q "holds IPv4/IPv6 sockets of its own (fd [0-9]* (UDP))" "$T/refused.out" ||
      fail "the UDP socket is not named: $(cat "$T/refused.out")"
  fi
  wait $JOB_PID || fail "the job failed after a refused checkpoint (status $?)"
  same_files "$T/refused" "$T/refused/out"
  run_then_term job
  # keep: nothing is rolled back, every change is named, the log holds the
  # re-run iterations twice.
  echo "one more line" >> "$INPUT"
  "$LZ" restart "$SNAP1" --mca cr_files keep --timeout 300 > "$T/keep.out" 2> "$T/keep.err" || fail "restart (keep) failed"
  grep -q "warning: $T/job/log.0 changed since the checkpoint (.*); left as it is (cr_files=keep)" "$T/keep.err" ||
    fail "no warning naming log.0: $(cat "$T/keep.err")"
  grep -q "warning: $INPUT, read by rank 0, changed since the checkpoint" "$T/keep.err" ||
    fail "no warning naming the changed input: $(cat "$T/keep.err")"
  [ "$(wc -l < "$T/job/log.0")" -gt "$(wc -l < "$T/ref/log.0")" ] || fail "keep rolled log.0 back"
  # The default again: rolled back to the snapshot, the uninterrupted files.
  "$LZ" restart "$SNAP1" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart (truncate) failed"
  same_files "$T/job" "$T/rs.out"
  # A file deleted since the snapshot, with no copy: refused, by name.
  rm "$T/job/data.1"
  "$LZ" restart "$SNAP1" --timeout 60 > "$T/gone.out" 2> "$T/gone.err" && fail "restarted without data.1"
  grep -q "$T/job/data.1, written by rank 1 at the checkpoint, no longer exists" "$T/gone.err" ||
    fail "the refusal does not name data.1: $(cat "$T/gone.err")"
  grep -q "cr_files=copy" "$T/gone.err" || fail "the refusal does not say how to keep a copy"
  pgrep -f "$PROG $ITERS $TAG\$" > /dev/null && fail "ranks left running after the refused restart"
  # cr_files=copy: the deleted file and one rewritten in place come back.
  rm -rf "$T/job2"
  MCA+=(--mca cr_files copy)
  run_then_term job2
  grep -q "copy (lazarus-files/" <("$LZ" snapshot show "$SNAP1") || fail "cr_files=copy kept no copies"
  rm "$T/job2/data.1"
  printf 'rewritten in place, longer than any status line ever was\n' > "$T/job2/status.0"
  "$LZ" restart "$SNAP1" --timeout 300 > "$T/cp.out" 2> "$T/cp.err" || fail "restart (copy) failed"
  grep -q "$T/job2/data.1: recreated from the snapshot's copy" "$T/cp.err" || fail "data.1 not recreated: $(cat "$T/cp.err")"
  same_files "$T/job2" "$T/cp.out"
  ;;
*)
  fail "unknown scenario '$SCEN'"
  ;;
esac
echo "PASS: $SCEN over $TRANSPORT"
