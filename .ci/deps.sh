#!/bin/sh
# Makes sure the tools soageo's build, tests and demo need are there.
# `sh .ci/deps.sh` for the tests; `sh .ci/deps.sh run` only what building the module and
# running the examples needs (make demo, scene, world); `sh .ci/deps.sh neon` adds the aarch64
# cross tools; `sh .ci/deps.sh extra` adds clang, valgrind and friends. Does nothing when all
# are present.
# On Debian (dpkg and apt-get, as root or with sudo) missing packages are installed. Elsewhere,
# or where installing is not possible, it checks the commands themselves: it names what is
# missing and fails only when a command is, so a machine with the tools installed some other
# way (another distribution, a source build) goes on.
set -e
need="make g++ pkg-config binutils lua5.4 liblua5.4-dev lua-busted luarocks"
tools="make ${CXX:-g++} ${LUA:-lua5.4} busted objdump"
case "$1" in
run)
	need="make g++ lua5.4 liblua5.4-dev"
	tools="make ${CXX:-g++} ${LUA:-lua5.4}"
	;;
neon)
	need="$need gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user"
	tools="$tools aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64"
	;;
extra)
	need="$need clang libclang-rt-14-dev valgrind"
	tools="$tools clang++ valgrind"
	;;
esac

check_tools() {
	absent=""
	for t in $tools; do command -v "$t" >/dev/null 2>&1 || absent="$absent $t"; done
	if [ -n "$absent" ]; then
		echo "soageo: missing commands:$absent ($1)" >&2
		exit 1
	fi
	[ -n "$2" ] && echo "soageo: $2; the commands needed are there, going on" >&2
	exit 0
}

command -v dpkg-query >/dev/null 2>&1 || check_tools "not a Debian system: install them with its package manager"
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else sudo="none"; fi
if [ "$sudo" = none ] || ! command -v apt-get >/dev/null 2>&1; then
	check_tools "install the Debian packages:$missing" "cannot install the Debian packages:$missing"
fi
echo "soageo: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
