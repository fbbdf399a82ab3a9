#!/bin/bash
# A checkpoint of a job joined through a port to a job of another launcher
# (not a spawn tree: tests/integration/cr/cr_spawn_test.sh checkpoints
# those) is refused before anything is held or drained, naming why, and
# both jobs go on to their end with the right answer.
# Usage: dpm_checkpoint_test.sh BIN_DIR PROGRAM
# Bounded by --timeout and the waits below: a hang is a failure.
set -u
BIN=$1 PROG=$2
T=$(mktemp -d /tmp/lz-dpm-cr.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; sed 's/^/server: /' "$T/server.out" 2>/dev/null; sed 's/^/client: /' "$T/client.out" 2>/dev/null; exit 1; }
mca=(--mca dpm_names_dir "$T" --mca snapshot_root "$T/store")
"$BIN/mpirun" -np 2 "${mca[@]}" --timeout 120 "$PROG" loopserver lz-dpm-cr "$T/release" >"$T/server.out" 2>&1 &
server=$!
"$BIN/mpirun" -np 1 "${mca[@]}" --timeout 120 "$PROG" loopclient lz-dpm-cr "$T/release" >"$T/client.out" 2>&1 &
client=$!
# Both jobs show in lazarus ps, and are joined (the name is unpublished once accepted).
jobs_seen=""
for _ in $(seq 1 300); do
  jobs_seen=$("$BIN/lazarus" ps 2>/dev/null | awk -v a=$server -v b=$client '$2 == a || $2 == b {print $1}')
  [ "$(echo "$jobs_seen" | grep -c .)" -ge 2 ] && [ ! -e "$T/lz-dpm-cr" ] && break
  kill -0 $server 2>/dev/null && kill -0 $client 2>/dev/null || fail "a job ended early"
  sleep 0.1
done
[ "$(echo "$jobs_seen" | grep -c .)" -ge 2 ] || fail "the two jobs did not both appear in lazarus ps"
sleep 1
for j in $jobs_seen; do
  "$BIN/lazarus" checkpoint "$j" >"$T/ckpt.$j" 2>&1 || fail "lazarus checkpoint $j: $(cat "$T/ckpt.$j")"
done
# Each job says its checkpoint was refused, and why.
refusals() { cat "$T/server.out" "$T/client.out" | grep -c "checkpoint 1 aborted: .*connected to another job"; }
for _ in $(seq 1 300); do
  [ "$(refusals)" -ge 2 ] && break
  sleep 0.1
done
[ "$(refusals)" -ge 2 ] || fail "the refusals were not reported"
touch "$T/release"
wait $server
src=$?
wait $client
crc=$?
[ $src -eq 0 ] && [ $crc -eq 0 ] || fail "the jobs exited with $src and $crc after the refused checkpoints"
grep -q "dpm loopserver: 2 ranks ok" "$T/server.out" || fail "no server verdict"
grep -q "dpm loopclient: 1 ranks ok" "$T/client.out" || fail "no client verdict"
sed 's/^/server: /' "$T/server.out"
sed 's/^/client: /' "$T/client.out"
echo "PASS: checkpoints of joined jobs refused, the jobs went on"
