#!/bin/bash
# Checkpoint/restart of collectives interrupted in any phase of any of
# coll/tuned's algorithms (issue 38): cr_coll (every collective the
# coll_tuned_<op>_algorithm parameters cover, small and large, one rank late
# into one of them each iteration) with one algorithm forced for every op,
# checkpointed twice while it runs (it continues), stopped by a third
# checkpoint (--term), restarted from the last snapshot and from the first;
# every result must be that of a plain run with the automatic choices (the
# program's values are integers: the result does not depend on the algorithm).
# Usage: cr_coll_test.sh ALGO_SET TRANSPORT BIN_DIR PROGRAM
#   ALGO_SET: a letter: set `a` forces each op's first algorithm (in the order
#   `lazarus info` lists the parameter's values, auto left out), `b` the
#   second, ...; an op with fewer algorithms keeps its last. The sets a..z up
#   to the longest list cover every value. `auto`: nothing forced.
#   With CR_COLL_SETS="a b c" (the sets the build registers as tests) an
#   algorithm that none of them forces is a failure, naming the set to add.
# Skips (exit 77, "SKIP:") only when CRIU cannot work here, saying why.
# Every job is bounded with --timeout, every checkpoint with timeout(1): a
# collective that never resumes is a failure, not a hung test.
set -u
SET=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
# 3 ranks, not the 4 of cr_test.sh: on a size that is not a power of two the
# algorithms run their extra phases too (the allreduces' recursive doubling
# and Rabenseifner fold the first 2*(n - 2^k) ranks in before the
# power-of-two core and send the results back out after it; Bruck's last
# step is partial; the ring's and the scatter's blocks are uneven), so a
# checkpoint can land in more phases than at 4; and one process fewer on the
# 2 cores a test gets (PROCESSORS 2) keeps the checkpoints and the run short.
# CR_COLL_NP=4 runs the power-of-two paths.
NP=${CR_COLL_NP:-3}
# Few iterations: the job holds after its last one until released (cr_coll.c),
# so it cannot end before the checkpoints, and the restarts, released, run
# what is left of 60 at full speed.
ITERS=${CR_COLL_ITERS:-60}
T=$(mktemp -d /tmp/lz-crcoll.XXXXXX)
# CR_COLL_KEEP=1 keeps $T (logs, snapshots) for a look afterwards;
# CR_COLL_KEEP=failed only when the test fails.
cleanup() {
  local st=$?
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
  case "${CR_COLL_KEEP:-}:$st" in
    1:* | failed:[1-9]*) echo "kept $T" ;;
    *) rm -rf "$T" ;;
  esac
}
trap cleanup EXIT
# cr_keep 0: snapshot 1 must outlive the two after it (restarted from below).
MCA=(--mca transport "$TRANSPORT" --mca cr criu --mca snapshot_root "$T/store" --mca cr_keep 0)

skip() { echo "SKIP: $*"; exit 77; }
fail() {
  echo "FAIL [set $SET over $TRANSPORT${FORCED_DESC:+: $FORCED_DESC}]: $*"
  # (without the job's per-iteration trace, which the messages above place)
  for f in "$T"/*.out "$T"/*.err; do
    [ -s "$f" ] && { echo "--- $f"; grep -v '^iteration [0-9]*$' "$f" | tail -30; }
  done
  exit 1
}

[ -x "$PROG" ] || fail "no program $PROG (built by the target lz_cr_test_programs)"
info=$("$LZ" info --mca cr criu 2>&1) || skip "cr/criu is unavailable here: $(echo "$info" | grep -i 'criu' | head -2 | tr '\n' ' ')"

# Every coll_tuned_<op>_algorithm parameter with its values (auto left out),
# as `lazarus info` lists them: a newly added algorithm is forced by some set
# without a change here.
"$LZ" info --json --param coll tuned > "$T/info.json" 2> "$T/info.err" || fail "lazarus info --json failed"
python3 - "$T/info.json" > "$T/algorithms" << 'EOF' || fail "cannot read the algorithm parameters from lazarus info"
import json, sys
for p in json.load(open(sys.argv[1]))["parameters"]:
    n = p["name"]
    if n.startswith("coll_tuned_") and n.endswith("_algorithm") and p.get("choices"):
        print(n, " ".join(c for c in p["choices"] if c != "auto"))
EOF
[ -s "$T/algorithms" ] || [ "$SET" = auto ] || fail "lazarus info lists no coll_tuned_*_algorithm parameter"
longest=$(awk '{ if (NF - 1 > m) m = NF - 1 } END { print m + 0 }' "$T/algorithms")
letters=abcdefghijklmnopqrstuvwxyz
if [ -n "${CR_COLL_SETS:-}" ]; then
  nsets=$(echo "$CR_COLL_SETS" | wc -w)
  if [ "$longest" -gt "$nsets" ]; then
    fail "an op has $longest algorithms but the sets registered ($CR_COLL_SETS) force only the first $nsets of each:" \
      "add set(s) up to '${letters:$((longest - 1)):1}' in tests/integration/cr/CMakeLists.txt" \
      "(unforced: $(awk -v n="$nsets" '{ for (i = n + 2; i <= NF; i++) printf "%s=%s ", $1, $i }' "$T/algorithms"))"
  fi
fi
FORCED=()
FORCED_DESC=""
if [ "$SET" != auto ]; then
  case "$SET" in [a-z]) ;; *) echo "ALGO_SET must be a letter a-z or auto, not '$SET'"; exit 2 ;; esac
  idx=$(($(printf '%d' "'$SET") - 97))
  [ "$idx" -lt "$longest" ] || fail "set $SET forces nothing new: the longest list has $longest algorithms"
  while read -r name values; do
    read -ra algs <<< "$values"
    [ ${#algs[@]} -gt 0 ] || continue
    i=$idx
    [ "$i" -lt ${#algs[@]} ] || i=$((${#algs[@]} - 1))
    FORCED+=(--mca "$name" "${algs[$i]}")
    FORCED_DESC="$FORCED_DESC${FORCED_DESC:+ }${name#coll_tuned_}=${algs[$i]}"
  done < "$T/algorithms"
fi
START=$(date +%s%N)
say() { echo "[$(( ($(date +%s%N) - START) / 1000000 )) ms] $*"; }
say "set $SET over $TRANSPORT, np $NP, $ITERS iterations: ${FORCED_DESC:-automatic choices}"

result_of() { grep -o 'result [0-9]*' "$1" | tail -1; }
job_id_of_pid() { "$LZ" ps | awk -v p="$1" '$2 == p { print $1 }'; }
wait_for_job() {  # pid -> job id, once registered and in its second iteration
  local i id=""
  for i in $(seq 1 300); do
    [ -n "$id" ] || id=$(job_id_of_pid "$1")
    [ -n "$id" ] && grep -q '^iteration 1$' "$T/job.err" && { echo "$id"; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
store_dir() { ls -d "$T"/store/*/ 2>/dev/null | head -1; }
# shellcheck disable=SC1091
. "$(dirname "$0")/../../support/reference_run.sh"

# The reference: automatic choices, no checkpoint, no pauses (the arithmetic
# never depends on them), kept beside PROG while PROG is not rebuilt.
touch "$T/released"
reference_run "$T/ref" "$(basename "$PROG").np$NP.it$ITERS.${TRANSPORT//,/_}" "$PROG" \
  "$LZ" run -np "$NP" --mca transport "$TRANSPORT" --timeout 120 -x CR_ITER_RELEASE="$T/released" "$PROG" "$ITERS" ||
  fail "reference run failed: $(tail -5 "$T/ref/err")"
REF=$(result_of "$T/ref/out")
[ -n "$REF" ] || fail "reference run printed no result"
say "reference: $REF"

# A result that differs from the reference: is it the forced algorithms
# (without any checkpoint) or the checkpoint? Said with the failure.
differs() {  # what, result
  local plain
  "$LZ" run -np "$NP" --mca transport "$TRANSPORT" ${FORCED[@]+"${FORCED[@]}"} --timeout 120 \
    -x CR_ITER_RELEASE="$T/released" "$PROG" "$ITERS" > "$T/plain.out" 2> "$T/plain.err"
  plain=$(result_of "$T/plain.out")
  if [ "$plain" = "$REF" ]; then
    fail "$1 '$2' != reference '$REF' (a run with the same algorithms and no checkpoint gives the reference)"
  fi
  fail "$1 '$2' != reference '$REF'; a run with the same algorithms and no checkpoint gives '$plain' too"
}

# The job's pauses (one rank 20 ms late into one collective each iteration)
# keep it alive for the checkpoints; touching $T/release after the last one
# lets the rest of the run, and every restart, go at full speed.
# Rank 0 says when each iteration starts (CR_COLL_TRACE): where each
# checkpoint landed, in the log.
"$LZ" run -np "$NP" "${MCA[@]}" ${FORCED[@]+"${FORCED[@]}"} --timeout 120 \
  -x CR_ITER_RELEASE="$T/release" -x CR_COLL_TRACE=1 "$PROG" "$ITERS" > "$T/job.out" 2> "$T/job.err" &
JOB_PID=$!
if ! JOB_ID=$(wait_for_job $JOB_PID); then
  kill -0 $JOB_PID 2>/dev/null || { wait $JOB_PID; fail "the job ended (status $?) before its first checkpoint"; }
  fail "job did not appear in lazarus ps"
fi
say "job $JOB_ID running"
# Two checkpoints the job continues from, a third that stops it; a pause of
# 0-0.4 s before each, so that they land at different points of the
# iterations from one run to the next.
for n in 1 2; do
  sleep 0.$((RANDOM % 5))
  timeout 120 "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck$n.out" 2>&1 ||
    fail "checkpoint $n failed ($?): $(cat "$T/ck$n.out")"
  grep -q "snapshot $n committed" "$T/ck$n.out" || fail "checkpoint $n: no commit line: $(cat "$T/ck$n.out")"
  say "$(grep -o "snapshot $n committed.*" "$T/ck$n.out") at $(grep '^iteration' "$T/job.err" | tail -1)"
done
sleep 0.$((RANDOM % 5))
timeout 120 "$LZ" checkpoint "$JOB_ID" --term --wait > "$T/ck3.out" 2>&1 ||
  fail "checkpoint --term failed ($?): $(cat "$T/ck3.out")"
wait $JOB_PID || fail "job stopped by --term exited $?"
say "$(grep -o "snapshot 3 committed.*" "$T/ck3.out") at $(grep '^iteration' "$T/job.err" | tail -1), job stopped"
grep -q result "$T/job.out" && fail "the job finished before the --term checkpoint"
touch "$T/release"
"$LZ" restart "$(store_dir)" --timeout 120 > "$T/rs.out" 2> "$T/rs.err" || fail "restart from the last snapshot failed"
res=$(result_of "$T/rs.out")
[ "$res" = "$REF" ] || differs "result restarted from the last snapshot" "$res"
say "restarted from snapshot 3: $res"
"$LZ" restart "$(store_dir)/1" --timeout 120 > "$T/rs1.out" 2> "$T/rs1.err" || fail "restart from snapshot 1 failed"
res=$(result_of "$T/rs1.out")
[ "$res" = "$REF" ] || differs "result restarted from snapshot 1" "$res"
say "restarted from snapshot 1: $res"
echo "PASS: set $SET over $TRANSPORT (${FORCED_DESC:-automatic choices})"
