#!/bin/bash
# Checkpoint/restart integration scenarios with real jobs: checkpoint and
# continue, --term and restart, --recover auto (from a snapshot or from the
# start), corrupted and cut-short snapshots, launcher deaths, a criu helper
# killed mid-dump, a full store.
# Usage: cr_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM
# Every job is bounded with --timeout; nothing measures wall-clock time.
# Skips (exit 77, "SKIP:") only when CRIU cannot work here, saying why.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
NP=4
ITERS=${CR_TEST_ITERS:-250}
T=$(mktemp -d /tmp/lz-crtest.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
MCA=(--mca transport "$TRANSPORT" --mca cr criu --mca snapshot_root "$T/store")

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; for f in "$T"/*.out "$T"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done; exit 1; }

info=$("$LZ" info --mca cr criu 2>&1) || skip "cr/criu is unavailable here: $(echo "$info" | grep -i 'criu' | head -2 | tr '\n' ' ')"

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
. "$(dirname "$0")/../../support/proc_tree.sh"
# SIGKILLs the launcher ($JOB_PID) and fails unless every process of its
# tree, recorded just before, is gone within 10 s. $1 says when, for the message.
kill_launcher_expect_tree_gone() {
  local tree left i
  tree=$(tree_of $JOB_PID)
  echo "$tree" | grep -q . || fail "no process under the launcher"
  kill -9 $JOB_PID; wait $JOB_PID 2>/dev/null
  for i in $(seq 1 100); do
    left=$(still_alive $tree)
    [ -z "$left" ] && break
    sleep 0.1
  done
  [ -z "$left" ] || fail "10 s after SIGKILL of the launcher $1 these of its processes remain:
$(for p in $left; do ps -o pid=,ppid=,stat=,nlwp=,args= -p "${p%%:*}"; done)"
}
job_file() { ls "${XDG_RUNTIME_DIR:-/nonexistent}/lazarus/jobs/$1.json" /tmp/lazarus-$(id -u)/jobs/$1.json 2>/dev/null | head -1; }
rank_pids() { grep -o '"pid": [0-9]*' "$(job_file "$1")" | awk '{ print $2 }'; }
store_dir() { ls -d "$T"/store/*/ 2>/dev/null | head -1; }
. "$(dirname "$0")/../../support/reference_run.sh"
reference() {
  reference_run "$T/ref" "$(basename "$PROG").np$NP.it$ITERS.${TRANSPORT//,/_}" "$PROG" \
    "$LZ" run -np $NP --mca transport "$TRANSPORT" --timeout 300 "$PROG" "$ITERS" || fail "reference run failed"
  REF=$(result_of "$T/ref/out")
  [ -n "$REF" ] || fail "reference run printed no result"
}
# The job's 20 ms pauses (cr_pace.h) keep it alive for the checkpoints;
# release_job ends them once nothing more needs it alive, so the rest of the
# run and every restart go at full speed instead of waiting on the timer.
release_job() { touch "$T/release"; }
start_job() {  # extra args -> $JOB_PID, $JOB_ID
  rm -f "$T/release"
  "$LZ" run -np $NP "${MCA[@]}" --timeout 300 -x CR_ITER_RELEASE="$T/release" "$@" "$PROG" "$ITERS" ${STALL:-} \
    > "$T/job.out" 2> "$T/job.err" &
  JOB_PID=$!
  JOB_ID=$(wait_for_job $JOB_PID) || fail "job did not appear in lazarus ps"
}

case "$SCEN" in
ps)
  start_job
  "$LZ" ps > "$T/ps.out" 2>&1
  grep -q "^$JOB_ID *$JOB_PID *$NP .*cr_iter" "$T/ps.out" || fail "lazarus ps does not list job $JOB_ID: $(cat "$T/ps.out")"
  kill -TERM $JOB_PID; wait $JOB_PID
  "$LZ" ps | grep -q "^$JOB_ID " && fail "job $JOB_ID still listed after its end"
  ;;
continue|blocked)
  reference
  [ "$SCEN" = blocked ] && STALL=40
  start_job
  if [ "$SCEN" = blocked ]; then
    for i in $(seq 1 300); do grep -q stalling "$T/job.out" && break; sleep 0.05; done
    sleep 0.5
  fi
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck.out" 2>&1 || fail "checkpoint failed: $(cat "$T/ck.out")"
  grep -q "snapshot 1 committed" "$T/ck.out" || fail "no commit line: $(cat "$T/ck.out")"
  release_job
  wait $JOB_PID || fail "job failed after the checkpoint (status $?)"
  if [ "$SCEN" = blocked ]; then
    # The stall changes nothing in the arithmetic: same result as a plain run.
    :
  fi
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") != reference $REF"
  ;;
nbc|pcoll|inter|threads)
  # The job continues after one checkpoint, stops after another (--term) and
  # restarts from it and from the first, and every result is the plain
  # reference's, while:
  #   nbc: each iteration leaves an MPI_Iallreduce in flight across its pause
  #        (the checkpoints land while non-blocking collectives are under way);
  #   pcoll: the same with a persistent MPI_Allreduce_init started each time;
  #   inter: the same over an intercommunicator between even and odd ranks;
  #   threads: MPI_THREAD_MULTIPLE, a second thread per rank communicating
  #        all the while (cr_iter.c).
  reference
  case $SCEN in
    nbc) start_job -x CR_ITER_NBC=1 ;;
    pcoll) start_job -x CR_ITER_NBC=2 ;;
    inter) start_job -x CR_ITER_INTER=1 ;;
    threads) start_job -x CR_ITER_THREADS=1 ;;
  esac
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck.out" 2>&1 || fail "checkpoint ($SCEN) failed: $(cat "$T/ck.out")"
  "$LZ" checkpoint "$JOB_ID" --term --wait > "$T/ck2.out" 2>&1 || fail "checkpoint --term failed: $(cat "$T/ck2.out")"
  wait $JOB_PID || fail "job stopped by --term exited $?"
  grep -q result "$T/job.out" && fail "the job finished before the --term checkpoint"
  release_job
  "$LZ" restart "$(store_dir)" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart failed"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "restarted result $(result_of "$T/rs.out") != reference $REF"
  "$LZ" restart "$(store_dir)/1" --timeout 300 > "$T/rs1.out" 2> "$T/rs1.err" || fail "restart from snapshot 1 failed"
  [ "$(result_of "$T/rs1.out")" = "$REF" ] || fail "result from snapshot 1 $(result_of "$T/rs1.out") != reference $REF"
  ;;
large)
  # Large messages in flight (cr_bigring: a ring of 1 MiB messages, so
  # rendezvous and gets are under way when the checkpoints land): three
  # checkpoints the job continues from, a fourth with --term and a restart
  # from it; every result is the reference's. Over UCX's tcp a peer's
  # endpoint error seen while it released its worker failed the job after
  # a continue, about one checkpoint in three.
  ITERS=400
  reference
  start_job
  for n in 1 2 3; do
    "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck$n.out" 2>&1 || fail "checkpoint $n failed: $(cat "$T/ck$n.out")"
  done
  "$LZ" checkpoint "$JOB_ID" --term --wait > "$T/ck4.out" 2>&1 || fail "checkpoint --term failed: $(cat "$T/ck4.out")"
  wait $JOB_PID || fail "job stopped by --term exited $?"
  grep -q result "$T/job.out" && fail "the job finished before the --term checkpoint"
  release_job
  "$LZ" restart "$(store_dir)" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart failed"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "restarted result $(result_of "$T/rs.out") != reference $REF"
  ;;
term)
  reference
  start_job
  "$LZ" checkpoint "$JOB_ID" --term --wait > "$T/ck.out" 2>&1 || fail "checkpoint --term failed: $(cat "$T/ck.out")"
  wait $JOB_PID; st=$?
  [ $st = 0 ] || fail "job stopped by --term exited $st"
  grep -q result "$T/job.out" && fail "the job finished before the --term checkpoint"
  release_job
  "$LZ" restart "$(store_dir)" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart failed"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "restarted result $(result_of "$T/rs.out") != reference $REF"
  ;;
concurrent)
  reference
  start_job
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck.out" 2>&1 || fail "checkpoint failed: $(cat "$T/ck.out")"
  snap=$(grep -o 'committed: [^ ]*' "$T/ck.out" | cut -d' ' -f2)
  kill -0 $JOB_PID || fail "the original job is no longer running"
  "$LZ" restart "$snap" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart while the original runs failed"
  wait $JOB_PID || fail "original job failed"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "restarted result differs from the reference"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "original result differs from the reference"
  ;;
recover)
  reference
  start_job --checkpoint-interval 1s --recover auto
  for i in $(seq 1 300); do grep -q "snapshot 2 committed" "$T/job.err" && break; sleep 0.1; done
  grep -q "snapshot 2 committed" "$T/job.err" || fail "no periodic snapshot"
  victim=$(rank_pids "$JOB_ID" | awk -v r=$((RANDOM % NP + 1)) 'NR == r')
  [ -n "$victim" ] || fail "cannot find a rank pid"
  kill -9 "$victim"
  release_job
  wait $JOB_PID || fail "recovered job failed (status $?)"
  grep -q "restarting from snapshot" "$T/job.err" || fail "no recovery message"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "recovered result $(result_of "$T/job.out") != reference $REF"
  ;;
recover_from_start)
  # A rank dies before the job's first snapshot (as one does when its criu
  # helper is killed while driving CRIU's code inside it): --recover auto runs
  # the job again from the start, within --max-restarts, and says so.
  reference
  start_job --recover auto --max-restarts 1
  victim=$(rank_pids "$JOB_ID" | sed -n 3p)
  [ -n "$victim" ] || fail "cannot find a rank pid"
  kill -9 "$victim"
  release_job
  wait $JOB_PID || fail "the job run again from the start failed (status $?)"
  grep -q "no snapshot of this job exists yet: running it again from the start (restart 1 of 1)" "$T/job.err" ||
    fail "no message about running the job again from the start"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") != reference $REF"
  # Without restarts left the job ends with the rank's death, saying why.
  start_job --recover auto --max-restarts 0
  victim=$(rank_pids "$JOB_ID" | sed -n 2p)
  [ -n "$victim" ] || fail "cannot find a rank pid"
  kill -9 "$victim"
  wait $JOB_PID && fail "the job succeeded although a rank was killed and --max-restarts is 0"
  grep -q "not running it again: --max-restarts 0 reached" "$T/job.err" ||
    fail "no message about the exhausted restarts: $(tail -3 "$T/job.err")"
  ;;
launcher_killed)
  reference
  # 256 MiB per rank: the second dump takes long enough to be caught.
  start_job -x CR_ITER_BALLAST_MB=256
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck1.out" 2>&1 || fail "first checkpoint failed: $(cat "$T/ck1.out")"
  ranks=$(rank_pids "$JOB_ID")
  "$LZ" checkpoint "$JOB_ID" > "$T/ck2.out" 2>&1 || fail "second checkpoint refused: $(cat "$T/ck2.out")"
  # Kill the launcher while snapshot 2 is being written (its .partial
  # directory holds a rank's image files).
  for i in $(seq 1 500); do
    ls "$(store_dir)"/2.partial/rank.*/pages-*.img > /dev/null 2>&1 && break
    sleep 0.01
  done
  # Every rank and criu helper dumping them goes with the launcher.
  kill_launcher_expect_tree_gone "during a checkpoint"
  release_job
  [ -d "$(store_dir)"/2 ] && fail "the launcher was killed too late: snapshot 2 was committed"
  [ -d "$(store_dir)"/2.partial ] || fail "the launcher was not killed during the checkpoint (no 2.partial)"
  ls -d "$(store_dir)"/1 > /dev/null || fail "snapshot 1 is gone"
  "$LZ" restart "$(store_dir)" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart from the previous snapshot failed"
  grep -q "from snapshot 1 " "$T/rs.err" || fail "did not restart from snapshot 1: $(cat "$T/rs.err")"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "restarted result differs"
  ;;
corrupt)
  reference
  start_job --checkpoint-interval 1s --recover auto
  for i in $(seq 1 300); do grep -q "snapshot 2 committed" "$T/job.err" && break; sleep 0.1; done
  grep -q "snapshot 2 committed" "$T/job.err" || fail "no second snapshot"
  "$LZ" checkpoint "$JOB_ID" --term --wait > "$T/ck.out" 2>&1 || fail "checkpoint --term failed"
  wait $JOB_PID
  release_job
  newest=$(ls -d "$(store_dir)"/[0-9]* | sort -t/ -k2 -V | tail -1)
  victim=$(ls "$newest"/rank.1/pages-*.img | head -1)
  printf 'garbage' | dd of="$victim" bs=1 seek=100 conv=notrunc 2> /dev/null
  "$LZ" restart "$newest" --timeout 60 > "$T/bad.out" 2> "$T/bad.err" && fail "a corrupted snapshot was restarted"
  grep -q "$(basename "$victim")" "$T/bad.err" || fail "the refusal does not name the file: $(cat "$T/bad.err")"
  "$LZ" restart "$(store_dir)" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "fallback restart failed"
  grep -q "skipping" "$T/rs.err" || fail "no message about the skipped snapshot"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "fallback result differs"
  ;;
corrupt_recover)
  # --recover auto when the newest snapshot is damaged: the launcher names the
  # file, falls back to the previous snapshot and still gets the right result.
  reference
  start_job --recover auto
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck1.out" 2>&1 || fail "checkpoint 1 failed: $(cat "$T/ck1.out")"
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck2.out" 2>&1 || fail "checkpoint 2 failed: $(cat "$T/ck2.out")"
  victim_file=$(ls "$(store_dir)"/2/rank.2/pages-*.img | head -1)
  [ -n "$victim_file" ] || fail "snapshot 2 has no page image for rank 2"
  printf 'garbage' | dd of="$victim_file" bs=1 seek=100 conv=notrunc 2> /dev/null
  victim=$(rank_pids "$JOB_ID" | sed -n 2p)
  [ -n "$victim" ] || fail "cannot find a rank pid"
  kill -9 "$victim"
  release_job
  wait $JOB_PID || fail "recovered job failed (status $?)"
  grep -q "$(basename "$victim_file")" "$T/job.err" || fail "the skipped snapshot's file is not named"
  grep -q "restarting from snapshot 1" "$T/job.err" || fail "did not fall back to snapshot 1"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "recovered result $(result_of "$T/job.out") != reference $REF"
  ;;
recover_killed)
  # SIGKILL of the user's launcher after an automatic restart ends the whole
  # job: the restart launcher (pid 1 of its PID namespace) and the restored
  # ranks. Checked by the launcher's process tree, not by name.
  ITERS=1500   # ~30 s: still running when the launcher is killed
  start_job --checkpoint-interval 1s --recover auto
  for i in $(seq 1 300); do grep -q "snapshot 1 committed" "$T/job.err" && break; sleep 0.1; done
  grep -q "snapshot 1 committed" "$T/job.err" || fail "no periodic snapshot"
  victim=$(rank_pids "$JOB_ID" | sed -n 2p)
  [ -n "$victim" ] || fail "cannot find a rank pid"
  kill -9 "$victim"
  for i in $(seq 1 300); do grep -q "restarting from snapshot" "$T/job.err" && break; sleep 0.1; done
  grep -q "restarting from snapshot" "$T/job.err" || fail "no automatic restart"
  # The restored job: the launcher's tree holds the restart launcher and NP ranks.
  for i in $(seq 1 100); do
    tree=$(tree_of $JOB_PID)
    [ "$(echo "$tree" | wc -w)" -ge $((NP + 1)) ] && break
    sleep 0.1
  done
  [ "$(echo "$tree" | wc -w)" -ge $((NP + 1)) ] || fail "restarted job not found under the launcher: $tree"
  sleep 1
  kill_launcher_expect_tree_gone "after an automatic restart"
  ;;
criu_killed)
  # A criu helper dies (SIGKILL) while it dumps a rank: that checkpoint fails.
  # The rank survives when criu died while its parasite served page requests
  # (the parasite cures itself; the SIGPIPE it raised on the way is discarded,
  # cr/criu's DumpSigpipeGuard) and dies of the int3 criu's parasite ends with
  # when criu died while driving it step by step: nothing can cure that, the
  # thread's own registers were in criu. So the job runs under --recover auto
  # with snapshot 1 taken first: either it goes on and its next checkpoint
  # commits, or it restarts from snapshot 1; the result is right either way,
  # and no rank ever dies of SIGPIPE (it did before the guard).
  # The helpers are found through a cr_criu_binary that notes its pid and
  # execs the real criu (the helper is that criu, same pid); they are killed
  # once a rank's pages image in N.partial passes 1 MiB, i.e. mid-dump.
  # Walking the process tree instead was too slow on a loaded machine: the
  # dump had ended before the helper was found.
  reference
  real=$("$LZ" info --param cr criu 2>/dev/null | awk '$1 == "cr_criu_binary" { print $3 }')
  [ -x "$real" ] || fail "cannot find the criu binary in lazarus info: '$real'"
  mkdir "$T/helpers"
  printf '#!/bin/sh\n[ "$1" = swrk ] && echo > %s/helpers/$$\nexec %s "$@"\n' "$T" "$real" > "$T/criu"
  chmod +x "$T/criu"
  MCA+=(--mca cr_criu_binary "$T/criu")
  # 256 MiB per rank: a dump takes long enough to be caught.
  start_job -x CR_ITER_BALLAST_MB=256 --recover auto
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck1.out" 2>&1 || fail "checkpoint 1 failed: $(cat "$T/ck1.out")"
  caught=""
  # A dump that ends before its helpers are killed is a missed attempt (its
  # snapshot is good); three misses in a row fail the test.
  for n in 2 3 4; do
    rm -f "$T"/helpers/*
    "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck$n.out" 2>&1 &
    ck=$!
    killed=""
    for i in $(seq 1 3000); do
      if [ -n "$(find "$(store_dir)/$n.partial" -name 'pages-*.img' -size +1M 2>/dev/null | head -1)" ]; then
        for f in "$T"/helpers/*; do
          p=${f##*/}
          st=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -d' ' -f1)
          [ -n "$st" ] && [ "$st" != Z ] && kill -9 "$p" 2>/dev/null && killed="$killed $p"
        done
        break
      fi
      kill -0 $ck 2>/dev/null || break
      sleep 0.01
    done
    if [ -n "$killed" ]; then
      wait $ck && fail "checkpoint $n committed although its criu helpers ($killed) were killed while dumping"
      caught=$n
      break
    fi
    wait $ck || fail "checkpoint $n failed with no helper killed: $(cat "$T/ck$n.out")"
    echo "checkpoint $n ended before its helpers could be killed; again"
  done
  [ -n "$caught" ] || fail "three dumps ended before their criu helpers could be killed"
  if "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck_after.out" 2>&1; then
    echo "the job went on; the checkpoint after the killed helpers committed"
    wait $JOB_PID || fail "the job failed after its criu helpers were killed (status $?)"
  else
    # Only a rank that died with its helper excuses a failed checkpoint.
    wait $JOB_PID || fail "the job failed after its criu helpers were killed (status $?)"
    grep -q "killed by signal" "$T/job.err" ||
      fail "the checkpoint after the killed helpers failed, with every rank alive: $(cat "$T/ck_after.out")"
    grep -q "restarting from snapshot" "$T/job.err" || fail "a rank died with its criu helper and the job did not recover"
    echo "a rank died with its criu helper; the job recovered"
  fi
  grep -q "killed by signal 13" "$T/job.err" && fail "a rank died of SIGPIPE with its criu helper"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") != reference $REF"
  ;;
criu_dies)
  # The criu service of every dump dies before it reads the request (a
  # cr_criu_binary that exits for `swrk`): libcriu's write to it raised
  # SIGPIPE, which killed the rank. Every checkpoint must fail naming criu,
  # and the job go on to the right result.
  reference
  real=$("$LZ" info --param cr criu 2>/dev/null | awk '$1 == "cr_criu_binary" { print $3 }')
  [ -x "$real" ] || fail "cannot find the criu binary in lazarus info: '$real'"
  printf '#!/bin/sh\n[ "$1" = swrk ] && exit 3\nexec %s "$@"\n' "$real" > "$T/criu"
  chmod +x "$T/criu"
  MCA+=(--mca cr_criu_binary "$T/criu")
  start_job
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck1.out" 2>&1 && fail "a checkpoint whose criu service died committed"
  grep -qi "criu" "$T/ck1.out" || fail "the failed checkpoint does not name criu: $(cat "$T/ck1.out")"
  # Now the service leaves a child behind, stopped, that holds the service
  # socket open (criu killed while a child of its own was stopped does
  # this): the rank must not wait for an answer for ever. The launcher kills
  # what is left of the dead service's process group.
  marker="lz-criu-remnant-${T##*/}"
  trap 'pkill -9 -f "$marker"; for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
  printf '#!/bin/sh
[ "$1" = swrk ] && { sh -c '"'"'kill -STOP $$'"'"' %s & sleep 0.2; exit 3; }
exec %s "$@"
' \
    "$marker" "$real" > "$T/criu"
  timeout 120 "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck2.out" 2>&1
  st=$?
  [ $st = 124 ] && fail "a checkpoint whose criu service died leaving a stopped child was still waiting after 120 s"
  [ $st = 0 ] && fail "a checkpoint whose criu service died leaving a stopped child committed"
  grep -qi "criu" "$T/ck2.out" || fail "the failed checkpoint does not name criu: $(cat "$T/ck2.out")"
  pgrep -f "$marker" > /dev/null && fail "the stopped children of the dead criu services are still there: $(pgrep -af "$marker")"
  release_job
  wait $JOB_PID || fail "the job failed after a checkpoint whose criu died (status $?)"
  grep -q "killed by signal" "$T/job.err" && fail "a rank died with its criu service"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result $(result_of "$T/job.out") != reference $REF"
  ;;
disk_full)
  # The store fills up during a checkpoint (a 3 MiB tmpfs: snapshot 1 fits,
  # snapshot 2 does not): the checkpoint fails naming the cause, the job goes
  # on to the right result, and snapshot 1 stays restartable. Over ucx each
  # rank's image holds UCX's libraries' data and heap too (measured: 4.5 MB
  # per snapshot of 4 ranks, 2.3 MB over shm), so the store is 6 MiB.
  mkdir "$T/small"
  case "$TRANSPORT" in ucx*) store_size=6m ;; *) store_size=3m ;; esac
  mount -t tmpfs -o size=$store_size lz-test-store "$T/small" || skip "cannot mount a tmpfs store here"
  trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; umount "$T/small" 2>/dev/null; rm -rf "$T"' EXIT
  MCA=(--mca transport "$TRANSPORT" --mca cr criu --mca snapshot_root "$T/small")
  reference
  store_dir() { ls -d "$T"/small/*/ 2>/dev/null | head -1; }
  start_job
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck1.out" 2>&1 || fail "checkpoint 1 failed: $(cat "$T/ck1.out")"
  "$LZ" checkpoint "$JOB_ID" --wait > "$T/ck2.out" 2>&1 && fail "checkpoint 2 succeeded on a full store: $(cat "$T/ck2.out")"
  grep -q "No space left on device" "$T/ck2.out" || fail "the failed checkpoint does not name the cause: $(cat "$T/ck2.out")"
  release_job
  wait $JOB_PID || fail "the job failed after the failed checkpoint (status $?)"
  [ "$(result_of "$T/job.out")" = "$REF" ] || fail "result after a failed checkpoint $(result_of "$T/job.out") != reference $REF"
  [ -d "$(store_dir)"/1 ] || fail "snapshot 1 is gone"
  ls -d "$(store_dir)"/2* > /dev/null 2>&1 && fail "the failed snapshot 2 was left in the store: $(ls "$(store_dir)")"
  "$LZ" restart "$(store_dir)" --timeout 300 > "$T/rs.out" 2> "$T/rs.err" || fail "restart from snapshot 1 failed"
  grep -q "from snapshot 1 " "$T/rs.err" || fail "did not restart from snapshot 1: $(cat "$T/rs.err")"
  [ "$(result_of "$T/rs.out")" = "$REF" ] || fail "restarted result differs"
  ;;
*) echo "unknown scenario $SCEN"; exit 2 ;;
esac
echo "PASS: $SCEN over $TRANSPORT"
