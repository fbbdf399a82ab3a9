# reference_run DIR KEY PROG CMD...  (sourced by the integration scripts)
#
# An uninterrupted run's output, to compare a checkpointed, restarted or
# migrated job with: CMD runs in DIR (created), its stdout in DIR/out, its
# stderr in DIR/err, and whatever files it writes there stay. That output is
# a function of the program and its arguments alone (KEY must name every one
# that matters: program, ranks, iterations, transport, input), so it is kept
# beside PROG in .reference/KEY and copied back instead of run again while
# PROG is not rebuilt (PROG is rebuilt with the libraries): the dozens of
# scenarios of one transport run their reference once per build, not each.
# Returns CMD's status (0 from the cache).
reference_run() {
  local dir=$1 key=$2 prog=$3
  shift 3
  local cache
  cache="$(dirname "$prog")/.reference/$key"
  mkdir -p "$dir"
  if [ -f "$cache/.done" ] && [ "$cache/.done" -nt "$prog" ]; then
    cp -a "$cache/." "$dir/" && rm -f "$dir/.done" && return 0
  fi
  (cd "$dir" && "$@" > out 2> err) || return $?
  local tmp="$cache.tmp.$$"
  # An ordinary user's test (as_user.sh) may not write beside PROG: no cache then.
  mkdir -p "$(dirname "$cache")" 2>/dev/null && [ -w "$(dirname "$cache")" ] || return 0
  rm -rf "$tmp" && mkdir -p "$tmp" && cp -a "$dir/." "$tmp/" && touch "$tmp/.done" &&
    rm -rf "$cache" && mv "$tmp" "$cache"
  return 0
}
