#!/bin/bash
# hosts.ssh.*: `lazarus run --host` starts ranks on other hosts through one
# helper per host over ssh (scripts/test_hosts makes the hosts: network
# namespaces with their own sshd; the launcher runs on host 0).
# Usage: ssh_launch_test.sh PATH/TO/test_hosts BUILD_DIR CASE
# CASE: mpi (ring, stress, nbc over h0:2,h1:2, default selection and
# tcp,self), remote (all ranks on h1 and h2), output (--tag-output, each rank
# on its host; --map-by node), failure (a remote rank exits 7), killed (a remote rank gets
# kill -9 on its host), helper (the helper of a host is killed), timeout (--timeout stops remote ranks), stranger (a
# wrong secret is refused while the job goes on; lazarus ps shows the hosts),
# compat (mpirun's placement options over the hosts, Open MPI's and Hydra's).
# After every job no process of it is left on any host.
set -u
TH=$1
B=$2
CASE=$3
D=$(mktemp -d /tmp/lz-ssh.XXXXXX)
trap '"$TH" down "$D" >/dev/null 2>&1; rm -rf "$D"' EXIT
fail() { echo "FAIL ($CASE): $*"; exit 1; }

. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3
# mpirun on host 0; $1 is the --host value, the rest the options and program.
run() { local hosts=$1; shift; on 0 "$B/bin/mpirun" --host "$hosts" --mca launch_agent "$AGENT" "$@"; }

case $CASE in
  mpi)
    for t in default tcp,self; do
      mca=(); [ $t = default ] || mca=(--mca transport $t)
      for prog in ring "stress 4" nbc; do
        # shellcheck disable=SC2086
        out=$(run "${H[0]}:2,${H[1]}:2" -np 4 "${mca[@]}" --timeout 120 "$B/tests/mpi/"$prog 2>&1) ||
          fail "$prog over ${H[0]}:2,${H[1]}:2 ($t) failed: $out"
        no_leftovers "$prog $t"
      done
    done
    # Oversubscribed: 8 ranks on 2 hosts of 2 cores.
    out=$(run "${H[0]}:4,${H[1]}:4" -np 8 --timeout 200 "$B/tests/mpi/ring" 2>&1) || fail "ring np 8 over 2 hosts failed: $out"
    echo "$out" | grep -q "ring: 8 ranks ok" || fail "ring np 8 did not report success: $out"
    no_leftovers "ring np 8"
    # Ranks on two hosts never pair over shm: shm,self alone cannot connect them.
    out=$(run "${H[0]}:1,${H[1]}:1" -np 2 --mca transport shm,self --timeout 60 "$B/tests/mpi/ring" 2>&1) &&
      fail "shm,self connected ranks on two hosts: $out"
    # (the rank that fails first says it; the other may be stopped before it does)
    echo "$out" | grep -q "no selected transport (self,shm) reaches rank \(1 on host ${H[1]}\|0 on host ${H[0]}\)" ||
      fail "shm,self across hosts did not fail for want of a transport: $out"
    no_leftovers "shm,self"
    echo "hosts.ssh.mpi: ring, stress, nbc on 2 hosts (default, tcp,self), ring np 8 passed; shm never across hosts"
    ;;
  remote)
    for prog in ring nbc; do
      out=$(run "${H[1]}:2,${H[2]}:2" -np 4 --timeout 120 "$B/tests/mpi/$prog" 2>&1) ||
        fail "$prog over ${H[1]}:2,${H[2]}:2 failed: $out"
      no_leftovers "$prog"
    done
    echo "hosts.ssh.remote: ring, nbc with every rank on remote hosts passed"
    ;;
  output)
    out=$(run "${H[0]}:1,${H[1]}:2,${H[2]}:1" -np 4 --tag-output --timeout 60 \
      sh -c 'echo "rank $LZ_RANK at $(ip -4 -o addr show eth0 | awk "{ print \$4 }")"; echo "err of $LZ_RANK" >&2' 2>&1) ||
      fail "job failed: $out"
    job=$(echo "$out" | sed -n 's/^\[\([0-9a-f]*\),0\]<stdout>:.*/\1/p' | head -1)
    [ -n "$job" ] || fail "no tagged output of rank 0: $out"
    for r in 0 1 2 3; do
      case $r in 0) h=0 ;; 1 | 2) h=1 ;; 3) h=2 ;; esac
      echo "$out" | grep -qx "\[$job,$r\]<stdout>:rank $r at ${A[$h]}/24" ||
        fail "rank $r did not say it runs on ${H[$h]} (${A[$h]}): $out"
      echo "$out" | grep -qx "\[$job,$r\]<stderr>:err of $r" || fail "rank $r's stderr missing: $out"
    done
    no_leftovers output
    # --map-by node: the hosts take one rank each in turn.
    out=$(run "${H[0]}:2,${H[1]}:2" -np 4 --map-by node --timeout 60 \
      sh -c 'echo "rank $LZ_RANK at $(ip -4 -o addr show eth0 | awk "{ print \$4 }")"' 2>&1) || fail "--map-by node job failed: $out"
    for r in 0 1 2 3; do
      h=$((r % 2))
      echo "$out" | grep -qx "rank $r at ${A[$h]}/24" || fail "--map-by node: rank $r not on ${H[$h]}: $out"
    done
    no_leftovers "map-by node"
    echo "hosts.ssh.output: 4 ranks on 3 hosts, each on its host, stdout and stderr tagged; --map-by node alternates hosts"
    ;;
  failure)
    out=$(run "${H[0]}:1,${H[1]}:2" -np 3 --timeout 60 \
      sh -c 'if [ $LZ_RANK = 2 ]; then sleep 1; exit 7; fi; exec sleep 300' 2>&1); st=$?
    [ $st = 7 ] || fail "exit status $st, expected 7: $out"
    echo "$out" | grep -q "rank 2 (pid [0-9]* on ${H[1]}) exited with code 7" || fail "rank 2 not named: $out"
    no_leftovers failure
    # Ranks that end at once: the local rank 0 while rank 1 is still being
    # started on its host, rank 1 before its start is acknowledged. Rank 1
    # waits (at most 5 s) for rank 0 to have written its line: the job stops
    # its ranks when rank 1 fails, and a rank 0 not yet past its echo would
    # rightly be stopped before it says anything (seen once in CI).
    rm -f "$D/said0"
    out=$(run "${H[0]}:1,${H[1]}:1" -np 2 --timeout 60 sh -c 'echo "out $LZ_RANK"
      if [ $LZ_RANK = 0 ]; then : > "$1"; exit 0; fi
      for _ in $(seq 1 500); do [ -e "$1" ] && break; sleep 0.01; done; exit 1' sh "$D/said0" 2>&1); st=$?
    [ $st = 1 ] || fail "exit status $st, expected 1: $out"
    echo "$out" | grep -q "rank 1 (pid [0-9]* on ${H[1]}) exited with code 1" || fail "rank 1 not named: $out"
    echo "$out" | grep -qx "out 0" && echo "$out" | grep -qx "out 1" || fail "output lost: $out"
    no_leftovers "failure at once"
    echo "hosts.ssh.failure: a remote rank's exit 7 stopped the job, named, nothing left"
    ;;
  killed)
    run "${H[0]}:1,${H[1]}:1,${H[2]}:1" -np 3 --timeout 120 sleep 300 >"$D/out" 2>&1 &
    job=$!
    pid=""
    for _ in $(seq 1 200); do
      for p in $(ip netns pids "${H[2]}"); do
        [ "$(tr '\0' ' ' 2>/dev/null < /proc/$p/cmdline)" = "sleep 300 " ] && pid=$p
      done
      [ -n "$pid" ] && break
      sleep 0.1
    done
    [ -n "$pid" ] || { kill $job; fail "rank 2 never ran on ${H[2]}: $(cat "$D/out")"; }
    on 2 kill -9 "$pid"
    wait $job; st=$?
    [ $st = 137 ] || fail "exit status $st, expected 137: $(cat "$D/out")"
    grep -q "rank 2 (pid $pid on ${H[2]}) was killed by signal 9" "$D/out" || fail "rank 2 not named: $(cat "$D/out")"
    no_leftovers killed
    echo "hosts.ssh.killed: kill -9 of a remote rank stopped the job, named, nothing left"
    ;;
  helper)
    # The helper of h1 dies (kill -9): its ranks die with it (PR_SET_PDEATHSIG)
    # and the launcher stops the job naming the host and the lost ranks.
    run "${H[0]}:1,${H[1]}:2" -np 3 --timeout 120 sleep 300 >"$D/out" 2>&1 &
    job=$!
    hp=""
    for _ in $(seq 1 200); do
      n=0
      for p in $(ip netns pids "${H[1]}"); do
        case "$(tr '\0' ' ' 2>/dev/null < /proc/$p/cmdline)" in
          *" helper --job "*) hp=$p ;;
          "sleep 300 ") n=$((n + 1)) ;;
        esac
      done
      [ -n "$hp" ] && [ $n = 2 ] && break
      sleep 0.1
    done
    [ -n "$hp" ] && [ $n = 2 ] || { kill $job; fail "the helper and 2 ranks never ran on ${H[1]}: $(cat "$D/out")"; }
    on 1 kill -9 "$hp"
    wait $job; st=$?
    [ $st = 1 ] || fail "exit status $st, expected 1: $(cat "$D/out")"
    grep -q "the helper on host ${H[1]} closed its connection to the launcher (connection closed by the helper); lost ranks 1, 2" "$D/out" ||
      fail "the lost host and ranks were not named: $(cat "$D/out")"
    no_leftovers helper
    echo "hosts.ssh.helper: a killed helper takes its ranks along; the job stops naming them, nothing left"
    ;;
  timeout)
    out=$(run "${H[1]}:1,${H[2]}:1" -np 2 --timeout 3 sleep 300 2>&1); st=$?
    [ $st = 124 ] || fail "exit status $st, expected 124: $out"
    echo "$out" | grep -q "exceeded its --timeout" || fail "no timeout message: $out"
    no_leftovers timeout
    echo "hosts.ssh.timeout: --timeout stopped ranks on remote hosts, nothing left"
    ;;
  stranger)
    # Ranks say where the launcher is, then wait for the test's go.
    run "${H[0]}:1,${H[1]}:1" -np 2 --timeout 120 \
      sh -c "echo \"\$LZ_JOB_ID \$LZ_OOB_ADDR\" > $D/where.\$LZ_RANK; while [ ! -e $D/go ]; do sleep 0.1; done; echo done \$LZ_RANK" \
      >"$D/out" 2>&1 &
    job=$!
    for _ in $(seq 1 200); do [ -s "$D/where.1" ] && break; sleep 0.1; done
    [ -s "$D/where.1" ] || { kill $job; fail "rank 1 did not start: $(cat "$D/out")"; }
    read -r id addr < "$D/where.1"
    case $addr in 127.*) fail "the launcher advertised loopback ($addr) to a remote host" ;; esac
    ps_out=$("$B/bin/lazarus" ps)
    echo "$ps_out" | grep -q "^$id .* ${H[0]},${H[1]} " || fail "lazarus ps does not show the hosts: $ps_out"
    # A stranger on host 2 poses as a helper, and as rank 1, with a wrong secret.
    bad=$(printf '%064d\n' 7 | on 2 "$B/bin/lazarus" helper --job "$id" --oob "$addr" --index 0 --host x 2>&1) &&
      fail "a helper with a wrong secret was accepted: $bad"
    echo "$bad" | grep -q "closed the connection\|refused" || fail "the stranger helper was not refused: $bad"
    touch "$D/go"
    wait $job; st=$?
    [ $st = 0 ] || fail "the job failed after the stranger (status $st): $(cat "$D/out")"
    grep -q "refused unauthenticated OOB connection .*wrong MAC for the helper of host 0" "$D/out" ||
      fail "the launcher did not log the refusal: $(cat "$D/out")"
    grep -q "^done 0$" "$D/out" && grep -q "^done 1$" "$D/out" || fail "ranks did not finish: $(cat "$D/out")"
    no_leftovers stranger
    echo "hosts.ssh.stranger: a wrong secret was refused and logged, the job went on; ps shows the hosts"
    ;;
  compat)
    # mpirun's placement options across hosts (issue 42), as mpirun_probe
    # reports them: ranks per node, --map-by node, --rank-by node, a
    # program's own -host (MPMD), Hydra's hostfile and -hosts, --nolocal,
    # --prefix.
    P=$B/tests/launcher/mpirun_probe
    host_of() { echo "$1" | grep "probe rank=$2 " | sed 's/.* host=\([^ ]*\) .*/\1/'; }
    hosts_seq() { for r in $(seq 0 $(($2 - 1))); do printf '%s ' "$(host_of "$1" $r)"; done; }
    three="${H[0]}:2,${H[1]}:2,${H[2]}:2"
    out=$(run "$three" -N 1 --timeout 60 "$P" 2>&1) || fail "-N 1: $out"
    [ "$(hosts_seq "$out" 3)" = "${H[0]} ${H[1]} ${H[2]} " ] || fail "-N 1 over 3 hosts: $(hosts_seq "$out" 3)"
    echo "$out" | grep -q "probe rank=1 .* universe=3 .* local=0/1" || fail "-N 1: local rank or universe: $out"
    out=$(run "$three" -np 4 --map-by ppr:2:node --timeout 60 "$P" 2>&1) || fail "ppr:2:node: $out"
    [ "$(hosts_seq "$out" 4)" = "${H[0]} ${H[0]} ${H[1]} ${H[1]} " ] || fail "ppr:2:node: $(hosts_seq "$out" 4)"
    out=$(run "$three" -np 3 --map-by node --timeout 60 "$P" 2>&1) || fail "--map-by node: $out"
    [ "$(hosts_seq "$out" 3)" = "${H[0]} ${H[1]} ${H[2]} " ] || fail "--map-by node: $(hosts_seq "$out" 3)"
    out=$(run "$three" -np 4 --rank-by node --timeout 60 "$P" 2>&1) || fail "--rank-by node: $out"
    [ "$(hosts_seq "$out" 4)" = "${H[0]} ${H[1]} ${H[0]} ${H[1]} " ] || fail "--rank-by node: $(hosts_seq "$out" 4)"
    # MPMD: each program on its own host.
    out=$(on 0 "$B/bin/mpirun" --mca launch_agent "$AGENT" --timeout 60 -np 1 -host "${H[1]}" "$P" a : \
      -np 2 -host "${H[2]}:2" "$P" b 2>&1) || fail "MPMD with -host per program: $out"
    [ "$(hosts_seq "$out" 3)" = "${H[1]} ${H[2]} ${H[2]} " ] || fail "per-program -host: $(hosts_seq "$out" 3)"
    echo "$out" | grep -q "probe rank=2 .* appnum=1 " || fail "per-program -host: appnum: $out"
    # Hydra: a host:N hostfile, -hosts, -ppn, through mpiexec.
    printf '%s:1\n%s:1\n' "${H[1]}" "${H[2]}" > "$D/hydra_hosts"
    out=$(on 0 "$B/bin/mpiexec" -f "$D/hydra_hosts" -launcher-exec "$AGENT" -n 2 "$P" 2>&1) || fail "-f host:N: $out"
    [ "$(hosts_seq "$out" 2)" = "${H[1]} ${H[2]} " ] || fail "Hydra hostfile: $(hosts_seq "$out" 2)"
    out=$(on 0 "$B/bin/mpiexec" -hosts "${H[0]},${H[2]}" -launcher-exec "$AGENT" -ppn 1 -n 2 "$P" 2>&1) ||
      fail "-hosts -ppn: $out"
    [ "$(hosts_seq "$out" 2)" = "${H[0]} ${H[2]} " ] || fail "-hosts -ppn 1: $(hosts_seq "$out" 2)"
    # --nolocal: none on the launcher's host; --prefix: the helpers' lazarus is <prefix>/bin/lazarus.
    out=$(run "${H[0]}:2,${H[1]}:2" -np 2 --nolocal --prefix "$B" --timeout 60 "$P" 2>&1) || fail "--nolocal --prefix: $out"
    [ "$(hosts_seq "$out" 2)" = "${H[1]} ${H[1]} " ] || fail "--nolocal: $(hosts_seq "$out" 2)"
    out=$(run "${H[1]}:1" -np 1 --prefix /nonexistent --timeout 60 "$P" 2>&1) && fail "--prefix /nonexistent ran: $out"
    echo "$out" | grep -q "/nonexistent/bin/lazarus" || fail "a wrong --prefix is not named: $out"
    no_leftovers compat
    echo "hosts.ssh.compat: -N, ppr, --map-by node, --rank-by node, per-program -host, Hydra hostfile and -hosts, --nolocal, --prefix"
    ;;
  *) fail "unknown case" ;;
esac
