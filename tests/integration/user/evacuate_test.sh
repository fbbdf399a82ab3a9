#!/bin/bash
# `lazarus evacuate` of a cr=criu job as an ordinary user: two hosts of the
# job (hostA, hostB) whose helpers a launch agent starts on this machine, as
# ssh would on others; each helper makes its own user and PID namespaces
# (nested in the job's, here) and restores moved ranks there. The evacuated
# job's result must equal an uninterrupted run's.
# Usage: evacuate_test.sh BIN_DIR PROGRAM   (PROGRAM: tests/cr/cr_iter)
set -u
BIN=$1 PROG=$2
LZ=$BIN/lazarus
ITERS=${USER_EVACUATE_ITERS:-400}
T=$(mktemp -d /tmp/lz-user-evac.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; for f in "$T"/*.out "$T"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }
"$LZ" info --mca cr criu > /dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here (lazarus info --mca cr criu)"; exit 77; }
printf '#!/bin/sh\n# agent HOST CMD...: CMD on this machine\nshift\nexec sh -c "$*"\n' > "$T/agent"
chmod +x "$T/agent"
result_of() { grep -o 'result [0-9]*' "$1" | tail -1; }
"$LZ" run -np 4 --timeout 300 "$PROG" "$ITERS" > "$T/ref.out" 2> "$T/ref.err" || fail "reference run failed"
REF=$(result_of "$T/ref.out")
[ -n "$REF" ] || fail "the reference run printed no result"
"$LZ" run --host hostA:2,hostB:2 -np 4 --timeout 300 --mca launch_agent "$T/agent" --mca cr criu \
  --mca snapshot_root "$T/store" "$PROG" "$ITERS" > "$T/job.out" 2> "$T/job.err" &
JOB=$!
for i in $(seq 1 200); do "$LZ" ps | awk -v p=$JOB '$2 == p { f = 1 } END { exit !f }' && break; sleep 0.1; done
sleep 1
"$LZ" evacuate $JOB --host hostA > "$T/evac.out" 2>&1 || fail "evacuate failed: $(cat "$T/evac.out")"
grep -q "done" "$T/evac.out" || fail "evacuate did not report done: $(cat "$T/evac.out")"
"$LZ" ps --ranks > "$T/ps.txt"
[ "$(grep -c 'host hostB' "$T/ps.txt")" = 4 ] && ! grep -q 'host hostA' "$T/ps.txt" ||
  fail "after the evacuation not every rank is on hostB: $(cat "$T/ps.txt")"
wait $JOB || fail "the evacuated job failed"
[ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") after the evacuation, $REF uninterrupted"
echo "PASS: evacuation of hostA as uid $(id -u): $REF"
