#!/bin/bash
# MPI files (MPI_File_*) held open across checkpoints: the files cr_mpiio.c
# writes every iteration (ind.out at the individual pointer of an
# interleaving view, shared.out by MPI_File_write_ordered at the shared
# pointer, coll.out by MPI_File_write_at_all and read back, nb.out by an
# MPI_File_iwrite_at still in flight between iterations, and a plain log.<r>)
# are compared byte for byte with a reference run's after each scenario, and
# the sizes a snapshot recorded are whole records of the iterations the
# ranks were in (exactly those of the safe point under cr=app: a
# non-blocking write started before it is in the file and in the size):
#   restart   checkpoint, the job goes on, --term, restart from the first
#             snapshot (every file grew since: rolled back); snapshot show
#             lists the MPI files
#   recover   kill -9 of rank 1 under --recover auto after a checkpoint
#   migrate   a checkpoint the job continues from, then rank 1 and rank 0
#             migrated (to this host): nothing rolled back
#   app       cr=app every 40 safe points, kill -9 of rank 1 under --recover
#             auto after snapshot 2: the program reopens its files, sets the
#             views again and seeks both pointers itself
#   app_pointers  the same, but the program does not seek (CR_MPIIO_SEEK=0):
#             the snapshot's record of the open files puts both pointers
#             back (mpi/io/file_record.h), and the program checks them
#   app_migrate  a cr=app migration of rank 1 is refused before anything
#             moves (the new process could not join the files' shared-pointer
#             windows alone), naming why, and the job ends as uninterrupted
#   app_ranks a cr=app snapshot on request of np 2, the job stopped (it
#             wrote on past the snapshot), restarted on 3 ranks without
#             seeks, the files opened before LZ_Restore (CR_MPIIO_OPEN=
#             before): the program checks both pointers (the
#             shared one counts the 2 ranks' lines), shared.out begins with
#             the uninterrupted run's lines of those iterations and has no
#             hole, and the job ends well; before that, a restart from a
#             damaged record of the open files is refused, naming it (the
#             snapshot's verification covers the record)
# Usage: cr_mpiio_test.sh SCENARIO TRANSPORT BIN_DIR PROGRAM
# Every job is bounded with --timeout; nothing measures wall-clock time.
set -u
SCEN=$1 TRANSPORT=$2 BIN=$3 PROG=$4
LZ=$BIN/lazarus
NP=2
ITERS=300
T=$(mktemp -d /tmp/lz-crmpiio.XXXXXX)
TAG=$(basename "$T")
cleanup() {
  for p in $(jobs -p); do kill -9 "$p" 2> /dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
CR=criu
case "$SCEN" in app*) CR=app ;; esac
MCA=(--mca transport "$TRANSPORT" --mca cr $CR --mca snapshot_root "$T/store")
MPI_FILES="ind.out shared.out coll.out nb.out"

. "$(dirname "$0")/cr_job.sh"
JOB_ENV=(-x CR_ITER_RELEASE="$T/release")
BEFORE_WAIT=release_job

if [ $CR = criu ]; then
  info=$("$LZ" info --mca cr criu 2>&1) || skip "cr/criu is unavailable here: $(echo "$info" | grep -i 'criu' | head -2 | tr '\n' ' ')"
fi

. "$(dirname "$0")/../../support/reference_run.sh"
# The uninterrupted run, without the pauses (CR_ITER_RELEASE names a file
# that exists): the files do not depend on them.
reference() {
  reference_run "$T/ref" "cr_mpiio.np$NP.it$ITERS.${TRANSPORT//,/_}" "$PROG" \
    "$LZ" run -np $NP --mca transport "$TRANSPORT" --mca cr none --timeout 300 -x CR_ITER_RELEASE=/ \
    "$PROG" $ITERS "${TAG}r" || fail "reference run failed"
  [ -n "$(result_of "$T/ref/out")" ] || fail "reference run printed no result"
}
# The job's 20 ms pauses (cr_pace.h) keep it alive for the checkpoints;
# release_job ends them once nothing more needs it alive, so the rest of
# the run and every restart go at full speed.
release_job() { touch "$T/release"; }
# Every file of the reference run, byte for byte, in $1; and the result in $2.
same_files() {
  local r f
  for f in $MPI_FILES; do
    cmp "$T/ref/$f" "$1/$f" > /dev/null 2>&1 || fail "$1/$f differs from an uninterrupted run's: $(cmp "$T/ref/$f" "$1/$f" 2>&1)"
  done
  for r in $(seq 0 $((NP - 1))); do
    cmp "$T/ref/log.$r" "$1/log.$r" > /dev/null 2>&1 ||
      fail "$1/log.$r differs from an uninterrupted run's: $(cmp "$T/ref/log.$r" "$1/log.$r" 2>&1)"
  done
  [ "$(result_of "$2")" = "$(result_of "$T/ref/out")" ] ||
    fail "result '$(result_of "$2")' != reference '$(result_of "$T/ref/out")'"
}
# The size snapshot $1 recorded for file $2 -> $SIZE. Under cr=criu every
# rank that held it open recorded the same (none wrote once another's image
# was taken); under cr=app each rank records at its own safe point, one
# while another still writes the iteration before, and a restart rolls the
# file back to the largest ($3 = app).
recorded_size() {
  SIZE=$(grep -o "$2: written; truncate to [0-9]* bytes" "$T/show.$(basename "$1").out" | awk '{ print $(NF - 1) }' |
    sort -n -u)
  if [ "${3:-}" = app ]; then
    SIZE=$(echo "$SIZE" | tail -1)
  else
    [ "$(echo "$SIZE" | wc -l)" -le 1 ] || fail "the ranks recorded $2 at different sizes in $1: $(echo $SIZE)"
  fi
}
# How many whole lines of the reference's file $1 make $2 bytes ("" when
# $2 bytes end inside a line).
lines_in() {
  awk -v want="$2" 'BEGIN { if (want == 0) { print 0; exit } }
    { n += length($0) + 1; if (n == want) { print NR; exit } if (n > want) exit }' "$T/ref/$1"
}
# What snapshot $1 of the job in directory $2 recorded of each file is whole
# records, as many as the iterations the ranks were in allow. Rank 0's log
# has k lines: it was in iteration k, and the MPI_Allreduce of each
# iteration kept the others between iterations k - 1 and k + 1 (before its
# MPI_Allreduce), so each MPI file ends between rank 0's record of
# iteration k - 1 and the last rank's of iteration k, each other log has
# k - 1 to k + 1 lines. At a cr=app safe point ($3 = exact) every rank is
# at the top of iteration k: every file holds exactly k iterations, and an
# MPI_File_iwrite_at started before it (nb.out's, waited for after it) is
# in the file and in the recorded size.
consistent_sizes() {
  local snap=$1 dir=$2 exact=0 show f k n m lo hi
  [ "${3:-}" = exact ] && exact=1
  show=$T/show.$(basename "$snap").out
  "$LZ" snapshot show "$snap" > "$show" 2>&1 || fail "snapshot show $snap failed: $(cat "$show")"
  for f in $MPI_FILES $(seq -f 'log.%g' 0 $((NP - 1))); do
    grep -q "$dir/$f: written; truncate to [0-9]* bytes" "$show" || fail "snapshot show lacks $dir/$f: $(cat "$show")"
  done
  recorded_size "$snap" "$dir/log.0"
  n=$SIZE k=$(lines_in log.0 "$SIZE")
  [ -n "$k" ] && [ "$k" -gt 0 ] && [ "$k" -lt $ITERS ] || fail "log.0 recorded at $n bytes in $snap: not whole lines of a run"
  for f in $(seq -f 'log.%g' 1 $((NP - 1))); do
    recorded_size "$snap" "$dir/$f"
    n=$SIZE m=$(lines_in "$f" "$SIZE")
    [ -n "$m" ] && [ "$m" -ge $((exact ? k : k - 1)) ] && [ "$m" -le $((exact ? k : k + 1)) ] ||
      fail "$f recorded at $n bytes (${m:-not whole} lines) in $snap, where log.0 has $k lines"
  done
  lo=$((exact ? k * NP : (k - 1) * NP + 1)) hi=$((exact ? k * NP : (k + 1) * NP))
  # A rank's record: 4 ints in ind.out, 8 doubles in coll.out, 32 bytes in
  # nb.out, a line in shared.out (cr_mpiio.c).
  for f in ind.out:16 coll.out:64 nb.out:32 shared.out:line; do
    recorded_size "$snap" "$dir/${f%%:*}" $CR
    n=$SIZE
    if [ "${f#*:}" = line ]; then
      m=$(lines_in "${f%%:*}" "$n")
    else
      m=$((n / ${f#*:}))
      [ $((n % ${f#*:})) = 0 ] || m=
    fi
    [ -n "$m" ] && [ "$m" -ge $lo ] && [ "$m" -le $hi ] ||
      fail "${f%%:*} recorded at $n bytes (${m:-not whole} records) in $snap, not $lo to $hi (log.0 has $k lines)"
  done
}

case "$SCEN" in
restart)
  reference
  start_job job
  wait_lines "$T/job" 60
  checkpoint
  SNAP1=$SNAP
  wait_lines "$T/job" 150
  checkpoint --term
  wait $JOB_PID || fail "job stopped by --term exited $?"
  [ -n "$(result_of "$T/job/out")" ] && fail "the job finished before the --term checkpoint"
  consistent_sizes "$SNAP1" "$T/job"
  release_job
  # Restarted from another directory: each rank's working directory is its own.
  (cd / && "$LZ" restart "$SNAP1" --timeout 300 > "$T/rs.out" 2> "$T/rs.err") || fail "restart failed"
  for f in $MPI_FILES $(seq -f 'log.%g' 0 $((NP - 1))); do
    grep -q "$T/job/$f: truncated to its size at the checkpoint" "$T/rs.err" ||
      fail "the restart does not say it truncated $f: $(cat "$T/rs.err")"
  done
  same_files "$T/job" "$T/rs.out"
  ;;
recover)
  reference
  start_job job --recover auto
  wait_lines "$T/job" 60
  checkpoint
  consistent_sizes "$SNAP" "$T/job"
  wait_lines "$T/job" 150
  kill_rank_and_wait 1
  grep -q "restarting from snapshot 1" "$T/job/err" || fail "no recovery from snapshot 1: $(tail -5 "$T/job/err")"
  for f in $MPI_FILES log.1; do
    grep -q "$T/job/$f: truncated to its size at the checkpoint" "$T/job/err" || fail "$f was not rolled back"
  done
  same_files "$T/job" "$T/job/out"
  ;;
migrate)
  reference
  start_job job
  wait_lines "$T/job" 50
  checkpoint
  consistent_sizes "$SNAP" "$T/job"
  "$LZ" migrate "$JOB_ID" --rank 1 --to "$(hostname)" > "$T/mig1.out" 2>&1 || fail "migrate rank 1: $(cat "$T/mig1.out")"
  wait_lines "$T/job" 150
  "$LZ" migrate "$JOB_ID" --rank 0 --to "$(hostname)" > "$T/mig0.out" 2>&1 || fail "migrate rank 0: $(cat "$T/mig0.out")"
  release_job
  wait $JOB_PID || fail "job failed after the migrations (status $?)"
  grep -q "truncated" "$T/job/err" && fail "a migration rolled a file back: $(grep truncated "$T/job/err")"
  same_files "$T/job" "$T/job/out"
  ;;
app | app_pointers)
  reference
  [ "$SCEN" = app_pointers ] && JOB_ENV+=(-x CR_MPIIO_SEEK=0)
  start_job job --mca cr_app_every 40 --recover auto
  for i in $(seq 1 400); do grep -q "snapshot 2 committed" "$T/job/err" && break; sleep 0.05; done
  grep -q "snapshot 2 committed" "$T/job/err" || fail "no second snapshot"
  # Snapshot 2 holds the files at its safe point, the previous iteration's
  # MPI_File_iwrite_at (not yet waited for) included.
  SNAP2=$(grep -o 'snapshot 2 committed at safe point [0-9]*: [^ ]*' "$T/job/err" | awk '{ print $NF }')
  consistent_sizes "$SNAP2" "$T/job" exact
  wait_lines "$T/job" 100
  kill_rank_and_wait 1
  grep -q "restarting from snapshot" "$T/job/err" || fail "no recovery: $(tail -5 "$T/job/err")"
  for f in $MPI_FILES log.1; do
    grep -q "rank [0-9]*: $T/job/$f: truncated to its size at the checkpoint" "$T/job/err" ||
      fail "$f was not rolled back before the program ran again"
  done
  # So do the snapshots the restarted job took (at full speed: no pause
  # lets the I/O thread finish a write before the next safe point).
  for s in "$(store_dir)"*/; do
    [ -d "$s" ] && consistent_sizes "${s%/}" "$T/job" exact
  done
  same_files "$T/job" "$T/job/out"
  if [ "$SCEN" = app_pointers ]; then
    grep -q "rank 1: pointers left to the restart" "$T/job/err" ||
      fail "the recovered ranks moved their pointers themselves (CR_MPIIO_SEEK=0 did not reach them)"
    for s in "$(store_dir)"*/; do
      [ -f "${s}rank.0/mpi-files" ] || fail "snapshot $s has no record of the open MPI files"
    done
  fi
  ;;
app_migrate)
  reference
  start_job job --mca cr_app_every 0
  wait_lines "$T/job" 30
  "$LZ" migrate "$JOB_ID" --rank 1 --to "$(hostname)" > "$T/mig.out" 2>&1 && fail "cr=app moved a rank holding MPI files"
  grep -q "holds 4 one-sided window(s) (an open MPI file has one" "$T/mig.out" ||
    fail "the refusal does not say why: $(cat "$T/mig.out")"
  release_job
  wait $JOB_PID || fail "the job failed after the refused migration (status $?)"
  same_files "$T/job" "$T/job/out"
  ;;
app_ranks)
  reference
  start_job job --mca cr_app_every 0
  wait_lines "$T/job" 60
  checkpoint
  wait_lines "$T/job" 100
  kill -TERM $JOB_PID
  wait $JOB_PID
  [ -n "$(result_of "$T/job/out")" ] && fail "the job finished before it was stopped"
  release_job
  # A damaged record of the open files is refused, named (the snapshot's
  # verification covers it), then put back.
  cp "$SNAP/rank.1/mpi-files" "$T/mpi-files.good"
  sed -i '2s/^[0-9]*/x/' "$SNAP/rank.1/mpi-files"
  (cd "$T/job" && CR_MPIIO_SEEK=0 "$LZ" restart -np 3 "$SNAP" --timeout 120 > "$T/bad.out" 2>&1) &&
    fail "a restart from a damaged mpi-files record succeeded"
  grep -q "rank.1/mpi-files" "$T/bad.out" || fail "the refusal does not name the damaged record: $(tail -5 "$T/bad.out")"
  cp "$T/mpi-files.good" "$SNAP/rank.1/mpi-files"
  (cd "$T/job" && CR_MPIIO_SEEK=0 CR_MPIIO_OPEN=before "$LZ" restart -np 3 "$SNAP" --timeout 300 > "$T/rs.out" 2> "$T/rs.err") ||
    fail "restart on 3 ranks failed"
  [ -n "$(result_of "$T/rs.out")" ] || fail "the job restarted on 3 ranks printed no result"
  grep -q "rank 2: pointers left to the restart" "$T/rs.err" ||
    fail "the restarted ranks moved their pointers themselves (CR_MPIIO_SEEK=0 did not reach them)"
  # shared.out: the 2 ranks' lines of the snapshot's iterations, then the
  # 3 ranks' lines, with nothing overwritten and no hole between.
  n=$(grep -c '^it [0-9]* rank [0-9]* #*$' "$T/job/shared.out")
  [ "$n" = "$(wc -l < "$T/job/shared.out")" ] || fail "shared.out has lines that are not whole: $(grep -vc '^it [0-9]* rank [0-9]* #*$' "$T/job/shared.out")"
  tr -d '\0' < "$T/job/shared.out" | cmp -s - "$T/job/shared.out" || fail "shared.out has a hole (NUL bytes)"
  k2=$(grep -c ' rank 2 ' "$T/job/shared.out")
  [ "$k2" -gt 0 ] && [ $((n - 3 * k2)) -gt 0 ] && [ $(((n - 3 * k2) % 2)) = 0 ] ||
    fail "shared.out holds $n lines, $k2 of rank 2: not the snapshot's 2-rank iterations then 3-rank ones"
  head -n $((n - 3 * k2)) "$T/job/shared.out" | cmp -s - <(head -n $((n - 3 * k2)) "$T/ref/shared.out") ||
    fail "shared.out's first $((n - 3 * k2)) lines differ from the uninterrupted run's"
  [ $(((n - 3 * k2) / 2 + k2)) = $ITERS ] || fail "shared.out holds $(((n - 3 * k2) / 2)) + $k2 iterations, not $ITERS"
  ;;
*)
  fail "unknown scenario '$SCEN'"
  ;;
esac
echo "PASS: $SCEN over $TRANSPORT"
