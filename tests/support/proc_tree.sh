# Process-tree helpers for shell tests (sourced): which processes a job has,
# and which of them are still there, by the kernel's view (ps, /proc),
# whatever PID namespaces they are in. Used by tests/integration/cr/cr_test.sh
# and tests/fault/campaign.
# Every descendant of pid $1 as "pid:starttime" (the start time tells a
# reused pid apart); the kernel's view, whatever namespaces they are in.
tree_of() {
  local k st out=""
  # One ps for the whole tree: the walk is quick enough to catch short-lived
  # processes (a criu helper) on a loaded machine.
  for k in $(ps -e -o pid=,ppid= | awk -v root="$1" '
      { parent[$1] = $2; order[NR] = $1 }
      END {
        keep[root] = 1
        do {
          grew = 0
          for (i = 1; i <= NR; i++) {
            p = order[i]
            if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1; print p }
          }
        } while (grew)
      }'); do
    st=$(awk '{ print $22 }' /proc/$k/stat 2>/dev/null) && [ -n "$st" ] && out="$out $k:$st"
  done
  echo $out
}
# "pid:starttime"... -> those still there. A plain zombie (state Z, one
# thread) has ended and only waits for init to reap it, which is not ours to
# do; a zombie with live threads (Zl: a rank still held by a criu) counts.
still_alive() {
  local e st
  for e in "$@"; do
    st=$(sed 's/.*) //' /proc/${e%%:*}/stat 2>/dev/null) || continue
    set -- $st   # fields from 3 on: $1 state, $18 num_threads, $20 starttime
    [ "${20}" = "${e#*:}" ] || continue
    [ "$1" = Z ] && [ "${18}" = 1 ] && continue
    echo "$e"
  done
}
