#!/bin/sh
# Runs the region world on skynet (examples/skynet/world/). From the soageo checkout:
#   SKYNET=/path/to/skynet SOAGEO=/dir/with/soageo/core.so/for/that/skynet sh examples/skynet/world/run.sh MODE
# MODE: proof   one node: a single-service world and 2x2 region services, compared every tick
#       cluster two nodes on 127.0.0.1 through skynet's cluster (3x2 regions: 3 here, 3 on node b;
#               ports WORLD_PORT_A and WORLD_PORT_B, by default two derived from this shell's pid)
#       bench   WORLD_ENTITIES (100000) for WORLD_TICKS (20) on WORLD_COLS x WORLD_ROWS (2x2)
#               region services vs one service (what make world runs)
# SOAGEO must also hold (or link) this checkout's lualib/ and examples/. Prints the nodes'
# output; exits 0 when every CHECK line is ok and each node stopped by itself with status 0.
: "${SKYNET:?set SKYNET to a built skynet tree}" "${SOAGEO:?set SOAGEO (soageo/core.so built for that skynet, lualib/, examples/)}"
mode=${1:-proof}
dir=$(dirname "$0")
logs=${WORLD_LOGS:-${TMPDIR:-/tmp}/soageo-world.$$}
mkdir -p "$logs"
node() {  # log seconds config [VAR=VALUE...]
	log=$1; limit=$2; config=$3; shift 3
	env -i SKYNET="$SKYNET" SOAGEO="$SOAGEO" "$@" timeout -k 5 "$limit" "$SKYNET/skynet" "$config" >"$log" 2>&1
}
verdict() {  # status log...
	st=$1; shift
	bad=0
	[ "$st" -eq 0 ] || bad=1
	for log in "$@"; do
		grep -E '^(WORLD|CHECK)' "$log"
		grep -q 'CHECK FAIL' "$log" && bad=1
	done
	grep -q 'WORLD DONE' "$1" || bad=1
	if [ "$bad" -ne 0 ]; then
		echo "world $mode: FAILED (status $st; logs in $logs)"
		for log in "$@"; do tail -n 20 "$log"; done
		exit 1
	fi
	echo "world $mode: passed"
}
case $mode in
proof)
	node "$logs/proof.log" 300 "$dir/config"
	verdict $? "$logs/proof.log" ;;
bench)
	node "$logs/bench.log" 1800 "$dir/config.bench" WORLD_ENTITIES="${WORLD_ENTITIES:-100000}" \
		WORLD_TICKS="${WORLD_TICKS:-20}" WORLD_COLS="${WORLD_COLS:-2}" WORLD_ROWS="${WORLD_ROWS:-2}"
	verdict $? "$logs/bench.log" ;;
cluster)
	# Ports derived from this shell's pid unless given, so parallel runs do not collide.
	base=$((20000 + $$ % 20000 * 2))
	pa=${WORLD_PORT_A:-$base}; pb=${WORLD_PORT_B:-$((base + 1))}
	node "$logs/node_b.log" 300 "$dir/config.node_b" WORLD_PORT_A="$pa" WORLD_PORT_B="$pb" &
	b=$!
	node "$logs/node_a.log" 300 "$dir/config.node_a" WORLD_PORT_A="$pa" WORLD_PORT_B="$pb"
	sa=$?
	wait "$b"
	sb=$?
	grep -q 'WORLD node b stopped' "$logs/node_b.log" || sb=1
	echo "node a status $sa, node b status $sb"
	verdict $((sa + sb)) "$logs/node_a.log" "$logs/node_b.log" ;;
*)
	echo "usage: run.sh proof|cluster|bench" >&2; exit 2 ;;
esac
