#!/bin/bash
# hosts.restart.* and hosts.recover.*: checkpoint/restart across hosts
# (issue 13 part 3) on scripts/test_hosts namespace hosts, over ssh.
# Usage: restart_test.sh PATH/TO/test_hosts BUILD_DIR CASE
# CASE:
#   criu     a 4-rank cr_iter job on h0:2,h1:2 (launcher on h0) is stopped by
#            `lazarus checkpoint --term`; `lazarus restart --host h1:2,h2:2`
#            from h1 restores ranks 0, 1 on h1 (the launcher's own restore)
#            and 2, 3 on h2 through h2's helper; the result is an
#            uninterrupted run's.
#   app      the stencil under cr=app on h0:2,h1:2 writes snapshots; the
#            restart from the first one on h1:2,h2:2 (launcher on h0: every
#            rank remote) resumes at its iteration with the right result.
#   recover  cr_iter on h0:2,h1:1,h2:1 under --recover auto
#            --checkpoint-interval; once a snapshot is committed the helper
#            of h2 is killed (the host "dies"): the launcher says h2 is
#            gone, which rank moved where and that it oversubscribes (4
#            ranks on 3 slots), restores on h0 and h1, and the job finishes
#            with the right result.
#   link     the same, but h2's link goes down (ip link set eth0 down in its
#            namespace) instead: with launch_helper_keepalive 3 the launcher
#            takes h2's silent helper for lost and recovers as above; h2's
#            helper, cut off as well, kills its ranks by itself.
#   files    cr_files.c on h0:1,h1:1 checkpointed, going on, stopped with
#            --term; restarted from the first snapshot on h1:1,h2:1: every
#            file it keeps open is rolled back (rank 1's by h2's helper) and
#            ends byte for byte as an uninterrupted run's.
#   mpiio    the same with cr_mpiio.c's files open through MPI-IO (a view's
#            individual pointer, the shared pointer in rank 0's window,
#            collective and non-blocking writes).
# After every job no process of it is left on any host. Skips (77) only
# where namespaces or CRIU cannot work here.
set -u
TH=$1
B=$2
CASE=$3
LZ=$B/bin/lazarus
D=$(mktemp -d /tmp/lz-hrs.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; "$TH" down "$D" >/dev/null 2>&1; rm -rf "$D"' EXIT
fail() {
  echo "FAIL ($CASE): $*"
  for f in "$D"/*.out "$D"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -40 "$f"; }; done
  exit 1
}

if [ "$CASE" != app ]; then
  [ "$(id -u)" = 0 ] || { echo "SKIP: CRIU needs root"; exit 77; }
  "$LZ" info --mca cr criu >/dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here (lazarus info --mca cr criu)"; exit 77; }
fi
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3
STORE=$D/store
CR_ITER=$B/tests/cr/cr_iter
# cr_iter's 20 ms pauses (tests/integration/cr/cr_pace.h) end once the file
# CR_ITER_RELEASE names exists: the references run released from the start,
# a job once its checkpoint or failure has happened.
touch "$D/ref.release"
REF_ENV=(-x CR_ITER_RELEASE="$D/ref.release") JOB_ENV=(-x CR_ITER_RELEASE="$D/release")
STENCIL=$B/tests/app/stencil
store_dir() { ls -d "$STORE"/*/ 2>/dev/null | head -1; }
wait_for() {  # file pattern
  local i
  for i in $(seq 1 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  fail "no '$2' in $1 after 60 s"
}

# The job $job (log.0 in $D/job) on h0+h1: a checkpoint once rank 0 has
# logged 60 lines (its snapshot -> $snap1), the job going on, then a
# checkpoint --term at 150 lines; nothing of it is left on any host.
checkpoint_then_term() {
  local id i
  id=$(job_of $job "${H[0]},${H[1]}") || fail "the job did not appear in lazarus ps"
  lines() { wc -l < "$D/job/log.0" 2>/dev/null || echo 0; }
  for i in $(seq 1 600); do [ "$(lines)" -ge 60 ] && break; sleep 0.05; done
  "$LZ" checkpoint "$id" --wait >"$D/ck1.out" 2>&1 || fail "checkpoint failed: $(cat "$D/ck1.out")"
  snap1=$(grep -o 'committed: [^ ]*' "$D/ck1.out" | cut -d' ' -f2)
  for i in $(seq 1 600); do [ "$(lines)" -ge 150 ] && break; sleep 0.05; done
  "$LZ" checkpoint "$id" --term --wait >"$D/ck2.out" 2>&1 || fail "checkpoint --term failed: $(cat "$D/ck2.out")"
  wait $job || fail "the job stopped by --term exited $?"
  grep -q result "$D/job.out" && fail "the job finished before the --term checkpoint"
  no_leftovers "checkpoint --term"
}

case $CASE in
  criu)
    ITERS=300
    "$LZ" run -np 4 --timeout 120 "${REF_ENV[@]}" "$CR_ITER" $ITERS >"$D/ref.out" 2>&1 || fail "reference run failed"
    REF=$(grep -o 'result [0-9]*' "$D/ref.out")
    [ -n "$REF" ] || fail "the reference run printed no result"
    on 0 "$LZ" run --host "${H[0]}:2,${H[1]}:2" -np 4 --mca launch_agent "$AGENT" --mca cr criu \
      --mca snapshot_root "$STORE" --timeout 120 "${JOB_ENV[@]}" "$CR_ITER" $ITERS >"$D/job.out" 2>"$D/job.err" &
    job=$!
    id=$(job_of $job "${H[0]},${H[1]}") || fail "the job did not appear in lazarus ps"
    sleep 1  # past MPI_Init, in the ring
    "$LZ" checkpoint "$id" --term --wait >"$D/ck.out" 2>&1 || fail "checkpoint --term failed: $(cat "$D/ck.out")"
    wait $job; st=$?
    [ $st = 0 ] || fail "the job stopped by --term exited $st"
    grep -q result "$D/job.out" && fail "the job finished before the --term checkpoint"
    touch "$D/release"
    no_leftovers "checkpoint --term"
    on 1 "$LZ" restart "$(store_dir)" --host "${H[1]}:2,${H[2]}:2" --mca launch_agent "$AGENT" --timeout 120 \
      >"$D/rs.out" 2>"$D/rs.err" || fail "restart on ${H[1]}, ${H[2]} failed"
    grep -q "restoring job .* on hosts ${H[1]}:2,${H[2]}:2" "$D/rs.err" || fail "the restart did not place ranks on ${H[1]}:2,${H[2]}:2"
    got=$(grep -o 'result [0-9]*' "$D/rs.out")
    [ "$got" = "$REF" ] || fail "restarted on ${H[1]}+${H[2]}: '$got', uninterrupted run '$REF'"
    no_leftovers restart
    echo "hosts.restart.criu: checkpointed on ${H[0]}+${H[1]}, restored on ${H[1]}+${H[2]}: $got as uninterrupted"
    ;;
  app)
    "$LZ" run -np 4 --timeout 120 "$STENCIL" 64 60 >"$D/ref.out" 2>&1 || fail "reference run failed"
    REF=$(grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$D/ref.out")
    [ -n "$REF" ] || fail "the reference run printed no result"
    on 0 "$LZ" run --host "${H[0]}:2,${H[1]}:2" -np 4 --mca launch_agent "$AGENT" --mca cr app --mca cr_app_every 25 \
      --mca cr_keep 0 --mca snapshot_root "$STORE" --timeout 120 "$STENCIL" 64 60 >"$D/job.out" 2>&1 ||
      fail "the checkpointed run on ${H[0]}+${H[1]} failed"
    no_leftovers "checkpointed run"
    on 0 "$LZ" restart "$(store_dir)1" --host "${H[1]}:2,${H[2]}:2" --mca launch_agent "$AGENT" --timeout 120 \
      >"$D/rs.out" 2>&1 || fail "restart on ${H[1]}, ${H[2]} failed"
    grep -q "restoring job .* on hosts ${H[1]}:2,${H[2]}:2" "$D/rs.out" || fail "the restart did not place ranks on ${H[1]}:2,${H[2]}:2"
    grep -q "restarted at iteration 24 on 4 ranks" "$D/rs.out" || fail "did not resume at iteration 24"
    got=$(grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$D/rs.out")
    [ "$got" = "$REF" ] || fail "restarted on ${H[1]}+${H[2]}: '$got', uninterrupted run '$REF'"
    no_leftovers restart
    echo "hosts.restart.app: written on ${H[0]}+${H[1]}, restarted on ${H[1]}+${H[2]} at iteration 24: $got as uninterrupted"
    ;;
  recover | link)
    ITERS=300
    "$LZ" run -np 4 --timeout 120 "${REF_ENV[@]}" "$CR_ITER" $ITERS >"$D/ref.out" 2>&1 || fail "reference run failed"
    REF=$(grep -o 'result [0-9]*' "$D/ref.out")
    [ -n "$REF" ] || fail "the reference run printed no result"
    on 0 "$LZ" run --host "${H[0]}:2,${H[1]}:1,${H[2]}:1" -np 4 --mca launch_agent "$AGENT" --mca cr criu \
      --mca snapshot_root "$STORE" --mca launch_helper_keepalive 3 --checkpoint-interval 1s --recover auto \
      --timeout 200 "${JOB_ENV[@]}" "$CR_ITER" $ITERS >"$D/job.out" 2>"$D/job.err" &
    job=$!
    wait_for "$D/job.err" "snapshot 1 committed"
    if [ "$CASE" = recover ]; then
      hp=""
      for p in $(ip netns pids "${H[2]}"); do
        case "$(tr '\0' ' ' 2>/dev/null < /proc/$p/cmdline)" in *" helper --job "*) hp=$p ;; esac
      done
      [ -n "$hp" ] || fail "no helper on ${H[2]}"
      on 2 kill -9 "$hp"
      why="closed its connection to the launcher (connection closed by the helper)"
    else
      on 2 ip link set eth0 down
      why="closed its connection to the launcher (connection error: Connection timed out)"
    fi
    touch "$D/release"
    wait $job; st=$?
    [ $st = 0 ] || fail "the recovered job exited $st"
    grep -q "the helper on host ${H[2]} $why" "$D/job.err" || fail "the lost helper was not named ($why)"
    grep -q "restarting from snapshot" "$D/job.err" || fail "no recovery"
    grep -q "host ${H[2]} is gone; re-mapping the job's ranks onto the remaining hosts: rank 3 ${H[2]} -> ${H[0]}" \
      "$D/job.err" || fail "the launcher did not say that rank 3 moved from ${H[2]} to ${H[0]}"
    grep -q "oversubscribing: 4 ranks on the 3 slots left" "$D/job.err" || fail "the launcher did not say it oversubscribes"
    grep -q "restoring job .* on hosts ${H[0]}:3,${H[1]}:1" "$D/job.err" || fail "not restored on ${H[0]}:3,${H[1]}:1"
    got=$(grep -o 'result [0-9]*' "$D/job.out" | tail -1)
    [ "$got" = "$REF" ] || fail "recovered on ${H[0]}+${H[1]}: '$got', uninterrupted run '$REF'"
    if [ "$CASE" = link ]; then
      # h2's helper heard nothing from the launcher either: it killed its
      # ranks and exited by itself (within its keepalive, long over by now).
      for _ in $(seq 1 100); do
        left=$(for p in $(ip netns pids "${H[2]}"); do tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null; echo; done | grep -v sshd | grep .)
        [ -z "$left" ] && break
        sleep 0.1
      done
    fi
    no_leftovers "$CASE"
    echo "hosts.recover.$([ $CASE = recover ] && echo criu || echo link): ${H[2]} lost ($why), rank 3 moved to ${H[0]} (oversubscribed), $got as uninterrupted"
    ;;
  files)
    # The program's own files (cr_files.c: a log appended to, a status
    # rewritten in place, pwrite'd records, shared mappings, OpenMP and a
    # child's output, stdin from a file) after a restart on other hosts, in
    # the directory the job ran in: byte for byte an uninterrupted run's.
    CR_FILES=$B/tests/cr/cr_files
    TAG=$(basename "$D")
    ITERS=300
    seq 1 1000 >"$D/input"
    mkdir -p "$D/ref" "$D/job"
    (cd "$D/ref" && "$LZ" run -np 2 --mca cr none --timeout 120 "$CR_FILES" $ITERS "${TAG}r" <"$D/input" >"$D/ref.out" 2>&1) ||
      fail "reference run failed"
    (cd "$D/job" && on 0 "$LZ" run --host "${H[0]}:1,${H[1]}:1" -np 2 --mca launch_agent "$AGENT" --mca cr criu \
      --mca snapshot_root "$STORE" --timeout 120 "$CR_FILES" $ITERS "$TAG" <"$D/input" >"$D/job.out" 2>"$D/job.err") &
    job=$!
    checkpoint_then_term
    (cd / && on 1 "$LZ" restart "$snap1" --host "${H[1]}:1,${H[2]}:1" --mca launch_agent "$AGENT" --timeout 120 \
      >"$D/rs.out" 2>"$D/rs.err") || fail "restart on ${H[1]}, ${H[2]} failed"
    grep -q "rank 1: $D/job/log.1: truncated to its size at the checkpoint" "$D/rs.err" ||
      fail "the remote rank's log was not rolled back on ${H[2]}"
    for r in 0 1; do
      for f in log status data map shm omp child; do
        cmp "$D/ref/$f.$r" "$D/job/$f.$r" >/dev/null 2>&1 || fail "$f.$r differs from an uninterrupted run's: $(cmp "$D/ref/$f.$r" "$D/job/$f.$r" 2>&1)"
      done
    done
    got=$(grep -o 'result [0-9]*' "$D/rs.out")
    [ "$got" = "$(grep -o 'result [0-9]*' "$D/ref.out")" ] || fail "restarted result '$got'"
    no_leftovers restart
    rm -f /dev/shm/lzcrf."$TAG".* /dev/shm/lzcrf."$TAG"r.*
    echo "hosts.restart.files: checkpointed on ${H[0]}+${H[1]}, restored from the first snapshot on ${H[1]}+${H[2]}: every file as uninterrupted"
    ;;
  mpiio)
    # Files open through MPI-IO (cr_mpiio.c: an interleaving view at the
    # individual pointer, ordered writes at the shared pointer held in rank
    # 0's window, collective writes read back, an iwrite in flight) after a
    # restart on other hosts: the shared pointer's window moves with rank 0
    # and is reached by messages between the hosts; every file byte for
    # byte an uninterrupted run's.
    CR_MPIIO=$B/tests/cr/cr_mpiio
    ITERS=300
    mkdir -p "$D/ref" "$D/job"
    (cd "$D/ref" && "$LZ" run -np 2 --mca cr none --timeout 120 -x CR_ITER_RELEASE=/ "$CR_MPIIO" $ITERS ref \
      >"$D/ref.out" 2>&1) || fail "reference run failed"
    (cd "$D/job" && on 0 "$LZ" run --host "${H[0]}:1,${H[1]}:1" -np 2 --mca launch_agent "$AGENT" --mca cr criu \
      --mca snapshot_root "$STORE" --timeout 120 -x CR_ITER_RELEASE="$D/release" "$CR_MPIIO" $ITERS job \
      >"$D/job.out" 2>"$D/job.err") &
    job=$!
    checkpoint_then_term
    touch "$D/release"
    (cd / && on 1 "$LZ" restart "$snap1" --host "${H[1]}:1,${H[2]}:1" --mca launch_agent "$AGENT" --timeout 120 \
      >"$D/rs.out" 2>"$D/rs.err") || fail "restart on ${H[1]}, ${H[2]} failed"
    grep -q "$D/job/shared.out: truncated to its size at the checkpoint" "$D/rs.err" ||
      fail "shared.out was not rolled back: $(cat "$D/rs.err")"
    for f in ind.out shared.out coll.out nb.out log.0 log.1; do
      cmp "$D/ref/$f" "$D/job/$f" >/dev/null 2>&1 || fail "$f differs from an uninterrupted run's: $(cmp "$D/ref/$f" "$D/job/$f" 2>&1)"
    done
    got=$(grep -o 'result [0-9]*' "$D/rs.out")
    [ "$got" = "$(grep -o 'result [0-9]*' "$D/ref.out")" ] || fail "restarted result '$got'"
    no_leftovers restart
    echo "hosts.restart.mpiio: checkpointed on ${H[0]}+${H[1]}, restored from the first snapshot on ${H[1]}+${H[2]}: every MPI file as uninterrupted"
    ;;
  *) fail "unknown case" ;;
esac
