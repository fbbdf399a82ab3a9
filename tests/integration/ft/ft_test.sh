#!/bin/bash
# liblazarus-ft with real vendor-MPI jobs: the stencil example (linked with
# liblazarus-ft-<vendor>) checkpointed every 5 safe points, one rank killed
# with SIGKILL once a snapshot is committed (the vendor's mpirun ends the
# job), then started again with cr_app_restart=auto: it must say it
# restarted and print the uninterrupted run's result. corrupt: a damaged
# newest snapshot is skipped (named) and the one before it is used; Lazarus'
# own `lazarus snapshot verify/show` read the module's snapshots. late
# (ft_late.c): a snapshot due where a message is on its way is postponed to
# the next safe point, and a restart from it gets every message once.
# Usage: ft_test.sh SCENARIO.npN[.tcp] VENDOR STENCIL LATE BIN_DIR
#   SCENARIO: kill, corrupt or late; tcp: the vendor's tcp path, else shared memory
# Jobs are bounded (vendor timeouts and coreutils timeout); nothing measures
# wall-clock time.
set -u
IFS=. read -r SCEN NP TR <<<"$1"
NP=${NP#np} VENDOR=$2 PROG=$3 LATE=$4 BIN=$5
T=$(mktemp -d /tmp/lz-fttest.XXXXXX)
# The program copied into this test's directory: its ranks are found (and
# killed) by that path, never another test's.
trap 'for p in $(jobs -p) $(pgrep -f "^$T/"); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
cp "$PROG" "$LATE" "$T/" || exit 1
PROG=$T/$(basename "$PROG") LATE=$T/$(basename "$LATE")
export LZ_MCA_snapshot_root=$T/store XDG_CONFIG_HOME=$T/config
mkdir -p "$T/config/lazarus"

fail() { echo "FAIL: $*"; for f in "$T"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done; exit 1; }
result_of() { grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$1" | tail -1; }
committed() { ls -d "$T"/store/*/[0-9]*/COMMITTED 2>/dev/null | wc -l; }
newest() { ls -d "$T"/store/*/[0-9]* | grep -v partial | awk -F/ '{ print $NF, $0 }' | sort -n | tail -1 | cut -d' ' -f2; }
run() {  # out-file env... -- args...: the program ($RUN, default the stencil) under the vendor's mpirun
  local out=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  case $VENDOR in
    openmpi)
      local xs=() e
      for e in "${envs[@]}" LZ_MCA_snapshot_root XDG_CONFIG_HOME; do xs+=(-x "$e"); done
      local btl=self,vader
      [ "$TR" = tcp ] && btl=self,tcp
      env "${envs[@]}" timeout -s KILL 200 mpirun.openmpi --allow-run-as-root --oversubscribe --timeout 150 \
        --mca pml ob1 --mca btl $btl "${xs[@]}" -np "$NP" "${RUN:-$PROG}" "$@" > "$out" 2>&1 ;;
    mpich)
      # ch4:ucx: tcp between ranks of one host as tests/perf/README.md says.
      [ "$TR" = tcp ] && envs+=(MPIR_CVAR_NOLOCAL=1 UCX_TLS=self,tcp)
      env "${envs[@]}" MPIEXEC_TIMEOUT=150 timeout -s KILL 200 mpirun.mpich -np "$NP" "${RUN:-$PROG}" "$@" > "$out" 2>&1 ;;
  esac
}

ARGS=(48 40)
[ "$SCEN" = late ] && RUN=$LATE ARGS=(40)
run "$T/ref.out" LZ_MCA_cr_app_every=0 -- "${ARGS[@]}" || fail "uninterrupted run failed"
REF=$(result_of "$T/ref.out")
[ -n "$REF" ] || fail "the uninterrupted run printed no result"
[ "$(committed)" = 0 ] || fail "cr_app_every=0 wrote a snapshot"

case $SCEN in
kill)
  # 40 iterations of 50 ms: a snapshot every 5 safe points, the kill after the first.
  run "$T/job.out" LZ_MCA_cr_app_every=5 -- 48 40 50000 &
  job=$!
  for i in $(seq 1 600); do [ "$(committed)" -ge 1 ] && break; sleep 0.1; done
  [ "$(committed)" -ge 1 ] || fail "no snapshot committed after 60 s"
  victim=$(pgrep -f "^$PROG " | shuf -n 1)
  [ -n "$victim" ] || fail "no rank to kill"
  kill -9 "$victim"
  wait $job && fail "the job went on after kill -9 of rank pid $victim"
  grep -q 'sum=' "$T/job.out" && fail "the killed job printed a result"
  # The restart setting from the YAML file, as Lazarus reads its own; a
  # Lazarus job's settings there (a transport, another back end's) are
  # no error for the module.
  printf 'cr_app_restart: auto\ntransport: tcp,self\ncr_criu_priority: 5\n' > "$T/config/lazarus/lazarus.yaml"
  run "$T/restart.out" LZ_MCA_cr_app_every=5 -- 48 40 || fail "the restarted job failed"
  grep -q "restarting from $T/store/stencil-$VENDOR\.[0-9a-f]*/[0-9]" "$T/restart.out" ||
    fail "no 'restarting from' the store"
  grep -q "stencil: restarted at iteration [1-9]" "$T/restart.out" || fail "LZ_Restarting did not answer 1"
  [ "$(result_of "$T/restart.out")" = "$REF" ] ||
    fail "restarted result '$(result_of "$T/restart.out")', uninterrupted '$REF'"
  ;;
corrupt)
  run "$T/job.out" LZ_MCA_cr_app_every=5 LZ_MCA_cr_keep=0 -- 48 40 || fail "checkpointed run failed"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "checkpointing changed the result"
  [ "$(committed)" = 8 ] || fail "$(committed) snapshots committed, not 8 (40 safe points, every 5)"
  snap=$(newest)
  "$BIN/lazarus" snapshot verify "$snap" > "$T/verify.out" 2>&1 || fail "lazarus snapshot verify refused $snap"
  "$BIN/lazarus" snapshot show "$snap" > "$T/show.out" 2>&1 || fail "lazarus snapshot show failed on $snap"
  grep -q "grid" "$T/show.out" && grep -q "rank.$((NP - 1)).lzck" "$T/show.out" ||
    fail "lazarus snapshot show does not list grid in every rank's file"
  f=$snap/rank.1/rank.1.lzck
  python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[2048]^=0x10; open(p,'wb').write(b)" "$f"
  run "$T/restart.out" LZ_MCA_cr_app_restart=auto -- 48 40 || fail "restart past the damaged snapshot failed"
  grep -q "skipping snapshot $snap" "$T/restart.out" || fail "the damaged snapshot $snap was not skipped with a message"
  grep -q "restarting from $(dirname "$snap")/7" "$T/restart.out" || fail "did not fall back to snapshot 7"
  grep -q "stencil: restarted at iteration 34" "$T/restart.out" || fail "not resumed at snapshot 7's safe point (35)"
  [ "$(result_of "$T/restart.out")" = "$REF" ] ||
    fail "restarted result '$(result_of "$T/restart.out")', uninterrupted '$REF'"
  ;;
late)
  # Every 2 calls: due at the even calls, where the message of the even
  # iteration before is on its way; taken one call later.
  run "$T/job.out" LZ_MCA_cr_app_every=2 -- 40 || fail "checkpointed run failed"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "checkpointing changed the result"
  grep -q "snapshot at safe point 2 postponed: 1 message(s) sent but not yet received" "$T/job.out" ||
    fail "the snapshot due at call 2 was not postponed"
  [ "$(grep -c 'late: snapshot at iteration' "$T/job.out")" = 19 ] || fail "not 19 snapshots (calls 3, 5 .. 39)"
  grep 'late: snapshot at iteration [0-9]*[13579]$' "$T/job.out" && fail "a snapshot was taken with a message in flight"
  # Killed after a snapshot, restarted from it: every message once (rank 1
  # checks each value, the sum is the uninterrupted one).
  rm -rf "$T/store"
  run "$T/kill.out" LZ_MCA_cr_app_every=2 -- 40 50000 &
  job=$!
  for i in $(seq 1 600); do [ "$(committed)" -ge 1 ] && break; sleep 0.1; done
  [ "$(committed)" -ge 1 ] || fail "no snapshot committed after 60 s"
  victim=$(pgrep -f "^$RUN " | shuf -n 1)
  [ -n "$victim" ] || fail "no rank to kill"
  kill -9 "$victim"
  wait $job && fail "the job went on after kill -9 of rank pid $victim"
  run "$T/restart.out" LZ_MCA_cr_app_restart=auto LZ_MCA_cr_app_every=2 -- 40 || fail "the restarted job failed"
  grep -q "late: restarted at iteration [1-9]" "$T/restart.out" || fail "LZ_Restarting did not answer 1"
  [ "$(result_of "$T/restart.out")" = "$REF" ] ||
    fail "restarted result '$(result_of "$T/restart.out")', uninterrupted '$REF'"
  ;;
*) fail "unknown scenario $SCEN" ;;
esac
echo "PASS: ft.$VENDOR.$1 ($REF)"
