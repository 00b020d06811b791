#!/usr/bin/env bash
# collect --every over many sweeps on a 3-host lab: every sweep 1..N is in
# the records with all its pairs, each host authenticates once (the
# sessions are kept between sweeps), --rotate moves a full output to .1
# (whole lines, the sweeps continue in the new file), memory stays flat
# (the RSS trend is printed; its growth after the first sweeps is bounded),
# a sweep longer than --every delays the next and says so, and SIGTERM
# between sweeps exits 130 at once.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq

lab_up tmwatch 3
T=$NETPROF_TEST_TMP/collect-watch
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
N=150

# --- many sweeps, back to back, RSS sampled --------------------------------
"$NETPROF_BIN" -v collect --config "$LAB_INVENTORY" --output sweeps.jsonl \
    --every 0 --count $N --ping-count 1 --ping-interval 0.05 \
    --rotate 100k --metrics-file m.prom -q 2>netprof.log &
pid=$!
at_exit "kill $pid 2>/dev/null"
: >rss.txt
while kill -0 $pid 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status 2>/dev/null) || break
	sweep=$(tail -n 1 sweeps.jsonl 2>/dev/null | jq -r '.sweep // empty' 2>/dev/null || true)
	[ -n "$rss" ] && [ -n "$sweep" ] && echo "$sweep $rss" >>rss.txt
	sleep 0.5
done
rc=0
wait $pid || rc=$?
assert_eq 0 "$rc" "exit status of $N sweeps: $(grep -v ' debug' netprof.log | tail -3)"

# every sweep has its 6 pairs, across the rotated file and the new one
[ -f sweeps.jsonl.1 ] || fail "--rotate 100k left no sweeps.jsonl.1"
cat sweeps.jsonl.1 sweeps.jsonl >all.jsonl
jq -e . all.jsonl >/dev/null || fail "a line of the rotated files is not JSON"
last1=$(tail -n 1 sweeps.jsonl.1 | jq .sweep)
first=$(head -n 1 sweeps.jsonl | jq .sweep)
assert_eq $((last1 + 1)) "$first" "the new file starts with the sweep after the rotated one's last"
# the rotated files hold the sweeps from some k to N, each once
k=$(head -n 1 all.jsonl | jq .sweep)
assert_eq $((N - k + 1)) "$(jq -r .sweep all.jsonl | sort -un | wc -l)" "sweeps $k..$N in the two files"
assert_eq "$N" "$(jq -r .sweep sweeps.jsonl | sort -n | tail -n 1)" "the last sweep"
bad=$(jq -r .sweep all.jsonl | sort -n | uniq -c | awk '$1 != 6' | head -3)
assert_eq "" "$bad" "sweeps without exactly 6 records"
assert_eq "true" "$(jq -s 'all(.ok)' all.jsonl)" "all ok"
assert_eq 3 "$(grep -c ': authenticated' netprof.log)" "authentications over $N sweeps"
assert_eq "netprof_sweep_number $N" "$(grep '^netprof_sweep_number ' m.prom)"

# the RSS trend: after the first 20 sweeps, growth under 2 MiB
echo "RSS trend (sweep, VmRSS kB):"
awk 'NR == 1 || NR % 10 == 0 { printf "  %s %s\n", $1, $2 } END { printf "  %s %s (last)\n", $1, $2 }' rss.txt
early=$(awk '$1 >= 20 { print $2; exit }' rss.txt)
late=$(tail -n 1 rss.txt | awk '{ print $2 }')
[ -n "$early" ] && [ -n "$late" ] || fail "too few RSS samples: $(cat rss.txt)"
echo "RSS growth from sweep 20 to the end: $((late - early)) kB"
# ASan holds freed memory in its quarantine, so RSS grows there by design;
# its leak check at exit (the exit status 0 above) covers that build.
# The tools' output is read whole first: under pipefail, `nm | grep -q`
# fails whenever grep stops reading before nm is done (SIGPIPE), and so
# did `ldd | grep -q` now and then on a loaded machine.
libs=$(ldd "$NETPROF_BIN" 2>/dev/null || true)
syms=$(nm "$NETPROF_BIN" 2>/dev/null || true)
if [[ $libs == *libasan* || $syms == *__asan_init* ]]; then
	echo "(sanitized build: RSS not bounded; LeakSanitizer found no leak)"
else
	[ $((late - early)) -lt 2048 ] || fail "RSS grew $((late - early)) kB between sweep 20 and the end"
fi

# --- a sweep longer than --every ---------------------------------------------
# (a warning: -q, errors only in every command, would hide it)
assert_status 0 "$NETPROF_BIN" collect --config "$LAB_INVENTORY" --output late.jsonl \
    --every 0.2s --count 3 --ping-count 3 --ping-interval 0.2 --metrics-file late.prom
assert_contains "$OUT" "longer than --every 0.2 s: sweep 2 starts now"
assert_eq "netprof_sweeps_late_total 3" "$(grep '^netprof_sweeps_late_total ' late.prom)"

# --- SIGTERM while waiting for the next sweep --------------------------------
"$NETPROF_BIN" collect --config "$LAB_INVENTORY" --output wait.jsonl \
    --every 1h --ping-count 1 --ping-interval 0.05 -q 2>wait.log &
pid=$!
for (( i = 0; i < 150; i++ )); do
	[ "$(wc -l 2>/dev/null <wait.jsonl || echo 0)" -ge 6 ] && break
	kill -0 $pid 2>/dev/null || fail "collect --every 1h ended before its first sweep was out: $(cat wait.log)"
	sleep 0.2
done
[ "$(wc -l <wait.jsonl)" -ge 6 ] || fail "the first sweep's 6 records not out in 30 s: $(cat wait.log)"
sleep 0.5
start=$SECONDS
kill -TERM $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGTERM between sweeps"
[ $((SECONDS - start)) -lt 10 ] || fail "SIGTERM between sweeps took $((SECONDS - start)) s"
assert_eq 6 "$(wc -l <wait.jsonl)" "the one sweep's records"
test_pass
