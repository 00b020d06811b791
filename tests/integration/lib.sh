# shellcheck shell=bash
# Shared helpers for the integration tests (tests/integration/test_*.sh),
# sourced, not run. A test calls require_root, brings up its own lab with
# lab_up (taken down again at exit, also on failure), checks with the
# assert_* helpers (each prints both values on failure) and ends with
# test_pass. ctest sets NETPROF_BIN, NETPROF_SRC, NETPROF_FIXTURES and
# NETPROF_TEST_TMP; outside ctest sensible defaults are used.
set -euo pipefail

TEST_NAME=$(basename "$0" .sh)
NETPROF_SRC=${NETPROF_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
NETPROF_BIN=${NETPROF_BIN:-$NETPROF_SRC/build/main/netprof}
NETPROF_FIXTURES=${NETPROF_FIXTURES:-$NETPROF_SRC/tests/fixtures}
_own_tmp=
if [ -z "${NETPROF_TEST_TMP:-}" ]; then
	NETPROF_TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/netprof-test.XXXXXX")
	_own_tmp=$NETPROF_TEST_TMP	# removed at exit (below)
fi
mkdir -p "$NETPROF_TEST_TMP"
LAB_SH=$NETPROF_SRC/tests/lab/lab.sh
TEST_CHECKS=0
export NETPROF_SRC NETPROF_BIN NETPROF_FIXTURES NETPROF_TEST_TMP LAB_SH

# --- cleanup at exit ---------------------------------------------------

_at_exit_cmds=()

# Run the shell text $1 when the test exits (last registered runs first).
at_exit() {
	_at_exit_cmds=("$1" "${_at_exit_cmds[@]}")
}

_run_at_exit() {
	local rc=$? c
	set +e
	for c in "${_at_exit_cmds[@]}"; do
		eval "$c"
	done
	exit $rc
}
trap _run_at_exit EXIT
trap 'exit 130' INT TERM
# a test run by hand removes the directory it made, after everything else
[ -n "$_own_tmp" ] && at_exit "rm -rf '$_own_tmp'"

# ctest ends a test past its timeout with SIGKILL to the test's process
# tree: no trap runs, and what has left the tree goes on (a node that
# bench started in the background, whose starting shell has ended). So
# every process the test starts carries NETPROF_TEST_RUN, this run's own,
# in its environment, and a reaper outside the tree (its parent gone at
# once) waits for the test's shell to end and kills what still carries it.
NETPROF_TEST_RUN=$TEST_NAME.$$.$RANDOM$RANDOM
export NETPROF_TEST_RUN
_reap() {
	local test=$1 run=$NETPROF_TEST_RUN p
	set +e
	trap - EXIT INT TERM
	unset NETPROF_TEST_RUN	# not in what it runs
	cd /
	while kill -0 "$test" 2>/dev/null; do sleep 1; done
	for p in $(grep -lzxF "NETPROF_TEST_RUN=$run" /proc/[0-9]*/environ 2>/dev/null); do
		p=${p#/proc/}
		p=${p%/environ}
		[ "$p" = "$BASHPID" ] || kill -KILL "$p" 2>/dev/null
	done
}
( _reap $$ </dev/null >/dev/null 2>&1 & )

# --- the otela node the bench tests run ------------------------------

# The remote_setup that puts an otela on the hosts' PATH: the stand-in
# (tests/otela-node), or with NETPROF_TEST_OTELA=/path/to/otela that binary
# (linked as otela in a directory of the test's). OTELA_FAKE_* shorten the
# stand-in's real-length waits (3 s to its API, 10 s of SIGTERM cleanup)
# for tests that are not about them; the real binary ignores them.
OTELA_SHORT_WAITS="export OTELA_FAKE_API_DELAY_MS=100 OTELA_FAKE_STOP_MS=300"
otela_setup() {
	local dir=$NETPROF_SRC/tests/otela-node/bin
	if [ -n "${NETPROF_TEST_OTELA:-}" ]; then
		[ -x "$NETPROF_TEST_OTELA" ] || fail "NETPROF_TEST_OTELA=$NETPROF_TEST_OTELA is not an executable"
		# a real node dials its bootstrap list and more: it runs only
		# where nothing beyond the lab is reachable
		local h
		for h in $LAB_HOSTS; do
			[ -z "$(lab run "$h" -- ip route show default)" ] ||
				fail "lab host $h has a default route: a real otela there could reach beyond the lab"
		done
		dir=$NETPROF_TEST_TMP/otela-bin
		mkdir -p "$dir"
		ln -sf "$NETPROF_TEST_OTELA" "$dir/otela"
	fi
	printf 'export PATH=%s:$PATH' "$dir"
	[ "${1:-}" = real-timing ] ||
		printf '; %s' "$OTELA_SHORT_WAITS"
}

# assert_started_in_turn RUN_JSON: bench's nodes started in turn, each
# after the one before listened on its libp2p port, which takes any node
# more than 30 ms from its start (the lab's hosts share this machine's
# clock: pid_start is in its ticks since boot).
assert_started_in_turn() {
	local hz
	hz=$(getconf CLK_TCK)
	assert_eq "" "$(jq -r --argjson t $(( (3 * hz + 99) / 100 )) '.machines as $m |
	    range(1; $m|length)|select($m[.].pid_start - $m[. - 1].pid_start < $t)|
	    "\($m[.].name) \($m[.].pid_start - $m[. - 1].pid_start) ticks after \($m[. - 1].name)"' \
	    "$1")" "each node started after the one before it listened"
}

# Skip unless the stand-in's packages are there (not needed for the real
# binary).
require_otela() {
	[ -n "${NETPROF_TEST_OTELA:-}" ] ||
		[ -d "$NETPROF_SRC/tests/otela-node/node_modules" ] ||
		skip "needs the stand-in node's packages (tests/otela-node/install.sh)"
}

# --- skipping ----------------------------------------------------------

skip() {
	echo "skipped: $*"
	exit 77
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
}

# Skip unless every command named is on PATH. With NETPROF_TESTS_NO_SKIP=1
# (CI, which runs on a machine the install step prepared) a missing command
# fails the test instead: an install step that forgets it must not pass.
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null && continue
		[ "${NETPROF_TESTS_NO_SKIP:-0}" = 1 ] &&
		    _fail_at "$(_where)" "needs $c, which tests/install-deps.sh did not install"
		skip "needs $c (tests/install-deps.sh test)"
	done
}

# --- waiting and ports ----------------------------------------------------

# free_port: a TCP port of 127.0.0.1 that nothing listens on now
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for SECONDS CMD...: until CMD succeeds (polled every 0.5 s); 1 if
# it did not within SECONDS
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}

# --- the lab -----------------------------------------------------------

# lab_up NAME N [lab.sh up options...]
# Bring up lab NAME (1-8 lower-case letters or digits) with N hosts in
# $NETPROF_TEST_TMP/lab-NAME, source its lab.env (LAB_NAME, LAB_DIR,
# LAB_HOSTS, LAB_ADDRS, LAB_USER, LAB_SUBNET, LAB_INVENTORY,
# LAB_SSH_CONFIG) and take it down at exit. The subnet is picked from a hash
# of NAME (and the next free one on a clash) unless --subnet is given.
# A lab of the same name left by an earlier, killed run of this build is
# taken down first; one belonging to another checkout is waited for.
lab_up() {
	local name=${1:?lab_up NAME N [options]} n=${2:?lab_up NAME N [options]}
	shift 2
	local dir=$NETPROF_TEST_TMP/lab-$name k try out a own_subnet=0
	for a in "$@"; do
		[ "$a" = --subnet ] && own_subnet=1
	done
	_lab_wait_foreign "$name" "$dir"
	"$LAB_SH" down --name "$name" --dir "$dir" >/dev/null 2>&1 || true
	at_exit "\"\$LAB_SH\" down --name '$name' --dir '$dir' >/dev/null"
	k=$(( 16 + $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 224 ))
	for (( try = 0; try < 16; try++ )); do
		if [ $own_subnet = 1 ]; then
			out=$("$LAB_SH" up --name "$name" --hosts "$n" --dir "$dir" \
			    "$@" 2>&1) && break
		else
			out=$("$LAB_SH" up --name "$name" --hosts "$n" --dir "$dir" \
			    --subnet $(( (k + try) % 240 + 16 )) "$@" 2>&1) && break
		fi
		if [ $own_subnet = 1 ] ||
		    ! grep -qE 'is used by lab|already on interface' <<<"$out"; then
			fail "lab_up $name: lab.sh up failed:"$'\n'"$out"
		fi
	done
	[ $try -lt 16 ] || fail "lab_up $name: no free subnet:"$'\n'"$out"
	# Warnings (like a skipped --delay) are worth seeing in the test log.
	grep -v '^  ' <<<"$out" | grep -v "is up:" >&2 || true
	# The test that owns the lab: a lab whose owner is gone is stale.
	echo $$ >"$dir/.owner"
	# shellcheck disable=SC1091
	. "$dir/lab.env"
}

# Is the lab in DIR stale: its directory gone, or the test that brought it
# up (recorded in DIR/.owner by lab_up) no longer running? A lab without
# an owner file was brought up by hand and is never taken as stale.
_lab_owner_alive() {
	local pid
	[ -d "$1" ] || return 1
	[ -f "$1/.owner" ] || return 0
	pid=$(cat "$1/.owner" 2>/dev/null)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# Another checkout's test may be using lab NAME right now (its registry
# points elsewhere): wait up to two minutes for it to finish.
_lab_wait_foreign() {
	local name=$1 dir=$2 reg=/run/netprof-lab/$1.env i other
	for (( i = 0; i < 240; i++ )); do
		[ -f "$reg" ] || return 0
		# shellcheck disable=SC1090
		other=$(. "$reg" && echo "$LAB_DIR") || return 0
		[ "$other" = "$dir" ] && return 0
		if ! _lab_owner_alive "$other"; then
			echo "taking down stale lab '$name' ($other)" >&2
			"$LAB_SH" down --name "$name" --dir "$other" >/dev/null 2>&1
			return 0
		fi
		[ $i = 0 ] && echo "waiting for lab '$name' ($other) to go down" >&2
		sleep 0.5
	done
	fail "lab '$name' is still up in $other; take it down: $LAB_SH down --name $name"
}

# lab CMD [args...]: lab.sh CMD for the lab brought up last.
lab() {
	local cmd=$1
	shift
	"$LAB_SH" "$cmd" --name "$LAB_NAME" "$@"
}

# ssh to a lab host with OpenSSH: lab_ssh h1 'command'.
lab_ssh() {
	ssh -F "$LAB_DIR/ssh_config.openssh" "$@"
}

# The address of lab host hI (a NAT site's host has a private one).
lab_addr() {
	local a
	read -ra a <<<"$LAB_ADDRS"
	echo "${a[$(( ${1#h} - 1 ))]}"
}

# --- the account's own ~/.ssh, replaced --------------------------------

# in_pw_home DIR CMD...: run CMD with DIR as the .ssh directory of the
# account's home directory (from the password database: libssh's default
# keys and OpenSSH's ~/.ssh come from there, not from $HOME), in a private
# mount namespace: the real ~/.ssh is neither read nor changed.
PW_HOME=$(getent passwd "$(id -un)" | cut -d: -f6)
in_pw_home() {
	local dir=$1 target
	shift
	if [ -d "$PW_HOME/.ssh" ]; then
		target=$PW_HOME/.ssh
	else
		# no .ssh to cover: cover the home directory itself
		mkdir -p "$dir.home" && rm -rf "$dir.home/.ssh" &&
		    cp -a "$dir" "$dir.home/.ssh"
		target=$PW_HOME
		dir=$dir.home
	fi
	# shellcheck disable=SC2016
	unshare --mount --propagation private -- bash -c \
	    'mount --bind "$1" "$2" && shift 2 && exec "$@"' _ \
	    "$dir" "$target" "$@"
}

# Skip unless in_pw_home can work: unshare, and a home to cover that does
# not hold the test's own files.
require_pw_home() {
	require_cmd unshare
	case $NETPROF_TEST_TMP/ in
	"$PW_HOME"/*) [ -d "$PW_HOME/.ssh" ] ||
	    skip "the scratch directory is inside $PW_HOME, which has no .ssh to cover" ;;
	esac
}

# --- assertions --------------------------------------------------------

_where() {
	echo "${BASH_SOURCE[2]##*/}:${BASH_LINENO[1]}"
}

fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

_fail_at() {
	local where=$1
	shift
	echo "FAIL: $TEST_NAME ($where): $*" >&2
	exit 1
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	TEST_CHECKS=$((TEST_CHECKS + 1))
	[ "$1" = "$2" ] && return 0
	_fail_at "$(_where)" "${3:-values differ}"$'\n'"  expected: '$1'"$'\n'"  actual:   '$2'"
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
	TEST_CHECKS=$((TEST_CHECKS + 1))
	[ "$1" != "$2" ] && return 0
	_fail_at "$(_where)" "${3:-values are equal}"$'\n'"  both: '$1'"
}

# assert_contains TEXT NEEDLE [WHAT]: NEEDLE is a fixed string.
assert_contains() {
	TEST_CHECKS=$((TEST_CHECKS + 1))
	case $1 in *"$2"*) return 0 ;; esac
	_fail_at "$(_where)" "${3:-text does not contain '$2'}"$'\n'"  wanted: '$2'"$'\n'"  in:     '$1'"
}

# assert_not_contains TEXT NEEDLE [WHAT]
assert_not_contains() {
	TEST_CHECKS=$((TEST_CHECKS + 1))
	case $1 in *"$2"*) ;; *) return 0 ;; esac
	_fail_at "$(_where)" "${3:-text contains '$2'}"$'\n'"  unwanted: '$2'"$'\n'"  in:       '$1'"
}

# assert_file_contains FILE NEEDLE [WHAT]: NEEDLE is a fixed string.
assert_file_contains() {
	TEST_CHECKS=$((TEST_CHECKS + 1))
	[ -f "$1" ] || _fail_at "$(_where)" "${3:-}${3:+: }no file $1"
	grep -qF -- "$2" "$1" && return 0
	_fail_at "$(_where)" "${3:-$1 does not contain '$2'}"$'\n'"  wanted: '$2'"$'\n'"  in $1:"$'\n'"$(head -c 2000 "$1")"
}

# assert_status EXPECTED_RC CMD...: run CMD, check its exit status; its
# output is left in $OUT (stdout and stderr together).
assert_status() {
	local want=$1 rc=0
	shift
	TEST_CHECKS=$((TEST_CHECKS + 1))
	OUT=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] && return 0
	_fail_at "$(_where)" "exit status of '$*'"$'\n'"  expected: $want"$'\n'"  actual:   $rc"$'\n'"  output: $OUT"
}

# json_get FILE JQ_FILTER: the filter's raw output (jq -r).
json_get() {
	command -v jq >/dev/null || skip "needs jq (tests/install-deps.sh lab)"
	jq -r "$2" "$1" || _fail_at "$(_where)" "json_get: jq '$2' failed on $1"
}

# The summary line; call it last.
test_pass() {
	echo "TEST_PASS $TEST_NAME: $TEST_CHECKS checks"
	exit 0
}
