#!/bin/bash
# integration.sdk.examples.*: the three components of examples/components
# built out of tree from a scratch install prefix alone (find_package(Lazarus)
# and lazarus_add_component, nothing of the source or build tree on any path),
# then loaded from component_path and selected with --mca in real jobs.
# usage: examples_test.sh BUILD_DIR SOURCE_DIR SCENARIO
#   build      the three build; lazarus info lists them as plugins; each .so
#              exports only lazarus_component_descriptor
#   udsock     sdk_job over --mca transport udsock,self at np 2, 4, 8
#   allring    sdk_job with --mca coll allring,basic at np 3, 4, 8 over shm
#              and tcp; allring says it provided allreduce
#   sealed     stencil under --mca cr sealed, checkpointed every 10 safe points,
#              a rank killed, recovered: the uninterrupted result; the rank
#              files are sealed (no readable cr/app file in the store); a
#              restart under another key is refused naming the file
# Every job is bounded with --timeout; nothing measures wall-clock time.
set -u
build=$(readlink -f "$1") src=$(readlink -f "$2") scen=$3
work=$(mktemp -d /tmp/lz-sdk-examples.XXXXXX)
trap 'for p in $(jobs -p); do kill -9 $p 2>/dev/null; done; rm -rf "$work"' EXIT
# The prefix and the examples built from it are shared: `build` makes them
# (ctest's fixture sdk_examples), every other scenario uses them, `cleanup`
# removes them. Outside the source and build trees, which the examples'
# builds must not see; one per build tree.
shared=/tmp/lz-sdk-examples.$(printf %s "$build" | md5sum | cut -c1-12)
prefix=$shared/prefix
plugins=$shared/plugins
fail() { echo "FAIL: $*"; for f in "$work"/*.out "$shared"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done; exit 1; }

if [ "$scen" = cleanup ]; then
  rm -rf "$shared"
  exit 0
elif [ "$scen" = build ]; then
  rm -rf "$shared"
  mkdir -p "$shared" "$plugins"
  cmake --install "$build" --prefix "$prefix" > "$shared/install.log" 2>&1 || { cat "$shared/install.log"; fail "install"; }
  # A copy of the examples outside the source tree, built with a clean
  # environment: only the prefix is given.
  cp -r "$src/examples/components" "$shared/src"
  for ex in transport_udsock coll_allring cr_sealed; do
    env -i PATH=/usr/bin:/bin HOME="$shared" cmake -S "$shared/src/$ex" -B "$shared/build/$ex" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$shared/$ex.cmake.out" 2>&1 ||
      fail "configure $ex"
    env -i PATH=/usr/bin:/bin HOME="$shared" cmake --build "$shared/build/$ex" -j2 > "$shared/$ex.build.out" 2>&1 ||
      fail "build $ex"
    grep -q "Checking the descriptor" "$shared/$ex.build.out" || fail "$ex: lazarus-component-check did not run"
    grep -rq "$src\|$build" "$shared/build/$ex/CMakeCache.txt" &&
      fail "$ex: the build saw the source or build tree"
    cp "$shared/build/$ex"/lazarus_*.so "$plugins/"
  done
  rm -f "$shared"/*.out
  for so in $(ls "$plugins"/*.so 2>/dev/null); do
    extra=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^lazarus_component_descriptor$' | grep -v '^_init$\|^_fini$')
    [ -z "$extra" ] || fail "$(basename "$so") exports more than its entry point: $(echo $extra | head -c 300)"
  done
  touch "$shared/.ready"
elif [ ! -f "$shared/.ready" ]; then
  fail "no install prefix with the examples built in $shared: integration.sdk.examples.build makes it (ctest fixture sdk_examples)"
fi
LZ=$prefix/bin/lazarus
CP=(--mca component_path "$plugins")

case "$scen" in
build)
  "$LZ" info "${CP[@]}" > "$work/info.out" 2>&1 || fail "lazarus info"
  for c in transport/udsock transport/udsock_lossy coll/allring cr/sealed; do
    grep -q "^Plugin: $plugins/lazarus_${c%/*}_${c#*/}.so (${c})" "$work/info.out" || fail "lazarus info does not list $c as a plugin"
  done
  grep -q "^  udsock .* plugin " "$work/info.out" || fail "udsock not in the transport framework's list"
  grep -q "^  allring .* plugin " "$work/info.out" || fail "allring not in the coll framework's list"
  grep -q "^  sealed .* plugin " "$work/info.out" || fail "sealed not in the cr framework's list"
  grep -q "Plugin refused" "$work/info.out" && fail "a plugin was refused"
  # The descriptor check refuses what the loader would: a plugin that names
  # another component than its build says.
  "$prefix/libexec/lazarus/lazarus-component-check" "$plugins/lazarus_coll_allring.so" coll other > "$work/check.out" 2>&1 &&
    fail "lazarus-component-check accepted a wrong name"
  grep -q "declares coll/allring" "$work/check.out" || fail "the check did not say why"
  ;;
udsock | allring)
  "$prefix/bin/mpicc" -O2 -Wall -o "$work/sdk_job" "$src/tests/integration/sdk/sdk_job.c" > "$work/mpicc.out" 2>&1 || fail "mpicc"
  if [ "$scen" = udsock ]; then
    runs=("2 udsock,self" "4 udsock,self" "8 udsock,self")
  else
    runs=("3 shm,self" "4 shm,self" "8 shm,self" "3 tcp,self" "4 tcp,self" "8 tcp,self")
  fi
  for r in "${runs[@]}"; do
    set -- $r
    extra=()
    [ "$scen" = allring ] && extra=(--mca coll allring,basic --mca coll_allring_verbose 1)
    "$LZ" run -np "$1" "${CP[@]}" --mca transport "$2" "${extra[@]}" --timeout 240 "$work/sdk_job" > "$work/job.out" 2>&1 ||
      fail "np $1 over $2 ${extra[*]}"
    grep -q "sdk_job: np $1 errors 0" "$work/job.out" || fail "np $1 over $2: wrong results"
    if [ "$scen" = allring ]; then
      grep -q "coll/allring: allreduce provided on a communicator of $1 ranks" "$work/job.out" ||
        fail "np $1: allring was not used on MPI_COMM_WORLD"
    fi
  done
  # Without the plugin directory, naming it is a hard error, not a silent fallback.
  if [ "$scen" = udsock ]; then
    "$LZ" run -np 2 --mca transport udsock,self --timeout 60 "$work/sdk_job" > "$work/none.out" 2>&1 &&
      fail "a job over udsock ran without the plugin on component_path"
  fi
  ;;
sealed)
  "$prefix/bin/mpicc" -O2 -Wall -o "$work/stencil" "$src/examples/stencil.c" > "$work/mpicc.out" 2>&1 || fail "mpicc"
  # The ranks unseal into scratch directories under TMPDIR: none may stay
  # (plaintext), not even one of a rank stopped by another's refused restore.
  export TMPDIR="$work/tmp"
  mkdir "$TMPDIR"
  head -c 32 /dev/urandom > "$work/seal.key" && chmod 600 "$work/seal.key"
  "$LZ" run -np 3 --mca transport shm,self --timeout 300 "$work/stencil" 64 300 > "$work/ref.out" 2>&1 || fail "reference run"
  ref=$(grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$work/ref.out" | tail -1)
  [ -n "$ref" ] || fail "the reference run printed no result"
  MCA=("${CP[@]}" --mca transport shm,self --mca cr sealed --mca crcp c3 --mca cr_sealed_key_file "$work/seal.key"
       --mca snapshot_root "$work/store")
  "$LZ" run -np 4 "${MCA[@]}" --mca cr_app_every 10 --recover auto --timeout 300 "$work/stencil" 64 300 3000 \
    > "$work/job.out" 2>&1 &
  job=$!
  for i in $(seq 1 600); do
    [ "$(grep -c committed "$work/job.out")" -ge 3 ] && break
    sleep 0.1
  done
  [ "$(grep -c committed "$work/job.out")" -ge 3 ] || fail "no 3 committed snapshots after 60 s"
  victim=$(pgrep -f "^$work/stencil 64 300" | shuf -n 1)
  [ -n "$victim" ] || fail "no rank to kill"
  kill -9 "$victim"
  wait $job || fail "the job did not recover"
  grep -q 'restarting from snapshot' "$work/job.out" || fail "no restart after kill -9 of rank pid $victim"
  got=$(grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$work/job.out" | tail -1)
  [ "$got" = "$ref" ] || fail "recovered result '$got', uninterrupted run '$ref'"
  files=$(find "$work/store" -name 'rank.*.lzck' | wc -l)
  [ "$files" -gt 0 ] || fail "no rank files in the store"
  sealed=$(find "$work/store" -name 'rank.*.lzck' -exec head -c 10 {} \; -exec echo \; | grep -c '^LZSEALED1')
  [ "$sealed" = "$files" ] || fail "$sealed of $files rank files are sealed"
  # Another key: the restart is refused and names the file.
  head -c 32 /dev/urandom > "$work/other.key" && chmod 600 "$work/other.key"
  store=$(ls -d "$work"/store/*/ | head -1)
  "$LZ" restart "${CP[@]}" --mca cr_sealed_key_file "$work/other.key" --timeout 120 "$store" > "$work/wrongkey.out" 2>&1 &&
    fail "a restart under another key succeeded"
  grep -q "does not open under cr_sealed_key_file's key" "$work/wrongkey.out" || fail "the refusal does not say why"
  "$LZ" restart "${CP[@]}" --mca cr_sealed_key_file "$work/seal.key" --timeout 300 "$store" > "$work/restart.out" 2>&1 ||
    fail "a restart from the sealed store under the right key failed"
  got=$(grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$work/restart.out" | tail -1)
  [ "$got" = "$ref" ] || fail "restarted result '$got', uninterrupted run '$ref'"
  left=$(find "$TMPDIR" -maxdepth 1 -name 'lz-sealed.*')
  [ -z "$left" ] || fail "unsealed scratch directories left behind: $left"
  ;;
conformance_builtin)
  # The installed runner over built-in components of every framework, by name.
  for c in self shm coll/basic cr/none crcp/none crcp/bkmrk; do
    "$LZ" conformance --component "$c" --junit "$work/junit.xml" > "$work/conf.out" 2>&1 || fail "conformance of $c"
    grep -q ' 0 failed$' "$work/conf.out" || fail "$c: no summary line"
    grep -q '<testcase ' "$work/junit.xml" || fail "$c: JUnit XML without cases"
    grep -q '<failure' "$work/junit.xml" && fail "$c: JUnit XML with a failure"
  done
  "$LZ" conformance --component none > "$work/conf.out" 2>&1
  [ $? = 2 ] || fail "an ambiguous name (none: cr and crcp) was not a usage error"
  grep -q "say which: cr/none" "$work/conf.out" || fail "the ambiguity is not explained"
  ;;
conformance_examples)
  head -c 32 /dev/urandom > "$work/seal.key" && chmod 600 "$work/seal.key"
  for so in lazarus_transport_udsock lazarus_coll_allring lazarus_cr_sealed; do
    key=()
    [ $so = lazarus_cr_sealed ] && key=(--mca cr_sealed_key_file "$work/seal.key")
    "$LZ" conformance --component "$plugins/$so.so" "${key[@]}" --junit "$work/junit.xml" > "$work/conf.out" 2>&1 ||
      fail "conformance of $so"
    grep -q "^Conformance of .* (plugin $plugins/$so.so)" "$work/conf.out" || fail "$so: not run as the plugin"
    passed=$(grep -o '[0-9]* passed' "$work/conf.out" | awk '{print $1}')
    [ "${passed:-0}" -gt 0 ] || fail "$so: no case passed"
    grep -q '<failure' "$work/junit.xml" && fail "$so: JUnit XML with a failure"
    cp "$work/conf.out" "$work/conf.$so.txt"
  done
  # cr/sealed's application-level round trip really ran (the key reached it).
  grep -q 'VariablesRoundTripOnTheSameRankCount  *PASS' "$work/conf.lazarus_cr_sealed.txt" || {
    cat "$work/conf.lazarus_cr_sealed.txt"; fail "cr/sealed: no round-trip case passed"; }
  ;;
conformance_broken)
  # transport/udsock_lossy drops every 10th frame: the runner must fail it and
  # name the cases that saw the gap, in the table and in the JUnit XML.
  # --timeout 10: the cases it hangs are killed after 10 s instead of 120.
  "$LZ" conformance --component "$plugins/lazarus_transport_udsock_lossy.so" --junit "$work/junit.xml" \
    --timeout 10 > "$work/conf.out" 2>&1
  rc=$?
  [ $rc = 1 ] || fail "the broken plugin's run exited $rc, not 1"
  grep -q '^TransportConformance.Ordering  *FAIL ' "$work/conf.out" || fail "the table does not name Ordering as failed"
  grep -q 'name="Ordering" ' "$work/junit.xml" || fail "JUnit XML does not hold Ordering"
  grep -A1 'name="Ordering" ' "$work/junit.xml" | grep -q '<failure' || fail "JUnit XML does not fail Ordering"
  failed=$(grep -o '[0-9]* failed$' "$work/conf.out" | awk '{print $1}')
  echo "udsock_lossy: $failed case(s) failed:"
  grep ' FAIL ' "$work/conf.out"
  ;;
*) fail "unknown scenario $scen" ;;
esac
echo "sdk examples $scen: ok"
