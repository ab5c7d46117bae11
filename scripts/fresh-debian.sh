#!/usr/bin/env bash
# Run the README's two commands on a fresh Debian 12 (bookworm) made with debootstrap in a chroot: the
# closest thing to "a fresh machine" on a host that has none to spare (issue 37, item 4). Not a test.
#
#   scripts/fresh-debian.sh ROOT [REPO [REV]]       (as root; ROOT outside the repository, e.g. /work/fresh-root)
#
# 1. debootstrap bookworm into ROOT (skipped when ROOT already holds a system: delete ROOT for a fresh one);
#    the mirror is MIRROR (default: the first deb.debian.org-style URI in this host's apt sources);
# 2. binds ROOT onto itself (the chroot's / a mount point, as a machine's is: `unshare -m --propagation
#    private` in tests/shm fails with EINVAL otherwise), mounts proc, sysfs, /dev and /dev/pts (bound from
#    the host), a private tmpfs on /dev/shm (a fresh machine's own; the host's arenas stay out of it), a
#    tmpfs on /run and, where the host has them, its hugetlbfs mounts; where this host trusts extra CAs
#    (/usr/local/share/ca-certificates: an egress proxy's), its CA bundle goes in as NODE_EXTRA_CA_CERTS,
#    so that npm reaches the registry (the test oracles) as it does here;
# 3. `git clone`s REPO (default: this repository) at REV (default: its current branch) into ROOT/root/zkpipe;
# 4. runs, as root in the chroot, `bash scripts/demo.sh` then `bash scripts/test.sh` there, each timed;
#    everything goes to ROOT/root/fresh-run.log, and the last lines printed are each command's exit status
#    and wall time and the test summary line (the lines for bench/RESULTS.md);
# 5. ends the processes left in the chroot (by their pids) and unmounts everything, also on failure or ^C.
# SKIP_DEMO=1 runs only the test command; ZKPIPE_SANITIZE etc. pass through to scripts/test.sh.
# Services that package installs would start (postgresql) are kept from starting, as in any chroot
# (/usr/sbin/policy-rc.d): the tests make their own throwaway clusters.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,18p' "$0" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fresh-debian.sh: run as root (debootstrap, mount, chroot)" >&2; exit 2; }
root=$(realpath -m "$1")
here=$(cd "$(dirname "$0")/.." && pwd)
repo=${2:-$here}
rev=${3:-$(git -C "$here" rev-parse --abbrev-ref HEAD)}
case "$root/" in "$here"/*) echo "fresh-debian.sh: ROOT must be outside the repository ($here)" >&2; exit 2;; esac
[ "$root" != / ] || { echo "fresh-debian.sh: ROOT is /" >&2; exit 2; }
if [ -z "${MIRROR:-}" ]; then
  MIRROR=$(grep -hoE '(URIs:|^deb)[[:space:]]+[^[:space:]]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
             /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}' | head -n 1 || true)
  MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi
command -v debootstrap >/dev/null || { echo "fresh-debian.sh: installing debootstrap" >&2; apt-get install -y -qq debootstrap >/dev/null; }

mounted=()
cleanup() {
  set +e
  # processes still running in the chroot (daemons a failed test left): end them by pid
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  sleep 1
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || umount -l "${mounted[i]}"; done
  grep -F " $root/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$root/bin/bash" ]; then
  echo "fresh-debian.sh: debootstrap bookworm $root $MIRROR" >&2
  mkdir -p "$root"
  debootstrap bookworm "$root" "$MIRROR" >"$root.debootstrap.log" 2>&1 \
    || { tail -n 20 "$root.debootstrap.log" >&2; exit 1; }
  sec=${MIRROR%/debian}/debian-security; sec=${sec%/}
  cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $sec bookworm-security main
EOF
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"

mnt() { mkdir -p "${@: -1}"; mount "$@"; mounted+=("${@: -1}"); }
mnt --bind "$root" "$root"
mount --make-private "$root"
mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt --bind /dev "$root/dev"
mount --make-rslave "$root/dev"
mnt --bind /dev/pts "$root/dev/pts"
mnt -t tmpfs -o mode=1777 shm "$root/dev/shm"
awk '$3 == "hugetlbfs" {print $2}' /proc/self/mounts | while read -r h; do echo "$h"; done >"$root.huge"
while read -r h; do mnt --bind "$h" "$root$h"; done <"$root.huge"; rm -f "$root.huge"
mnt -t tmpfs tmpfs "$root/run"

cas=""
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1 && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl"; cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/host-ca-bundle.crt"
  cas=/etc/ssl/host-ca-bundle.crt
fi
rm -rf "$root/root/zkpipe"
git clone -q --branch "$rev" "$repo" "$root/root/zkpipe"
echo "fresh-debian.sh: $(git -C "$root/root/zkpipe" log -1 --format='%h %s') in $root/root/zkpipe" >&2

log=$root/root/fresh-run.log
cat >"$root/root/fresh-run.sh" <<'EOF'
#!/bin/bash
# run by scripts/fresh-debian.sh inside the chroot
cd /root/zkpipe
step() {
  local t0=$(date +%s) rc=0
  echo "=== $(date -u '+%F %T UTC') start: $*"
  "$@" || rc=$?
  local t1=$(date +%s)
  echo "=== $(date -u '+%F %T UTC') end: $* exit $rc wall $((t1 - t0)) s"
  echo "$*: exit $rc, wall $((t1 - t0)) s ($(( (t1 - t0) / 60 )) min $(( (t1 - t0) % 60 )) s)" >>/root/fresh-run.summary
}
: >/root/fresh-run.summary
[ "${SKIP_DEMO:-0}" = 1 ] || step bash scripts/demo.sh
step bash scripts/test.sh
echo "test summary: $(grep -E '^[0-9]+ passed' /root/fresh-run.log | tail -n 1)" >>/root/fresh-run.summary
EOF
chmod +x "$root/root/fresh-run.sh"
echo "fresh-debian.sh: running the README's commands; log $log" >&2
set +e
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 SKIP_DEMO="${SKIP_DEMO:-0}" \
  ${ZKPIPE_SANITIZE:+ZKPIPE_SANITIZE=$ZKPIPE_SANITIZE} ${cas:+NODE_EXTRA_CA_CERTS=$cas} \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash /root/fresh-run.sh >"$log" 2>&1
set -e
echo "--- host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %T UTC')"
cat "$root/root/fresh-run.summary"
