#!/bin/bash
# as_user.sh CMD [ARGS...]: runs a test as an ordinary account, the way a
# cluster's users run jobs (issue 41: checkpoint/restart without root).
#
# As root it makes the account `lazarus-test` (useradd, no home, no login
# shell) if missing, lets it reach the build tree (o+x on the directories
# above the paths the command names, o+rx on a directory named), and drops to it with
# setpriv: no capability, no supplementary group, HOME in a directory of its
# own. As anyone else it runs CMD as that user.
#
# A test that skips (exit 77) as the ordinary user fails here when it
# passes the same check as root: a skip must not hide that the ordinary
# user's path does not work. LZ_AS_USER_ROOT_CHECK is that check (a command,
# default: `lazarus info --mca cr criu` of the build tree named by
# LZ_AS_USER_BIN).
set -u
[ $# -ge 1 ] || { echo "usage: as_user.sh CMD [ARGS...]" >&2; exit 2; }
USER_NAME=${LZ_TEST_USER:-lazarus-test}

if [ "$(id -u)" != 0 ]; then exec "$@"; fi

if ! id -u "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$USER_NAME" 2>/dev/null ||
    id -u "$USER_NAME" >/dev/null 2>&1 || { echo "FAIL: cannot create the account $USER_NAME (useradd)"; exit 1; }
fi
uid=$(id -u "$USER_NAME") gid=$(id -g "$USER_NAME")

# Every directory from / down to the programs the test names must be
# searchable by others (a clone in a `mktemp -d` directory is 0700), and a
# directory named is readable too: a job may run there, and CRIU opens a
# restored process's working directory.
for a in "$@"; do
  case "$a" in /*) ;; *) continue ;; esac
  d=$a
  if [ -d "$d" ]; then chmod o+rx "$d" 2>/dev/null; else d=$(dirname "$d"); fi
  while [ "$d" != / ] && [ -n "$d" ]; do
    chmod o+x "$d" 2>/dev/null
    d=$(dirname "$d")
  done
done

home=$(mktemp -d /tmp/lz-user-home.XXXXXX)
chown "$uid:$gid" "$home"
trap 'rm -rf "$home"' EXIT
HOME=$home USER=$USER_NAME LOGNAME=$USER_NAME setpriv --reuid="$uid" --regid="$gid" --clear-groups \
  --inh-caps=-all "$@"
rc=$?
if [ $rc = 77 ]; then
  check=${LZ_AS_USER_ROOT_CHECK:-${LZ_AS_USER_BIN:+$LZ_AS_USER_BIN/lazarus info --mca cr criu}}
  if [ -n "$check" ] && $check >/dev/null 2>&1; then
    echo "FAIL: the test skipped as $USER_NAME (uid $uid), but \`$check\` passes as root: the ordinary user's path is broken"
    exit 1
  fi
fi
exit $rc
