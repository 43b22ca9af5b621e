#!/bin/sh
# Runs every suite and ends with one line "N passed, N failed" over all of them.
# Suites: the C++ core tests, the object-code checks of the SIMD targets, the busted specs.
LUA=${LUA:-lua5.4}
BUILD=${BUILD:-build}
passed=0
failed=0
add() { passed=$((passed + $1)); failed=$((failed + $2)); }

echo "== core (C++)"
out=$("$BUILD/core_test" 2>&1); status=$?
echo "$out"
line=$(echo "$out" | grep '^core: ' | tail -n 1)
if [ -n "$line" ]; then
	add "$(echo "$line" | sed 's/core: \([0-9]*\) passed.*/\1/')" "$(echo "$line" | sed 's/.*passed, \([0-9]*\) failed/\1/')"
fi
[ $status -ne 0 ] && [ -z "$line" ] && add 0 1

# A C++ host suite printing "<name>: N passed, N failed" as its last line.
host_suite() {
	echo "== $1"
	out=$("$2" 2>&1); status=$?
	echo "$out" | tail -n 5
	line=$(echo "$out" | grep -E "^$1: [0-9]+ passed, [0-9]+ failed" | tail -n 1)
	if [ -n "$line" ]; then
		add "$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed/\1/')"
	fi
	[ $status -ne 0 ] && [ -z "$line" ] && add 0 1
}
host_suite oom "$BUILD/oom_host"
host_suite threads "$BUILD/thread_host"

echo "== object code (wide instructions where promised, none in the scalar reference)"
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

echo "== busted ($LUA)"
out=$(busted --lua="$LUA" -o plainTerminal 2>&1); status=$?
echo "$out" | tail -n 40
line=$(echo "$out" | grep -E '^[0-9]+ success(es)? / [0-9]+ failures? / [0-9]+ errors?' | tail -n 1)
if [ -n "$line" ]; then
	s=$(echo "$line" | sed -E 's/^([0-9]+) success.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failures? .*/\1/')
	e=$(echo "$line" | sed -E 's/.* ([0-9]+) errors?.*/\1/')
	add "$s" $((f + e))
else
	add 0 1
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
