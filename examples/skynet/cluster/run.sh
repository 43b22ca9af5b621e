#!/bin/sh
# Two skynet nodes on 127.0.0.1 through skynet's cluster: node A hands its scene's layer to
# node B as a dump() string, B loads it and plays on (node_a.lua, node_b.lua). Both processes
# are started here, bounded by `timeout`, and stop by themselves. From the soageo checkout,
# with the module built for that skynet (make LUA_INCDIR=$SKYNET/3rd/lua):
#   SKYNET=/path/to/skynet sh examples/skynet/cluster/run.sh
# Optional: SOAGEO (where soageo/core.so, lualib/ and examples/ are; default the directory that
# build went to: make -s module-dir LUA_INCDIR=$SKYNET/3rd/lua),
# PORT_A and PORT_B (default two ports derived from this shell's pid), ENTITIES (60000),
# LOGS (a directory for node_a.log and node_b.log; default a new temporary one).
: "${SKYNET:?set SKYNET to a built skynet tree}"
here=$(cd "$(dirname "$0")" && pwd)
SOAGEO=${SOAGEO:-$(make -s --no-print-directory -C "$here/../../.." module-dir LUA_INCDIR="$SKYNET/3rd/lua")} || exit 2
base=$((20000 + ($$ % 15000) * 2))
PORT_A=${PORT_A:-$base}
PORT_B=${PORT_B:-$((base + 1))}
ENTITIES=${ENTITIES:-60000}
LOGS=${LOGS:-$(mktemp -d)}
node() {  # name
	env -i SKYNET="$SKYNET" SOAGEO="$SOAGEO" NODE="$1" PORT_A="$PORT_A" PORT_B="$PORT_B" ENTITIES="$ENTITIES" \
		timeout -k 5 120 "$SKYNET/skynet" "$here/config" >"$LOGS/$1.log" 2>&1
}
node node_b &
b=$!
node node_a
status_a=$?
wait "$b"
status_b=$?
for n in node_a node_b; do echo "== $n ($LOGS/$n.log)"; grep -v ' LAUNCH ' "$LOGS/$n.log"; done
echo "node_a exited with status $status_a, node_b with status $status_b"
if [ "$status_a" -eq 124 ] || [ "$status_b" -eq 124 ]; then echo "(124: killed at the time limit)"; fi
[ "$status_a" -eq 0 ] && [ "$status_b" -eq 0 ] && grep -q 'CASE DONE cluster' "$LOGS/node_a.log" \
	&& ! grep -q 'CHECK FAIL' "$LOGS/node_a.log"
