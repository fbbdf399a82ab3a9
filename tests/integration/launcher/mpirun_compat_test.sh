#!/bin/bash
# mpirun runs the job scripts people already have (issue 42): Open MPI's and
# MPICH Hydra's options, MPMD, foreign tuning names. Each option is checked
# by what it promises, as mpirun_probe.c reports it per rank (appnum,
# universe size, host, local rank, CPUs, working directory, program,
# arguments, environment, stdin), through mpirun and mpiexec, on this host.
# Usage: mpirun_compat_test.sh SCENARIO BIN_DIR PROBE
#   mpmd      `-np 2 p a : -np 1 p b`, --app FILE, -configfile FILE, -file FILE;
#             per-program -x, -env, -wdir, --path; MPI_APPNUM, MPI_UNIVERSE_SIZE
#   openmpi   Open MPI's options (4.1 and 5.x spellings)
#   hydra     MPICH Hydra's and the MPI standard's mpiexec options
#   foreign   Open MPI MCA names (--mca, OMPI_MCA_*, --am, --tune) and
#             MPICH's MPIR_CVAR_* mapped or warned about; a misspelled
#             Lazarus name still refused
#   hydra_pmi2  Lazarus programs started by MPICH's own mpiexec (PMI-2)
#   openmpi_pmix  ... and by Open MPI's own mpirun (PMIx)
#   cr        an MPMD job checkpointed (--term) and restarted, recovered after
#             kill -9, and a rank migrated: every rank keeps its program,
#             arguments and appnum, and the result is an uninterrupted run's
# Every job is bounded by --timeout; nothing measures wall-clock time.
set -u
SCEN=$1 BIN=$2 PROBE=$3
M=$BIN/mpirun E=$BIN/mpiexec LZ=$BIN/lazarus
T=$(mktemp -d /tmp/lz-compat.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() {
  echo "FAIL ($SCEN): $*"
  for f in "$T"/*.out "$T"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}
SLOTS=$(nproc)
# run NAME ARGS...: the job's stdout in NAME.out, stderr in NAME.err; must exit 0.
run() {
  local name=$1
  shift
  "$@" < /dev/null > "$T/$name.out" 2> "$T/$name.err" || fail "$name: '$*' exited $?: $(tail -3 "$T/$name.err")"
}
# line NAME RANK: the probe line of RANK in NAME.out.
line() { grep "^\(\[[0-9]*\] \)\?probe rank=$2 " "$T/$1.out"; }
# expect NAME RANK FIELD=VALUE...: every field as given in RANK's line.
expect() {
  local name=$1 rank=$2 l f
  shift 2
  l=$(line "$name" "$rank") || fail "$name: no line of rank $rank: $(cat "$T/$name.out")"
  for f in "$@"; do
    case " $l " in *" $f "*) ;; *) fail "$name: rank $rank has not '$f': $l" ;; esac
  done
}
ranks_of() { grep -c "probe rank=" "$T/$1.out"; }
# has_env NAME RANK VAR=VALUE: VAR=VALUE among the rank's env= entries.
has_env() {
  local l
  l=$(line "$1" "$2" | sed 's/.* env=\(.*\) stdin=.*/\1/')
  case ";$l;" in *";$3;"*) ;; *) fail "$1: rank $2 has not $3 in its environment: $l" ;; esac
}
no_env() {
  local l
  l=$(line "$1" "$2" | sed 's/.* env=\(.*\) stdin=.*/\1/')
  case ";$l;" in *";$3="*) fail "$1: rank $2 has $3 in its environment: $l" ;; esac
}
warned() { grep -q -- "$2" "$T/$1.err" || fail "$1: no warning '$2': $(cat "$T/$1.err")"; }

case $SCEN in
mpmd)
  for launcher in "$M" "$E"; do
    run mpmd "$launcher" -np 2 "$PROBE" a b : -np 1 -x PROBE_ONLY=1 "$PROBE" c
    [ "$(ranks_of mpmd)" = 3 ] || fail "$(basename "$launcher"): MPMD ran $(ranks_of mpmd) ranks, not 3"
    expect mpmd 0 size=3 appnum=0 args=a\|b universe=$SLOTS
    expect mpmd 1 size=3 appnum=0 args=a\|b
    expect mpmd 2 size=3 appnum=1 args=c universe=$SLOTS
    has_env mpmd 2 PROBE_ONLY=1
    no_env mpmd 0 PROBE_ONLY
  done
  # A single program: appnum 0.
  run spmd "$M" -np 2 "$PROBE"
  expect spmd 1 appnum=0 size=2
  # Open MPI's appfile, Hydra's configfile and the standard's -file: one program per line.
  printf '%s\n' "# comment" "-np 1 $PROBE first" "-np 2 -x PROBE_K=v $PROBE 'two words'" > "$T/appfile"
  run app "$M" --app "$T/appfile"
  expect app 0 appnum=0 args=first size=3
  expect app 1 appnum=1 "args=two words"
  has_env app 2 PROBE_K=v
  run cfg "$E" -configfile "$T/appfile"
  expect cfg 2 appnum=1 size=3
  run file "$E" -file "$T/appfile"
  expect file 0 args=first
  # Per-program working directory and path.
  mkdir -p "$T/w1" "$T/bin"
  cp "$PROBE" "$T/bin/probe_in_path"
  run wdir "$M" -np 1 -wdir "$T/w1" "$PROBE" : -np 1 --path "$T/bin" probe_in_path
  expect wdir 0 cwd="$T/w1"
  expect wdir 1 cwd="$T" prog=probe_in_path appnum=1
  # Refused with the reason: a program without -np beside others, an option of the job's after ':'.
  "$M" "$PROBE" : -np 1 "$PROBE" > "$T/bad.out" 2>&1 && fail "an MPMD program without -np was run"
  grep -q "give -np to every program" "$T/bad.out" || fail "no reason for the missing -np: $(cat "$T/bad.out")"
  "$M" -np 1 "$PROBE" : -np 1 --timeout 5 "$PROBE" > "$T/bad2.out" 2>&1 && fail "a job option after ':' was taken"
  grep -q "applies to the whole job" "$T/bad2.out" || fail "no reason for the misplaced option: $(cat "$T/bad2.out")"
  ;;
openmpi)
  run root "$M" --allow-run-as-root --noprefix -np 2 "$PROBE"
  [ "$(ranks_of root)" = 2 ] || fail "--allow-run-as-root"
  # -N / --npernode / ppr: ranks per host (one host: the count is the job's size).
  for opt in "-N 2" "--npernode 2" "-npernode 2" "--map-by ppr:2:node"; do
    run ppn "$M" $opt "$PROBE"
    [ "$(ranks_of ppn)" = 2 ] || fail "$opt started $(ranks_of ppn) ranks, not 2"
    expect ppn 1 local=1/2 universe=2
  done
  # Binding: hardware threads, PE=n cores per rank, NUMA, L3.
  run hw "$M" -np 2 --bind-to hwthread --report-bindings "$PROBE"
  cpus0=$(line hw 0 | sed 's/.* cpus=\([^ ]*\) .*/\1/')
  case $cpus0 in *[,-]*) fail "--bind-to hwthread gave rank 0 several CPUs: $cpus0" ;; esac
  grep -q "rank 1 bound to CPUs" "$T/hw.err" || fail "--report-bindings said nothing"
  if [ "$SLOTS" -ge 2 ]; then
    run pe "$M" -np 1 --map-by ppr:1:node:PE=2 "$PROBE"
    [ "$(line pe 0 | sed 's/.* cpus=\([^ ]*\) .*/\1/' | tr ',' '\n' | awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n }')" = 2 ] ||
      fail "PE=2 did not bind rank 0 to 2 CPUs: $(line pe 0)"
  fi
  for obj in numa l3cache socket core; do run b_$obj "$M" -np 1 --bind-to $obj "$PROBE"; done
  # --display-map, --display-allocation, Open MPI 5's --display.
  run disp "$M" -np 2 --display-map --display-allocation "$PROBE" x
  grep -q "rank 1 on .* program 0 ($PROBE x)" "$T/disp.err" || fail "--display-map: $(cat "$T/disp.err")"
  grep -q "host .* slots $SLOTS" "$T/disp.err" || fail "--display-allocation: $(cat "$T/disp.err")"
  run disp5 "$M" -np 1 --display map,allocation "$PROBE"
  grep -q "rank 0 on" "$T/disp5.err" || fail "--display map"
  # Output: per-rank files (Open MPI's layout), NOJOBID/NOCOPY, merge, time stamps.
  run of "$M" -np 2 --output-filename "$T/od" "$PROBE"
  grep -q "probe rank=1 " "$T/od/1/rank.1/stdout" || fail "--output-filename: no $T/od/1/rank.1/stdout"
  [ -f "$T/od/1/rank.0/stderr" ] || fail "--output-filename: no rank.0/stderr"
  [ "$(ranks_of of)" = 2 ] || fail "--output-filename did not copy to the terminal"
  run of2 "$M" -np 2 --output-filename "$T/od2:nojobid,nocopy" "$PROBE"
  grep -q "probe rank=0 " "$T/od2/rank.0/stdout" || fail "--output-filename DIR:nojobid: no rank.0/stdout"
  [ "$(ranks_of of2)" = 0 ] || fail "nocopy still copied to the terminal"
  run of5 "$M" -np 2 --output dir="$T/od5",tag "$PROBE"
  grep -q "probe rank=1 " "$T/od5/1/rank.1/stdout" || fail "--output dir="
  grep -q "^\[[0-9a-f]*,1\]<stdout>:probe rank=1" "$T/of5.out" || fail "--output tag"
  run merge "$M" -np 1 --merge-stderr-to-stdout sh -c 'echo to-stderr >&2'
  grep -q to-stderr "$T/merge.out" || fail "--merge-stderr-to-stdout: stderr not on stdout"
  run ts "$M" -np 1 --timestamp-output "$PROBE"
  grep -q "^\[20[0-9-]*T[0-9:.]*\] probe rank=0" "$T/ts.out" || fail "--timestamp-output: $(cat "$T/ts.out")"
  # Working directory, path, stdin.
  mkdir -p "$T/wd"
  run wd "$M" -np 1 -wdir "$T/wd" "$PROBE"
  expect wd 0 cwd="$T/wd"
  run wd2 "$M" -np 1 --wdir "$T/wd" "$PROBE"
  expect wd2 0 cwd="$T/wd"
  seq 1 3 > "$T/in"
  "$M" -np 2 --stdin 1 "$PROBE" < "$T/in" > "$T/si.out" 2> "$T/si.err" || fail "--stdin 1"
  expect si 1 stdin=1
  expect si 0 stdin=\<eof\>
  "$M" -np 2 --stdin none "$PROBE" < "$T/in" > "$T/sn.out" 2>&1 || fail "--stdin none"
  expect sn 0 stdin=\<eof\>
  "$M" -np 2 "$PROBE" < "$T/in" > "$T/s0.out" 2>&1 || fail "stdin from a file"
  expect s0 0 stdin=1
  seq 7 9 | "$M" -np 2 "$PROBE" > "$T/sp.out" 2>&1 || fail "stdin from a pipe"
  expect sp 0 stdin=7
  # --mca / --gmca, --prefix (launch_prefix), --preload-binary, --nolocal.
  PROBE_SHOW=LZ_MCA_launch_prefix,LZ_MCA_p2p_spin_count run gm "$M" -np 1 --gmca p2p_spin_count 7 --prefix /opt/lz "$PROBE"
  has_env gm 0 LZ_MCA_p2p_spin_count=7
  has_env gm 0 LZ_MCA_launch_prefix=/opt/lz
  run pre "$M" -np 1 --preload-binary "$PROBE"
  warned pre "--preload-binary has no effect"
  "$M" -np 1 --nolocal "$PROBE" > "$T/nl.out" 2>&1 && fail "--nolocal ran a rank on this host"
  grep -q "nolocal leaves no host" "$T/nl.out" || fail "--nolocal: $(cat "$T/nl.out")"
  # --tune FILE: options read from a file.
  echo "-np 2 -x PROBE_TUNED=yes" > "$T/tune"
  run tune "$M" --tune "$T/tune" "$PROBE"
  has_env tune 1 PROBE_TUNED=yes
  # --help lists them.
  "$M" --help > "$T/help.out" 2>&1 || fail "mpirun --help"
  for o in --allow-run-as-root --npernode --map-by --rank-by --bind-to --display-map --display-allocation \
           --output-filename --merge-stderr-to-stdout --timestamp-output --prefix --wdir --path \
           --preload-binary --stdin --mca --gmca --tune --am --nolocal --noprefix --app --genv --ppn \
           --outfile-pattern --errfile-pattern --launcher --iface --prepend-rank --configfile; do
    grep -q -- "$o" "$T/help.out" || fail "mpirun --help does not list $o"
  done
  ;;
hydra)
  printf 'localhost:2\n' > "$T/hf"
  PROBE_X=1 PROBE_Y=2 run h1 "$E" -f "$T/hf" -ppn 2 -genv PROBE_G g -prepend-rank -launcher fork -n 2 "$PROBE" : \
    -n 1 -env PROBE_L l -envnone "$PROBE" z
  [ "$(ranks_of h1)" = 3 ] || fail "Hydra line ran $(ranks_of h1) ranks"
  grep -q "^\[2\] probe rank=2 " "$T/h1.out" || fail "-prepend-rank: $(cat "$T/h1.out")"
  has_env h1 0 PROBE_G=g
  has_env h1 0 PROBE_X=1
  has_env h1 2 PROBE_L=l
  has_env h1 2 PROBE_G=g
  no_env h1 2 PROBE_X
  expect h1 2 appnum=1 args=z
  PROBE_X=1 PROBE_Y=2 run h2 "$E" -n 1 -genvlist PROBE_Y "$PROBE"
  has_env h2 0 PROBE_Y=2
  no_env h2 0 PROBE_X
  PROBE_X=1 run h3 "$E" -n 1 -genvnone "$PROBE"
  no_env h3 0 PROBE_X
  PROBE_X=1 run h4 "$E" -n 1 -genvall -hosts localhost:1 "$PROBE"
  has_env h4 0 PROBE_X=1
  run h5 "$E" -n 2 -bind-to core -map-by core -iface lo -launcher ssh -launcher-exec ssh "$PROBE"
  run h6 "$E" -n 2 -outfile-pattern "$T/out.%r.txt" -errfile-pattern "$T/err.%r.txt" "$PROBE"
  grep -q "probe rank=1 " "$T/out.1.txt" || fail "-outfile-pattern: no out.1.txt"
  [ -f "$T/err.0.txt" ] || fail "-errfile-pattern: no err.0.txt"
  [ "$(ranks_of h6)" = 0 ] || fail "-outfile-pattern also wrote to the terminal"
  # The MPI standard's mpiexec keys.
  mkdir -p "$T/sw"
  run std "$E" -n 2 -host localhost -arch x86_64 -wdir "$T/sw" -path "$(dirname "$PROBE")" -soft 1:2 "$PROBE"
  expect std 1 cwd="$T/sw"
  warned std "-arch x86_64 (program 0) has no effect"
  warned std "-soft 1:2 (program 0) has no effect"
  ;;
foreign)
  PROBE_SHOW=LZ_MCA_transport,LZ_MCA_launch_agent,LZ_MCA_transport_tcp_if_include,LZ_MCA_coll_tuned_allreduce_algorithm,LZ_MCA_oob_address
  export PROBE_SHOW
  run btl "$M" -np 2 --mca btl self,vader --mca btl_tcp_if_include lo --mca plm_rsh_agent "ssh -x : rsh" "$PROBE"
  has_env btl 0 LZ_MCA_transport=self,shm
  has_env btl 0 LZ_MCA_transport_tcp_if_include=lo
  has_env btl 0 "LZ_MCA_launch_agent=ssh -x"
  run btl2 "$M" -np 2 --mca btl ^openib --mca pml ob1 --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_allreduce_algorithm 4 --mca mpi_yield_when_idle 1 --mca orte_base_help_aggregate 0 "$PROBE"
  warned btl2 "btl ^openib (--mca) has no effect"
  warned btl2 "pml ob1 (--mca) has no effect"
  warned btl2 "mpi_yield_when_idle 1 (--mca) has no effect"
  warned btl2 "orte_base_help_aggregate 0 (--mca) has no effect"
  has_env btl2 0 LZ_MCA_coll_tuned_allreduce_algorithm=ring
  OMPI_MCA_btl=tcp,self OMPI_MCA_oob_tcp_if_include=lo run env "$M" -np 2 "$PROBE"
  has_env env 1 LZ_MCA_transport=tcp,self
  has_env env 1 LZ_MCA_oob_address=lo
  # The command line beats the environment.
  OMPI_MCA_btl=tcp,self run env2 "$M" -np 1 --mca transport shm,self "$PROBE"
  has_env env2 0 LZ_MCA_transport=shm,self
  printf 'btl = self,tcp\n# a comment\nhwloc_base_binding_policy = none\n' > "$T/mca-params.conf"
  run am "$M" -np 2 --am "$T/mca-params.conf" "$PROBE"
  has_env am 0 LZ_MCA_transport=self,tcp
  [ "$(line am 0 | sed 's/.* cpus=\([^ ]*\) .*/\1/')" = "$(line am 1 | sed 's/.* cpus=\([^ ]*\) .*/\1/')" ] ||
    fail "hwloc_base_binding_policy none still bound the ranks: $(cat "$T/am.out")"
  MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring MPIR_CVAR_ASYNC_PROGRESS=1 run cvar "$M" -np 1 "$PROBE"
  has_env cvar 0 LZ_MCA_coll_tuned_allreduce_algorithm=ring
  warned cvar "MPIR_CVAR_ASYNC_PROGRESS=1 (MPIR_CVAR_ASYNC_PROGRESS) has no effect"
  # A Lazarus name misspelled is still an error naming it.
  "$M" -np 1 --mca transprot tcp "$PROBE" > "$T/typo.out" 2>&1 && fail "a misspelled Lazarus name was accepted"
  grep -q "unknown parameter 'transprot'.*did you mean 'transport'" "$T/typo.out" || fail "typo: $(cat "$T/typo.out")"
  ;;
cr)
  [ "$(id -u)" = 0 ] || { echo "SKIP: CRIU needs root"; exit 77; }
  "$LZ" info --mca cr criu > /dev/null 2>&1 || { echo "SKIP: cr/criu is unavailable here"; exit 77; }
  export PROBE_ITERS=300
  MPMD=(-np 2 "$PROBE" a b : -np 1 "$PROBE" c)
  run ref "$M" --mca cr none --timeout 120 "${MPMD[@]}"
  want() {  # NAME: the reference's lines but the host-dependent fields
    for r in 0 1 2; do
      ref=$(line ref $r | sed 's/ host=[^ ]* / /; s/ local=[^ ]* / /; s/ cpus=[^ ]* / /')
      got=$(line "$1" $r | sed 's/ host=[^ ]* / /; s/ local=[^ ]* / /; s/ cpus=[^ ]* / /')
      [ "$got" = "$ref" ] || fail "$1: rank $r: '$got', uninterrupted: '$ref'"
    done
  }
  start() {  # NAME ARGS...: an MPMD job in the background
    local name=$1
    shift
    "$M" --mca cr criu --mca snapshot_root "$T/store.$name" --timeout 120 "$@" "${MPMD[@]}" < /dev/null \
      > "$T/$name.out" 2> "$T/$name.err" &
    JOB=$!
    for i in $(seq 1 100); do
      ID=$("$LZ" ps | awk -v p=$JOB '$2 == p { print $1 }')
      [ -n "$ID" ] && break
      sleep 0.1
    done
    [ -n "$ID" ] || fail "$name: the job did not appear in lazarus ps"
    sleep 1
  }
  start term
  "$LZ" ps > "$T/ps.out"
  grep "^$ID " "$T/ps.out" | grep -q -- "$PROBE a b : $PROBE c" || fail "lazarus ps does not show the programs: $(cat "$T/ps.out")"
  "$LZ" checkpoint "$ID" --term --wait > "$T/ck.out" 2>&1 || fail "checkpoint --term: $(cat "$T/ck.out")"
  wait $JOB || fail "the job stopped by --term exited $?"
  grep -q "apps:" "$T"/store.term/*/manifest.yaml || fail "the manifest records no programs"
  "$LZ" restart "$(ls -d "$T"/store.term/*/)" --timeout 120 > "$T/rs.out" 2> "$T/rs.err" || fail "restart: $(tail -3 "$T/rs.err")"
  want rs
  start recover --recover auto
  "$LZ" checkpoint "$ID" --wait > "$T/ck2.out" 2>&1 || fail "checkpoint: $(cat "$T/ck2.out")"
  victim=$(pgrep -f "^$PROBE c\$" | head -1)
  [ -n "$victim" ] || fail "no process of program 1"
  kill -9 "$victim"
  wait $JOB || fail "the recovered job exited $?"
  grep -q "restarting from snapshot" "$T/recover.err" || fail "no recovery: $(tail -3 "$T/recover.err")"
  want recover
  start migrate
  "$LZ" migrate "$ID" --rank 2 --to "$(hostname)" > "$T/mig.out" 2>&1 || fail "migrate: $(cat "$T/mig.out")"
  wait $JOB || fail "the job exited $? after the migration"
  want migrate
  ;;
hydra_pmi2)
  # Started by MPICH's own mpiexec (Hydra): no Lazarus launcher, the ranks
  # bootstrap over Hydra's PMI-2 server (runtime/bootstrap/pmi2_bootstrap.h).
  # Not the probe: it reads stdin, which Hydra leaves open for ranks past 0
  # (an MPICH-built probe waits there too).
  command -v mpiexec.mpich > /dev/null || { echo "SKIP: no mpiexec.mpich (Debian's mpich)"; exit 77; }
  TESTS=$(dirname "$(dirname "$PROBE")")
  run hring timeout 120 mpiexec.mpich -n 4 "$TESTS/mpi/ring"
  grep -q "ring: 4 ranks ok" "$T/hring.out" || fail "ring under mpiexec.mpich did not report 4 ranks"
  run href "$LZ" run -np 3 --timeout 120 "$TESTS/app/stencil" 48 200
  run hst timeout 120 mpiexec.mpich -n 3 "$TESTS/app/stencil" 48 200
  ref=$(grep -o 'sum=.*' "$T/href.out") got=$(grep -o 'sum=.*' "$T/hst.out")
  [ -n "$ref" ] && [ "$got" = "$ref" ] || fail "stencil under mpiexec.mpich: '$got', under lazarus run: '$ref'"
  # The parameter `bootstrap`: singleton ranks whatever started them; a bad
  # value and a missing manager are refused, named.
  LZ_MCA_bootstrap=singleton run hsingle timeout 120 mpiexec.mpich -n 2 "$TESTS/mpi/ring"
  [ "$(grep -c "ring: 1 ranks ok" "$T/hsingle.out")" = 2 ] || fail "bootstrap=singleton did not make two jobs of one rank"
  LZ_MCA_bootstrap=bogus "$TESTS/mpi/ring" > "$T/bogus.out" 2>&1 && fail "bootstrap=bogus was taken"
  grep -q "bootstrap='bogus' is not one of auto, oob, pmix, pmi2, singleton" "$T/bogus.out" ||
    fail "bootstrap=bogus: $(tail -2 "$T/bogus.out")"
  LZ_MCA_bootstrap=pmi2 "$TESTS/mpi/ring" > "$T/nopmi.out" 2>&1 && fail "bootstrap=pmi2 without a manager was taken"
  grep -q "bootstrap=pmi2, but PMI_FD is not set" "$T/nopmi.out" || fail "bootstrap=pmi2 alone: $(tail -2 "$T/nopmi.out")"
  ;;
openmpi_pmix)
  # Started by Open MPI's own mpirun (its PMIx server): the ranks bootstrap
  # through libpmix (runtime/bootstrap/pmix/pmix_bootstrap.h).
  command -v mpirun.openmpi > /dev/null || { echo "SKIP: no mpirun.openmpi (Debian's openmpi-bin)"; exit 77; }
  [ -e "$BIN/../lib/liblazarus_pmix.so" ] || { echo "SKIP: Lazarus was built without PMIx (libpmix-dev)"; exit 77; }
  TESTS=$(dirname "$(dirname "$PROBE")")
  OMPI=(mpirun.openmpi --oversubscribe)
  [ "$(id -u)" = 0 ] && OMPI+=(--allow-run-as-root)
  run oring timeout 120 "${OMPI[@]}" -np 4 "$TESTS/mpi/ring"
  grep -q "ring: 4 ranks ok" "$T/oring.out" || fail "ring under Open MPI's mpirun did not report 4 ranks"
  run oref "$LZ" run -np 3 --timeout 120 "$TESTS/app/stencil" 48 200
  run ost timeout 120 "${OMPI[@]}" -np 3 "$TESTS/app/stencil" 48 200
  ref=$(grep -o 'sum=.*' "$T/oref.out") got=$(grep -o 'sum=.*' "$T/ost.out")
  [ -n "$ref" ] && [ "$got" = "$ref" ] || fail "stencil under Open MPI's mpirun: '$got', under lazarus run: '$ref'"
  ;;
*) fail "unknown scenario" ;;
esac
echo "PASS: mpirun compatibility, $SCEN"
