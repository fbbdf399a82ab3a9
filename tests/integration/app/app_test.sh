#!/bin/bash
# Application-level checkpoint/restart (cr=app, crcp=c3) with real jobs:
# the stencil example checkpointed every few safe points, killed and
# recovered, restarted on other rank counts, checkpointed on request
# (forward negotiation) or by time, a damaged snapshot, the same program
# under cr=criu (as root); lz_api.c for the rest of the API; c3_msgs for the messages that
# cross a line (late, early, wildcard) and the safe-point rule; a job run
# as a user without privileges; app_rma.c (the stencil's grid in a one-sided
# window) for windows under cr=app. No root, no CRIU needed.
# Usage: app_test.sh SCENARIO TRANSPORT BIN_DIR STENCIL C3_MSGS LZ_API
# Every job is bounded with --timeout; nothing measures wall-clock time.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 STENCIL=$4 C3=$5 API=$6
LZ=$BIN/lazarus
T=$(mktemp -d /tmp/lz-apptest.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
. "$(dirname "$0")/app_test_lib.sh"
MCA=(--mca transport "$TRANSPORT" --mca cr app --mca snapshot_root "$T/store")

committed() { grep -c 'committed' "$1" 2>/dev/null || true; }
reference() {  # N ITERS -> $REF
  "$LZ" run -np 3 --mca transport "$TRANSPORT" --timeout 300 "$STENCIL" "$1" "$2" > "$T/ref.out" 2>&1 ||
    fail "reference run failed"
  REF=$(result_of "$T/ref.out")
  [ -n "$REF" ] || fail "reference run printed no result"
}
wait_for() {  # file pattern [count]
  local i
  for i in $(seq 1 600); do
    [ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
    sleep 0.1
  done
  fail "no '$2' in $1 after 60 s"
}
recover_after_kill() {  # job-pid rank-command what [pgrep options]: kill -9 one rank, the job must recover
  local victim
  victim=$(pgrep ${4:-} -f "^$2" | shuf -n 1)
  [ -n "$victim" ] || fail "$3: no rank to kill"
  kill -9 "$victim"
  wait "$1" || fail "$3: the job did not recover"
  grep -q 'restarting from snapshot' "$T/job.out" || fail "$3: no restart after kill -9 of rank pid $victim"
  same_as_ref "$T/job.out" "$3"
}
c3_run() {  # mode -> kills rank 1 once the line's snapshot is committed, recovers
  "$LZ" run -np 3 "${MCA[@]}" --mca cr_app_every 2 --recover auto --timeout 120 "$C3" "$1" > "$T/c3.out" 2>&1 &
  local job=$!
  wait_for "$T/c3.out" stalling
  wait_for "$T/c3.out" committed
  kill -9 "$(grep -o 'pid [0-9]* stalling' "$T/c3.out" | awk '{ print $2 }')"
  wait $job || fail "$1: the job failed after the restart"
  grep -q 'restarting from snapshot 1' "$T/c3.out" || fail "$1: the job did not restart from the line's snapshot"
  grep -q 'restarted at phase 1' "$T/c3.out" || fail "$1: rank 1 did not resume at the line"
}

case "$SCEN" in
every)
  reference 96 120
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --mca cr_keep 0 --timeout 300 "$STENCIL" 96 120 > "$T/job.out" 2>&1 ||
    fail "checkpointed run failed"
  same_as_ref "$T/job.out" "every 10 safe points"
  [ "$(committed "$T/job.out")" = 12 ] || fail "expected 12 committed snapshots, saw $(committed "$T/job.out")"
  "$LZ" snapshot verify "$(store_dir)" > "$T/verify.out" 2>&1 || fail "snapshot verify failed on a good store"
  "$LZ" snapshot show "$(store_dir)"/3 > "$T/show.out" 2>&1 || fail "snapshot show failed"
  grep -q 'grid .*float64 .* 96x96 / 0x0 / 24x96' "$T/show.out" || fail "show does not list rank 0's block of grid"
  grep -q 'safe point 30' "$T/show.out" || fail "snapshot 3 is not the one of safe point 30"
  ;;
recover)
  reference 64 400
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --recover auto --timeout 300 "$STENCIL" 64 400 5000 \
    > "$T/job.out" 2>&1 &
  job=$!
  wait_for "$T/job.out" committed 3
  recover_after_kill $job "$STENCIL 64 400" "kill -9 under --recover auto"
  ;;
np)
  reference 80 60
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 25 --mca cr_keep 0 --timeout 300 "$STENCIL" 80 60 > "$T/job.out" 2>&1 ||
    fail "checkpointed run failed"
  for np in 2 6; do
    "$LZ" restart -np $np --mca cr_keep 0 --timeout 300 "$(store_dir)"1 > "$T/np$np.out" 2>&1 ||
      fail "restart on $np ranks failed"
    grep -q "restarted at iteration 24 on $np ranks" "$T/np$np.out" || fail "4 -> $np: did not resume at iteration 24"
    same_as_ref "$T/np$np.out" "restart 4 -> $np ranks"
  done
  "$LZ" restart -np 3 --mca cr_keep 0 --timeout 300 "$(store_dir)"1 > "$T/np3.out" 2>&1 || fail "restart on 3 ranks failed"
  same_as_ref "$T/np3.out" "restart 4 -> 3 ranks"
  ;;
request)
  reference 64 300
  "$LZ" run -np 4 "${MCA[@]}" --timeout 300 "$STENCIL" 64 300 10000 > "$T/job.out" 2>&1 &
  job=$!
  for i in $(seq 1 100); do id=$("$LZ" ps | awk -v p=$job '$2 == p { print $1 }'); [ -n "$id" ] && break; sleep 0.1; done
  [ -n "$id" ] || fail "the job did not appear in lazarus ps"
  sleep 1
  "$LZ" checkpoint --wait "$id" > "$T/ckpt.out" 2>&1 || fail "lazarus checkpoint failed: $(cat "$T/ckpt.out")"
  grep -q 'committed at safe point' "$T/ckpt.out" || fail "no committed snapshot reported: $(cat "$T/ckpt.out")"
  kill -9 $job; pkill -9 -f "^$STENCIL 64 300"; wait $job 2>/dev/null
  "$LZ" restart --timeout 300 "$(store_dir)" > "$T/restart.out" 2>&1 || fail "restart from the requested snapshot failed"
  grep -q 'restarted at iteration' "$T/restart.out" || fail "the restarted job did not restore"
  same_as_ref "$T/restart.out" "restart from a requested (negotiated) snapshot"
  ;;
corrupt)
  reference 64 60
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 20 --mca cr_keep 0 --timeout 300 "$STENCIL" 64 60 > "$T/job.out" 2>&1 ||
    fail "checkpointed run failed"
  f=$(store_dir)3/rank.1/rank.1.lzck
  python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[2048]^=0x10; open(p,'wb').write(b)" "$f"
  "$LZ" snapshot verify "$(store_dir)"3 > "$T/verify.out" 2>&1 && fail "verify passed a flipped bit"
  grep -q "rank.1.lzck" "$T/verify.out" && grep -q "'grid'" "$T/verify.out" ||
    fail "verify does not name the file and the variable: $(cat "$T/verify.out")"
  "$LZ" restart --timeout 300 "$(store_dir)" > "$T/restart.out" 2>&1 || fail "restart past the damaged snapshot failed"
  grep -q 'skipping' "$T/restart.out" || fail "the damaged snapshot was not skipped"
  same_as_ref "$T/restart.out" "restart from the snapshot before the damaged one"
  ;;
interval)
  # Time-driven (cr_app_interval): forward negotiation places every line.
  reference 64 600
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_interval 1 --recover auto --timeout 300 "$STENCIL" 64 600 5000 \
    > "$T/job.out" 2>&1 &
  job=$!
  wait_for "$T/job.out" committed 1
  recover_after_kill $job "$STENCIL 64 600" "cr_app_interval 1 s, kill -9 under --recover auto"
  ;;
criu)
  # The same program under the core-image back end: LZ_* calls are valid
  # (safe points with no file) and the image holds everything.
  "$LZ" info --mca cr criu > /dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here (lazarus info --mca cr criu)"; exit 77; }
  reference 64 600
  "$LZ" run -np 4 --mca transport "$TRANSPORT" --mca cr criu --mca snapshot_root "$T/store" --checkpoint-interval 1s \
    --recover auto --timeout 300 "$STENCIL" 64 600 5000 > "$T/job.out" 2>&1 &
  job=$!
  wait_for "$T/job.out" committed 1
  recover_after_kill $job "$STENCIL 64 600" "the LZ_* program under cr=criu, kill -9"
  grep -q 'restarted at iteration' "$T/job.out" && fail "a core-image restart ran LZ_Restore (LZ_Restarting said 1)"
  ;;
api)
  # Error classes through the error handler, unregister, a struct datatype,
  # and the incremental restore (size, allocate, register, restore again).
  "$LZ" run -np 3 "${MCA[@]}" --mca cr_app_every 1 --timeout 60 "$API" > "$T/api.out" 2>&1 || fail "the saving run failed"
  grep -q 'api: saved' "$T/api.out" || fail "the saving run did not finish its checks"
  "$LZ" restart --timeout 60 "$(store_dir)" > "$T/api2.out" 2>&1 || fail "the restoring run failed"
  grep -q 'api: restored on 3 ranks: n, params, a ok' "$T/api2.out" || fail "the restoring run did not finish its checks"
  ;;
late)
  c3_run late
  grep -q 'late: got 1234 got2 -1 left 0' "$T/c3.out" || fail "the late message was not replayed exactly once"
  ;;
early)
  c3_run early
  grep -q 'early: got 5678 got2 -1 left 0' "$T/c3.out" || fail "the early message was not suppressed exactly once"
  ;;
wild|wildprobe)
  c3_run "$SCEN"
  [ "$(grep -c 'wild: first from rank 2 (2000), second from rank 0 (1000)' "$T/c3.out")" = 2 ] ||
    fail "the wildcard receives did not match the same messages after the restart"
  grep -q "$SCEN: got 2000 got2 1000 left 0" "$T/c3.out" || fail "messages lost or duplicated"
  ;;
rule)
  "$LZ" run -np 3 "${MCA[@]}" --timeout 60 "$C3" rule > "$T/rule.out" 2>&1 && fail "a pending receive at a safe point was accepted"
  grep -q 'LZ_Checkpoint: rank 1: 1 receive is pending at a safe point' "$T/rule.out" ||
    fail "no clear error for a receive pending at a safe point"
  grep -q 'returned' "$T/rule.out" && fail "LZ_Checkpoint returned with a receive pending"
  ;;
nonroot)
  command -v setpriv > /dev/null || { echo "SKIP: setpriv (util-linux) is missing"; exit 77; }
  command -v unshare > /dev/null || { echo "SKIP: unshare (util-linux) is missing"; exit 77; }
  chmod 0777 "$T"
  reference 64 200
  nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" "$@"; }
  # The build tree may sit below a directory the user cannot pass (a clone
  # in 'mktemp -d', a 0700 home). Then the job runs in a mount namespace of
  # its own where a world-readable view of the path down to the build tree
  # lies over the highest such directory: the same absolute paths (the
  # programs' run paths are absolute) with nothing else of it visible.
  build=$(cd "$BIN/.." && pwd)
  [ -n "$(find "$build" -maxdepth 0 -perm -o=rx)" ] || fail "the build tree $build itself is closed to other users"
  blocked="" d=$build
  while [ "$d" != / ]; do d=$(dirname "$d"); nobody test -x "$d" || blocked=$d; done
  if [ -z "$blocked" ]; then
    as_nobody() { nobody "$@"; }
  else
    view=$T/view rel=${build#"$blocked"/}
    mkdir -p "$view/$rel" && chmod -R a+rx "$view"
    echo "$blocked is closed to other users: the job sees $build through a view laid over it"
    as_nobody() {
      unshare --mount sh -c 'mount --bind "$1" "$2" && mount --rbind "$3" "$4" && shift 4 && exec "$@"' \
        sh "$build" "$view/$rel" "$view" "$blocked" \
        setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" "$@"
    }
  fi
  as_nobody "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --recover auto --timeout 300 "$STENCIL" 64 200 5000 \
    > "$T/job.out" 2>&1 &
  job=$!
  wait_for "$T/job.out" committed 2
  recover_after_kill $job "$STENCIL 64 200" "unprivileged job, kill -9" "-u 65534"
  [ "$(stat -c %u "$(store_dir)")" = 65534 ] || fail "the store does not belong to the unprivileged user"
  ;;
rma)
  # The grid in an MPI_Win_allocate window, halos by MPI_Put between fences
  # (app_rma.c, built beside the stencil): the same numbers as the stencil.
  RMA=$(dirname "$STENCIL")/app_rma
  # Over tcp the operations travel as messages (as between hosts), through
  # crcp/c3's lines; over shm they are loads and stores.
  [[ $TRANSPORT == shm* ]] || export LZ_MCA_osc_load_store=false
  reference 48 60
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --mca cr_keep 0 --timeout 300 "$RMA" 48 60 > "$T/job.out" 2>&1 ||
    fail "checkpointed run with a window failed"
  same_as_ref "$T/job.out" "every 10 safe points, grid in a window"
  for np in 4 2 3; do
    "$LZ" restart -np $np --mca cr_keep 0 --timeout 300 "$(store_dir)"1 > "$T/np$np.out" 2>&1 ||
      fail "restart of the window job on $np ranks failed"
    grep -q "restarted at iteration 9 on $np ranks" "$T/np$np.out" || fail "4 -> $np: did not resume at iteration 9"
    same_as_ref "$T/np$np.out" "window job restarted 4 -> $np ranks"
    # The restarted job checkpoints on: its lines complete (a line once
    # waited for window messages matched before the rank's own restore).
    grep -q "committed at safe point 60" "$T/np$np.out" ||
      fail "4 -> $np: the restarted window job committed no snapshot at safe point 60: $(grep dropped "$T/np$np.out" | tail -1)"
  done
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --recover auto --timeout 300 "$RMA" 48 200 plain 20000 \
    > "$T/job.out" 2>&1 &
  job=$!
  wait_for "$T/job.out" committed 2
  REF_SAVED=$REF
  reference 48 200
  recover_after_kill $job "$RMA 48 200" "kill -9 of a rank with a window under --recover auto"
  REF=$REF_SAVED
  # A value of a window registered per rank (different on each) cannot go
  # to another rank count: refused, naming it; the same count restarts.
  rm -rf "$T/store"
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --mca cr_keep 0 --timeout 300 "$RMA" 48 60 tagged > "$T/job.out" 2>&1 ||
    fail "checkpointed run with a per-rank window value failed"
  "$LZ" restart -np 2 --mca cr_keep 0 --timeout 300 "$(store_dir)"1 > "$T/refused.out" 2>&1 &&
    fail "a restart on 2 ranks took rank 0's per-rank window value for every rank"
  grep -q "variable 'tag' differs between the snapshot's 4 ranks.*LZ_Register_decomposed" "$T/refused.out" ||
    fail "the refusal does not name the variable and the fix: $(tail -3 "$T/refused.out")"
  "$LZ" restart --mca cr_keep 0 --timeout 300 "$(store_dir)"1 > "$T/same.out" 2>&1 ||
    fail "restart of the per-rank window value on 4 ranks failed"
  same_as_ref "$T/same.out" "per-rank window value restarted on 4 ranks"
  ;;
*) fail "unknown scenario $SCEN" ;;
esac
echo "PASS: $SCEN over $TRANSPORT"
