#!/bin/bash
# slurm.*: `lazarus run` inside a real Slurm allocation (scripts/test_slurm)
# starts its per-host helpers with one srun, one task per node.
# Usage: slurm_launch_test.sh SCRIPTS_DIR BUILD_DIR CASE
# CASE:
#   single  one node on loopback: ring np 4 under salloc (default selection,
#           tcp,self, np 8 oversubscribed), each rank a child of a helper
#           that is a child of slurmstepd (so srun started it); a failing
#           rank named with its exit code; launcher=slurm outside an
#           allocation and launcher=local with another host refused.
#   restart one node on loopback, cr=criu: cr_iter np 4 under salloc is
#           stopped by `lazarus checkpoint --term`; `lazarus restart` in a
#           new allocation restores it through helpers that srun started
#           (seen running under slurmstepd while it runs), with the result
#           of an uninterrupted run.
#   hosts   two nodes, each a scripts/test_hosts namespace with its own
#           slurmd, launcher in node 0's: --host taken from the allocation,
#           ring np 4 over both, --map-by slot and node placements seen from
#           the ranks' own addresses and from `lazarus ps`, a rank on the
#           other node that exits 7 stops the job, named.
#   direct  one node on loopback, no lazarus run: `srun --mpi=pmi2` and
#           `--mpi=pmix` start the ranks themselves (bootstrap/pmi2_bootstrap.h,
#           bootstrap/pmix/pmix_bootstrap.h): ring np 4
#           (default selection, tcp,self) and np 8 oversubscribed, the
#           stencil with the result of `lazarus run`; a rank killed by
#           SIGKILL ends the step within seconds, the dead rank named.
#   direct_hosts  three nodes (namespace hosts, one slurmd each):
#           srun --mpi=pmi2 (and pmix) -N3 --ntasks-per-node=2 runs ring np 6 across
#           them (tcp between hosts, shm within); each rank knows its node's
#           ranks and host name from PMI_process_mapping and the modex.
#   direct_cr  one node, checkpointing without lazarus run (rank 0 starts
#           the job's coordinator, bootstrap/coordinator_link.h): cr=criu
#           under --mpi=pmi2 checkpointed by `lazarus checkpoint <Slurm job
#           id>` finishes with the uninterrupted result, and its snapshot
#           restored by `lazarus restart` in an allocation gives it too;
#           cr=app under --mpi=pmix checkpoints on `scancel --signal=USR1`,
#           a rank killed ends the step within seconds naming the rank and
#           the newest snapshot, and the restart gives the uninterrupted
#           result; examples/slurm/checkpointed.sbatch checkpoints on its
#           warning signal, requeues itself twice and resumes each time,
#           ending with the uninterrupted result.
#   direct_cr_hosts  three nodes: srun -N3 --ntasks-per-node=2 with cr=criu
#           under --mpi=pmix (as root) and cr=app under --mpi=pmi2, checkpointed
#           by `lazarus checkpoint <Slurm job id>` on node 0; a rank on node 2
#           killed ends the step within seconds, named, nothing left on any
#           node; `lazarus restart` in a 3-node allocation gives the
#           uninterrupted result.
# After every job no process of it is left (no helper, no rank, no srun).
set -u
S=$1
B=$2
CASE=$3
D=$(mktemp -d /tmp/lz-slurm.XXXXXX)
HD=""
cleanup() {
  "$S/test_slurm" down "$D/slurm" >/dev/null 2>&1
  [ -n "$HD" ] && "$S/test_hosts" down "$HD" >/dev/null 2>&1
  rm -rf "$D"
}
trap cleanup EXIT
fail() { echo "FAIL ($CASE): $*"; exit 1; }

no_leftovers() {
  local left
  left=$(pgrep -a -f "$B/bin/lazarus (helper|coordinate)|lazarus-helpers|$B/tests/(mpi|cr|app)/" | grep -v "pgrep")
  [ -z "$left" ] || fail "processes left after the job ($1): $left"
}

# pid_of_rank PROGRAM R: the pid of task R (SLURM_PROCID) of a step of
# PROGRAM, on whichever node (the namespace hosts share the pid space).
pid_of_rank() {
  local p
  for p in $(pgrep -x "$1"); do
    tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx "SLURM_PROCID=$2" && { echo "$p"; return 0; }
  done
  return 1
}

# cluster_up [N]: a Slurm cluster (scripts/test_slurm) on N namespace hosts
# (scripts/test_hosts; H: their names, A: their addresses), or on this host
# without N. Exits 77 with the reason where either cannot run.
cluster_up() {
  local out st
  if [ -n "${1:-}" ]; then
    HD=$D/hosts
    out=$("$S/test_hosts" up "$HD" "$1" 2>&1); st=$?
    [ $st = 77 ] && { echo "$out"; exit 77; }
    [ $st = 0 ] || fail "test_hosts up: $out"
    mapfile -t H < <(awk '{ print $1 }' "$HD/hosts")
    mapfile -t A < <(awk '{ print $2 }' "$HD/hosts")
  fi
  out=$("$S/test_slurm" up "$D/slurm" ${HD:+"$HD"} 2>&1); st=$?
  [ $st = 77 ] && { echo "$out"; exit 77; }
  [ $st = 0 ] || fail "test_slurm up: $out"
  export SLURM_CONF=$D/slurm/slurm.conf
}

case $CASE in
  single)
    cluster_up
    # In an allocation of 4 tasks on one node.
    al() { timeout 200 salloc -Q -N1 -n4 "$@"; }
    for t in default tcp,self; do
      mca=(); [ $t = default ] || mca=(--mca transport $t)
      out=$(al "$B/bin/mpirun" "${mca[@]}" --timeout 120 "$B/tests/mpi/ring" 2>&1) || fail "ring ($t) failed: $out"
      echo "$out" | grep -q "ring: 4 ranks ok" || fail "ring ($t) did not report 4 ranks: $out"
      no_leftovers "ring $t"
    done
    out=$(al "$B/bin/mpirun" -np 8 --timeout 200 "$B/tests/mpi/ring" 2>&1) || fail "ring np 8 failed: $out"
    echo "$out" | grep -q "ring: 8 ranks ok" || fail "ring np 8 did not report 8 ranks: $out"
    no_leftovers "ring np 8"
    # Who started the ranks: the helper, itself a task of a step (slurmstepd).
    out=$(al "$B/bin/mpirun" --timeout 60 sh -c \
      'gp=$(awk "{ print \$4 }" /proc/$PPID/stat); echo "rank $LZ_RANK of $LZ_SIZE: $(tr "\0" " " < /proc/$PPID/cmdline| cut -d" " -f2) under $(cat /proc/$gp/comm)"' 2>&1) ||
      fail "the ancestry job failed: $out"
    for r in 0 1 2 3; do
      echo "$out" | grep -qx "rank $r of 4: helper under slurmstepd" || fail "rank $r was not started by a helper under srun: $out"
    done
    no_leftovers ancestry
    # A failing rank inside the allocation.
    out=$(al "$B/bin/mpirun" --timeout 60 sh -c 'if [ $LZ_RANK = 1 ]; then sleep 1; exit 7; fi; exec sleep 300' 2>&1); st=$?
    [ $st = 7 ] || fail "exit status $st, expected 7: $out"
    echo "$out" | grep -q "rank 1 (pid [0-9]* on $(hostname -s)) exited with code 7" || fail "rank 1 not named: $out"
    no_leftovers failure
    # The launcher parameter.
    out=$(env -u SLURM_JOB_ID "$B/bin/mpirun" --mca launcher slurm -np 1 true 2>&1) && fail "launcher=slurm ran outside an allocation: $out"
    echo "$out" | grep -q "not inside a Slurm allocation (SLURM_JOB_ID is not set)" || fail "launcher=slurm outside: $out"
    out=$("$B/bin/mpirun" --mca launcher local --host 10.213.255.254:1 -np 1 true 2>&1) && fail "launcher=local ran on another host: $out"
    echo "$out" | grep -q "launcher=local, but host 10.213.255.254 is not this host" || fail "launcher=local: $out"
    echo "slurm.single: ring np 4 (default, tcp,self) and np 8 under salloc, ranks under helpers under slurmstepd; rank 1's exit 7 named"
    ;;
  restart)
    [ "$(id -u)" = 0 ] || { echo "SKIP: CRIU needs root"; exit 77; }
    "$B/bin/lazarus" info --mca cr criu >/dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here"; exit 77; }
    cluster_up
    al() { timeout 200 salloc -Q -N1 -n4 "$@"; }
    LZ=$B/bin/lazarus
    "$LZ" run -np 4 --timeout 120 "$B/tests/cr/cr_iter" 300 >"$D/ref.out" 2>&1 || fail "reference run failed"
    REF=$(grep -o 'result [0-9]*' "$D/ref.out")
    al "$B/bin/mpirun" --mca cr criu --mca snapshot_root "$D/store" --timeout 120 "$B/tests/cr/cr_iter" 300 \
      >"$D/job.out" 2>&1 &
    job=$!
    id=""
    for _ in $(seq 1 300); do
      id=$("$LZ" ps | awk '/cr_iter/ { print $1 }' | head -1)
      [ -n "$id" ] && break
      sleep 0.1
    done
    [ -n "$id" ] || fail "the job did not appear in lazarus ps: $(cat "$D/job.out")"
    sleep 1  # past MPI_Init, in the ring
    "$LZ" checkpoint "$id" --term --wait >"$D/ck.out" 2>&1 || fail "checkpoint --term failed: $(cat "$D/ck.out")"
    wait $job || fail "the job stopped by --term failed: $(cat "$D/job.out")"
    grep -q result "$D/job.out" && fail "the job finished before the --term checkpoint"
    no_leftovers "checkpoint --term"
    store=$(ls -d "$D"/store/*/ | head -1)
    al "$LZ" restart "$store" --timeout 120 >"$D/rs.out" 2>&1 &
    rs=$!
    helpers=""
    for _ in $(seq 1 300); do
      # Anchored: srun's own command line names the helper too, and srun
      # runs before its helper does.
      helpers=$(pgrep -f "^$B/bin/lazarus helper")
      [ -n "$helpers" ] && break
      kill -0 $rs 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$helpers" ] || fail "no helper ran the restart: $(cat "$D/rs.out")"
    under=""
    for h in $helpers; do  # the helper srun started (its child is pid 1 of its PID namespace)
      parent=$(awk '{ print $4 }' /proc/$h/stat 2>/dev/null)
      [ -n "$parent" ] && [ "$(cat /proc/$parent/comm 2>/dev/null)" = slurmstepd ] && under=$h
    done
    [ -n "$under" ] || fail "no helper of the restart runs under slurmstepd (helpers: $helpers)"
    wait $rs || fail "the restart failed: $(cat "$D/rs.out")"
    got=$(grep -o 'result [0-9]*' "$D/rs.out")
    [ "$got" = "$REF" ] || fail "restarted under Slurm: '$got', uninterrupted run '$REF': $(cat "$D/rs.out")"
    no_leftovers restart
    echo "slurm.restart: checkpointed under salloc, restored through srun's helpers: $got as uninterrupted"
    ;;
  hosts)
    cluster_up 2
    # Everything Slurm runs from node 0, where slurmctld is reachable.
    al() { "$S/test_hosts" exec "$HD" 0 env SLURM_CONF="$D/slurm/slurm.conf" timeout 200 salloc -Q -N2 --ntasks-per-node=2 "$@"; }
    out=$(al "$B/bin/mpirun" --timeout 120 "$B/tests/mpi/ring" 2>&1) || fail "ring over 2 nodes failed: $out"
    echo "$out" | grep -q "ring: 4 ranks ok" || fail "ring over 2 nodes did not report 4 ranks: $out"
    no_leftovers ring
    # Placement: each rank says its address; the test's go comes once ps was read.
    for map in slot node; do
      rm -f "$D/go" "$D"/where.*
      al "$B/bin/mpirun" --map-by $map --timeout 120 sh -c \
        "echo \"\$LZ_JOB_ID\" > $D/where.\$LZ_RANK.tmp; mv $D/where.\$LZ_RANK.tmp $D/where.\$LZ_RANK; while [ ! -e $D/go ]; do sleep 0.1; done; echo \"rank \$LZ_RANK at \$(ip -4 -o addr show eth0 | awk '{ print \$4 }')\"" \
        >"$D/out" 2>&1 &
      job=$!
      for _ in $(seq 1 300); do [ -s "$D/where.3" ] && break; sleep 0.1; done
      [ -s "$D/where.3" ] || { kill $job; fail "rank 3 did not start (--map-by $map): $(cat "$D/out")"; }
      id=$(cat "$D/where.0")
      ps_out=$("$B/bin/lazarus" ps)
      touch "$D/go"
      wait $job; st=$?
      [ $st = 0 ] || fail "--map-by $map job failed ($st): $(cat "$D/out")"
      if [ $map = slot ]; then want=(0 0 1 1); line="  ranks: ${H[0]} 0-1; ${H[1]} 2-3"
      else want=(0 1 0 1); line="  ranks: ${H[0]} 0,2; ${H[1]} 1,3"; fi
      for r in 0 1 2 3; do
        grep -qx "rank $r at ${A[${want[$r]}]}/24" "$D/out" || fail "--map-by $map: rank $r not on ${H[${want[$r]}]}: $(cat "$D/out")"
      done
      echo "$ps_out" | grep -A1 "^$id " | grep -qx "$line" || fail "--map-by $map: lazarus ps does not show '$line': $ps_out"
      no_leftovers "map-by $map"
    done
    # A rank on the other node fails.
    out=$(al "$B/bin/mpirun" --map-by node --timeout 60 sh -c 'if [ $LZ_RANK = 3 ]; then sleep 1; exit 7; fi; exec sleep 300' 2>&1); st=$?
    [ $st = 7 ] || fail "exit status $st, expected 7: $out"
    echo "$out" | grep -q "rank 3 (pid [0-9]* on ${H[1]}) exited with code 7" || fail "rank 3 not named: $out"
    no_leftovers failure
    echo "slurm.hosts: ring over 2 Slurm nodes; --map-by slot/node placements by address and in lazarus ps; rank 3's exit 7 on ${H[1]} named"
    ;;
  direct)
    cluster_up
    ref=$("$B/bin/lazarus" run -np 4 --timeout 120 "$B/tests/app/stencil" 64 300 2>&1 | grep -o 'sum=.*')
    [ -n "$ref" ] || fail "the stencil's reference run printed no result"
    summary=""
    for mpi in pmi2 pmix; do
      for t in default tcp,self; do
        env=(); [ $t = default ] || env=(LZ_MCA_transport=$t)
        out=$(env "${env[@]}" timeout 120 srun --mpi=$mpi -n 4 "$B/tests/mpi/ring" 2>&1) || fail "srun --mpi=$mpi ring ($t) failed: $out"
        echo "$out" | grep -q "ring: 4 ranks ok" || fail "srun --mpi=$mpi ring ($t) did not report 4 ranks: $out"
        no_leftovers "srun --mpi=$mpi ring $t"
      done
      out=$(timeout 200 srun --mpi=$mpi -n 8 --overcommit "$B/tests/mpi/ring" 2>&1) || fail "srun --mpi=$mpi ring np 8 failed: $out"
      echo "$out" | grep -q "ring: 8 ranks ok" || fail "srun --mpi=$mpi ring np 8 did not report 8 ranks: $out"
      got=$(timeout 120 srun --mpi=$mpi -n 4 "$B/tests/app/stencil" 64 300 2>&1 | grep -o 'sum=.*')
      [ "$got" = "$ref" ] || fail "stencil under srun --mpi=$mpi: '$got', under lazarus run: '$ref'"
      # A rank killed: the others see it (shm liveness), abort, and the step ends.
      timeout 120 srun --mpi=$mpi -n 4 "$B/tests/app/stencil" 64 100000 5000 >"$D/kill.out" 2>&1 &
      job=$!
      victim=""
      for _ in $(seq 1 300); do
        [ "$(pgrep -x -c stencil)" = 4 ] && victim=$(pgrep -x stencil | sort -n | sed -n 2p) && break
        sleep 0.1
      done
      [ -n "$victim" ] || { kill $job; fail "--mpi=$mpi: the 4 ranks did not start: $(cat "$D/kill.out")"; }
      sleep 1
      kill -9 "$victim"
      t0=$(date +%s)
      wait $job && fail "--mpi=$mpi: the step with a killed rank succeeded"
      took=$(($(date +%s) - t0))
      [ $took -le 20 ] || fail "--mpi=$mpi: the step took $took s to end after a rank was killed"
      grep -q "peer process (world rank [0-9]) failed\|rank [0-9] (pid $victim) on this host exited without finalizing" "$D/kill.out" ||
        fail "--mpi=$mpi: the killed rank is not named: $(cat "$D/kill.out")"
      [ -z "$(pgrep -x stencil)" ] || fail "--mpi=$mpi: ranks left after the killed step: $(pgrep -a -x stencil)"
      no_leftovers "--mpi=$mpi killed rank"
      summary="$summary --mpi=$mpi: killed rank ended the step in $took s;"
    done
    echo "slurm.direct: srun --mpi=pmi2 and pmix: ring np 4 (default, tcp,self), np 8, stencil as under lazarus run;$summary"
    ;;
  direct_hosts)
    cluster_up 3
    sr() { "$S/test_hosts" exec "$HD" 0 env SLURM_CONF="$D/slurm/slurm.conf" timeout 200 srun --mpi=$mpi "$@"; }
    # What each rank learnt of the placement: its node's ranks (the
    # shared-memory communicator: how many, and the first).
    cat > "$D/where.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  int rank, nlocal, first;
  MPI_Comm local;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &nlocal);
  MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, local);
  printf("rank %d: %d on its node, first %d\n", rank, nlocal, first);
  MPI_Finalize();
  return 0;
}
EOC
    "$B/bin/mpicc" -o "$D/where" "$D/where.c" || fail "mpicc where.c"
    for mpi in pmi2 pmix; do
      out=$(sr -N3 --ntasks-per-node=2 "$B/tests/mpi/ring" 2>&1) || fail "srun --mpi=$mpi ring over 3 nodes failed: $out"
      echo "$out" | grep -q "ring: 6 ranks ok" || fail "srun --mpi=$mpi ring over 3 nodes did not report 6 ranks: $out"
      out=$(sr -N3 --ntasks-per-node=2 "$D/where" 2>&1) || fail "srun --mpi=$mpi where over 3 nodes failed: $out"
      for r in 0 1 2 3 4 5; do
        echo "$out" | grep -qx "rank $r: 2 on its node, first $((r / 2 * 2))" ||
          fail "--mpi=$mpi: rank $r does not know it shares host ${H[$((r / 2))]} with rank $((r / 2 * 2 + 1 - r % 2)) only: $out"
      done
      no_leftovers "--mpi=$mpi over 3 nodes"
    done
    echo "slurm.direct_hosts: srun --mpi=pmi2 and pmix: ring np 6 over 3 Slurm nodes, 2 ranks each, each rank knowing its node's"
    ;;
  direct_cr)
    cluster_up
    LZ=$B/bin/lazarus
    al() { timeout 200 salloc -Q -N1 -n4 "$@"; }
    # The one job running: its Slurm id, once its coordinator is registered.
    slurm_job() {
      local jid=""
      for _ in $(seq 1 300); do
        jid=$(squeue -h -o %i | head -1)
        [ -n "$jid" ] && "$LZ" ps | grep -q "$1" && { echo "$jid"; return 0; }
        sleep 0.1
      done
      return 1
    }
    summary=""
    if [ "$(id -u)" = 0 ] && "$LZ" info --mca cr criu >/dev/null 2>&1; then
      "$LZ" run -np 4 --timeout 120 "$B/tests/cr/cr_iter" 300 >"$D/ref.out" 2>&1 || fail "cr_iter reference run failed"
      REF=$(grep -o 'result [0-9]*' "$D/ref.out")
      LZ_MCA_cr=criu LZ_MCA_snapshot_root="$D/criu" timeout 120 srun --mpi=pmi2 -n 4 "$B/tests/cr/cr_iter" 300 \
        >"$D/job.out" 2>&1 &
      job=$!
      jid=$(slurm_job cr_iter) || { kill $job; fail "the srun job did not register a coordinator: $(cat "$D/job.out")"; }
      sleep 1
      "$LZ" checkpoint "$jid" --wait >"$D/ck.out" 2>&1 || fail "lazarus checkpoint $jid failed: $(cat "$D/ck.out")"
      grep -q "snapshot 1 committed" "$D/ck.out" || fail "no snapshot committed: $(cat "$D/ck.out")"
      wait $job || fail "the checkpointed srun job failed: $(cat "$D/job.out")"
      got=$(grep -o 'result [0-9]*' "$D/job.out")
      [ "$got" = "$REF" ] || fail "cr=criu under srun, checkpointed: '$got', uninterrupted '$REF': $(cat "$D/job.out")"
      no_leftovers "cr=criu under srun"
      out=$(al "$LZ" restart "$D"/criu/*/1 --timeout 120 2>&1) || fail "restart of the srun job's image failed: $out"
      got=$(echo "$out" | grep -o 'result [0-9]*')
      [ "$got" = "$REF" ] || fail "the srun job's image restored: '$got', uninterrupted '$REF': $out"
      no_leftovers "cr=criu restart"
      summary=" cr=criu (pmi2) checkpointed by Slurm job id and restored: $got as uninterrupted;"
    else
      summary=" cr=criu skipped (needs root and CRIU);"
    fi
    # cr=app under pmix: SIGUSR1 from Slurm, then a rank killed.
    ref=$("$LZ" run -np 4 --timeout 120 "$B/tests/app/stencil" 64 3000 2>&1 | grep -o 'sum=.*')
    [ -n "$ref" ] || fail "the stencil's reference run printed no result"
    LZ_MCA_cr=app LZ_MCA_crcp=c3 LZ_MCA_snapshot_root="$D/app" timeout 120 srun --mpi=pmix -n 4 \
      "$B/tests/app/stencil" 64 3000 3000 >"$D/app.out" 2>&1 &
    job=$!
    jid=$(slurm_job stencil) || { kill $job; fail "the cr=app srun job did not register: $(cat "$D/app.out")"; }
    sleep 1
    scancel --signal=USR1 "$jid"
    snap=""
    for _ in $(seq 1 300); do
      snap=$("$LZ" ps | awk '/stencil/ { print $NF }' | grep / | head -1)
      [ -n "$snap" ] && break
      sleep 0.1
    done
    [ -n "$snap" ] || { kill $job; fail "SIGUSR1 committed no snapshot: $(cat "$D/app.out")"; }
    victim=$(pid_of_rank stencil 1) || { kill $job; fail "rank 1 not found"; }
    kill -9 "$victim"
    t0=$(date +%s)
    wait $job && fail "the cr=app step with a killed rank succeeded"
    took=$(($(date +%s) - t0))
    [ $took -le 20 ] || fail "the step took $took s to end after a rank was killed"
    # By the coordinator (the rank's connection closed) or by a peer first
    # (shm's liveness check), which then aborts the job.
    grep -q "rank 1 (pid $victim on [^)]*) ended without MPI_Finalize\|rank 1 (pid $victim) on this host exited without finalizing" "$D/app.out" ||
      fail "the killed rank is not named: $(cat "$D/app.out")"
    grep -qF "newest snapshot: $snap" "$D/app.out" || fail "the newest snapshot $snap is not named: $(cat "$D/app.out")"
    [ -z "$(pgrep -x stencil)" ] || fail "ranks left after the killed step: $(pgrep -a -x stencil)"
    no_leftovers "cr=app killed rank"
    out=$(al "$LZ" restart "$snap" --timeout 120 2>&1) || fail "restart after the killed rank failed: $out"
    got=$(echo "$out" | grep -o 'sum=.*')
    [ "$got" = "$ref" ] || fail "restarted after the killed rank: '$got', uninterrupted '$ref': $out"
    no_leftovers "cr=app restart"
    summary="$summary cr=app (pmix): SIGUSR1 checkpoint, killed rank ended the step in $took s, restart as uninterrupted;"
    # The batch script: warned, checkpointed, requeued, resumed (twice).
    mkdir -p "$D/batch"
    jid=$(cd "$D/batch" && PATH="$B/bin:$PATH" SNAPSHOT_ROOT="$D/batch/snap" sbatch --parsable -o "$D/batch/out" \
      "$S/../examples/slurm/checkpointed.sbatch" "$B/tests/app/stencil" 64 3000 3000) || fail "sbatch failed"
    for run in 0 1; do
      for _ in $(seq 1 300); do
        [ "$(squeue -h -j "$jid" -o %T)" = RUNNING ] && grep -q "run $run:" "$D/batch/out" 2>/dev/null && break
        sleep 0.1
      done
      grep -q "run $run:" "$D/batch/out" || fail "run $run of the batch job did not start: $(cat "$D/batch/out")"
      sleep 2  # into the computation
      scancel --batch --signal=USR1 "$jid"
      for _ in $(seq 1 300); do
        [ "$(squeue -h -j "$jid" -o %T)" = PENDING ] && break
        sleep 0.1
      done
      [ "$(squeue -h -j "$jid" -o %T)" = PENDING ] || fail "run $run did not requeue: $(cat "$D/batch/out")"
      scontrol update JobId="$jid" StartTime=now  # Slurm holds a requeued job 2 minutes
    done
    for _ in $(seq 1 600); do
      [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break
      sleep 0.1
    done
    o=$(cat "$D/batch/out")
    [ "$(grep -c 'snapshot [0-9]* committed' <<<"$o")" -ge 2 ] || fail "the batch job did not checkpoint twice: $o"
    grep -q "run 2: resuming from $D/batch/snap/slurm-$jid/" <<<"$o" || fail "run 2 did not resume from a snapshot: $o"
    got=$(grep -o 'sum=.*' <<<"$o")
    [ "$got" = "$ref" ] || fail "the batch job ended with '$got', uninterrupted '$ref': $o"
    no_leftovers "batch script"
    echo "slurm.direct_cr:$summary batch script checkpointed on its warning, requeued and resumed twice: $got as uninterrupted"
    ;;
  direct_cr_hosts)
    cluster_up 3
    LZ=$B/bin/lazarus
    on0() { "$S/test_hosts" exec "$HD" 0 env SLURM_CONF="$D/slurm/slurm.conf" "$@"; }
    summary=""
    cases=("app pmi2 $B/tests/app/stencil 64 3000 3000")
    [ "$(id -u)" = 0 ] && "$LZ" info --mca cr criu >/dev/null 2>&1 && cases+=("criu pmix $B/tests/cr/cr_iter 300")
    for c in "${cases[@]}"; do
      read -r cr mpi prog args <<<"$c"
      name=${prog##*/}
      ref=$("$LZ" run -np 6 --timeout 120 "$prog" $args 2>&1 | grep -o 'sum=.*\|result [0-9]*')
      [ -n "$ref" ] || fail "$name: the reference run printed no result"
      env=(LZ_MCA_cr=$cr LZ_MCA_snapshot_root="$D/$cr"); [ $cr = app ] && env+=(LZ_MCA_crcp=c3)
      on0 env "${env[@]}" timeout 200 srun --mpi=$mpi -N3 --ntasks-per-node=2 "$prog" $args >"$D/$cr.out" 2>&1 &
      job=$!
      jid=""
      for _ in $(seq 1 300); do
        jid=$(on0 squeue -h -o %i | head -1)
        [ -n "$jid" ] && on0 "$LZ" ps | grep -q "$name" && break
        sleep 0.1
      done
      on0 "$LZ" ps | grep -q "$name" || { kill $job; fail "cr=$cr: no coordinator registered on node 0: $(cat "$D/$cr.out")"; }
      sleep 1
      on0 "$LZ" checkpoint "$jid" --wait >"$D/ck.out" 2>&1 || fail "cr=$cr: lazarus checkpoint $jid failed: $(cat "$D/ck.out")"
      snap=$(grep -o "committed[^:]*: [^ ]*" "$D/ck.out" | awk '{ print $NF }')
      [ -d "$snap" ] || fail "cr=$cr: no snapshot committed: $(cat "$D/ck.out")"
      victim=$(pid_of_rank "$name" 5) || { kill $job; fail "cr=$cr: rank 5 (node 2) not found"; }
      kill -9 "$victim"
      t0=$(date +%s)
      wait $job && fail "cr=$cr: the step with a killed rank succeeded"
      took=$(($(date +%s) - t0))
      [ $took -le 20 ] || fail "cr=$cr: the step took $took s to end after rank 5 was killed: $(cat "$D/$cr.out")"
      grep -q "rank 5 (pid $victim on ${H[2]}) ended without MPI_Finalize\|rank 5 (pid $victim) on this host exited without finalizing\|rank 5 closed its tcp connection without finalizing" "$D/$cr.out" ||
        fail "cr=$cr: the killed rank 5 is not named: $(cat "$D/$cr.out")"
      [ -z "$(pgrep -x "$name")" ] || fail "cr=$cr: ranks left on the nodes: $(pgrep -a -x "$name")"
      no_leftovers "cr=$cr killed rank over 3 nodes"
      out=$(on0 timeout 200 salloc -Q -N3 --ntasks-per-node=2 "$LZ" restart "$snap" --timeout 120 2>&1) ||
        fail "cr=$cr: the restart over 3 nodes failed: $out"
      got=$(echo "$out" | grep -o 'sum=.*\|result [0-9]*')
      [ "$got" = "$ref" ] || fail "cr=$cr: restarted over 3 nodes: '$got', uninterrupted '$ref': $out"
      no_leftovers "cr=$cr restart over 3 nodes"
      summary="$summary cr=$cr (srun --mpi=$mpi): checkpointed, rank 5 killed (step ended in $took s), restarted: $got;"
    done
    # A node falls silent (its link down: no process dies, nothing closes):
    # the coordinator's keepalive on its ranks' connections (launch_helper_keepalive)
    # ends the job, naming them.
    tag=${H[0]%-h0}
    on0 env LZ_MCA_launch_helper_keepalive=4 LZ_MCA_cr=app LZ_MCA_crcp=c3 LZ_MCA_snapshot_root="$D/silent" timeout 200 \
      srun --mpi=pmi2 -N3 --ntasks-per-node=2 "$B/tests/app/stencil" 64 100000 3000 >"$D/silent.out" 2>&1 &
    job=$!
    for _ in $(seq 1 300); do on0 "$LZ" ps | grep -q stencil && break; sleep 0.1; done
    on0 "$LZ" ps | grep -q stencil || { kill $job; fail "silent node: no coordinator: $(cat "$D/silent.out")"; }
    sleep 1
    ip -n "$tag-hub" link set "${tag}v2b" down || { kill $job; fail "cannot take node 2's link down"; }
    t0=$(date +%s)
    for _ in $(seq 1 600); do
      grep -q "rank [45] (pid [0-9]* on ${H[2]}) is unreachable" "$D/silent.out" && break
      sleep 0.1
    done
    took=$(($(date +%s) - t0))
    ip -n "$tag-hub" link set "${tag}v2b" up
    grep -q "rank [45] (pid [0-9]* on ${H[2]}) is unreachable" "$D/silent.out" ||
      { kill $job; fail "the silent node's ranks were not named within 60 s: $(cat "$D/silent.out")"; }
    wait $job && fail "the job with a silent node succeeded"
    [ -z "$(pgrep -x stencil)" ] || fail "ranks left after the silent node's job: $(pgrep -a -x stencil)"
    no_leftovers "silent node"
    summary="$summary node 2 silent: its ranks named after $took s (launch_helper_keepalive 4);"
    echo "slurm.direct_cr_hosts: 6 ranks over 3 nodes:$summary"
    ;;
  *) fail "unknown case" ;;
esac
