#!/bin/bash
# hosts.migrate.{criu,app}: proactive migration between hosts (issue 13
# part 4) on scripts/test_hosts namespace hosts, over ssh.
# Usage: migrate_test.sh PATH/TO/test_hosts BUILD_DIR [criu|app]
# cr=criu: a 4-rank cr_iter job given h0:2,h1:2,h2:2 (ranks on h0 and h1, h2 a spare
# host with its helper; launcher on h0; shm within a host, tcp between them)
# is changed twice while its messages flow:
#   1. `lazarus migrate --rank 1 --to h1`: rank 1 leaves the launcher's host
#      and is restored by h1's helper (in its PID namespace); rank 0 stays
#      alone on h0, ranks 1-3 now share h1 (shm among them);
#   2. `lazarus evacuate --host h1`: its ranks are spread, fewest ranks
#      first: 1 to the spare h2, 2 to h0 (restored by the launcher itself),
#      3 to h2; h1 is left with no rank.
# The helpers run in PID namespaces (launch_helper_pid_namespace); a job
# started without them refuses to move a rank to another host first, naming
# the parameter. Each move prints its evacuation time and `lazarus ps --ranks` shows the new
# placement; the result is an uninterrupted run's; no image is left behind
# and no process of the job is left on any host. Skips (77) only where
# namespaces or CRIU cannot work here.
# cr=app: the same moves of a 4-rank app_ring job (tests/integration/migrate:
# messages cross every safe point), at the safe point the ranks agree on;
# each moved rank is a new process started by its new host's helper (no PID
# namespace needed), which loads what the old one handed over. Needs no CRIU.
set -u
TH=$1
B=$2
CR=${3:-criu}
LZ=$B/bin/lazarus
D=$(mktemp -d /tmp/lz-hmig.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; "$TH" down "$D" >/dev/null 2>&1; rm -rf "$D"' EXIT
fail() {
  echo "FAIL: $*"
  for f in "$D"/*.out "$D"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -40 "$f"; }; done
  exit 1
}
if [ "$CR" = criu ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: CRIU needs root"; exit 77; }
  "$LZ" info --mca cr criu >/dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here (lazarus info --mca cr criu)"; exit 77; }
fi
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3
REF_ENV=() JOB_ENV=()
if [ "$CR" = criu ]; then
  PROG=("$B/tests/cr/cr_iter" 600)  # 20 ms an iteration: 12 s, long enough for both moves
  # ... until $D/release exists (tests/integration/cr/cr_pace.h): the
  # reference runs released from the start, the job once the moves are done.
  touch "$D/ref.release"
  REF_ENV=(-x CR_ITER_RELEASE="$D/ref.release")
  JOB_ENV=(-x CR_ITER_RELEASE="$D/release")
  CR_MCA=(--mca cr criu --mca launch_helper_pid_namespace true)
else
  PROG=("$B/tests/migrate/app_ring" 1500 5000)  # 5 ms an iteration and more: long enough for both moves
  CR_MCA=(--mca cr app)
fi

still_running() { kill -0 $job 2>/dev/null && ! grep -q result "$D/job.out"; }
# ranks_on HOST: the ranks `lazarus ps --ranks` places on HOST, comma-separated.
ranks_on() {
  "$LZ" ps --ranks | awk -v id="$id" -v h="$1" '$1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9]+$/ { mine = $1 == id }
    mine && $1 == "rank" && $4 == h { print $2 }' | paste -sd,
}

"$LZ" run -np 4 --timeout 120 "${REF_ENV[@]}" "${PROG[@]}" >"$D/ref.out" 2>&1 || fail "reference run failed"
REF=$(grep -o 'result [0-9]*' "$D/ref.out")
[ -n "$REF" ] || fail "the reference run printed no result"
if [ "$CR" = criu ]; then
  # Without the helpers in PID namespaces a rank cannot be restored on another host.
  on 0 "$LZ" run --host "${H[0]}:2,${H[1]}:2" -np 4 --mca launch_agent "$AGENT" --mca cr criu \
    --mca snapshot_root "$D/store" --timeout 200 "${PROG[@]}" >"$D/plain.out" 2>"$D/plain.err" &
  job=$!
  id=$(job_of $job "${H[0]},${H[1]}") || fail "the job without PID namespaces did not appear in lazarus ps"
  "$LZ" migrate "$id" --rank 1 --to "${H[1]}" >"$D/refused.out" 2>&1 && fail "a rank moved to ${H[1]} without PID namespaces"
  grep -q "launch_helper_pid_namespace" "$D/refused.out" || fail "the refusal does not name launch_helper_pid_namespace: $(cat "$D/refused.out")"
  lp=$("$LZ" ps | awk -v j="$id" '$1 == j { print $2 }')  # the launcher (\$job is the subshell of `on`)
  [ -n "$lp" ] || fail "no launcher pid for job $id in lazarus ps"
  kill -TERM "$lp"
  wait $job
  no_leftovers "the job stopped after the refusal"
fi

# LZ_LOG_LEVEL=debug: each rank names the transport that reaches each peer
# whenever it (re)chooses them, checked below.
on 0 "$LZ" run --host "${H[0]}:2,${H[1]}:2,${H[2]}:2" -np 4 -x LZ_LOG_LEVEL=debug "${JOB_ENV[@]}" --mca launch_agent "$AGENT" \
  "${CR_MCA[@]}" --mca transport shm,tcp,self --mca snapshot_root "$D/store" --timeout 200 "${PROG[@]}" \
  >"$D/job.out" 2>"$D/job.err" &
job=$!
id=$(job_of $job "${H[0]},${H[1]}") || fail "the job did not appear in lazarus ps"
sleep 1  # past MPI_Init, in the ring

still_running || fail "the job ended before the migration; raise ITERS"
"$LZ" migrate "$id" --rank 1 --to "${H[1]}" >"$D/m1.out" 2>&1 || fail "migrate rank 1 to ${H[1]} failed"
grep -q "evacuation time [0-9.]* s" "$D/m1.out" || fail "no evacuation time printed for the migration"
"$LZ" ps --ranks >"$D/ps1.out" 2>&1
[ "$(ranks_on "${H[1]}")" = "1,2,3" ] || fail "after the migration ${H[1]} holds ranks '$(ranks_on "${H[1]}")', not 1,2,3"
[ "$(ranks_on "${H[0]}")" = "0" ] || fail "after the migration ${H[0]} holds ranks '$(ranks_on "${H[0]}")', not 0"

still_running || fail "the job ended before the evacuation; raise ITERS"
"$LZ" evacuate "$id" --host "${H[1]}" >"$D/m2.out" 2>&1 || fail "evacuate ${H[1]} failed"
grep -q "evacuation time [0-9.]* s" "$D/m2.out" || fail "no evacuation time printed for the evacuation"
"$LZ" ps --ranks >"$D/ps2.out" 2>&1
[ "$(ranks_on "${H[0]}")" = "0,2" ] || fail "after the evacuation ${H[0]} holds ranks '$(ranks_on "${H[0]}")', not 0,2"
[ "$(ranks_on "${H[2]}")" = "1,3" ] || fail "after the evacuation ${H[2]} holds ranks '$(ranks_on "${H[2]}")', not 1,3"
[ -z "$(ranks_on "${H[1]}")" ] || fail "after the evacuation ${H[1]} still holds ranks $(ranks_on "${H[1]}")"
touch "$D/release"

wait $job; st=$?
[ $st = 0 ] || fail "the job exited $st after the moves"
got=$(grep -o 'result [0-9]*' "$D/job.out")
[ "$got" = "$REF" ] || fail "after the moves: '$got', uninterrupted run '$REF'"
ls -d "$D"/store/.migrate.* 2>/dev/null && fail "migration images or hand-overs left behind"
# The staying ranks follow the moves (the layout they read after GO): each
# line below can only appear once a move changed which host a peer is on.
reached() { grep -q "^rank $1: debug: p2p: rank $2 reached through $3 " "$D/job.err" || fail "$4"; }
reached 0 1 tcp "rank 0 never reached rank 1 over tcp once rank 1 had moved to ${H[1]}"
reached 2 1 shm "rank 2 never reached rank 1 over shm once both were on ${H[1]}"
reached 0 2 shm "rank 0 never reached rank 2 over shm once rank 2 had come to ${H[0]}"
reached 1 0 tcp "rank 1 never reached rank 0 over tcp once on ${H[2]}"
grep -q "not reachable through shm" "$D/job.err" && fail "a rank took a peer of another host for a local one"
no_leftovers "the moves"
echo "hosts.migrate.$CR: rank 1 ${H[0]} -> ${H[1]} ($(grep -o 'evacuation time [0-9.]* s' "$D/m1.out")), ${H[1]} evacuated to ${H[0]} and the spare ${H[2]} ($(grep -o 'evacuation time [0-9.]* s' "$D/m2.out")): $got as uninterrupted"
