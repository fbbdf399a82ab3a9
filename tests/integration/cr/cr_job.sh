# Job control shared by the scripts that compare a checkpointed job's files
# with an uninterrupted run's (cr_files_test.sh, cr_mpiio_test.sh). Sourced;
# the script sets LZ (the lazarus binary), T (its temporary directory), NP,
# ITERS, PROG, TAG and MCA (the job's --mca options), and may set
# JOB_STDIN (default /dev/null) and JOB_ENV (extra lazarus run options, an
# array) before start_job. The program writes one line per iteration to
# log.<rank> in its directory and prints "result <n>" at the end.

skip() { echo "SKIP: $*"; exit 77; }
fail() {
  echo "FAIL: $*"
  for f in "$T"/*/out "$T"/*/err "$T"/*.out "$T"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}
result_of() { grep -o 'result [0-9]*' "$1" | tail -1; }
job_id_of_pid() { "$LZ" ps | awk -v p="$1" '$2 == p { print $1 }'; }
job_file() { ls "${XDG_RUNTIME_DIR:-/nonexistent}/lazarus/jobs/$1.json" /tmp/lazarus-$(id -u)/jobs/$1.json 2>/dev/null | head -1; }
rank_pid() { grep -o '"pid": [0-9]*' "$(job_file "$1")" | awk '{ print $2 }' | sed -n "$(($2 + 1))p"; }
store_dir() { ls -d "$T"/store/*/ 2>/dev/null | head -1; }
# Starts the job in $T/$1 (extra lazarus run args after it) -> $JOB_PID, $JOB_ID
start_job() {
  local dir=$T/$1
  shift
  mkdir -p "$dir"
  (cd "$dir" && exec "$LZ" run -np $NP "${MCA[@]}" --timeout 300 ${JOB_ENV[@]+"${JOB_ENV[@]}"} "$@" "$PROG" $ITERS "$TAG" \
    < "${JOB_STDIN:-/dev/null}" > out 2> err) &
  JOB_PID=$!
  local i
  for i in $(seq 1 200); do
    JOB_ID=$(job_id_of_pid $JOB_PID)
    [ -n "$JOB_ID" ] && return 0
    kill -0 $JOB_PID 2> /dev/null || fail "job exited before it appeared in lazarus ps"
    sleep 0.1
  done
  fail "job did not appear in lazarus ps"
}
# Waits until rank 0's log in $1 has at least $2 lines.
wait_lines() {
  local i
  for i in $(seq 1 3000); do
    [ "$(wc -l < "$1/log.0" 2> /dev/null || echo 0)" -ge "$2" ] && return 0
    sleep 0.01
  done
  fail "$1/log.0 did not reach $2 lines"
}
checkpoint() {  # extra args -> the snapshot's path in $SNAP
  "$LZ" checkpoint "$JOB_ID" --wait "$@" > "$T/ck.out" 2>&1 || fail "checkpoint $* failed: $(cat "$T/ck.out")"
  # "committed: PATH", or under cr=app "committed at safe point N: PATH".
  SNAP=$(grep -o 'committed[^:]*: [^ ]*' "$T/ck.out" | awk '{ print $NF }')
  [ -d "$SNAP" ] || fail "no committed snapshot: $(cat "$T/ck.out")"
}
# kill -9 of rank $1 of the job, which must then recover and end well
# (before_wait: a command run between the kill and the wait, if set).
kill_rank_and_wait() {
  local victim
  victim=$(rank_pid "$JOB_ID" "$1")
  [ -n "$victim" ] || fail "cannot find rank $1's pid"
  kill -9 "$victim"
  ${BEFORE_WAIT:-true}
  wait $JOB_PID || fail "recovered job failed (status $?)"
}
