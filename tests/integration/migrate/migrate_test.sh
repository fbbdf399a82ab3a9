#!/bin/bash
# Proactive migration with real jobs (`lazarus migrate`, `lazarus evacuate`):
# ranks of a running 4-rank ring job (cr_iter, messages every iteration) are
# moved while the others go on, and the job's result must be the result of
# an uninterrupted run.
# Usage: migrate_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM [NP] [stall]
#   criu:    cr=criu; the refusals below first, then rank 1 moved to this
#            host mid-run, then ranks 2 and 3 together; `lazarus ps --ranks`
#            shows the moves, no image is left behind and no snapshot was
#            written. With `stall`, rank 0 sleeps 4 s in iteration 100
#            (cr_iter's STALL_ITER) and rank 1 is moved while it sits in
#            MPI_Recv waiting for it.
#   refuse:  only the refusals: an unknown rank, an unknown host and the
#            evacuation of the only host are refused with a message naming
#            them; the job is untouched (same result, no move).
#   app:     cr=app (PROGRAM: app_ring.c, messages crossing every safe
#            point, small ones and buffered rendezvous): the refusals, then
#            rank 1 moved to this host, then ranks 2 and 3 together; each
#            move gives the rank a new process (a new pid in `lazarus ps`),
#            the others keep theirs; no hand-over or snapshot is left behind.
#            Needs neither root nor CRIU.
#   stencil: cr=app, PROGRAM examples/stencil.c: rank 1 moved mid-run, the
#            grid's sum and hash equal to an uninterrupted run's.
# Every job is bounded with --timeout; nothing measures wall-clock time.
# Skips (exit 77, "SKIP:") only when CRIU cannot work here, saying why.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4 NP=${5:-4} MODE=${6:-}
LZ=$BIN/lazarus
ITERS=${MIGRATE_TEST_ITERS:-300}
[ "$SCEN" = app ] && ITERS=${MIGRATE_TEST_ITERS:-1500}
T=$(mktemp -d /tmp/lz-migtest.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
CR=criu
[ "$SCEN" = app ] || [ "$SCEN" = stencil ] && CR=app
MCA=(--mca transport "$TRANSPORT" --mca cr $CR --mca snapshot_root "$T/store")

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; for f in "$T"/*.out "$T"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done; exit 1; }

if [ "$CR" = criu ]; then
  info=$("$LZ" info --mca cr criu 2>&1) || skip "cr/criu is unavailable here: $(echo "$info" | grep -i 'criu' | head -2 | tr '\n' ' ')"
fi

result_of() { grep -o 'result [0-9]*' "$1" | tail -1; }
job_id_of_pid() { "$LZ" ps | awk -v p="$1" '$2 == p { print $1 }'; }
wait_for_job() {  # pid -> job id, once registered and past MPI_Init
  local i id
  for i in $(seq 1 200); do
    id=$(job_id_of_pid "$1")
    [ -n "$id" ] && { sleep 1; echo "$id"; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
. "$(dirname "$0")/../../support/reference_run.sh"
reference() {
  reference_run "$T/ref" "$(basename "$PROG").np$NP.it$ITERS.${TRANSPORT//,/_}" "$PROG" \
    "$LZ" run -np $NP --mca transport "$TRANSPORT" --timeout 300 "$PROG" "$ITERS" || fail "reference run failed"
  REF=$(result_of "$T/ref/out")
  [ -n "$REF" ] || fail "reference run printed no result"
}
# cr_iter's 20 ms pauses (tests/integration/cr/cr_pace.h) keep the job
# running through the moves; touching $T/release ends them after the last.
start_job() {
  "$LZ" run -np $NP "${MCA[@]}" --timeout 300 -x CR_ITER_RELEASE="$T/release" "$@" "$PROG" "$ITERS" ${STALL:-} \
    > "$T/job.out" 2> "$T/job.err" &
  JOB_PID=$!
  JOB_ID=$(wait_for_job $JOB_PID) || fail "job did not appear in lazarus ps"
}
# This job's lines of `lazarus ps --ranks` ("rank R host H pid P [moved Nx]"):
# other jobs (other tests running beside this one) are left out.
job_ranks() {
  "$LZ" ps --ranks 2>&1 | awk -v id="$JOB_ID" '$1 != "rank" && $1 != "ranks:" { mine = $1 == id } mine && $1 == "rank"'
}
# The job must still be mid-run when a move is asked for: the test is about
# ranks moving while messages flow.
still_running() { kill -0 $JOB_PID 2>/dev/null && ! grep -q result "$T/job.out"; }
# migrate NAME ARGS...: runs `lazarus migrate` into $T/NAME.out, must succeed.
migrate() {
  local name=$1; shift
  still_running || fail "the job ended before the migration ($name); raise MIGRATE_TEST_ITERS"
  "$LZ" migrate "$JOB_ID" "$@" > "$T/$name.out" 2>&1 || fail "lazarus migrate $* failed: $(cat "$T/$name.out")"
  grep -q "evacuation time [0-9.]* s" "$T/$name.out" || fail "no evacuation time printed: $(cat "$T/$name.out")"
}
# refused NAME WANT ARGS...: the command must exit 1 and name WANT.
refused() {
  local name=$1 want=$2; shift 2
  "$LZ" "$@" > "$T/$name.out" 2>&1 && fail "'lazarus $*' was accepted: $(cat "$T/$name.out")"
  grep -q -- "$want" "$T/$name.out" || fail "'lazarus $*' refused without naming '$want': $(cat "$T/$name.out")"
}

# The second move of both scenarios (ranks 2 and 3 together, to this host
# by its name), then the end of the job: the uninterrupted run's result,
# nothing left of the moves, no snapshot.
ranks_2_and_3_then_end() {
  migrate m2 --rank 2,3 --to "$(hostname)"
  job_ranks > "$T/ps2.out"
  for r in 2 3; do
    grep -q "^ *rank $r .*moved 1x" "$T/ps2.out" || fail "rank $r not shown moved: $(cat "$T/ps2.out")"
  done
  touch "$T/release"
  wait $JOB_PID || fail "job failed after the migrations (status $?)"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") != reference $REF"
  ls -d "$T"/store/.migrate.* 2>/dev/null && fail "migration images or hand-overs left behind"
  ls -d "$T"/store/*/[0-9]* 2>/dev/null && fail "a migration wrote a snapshot"
}

refusals() {
  refused rank "rank $NP is not a rank" migrate "$JOB_ID" --rank $NP --to localhost
  refused host "nosuchhost" migrate "$JOB_ID" --rank 1 --to nosuchhost
  refused evac "no other host" evacuate "$JOB_ID" --host localhost
  refused evac2 "unknown host 'nosuchhost'" evacuate "$JOB_ID" --host nosuchhost
  "$LZ" migrate --help > "$T/help.out" 2>&1 || fail "lazarus migrate --help failed"
  grep -q -- "--to" "$T/help.out" || fail "migrate --help does not mention --to"
  job_ranks | grep -q "moved" && fail "a refused migration moved a rank"
}

case "$SCEN" in
criu)
  reference
  [ "$MODE" = stall ] && STALL=100
  start_job
  refusals
  if [ "$MODE" = stall ]; then
    for i in $(seq 1 300); do grep -q stalling "$T/job.out" && break; sleep 0.05; done
    grep -q stalling "$T/job.out" || fail "rank 0 never stalled"
    sleep 0.5  # rank 1 is in MPI_Recv, waiting for rank 0
  fi
  migrate m1 --rank 1 --to localhost
  job_ranks > "$T/ps.out"
  grep -q "^ *rank 1 .*moved 1x" "$T/ps.out" || fail "lazarus ps --ranks does not show rank 1 moved: $(cat "$T/ps.out")"
  grep -q "^ *rank 0 .*moved" "$T/ps.out" && fail "lazarus ps --ranks shows rank 0 moved: $(cat "$T/ps.out")"
  ranks_2_and_3_then_end
  ;;
app)
  reference
  start_job -x LZ_LOG_LEVEL=debug  # the ranks say what they hand over
  refusals
  job_ranks > "$T/ps0.out"
  pid_of_rank() { awk -v r="$2" '$1 == "rank" && $2 == r { for (i = 3; i <= NF; ++i) if ($i == "pid") { print $(i + 1); exit } }' "$1"; }
  P0=$(pid_of_rank "$T/ps0.out" 0) P1=$(pid_of_rank "$T/ps0.out" 1)
  [ -n "$P1" ] || fail "no pid for rank 1 in lazarus ps --ranks: $(cat "$T/ps0.out")"
  migrate m1 --rank 1 --to localhost
  grep -q "save [0-9.]* s, start" "$T/m1.out" || fail "the evacuation time does not break down save/start: $(cat "$T/m1.out")"
  job_ranks > "$T/ps.out"
  grep -q "^ *rank 1 .*moved 1x" "$T/ps.out" || fail "lazarus ps --ranks does not show rank 1 moved: $(cat "$T/ps.out")"
  grep -q "^ *rank 0 .*moved" "$T/ps.out" && fail "lazarus ps --ranks shows rank 0 moved: $(cat "$T/ps.out")"
  [ "$(pid_of_rank "$T/ps.out" 1)" != "$P1" ] || fail "rank 1 moved but kept its process $P1"
  [ "$(pid_of_rank "$T/ps.out" 0)" = "$P0" ] || fail "rank 0 stayed but its process changed"
  kill -0 "$P1" 2>/dev/null && fail "rank 1's old process $P1 is still running"
  # Messages cross every safe point: rank 1 left some it had not received.
  grep -q "^rank 1: debug: handed over at safe point [0-9]* ([1-9][0-9]* message(s) not received yet)" "$T/job.err" ||
    fail "rank 1 handed over no unreceived message: $(grep 'handed over' "$T/job.err")"
  ranks_2_and_3_then_end
  ;;
stencil)
  # examples/stencil.c (PROGRAM): a grid decomposed by rows with a halo row
  # on each side. Rank 1 moves; its new process must get the halo back as it
  # was (the hand-over saves the whole allocation), or the sum differs.
  args=(96 600 5000)  # N, iterations, microseconds each: 3 s and more
  "$LZ" run -np $NP --mca transport "$TRANSPORT" --timeout 300 "$PROG" "${args[@]}" > "$T/ref.out" 2> "$T/ref.err" ||
    fail "reference run failed"
  REF=$(grep "stencil: N=" "$T/ref.out")
  [ -n "$REF" ] || fail "reference run printed no result"
  "$LZ" run -np $NP "${MCA[@]}" --timeout 300 "$PROG" "${args[@]}" > "$T/job.out" 2> "$T/job.err" &
  JOB_PID=$!
  JOB_ID=$(wait_for_job $JOB_PID) || fail "job did not appear in lazarus ps"
  migrate m1 --rank 1 --to localhost
  wait $JOB_PID || fail "job failed after the migration (status $?)"
  [ "$(grep "stencil: N=" "$T/job.out")" = "$REF" ] || fail "$(grep "stencil: N=" "$T/job.out") != reference $REF"
  ;;
refuse)
  reference
  start_job
  refusals
  wait $JOB_PID || fail "job failed after the refused migrations (status $?)"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") != reference $REF"
  ;;
*)
  fail "unknown scenario $SCEN"
  ;;
esac
echo "PASS: $SCEN over $TRANSPORT (np $NP)"
