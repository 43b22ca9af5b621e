#!/bin/sh
# One spec file under busted, for test/run.sh: its output goes to $LOGS/<name>.log, its counts
# to <name>.result ("passed failed"), and one progress line is printed when it ends.
spec=$1
name=$(basename "$spec" .lua)
log="$LOGS/$name.log"
t0=$(date +%s)
busted --lua="$LUA" -o plainTerminal "$spec" > "$log" 2>&1
t1=$(date +%s)
line=$(grep -E '^[0-9]+ success(es)? / [0-9]+ failures? / [0-9]+ errors?' "$log" | tail -n 1)
if [ -n "$line" ]; then
	s=$(echo "$line" | sed -E 's/^([0-9]+) success.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failures? .*/\1/')
	e=$(echo "$line" | sed -E 's/.* ([0-9]+) errors?.*/\1/')
	f=$((f + e))
else
	s=0; f=1  # busted did not finish: count the file as one failure
fi
echo "$s $f" > "$LOGS/$name.result"
echo "$f" > "$LOGS/$name.failed"
if [ "$f" -eq 0 ]; then mark=ok; else mark=FAIL; fi
printf '%-4s %-28s %4d passed, %d failed (%d s)\n' "$mark" "$name" "$s" "$f" $((t1 - t0))
