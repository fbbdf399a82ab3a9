#!/bin/bash
# Incremental application-level snapshots (cr=app, cr_incremental on) with
# real jobs of app_incremental.c, whose 4 MiB per rank change by a tenth
# between safe points:
#   chain    a snapshot at every safe point, every 5th in full: the others
#            hold about a tenth of the bytes and name what they depend on;
#            a restart from the middle of a chain, the store verified, a
#            damaged full snapshot makes the restart fall back past every
#            snapshot that depends on it, and cr_keep 1 keeps the newest
#            snapshot's bases;
#   recover  kill -9 of a rank under --recover auto restarts from a chain.
# Usage: app_incremental_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM
# Every job is bounded with --timeout; nothing measures wall-clock time.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
T=$(mktemp -d /tmp/lz-apptest.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
. "$(dirname "$0")/app_test_lib.sh"
MCA=(--mca transport "$TRANSPORT" --mca cr app --mca cr_incremental on --mca snapshot_root "$T/store")

# The manifest's line of snapshot SEQ.
snap_line() { grep -E "seq: $1," "$(store_dir)manifest.yaml"; }
bytes_of() { snap_line "$1" | grep -o 'total_bytes: [0-9]*' | awk '{ print $2 }'; }
depends_of() { snap_line "$1" | grep -o 'depends: \[[0-9, ]*\]'; }
reference() {  # ITERS -> $REF
  "$LZ" run -np 2 --mca transport "$TRANSPORT" --timeout 120 "$PROG" "$1" > "$T/ref.out" 2>&1 || fail "reference run failed"
  REF=$(result_of "$T/ref.out")
  [ -n "$REF" ] || fail "reference run printed no result"
}

case "$SCEN" in
chain)
  reference 12
  "$LZ" run -np 2 "${MCA[@]}" --mca cr_app_every 1 --mca cr_full_every 5 --mca cr_keep 0 --timeout 120 "$PROG" 12 50000 \
    > "$T/job.out" 2>&1 || fail "checkpointed run failed"
  same_as_ref "$T/job.out" "incremental snapshots at every safe point"
  [ "$(grep -c committed "$T/job.out")" = 12 ] || fail "expected 12 committed snapshots"
  full=$(bytes_of 1) inc=$(bytes_of 3) full6=$(bytes_of 6)
  echo "snapshot bytes: full $full, incremental (10 % changed) $inc, 6th (full again) $full6"
  python3 -c "import sys; f,i,g=map(int,sys.argv[1:]); sys.exit(0 if i <= 0.15*f and g >= 0.9*f else 1)" \
    "$full" "$inc" "$full6" || fail "an incremental snapshot holds $inc bytes of a full one's $full (goal <= 0.15), the 6th $full6"
  [ -z "$(depends_of 1)" ] || fail "the first snapshot depends on something: $(snap_line 1)"
  [ "$(depends_of 3)" = "depends: [1, 2]" ] || fail "snapshot 3 should depend on 1 and 2: $(snap_line 3)"
  [ -z "$(depends_of 6)" ] || fail "the 6th snapshot (cr_full_every 5) is not full: $(snap_line 6)"
  [ "$(depends_of 10)" = "depends: [6, 7, 8, 9]" ] || fail "snapshot 10 should depend on 6-9: $(snap_line 10)"
  "$LZ" snapshot verify "$(store_dir)" > "$T/verify.out" 2>&1 || fail "snapshot verify failed on a good store"
  "$LZ" snapshot show "$(store_dir)"3 > "$T/show.out" 2>&1 || fail "snapshot show failed"
  grep -q 'snapshot 3, .*unchanged blocks in snapshot 1, 2' "$T/show.out" || fail "show does not name snapshot 3's bases"
  # From the middle of the first chain (its blocks in snapshots 1-5).
  "$LZ" restart --mca cr_keep 0 --timeout 120 "$(store_dir)"5 > "$T/mid.out" 2>&1 || fail "restart from snapshot 5 failed"
  grep -q 'restarted at iteration 4' "$T/mid.out" || fail "restart from snapshot 5 did not resume at iteration 4"
  same_as_ref "$T/mid.out" "restart from snapshot 5 (a chain of 5)"
  # A damaged full snapshot: 12 and 11 (which hold blocks of it) are passed over.
  rm -rf "$T/store" && mkdir "$T/store"
  "$LZ" run -np 2 "${MCA[@]}" --mca cr_app_every 1 --mca cr_full_every 5 --mca cr_keep 0 --timeout 120 "$PROG" 12 50000 \
    > "$T/job2.out" 2>&1 || fail "second checkpointed run failed"
  f="$(store_dir)11/rank.1/rank.1.lzck"
  python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x10; open(p,'wb').write(b)" "$f"
  "$LZ" snapshot verify "$(store_dir)"12 > "$T/verify12.out" 2>&1 && fail "verify passed a snapshot whose base is damaged"
  grep -q "11/rank.1/rank.1.lzck" "$T/verify12.out" || fail "verify does not name the damaged base: $(cat "$T/verify12.out")"
  "$LZ" restart --mca cr_keep 0 --timeout 120 "$(store_dir)" > "$T/back.out" 2>&1 || fail "restart past the damaged base failed"
  grep -q 'restarted at iteration 9' "$T/back.out" || fail "the restart did not fall back to snapshot 10: $(grep -i skip "$T/back.out")"
  grep -q 'skipping.* 12' "$T/back.out" || fail "snapshot 12 was not reported skipped: $(grep -i skip "$T/back.out")"
  same_as_ref "$T/back.out" "restart past a damaged base"
  # cr_keep 1: the newest snapshot and the ones it depends on stay.
  rm -rf "$T/store" && mkdir "$T/store"
  "$LZ" run -np 2 "${MCA[@]}" --mca cr_app_every 1 --mca cr_full_every 5 --mca cr_keep 1 --timeout 120 "$PROG" 13 50000 \
    > "$T/job3.out" 2>&1 || fail "run with cr_keep 1 failed"
  kept=$(cd "$(store_dir)" && ls -d [0-9]* | sort -n | tr '\n' ' ')
  [ "$kept" = "11 12 13 " ] || fail "cr_keep 1 kept snapshots '$kept', not the newest (13) and its bases (11 12)"
  reference 13
  "$LZ" restart --mca cr_keep 0 --timeout 120 "$(store_dir)" > "$T/kept.out" 2>&1 || fail "restart from the kept chain failed"
  grep -q 'restarted at iteration 12' "$T/kept.out" || fail "the restart did not use snapshot 13"
  same_as_ref "$T/kept.out" "restart from the newest snapshot kept with its bases"
  ;;
recover)
  reference 40
  "$LZ" run -np 2 "${MCA[@]}" --mca cr_app_every 2 --mca cr_full_every 4 --mca cr_keep 2 --recover auto --timeout 120 \
    "$PROG" 40 100000 > "$T/job.out" 2>&1 &
  job=$!
  for i in $(seq 1 600); do [ "$(grep -c committed "$T/job.out")" -ge 6 ] && break; sleep 0.1; done
  [ "$(grep -c committed "$T/job.out")" -ge 6 ] || fail "fewer than 6 snapshots committed in 60 s"
  victim=$(pgrep -f "^$PROG 40" | shuf -n 1)
  [ -n "$victim" ] || fail "no rank to kill"
  kill -9 "$victim"
  wait $job || fail "the job did not recover after kill -9 of rank pid $victim"
  grep -q 'restarting from snapshot' "$T/job.out" || fail "no restart after kill -9"
  same_as_ref "$T/job.out" "kill -9 under --recover auto with incremental snapshots"
  # Core images stay full, and the job says so (where cr=criu runs at all).
  if "$LZ" info --mca cr criu > /dev/null 2>&1; then
    "$LZ" run -np 2 --mca transport "$TRANSPORT" --mca cr criu --mca cr_incremental on --mca snapshot_root "$T/store2" \
      --timeout 60 "$PROG" 1 > "$T/criu.out" 2>&1 || fail "a cr=criu job with cr_incremental on failed"
    grep -q 'cr_incremental on has no effect under cr=criu' "$T/criu.out" ||
      fail "a cr=criu job with cr_incremental on was not told its snapshots stay full"
  fi
  ;;
*) fail "unknown scenario $SCEN" ;;
esac
echo "PASS: $SCEN over $TRANSPORT"
