#!/bin/bash
# hosts.fixture: scripts/test_hosts makes 3 hosts that reach each other over
# ssh by name and nothing else, refuses a key it did not make, and leaves
# nothing behind (namespaces, /etc/netns entries, processes).
# Usage: fixture_test.sh PATH/TO/test_hosts
set -u
TH=$1
D=$(mktemp -d /tmp/lz-hosts.XXXXXX)
trap '"$TH" down "$D" >/dev/null 2>&1; rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; for f in "$D"/sshd.*.log; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }

out=$("$TH" up "$D" 3 2>&1); st=$?
[ $st = 77 ] && { echo "$out"; exit 77; }
[ $st = 0 ] || fail "test_hosts up: $out"
mapfile -t H < <(awk '{ print $1 }' "$D/hosts")
[ ${#H[@]} = 3 ] || fail "3 hosts expected, $D/hosts has ${#H[@]}"
on() { local i=$1; shift; "$TH" exec "$D" "$i" "$@"; }
SSH=(ssh -F "$D/ssh_config")

# Every host reaches every other by name, and is the host it claims to be.
for i in 0 1 2; do
  for j in 0 1 2; do
    addr=$(on "$i" "${SSH[@]}" "${H[$j]}" "ip -4 -o addr show eth0" 2>&1) || fail "ssh ${H[$i]} -> ${H[$j]}: $addr"
    want=$(awk -v h="${H[$j]}" '$1 == h { print $2 }' "$D/hosts")
    echo "$addr" | grep -q "inet $want/" || fail "${H[$j]} reached from ${H[$i]} has $addr, expected $want"
  done
done
# A host has no route but its own subnet: nothing it sends leaves the namespaces.
routes=$(on 1 ip -4 route)
[ "$(echo "$routes" | wc -l)" = 1 ] && echo "$routes" | grep -q "^10.213.0.0/24 dev eth0" ||
  fail "host 1 has routes beyond its subnet: $routes"
# A key the fixture did not make is refused.
ssh-keygen -q -t ed25519 -N '' -f "$D/stranger"
sed "s#IdentityFile .*#IdentityFile $D/stranger#" "$D/ssh_config" > "$D/stranger_config"
if on 0 ssh -F "$D/stranger_config" "${H[1]}" true 2>/dev/null; then
  fail "a stranger's key was accepted"
fi
# A job process started over ssh is found and stopped by down.
on 0 "${SSH[@]}" "${H[2]}" "setsid sleep 300 </dev/null >/dev/null 2>&1 &"
ip netns pids "${H[2]}" | grep -q . || fail "no process in ${H[2]} after starting one"
"$TH" down "$D" || fail "test_hosts down failed"
ip netns list | grep -q "$(basename "${H[0]}" -h0)" && fail "namespaces left: $(ip netns list)"
for h in "${H[@]}"; do [ -e "/etc/netns/$h" ] && fail "/etc/netns/$h left"; done
pgrep -f "sshd -f $D/" >/dev/null && fail "sshd left: $(pgrep -af "sshd -f $D/")"
pgrep -f "^sleep 300$" >/dev/null && fail "the job process on ${H[2]} was left running"
echo "hosts.fixture: 3 hosts, 9 ssh paths, stranger refused, nothing left"
