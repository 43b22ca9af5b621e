#!/bin/sh
# Runs every suite and ends with one line "N passed, N failed" over all of them.
# Suites: the C++ core tests, the OOM and thread hosts, the object-code checks of the SIMD
# targets, the busted specs (one busted process per spec file, JOBS of them at once, each
# reported as it ends). Every suite prints its duration, so a slow one shows where it is.
# SOAGEO_LONG=1 (make test-long) runs only the soaks: the spec files that require test/long.lua,
# at their long sizes.
LUA=${LUA:-lua5.4}
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
passed=0
failed=0
add() { passed=$((passed + $1)); failed=$((failed + $2)); }
now() { date +%s; }
started=$(now)
stage_start=$started
stage() { stage_start=$(now); echo "== $1"; }
stage_end() { echo "   ($(( $(now) - stage_start )) s)"; }

specs=$(ls test/*_spec.lua)
if [ -n "$SOAGEO_LONG" ]; then
	specs=$(grep -l 'require "long"' $specs)
else
# The OOM host is long and single-threaded: it runs beside the other suites, reported at the end.
oom_started=$(now)
( "$BUILD/oom_host" > "$BUILD/oom.log" 2>&1; echo $? > "$BUILD/oom.status" ) &
oom_pid=$!

stage "core (C++)"
out=$("$BUILD/core_test" 2>&1); status=$?
echo "$out"
line=$(echo "$out" | grep '^core: ' | tail -n 1)
if [ -n "$line" ]; then
	add "$(echo "$line" | sed 's/core: \([0-9]*\) passed.*/\1/')" "$(echo "$line" | sed 's/.*passed, \([0-9]*\) failed/\1/')"
fi
[ $status -ne 0 ] && [ -z "$line" ] && add 0 1
stage_end

# A C++ host suite printing "<name>: N passed, N failed" as its last line: host_suite name
# program, or host_suite name - status output (already run).
host_suite() {
	stage "$1"
	if [ "$2" = - ]; then status=$3; out=$4; else out=$("$2" 2>&1); status=$?; fi
	echo "$out" | tail -n 5
	line=$(echo "$out" | grep -E "^$1: [0-9]+ passed, [0-9]+ failed" | tail -n 1)
	if [ -n "$line" ]; then
		add "$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed/\1/')"
	fi
	[ $status -ne 0 ] && [ -z "$line" ] && add 0 1
	stage_end
}
host_suite threads "$BUILD/thread_host"

stage "object code (wide instructions where promised, none in the scalar reference)"
objcheck() {  # object, pattern, expectation (present|absent)
	if [ ! -f "$1" ]; then return; fi
	n=$(objdump -d --no-show-raw-insn "$1" | grep -cE "$2")
	if { [ "$3" = present ] && [ "$n" -gt 0 ]; } || { [ "$3" = absent ] && [ "$n" -eq 0 ]; }; then
		echo "ok   $1: $n lines match '$2' ($3 expected)"; add 1 0
	else
		echo "FAIL $1: $n lines match '$2' ($3 expected)"; add 0 1
	fi
}
objcheck "$BUILD/core/target_scalar.o" '(mul|add|sub|cmp[a-z]*)ps|%ymm|%zmm' absent
objcheck "$BUILD/core/target_sse2.o" 'mulps.*%xmm' present
objcheck "$BUILD/core/target_avx2.o" 'vmulps.*%ymm' present
objcheck "$BUILD/core/target_avx512.o" 'vmulps.*%zmm' present
stage_end
fi

stage "busted ($LUA, $JOBS at once)"
logs="$BUILD/spec-logs"
rm -rf "$logs"
mkdir -p "$logs"
# Slowest first, so the two queues end together; test/spec_one.sh writes one result line each.
echo "$specs" | xargs -n 1 wc -c | sort -rn | awk '{print $2}' |
	LUA="$LUA" LOGS="$logs" xargs -P "$JOBS" -n 1 sh test/spec_one.sh
for f in "$logs"/*.result; do
	read -r s f_ < "$f"
	add "$s" "$f_"
done
for f in "$logs"/*.failed; do
	if [ "$(cat "$f")" != 0 ]; then echo "-- ${f%.failed}.log"; tail -n 40 "${f%.failed}.log"; fi
done
stage_end

if [ -n "$oom_pid" ]; then
	wait "$oom_pid"
	host_suite oom - "$(cat "$BUILD/oom.status")" "$(cat "$BUILD/oom.log")"
	echo "   (oom ran beside the others for $(( $(now) - oom_started )) s)"
fi

echo "   (all suites: $(( $(now) - started )) s)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
