#!/usr/bin/env bash
# The netprof lab: N hosts on one Linux machine, each a network namespace
# with its own OpenSSH sshd, joined by a bridge in 198.18.K.0/24. netprof's
# integration tests, its benchmarks and its demo run the real binary over
# real SSH against these hosts. `up` is idempotent (it verifies and repairs,
# keeping keys), `down` removes every namespace, link, process, file and the
# lab user that `up` made. Run `lab.sh --help` for the commands.
set -euo pipefail

PROG=lab.sh
STATE=/run/netprof-lab		# registry of running labs, lab user's home
LAB_USER=nplab
SSHD=/usr/sbin/sshd
PREFIX=198.18

usage() {
	cat <<EOF
usage: $PROG COMMAND [OPTIONS]

A lab of hosts h1..hN, each a network namespace with its own sshd, on a
bridge with addresses 198.18.K.2 .. 198.18.K.(N+1). Needs root.

commands:
  up   [--name NAME] [--hosts N] [--subnet K] [--dir DIR]
       [--rate HOST=RATE]... [--delay HOST=MS]... [--slurm]
                         create (or verify and repair) the lab; writes
                         DIR/machines.json, DIR/lab.env, keys and configs
  down [--name NAME] [--dir DIR]
                         stop every process in the lab, remove its
                         namespaces, links, files and (if it is the last
                         lab) the lab user
  status [--name NAME]   show the lab's hosts and their sshd
  sshd-stop  [--name NAME] HOST   stop HOST's sshd (new connections refused)
  sshd-start [--name NAME] HOST   start HOST's sshd again
  rekey      [--name NAME] HOST   give HOST a new host key and restart its
                         sshd; known_hosts keeps the old key
  run        [--name NAME] HOST -- CMD...
                         run CMD as root inside HOST's namespace
  pids       [--name NAME]        pids of processes in the lab's namespaces
                         other than sshd, one per line

options:
  --name NAME     lab name, 1-8 lower-case letters or digits (default: lab)
  --hosts N       number of hosts, 1-200 (default: 4)
  --subnet K      use 198.18.K.0/24, K in 0..255 (default: 0)
  --dir DIR       where keys, configs and logs go
                  (default: /tmp/netprof-lab-NAME)
  --rate HOST=RATE  limit HOST's egress, e.g. h3=100mbit (tc htb)
  --slurm         also start a Slurm cluster on the lab (tests/lab/slurm.sh)
  --delay HOST=MS   add MS milliseconds of delay to HOST's egress (tc netem;
                  skipped with a warning when the kernel has no netem)
  -h, --help      show this help

Connect with OpenSSH:  ssh -F DIR/ssh_config.openssh h1
Use with netprof:      netprof check --config DIR/machines.json
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage_error() {
	echo "$PROG: $*" >&2
	echo "Try '$PROG --help'." >&2
	exit 2
}

warn() {
	echo "$PROG: warning: $*" >&2
}

require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$PROG: must be run as root (it creates network namespaces," \
		    "links and a user); try: sudo $0 ${COMMAND:-up}" >&2
		exit 2
	fi
}

# One lab operation at a time on this machine: labs share the lab user,
# /run/sshd and the registry. A directory fd is locked so that no lock file
# is left behind.
take_lock() {
	local d=/run/lock
	[ -d "$d" ] || d=/run
	exec 9<"$d"
	flock 9
}

# --- names -------------------------------------------------------------

# Interface names are at most 15 characters: "npbr-" + 8 and "np-" + 8 +
# "-" + 3 digits fit. Namespaces are "np-NAME-hI".
bridge_of() { echo "npbr-$NAME"; }
netns_of() { echo "np-$NAME-$1"; }
veth_of() { echo "np-$NAME-${1#h}"; }
addr_of() { echo "$PREFIX.$SUBNET.$(( ${1#h} + 1 ))"; }
hostdir_of() { echo "$DIR/hosts/$1"; }
mac_of() { printf '02:6e:70:%02x:%02x:%02x\n' "$SUBNET" $(( ${1#h} >> 8 )) $(( ${1#h} & 255 )); }

check_name() {
	[[ $NAME =~ ^[a-z0-9]{1,8}$ ]] ||
	    usage_error "--name: '$NAME' must be 1-8 lower-case letters or digits"
}

# Host names of the lab, from the registry (h1 .. hN).
host_list() {
	local i
	for (( i = 1; i <= HOSTS; i++ )); do
		echo "h$i"
	done
}

# --- registry ----------------------------------------------------------

registry_of() { echo "$STATE/$NAME.env"; }

# Load NAME's registry entry (LAB_DIR, LAB_SUBNET, LAB_NHOSTS) into DIR,
# SUBNET, HOSTS. Returns 1 when the lab is not up.
registry_load() {
	local f
	f=$(registry_of)
	[ -f "$f" ] || return 1
	# shellcheck disable=SC1090
	. "$f"
	DIR=$LAB_DIR
	SUBNET=$LAB_SUBNET
	HOSTS=$LAB_NHOSTS
}

require_lab() {
	registry_load || die "lab '$NAME' is not up (start it with: $PROG up --name $NAME)"
}

check_host() {
	local h=$1
	[[ $h =~ ^h[1-9][0-9]*$ ]] && (( ${h#h} <= HOSTS )) ||
	    usage_error "no host '$h' in lab '$NAME' (hosts are h1..h$HOSTS)"
}

# --- the lab user ------------------------------------------------------

user_ensure() {
	mkdir -p "$STATE/home"
	if ! getent passwd "$LAB_USER" >/dev/null; then
		useradd --system --user-group --shell /bin/sh \
		    --home-dir "$STATE/home" --no-create-home \
		    --comment "netprof lab" "$LAB_USER"
	fi
	# Ours also when an earlier lab made it and its record was lost (a
	# reboot empties /run): the last down removes it.
	if [ "$(getent passwd "$LAB_USER" | cut -d: -f5)" = "netprof lab" ]; then
		touch "$STATE/user-created"
	fi
	# With UsePAM no, sshd refuses a locked account ("!" in /etc/shadow);
	# "*" is not locked and still matches no password.
	usermod -p '*' "$LAB_USER"
	chown "$LAB_USER:" "$STATE/home"
	chmod 0755 "$STATE/home"
	if [ ! -d /run/sshd ]; then
		mkdir -p /run/sshd
		chmod 0755 /run/sshd
		touch "$STATE/run-sshd-created"
	fi
}

# --- bridge and hosts --------------------------------------------------

bridge_up() {
	local br
	br=$(bridge_of)
	if ! ip link show "$br" >/dev/null 2>&1; then
		ip link add "$br" address "$(printf '02:6e:71:%02x:00:01' "$SUBNET")" \
		    type bridge stp_state 0 forward_delay 0
	fi
	echo 1 >"/proc/sys/net/ipv6/conf/$br/disable_ipv6" 2>/dev/null || true
	ip addr replace "$PREFIX.$SUBNET.1/24" dev "$br"
	ip link set "$br" up
}

# Create or repair host $1's namespace and link.
host_net_up() {
	local h=$1 ns veth br
	ns=$(netns_of "$h")
	veth=$(veth_of "$h")
	br=$(bridge_of)
	[ -e "/run/netns/$ns" ] || ip netns add "$ns"
	if ! ip -n "$ns" link show eth0 >/dev/null 2>&1 ||
	    ! ip link show "$veth" >/dev/null 2>&1; then
		ip -n "$ns" link del eth0 2>/dev/null || true
		ip link del "$veth" 2>/dev/null || true
		# A fixed MAC per address keeps the other hosts' ARP caches
		# right when a host is made again.
		ip link add "$veth" type veth peer name eth0 netns "$ns" \
		    address "$(mac_of "$h")"
	fi
	ip link set "$veth" master "$br" up
	echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6" 2>/dev/null || true
	# ping without privileges (iputils also has cap_net_raw); the range is
	# per namespace.
	ip netns exec "$ns" sh -c '
		echo "0 2147483647" >/proc/sys/net/ipv4/ping_group_range
		echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6'
	ip -n "$ns" link set lo up
	ip -n "$ns" addr replace "$(addr_of "$h")/24" dev eth0
	ip -n "$ns" link set eth0 up
}

# Every host knows every other host's MAC (permanent neighbour entries).
# The bridge is software on the machine's few cores: when N hosts start
# pinging each other at once, N(N-1) ARP broadcasts, each flooded to N
# ports, overflow its queues and whole pairs lose every packet (most of
# them at N = 64), which a switch's hardware never does. With the MACs
# known there is no ARP at all.
hosts_neigh() {
	local h o
	for h in $(host_list); do
		for o in $(host_list); do
			[ "$o" = "$h" ] && continue
			echo "neigh replace $(addr_of "$o") lladdr $(mac_of "$o") dev eth0 nud permanent"
		done | ip -n "$(netns_of "$h")" -batch -
	done
}

# Host $1's egress shaping: htb for a rate, netem for a delay, netem under
# the htb class for both.
host_qdisc() {
	local h=$1 rate=$2 delay=$3 ns
	ns=$(netns_of "$h")
	tc -n "$ns" qdisc del dev eth0 root 2>/dev/null || true
	if [ -n "$rate" ]; then
		tc -n "$ns" qdisc add dev eth0 root handle 1: htb default 1
		tc -n "$ns" class add dev eth0 parent 1: classid 1:1 htb \
		    rate "$rate" ceil "$rate" quantum 60000
		if [ -n "$delay" ] && ! tc -n "$ns" qdisc add dev eth0 \
		    parent 1:1 handle 10: netem delay "${delay}ms" 2>/dev/null; then
			warn "--delay $h=$delay skipped: the kernel has no netem"
		fi
	elif [ -n "$delay" ]; then
		if ! tc -n "$ns" qdisc add dev eth0 root netem \
		    delay "${delay}ms" 2>/dev/null; then
			warn "--delay $h=$delay skipped: the kernel has no netem"
		fi
	fi
}

sshd_config_text() {
	local h=$1 hd
	hd=$(hostdir_of "$h")
	cat <<EOF
# sshd of lab '$NAME', host $h (written by lab.sh up; rewritten on every up)
ListenAddress $(addr_of "$h")
Port 22
HostKey $hd/ssh_host_ed25519_key
PidFile $hd/sshd.pid
AuthorizedKeysFile $STATE/$NAME.authorized_keys
AllowUsers $LAB_USER
PermitRootLogin no
UsePAM no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
PermitEmptyPasswords no
StrictModes no
UseDNS no
MaxStartups 1000
LoginGraceTime 30
PrintMotd no
PrintLastLog no
X11Forwarding no
PermitUserEnvironment no
Subsystem sftp internal-sftp
LogLevel VERBOSE
EOF
}

# Write host $1's key (kept across ups) and sshd_config. Returns 0 when the
# config changed.
host_files() {
	local h=$1 hd new
	hd=$(hostdir_of "$h")
	mkdir -p "$hd"
	if [ ! -f "$hd/ssh_host_ed25519_key" ]; then
		ssh-keygen -q -t ed25519 -N '' -C "netprof-lab-$NAME-$h" \
		    -f "$hd/ssh_host_ed25519_key"
	fi
	new=$(sshd_config_text "$h")
	if [ -f "$hd/sshd_config" ] && [ "$(cat "$hd/sshd_config")" = "$new" ]; then
		return 1
	fi
	printf '%s\n' "$new" >"$hd/sshd_config"
	return 0
}

# Pid of host $1's listening sshd, or nothing.
sshd_pid() {
	local pf pid
	pf=$(hostdir_of "$1")/sshd.pid
	[ -f "$pf" ] || return 0
	pid=$(cat "$pf" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$SSHD" ] || return 0
	echo "$pid"
}

# False when host $1's sshd runs in another namespace than the host's
# (its namespace was deleted and made again under it).
sshd_in_netns() {
	local pid
	pid=$(sshd_pid "$1")
	[ -n "$pid" ] || return 0
	[ "$(readlink "/proc/$pid/ns/net")" = \
	    "net:[$(stat -L -c %i "/run/netns/$(netns_of "$1")")]" ]
}

sshd_start() {
	local h=$1 hd
	hd=$(hostdir_of "$h")
	[ -n "$(sshd_pid "$h")" ] && return 0
	rm -f "$hd/sshd.pid"
	if ! ip netns exec "$(netns_of "$h")" "$SSHD" -f "$hd/sshd_config" \
	    -E "$hd/sshd.log"; then
		tail -n 5 "$hd/sshd.log" >&2 2>/dev/null || true
		die "$h: sshd did not start (log: $hd/sshd.log)"
	fi
}

# True while process $1 runs (a zombie, which only waits for its parent to
# reap it, does not count).
running() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

sshd_stop() {
	local h=$1 pid i
	pid=$(sshd_pid "$h")
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	for (( i = 0; i < 200; i++ )); do
		running "$pid" || break
		sleep 0.01
	done
	running "$pid" && kill -9 "$pid" 2>/dev/null
	rm -f "$(hostdir_of "$h")/sshd.pid"
}

# Wait until every host in $@ accepts TCP on port 22 (5 s, and 0.1 s more
# per host: 64 sshd starting at once on a small machine take a while).
sshd_wait() {
	local h i pending=("$@") left tries=$(( 250 + 5 * $# ))
	for (( i = 0; i < tries; i++ )); do
		left=()
		for h in "${pending[@]}"; do
			if ! (exec 3<>"/dev/tcp/$(addr_of "$h")/22") 2>/dev/null; then
				left+=("$h")
			fi
		done
		[ ${#left[@]} -eq 0 ] && return 0
		pending=("${left[@]}")
		sleep 0.02
	done
	die "sshd of ${pending[*]} does not accept connections (see $DIR/hosts/<host>/sshd.log)"
}

# Kill every process in host $1's namespace, sshd included.
host_kill_all() {
	local ns=$1 pids i
	[ -e "/run/netns/$ns" ] || return 0
	pids=$(ip netns pids "$ns" 2>/dev/null || true)
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null || true
	for (( i = 0; i < 100; i++ )); do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[ -n "$pids" ] || return 0
		sleep 0.02
	done
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null || true
	for (( i = 0; i < 100; i++ )); do
		[ -n "$(ip netns pids "$ns" 2>/dev/null)" ] || return 0
		sleep 0.02
	done
	warn "processes left in namespace $ns: $(ip netns pids "$ns" | tr '\n' ' ')"
}

host_remove() {
	local ns=$1 veth=$2
	host_kill_all "$ns"
	[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	if [ -n "$veth" ] && ip link show "$veth" >/dev/null 2>&1; then
		ip link del "$veth"
	fi
	return 0
}

# --- files for clients -------------------------------------------------

write_client_files() {
	local h i first=1 tmp
	tmp=$(mktemp "$DIR/.machines.XXXXXX")
	{
		printf '{\n  "user": "%s",\n' "$LAB_USER"
		printf '  "identity_file": "%s",\n' "$DIR/id_ed25519"
		printf '  "known_hosts_file": "%s",\n' "$DIR/known_hosts"
		printf '  "ssh_config_file": "%s",\n' "$DIR/ssh_config"
		printf '  "connect_timeout_seconds": 5,\n'
		printf '  "machines": [\n'
		for h in $(host_list); do
			[ $first = 1 ] || printf ',\n'
			first=0
			printf '    {"name": "%s", "address": "%s", "ssh_host": "%s"}' \
			    "$h" "$(addr_of "$h")" "$(addr_of "$h")"
		done
		printf '\n  ]\n}\n'
	} >"$tmp"
	chmod 0644 "$tmp"
	mv "$tmp" "$DIR/machines.json"

	: >"$DIR/known_hosts.new"
	for h in $(host_list); do
		printf '%s %s\n' "$(addr_of "$h")" "$(cut -d' ' -f1,2 \
		    "$(hostdir_of "$h")/ssh_host_ed25519_key.pub")"
	done >"$DIR/known_hosts.new"
	mv "$DIR/known_hosts.new" "$DIR/known_hosts"

	: >"$DIR/ssh_config"
	{
		echo "# OpenSSH client config for lab '$NAME': ssh -F $DIR/ssh_config.openssh h1"
		for h in $(host_list); do
			echo "Host $h $(addr_of "$h")"
			echo "  HostName $(addr_of "$h")"
		done
		echo "Host *"
		echo "  User $LAB_USER"
		echo "  IdentityFile $DIR/id_ed25519"
		echo "  IdentitiesOnly yes"
		echo "  UserKnownHostsFile $DIR/known_hosts"
		echo "  GlobalKnownHostsFile /dev/null"
		echo "  StrictHostKeyChecking yes"
		echo "  UpdateHostKeys no"
		echo "  CheckHostIP no"
		echo "  BatchMode yes"
		echo "  ConnectTimeout 5"
		echo "  ControlMaster no"
		echo "  ControlPath none"
		echo "  LogLevel ERROR"
	} >"$DIR/ssh_config.openssh"

	local names="" addrs=""
	for h in $(host_list); do
		names="$names${names:+ }$h"
		addrs="$addrs${addrs:+ }$(addr_of "$h")"
	done
	tmp=$(mktemp "$DIR/.env.XXXXXX")
	cat >"$tmp" <<EOF
# lab '$NAME' (written by lab.sh up); source it from a shell
LAB_NAME='$NAME'
LAB_DIR='$DIR'
LAB_HOSTS='$names'
LAB_ADDRS='$addrs'
LAB_USER='$LAB_USER'
LAB_SUBNET='$SUBNET'
LAB_NHOSTS='$HOSTS'
LAB_INVENTORY='$DIR/machines.json'
LAB_SSH_CONFIG='$DIR/ssh_config.openssh'
LAB_BRIDGE='$(bridge_of)'
EOF
	chmod 0644 "$tmp"
	cp "$tmp" "$(registry_of)"
	mv "$tmp" "$DIR/lab.env"
}

# Hosts must reach each other across the bridge. With br_netfilter loaded
# and bridge-nf-call-iptables=1, bridged frames pass the iptables FORWARD
# chain, which a DROP policy (Docker sets one) turns into a black hole. Only
# then is the sysctl turned off; the last `down` restores it.
check_forwarding() {
	local from=h1 to=h$HOSTS nf=/proc/sys/net/bridge/bridge-nf-call-iptables
	[ "$HOSTS" -ge 2 ] || return 0
	host_ping "$from" "$(addr_of "$to")" && return 0
	host_ping "$from" "$PREFIX.$SUBNET.1" && host_ping "$to" "$PREFIX.$SUBNET.1" ||
	    die "$from or $to cannot ping the bridge $(bridge_of) ($PREFIX.$SUBNET.1);" \
	    "see: ip netns exec $(netns_of "$from") ip addr"
	# Both reach the bridge but not each other: bridged frames are dropped.
	if [ -f "$nf" ] && [ "$(cat "$nf")" = 1 ] && [ ! -f "$STATE/bridge-nf-call-iptables" ]; then
		warn "$from cannot reach $to through the bridge; setting" \
		    "net.bridge.bridge-nf-call-iptables=0 until the last lab is down"
		echo 1 >"$STATE/bridge-nf-call-iptables"
		echo 0 >"$nf"
		host_ping "$from" "$(addr_of "$to")" && return 0
	fi
	die "$from cannot ping $to ($(addr_of "$to")) across bridge $(bridge_of);" \
	    "a firewall may drop bridged traffic"
}

# Host $1 pings address $2 (a second, longer try absorbs ARP on a busy
# machine).
host_ping() {
	local ns
	ns=$(netns_of "$1")
	ip netns exec "$ns" ping -q -c 1 -W 1 "$2" >/dev/null 2>&1 ||
	ip netns exec "$ns" ping -q -c 1 -W 2 "$2" >/dev/null 2>&1
}

# --- commands ----------------------------------------------------------

cmd_up() {
	local -A rate=() delay=()
	local h v arg slurm=0
	HOSTS=4 SUBNET=0 DIR=
	while [ $# -gt 0 ]; do
		case $1 in
		--name) NAME=${2:?--name needs a value}; shift 2 ;;
		--hosts) HOSTS=${2:?--hosts needs a value}; shift 2 ;;
		--subnet) SUBNET=${2:?--subnet needs a value}; shift 2 ;;
		--dir) DIR=${2:?--dir needs a value}; shift 2 ;;
		--slurm) slurm=1; shift ;;
		--rate|--delay)
			arg=${2:-}
			[[ $arg =~ ^(h[1-9][0-9]*)=(.+)$ ]] ||
			    usage_error "$1: expected HOST=VALUE (like h3=100mbit), got '$arg'"
			h=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]}
			if [ "$1" = --rate ]; then
				[[ ${v,,} =~ ^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit|bps|kbps|mbps|gbps)$ ]] ||
				    usage_error "--rate $arg: rate must look like 100mbit, 1gbit, 500kbit or 10mbps"
				rate[$h]=${v,,}
			else
				[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
				    usage_error "--delay $arg: delay is milliseconds, like h2=5"
				delay[$h]=$v
			fi
			shift 2 ;;
		-h|--help) usage; exit 0 ;;
		*) usage_error "up: unknown argument '$1'" ;;
		esac
	done
	check_name
	[[ $HOSTS =~ ^[0-9]{1,3}$ ]] && (( 10#$HOSTS >= 1 && 10#$HOSTS <= 200 )) ||
	    usage_error "--hosts: '$HOSTS' must be a number from 1 to 200"
	[[ $SUBNET =~ ^[0-9]{1,3}$ ]] && (( 10#$SUBNET <= 255 )) ||
	    usage_error "--subnet: '$SUBNET' must be a number from 0 to 255"
	HOSTS=$(( 10#$HOSTS )) SUBNET=$(( 10#$SUBNET ))
	for h in "${!rate[@]}" "${!delay[@]}"; do
		(( ${h#h} >= 1 && ${h#h} <= HOSTS )) ||
		    usage_error "--rate/--delay: no host '$h' (hosts are h1..h$HOSTS)"
	done
	[ -n "$DIR" ] || DIR=/tmp/netprof-lab-$NAME
	DIR=$(realpath -m "$DIR")
	require_root
	local d
	for d in ssh-keygen ip tc "$SSHD"; do
		command -v "$d" >/dev/null ||
		    die "$d not found; install the lab's packages: tests/install-deps.sh lab"
	done
	take_lock
	mkdir -p "$STATE"
	chmod 0755 "$STATE"

	local want_dir=$DIR want_subnet=$SUBNET want_hosts=$HOSTS
	if registry_load; then
		[ "$DIR" = "$want_dir" ] && [ "$SUBNET" = "$want_subnet" ] ||
		    die "lab '$NAME' is already up with --subnet $SUBNET --dir $DIR;" \
		    "take it down first: $PROG down --name $NAME"
		HOSTS=$want_hosts
	fi
	# Another lab, or anything else, on this subnet?
	local other
	for other in "$STATE"/*.env; do
		[ -f "$other" ] || continue
		[ "$other" = "$(registry_of)" ] && continue
		# shellcheck disable=SC1090
		if [ "$(. "$other"; echo "$LAB_SUBNET")" = "$SUBNET" ]; then
			die "subnet 198.18.$SUBNET.0/24 is used by lab" \
			    "'$(basename "$other" .env)'; pick another --subnet"
		fi
	done
	other=$(ip -o -4 addr show | awk -v a="$PREFIX.$SUBNET." -v br="$(bridge_of)" \
	    'index($4, a) == 1 && $2 != br { print $2; exit }')
	[ -z "$other" ] ||
	    die "198.18.$SUBNET.0/24 is already on interface $other; pick another --subnet"

	if [ -d "$DIR" ] && [ ! -f "$DIR/.netprof-lab" ] &&
	    [ -n "$(ls -A "$DIR")" ]; then
		die "$DIR exists and is not a lab directory; pick another --dir"
	fi
	mkdir -p "$DIR/hosts"
	chmod 0755 "$DIR"
	echo "$NAME" >"$DIR/.netprof-lab"

	user_ensure
	if [ ! -f "$DIR/id_ed25519" ]; then
		ssh-keygen -q -t ed25519 -N '' -C "netprof-lab-$NAME" -f "$DIR/id_ed25519"
	fi
	chmod 0600 "$DIR/id_ed25519"
	install -m 0644 "$DIR/id_ed25519.pub" "$STATE/$NAME.authorized_keys"

	bridge_up
	local restart
	for h in $(host_list); do
		host_net_up "$h"
		host_qdisc "$h" "${rate[$h]:-}" "${delay[$h]:-}"
		restart=0
		host_files "$h" && restart=1
		sshd_in_netns "$h" || restart=1
		[ $restart = 1 ] && sshd_stop "$h"
		sshd_start "$h"
	done
	# Hosts a previous, larger up made.
	local ns
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^np-$NAME-h[0-9]+\$" || true); do
		h=${ns#np-"$NAME"-}
		(( ${h#h} > HOSTS )) || continue
		host_remove "$ns" "$(veth_of "$h")"
		rm -rf "$(hostdir_of "$h")"
	done
	hosts_neigh
	# shellcheck disable=SC2046
	sshd_wait $(host_list)
	write_client_files
	check_forwarding
	[ $slurm = 0 ] || "$(dirname "$0")/slurm.sh" up --name "$NAME"
	echo "lab '$NAME' is up: $HOSTS hosts in 198.18.$SUBNET.0/24, files in $DIR"
	echo "  ssh -F $DIR/ssh_config.openssh h1"
	echo "  inventory: $DIR/machines.json    tear down: $0 down --name $NAME"
}

cmd_down() {
	local dir_arg=
	while [ $# -gt 0 ]; do
		case $1 in
		--name) NAME=${2:?--name needs a value}; shift 2 ;;
		--dir) dir_arg=${2:?--dir needs a value}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		*) usage_error "down: unknown argument '$1'" ;;
		esac
	done
	check_name
	require_root
	take_lock
	local was_up=1
	if ! registry_load; then
		was_up=0
		DIR=
	fi
	[ -n "$dir_arg" ] && DIR=$(realpath -m "$dir_arg")
	[ -n "$DIR" ] || DIR=/tmp/netprof-lab-$NAME

	# Every sshd, namespace and link of this lab, whatever the registry
	# says.
	local ns link pf
	if [ $was_up = 1 ] && [ -d "$DIR/slurm" ]; then
		"$(dirname "$0")/slurm.sh" down --name "$NAME" || true
	fi
	for pf in "$DIR"/hosts/h*/sshd.pid; do
		[ -f "$pf" ] || continue
		pf=${pf%/sshd.pid}
		sshd_stop "${pf##*/}"
	done
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^np-$NAME-h[0-9]+\$" || true); do
		host_remove "$ns" ""
	done
	for link in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' |
	    grep -E "^(np-$NAME-[0-9]+|npbr-$NAME)\$" || true); do
		ip link del "$link" 2>/dev/null || true
	done
	if [ -f "$DIR/.netprof-lab" ]; then
		rm -rf "$DIR"
	elif [ -d "$DIR" ]; then
		warn "$DIR is not a lab directory (no .netprof-lab); left alone"
	fi
	rm -f "$(registry_of)" "$STATE/$NAME.authorized_keys"
	last_down
	if [ $was_up = 1 ]; then
		echo "lab '$NAME' is down"
	else
		echo "lab '$NAME' was not up (cleaned up anything left of it)"
	fi
}

# After the last lab is gone: remove the lab user and undo machine-wide
# changes.
last_down() {
	[ -d "$STATE" ] || return 0
	compgen -G "$STATE/*.env" >/dev/null && return 0
	if [ -f "$STATE/user-created" ] && getent passwd "$LAB_USER" >/dev/null; then
		userdel "$LAB_USER" 2>/dev/null ||
		    warn "could not remove user $LAB_USER (processes still running as it?)"
	fi
	if [ -f "$STATE/bridge-nf-call-iptables" ] &&
	    [ -f /proc/sys/net/bridge/bridge-nf-call-iptables ]; then
		cat "$STATE/bridge-nf-call-iptables" >/proc/sys/net/bridge/bridge-nf-call-iptables
	fi
	if [ -f "$STATE/run-sshd-created" ]; then
		rmdir /run/sshd 2>/dev/null || true
	fi
	rm -rf "$STATE"
}

# Parse [--name NAME] and the positional arguments of the small commands.
parse_small() {
	ARGS=()
	while [ $# -gt 0 ]; do
		case $1 in
		--name) NAME=${2:?--name needs a value}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		--) ARGS+=("$@"); break ;;
		-*) usage_error "$COMMAND: unknown option '$1'" ;;
		*) ARGS+=("$1"); shift ;;
		esac
	done
	check_name
	require_root
}

cmd_status() {
	parse_small "$@"
	[ ${#ARGS[@]} -eq 0 ] || usage_error "status: unexpected argument '${ARGS[0]}'"
	require_lab
	echo "lab '$NAME': $HOSTS hosts, 198.18.$SUBNET.0/24, bridge $(bridge_of), dir $DIR"
	local h ns state pid q bad=0
	for h in $(host_list); do
		ns=$(netns_of "$h")
		if [ ! -e "/run/netns/$ns" ]; then
			echo "  $h $(addr_of "$h")  namespace $ns missing"
			bad=1
			continue
		fi
		pid=$(sshd_pid "$h")
		if [ -n "$pid" ]; then state="sshd running (pid $pid)"; else state="sshd stopped"; fi
		q=$(tc -n "$ns" qdisc show dev eth0 2>/dev/null | awk 'NR==1 {print $2}')
		echo "  $h $(addr_of "$h")  $state  qdisc ${q:-none}"
	done
	return $bad
}

cmd_host_op() {
	parse_small "$@"
	[ ${#ARGS[@]} -eq 1 ] || usage_error "$COMMAND: expected one HOST (like h1)"
	require_lab
	local h=${ARGS[0]}
	check_host "$h"
	take_lock
	case $COMMAND in
	sshd-stop) sshd_stop "$h" ;;
	sshd-start) sshd_start "$h"; sshd_wait "$h" ;;
	rekey)
		local hd
		hd=$(hostdir_of "$h")
		sshd_stop "$h"
		rm -f "$hd/ssh_host_ed25519_key" "$hd/ssh_host_ed25519_key.pub"
		ssh-keygen -q -t ed25519 -N '' -C "netprof-lab-$NAME-$h" \
		    -f "$hd/ssh_host_ed25519_key"
		sshd_start "$h"
		sshd_wait "$h"
		;;
	esac
}

cmd_run() {
	parse_small "$@"
	[ ${#ARGS[@]} -ge 3 ] && [ "${ARGS[1]}" = -- ] ||
	    usage_error "run: expected HOST -- CMD..."
	require_lab
	local h=${ARGS[0]}
	check_host "$h"
	exec ip netns exec "$(netns_of "$h")" "${ARGS[@]:2}"
}

cmd_pids() {
	parse_small "$@"
	[ ${#ARGS[@]} -eq 0 ] || usage_error "pids: unexpected argument '${ARGS[0]}'"
	require_lab
	local h ns pid
	for h in $(host_list); do
		ns=$(netns_of "$h")
		[ -e "/run/netns/$ns" ] || continue
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$SSHD" ] && continue
			running "$pid" && echo "$pid"
		done
	done
	return 0
}

NAME=lab
COMMAND=${1:-}
[ $# -gt 0 ] && shift
case $COMMAND in
up) cmd_up "$@" ;;
down) cmd_down "$@" ;;
status) cmd_status "$@" ;;
sshd-stop|sshd-start|rekey) cmd_host_op "$@" ;;
run) cmd_run "$@" ;;
pids) cmd_pids "$@" ;;
-h|--help|help) usage ;;
"") usage >&2; exit 2 ;;
*) usage_error "unknown command '$COMMAND'" ;;
esac
