#!/usr/bin/env bash
# Coming from OpenTela's Python profiler, what a user meets is said, not
# silently taken (local machines, the golden test's stand-in tools, no host
# contacted): misspelt keys of an upstream machines.json named with the key
# meant (--strict-config: an error); a leftover NETWORK_PROFILER_REMOTE_CMD
# saying once that it replaces SSH and the file's SSH fields; bench --kind
# as upstream's (repeated or comma-separated: every kind given runs, where
# the last one alone did); an option given twice with two values refused;
# --bootstrap and bootstrap_extra checked as multiaddrs before anything
# runs; and the records in upstream's bytes: `grep '"ok": false'` finds the
# failures.
. "$(dirname "$0")/lib.sh"
require_cmd python3 jq

export GOLDEN_BIN=$NETPROF_SRC/tests/integration/golden
T=$NETPROF_TEST_TMP/migration
rm -rf "$T" && mkdir -p "$T/state"
at_exit "rm -rf '$T'"
export GOLDEN_STATE=$T/state
printf '127.0.0.1 a\n127.0.0.2 b\n127.0.0.9 d\n' >"$GOLDEN_STATE/hosts"
printf '%s\n' "a 12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13" \
    "b 12D3KooWDnZnC1cp9rfnCFGZEmdE7frZs2HZpgkpmdGhhPS3f3Wk" >"$GOLDEN_STATE/peers"
machine() {
	printf '{"name": "%s", "address": "%s", "remote_setup": "export GOLDEN_HOST=%s PATH=\\"$GOLDEN_BIN:$PATH\\""%s}' \
	    "$1" "$2" "$1" "${3:-}"
}

# --- an upstream file with the keys misspelt -----------------------------
cat >"$T/typos.json" <<JSON
{"transport": "local", "ping-count": 3, "ping_interval": 0.2,
 "machines": [$(machine a 127.0.0.1 ', "adress": "127.0.0.1", "rcc-host": "a"'),
              $(machine b 127.0.0.2)]}
JSON
assert_status 0 "$NETPROF_BIN" plan --config "$T/typos.json"
assert_contains "$OUT" "netprof: warning: $T/typos.json: \"ping-count\": unknown key; did you mean \"ping_count\"? (ignored; --strict-config makes it an error)"
assert_contains "$OUT" "netprof: warning: $T/typos.json: machines[0]: \"adress\": unknown key; did you mean \"address\"?"
assert_contains "$OUT" "netprof: warning: $T/typos.json: machines[0]: \"rcc-host\": unknown key; did you mean \"rcc_host\"?"
assert_contains "$OUT" "ping -c 5 -i 0.2" "ping-count was not taken"
assert_status 2 "$NETPROF_BIN" plan --config "$T/typos.json" --strict-config
assert_contains "$OUT" "netprof: $T/typos.json: \"ping-count\": unknown key; did you mean \"ping_count\"? (--strict-config)"
assert_not_contains "$OUT" "round 1"
# a required key misspelt: the error says which key was meant
printf '{"transport": "local", "machines": [{"name": "a", "adress": "127.0.0.1"}, {"nmae": "b", "address": "127.0.0.2"}]}\n' >"$T/missing.json"
assert_status 2 "$NETPROF_BIN" plan --config "$T/missing.json"
assert_eq "netprof: $T/missing.json: machines[0].address: missing; \"adress\": unknown key; did you mean \"address\"?" "$OUT"
printf '{"transport": "local", "machines": [{"nmae": "b", "address": "127.0.0.2"}]}\n' >"$T/missing.json"
assert_status 2 "$NETPROF_BIN" check --config "$T/missing.json"
assert_eq "netprof: $T/missing.json: machines[0].name: missing; \"nmae\": unknown key; did you mean \"name\"?" "$OUT"
printf '{"transport": "local", "machine": [{"name": "b", "address": "127.0.0.2"}]}\n' >"$T/missing.json"
assert_status 2 "$NETPROF_BIN" check --config "$T/missing.json"
assert_eq "netprof: $T/missing.json: machines: missing; \"machine\": unknown key; did you mean \"machines\"?" "$OUT"
printf '{"transport": "local", "machines": [{"name": "b"}]}\n' >"$T/missing.json"
assert_status 2 "$NETPROF_BIN" check --config "$T/missing.json"
assert_contains "$OUT" "machines[0].address: missing; add the address other machines dial"

# --- a leftover NETWORK_PROFILER_REMOTE_CMD ------------------------------
cat >"$T/ssh.json" <<'JSON'
{"user": "bench", "machines": [
  {"name": "a", "address": "192.0.2.1", "ssh_host": "login-a", "port": 2222},
  {"name": "b", "address": "192.0.2.2"}]}
JSON
assert_status 0 env NETWORK_PROFILER_REMOTE_CMD='rcc run --profile {host} -- bash -lc {command}' \
    "$NETPROF_BIN" plan --config "$T/ssh.json"
assert_eq 1 "$(grep -c NETWORK_PROFILER_REMOTE_CMD <<<"$OUT")" "said once"
assert_contains "$OUT" "netprof: warning: $T/ssh.json: NETWORK_PROFILER_REMOTE_CMD is set (rcc run --profile {host} -- bash -lc {command}): it replaces SSH for every machine without a \"transport\" (the file's user, port, ssh_host are not used); unset it"
assert_contains "$OUT" "ping, on a, round 1: rcc run --profile login-a -- bash -lc"
assert_status 0 "$NETPROF_BIN" plan --config "$T/ssh.json"
assert_not_contains "$OUT" "NETWORK_PROFILER_REMOTE_CMD"

# --- an option given twice ----------------------------------------------
assert_status 2 "$NETPROF_BIN" collect --config "$T/typos.json" --output a.jsonl --output b.jsonl
assert_contains "$OUT" "netprof collect: --output given twice ('a.jsonl', then 'b.jsonl'); give it once"
assert_status 2 "$NETPROF_BIN" plan --config "$T/typos.json" --ping-count 3 --ping-count 4
assert_contains "$OUT" "--ping-count given twice ('3', then '4')"

# --- bootstrap multiaddrs, before anything runs --------------------------
cat >"$T/bench.json" <<JSON
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "machines": [$(machine a 127.0.0.1 ", \"http_port\": $(free_port)"),
              $(machine b 127.0.0.2 ", \"http_port\": $(free_port)")]}
JSON
run=mig-$$
at_exit "rm -rf /tmp/otela-bench-$run-a /tmp/otela-bench-$run-b"
at_exit "kill \$(pgrep -f 'golden/node.py .*otela-bench-$run-') 2>/dev/null || true"
assert_status 2 "$NETPROF_BIN" bench --config "$T/bench.json" --run-id "$run" \
    --output "$T/b0" --bootstrap notamultiaddr
assert_contains "$OUT" "netprof bench: --bootstrap: \"notamultiaddr\" is not a multiaddr: it starts with '/', e.g. \"/ip4/203.0.113.7/tcp/4001/p2p/12D3KooW...\""
assert_status 2 "$NETPROF_BIN" bench --config "$T/bench.json" --run-id "$run" \
    --output "$T/b0" --bootstrap /ip4/203.0.113.7/tcp/4001
assert_contains "$OUT" "does not end with /p2p/PEER_ID"
[ ! -e "$T/b0" ] && [ ! -e "/tmp/otela-bench-$run-a" ] ||
    fail "a refused --bootstrap started the run"
jq '.machines[1].bootstrap_extra = ["/ip4/203.0.113.7/tcp/99999/p2p/12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13"]' \
    "$T/bench.json" >"$T/extra.json"
assert_status 2 "$NETPROF_BIN" bench --config "$T/extra.json"
assert_contains "$OUT" "$T/extra.json: machines[1].bootstrap_extra[0]: \"/ip4/203.0.113.7/tcp/99999/p2p/12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13\": 99999 (after /tcp) is not a port (0-65535)"

# --- bench --kind, as upstream's: several, repeated or comma-separated ----
# (the stand-in node fails the latency probe to its last peer: exit 1)
rc=0
"$NETPROF_BIN" -q bench --config "$T/bench.json" --run-id "$run" --output "$T/b1" \
    --kind latency --kind throughput --latency-count 2 --throughput-count 1 \
    --throughput-bytes 64K --no-punch || rc=$?
assert_eq 1 "$rc" "bench --kind latency --kind throughput"
assert_eq '["latency","throughput"]' "$(jq -c .config.kinds "$T/b1/run.json")" \
    "both kinds, not the last one"
assert_eq "latency throughput" "$(jq -r .kind "$T/b1/measurements.jsonl" | sort -u | xargs)"
assert_eq 65536 "$(jq .config.throughput_bytes "$T/b1/run.json")" "--throughput-bytes 64K"
rc=0
"$NETPROF_BIN" -q bench --config "$T/bench.json" --run-id "$run" --output "$T/b2" \
    --kinds latency,libp2p_ping --latency-count 2 --no-punch || rc=$?
assert_eq 1 "$rc" "bench --kinds latency,libp2p_ping"
assert_eq '["libp2p_ping","latency"]' "$(jq -c .config.kinds "$T/b2/run.json")"
assert_eq "" "$(pgrep -f "golden/node.py .*otela-bench-$run-" || true)" "nodes left running"

# --- upstream's bytes: the failures found as upstream's users find them ---
cat >"$T/collect.json" <<JSON
{"transport": "local", "ping_count": 2, "ping_interval": 0.2,
 "machines": [$(machine a 127.0.0.1), $(machine d 127.0.0.9)]}
JSON
rc=0
"$NETPROF_BIN" -q collect --config "$T/collect.json" --output "$T/c.jsonl" --ping-tool ping || rc=$?
assert_eq 1 "$rc" "collect with d answering nothing"
assert_eq 1 "$(grep -c '"ok": false' "$T/c.jsonl")" "grep '\"ok\": false'"
assert_eq 1 "$(grep -c '"ok": true' "$T/c.jsonl")" "grep '\"ok\": true'"
assert_eq 2 "$(grep -c '"kind": "ping", "metrics": {"avg": ' "$T/c.jsonl")" \
    "upstream's separators and key order"

test_pass
