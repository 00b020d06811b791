#!/usr/bin/env bash
# collect without a lab, over the "local" transport on loopback addresses:
# ping and iperf3 records for every pair, a machine without the tools on
# PATH gives error_class tool_missing (exit 1), and the summary is printed;
# the records hold every field of upstream's real records (ok ping, ok
# iperf3, failed ping) with its JSON type and in its order; a record's
# command re-runs the probe; collect and heatmap default to upstream's
# files under results/; a remote_command whose program does not exist
# fails each host at once with its name, and the run ends. The kinds
# beyond them run end to end on loopback (mtu, udp), and a udp test whose
# start stalls (iperf3 before 3.17 sends its UDP handshake datagram once)
# runs once more.
. "$(dirname "$0")/lib.sh"
require_cmd jq ping iperf3
ping -c 1 -W 1 127.0.0.2 >/dev/null 2>&1 || skip "cannot ping 127.0.0.2 here"

inv=$NETPROF_TEST_TMP/local-machines.json
out=$NETPROF_TEST_TMP/local.jsonl
cat >"$inv" <<'JSON'
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "iperf_seconds": 1, "iperf_port": 15311,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "b", "address": "127.0.0.2"},
              {"name": "c", "address": "127.0.0.3"}]}
JSON
assert_status 0 "$NETPROF_BIN" collect --config "$inv" --output "$out" --iperf
assert_contains "$OUT" "12 probes ok, 0 failed"
assert_contains "$OUT" "median RTT"
assert_eq 12 "$(jq -r '[.kind,.source,.target]|@tsv' "$out" | sort -u | wc -l)"
assert_eq "true" "$(jq -s 'all(.ok)' "$out")"
# the record's line re-runs the probe: fping's per-target line where the
# fan-out used fping, ping's summary otherwise
again=$(sh -c "$(jq -r 'select(.kind=="ping" and .source=="a" and .target=="b")|.command' "$out")" 2>&1)
if command -v fping >/dev/null; then
	assert_contains "$again" "127.0.0.2 : "
else
	assert_contains "$again" "2 packets transmitted, 2 received"
fi
cp "$out" "$NETPROF_TEST_TMP/local-ok.jsonl"

cat >"$inv" <<'JSON'
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "notools", "address": "127.0.0.2",
               "remote_setup": "PATH=/nonexistent"}]}
JSON
assert_status 1 "$NETPROF_BIN" -q collect --config "$inv" --output "$out"
assert_eq "tool_missing" "$(jq -r 'select(.source=="notools")|.error_class' "$out")"
assert_contains "$(jq -r 'select(.source=="notools")|.error' "$out")" "ping is not installed"
assert_eq "true" "$(jq -r 'select(.source=="a")|.ok' "$out")"

# upstream's records against ours, field by field (metrics included)
cat "$NETPROF_TEST_TMP/local-ok.jsonl" "$out" >"$NETPROF_TEST_TMP/local-all.jsonl"
diffs=$(jq -rn --slurpfile up "$NETPROF_FIXTURES/upstream/collect.jsonl" \
    --slurpfile ours "$NETPROF_TEST_TMP/local-all.jsonl" '
  $up[] as $u
  | ([$ours[] | select(.kind == $u.kind and .ok == $u.ok)] | first) as $n
  | if $n == null then "no \($u.kind) record with ok=\($u.ok)"
    else (($u | paths(scalars)) as $p
          | select(($n | getpath($p) | type) != ($u | getpath($p) | type))
          | "\($u.kind) ok=\($u.ok) \($p | map(tostring) | join(".")): upstream \($u | getpath($p) | type), netprof \($n | getpath($p) | type)"),
         (select(($n | keys_unsorted | map(select(. as $k | $u | has($k)))) != ($u | keys_unsorted))
          | "\($u.kind): fields in another order than upstream\u0027s")
    end' | sort -u)
assert_eq "" "$diffs" "upstream fields missing or of another type"

# upstream's default files, directories created
wd=$NETPROF_TEST_TMP/local-defaults
rm -rf "$wd" && mkdir -p "$wd"
cat >"$inv" <<'JSON'
{"transport": "local", "ping_count": 1, "ping_interval": 0.2,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "b", "address": "127.0.0.2"}]}
JSON
(cd "$wd" && "$NETPROF_BIN" -q collect --config "$inv") || fail "collect with the default output"
assert_eq 2 "$(wc -l <"$wd/results/network-measurements.jsonl")" "records in the default file"
OUT=$(cd "$wd" && "$NETPROF_BIN" heatmap 2>&1) || fail "heatmap with the defaults: $OUT"
assert_contains "$OUT" "wrote results/network-heatmap.html (2 hosts, 1 kind, 2 records, 0 failed)"
assert_file_contains "$wd/results/network-heatmap.html" "<html"
OUT=$(cd "$NETPROF_TEST_TMP" && "$NETPROF_BIN" heatmap 2>&1) && fail "heatmap without records"
assert_contains "$OUT" "no --input FILE, and no results/network-measurements.jsonl here"

# mtu and udp on loopback (both machines 127.0.0.1: iperf3's UDP to
# 127.0.0.2 waits for a reply from 127.0.0.1 that its socket refuses)
cat >"$inv" <<'JSON'
{"transport": "local", "iperf_seconds": 1, "iperf_port": 15312,
 "machines": [{"name": "a", "address": "127.0.0.1"},
              {"name": "b", "address": "127.0.0.1"}]}
JSON
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$out" --kinds udp,mtu
assert_eq "mtu a b true 65028
mtu b a true 65028
udp a b true 1200
udp b a true 1200" "$(jq -r '[.kind,.source,.target,.ok,(.metrics.mtu // .config.datagram_bytes)]|@tsv' "$out" | tr '\t' ' ' | sort)" \
    "mtu (loopback's limit: ping's 65,000 bytes crossed) then udp, ok"
assert_eq "true true" "$(jq -rs '[all(.[]|select(.kind=="udp");.metrics.packets > 0 and .metrics.jitter_ms >= 0 and .metrics.out_of_order >= 0), all(.[]|select(.kind=="mtu");.metrics.quic_ok == 1)]|map(tostring)|join(" ")' "$out")" \
    "udp's figures and mtu's QUIC flag"

# a udp client that hangs the first time (its handshake datagram lost):
# the test runs once more and is recorded ok; a stand-in iperf3
stand=$NETPROF_TEST_TMP/local-stand-in
rm -rf "$stand" && mkdir -p "$stand"
cat >"$stand/iperf3" <<SH
#!/bin/sh
case " \$* " in *" -s "*) echo "Server listening on 15312"; exec sleep 30 ;; esac
[ -e "$stand/once" ] || { touch "$stand/once"; exec sleep 60; }
cat "$NETPROF_FIXTURES/udp/client_ok.json"
SH
chmod +x "$stand/iperf3"
cat >"$inv" <<JSON
{"transport": "local", "iperf_seconds": 1, "connect_timeout_seconds": 1,
 "machines": [{"name": "a", "address": "127.0.0.1", "remote_setup": "PATH=$stand:\$PATH"},
              {"name": "b", "address": "127.0.0.1", "remote_setup": "PATH=$stand:\$PATH"}]}
JSON
assert_status 0 "$NETPROF_BIN" -q collect --config "$inv" --output "$out" --kinds udp
assert_eq "true true" "$(jq -rs 'map(.ok)|map(tostring)|join(" ")' "$out")" \
    "the stalled test ran again, ok"
assert_eq "" "$(pgrep -f "$stand/iperf3" || true)" "no stand-in left"

# A process that cannot start: reported per host, and nothing waits for a
# child that never was (the run used to hang here, even on SIGTERM).
cat >"$NETPROF_TEST_TMP/nospawn.json" <<'JSON'
{"remote_command": ["/nonexistent/netprof-test-ssh", "{name}", "{command}"],
 "machines": [{"name": "c1", "address": "127.0.0.1", "transport": "command"},
              {"name": "c2", "address": "127.0.0.2", "transport": "command"}]}
JSON
assert_status 255 timeout -k 2 20 "$NETPROF_BIN" exec --config "$NETPROF_TEST_TMP/nospawn.json" -- true
assert_contains "$OUT" "c1: could not run /nonexistent/netprof-test-ssh: no such file or directory"
assert_contains "$OUT" "c2: could not run /nonexistent/netprof-test-ssh: no such file or directory"
assert_status 1 timeout -k 2 20 "$NETPROF_BIN" collect --config "$NETPROF_TEST_TMP/nospawn.json" \
    --output "$NETPROF_TEST_TMP/nospawn.jsonl"
assert_eq 2 "$(jq -r 'select(.ok|not)|.error' "$NETPROF_TEST_TMP/nospawn.jsonl" |
    grep -c 'could not run /nonexistent/netprof-test-ssh')" "both pairs failed, naming the program"
test_pass
