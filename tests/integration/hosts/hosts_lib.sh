# Shared by the hosts.* test scripts (sourced): namespace hosts from
# scripts/test_hosts and the check that a job left nothing behind on them.
# Needs TH (the test_hosts script), D (the test's directory, where the hosts
# live), B (the build directory) and a fail() function of the caller.

# hosts_up N: N hosts; exits 77 (with the fixture's reason) where the kernel
# forbids namespaces. Sets H (names), A (addresses), AGENT (the launch_agent
# value) and on() (on I CMD...: runs CMD on host I).
hosts_up() {
  local out st
  out=$("$TH" up "$D" "$1" 2>&1); st=$?
  [ $st = 77 ] && { echo "$out"; exit 77; }
  [ $st = 0 ] || fail "test_hosts up: $out"
  mapfile -t H < <(awk '{ print $1 }' "$D/hosts")
  mapfile -t A < <(awk '{ print $2 }' "$D/hosts")
  AGENT="ssh -F $D/ssh_config"
}
on() { local i=$1; shift; "$TH" exec "$D" "$i" "$@"; }

# Every process in a host's namespace except its sshd (whose per-session
# children end with the session) must be gone once the launcher returned.
no_leftovers() {
  local h p cmd left=""
  for h in "${H[@]}"; do
    for p in $(ip netns pids "$h"); do
      cmd=$(tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline") || continue
      case $cmd in *sshd*) continue ;; esac
      [ -n "$cmd" ] && left+="$h: $p $cmd"$'\n'
    done
  done
  [ -z "$left" ] || fail "processes left after the job ($1):"$'\n'"$left"
}

# The id of the job running on the hosts named by $2 ("h0,h1", as lazarus
# ps shows them) once lazarus ps lists it, while the launcher `pid` runs.
job_of() {
  local i id
  for i in $(seq 1 300); do
    id=$("$B/bin/lazarus" ps | awk -v h=" $2 " 'index($0, h) { print $1 }' | head -1)
    [ -n "$id" ] && { echo "$id"; return 0; }
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
