#!/usr/bin/env bash
# bench against a hostile node, on a 2-host lab:
# - h2's node answers every probe with about 2 MiB (the stand-in's
#   OTELA_FAKE_HUGE_ANSWER): a latency error text of 2 MiB, a samples
#   array of 2 MiB. measurements.jsonl keeps every record, each line well
#   under the readers' 1 MiB: the error text cut to 4 KiB with a marker
#   saying how much was left out, the metrics without their arrays (named
#   in netprof_cut) and with their summary; the heatmap reads every record
#   and --metrics-file is written;
# - a squatter on h2's API port, answering 200 to /v1/health and 404 to
#   everything else, /v1/self included, is not taken for the node: h2
#   fails at start saying so, h1 still runs, nothing is left behind;
# - teardown gaps: an `otela init` that exits 75 (EX_TEMPFAIL, as the
#   refusal of an existing directory does) is not taken for that refusal,
#   so the directory netprof made is removed; SIGINT while h2's start step
#   is between the fork of the node and its end (its `sed` made slow)
#   still stops that node and removes its directory;
# - a remote_setup that prints on stdout ("4242", "present", "dead":
#   what the steps' parsers read) breaks none of uname -m, the deploy
#   cache's check, the PID and the liveness check (a node slow to start,
#   so that liveness is asked): the run is ok, the PIDs are the nodes'.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node python3
require_otela

lab_up tbhost 2
path=$(otela_setup)
small=(--latency-count 3 --throughput-count 1 --throughput-bytes 65536 --no-punch)

assert_nothing_left() {
	local left
	sleep 0.3
	left=$(for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true)
	assert_eq "" "$left" "processes left in the lab ($2)"
	assert_eq "" "$(ls -d /tmp/otela-bench-"$1"-* 2>/dev/null || true)" \
	    "bench directories left ($2)"
}

# --- a node whose answers are 2 MiB --------------------------------------
inv=$NETPROF_TEST_TMP/huge.json
jq --arg p "$path" '.remote_setup = $p | .machines |= map(if .name == "h2" then
    .remote_setup = ($p + "; export OTELA_FAKE_HUGE_ANSWER=2097152") else . end)' \
    "$LAB_INVENTORY" >"$inv"
out=$NETPROF_TEST_TMP/huge
rm -rf "$out"
assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id x1 \
    --metrics-file "$out/bench.prom" "${small[@]}"
m=$out/measurements.jsonl
assert_eq 6 "$(jq -c . "$m" | wc -l)" "2 pairs x 3 kinds recorded"
assert_eq 0 "$(awk 'length($0) > 65536' "$m" | wc -l)" "no record line over 64 KiB"
err=$(jq -r 'select(.source=="h2" and .kind=="latency")|.error' "$m")
assert_contains "$err" "no successful samples: xxxx"
assert_contains "$err" "bytes more, not kept by netprof]"
[ "${#err}" -lt 8192 ] || fail "h2's latency error kept ${#err} bytes"
assert_eq "true" "$(jq -r 'select(.source=="h2" and .kind=="libp2p_ping")|.ok' "$m")" \
    "the huge ping answer is still a measurement"
assert_eq '["samples_ns"]' "$(jq -c 'select(.source=="h2" and .kind=="libp2p_ping")|.metrics.netprof_cut' "$m")"
assert_eq "number" "$(jq -r 'select(.source=="h2" and .kind=="libp2p_ping")|.metrics.p50_ms|type' "$m")" \
    "its summary kept"
assert_eq "true" "$(jq -r 'select(.source=="h1" and .kind=="libp2p_ping")|.metrics.samples_ns|length > 0' "$m")" \
    "an ordinary answer keeps its samples"
assert_status 0 "$NETPROF_BIN" heatmap --input "$m" --text
assert_contains "$OUT" "2 hosts"
assert_not_contains "$OUT" "longer than 1 MiB"
[ -s "$out/bench.prom" ] || fail "--metrics-file was not written"
assert_file_contains "$out/bench.prom" 'netprof_probe_ok{kind="latency",source="h2",target="h1"} 0'
assert_nothing_left x1 "huge answers"

# --- a squatter on h2's API port -----------------------------------------
port=$(jq -r '.machines[]|select(.name=="h2")|.http_port // 19090' "$LAB_INVENTORY")
cat >"$NETPROF_TEST_TMP/squat.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path == "/v1/health"
        body = b'{"status":"ok"}' if ok else b"404 page not found"
        self.send_response(200 if ok else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("0.0.0.0", int(sys.argv[1])), H).serve_forever()
PY
spid=$(lab run h2 -- sh -c "nohup python3 '$NETPROF_TEST_TMP/squat.py' $port >/dev/null 2>&1 & echo \$!")
at_exit "kill $spid 2>/dev/null || true"
for _ in $(seq 100); do
	lab run h2 -- curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && break
	sleep 0.1
done
inv=$NETPROF_TEST_TMP/squat.json
jq --arg p "$path" '.remote_setup = $p' "$LAB_INVENTORY" >"$inv"
out=$NETPROF_TEST_TMP/squat
rm -rf "$out"
assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" --run-id x2 \
    --kinds libp2p_ping "${small[@]}"
assert_eq "failed start" "$(jq -r '.machines[]|select(.name=="h2")|"\(.status) \(.failed_phase)"' "$out/run.json")"
assert_contains "$(jq -r '.machines[]|select(.name=="h2")|.error' "$out/run.json")" \
    "h2: port $port on h2 answers /v1/health but not /v1/self (HTTP 404): not an otela node"
kill "$spid"
assert_nothing_left x2 "a squatter on the port"

# --- otela init exits 75 on h2 ---------------------------------------------
wrap=$NETPROF_TEST_TMP/init75
mkdir -p "$wrap"
cat >"$wrap/otela" <<EOS
#!/bin/sh
$path
[ "\$1" = init ] || exec otela "\$@"
echo "temporary failure" >&2
exit 75
EOS
chmod 755 "$wrap" "$wrap/otela"
jq --arg p "$path" --arg w "export PATH=$wrap:\$PATH" '.remote_setup = $p |
    .machines |= map(if .name == "h2" then .remote_setup = $w else . end)' \
    "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/init75.json"
out=$NETPROF_TEST_TMP/init75-out
rm -rf "$out"
assert_status 1 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/init75.json" \
    --output "$out" --run-id x3 --kinds libp2p_ping "${small[@]}"
assert_contains "$OUT" "h2 FAILED at init"
assert_contains "$(jq -r '.machines[]|select(.name=="h2")|.error' "$out/run.json")" \
    "otela init exited 75: temporary failure"
assert_nothing_left x3 "otela init exiting 75"

# --- SIGINT while h2's start step has started its node ---------------------
# h2's sed (the start step's last command, reading the node's start time)
# waits 5 s the first time: the node runs, its PID printed, the step not
# done when SIGINT comes.
shim=$NETPROF_TEST_TMP/slowsed
rm -rf "$shim"
mkdir -p "$shim"
chmod 1777 "$shim"
real_sed=$(command -v sed)
cat >"$shim/sed" <<EOS
#!/bin/sh
case "\$*" in
*/proc/*/stat*) if mkdir "$shim/once" 2>/dev/null; then
	: >"$shim/once/waiting"; sleep 5; fi;;
esac
exec $real_sed "\$@"
EOS
chmod 755 "$shim/sed"
jq --arg p "$path" --arg s "$path; export PATH=$shim:\$PATH" '.remote_setup = $p |
    .machines |= map(if .name == "h2" then .remote_setup = $s else . end)' \
    "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/slowsed.json"
out=$NETPROF_TEST_TMP/slowsed-out
rm -rf "$out"
"$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/slowsed.json" --output "$out" \
    --run-id x4 --kinds libp2p_ping "${small[@]}" 2>"$NETPROF_TEST_TMP/slowsed.err" &
pid=$!
at_exit "kill $pid 2>/dev/null || true"
waiting() { [ -e "$shim/once/waiting" ]; }
wait_for 60 waiting || fail "h2's start step never reached its sed: $(tail -3 "$NETPROF_TEST_TMP/slowsed.err")"
kill -INT $pid
rc=0
wait $pid || rc=$?
assert_eq 130 "$rc" "exit status after SIGINT in h2's start step"
assert_eq "ok" "$(jq -r '.machines[]|select(.name=="h2")|.phases.teardown' "$out/run.json")" \
    "h2's node torn down"
assert_nothing_left x4 "SIGINT while a node's start step ran"

# --- remote_setup that prints on stdout ------------------------------------
bindir=$NETPROF_TEST_TMP/noisy-bin
mkdir -p "$bindir"
printf '#!/bin/sh\n# %s\n%s\nexec %s "$@"\n' "$TEST_NAME" "$OTELA_SHORT_WAITS" \
    "${NETPROF_TEST_OTELA:-$NETPROF_SRC/tests/otela-node/bin/otela}" \
    >"$bindir/otela-$(uname -m | sed 's/x86_64/amd64/; s/aarch64/arm64/')"
chmod 755 "$bindir" "$bindir"/otela-*
sha=$(sha256sum "$bindir"/otela-* | cut -c1-64)
cache=$(getent passwd "$LAB_USER" | cut -d: -f6)/.cache/netprof
rm -f "$cache/otela-$sha"
at_exit "rm -f '$cache/otela-$sha'"
jq '.remote_setup = "echo 4242; echo present; echo dead; export OTELA_FAKE_START_DELAY_MS=2500"' \
    "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/noisy.json"
out=$NETPROF_TEST_TMP/noisy
rm -rf "$out"
assert_status 0 "$NETPROF_BIN" -v bench --config "$NETPROF_TEST_TMP/noisy.json" \
    --output "$out" --run-id x5 --kinds libp2p_ping --otela-bin "$bindir" "${small[@]}"
assert_contains "$OUT" "then echo alive; else echo dead; fi" "the liveness check was asked"
assert_contains "$OUT" "otela uploaded to" "the cache's check not fooled by \"present\""
assert_contains "$OUT" "h1: node started, pid"
assert_eq 2 "$(jq -r 'select(.ok)|.kind' "$out/measurements.jsonl" | wc -l)" "both pairs ok"
assert_eq "false false" "$(jq -r '[.machines[].pid == 4242]|map(tostring)|join(" ")' "$out/run.json")" \
    "the PIDs are the nodes', not the setup's 4242"
assert_nothing_left x5 "a remote_setup printing on stdout"
test_pass
