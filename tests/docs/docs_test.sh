#!/usr/bin/env bash
# docs_test.sh: keeps the user guide (README.md, docs/) true.
#
#   docs_test.sh [--links-only] BUILD_DIR SOURCE_DIR [PAGE...]
#
# 1. Links (docs_extract.py): every relative link of README.md and docs/**/*.md
#    names a file that exists (and a heading, for #anchors), and docs/README.md
#    lists every page.
# 2. Examples: every fenced block whose info string is `sh test` runs, in page
#    order, with bash -euo pipefail: one scratch directory per page (its blocks
#    share it, so a block may use what an earlier one built), HOME inside it
#    (so ~/.lazarus/snapshots and ~/.config/lazarus are the page's own),
#    BUILD_DIR/bin first on PATH, LZ_DOCS_SRC=SOURCE_DIR, LZ_DOCS_BUILD=BUILD_DIR, no LZ_MCA_* from
#    outside. Each block must exit 0 within LZ_DOCS_BLOCK_TIMEOUT seconds
#    (default 120) and leave no process behind; a failure prints the page, the
#    block's line and its output. `sh test criu` blocks are skipped (saying so)
#    where cr/criu cannot run; `sh test requires=CMD` ones when CMD is missing.
#    Plain ```sh blocks are illustrations and are not run.
# PAGE (paths relative to SOURCE_DIR) limits both to those pages, e.g.
#   tests/docs/docs_test.sh build . docs/running.md
# LZ_DOCS_VERBOSE=1 prints every block's output, not only a failed one's.
# Exit status: 0 all good, 1 a link or a block failed, 2 usage.
set -u

links_only=0
if [ "${1:-}" = --links-only ]; then links_only=1; shift; fi
[ $# -ge 2 ] || { echo "usage: docs_test.sh [--links-only] BUILD_DIR SOURCE_DIR [PAGE...]" >&2; exit 2; }
BUILD=$(cd "$1" && pwd) || exit 2
SRC=$(cd "$2" && pwd) || exit 2
shift 2
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${LZ_DOCS_BLOCK_TIMEOUT:-120}

# Descriptors above 2 inherited from whatever started the suite are closed:
# a block's background job (cr_run ./counter) would carry them into its
# checkpoint, and one opened in another mount namespace (CI runs the suite
# under `unshare --mount-proc`; its harness left fd 10 on /dev/null) is one
# CRIU cannot save: "Can't lookup mount=23 for fd=10 path=/dev/null".
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2> /dev/null
done
S=$(mktemp -d /tmp/lz-docs.XXXXXX) || exit 1
cd /
# Whatever a block left running (the block's process group, and anything with
# its working directory in the scratch tree, such as a restored process) dies
# with the test; then the scratch tree goes.
procs_in() {  # DIR: pids whose working directory is under DIR
  local p d
  for p in /proc/[0-9]*; do
    d=$(readlink "$p/cwd" 2>/dev/null) || continue
    case "$d" in "$1" | "$1"/*) echo "${p#/proc/}" ;; esac
  done
}
# A zombie has ended: only its parent's wait is missing (under a PID namespace
# whose init does not reap, a process substitution's child stays one).
not_zombies() {
  local p s
  while read -r p; do
    s=$(awk '{ print $3 }' "/proc/$p/stat" 2> /dev/null)
    [ -n "$s" ] && [ "$s" != Z ] && echo "$p"
  done
}
cleanup() {
  local p
  for p in $(procs_in "$S"); do kill -9 "$p" 2>/dev/null; done
  rm -rf "$S"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

failures=0
"$PY" "$HERE/docs_extract.py" "$SRC" "$S/blocks" "$@" > "$S/links.out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL links:"
  sed 's/^/  /' "$S/links.out"
  failures=$((failures + 1))
fi
if [ $links_only = 1 ]; then
  [ $failures = 0 ] && echo "links: ok"
  exit $((failures > 0))
fi
[ -f "$S/blocks/blocks.tsv" ] || { echo "FAIL: no block list (docs_extract.py failed)"; exit 1; }

[ -x "$BUILD/bin/lazarus" ] || { echo "FAIL: $BUILD/bin/lazarus is missing (build first)"; exit 1; }
while IFS= read -r v; do unset "$v"; done < <(env | sed -n 's/^\(LZ_MCA_[A-Za-z0-9_]*\)=.*/\1/p')
unset XDG_CONFIG_HOME LZ_LOG_LEVEL
export PATH="$BUILD/bin:$PATH" LZ_DOCS_SRC="$SRC" LZ_DOCS_BUILD="$BUILD"

count=0 passed=0 skipped=0
start_all=$SECONDS
while IFS=$'\t' read -r n page line attrs; do
  count=$((count + 1))
  where="$page:$line (block $n)"
  why=""
  for a in $attrs; do
    case "$a" in
      criu) "$BUILD/bin/lazarus" info --mca cr criu > /dev/null 2>&1 ||
              why="needs cr/criu, which cannot run here (uid $(id -u)): $("$BUILD/bin/lazarus" info --mca cr criu 2>&1 | grep -m1 'criu .*unavailable' | sed 's/^ *//')" ;;
      requires=*)
        for c in $(tr ',' ' ' <<< "${a#requires=}"); do
          command -v "$c" > /dev/null || why="needs $c, which is not installed here"
        done ;;
    esac
  done
  if [ -n "$why" ]; then
    echo "SKIP $where: $why"
    skipped=$((skipped + 1))
    continue
  fi
  dir="$S/pages/${page//\//_}"
  mkdir -p "$dir/work" "$dir/home"
  out="$S/blocks/$n.out"
  t0=$SECONDS
  # Its own session: the block and whatever it starts in the background form
  # one process group, killed afterwards.
  (cd "$dir/work" && HOME="$dir/home" exec setsid bash -euo pipefail "$S/blocks/$n.sh") > "$out" 2>&1 < /dev/null &
  pid=$!
  timed_out=0
  while kill -0 $pid 2>/dev/null; do
    if [ $((SECONDS - t0)) -ge "$TIMEOUT" ]; then
      timed_out=1
      kill -TERM -- -$pid 2>/dev/null
      sleep 2
      kill -KILL -- -$pid 2>/dev/null
      break
    fi
    sleep 0.1
  done
  wait $pid
  rc=$?
  # Nothing may outlive its block (a job left in the background, a rank, a
  # restored process): what is still there 3 s after it ended is a failure.
  left=""
  for i in $(seq 1 30); do
    left=$({ pgrep -g $pid; procs_in "$dir"; } | sort -u | not_zombies)
    [ -z "$left" ] && break
    sleep 0.1
  done
  [ -n "$left" ] && ps -o pid=,args= -p "$(echo $left | tr ' ' ,)" > "$out.left" 2>/dev/null
  kill -KILL -- -$pid 2>/dev/null
  secs=$((SECONDS - t0))
  if [ $timed_out = 1 ] || [ $rc -ne 0 ] || [ -n "$left" ]; then
    failures=$((failures + 1))
    if [ $timed_out = 1 ]; then echo "FAIL $where: still running after ${TIMEOUT} s"
    elif [ $rc -ne 0 ]; then echo "FAIL $where: exit status $rc after ${secs} s"
    else echo "FAIL $where: left processes behind (killed now):"; cat "$out.left"
    fi
    echo "--- the block:"
    awk -v l="$line" '{ printf "%5d  %s\n", l + NR, $0 }' "$S/blocks/$n.sh"
    echo "--- its output (last 60 lines):"
    tail -n 60 "$out"
    echo "---"
    for p in $left; do kill -9 "$p" 2>/dev/null; done
  else
    echo "PASS $where (${secs} s)"
    [ "${LZ_DOCS_VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$out"
    passed=$((passed + 1))
  fi
done < "$S/blocks/blocks.tsv"

echo "docs: $count blocks, $passed passed, $skipped skipped, $((count - passed - skipped)) failed; $((SECONDS - start_all)) s"
exit $((failures > 0))
