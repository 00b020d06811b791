#!/usr/bin/env bash
# bench on a shared host, against another local user and a hostile
# run.json, on a 2-host lab (the hosts share /tmp, as do the logins of one
# login node):
# - another user pre-creates h1's bench directory, world-writable, with
#   cfg.yaml.tmp and log as links to the lab user's files: h1 fails at
#   init saying the directory exists, the files are untouched, the other
#   user's directory is neither entered nor removed, h2 still runs;
# - a node whose pid file cannot be written is still known and stopped;
# - --teardown with a run.json whose dir points at a directory of the
#   user's removes only the run's own directories;
# - run.json records the node's start time with its PID;
# - a file planted in the deploy cache under the binary's name, and a
#   truncated one, are not run but replaced by the real binary.
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ssh jq node useradd runuser
[ -d "$NETPROF_SRC/tests/otela-node/node_modules" ] ||
	skip "needs the stand-in node's packages (tests/otela-node/install.sh)"

lab_up tbsec 2
# The run directories of a killed earlier run of this test (the lab's hosts
# share this machine's /tmp) would be refused like any planted one: they go
# first, and at exit.
rm -rf /tmp/otela-bench-s[1-4]-h[12]
at_exit "rm -rf /tmp/otela-bench-s[1-4]-h[12]"
# the stand-in's API up in 0.1 s and its SIGTERM cleanup in 0.3 s, not its
# real-length 3 and 10 s: this test is about what is left, not how long
path="export PATH=$NETPROF_SRC/tests/otela-node/bin:\$PATH; $OTELA_SHORT_WAITS"
inv=$NETPROF_TEST_TMP/shared.json
jq --arg p "$path" '.remote_setup = $p' "$LAB_INVENTORY" >"$inv"
small=(--kinds libp2p_ping --latency-count 2 --no-punch)

# Another unprivileged local user, removed at exit.
other=npsec$$
other=${other:0:16}
useradd --no-create-home --home-dir /nonexistent --shell /bin/sh "$other"
at_exit "userdel '$other' 2>/dev/null || true"

nothing_left() {
	local left
	sleep 0.3
	left=$(for p in $(lab pids); do ps -o pid=,args= -p "$p" 2>/dev/null; done || true)
	assert_eq "" "$left" "processes left in the lab ($1)"
}

# --- a hostile directory made beforehand by another user ---------------
# The lab user's files the links point at (stand-ins for ~/.bashrc and
# ~/.ssh/authorized_keys: the real ones are shared by every lab).
victim=$NETPROF_TEST_TMP/victim
mkdir -p "$victim"
echo "# the user's shell setup" >"$victim/bashrc"
echo "ssh-ed25519 AAAA the-user" >"$victim/authorized_keys"
chown -R "$LAB_USER:" "$victim"
chmod 755 "$NETPROF_TEST_TMP"
before=$(cat "$victim/bashrc" "$victim/authorized_keys" | sha256sum)
d=/tmp/otela-bench-s1-h1
rm -rf "$d"
at_exit "rm -rf '$d'"
runuser -u "$other" -- sh -c "mkdir -m 777 '$d' &&
    ln -s '$victim/bashrc' '$d/cfg.yaml.tmp' &&
    ln -s '$victim/authorized_keys' '$d/log'"
out=$NETPROF_TEST_TMP/hostile
rm -rf "$out"	# its earlier run's output is refused
assert_status 1 "$NETPROF_BIN" bench --config "$inv" --output "$out" \
    --run-id s1 "${small[@]}"
assert_contains "$OUT" "h1 FAILED at init"
assert_contains "$(jq -r '.machines[]|select(.name=="h1")|.error' "$out/run.json")" \
    "h1: /tmp/otela-bench-s1-h1 exists already (someone else made it"
assert_eq "$before" "$(cat "$victim/bashrc" "$victim/authorized_keys" | sha256sum)" \
    "the user's files, linked from the other user's directory, untouched"
assert_eq "$other cfg.yaml.tmp log" "$(stat -c %U "$d") $(ls "$d" | xargs)" \
    "the other user's directory neither entered nor removed"
assert_eq "ok" "$(jq -r '.machines[]|select(.name=="h2")|.status' "$out/run.json")" "h2 still runs"
assert_eq "ok" "$(jq -r '.machines[]|select(.name=="h2")|.phases.teardown' "$out/run.json")"
assert_eq "" "$(ls -d /tmp/otela-bench-s1-h2 2>/dev/null || true)" "h2's directory removed"
nothing_left "hostile directory"
rm -rf "$d"

# --- run.json has the PID and its start time; the directory is 0700 ----
out=$NETPROF_TEST_TMP/$TEST_NAME.keep
rm -rf "$out"	# its earlier run's output is refused
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --output "$out" \
    --run-id s2 --keep "${small[@]}"
assert_eq "700 $LAB_USER" "$(stat -c '%a %U' /tmp/otela-bench-s2-h1)" "the bench directory is private"
p=$(jq -r '.machines[0].pid' "$out/run.json")
assert_eq "$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f20)" \
    "$(jq -r '.machines[0].pid_start' "$out/run.json")" "run.json: the node's start time"

# --- --teardown with a run.json whose dir points elsewhere -------------
mine=/tmp/npsec-mine-$$
mkdir -p "$mine" && echo data >"$mine/file" && chown -R "$LAB_USER:" "$mine"
at_exit "rm -rf '$mine'"
jq --arg d "$mine" '.machines[0].dir = $d' "$out/run.json" >"$out/run.json.new"
mv "$out/run.json.new" "$out/run.json"
assert_status 0 "$NETPROF_BIN" bench --config "$inv" --teardown "$out/run.json"
assert_eq "data" "$(cat "$mine/file" 2>/dev/null)" "a directory named by run.json's dir is not removed"
assert_eq "" "$(ls -d /tmp/otela-bench-s2-* 2>/dev/null || true)" "the run's own directories removed"
nothing_left "--teardown"

# --- the pid file cannot be written ------------------------------------
# h1's otela makes D/pid a directory at init, so `echo $! >D/pid` fails.
wrap=$NETPROF_TEST_TMP/wrap
mkdir -p "$wrap"
cat >"$wrap/otela" <<EOS
#!/bin/sh
$path
[ "\$1" = init ] || exec otela "\$@"
otela "\$@" && mkdir "\$3/pid"
EOS
chmod 755 "$wrap" "$wrap/otela"
jq --arg w "export PATH=$wrap:\$PATH" \
    '.machines |= map(if .name == "h1" then .remote_setup = $w else . end)' \
    "$inv" >"$NETPROF_TEST_TMP/nopid.json"
out=$NETPROF_TEST_TMP/nopid
rm -rf "$out"	# its earlier run's output is refused
assert_status 1 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/nopid.json" \
    --output "$out" --run-id s3 "${small[@]}"
assert_contains "$OUT" "h1 FAILED at start"
assert_ne "null" "$(jq -r '.machines[0].pid' "$out/run.json")" "the PID is known without the pid file"
assert_eq "ok" "$(jq -r '.machines[0].phases.teardown' "$out/run.json")" "h1's node torn down"
nothing_left "unwritable pid file"
assert_eq "" "$(ls -d /tmp/otela-bench-s3-* 2>/dev/null || true)" "directories removed"

# --- a reused run id: the earlier run's output is not written over -------
# (before any host is reached; --force replaces it, test_bench's deploy)
kept=$(cat "$out/measurements.jsonl" "$out/run.json" | sha256sum)
assert_status 2 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/nopid.json" \
    --output "$out" --run-id s3 "${small[@]}"
assert_contains "$OUT" "bench: $out holds an earlier run's measurements.jsonl or run.json: refusing"
assert_contains "$OUT" "or add --force to replace them"
rid=$NETPROF_TEST_TMP/rid
rm -rf "$rid" && mkdir -p "$rid/results" && cp -r "$out" "$rid/results/s3"
assert_status 2 sh -c 'cd "$1" && shift && exec "$@"' sh "$rid" \
    "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/nopid.json" --run-id s3 "${small[@]}"
assert_contains "$OUT" "bench: results/s3 holds an earlier run's"
assert_contains "$OUT" "choose another --run-id"
assert_eq "$kept" "$(cat "$out/measurements.jsonl" "$out/run.json" | sha256sum)" "the first run's output untouched"
assert_eq "$kept" "$(cat "$rid/results/s3/measurements.jsonl" "$rid/results/s3/run.json" | sha256sum)" \
    "the first run's output untouched (results/RUN_ID)"

# --- the deploy cache: a planted and a truncated file --------------------
bindir=$NETPROF_TEST_TMP/$TEST_NAME.otela-bin
mkdir -p "$bindir"
bin=$bindir/otela-$(uname -m | sed 's/x86_64/amd64/; s/aarch64/arm64/')
printf '#!/bin/sh\n# %s\nexec %s/tests/otela-node/bin/otela "$@"\n' "$TEST_NAME" "$NETPROF_SRC" >"$bin"
chmod 755 "$bindir" "$bin"
sha=$(sha256sum "$bin" | cut -c1-64)
cache=$(getent passwd "$LAB_USER" | cut -d: -f6)/.cache/netprof
mkdir -p "$cache" && chown "$LAB_USER:" "$cache"
at_exit "rm -f '$cache/otela-$sha'"
# no otela on PATH: it comes over the session
jq --arg f "$OTELA_SHORT_WAITS" '.remote_setup = $f' "$LAB_INVENTORY" >"$NETPROF_TEST_TMP/$TEST_NAME.bare.json"
printf '#!/bin/sh\necho planted >&2; exit 1\n' >"$cache/otela-$sha"
head -c 20 "$bin" >"$NETPROF_TEST_TMP/truncated"
for plant in planted "$NETPROF_TEST_TMP/truncated"; do
	[ "$plant" = planted ] || cp "$plant" "$cache/otela-$sha"
	chmod 755 "$cache/otela-$sha" && chown "$LAB_USER:" "$cache/otela-$sha"
	assert_status 0 "$NETPROF_BIN" bench --config "$NETPROF_TEST_TMP/$TEST_NAME.bare.json" \
	    --output "$NETPROF_TEST_TMP/$TEST_NAME.deploy" --force --run-id s4 --otela-bin "$bindir" "${small[@]}"
	cmp -s "$bin" "$cache/otela-$sha" || fail "the cached binary was not replaced ($plant)"
	assert_eq "700" "$(stat -c %a "$cache")" "the cache directory is private"
done
nothing_left "deploy cache"
test_pass
