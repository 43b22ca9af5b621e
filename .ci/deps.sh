#!/bin/sh
# Installs the Debian packages soageo's build, tests and demo need, when they are missing.
# `sh .ci/deps.sh` for the demo and tests; `sh .ci/deps.sh neon` adds the aarch64 cross tools;
# `sh .ci/deps.sh extra` adds clang, valgrind and friends. Does nothing when all are present.
set -e
need="make g++ pkg-config binutils lua5.4 liblua5.4-dev lua-busted luarocks"
case "$1" in
neon) need="$need g++-aarch64-linux-gnu qemu-user" ;;
extra) need="$need clang libclang-rt-14-dev valgrind" ;;
esac
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "soageo: installing missing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
	echo "soageo: run as root (or install sudo) to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
