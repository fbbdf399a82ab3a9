#!/bin/bash
# Two jobs of separate launchers joined through a port (dpm.c server/client):
# the server publishes its port under a name in a directory of this test's
# own (dpm_names_dir), the client looks it up and connects; both exchange
# messages over the intercommunicator, merge it and reduce over the union.
# Usage: dpm_jobs_test.sh BIN_DIR PROGRAM SERVER_NP CLIENT_NP [TRANSPORT]
# Each job is bounded by --timeout: a hang is a failure.
set -u
BIN=$1 PROG=$2 SNP=$3 CNP=$4 TRANSPORT=${5:-}
dir=$(mktemp -d /tmp/lz-dpm-names.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mca=(--mca dpm_names_dir "$dir")
[ -n "$TRANSPORT" ] && mca+=(--mca transport "$TRANSPORT")
"$BIN/mpirun" -np "$SNP" "${mca[@]}" --timeout 120 "$PROG" server lz-dpm-jobs >"$dir/server.out" 2>&1 &
server=$!
"$BIN/mpirun" -np "$CNP" "${mca[@]}" --timeout 120 "$PROG" client lz-dpm-jobs >"$dir/client.out" 2>&1
client_rc=$?
wait $server
server_rc=$?
sed 's/^/server: /' "$dir/server.out"
sed 's/^/client: /' "$dir/client.out"
[ $server_rc -eq 0 ] || { echo "FAIL: the server job exited with $server_rc"; exit 1; }
[ $client_rc -eq 0 ] || { echo "FAIL: the client job exited with $client_rc"; exit 1; }
grep -q "dpm server: $SNP ranks ok" "$dir/server.out" || { echo "FAIL: no server verdict"; exit 1; }
grep -q "dpm client: $CNP ranks ok" "$dir/client.out" || { echo "FAIL: no client verdict"; exit 1; }
[ -z "$(ls "$dir" | grep -v '\.out$')" ] || { echo "FAIL: a published name was left behind: $(ls "$dir")"; exit 1; }
echo "PASS: two jobs ($SNP + $CNP ranks) joined through a published port"
