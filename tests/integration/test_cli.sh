#!/usr/bin/env bash
# netprof's command-line shell, end to end, with no host contacted: the
# version, help and per-command usage, command matching by exact name and
# unique prefix, usage errors (exit 2 with the exact message), and broken
# inventories and --hosts reported by `netprof check --config` with the
# file, the JSON path and the fix.
. "$(dirname "$0")/lib.sh"

np() {
	"$NETPROF_BIN" "$@"
}

T=$NETPROF_TEST_TMP/cli
rm -rf "$T"
mkdir -p "$T"
cd "$T" || exit 1

# --- version and help ---------------------------------------------------

assert_status 0 np --version
assert_eq 1 "$(grep -cE '^netprof [0-9]+\.[0-9]+\.[0-9]+$' <<<"$OUT")" \
    "--version prints 'netprof X.Y.Z': $OUT"
assert_status 0 np -V
assert_contains "$OUT" "netprof "

assert_status 0 np help
assert_contains "$OUT" "usage: netprof [-v|-q] COMMAND [OPTIONS]"
for c in check collect exec heatmap plan help; do
	assert_eq 1 "$(grep -cE "^  $c +[a-z]" <<<"$OUT")" "'netprof help' lists $c"
done
assert_status 0 np --help
assert_contains "$OUT" "commands:"

assert_status 0 np help exec
assert_contains "$OUT" "usage: netprof exec --config FILE"
assert_contains "$OUT" "run a command on every host at once."
assert_status 0 np help che
assert_contains "$OUT" "usage: netprof check --config FILE"
assert_status 2 np help frob
assert_eq "netprof: unknown command 'frob'; run 'netprof help' for the list" \
    "$OUT"

# Every command: --help and -h on stdout, exit 0, its own usage line.
for c in check collect exec heatmap plan; do
	assert_status 0 np "$c" --help
	assert_eq "usage: netprof $c " "$(head -n 1 <<<"$OUT" | cut -c1-$(( 16 + ${#c} )))" \
	    "first line of '$c --help'"
	assert_contains "$OUT" "--help" "'$c --help' lists its options"
	out=$(np "$c" -h 2>/dev/null)
	assert_contains "$out" "usage: netprof $c " "'$c -h' on stdout"
done

# --- command matching ---------------------------------------------------

assert_status 2 np frob
assert_eq "netprof: unknown command 'frob'; run 'netprof help' for the list" \
    "$OUT"
assert_status 2 np c
assert_eq "netprof: ambiguous command 'c': could be check, collect, completion" "$OUT"
assert_status 2 np ""
assert_contains "$OUT" "unknown command ''"
assert_status 0 np che --help
assert_contains "$(head -n 1 <<<"$OUT")" "usage: netprof check --config FILE"
assert_status 0 np h --help
assert_contains "$(head -n 1 <<<"$OUT")" "usage: netprof heatmap "
assert_status 0 np -v -q check --help
assert_contains "$OUT" "usage: netprof check "

# Global options, and no command at all.
assert_status 2 np --frob check
assert_eq "netprof: unknown option '--frob'; run 'netprof help'" "$OUT"
rc=0
out=$(np 2>"$T/stderr") || rc=$?
assert_eq 2 "$rc" "exit status with no command"
assert_eq "" "$out" "nothing on stdout with no command"
assert_file_contains "$T/stderr" "usage: netprof [-v|-q] COMMAND [OPTIONS]"
assert_file_contains "$T/stderr" "commands:"
rc=0
out=$(np -v 2>"$T/stderr") || rc=$?
assert_eq 2 "$rc" "exit status with only a global option"

# --- check's usage errors -----------------------------------------------

usage_line="usage: netprof check --config FILE [--hosts HOSTS] [--exclude HOSTS] [--json]
       [--for PURPOSE] [--connect-timeout S] [--accept-new-host-keys]"
assert_status 2 np check
assert_eq "netprof check: --config FILE or --slurm is required
$usage_line
Run 'netprof check --help' for the options." "$OUT"
assert_status 2 np check --config
assert_eq "netprof check: option '--config' needs an argument" "$(head -n 1 <<<"$OUT")"
assert_status 2 np che -c
assert_eq "netprof check: option '-c' needs an argument" "$(head -n 1 <<<"$OUT")"
assert_status 2 np check --frob
assert_eq "netprof check: unknown option '--frob'" "$(head -n 1 <<<"$OUT")"
assert_status 2 np check -z
assert_eq "netprof check: unknown option '-z'" "$(head -n 1 <<<"$OUT")"
assert_status 2 np check --config x.json extra
assert_eq "netprof check: unexpected argument 'extra'" "$(head -n 1 <<<"$OUT")"
assert_status 2 np check --config x.json --for nope
assert_eq "netprof check: --for: 'nope' is not one of collect, iperf, bench, all" \
    "$(head -n 1 <<<"$OUT")"

# --- broken inventories, end to end -----------------------------------

# check_inventory FILE MESSAGE: `check --config FILE` exits 2 with MESSAGE
# as its only output (no host is contacted: the addresses are not ours).
check_inventory() {
	assert_status 2 np check --config "$1"
	assert_eq "$2" "$OUT" "message for $1"
}

check_inventory missing.json \
    "netprof: missing.json: cannot read: No such file or directory"

printf '{\n  "machines": [\n    {"name": "a" "address": "192.0.2.1"}\n  ]\n}\n' >syntax.json
check_inventory syntax.json \
    "netprof: syntax.json:3:18: syntax error: expected ',' or '}'"

printf '{"machines": [{"name": "a", "address": "10.0.0.300"}]}\n' >address.json
check_inventory address.json \
    'netprof: address.json: machines[0].address: "10.0.0.300" is not an IP address or host name'

cat >dup.json <<'EOF'
{"machines": [
  {"name": "h1", "address": "192.0.2.1"},
  {"name": "h1", "address": "192.0.2.2"}
]}
EOF
check_inventory dup.json \
    'netprof: dup.json: machines[1].name: "h1" is used twice (machines[0] and machines[1]); names must be unique'

printf '{"machines": [{"name": "a;rm -rf /", "address": "192.0.2.1"}]}\n' >inject.json
check_inventory inject.json \
    "netprof: inject.json: machines[0].name: \"a;rm -rf /\" is not a valid name; use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64)"

printf '{"machines": [{"name": "a", "address": "$(reboot)"}]}\n' >inject2.json
assert_status 2 np check --config inject2.json
assert_contains "$OUT" 'inject2.json: machines[0].address: "$(reboot)" is not an IP'

printf '{"machines": [{"name": "a", "address": "192.0.2.1", "ssh_host": "-oProxyCommand=touch '"$T"'/pwned"}]}\n' >inject3.json
assert_status 2 np check --config inject3.json
assert_contains "$OUT" 'inject3.json: machines[0].ssh_host: "-oProxyCommand=touch'
assert_eq 0 "$([ -e "$T/pwned" ] && echo 1 || echo 0)" "ssh_host was not used"

printf '{"machines": []}\n' >empty.json
assert_status 2 np check --config empty.json
assert_contains "$OUT" "netprof: empty.json: machines: empty; add at least one machine"

# A directory given as the file.
mkdir -p adir.json
assert_status 2 np check --config adir.json
assert_contains "$OUT" "adir.json"

# The relative path is named as given, an absolute one in full.
check_inventory "$T/address.json" \
    "netprof: $T/address.json: machines[0].address: \"10.0.0.300\" is not an IP address or host name"

# --hosts with a name that is not in the file.
cat >ok.json <<'EOF'
{"machines": [
  {"name": "a", "address": "192.0.2.1"},
  {"name": "b", "address": "192.0.2.2"},
  {"name": "c", "address": "192.0.2.3"}
]}
EOF
assert_status 2 np check --config ok.json --hosts a,zz
assert_eq 'netprof: --hosts: no machine named "zz" in ok.json (of "a,zz"); its machines: a, b, c' "$OUT"
assert_status 2 np check --config ok.json --hosts ''
assert_contains "$OUT" "--hosts"

# --- the first hour ------------------------------------------------------

# --otlp URL as --otlp=URL; a word an optional value does not take is not
# swallowed, and the error says how to give it.
printf '{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1"}]}\n' >local.json
assert_status 0 np exec --config local.json --otlp "http://127.0.0.1:$(free_port)" -- true
assert_not_contains "$OUT" "unexpected argument"
assert_status 2 np exec --config local.json --otlp=http://127.0.0.1:1 --otlp http://127.0.0.1:2 -- true
assert_contains "$OUT" "--otlp given twice ('http://127.0.0.1:1', then 'http://127.0.0.1:2')"
assert_status 2 np collect --config local.json --otlp localhost
assert_eq "netprof collect: unexpected argument 'localhost'; --otlp takes its URL as --otlp=URL" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 np collect --otlp localhost --config local.json --iperf
assert_eq "netprof collect: unexpected argument 'localhost'; --otlp takes its URL as --otlp=URL" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 np check --config local.json --slurm job7
assert_eq "netprof check: unexpected argument 'job7'; --slurm takes its JOBID as --slurm=JOBID" \
    "$(head -n 1 <<<"$OUT")"
assert_status 2 np check --config local.json extra
assert_eq "netprof check: unexpected argument 'extra'" "$(head -n 1 <<<"$OUT")"

# --config defaults to ./machines.json where there is one, said once on
# stderr (not with -q); without one it is still required.
mkdir -p bench-dir
printf '{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1"}, {"name": "b", "address": "127.0.0.2"}]}\n' >bench-dir/machines.json
for c in "check --json" "plan" "exec -- true" "collect --dry-run"; do
	# shellcheck disable=SC2086
	out=$(cd bench-dir && np $c 2>&1 >/dev/null) || fail "$c with ./machines.json: $out"
	assert_eq "netprof: using ./machines.json" "$out" "$c says which file"
done
out=$(cd bench-dir && np plan 2>/dev/null)
assert_contains "$out" "a->b"
out=$(cd bench-dir && np heatmap --input "$NETPROF_FIXTURES/heatmap/collect.jsonl" --text 2>&1 >/dev/null)
assert_eq "netprof: using ./machines.json" "$(head -n 1 <<<"$out")" "heatmap's --config too"
out=$(cd bench-dir && np -q plan 2>&1 >/dev/null)
assert_eq "" "$out" "-q: not said"
out=$(cd bench-dir && np plan --config "$T/ok.json" --fanout off 2>&1) || true
assert_not_contains "$out" "using ./machines.json"
assert_status 2 np plan
assert_contains "$OUT" "--config FILE or --slurm is required"

# check: a refused connection's advice, and --connect-timeout.
port=$(free_port)
printf '{"machines": [{"name": "a", "address": "127.0.0.1", "ssh_host": "127.0.0.1", "port": %s, "user": "nobody"}]}\n' "$port" >refused.json
assert_status 1 np check --config refused.json
assert_contains "$OUT" "  a: could not connect: 127.0.0.1:$port: Connection refused
    nothing listens on port $port there: is sshd running on a (systemctl status ssh)?"
assert_contains "$OUT" "    try: ssh -v -p $port nobody@127.0.0.1 true"
assert_status 2 np check --config refused.json --connect-timeout 0
assert_eq "netprof check: --connect-timeout: '0' is not a number from 1 to 3600" \
    "$(head -n 1 <<<"$OUT")"
# a port that takes the connection and never speaks SSH
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open("silent.port", "w").write(str(s.getsockname()[1])); time.sleep(120)' &
silent=$!
at_exit "kill $silent 2>/dev/null"
wait_for 20 test -s silent.port || fail "no silent listener"
printf '{"connect_timeout_seconds": 600, "machines": [{"name": "a", "address": "127.0.0.1", "ssh_host": "127.0.0.1", "port": %s, "user": "nobody"}]}\n' "$(cat silent.port)" >silent.json
assert_status 1 np check --config silent.json --connect-timeout 1
assert_contains "$OUT" "after 1 s"
assert_contains "$OUT" "on a slow network: --connect-timeout S"
kill "$silent" 2>/dev/null || true

# bench says its run id as it starts and in its summary (no otela here:
# every host fails at init), and the docs give one bench-to-page recipe,
# run.json with the records.
mkdir -p bench-run
printf '{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1", "remote_setup": "PATH=/nonexistent"}, {"name": "b", "address": "127.0.0.2", "remote_setup": "PATH=/nonexistent"}]}\n' >bench-run/m.json
out=$(cd bench-run && np bench --config m.json 2>&1) && fail "bench without otela passed"
id=$(sed -n '1s|^netprof: bench \([^:]*\): measurements.jsonl and run.json in results/\1/$|\1|p' <<<"$out")
assert_ne "" "$id" "bench's first line names the run id: $(head -n 1 <<<"$out")"
assert_contains "$out" "netprof: bench $id: 0 probes ok"
[ -f "bench-run/results/$id/run.json" ] || fail "no results/$id/run.json"
recipe='netprof bench --config machines.json --baseline    # results/RUN_ID/
netprof heatmap --input results/RUN_ID/measurements.jsonl \
    --input results/RUN_ID/run.json --output results/bench.html'
for f in README.md docs/bench.md; do
	python3 -c 'import sys; sys.exit(sys.argv[1] not in open(sys.argv[2]).read())' \
	    "$recipe" "$NETPROF_SRC/$f" || fail "$f lacks the bench recipe"
	assert_eq 0 "$(grep -c -- '<run-id>' "$NETPROF_SRC/$f")" "$f: RUN_ID, not <run-id>"
	assert_eq 1 "$(tr '\n' ' ' <"$NETPROF_SRC/$f" | grep -c 'is printed on stderr as the run starts')" \
	    "$f says where RUN_ID is printed"
done
assert_eq 2 "$(grep -c -- '--input results/RUN_ID/run.json --output results/bench.html' "$NETPROF_SRC/README.md")" \
    "README's two bench recipes are one"

# the demo's output directory is not left untracked in a clone
demo_dir=$(sed -n 's|^out=\$PWD/\(.*\)$|\1|p' "$NETPROF_SRC/examples/lab-demo.sh")
assert_eq netprof-demo "$demo_dir" "lab-demo.sh's default output directory"
assert_eq 1 "$(grep -cxF "/$demo_dir/" "$NETPROF_SRC/.gitignore")" ".gitignore lists /$demo_dir/"

# cmake --install puts the binary and the man page netprof(1) in place.
build=$(dirname "$NETPROF_BIN")
if [ -f "$build/cmake_install.cmake" ]; then
	assert_status 0 cmake --install "$build" --prefix "$T/prefix"
	assert_status 0 "$T/prefix/bin/netprof" --version
	assert_contains "$OUT" "netprof "
	[ -f "$T/prefix/share/man/man1/netprof.1" ] ||
	    fail "no man page at $T/prefix/share/man/man1/netprof.1"
	assert_file_contains "$T/prefix/share/man/man1/netprof.1" ".TH NETPROF 1"
fi

# --otlp says where the spans go (nothing listens: their loss is said too);
# the default, this machine's port 4318, says who else may receive them
printf '{"transport": "local", "machines": [{"name": "a", "address": "127.0.0.1"}]}\n' >otlp.json
assert_status 0 env -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT \
    -u OTEL_SDK_DISABLED "$NETPROF_BIN" exec --config otlp.json --otlp -- true
assert_contains "$OUT" "netprof: --otlp: spans go to http://localhost:4318/v1/traces (this machine: whoever listens on its port 4318 receives them, with the command lines and OTEL_EXPORTER_OTLP_HEADERS)"
assert_status 0 "$NETPROF_BIN" exec --config otlp.json --otlp=http://127.0.0.1:9 -- true
assert_eq "netprof: --otlp: spans go to http://127.0.0.1:9/v1/traces" \
    "$(grep 'spans go to' <<<"$OUT")" "--otlp=URL: said once, no note"
assert_status 0 "$NETPROF_BIN" -q exec --config otlp.json --otlp=http://127.0.0.1:9 -- true
assert_not_contains "$OUT" "spans go to" "-q: not said"

test_pass
