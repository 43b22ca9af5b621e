#!/bin/sh
# soageo inside real skynet processes: `make test-skynet SKYNET=...` builds the module for that
# skynet and runs this. One function per case below; add a case by writing case_<name> and
# listing it in CASES. A case starts skynet processes bounded in time (run_skynet) and counts
# what they print: "CHECK ok ..." / "CHECK FAIL ..." lines (test/skynet/check.lua) and the
# checks it makes itself (ok / fail). Ends with one line "N passed, N failed".
#
# Environment (set by the Makefile): SKYNET (the built tree), STAGE (build-skynet/<tree>-<hash>:
# soageo/core.so for this skynet, links lualib, examples, test; inst/ the `make install` of it;
# other/soageo/core.so built for OTHER_LUA_INCDIR), ROOT (the checkout), OTHER_LUA_INCDIR.
# SOAGEO_STRESS_SECONDS (default 10) and SOAGEO_STRESS_SERVICES (default 8) size the stress.
: "${SKYNET:?}" "${STAGE:?}" "${ROOT:?}"
CASES=${SOAGEO_SKYNET_CASES:-"example version install stress memlimit badarg share cluster world specs"}
LUA=$SKYNET/3rd/lua/lua
LOGS=$STAGE/logs
mkdir -p "$LOGS"
cd "$ROOT" || exit 1
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() {  # description, then a command whose status decides
	what=$1; shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
lua_version_num() { sh "$ROOT/test/skynet/lua_version.sh" "$1"; }

# run_skynet LOG SECONDS CONFIG [VAR=VALUE...]: one skynet process under a clean environment,
# killed if it outlives SECONDS; sets $status (124: timed out) and prints the log's tail on
# failure.
run_skynet() {
	log=$1; limit=$2; config=$3; shift 3
	env -i SKYNET="$SKYNET" SOAGEO="$STAGE" "$@" timeout -k 5 "$limit" "$SKYNET/skynet" "$config" >"$log" 2>&1
	status=$?
}

# A test-service process (test/skynet/config): MAIN service, its ARGS; every CHECK line counts,
# and the process must print "CASE DONE" and exit by itself with status 0.
run_case() {  # name main seconds args [cpath lpath]
	name=$1
	run_skynet "$LOGS/$name.log" "$3" "$ROOT/test/skynet/config" SOAGEO_CASE="$2" SOAGEO_ARGS="$4" \
		SOAGEO_CPATH="${5:-$STAGE/?.so}" SOAGEO_LPATH="${6:-$STAGE/lualib/?.lua}"
	count_checks "$LOGS/$name.log"
	check "$name: the process printed CASE DONE and stopped by itself with status 0 (status $status)" \
		test "$status" -eq 0 -a -n "$(grep -m1 "CASE DONE $name" "$LOGS/$name.log")"
	[ "$status" -eq 0 ] || tail -n 30 "$LOGS/$name.log"
}

count_checks() {
	grep -o 'CHECK ok .*' "$1" | sed 's/^CHECK //'
	grep -o 'CHECK FAIL .*' "$1" | sed 's/^CHECK //'
	passed=$((passed + $(grep -c 'CHECK ok ' "$1")))
	failed=$((failed + $(grep -c 'CHECK FAIL ' "$1")))
}

# examples/skynet exactly as the manual runs it (env -i, the config unchanged; SOAGEO is the
# stage, whose soageo/core.so is built for this skynet): ticks ran, hits and AOI events
# happened, the handed-off layer came back equal, and the process stopped by itself.
case_example() {
	log=$LOGS/example.log
	run_skynet "$log" 120 examples/skynet/config
	check "example: exits by itself with status 0 (status $status)" test "$status" -eq 0
	summary=$(grep -o 'east: 100 ticks, .*' "$log")
	hits=$(echo "$summary" | sed -n 's/.* \([0-9]*\) hits.*/\1/p')
	enter=$(echo "$summary" | sed -n 's/.* \([0-9]*\) enter.*/\1/p')
	leave=$(echo "$summary" | sed -n 's/.* \([0-9]*\) leave.*/\1/p')
	check "example: the east scene ran 100 ticks ($(grep -c 'east tick' "$log") tick lines)" grep -q 'east tick 100: ' "$log"
	check "example: skills hit (${hits:-no} hits)" test "${hits:-0}" -gt 0
	check "example: AOI events happened (${enter:-no} enter, ${leave:-no} leave)" test "${enter:-0}" -gt 0 -a "${leave:-0}" -gt 0
	check "example: the layer handed off by dump/load equals the original" grep -q "layer equal to east's: yes" "$log"
	check "example: the west scene played on after the handoff" grep -q 'west tick 10: ' "$log"
	check "example: main printed its last line" grep -q 'example done' "$log"
	[ "$status" -eq 0 ] || tail -n 30 "$log"
}

# A module built for another Lua version refuses to load with a clear error, and the process
# goes on (the right module then loads in another service).
case_version() {
	mine=$(lua_version_num "$SKYNET/3rd/lua")
	other=$(lua_version_num "${OTHER_LUA_INCDIR:-/nonexistent}")
	if [ "$other" -eq 0 ] || [ "$other" = "$mine" ]; then
		echo "skip version: OTHER_LUA_INCDIR=${OTHER_LUA_INCDIR:-} holds no Lua of another version than this" \
			"skynet's ($mine); pass the headers of one (e.g. a skynet HEAD tree's 3rd/lua) to run it"
		return
	fi
	run_case version version_main 60 "other=$STAGE/other want=$other.0 have=$mine.0"
}

# `make install INST_LIBDIR=<tree>/luaclib INST_LUADIR=<tree>/lualib` lays the files out as
# skynet's own lua_cpath and lua_path patterns find them (installed into the stage here, not
# into the user's tree).
case_install() {
	run_case install install_main 60 "inst=$STAGE/inst" "$STAGE/inst/luaclib/?.so" "$STAGE/inst/lualib/?.lua"
}

case_stress() {
	run_case stress stress_main 180 "services=${SOAGEO_STRESS_SERVICES:-8} seconds=${SOAGEO_STRESS_SECONDS:-10}"
	grep -o 'STRESS .*' "$LOGS/stress.log"
}

case_memlimit() { run_case memlimit memlimit_main 120 "limit=16"; }

case_badarg() { run_case badarg badarg_main 120 "ticks=40"; }
# soageo.share across services of one process (test/skynet/share_main.lua): 1,000,000 entities
# and 100,000 walls shared by a service that then exits, 7 attachers checking its answers, the
# memory they add, a second version.
case_share() { run_case share share_main 300 "n=${SOAGEO_SHARE_ENTITIES:-1000000} walls=100000 attachers=7"; }

# Two nodes through skynet's cluster (examples/skynet/cluster/run.sh starts and stops both).
case_cluster() {
	log=$LOGS/cluster.log
	SKYNET="$SKYNET" SOAGEO="$STAGE" LOGS="$LOGS" sh examples/skynet/cluster/run.sh >"$log" 2>&1
	status=$?
	count_checks "$log"
	check "cluster: both nodes stopped by themselves and the handoff checked out (status $status)" test "$status" -eq 0
	[ "$status" -eq 0 ] || tail -n 40 "$log"
}

# The regions world (examples/skynet/world): its events and hits equal one service's at every
# tick, as 2x2 region services on one node and as 3x2 regions over two nodes through cluster.
case_world() {
	for m in proof cluster; do
		log=$LOGS/world-$m.log
		SKYNET="$SKYNET" SOAGEO="$STAGE" WORLD_LOGS="$LOGS/world-$m" timeout -k 5 600 \
			sh examples/skynet/world/run.sh $m >"$log" 2>&1
		status=$?
		count_checks "$log"
		check "world $m: every node stopped by itself with status 0 (status $status)" test "$status" -eq 0
		[ "$status" -eq 0 ] || tail -n 30 "$log"
	done
}

# Every spec on this skynet's own Lua with test/mini_busted.lua (busted runs only on Debian's
# 5.4), against the module built for it.
case_specs() {
	log=$LOGS/specs.log
	SOAGEO_CPATH="$STAGE/?.so;" timeout -k 5 1800 "$LUA" test/mini_busted.lua test/*_spec.lua >"$log" 2>&1
	status=$?
	grep '^FAIL' -A2 "$log"
	line=$(grep -E '^Lua [0-9.]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	echo "specs on $($LUA -v 2>&1 | head -n 1): ${line:-no summary (status $status)}"
	if [ -n "$line" ]; then
		passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
		failed=$((failed + $(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed/\1/')))
	fi
	[ -n "$line" ] || { tail -n 20 "$log"; fail "specs: no summary line"; }
}

for c in $CASES; do
	echo "== $c ($SKYNET)"
	"case_$c"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
