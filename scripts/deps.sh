#!/usr/bin/env bash
# Install what zkpipe builds and tests with (Debian). Idempotent; quiet when all is present.
set -eu
pkgs="build-essential meson ninja-build pkg-config libnanomsg-dev liburing-dev libhugetlbfs-dev
      libnuma-dev libinih-dev libjansson-dev libxxhash-dev libmicrohttpd-dev
      chromium nlohmann-json3-dev libgmp-dev nasm postgresql libpq-dev iproute2 procps cargo curl"
# chromium: tests/pipeline/status_page.sh loads the supervisor's status page in a real browser;
# nlohmann-json3-dev libgmp-dev nasm: circom's C++ witness generators (tests/pipeline/witgen.sh)
# postgresql (server, for the tests' throwaway clusters), libpq-dev, iproute2 (ip netns): tests/cluster
# cargo (Debian's, with its rustc): rust/supraseal-c2, built offline by tests/supraseal/crate.sh
# curl: tests/pipeline/health.sh reads /status over HTTP (absent from a fresh Debian: found by
# scripts/fresh-debian.sh)
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# node/npm (test oracles) often come from outside Debian; install Debian's only when absent.
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -n "$missing" ]; then
  echo "deps: installing$missing" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
# nvcc is optional: put it on PATH when the toolkit is there, so meson builds cuda/.
if [ -x /usr/local/cuda/bin/nvcc ]; then
  case ":$PATH:" in *:/usr/local/cuda/bin:*) ;; *) echo "export PATH=/usr/local/cuda/bin:\$PATH";; esac
fi
