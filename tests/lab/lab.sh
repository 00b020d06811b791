#!/usr/bin/env bash
# The netprof lab: N hosts on one Linux machine, each a network namespace
# with its own OpenSSH sshd, joined by a bridge in 198.18.K.0/24. netprof's
# integration tests, its benchmarks and its demo run the real binary over
# real SSH against these hosts. With --site the hosts are grouped into
# sites at a distance instead: a kernel bridge per site, each site's uplink
# to a core switch through vde2's wirefilter (delay, jitter, loss,
# bandwidth, changed at run time through its management socket), and this
# machine behind a wirefilter of its own (the "home" site). A site may
# stand behind the Internet's obstacles: a stateful firewall, or a NAT
# (cone or symmetric) in a gateway namespace; a public relay (an otela
# node) may stand outside every site. `up` is idempotent (it verifies and
# repairs, keeping keys), `down` removes every namespace, link, process,
# file and the lab user that `up` made. Run `lab.sh --help` for the
# commands.
set -euo pipefail

PROG=lab.sh
STATE=/run/netprof-lab		# registry of running labs, lab user's home
LAB_USER=nplab
SSHD=/usr/sbin/sshd
PREFIX=198.18
PRIVATE=198.19			# a NAT site's hosts: 198.19.K.0/24, behind its gateway
RELAY_PORT=19091		# the relay's libp2p TCP port (HTTP API: 19090)

usage() {
	cat <<EOF
usage: $PROG COMMAND [OPTIONS]

A lab of hosts h1..hN, each a network namespace with its own sshd, on a
bridge with addresses 198.18.K.2 .. 198.18.K.(N+1). Needs root.

commands:
  up   [--name NAME] [--hosts N] [--subnet K] [--dir DIR]
       [--rate HOST=RATE]... [--delay HOST=MS]...
       [--site NAME=N[,delay=MS][,jitter=MS][,loss=PCT][,rate=RATE][,mtu=BYTES]]...
       [--home delay=MS[,jitter=MS][,loss=PCT][,rate=RATE]]
       [--pair A-B[,delay=MS][,jitter=MS][,loss=PCT][,rate=RATE]]...
       [--relay NAME[,limited][,delay=MS,...]] [--relay-otela PATH]
       [--slurm] [--slurm-proctrack linuxproc|cgroup]
                         create (or verify and repair) the lab; writes
                         DIR/machines.json, DIR/lab.env, keys and configs
                         (and DIR/topology.json with sites)
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
                         run CMD as root inside HOST's namespace (HOST may
                         also be the relay's name or gw-SITE, a NAT site's
                         gateway)
  pids       [--name NAME]        pids of processes in the lab's namespaces
                         other than sshd, one per line
  link       [--name NAME] SITE|A-B [delay MS] [jitter MS] [loss PCT] [rate RATE]
                         change SITE's link to the core (SITE may be home
                         or the relay's name),
                         or the path of pair A-B, now, through its
                         wirefilter's management socket; rate 0 is unlimited

options:
  --name NAME     lab name, 1-8 lower-case letters or digits (default: lab)
  --hosts N       number of hosts, 1-200 (default: 4)
  --subnet K      use 198.18.K.0/24, K in 0..255 (default: 0)
  --dir DIR       where keys, configs and logs go
                  (default: /tmp/netprof-lab-NAME)
  --rate HOST=RATE  limit HOST's egress, e.g. h3=100mbit (tc htb)
  --slurm         also start a Slurm cluster on the lab (tests/lab/slurm.sh)
  --slurm-proctrack linuxproc|cgroup  --slurm, its steps' processes tracked
                  so (default linuxproc; cgroup ends a step's leftovers)
  --delay HOST=MS   add MS milliseconds of delay to HOST's egress (tc netem;
                  skipped with a warning when the kernel has no netem)
  --site NAME=N,... a site of N hosts (the next N of h1..hN, in the order
                  the sites are given), 1-8 lower-case letters or digits;
                  its link to the core: one-way delay (ms, default 0),
                  jitter (ms, normal, default 0), loss (% each way,
                  default 0), rate (each way, like 100mbit; default
                  unlimited), mtu (the MTU of the site's links, its
                  hosts' and its tap's, 576-9000; a larger packet from
                  outside is dropped without a word; default 1500).
                  --hosts defaults to the sum of the sites'.
                  The site's edge: open (default), firewall (nothing
                  from outside the site opens a connection in; this
                  machine's SSH is let in), nat=cone or nat=symmetric
                  (the hosts in 198.19.K.0/24 behind a gateway that
                  masquerades them to its one address, keeping their
                  ports or not; this machine reaches them for SSH)
  --home ...        this machine's link to the core (default delay=0);
                  SSH from here crosses it and the host's site link
  --pair A-B,...    a path of its own between host sites A and B, in place
                  of their two links to the core: one wirefilter with the
                  pair's delay, jitter, loss and rate each way (so its
                  round trip is 2 x delay); at most 9 pairs
  --relay NAME[,limited][,delay=MS,...]
                  a public relay: an otela node at 198.18.K.254, outside
                  every site (with sites: behind a link of its own, the
                  keys of --site), started as the lab user; up prints its
                  multiaddr (for bench --bootstrap), down stops it by
                  PID. limited: libp2p's default relay limits (128 KiB
                  and 2 min per circuit; the stand-in node only)
  --relay-otela PATH  the relay's otela binary (default: the stand-in,
                  tests/otela-node/bin/otela)
  -h, --help      show this help

Connect with OpenSSH:  ssh -F DIR/ssh_config.openssh h1
Use with netprof:      netprof check --config DIR/machines.json
Sites:  $PROG up --site a=2,delay=5 --site b=2,delay=15,rate=100mbit --home delay=10
One slow pair:  ... --site c=2,delay=5 --pair a-c,delay=40,rate=10mbit
Obstacles:  ... --site a=2,firewall --site b=2,nat=symmetric --relay relay
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

# A lab directory root may use and remove: a directory, not a link, of its
# own (or of the user who ran sudo), whose .netprof-lab (when there) is a
# regular file of theirs, not a link (bench's rule for its run directory). /tmp/netprof-lab-NAME made
# by another user, or a link planted as .netprof-lab, is left alone: root
# would write through it, or stop the PIDs its files name.
dir_ours() {
	local m=$1/.netprof-lab
	[ ! -L "$1" ] && [ -d "$1" ] && owned "$1" && [ ! -L "$m" ] &&
	    { [ ! -e "$m" ] || { [ -f "$m" ] && owned "$m"; }; }
}
# root's, or the user's who ran sudo
owned() {
	local u
	u=$(stat -c %u -- "$1") && { [ "$u" = 0 ] || [ "$u" = "${SUDO_UID:-0}" ]; }
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
# The lock is held while a lab touches what labs share; a lab's own waits
# (its relay's health, its sshds accepting) run without it, so that two
# labs come up side by side. An `up` between the two leaves
# $STATE/NAME.starting, so that the last `down` of another lab keeps the
# lab user.
drop_lock() { flock -u 9; }

# --- names -------------------------------------------------------------

# Interface names are at most 15 characters: "npbr-" + 8 and "np-" + 8 +
# "-" + 3 digits fit. Namespaces are "np-NAME-hI". The loops over every
# host spell netns_of and veth_of out, where a call would be a subshell.
bridge_of() { echo "npbr-$NAME"; }
netns_of() { echo "np-$NAME-$1"; }
veth_of() { echo "np-$NAME-${1#h}"; }
addr_of() { echo "${ADDR[${1#h}]}"; }
hostdir_of() { echo "$DIR/hosts/$1"; }

# Host I's address in ADDR[I] (a NAT site's host has a private one) and
# its MAC in MAC[I], once the hosts and sites are known: the loops over
# every host (and every pair of hosts) read them without a subshell.
ADDR=()
MAC=()
index_hosts() {
	local i
	ADDR=() MAC=()
	for (( i = 1; i <= HOSTS; i++ )); do
		if host_natted "h$i"; then
			ADDR[i]=$PRIVATE.$SUBNET.$(( i + 1 ))
		else
			ADDR[i]=$PREFIX.$SUBNET.$(( i + 1 ))
		fi
		printf -v "MAC[$i]" '02:6e:70:%02x:%02x:%02x' "$SUBNET" $(( i >> 8 )) $(( i & 255 ))
	done
}

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
	SITE_SPECS=${LAB_SITE_SPECS:-}
	HOME_SPEC=${LAB_HOME_SPEC:-}
	PAIR_SPECS=${LAB_PAIR_SPECS:-}
	RELAY_SPEC=${LAB_RELAY_SPEC:-}
	RELAY_OTELA=${LAB_RELAY_OTELA:-}
	parse_sites
	parse_relay
	index_hosts
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

# Create or repair every host's namespace and link, with its address,
# routes and neighbours: one `ip -batch` for the namespaces, one for the
# links on this side, and in each namespace one shell and one `ip -batch`.
# FRESH[I] is 1 when host I's namespace is new (nothing to repair in it).
FRESH=()
hosts_net_up() {
	local i h ns veth br cmds='' name out
	local -A have=() site_br=()
	FRESH=()
	for (( i = 1; i <= HOSTS; i++ )); do
		ns=np-$NAME-h$i				# netns_of
		[ -e "/run/netns/$ns" ] && continue
		cmds+="netns add $ns"$'\n'
		FRESH[i]=1
	done
	[ -z "$cmds" ] || ip -batch - <<<"$cmds"
	while read -r _ name _; do
		name=${name%:} name=${name%@*}
		have[$name]=1
	done < <(ip -o link show)
	br=$(bridge_of)
	for (( i = 1; i < ${#SITES[@]}; i++ )); do
		if site_nat "$i"; then site_br[$i]=$(inner_bridge_of "$i")
		else site_br[$i]=$(site_bridge_of "$i"); fi
	done
	cmds=''
	for (( i = 1; i <= HOSTS; i++ )); do
		ns=np-$NAME-h$i veth=np-$NAME-$i	# netns_of, veth_of
		if [ -n "${FRESH[i]:-}" ] || [ -z "${have[$veth]:-}" ] ||
		    ! ip -n "$ns" link show eth0 >/dev/null 2>&1; then
			[ -n "${FRESH[i]:-}" ] || ip -n "$ns" link del eth0 2>/dev/null || true
			[ -z "${have[$veth]:-}" ] || ip link del "$veth" 2>/dev/null || true
			# A fixed MAC per address keeps the other hosts' ARP
			# caches right when a host is made again.
			cmds+="link add $veth type veth peer name eth0 netns $ns address ${MAC[i]}"$'\n'
		fi
		cmds+="link set $veth master ${site_br[${SITE_OF[i]:-0}]:-$br} up"$'\n'
		# a site's mtu=: its hosts' links, both ends (1500 without)
		wan_on && cmds+="link set $veth mtu ${SITE_MTU[${SITE_OF[i]}]:-1500}"$'\n'
	done
	ip -batch - <<<"$cmds"
	out=$(outer_neigh)
	[ -z "$out" ] || out+=$'\n'
	for (( i = 1; i <= HOSTS; i++ )); do
		h=h$i ns=np-$NAME-h$i veth=np-$NAME-$i
		echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6" 2>/dev/null || true
		cmds="link set lo up
addr replace ${ADDR[i]}/24 dev eth0
link set eth0 up
"
		# Behind a NAT the lab's subnet is reached through the gateway
		# (no default route: nothing beyond the lab is reachable from
		# any host).
		host_natted "$h" &&
		    cmds+="route replace $PREFIX.$SUBNET.0/24 via $PRIVATE.$SUBNET.1 dev eth0"$'\n'
		wan_on && cmds+="link set eth0 mtu ${SITE_MTU[${SITE_OF[i]}]:-1500}"$'\n'
		host_neigh "$i" "$out"
		# ping without privileges (iputils also has cap_net_raw); the
		# range is per namespace.
		ip netns exec "$ns" sh -c '
			echo "0 2147483647" >/proc/sys/net/ipv4/ping_group_range
			echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
			exec ip -batch -' <<<"$cmds"
	done
}

# Every host knows every other host's MAC (permanent neighbour entries).
# The bridge is software on the machine's few cores: when N hosts start
# pinging each other at once, N(N-1) ARP broadcasts, each flooded to N
# ports, overflow its queues and whole pairs lose every packet (most of
# them at N = 64), which a switch's hardware never does. With the MACs
# known there is no ARP at all.
# A NAT site's hosts know each other and their gateway's inner side; the
# others every host outside the NAT sites, the gateways' outer sides and
# the relay ($2: outer_neigh's). Host $1's (a number) entries, added to the
# caller's cmds.
host_neigh() {
	local i=$1 o
	for (( o = 1; o <= HOSTS; o++ )); do
		(( o != i )) || continue
		if host_natted "h$i"; then
			[ "${SITE_OF[o]}" = "${SITE_OF[i]}" ] || continue
		else
			! host_natted "h$o" || continue
		fi
		cmds+="neigh replace ${ADDR[o]} lladdr ${MAC[o]} dev eth0 nud permanent"$'\n'
	done
	if host_natted "h$i"; then
		cmds+="neigh replace $PRIVATE.$SUBNET.1 lladdr $(gw_mac "${SITE_OF[i]}" in) dev eth0 nud permanent"$'\n'
	else
		cmds+=$2
	fi
}

# The entries every host outside the NAT sites has beyond the hosts.
outer_neigh() {
	local s
	for (( s = 1; s < ${#SITES[@]}; s++ )); do
		site_nat "$s" &&
		    echo "neigh replace $(gw_addr_of "$s") lladdr $(gw_mac "$s" out) dev eth0 nud permanent"
	done
	relay_on && echo "neigh replace $(relay_addr) lladdr $(relay_mac) dev eth0 nud permanent"
	# Home's tap: no ARP across the emulated WAN either.
	wan_on && echo "neigh replace $PREFIX.$SUBNET.1 lladdr $(site_tap_mac 0) dev eth0 nud permanent"
	return 0
}

# Host $1's egress shaping: htb for a rate, netem for a delay, netem under
# the htb class for both.
host_qdisc() {
	local h=$1 rate=$2 delay=$3 ns=np-$NAME-$1	# netns_of
	# a new namespace has none to remove
	[ -n "${FRESH[${h#h}]:-}" ] || tc -n "$ns" qdisc del dev eth0 root 2>/dev/null || true
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

# --- sites (the WAN) ---------------------------------------------------
#
# Site 0 is home (this machine), sites 1..S hold the hosts in order. Site I
# is a vde_switch whose tap npw-NAME-I is its end on this machine: for a
# host site the tap is a port of the site's kernel bridge npb-NAME-I
# (traffic inside a site stays in the kernel), for home it carries
# 198.18.K.1. A wirefilter joins each site's switch to the core switch and
# holds the site's one-way delay, jitter, loss and rate, in each direction;
# a pair in sites A and B crosses A's and B's wirefilters both ways.

SITES=()		# site names, index 0 = home
SITE_N=()		# hosts per site
SITE_LINK=()		# "delay jitter loss rate" per site (rate: bytes/s, 0 = none)
SITE_MTU=()		# a host site's MTU: its hosts' links and its tap (empty: 1500)
SITE_OF=()		# site index of host I (SITE_OF[I])
SITE_SPECS=''		# --site values as given (the registry keeps them)
HOME_SPEC=''
PAIR_A=()		# pair P's sites (indices), P = 1..9
PAIR_B=()
PAIR_LINK=()		# "delay jitter loss rate" per pair
PAIR_SPECS=''		# --pair values as given

wan_dir() { echo "$DIR/wan"; }
site_bridge_of() { echo "npb-$NAME-$1"; }
site_tap_of() { echo "npw-$NAME-$1"; }
site_tap_mac() { printf '02:6e:72:%02x:00:%02x\n' "$SUBNET" "$1"; }

# RATE (100mbit, 1gbit, 500kbit, 10mbps, 0) in bytes per second.
rate_bytes() {
	local v=${1,,} n u
	[[ $v =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit|bps|kbps|mbps|gbps)?$ ]] || return 1
	n=${BASH_REMATCH[1]} u=${BASH_REMATCH[3]}
	awk -v n="$n" -v u="$u" 'BEGIN {
		m["bit"] = 1/8; m["kbit"] = 1e3/8; m["mbit"] = 1e6/8; m["gbit"] = 1e9/8
		m["bps"] = 1; m["kbps"] = 1e3; m["mbps"] = 1e6; m["gbps"] = 1e9; m[""] = 1/8
		printf "%d\n", n * m[u] }'
}

# Bytes per second as a rate people read (Mbit/s).
rate_text() {
	[ "$1" = 0 ] && { echo unlimited; return; }
	awk -v b="$1" 'BEGIN { printf "%g Mbit/s\n", b * 8 / 1e6 }'
}

# Parse "delay=MS,jitter=MS,loss=PCT,rate=RATE" ($2) for site $1 into
# SITE_LINK[$1] (or, with $4 = pair, for pair $1 into PAIR_LINK[$1]; with
# $4 = relay into RELAY_LINK). $3 names the option for errors.
parse_link_spec() {
	local i=$1 spec=$2 opt=$3 kv k v delay=0 jitter=0 loss=0 rate=0 mtu=''
	local IFS=,
	for kv in $spec; do
		[ -n "$kv" ] || continue
		[[ $kv =~ ^([a-z]+)=(.*)$ ]] ||
		    usage_error "$opt: expected KEY=VALUE, got '$kv' (keys: delay, jitter, loss, rate, mtu)"
		k=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]}
		case $k in
		delay|jitter)
			[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
			    usage_error "$opt: $k=$v: milliseconds, like $k=5"
			[ "$k" = delay ] && delay=$v || jitter=$v ;;
		loss)
			v=${v%\%}
			[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v v="$v" 'BEGIN { exit !(v <= 100) }' ||
			    usage_error "$opt: loss=$v: a percentage from 0 to 100, like loss=5"
			loss=$v ;;
		rate)
			rate=$(rate_bytes "$v") ||
			    usage_error "$opt: rate=$v: like 100mbit, 1gbit, 500kbit or 10mbps"
			;;
		mtu)
			# a site's: its hosts' links and its tap's
			[ -z "${4:-}" ] && [ "$i" != 0 ] ||
			    usage_error "$opt: mtu=$v: only a site of hosts has an MTU (its link's tap)"
			[[ $v =~ ^[0-9]{3,4}$ ]] && (( 10#$v >= 576 && 10#$v <= 9000 )) ||
			    usage_error "$opt: mtu=$v: bytes of an IP packet from 576 to 9000, like mtu=1400"
			mtu=$(( 10#$v )) ;;
		*) usage_error "$opt: unknown key '$k' (keys: delay, jitter, loss, rate, mtu)" ;;
		esac
	done
	[ -n "${4:-}" ] || SITE_MTU[$i]=$mtu
	case ${4:-} in
	pair) PAIR_LINK[$i]="$delay $jitter $loss $rate" ;;
	relay) RELAY_LINK="$delay $jitter $loss $rate" ;;
	*) SITE_LINK[$i]="$delay $jitter $loss $rate" ;;
	esac
}

# Parse the --site values ($SITE_SPECS, space separated) and --home.
parse_sites() {
	local spec name n i=0 first=1 rest kv keys edge
	SITES=(home) SITE_N=(0) SITE_OF=() SITE_EDGE=(open)
	parse_link_spec 0 "$HOME_SPEC" --home
	for spec in $SITE_SPECS; do
		i=$(( i + 1 ))
		[[ $spec =~ ^([a-z0-9]{1,8})=([0-9]{1,3})(,(.*))?$ ]] ||
		    usage_error "--site $spec: expected NAME=N[,delay=MS][,jitter=MS][,loss=PCT][,rate=RATE][,mtu=BYTES][,firewall|nat=cone|nat=symmetric]"
		name=${BASH_REMATCH[1]} n=$(( 10#${BASH_REMATCH[2]} )) rest=${BASH_REMATCH[4]}
		[ "$name" != home ] || usage_error "--site $spec: 'home' is this machine's site (--home)"
		case " ${SITES[*]} " in *" $name "*) usage_error "--site $spec: site '$name' given twice" ;; esac
		(( n >= 1 )) || usage_error "--site $spec: a site has at least 1 host"
		(( i <= 99 )) || usage_error "--site: at most 99 sites"
		SITES[$i]=$name SITE_N[$i]=$n
		# the edge's words out of the link's keys
		keys='' edge=open
		local parts=()
		IFS=, read -ra parts <<<"$rest"
		for kv in "${parts[@]}"; do
			case $kv in
			open|firewall) edge=$kv ;;
			nat=cone|nat=symmetric) edge=${kv#nat=} ;;
			nat|nat=*) usage_error "--site $spec: $kv: nat=cone or nat=symmetric" ;;
			*) keys="$keys${keys:+,}$kv" ;;
			esac
		done
		SITE_EDGE[$i]=$edge
		parse_link_spec "$i" "$keys" "--site $spec"
		first=0
	done
	local h=0 s k
	for (( s = 1; s < ${#SITES[@]}; s++ )); do
		for (( k = 0; k < SITE_N[s]; k++ )); do
			h=$(( h + 1 ))
			SITE_OF[$h]=$s
		done
	done
	SITE_HOSTS_TOTAL=$h
	parse_pairs
}

# Parse the --pair values ($PAIR_SPECS) into PAIR_A, PAIR_B, PAIR_LINK.
parse_pairs() {
	local spec p=0 a b ia ib q
	PAIR_A=() PAIR_B=() PAIR_LINK=()
	for spec in $PAIR_SPECS; do
		p=$(( p + 1 ))
		[[ $spec =~ ^([a-z0-9]{1,8})-([a-z0-9]{1,8})(,(.*))?$ ]] ||
		    usage_error "--pair $spec: expected A-B[,delay=MS][,jitter=MS][,loss=PCT][,rate=RATE] (two sites' names)"
		a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]}
		(( p <= 9 )) || usage_error "--pair: at most 9 pairs"
		for q in "$a" "$b"; do
			[ "$q" != home ] ||
			    usage_error "--pair $spec: home's path is its link (--home); a pair joins two host sites"
		done
		ia=$(site_index "$a") ||
		    usage_error "--pair $spec: no site '$a' (sites: ${SITES[*]:1})"
		ib=$(site_index "$b") ||
		    usage_error "--pair $spec: no site '$b' (sites: ${SITES[*]:1})"
		[ "$ia" != "$ib" ] || usage_error "--pair $spec: a pair joins two different sites"
		for q in "$ia" "$ib"; do
			if site_nat "$q"; then
				usage_error "--pair $spec: site ${SITES[$q]} is behind a NAT: its traffic leaves through its gateway, which a pair's path would bypass"
			fi
		done
		(( ia < ib )) || { q=$ia; ia=$ib; ib=$q; }
		for (( q = 1; q < p; q++ )); do
			[ "${PAIR_A[$q]}:${PAIR_B[$q]}" != "$ia:$ib" ] ||
			    usage_error "--pair $spec: the pair $a-$b is given twice"
		done
		PAIR_A[$p]=$ia PAIR_B[$p]=$ib
		parse_link_spec "$p" "${BASH_REMATCH[4]}" "--pair $spec" pair
	done
}

# The pair (1..9) joining sites $1 and $2, if any.
pair_of() {
	local p a=$1 b=$2
	(( a < b )) || { a=$2; b=$1; }
	for (( p = 1; p < ${#PAIR_A[@]} + 1; p++ )); do
		[ "${PAIR_A[$p]:-}:${PAIR_B[$p]:-}" = "$a:$b" ] && { echo "$p"; return 0; }
	done
	return 1
}

wan_on() { [ -n "$SITE_SPECS" ]; }

# Run the emulator's daemons (switches, wirefilters) ahead of everything
# the lab measures: a real link's delay does not depend on the hosts' CPU
# load, and a wirefilter that waits for a core adds its wait to every
# packet. Real-time priority 1 (FIFO) where allowed, else nice -10.
wan_prio() {
	if chrt -f 1 true 2>/dev/null; then
		chrt -f 1 "$@"
	else
		nice -n -10 "$@"
	fi
}

site_index() {
	local i
	for (( i = 0; i < ${#SITES[@]}; i++ )); do
		[ "${SITES[$i]}" = "$1" ] && { echo "$i"; return 0; }
	done
	return 1
}

# wirefilter's value forms: delay "D" or "D+JN" (normal jitter).
wf_delay() { if [ "$2" = 0 ]; then echo "$1"; else echo "$1+$2N"; fi; }

# Pid in file $1 when it is a running $2 (wirefilter or vde_switch).
wan_pid() {
	local pid
	[ -f "$1" ] || return 0
	pid=$(cat "$1" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	# the program's real path: PATH may hold a link to it (tests/deps/only.sh)
	[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = \
	    "$(readlink -f "$(command -v "$2")")" ] || return 0
	running "$pid" && echo "$pid"
	return 0
}

# Stop the process in pid file $1 (a $2) and remove the file.
wan_stop() {
	local pid i
	pid=$(wan_pid "$1" "$2")
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		for (( i = 0; i < 200; i++ )); do
			running "$pid" || break
			sleep 0.01
		done
		running "$pid" && kill -9 "$pid" 2>/dev/null
	fi
	rm -f "$1"
}

# Wait (2 s) for path $1 to exist.
wait_path() {
	local i
	for (( i = 0; i < 200; i++ )); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	return 1
}

wait_link() {
	local i
	for (( i = 0; i < 200; i++ )); do
		ip link show "$1" >/dev/null 2>&1 && return 0
		sleep 0.01
	done
	return 1
}

# The queue of a link with a rate: 50 ms of it (at least 16 KiB), as a
# router's buffer, where wirefilter's default is unbounded. An unbounded
# queue grows without end under a TCP flow, and the other direction's ACKs
# wait behind it: iperf3 in duplex then measures the queue, not the link.
queue_bytes() {
	[ "$1" = 0 ] && { echo 0; return; }
	awk -v r="$1" 'BEGIN { q = r / 20; if (q < 16384) q = 16384; printf "%d\n", q }'
}

# A wirefilter's files are DIR/wan/KEY.{mgmt,link}: KEY is sI for site I
# (a number given) and qP for pair P (given as qP).
wf_key() { case $1 in q*) echo "$1" ;; *) echo "s$1" ;; esac; }

# What wirefilter $1 joins, for messages: "site NAME", "pair A-B" or
# "relay NAME".
wf_label() {
	case $1 in
	q*) echo "pair ${SITES[${PAIR_A[${1#q}]}]}-${SITES[${PAIR_B[${1#q}]}]}" ;;
	r) echo "relay $RELAY_NAME" ;;
	*) echo "site ${SITES[$1]}" ;;
	esac
}

# The link values ("delay jitter loss rate") of wirefilter $1: a site's
# index, qP for pair P, r for the relay.
link_of() {
	case $1 in
	q*) echo "${PAIR_LINK[${1#q}]}" ;;
	r) echo "$RELAY_LINK" ;;
	*) echo "${SITE_LINK[$1]}" ;;
	esac
}

# Send one management command to wirefilter $1 (a site's index or qP).
# unixcmd exits 255 whatever the answer, so callers read the result back
# with wf_show.
wf_cmd() {
	local k
	k=$(wf_key "$1")
	shift
	unixcmd -f /etc/vde2/vdecmd -s "$(wan_dir)/$k.mgmt" "$@" >/dev/null 2>&1 || true
}

# Wirefilter $1's showinfo, without the NUL bytes it sends.
wf_show() {
	unixcmd -f /etc/vde2/vdecmd -s "$(wan_dir)/$(wf_key "$1").mgmt" showinfo 2>/dev/null | tr -d '\0' || true
}

# Apply SITE_LINK[$1] (PAIR_LINK[P] for $1 = qP, RELAY_LINK for r) through the management
# socket and check it took.
wf_apply() {
	local i=$1 link delay jitter loss rate info want
	link=$(link_of "$i")
	read -r delay jitter loss rate <<<"$link"
	wf_cmd "$i" delay "$(wf_delay "$delay" "$jitter")"
	wf_cmd "$i" loss "$loss"
	wf_cmd "$i" bandwidth "$rate"
	wf_cmd "$i" chanbufsize "$(queue_bytes "$rate")"
	info=$(wf_show "$i")
	want="Delay  L->R $(wf_delay "$delay" "$jitter")"
	[ "$jitter" = 0 ] && want="$want+0"
	case $info in
	*"$want"*) ;;
	*) die "$(wf_label "$i"): its wirefilter did not take the delay (wanted '$want'; it says: $(grep -a Delay <<<"$info"))" ;;
	esac
	printf '%s\n' "$link" >"$(wan_dir)/$(wf_key "$i").link"
}

# Create or repair site $1: its switch with its tap, its bridge (host
# sites, and the relay's uplink, r) or home's address, its wirefilter to
# the core.
site_up() {
	local i=$1 w sw wf tap br restart=0 delay jitter loss rate
	w=$(wan_dir)
	tap=$(site_tap_of "$i")
	sw=$(wan_pid "$w/sw$i.pid" vde_switch)
	wf=$(wan_pid "$w/wf$i.pid" wirefilter)
	if [ -z "$sw" ] || [ -z "$wf" ] || ! ip link show "$tap" >/dev/null 2>&1; then
		restart=1
		wan_stop "$w/wf$i.pid" wirefilter
		wan_stop "$w/sw$i.pid" vde_switch
		rm -rf "$w/s$i.ctl" "$w/s$i.mgmt"
		ip link del "$tap" 2>/dev/null || true
		wan_prio vde_switch --sock "$w/s$i.ctl" --tap "$tap" --numports 4 9<&- \
		    --daemon --pidfile "$w/sw$i.pid" </dev/null >/dev/null 2>&1 ||
		    die "$(wf_label "$i"): vde_switch did not start"
		wait_path "$w/s$i.ctl/ctl" && wait_link "$tap" ||
		    die "$(wf_label "$i"): vde_switch made no socket or tap $tap"
		# A fixed MAC keeps the hosts' neighbour entries for home right
		# when a site is made again.
		[ "$i" = r ] || ip link set "$tap" address "$(site_tap_mac "$i")"
	fi
	echo 1 >"/proc/sys/net/ipv6/conf/$tap/disable_ipv6" 2>/dev/null || true
	if [ "$i" = 0 ]; then
		ip addr replace "$PREFIX.$SUBNET.1/24" dev "$tap"
	else
		br=$(site_bridge_of "$i")
		if ! ip link show "$br" >/dev/null 2>&1; then
			ip link add "$br" type bridge stp_state 0 forward_delay 0
		fi
		echo 1 >"/proc/sys/net/ipv6/conf/$br/disable_ipv6" 2>/dev/null || true
		ip link set "$tap" master "$br"
		# mtu=: the site's links, its tap as its hosts' (hosts_net_up):
		# a larger packet from outside is dropped without a word (the
		# relay's link, "r", is no host site: 1500)
		[ "$i" = r ] || ip link set "$tap" mtu "${SITE_MTU[$i]:-1500}"
		ip link set "$br" up
	fi
	ip link set "$tap" up
	if [ $restart = 1 ]; then
		read -r delay jitter loss rate <<<"$(link_of "$i")"
		wan_prio wirefilter --vde-plug "$w/s$i.ctl:$w/core.ctl" --mgmt "$w/s$i.mgmt" \
		    --delay "$(wf_delay "$delay" "$jitter")" --loss "$loss" \
		    --band "$rate" --daemon --pidfile "$w/wf$i.pid" 9<&- \
		    </dev/null >/dev/null 2>&1 ||
		    die "$(wf_label "$i"): wirefilter did not start"
		wait_path "$w/s$i.mgmt" ||
		    die "$(wf_label "$i"): wirefilter made no management socket"
	fi
	wf_apply "$i"
}

# The core switch and every site.
wan_up() {
	local w i
	w=$(wan_dir)
	mkdir -p "$w"
	if [ -z "$(wan_pid "$w/core.pid" vde_switch)" ]; then
		# Every site's wirefilter is plugged into the old core: make
		# them again too.
		for (( i = 0; i < ${#SITES[@]}; i++ )); do
			wan_stop "$w/wf$i.pid" wirefilter
		done
		wan_stop "$w/wfr.pid" wirefilter
		rm -rf "$w/core.ctl"
		wan_prio vde_switch --sock "$w/core.ctl" --numports $(( ${#SITES[@]} + 5 )) 9<&- \
		    --daemon --pidfile "$w/core.pid" </dev/null >/dev/null 2>&1 ||
		    die "the core vde_switch did not start"
		wait_path "$w/core.ctl/ctl" || die "the core vde_switch made no socket"
	fi
	for (( i = 0; i < ${#SITES[@]}; i++ )); do
		site_up "$i"
	done
	for (( i = 1; i <= ${#PAIR_A[@]}; i++ )); do
		pair_up "$i"
	done
	pairs_stale
	if relay_on; then
		site_up r
	else
		wan_stop "$w/wfr.pid" wirefilter
		wan_stop "$w/swr.pid" vde_switch
		rm -rf "$w/sr.ctl" "$w/sr.mgmt" "$w/sr.link"
		ip link del "$(site_tap_of r)" 2>/dev/null || true
		ip link del "$(site_bridge_of r)" 2>/dev/null || true
	fi
}

# Pair P's names: a switch per side (DIR/wan/qPa.ctl, qPb.ctl) with its tap
# npv-NAME-Pa|b in a kernel bridge npu-NAME-Pa|b, which holds a second
# interface (pP) of every host of that side's site; one wirefilter
# (DIR/wan/qP.mgmt) between the two switches. In a host of site A the
# other site's hosts are /32 routes through pP, with their pP's MAC as a
# permanent neighbour, so a pair's traffic takes the pair's path and every
# other pair's the star.
pair_tap_of() { echo "npv-$NAME-$1$2"; }
pair_bridge_of() { echo "npu-$NAME-$1$2"; }
pair_veth_of() { echo "q$1-$NAME-${2#h}"; }
pair_mac() { printf '02:6e:%02x:%02x:%02x:%02x\n' $(( 0x80 + $1 )) "$SUBNET" $(( ${2#h} >> 8 )) $(( ${2#h} & 255 )); }

# Create or repair pair $1: its two switches, taps, bridges, wirefilter.
pair_up() {
	local p=$1 w side sw tap br restart=0 delay jitter loss rate
	w=$(wan_dir)
	for side in a b; do
		sw=$(wan_pid "$w/swq$p$side.pid" vde_switch)
		tap=$(pair_tap_of "$p" "$side")
		if [ -z "$sw" ] || ! ip link show "$tap" >/dev/null 2>&1; then
			restart=1
			wan_stop "$w/wfq$p.pid" wirefilter
			wan_stop "$w/swq$p$side.pid" vde_switch
			rm -rf "$w/q$p$side.ctl"
			ip link del "$tap" 2>/dev/null || true
			wan_prio vde_switch --sock "$w/q$p$side.ctl" --tap "$tap" --numports 4 9<&- \
			    --daemon --pidfile "$w/swq$p$side.pid" </dev/null >/dev/null 2>&1 ||
			    die "$(wf_label "q$p"): vde_switch did not start"
			wait_path "$w/q$p$side.ctl/ctl" && wait_link "$tap" ||
			    die "$(wf_label "q$p"): vde_switch made no socket or tap $tap"
		fi
		br=$(pair_bridge_of "$p" "$side")
		if ! ip link show "$br" >/dev/null 2>&1; then
			ip link add "$br" type bridge stp_state 0 forward_delay 0
		fi
		echo 1 >"/proc/sys/net/ipv6/conf/$br/disable_ipv6" 2>/dev/null || true
		echo 1 >"/proc/sys/net/ipv6/conf/$tap/disable_ipv6" 2>/dev/null || true
		ip link set "$tap" master "$br"
		ip link set "$br" up
		ip link set "$tap" up
	done
	[ -n "$(wan_pid "$w/wfq$p.pid" wirefilter)" ] || restart=1
	if [ $restart = 1 ]; then
		wan_stop "$w/wfq$p.pid" wirefilter
		rm -f "$w/q$p.mgmt"
		read -r delay jitter loss rate <<<"${PAIR_LINK[$p]}"
		wan_prio wirefilter --vde-plug "$w/q${p}a.ctl:$w/q${p}b.ctl" --mgmt "$w/q$p.mgmt" \
		    --delay "$(wf_delay "$delay" "$jitter")" --loss "$loss" \
		    --band "$rate" --daemon --pidfile "$w/wfq$p.pid" 9<&- \
		    </dev/null >/dev/null 2>&1 ||
		    die "$(wf_label "q$p"): wirefilter did not start"
		wait_path "$w/q$p.mgmt" ||
		    die "$(wf_label "q$p"): wirefilter made no management socket"
	fi
	wf_apply "q$p"
}

# Pairs a previous up had and this one has not: their daemons and links.
pairs_stale() {
	local w pf p link
	w=$(wan_dir)
	for pf in "$w"/wfq*.pid "$w"/swq*.pid; do
		[ -f "$pf" ] || continue
		p=${pf##*/}
		p=${p#wfq} p=${p#swq} p=${p%.pid} p=${p%[ab]}
		(( p <= ${#PAIR_A[@]} )) && continue
		case $pf in */wfq*) wan_stop "$pf" wirefilter ;; *) wan_stop "$pf" vde_switch ;; esac
		rm -rf "$w/q$p.mgmt" "$w/q$p.link" "$w/q${p}a.ctl" "$w/q${p}b.ctl"
	done
	for link in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' |
	    grep -E "^(npv-$NAME-[1-9][ab]|npu-$NAME-[1-9][ab]|q[1-9]-$NAME-[0-9]+)\$" || true); do
		p=${link#npv-"$NAME"-} p=${p#npu-"$NAME"-} p=${p#q}
		p=${p:0:1}
		(( p <= ${#PAIR_A[@]} )) && continue
		ip link del "$link" 2>/dev/null || true
	done
}

# Host $1's interfaces and routes for the pairs its site is in: pP into
# the bridge of its side, and a /32 route and a permanent neighbour for
# each host of the other site. A host no longer in a pair loses them.
host_pairs_up() {
	local h=$1 ns me p side other veth br o
	ns=$(netns_of "$h")
	me=${SITE_OF[${h#h}]}
	ip netns exec "$ns" sh -c 'echo 0 >/proc/sys/net/ipv4/conf/all/rp_filter'
	for (( p = 1; p <= 9; p++ )); do
		veth=$(pair_veth_of "$p" "$h")
		side="" other=""
		if (( p <= ${#PAIR_A[@]} )); then
			if [ "${PAIR_A[$p]}" = "$me" ]; then side=a other=${PAIR_B[$p]}
			elif [ "${PAIR_B[$p]}" = "$me" ]; then side=b other=${PAIR_A[$p]}
			fi
		fi
		if [ -z "$side" ]; then
			ip link del "$veth" 2>/dev/null || true
			continue
		fi
		br=$(pair_bridge_of "$p" "$side")
		if ! ip -n "$ns" link show "p$p" >/dev/null 2>&1 ||
		    ! ip link show "$veth" >/dev/null 2>&1; then
			ip -n "$ns" link del "p$p" 2>/dev/null || true
			ip link del "$veth" 2>/dev/null || true
			ip link add "$veth" type veth peer name "p$p" netns "$ns" \
			    address "$(pair_mac "$p" "$h")"
		fi
		ip link set "$veth" master "$br" up
		echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6" 2>/dev/null || true
		{
		echo "link set p$p up"
		for (( o = 1; o <= HOSTS; o++ )); do
			[ "${SITE_OF[o]}" = "$other" ] || continue
			echo "route replace ${ADDR[o]}/32 dev p$p src ${ADDR[${h#h}]}"
			echo "neigh replace ${ADDR[o]} lladdr $(pair_mac "$p" "h$o") dev p$p nud permanent"
		done
		} | ip -n "$ns" -batch -
		ip netns exec "$ns" sh -c "echo 0 >/proc/sys/net/ipv4/conf/p$p/rp_filter
			echo 1 >/proc/sys/net/ipv6/conf/p$p/disable_ipv6" 2>/dev/null || true
	done
}

# --- obstacles: a site's edge ------------------------------------------
#
# What stands between a site's hosts and everyone else (SITE_EDGE):
# - open: nothing;
# - firewall: a stateful filter (nftables) in each host's namespace:
#   nothing from outside the site opens a connection in, what the site
#   opens gets its answers; this machine's SSH (198.18.K.1 to port 22) is
#   let in, so netprof reaches every host;
# - cone, symmetric (nat=...): the hosts have private addresses,
#   198.19.K.(I+1) on a bridge of the site's own (npi-NAME-S), behind a
#   gateway namespace (np-NAME-gS) whose one address in the lab's subnet,
#   198.18.K.(254-S), is all the rest of the lab sees of them: it
#   masquerades what they open, keeping their ports where it can (cone) or
#   with a random port per connection (symmetric, `random,fully-random`,
#   which defeats hole punching), and forwards nothing in but answers and
#   this machine's SSH. This machine reaches the hosts on a management
#   route (a /32 per host through the gateway), so an inventory's
#   `address`, the private one, is also its `ssh_host`; peers outside the
#   site cannot dial it (they have no route to it).

SITE_EDGE=()		# per site: open, firewall, cone or symmetric

site_nat() { [ "${SITE_EDGE[$1]:-open}" = cone ] || [ "${SITE_EDGE[$1]:-open}" = symmetric ]; }
host_natted() { wan_on && site_nat "${SITE_OF[${1#h}]}"; }
host_firewalled() { wan_on && [ "${SITE_EDGE[${SITE_OF[${1#h}]}]}" = firewall ]; }
# The edge as --site and topology.json write it.
edge_text() {
	case ${SITE_EDGE[$1]:-open} in
	cone|symmetric) echo "nat=${SITE_EDGE[$1]}" ;;
	*) echo "${SITE_EDGE[$1]:-open}" ;;
	esac
}

gw_ns_of() { echo "np-$NAME-g$1"; }
gw_addr_of() { echo "$PREFIX.$SUBNET.$(( 254 - $1 ))"; }
inner_bridge_of() { echo "npi-$NAME-$1"; }
gw_veth_of() { if [ "$2" = out ]; then echo "ng-$NAME-$1"; else echo "ni-$NAME-$1"; fi; }
gw_mac() {
	if [ "$2" = out ]; then printf '02:6e:73:%02x:00:%02x\n' "$SUBNET" "$1"
	else printf '02:6e:74:%02x:00:%02x\n' "$SUBNET" "$1"; fi
}

# The gateway of NAT site $1: its namespace, the outer side in the site's
# bridge, the inner side in the hosts' bridge, forwarding, the filter and
# the masquerade.
gw_up() {
	local i=$1 ns br side veth dev random=''
	ns=$(gw_ns_of "$i")
	[ -e "/run/netns/$ns" ] || ip netns add "$ns"
	br=$(inner_bridge_of "$i")
	ip link show "$br" >/dev/null 2>&1 ||
	    ip link add "$br" type bridge stp_state 0 forward_delay 0
	echo 1 >"/proc/sys/net/ipv6/conf/$br/disable_ipv6" 2>/dev/null || true
	ip link set "$br" up
	for side in out in; do
		veth=$(gw_veth_of "$i" "$side")
		if [ "$side" = out ]; then dev=eth0; else dev=eth1; fi
		if ! ip -n "$ns" link show "$dev" >/dev/null 2>&1 ||
		    ! ip link show "$veth" >/dev/null 2>&1; then
			ip -n "$ns" link del "$dev" 2>/dev/null || true
			ip link del "$veth" 2>/dev/null || true
			ip link add "$veth" type veth peer name "$dev" netns "$ns" \
			    address "$(gw_mac "$i" "$side")"
		fi
		if [ "$side" = out ]; then
			ip link set "$veth" master "$(site_bridge_of "$i")" up
		else
			ip link set "$veth" master "$br" up
		fi
		echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6" 2>/dev/null || true
	done
	ip netns exec "$ns" sh -c '
		echo 1 >/proc/sys/net/ipv4/ip_forward
		echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6'
	ip -n "$ns" link set lo up
	ip -n "$ns" addr replace "$(gw_addr_of "$i")/24" dev eth0
	ip -n "$ns" addr replace "$PRIVATE.$SUBNET.1/24" dev eth1
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set eth1 up
	[ "${SITE_EDGE[$i]}" = symmetric ] && random=' random,fully-random'
	ip netns exec "$ns" nft -f - <<EOF ||
flush ruleset
table inet lab {
	chain forward {
		type filter hook forward priority 0; policy drop;
		ct state established,related accept
		iifname "eth1" oifname "eth0" accept
		iifname "eth0" oifname "eth1" ip saddr $PREFIX.$SUBNET.1 tcp dport 22 accept
	}
}
table ip nat {
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "eth0" ip saddr $PRIVATE.$SUBNET.0/24 masquerade$random
	}
}
EOF
	    die "site ${SITES[$i]}: nftables refused the gateway's rules (nft installed? tests/install-deps.sh lab)"
}

# Host $1's filter: a firewall site's stateful input filter; none else.
host_edge() {
	local h=$1 ns=np-$NAME-$1 i set=''	# netns_of
	if ! host_firewalled "$h"; then
		# a new namespace has none to flush
		[ -z "${FRESH[${h#h}]:-}" ] || return 0
		if command -v nft >/dev/null; then
			ip netns exec "$ns" nft flush ruleset 2>/dev/null || true
		fi
		return 0
	fi
	for (( i = 1; i <= HOSTS; i++ )); do
		[ "${SITE_OF[i]}" = "${SITE_OF[${h#h}]}" ] && set="$set${set:+, }${ADDR[i]}"
	done
	ip netns exec "$ns" nft -f - <<EOF ||
flush ruleset
table inet lab {
	chain input {
		type filter hook input priority 0; policy drop;
		iif "lo" accept
		ct state established,related accept
		ip saddr { $set } accept
		ip saddr $PREFIX.$SUBNET.1 tcp dport 22 accept
	}
}
EOF
	    die "$h: nftables refused the firewall's rules (nft installed? tests/install-deps.sh lab)"
}

# Every NAT site's gateway, and this machine's management route to each
# of their hosts.
edges_up() {
	local i h
	wan_on || return 0
	for (( i = 1; i < ${#SITES[@]}; i++ )); do
		site_nat "$i" && gw_up "$i"
	done
	for h in $(host_list); do
		host_natted "$h" || continue
		ip route replace "$(addr_of "$h")/32" via "$(gw_addr_of "${SITE_OF[${h#h}]}")" \
		    dev "$(site_tap_of 0)"
	done
	return 0
}

# --- the public relay ----------------------------------------------------
#
# --relay NAME: an otela node outside every site, at 198.18.K.254 in a
# namespace of its own (np-NAME-relay; with sites, behind a link of its own
# to the core, key r: DIR/wan/sr.mgmt ...), run as the lab user with its
# home in DIR/relay, `public-addr` set (so it is public and reserves no
# slot anywhere) and no bootstrap peer. Its multiaddr goes to
# DIR/relay/multiaddr, lab.env (LAB_RELAY_ADDR) and topology.json; down
# stops it by its PID (DIR/relay/pid). limited: the stand-in's relay with
# libp2p's default limits (OTELA_FAKE_RELAY_LIMITED; the real node's relay
# is always unlimited, so up then fails).

RELAY_SPEC=''		# --relay as given
RELAY_OTELA=''		# --relay-otela as given
RELAY_NAME=''
RELAY_LIMITED=0
RELAY_LINK='0 0 0 0'

relay_on() { [ -n "$RELAY_NAME" ]; }
relay_ns() { echo "np-$NAME-relay"; }
relay_addr() { echo "$PREFIX.$SUBNET.254"; }
relay_mac() { printf '02:6e:75:%02x:00:01\n' "$SUBNET"; }
relay_veth() { echo "nr-$NAME"; }
relay_dir() { echo "$DIR/relay"; }
relay_otela() { echo "${RELAY_OTELA:-$(cd "$(dirname "$0")" && pwd)/../otela-node/bin/otela}"; }

# Parse $RELAY_SPEC: NAME[,limited][,delay=MS,...].
parse_relay() {
	local parts=() kv keys=''
	RELAY_NAME='' RELAY_LIMITED=0 RELAY_LINK='0 0 0 0'
	[ -n "$RELAY_SPEC" ] || return 0
	IFS=, read -ra parts <<<"$RELAY_SPEC"
	RELAY_NAME=${parts[0]:-}
	if ! [[ $RELAY_NAME =~ ^[a-z][a-z0-9]{0,7}$ ]] || [[ $RELAY_NAME =~ ^h[0-9]+$ ]] ||
	    [ "$RELAY_NAME" = home ]; then
		usage_error "--relay $RELAY_SPEC: NAME is 1-8 lower-case letters or digits, a letter first, not hN or home"
	fi
	if site_index "$RELAY_NAME" >/dev/null; then
		usage_error "--relay $RELAY_SPEC: '$RELAY_NAME' is a site's name"
	fi
	for kv in "${parts[@]:1}"; do
		case $kv in
		limited) RELAY_LIMITED=1 ;;
		*) keys="$keys${keys:+,}$kv" ;;
		esac
	done
	if [ -n "$keys" ]; then
		wan_on || usage_error "--relay $RELAY_SPEC: a link (delay=...) needs sites (--site NAME=N,...)"
		parse_link_spec r "$keys" "--relay $RELAY_SPEC" relay
	fi
	return 0
}

# Pid of the running relay, or nothing.
relay_pid() {
	local pf pid
	pf=$(relay_dir)/pid
	[ -f "$pf" ] || return 0
	pid=$(cat "$pf" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	running "$pid" || return 0
	# read whole, then matched (see wan_down)
	grep -qF "$(relay_dir)/node/cfg.yaml" <<<"$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" ||
	    return 0
	echo "$pid"
}

# Stop the relay by its PID: TERM, then KILL after 3 s (its files go with
# DIR, so its cleanup does not matter), and wait up to 5 s more for it to
# be gone: a KILL is sent at once, but the process exits (and frees its
# ports) only when the kernel has torn it down.
relay_stop() {
	local pid i
	pid=$(relay_pid)
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		for (( i = 0; i < 300; i++ )); do
			running "$pid" || break
			sleep 0.01
		done
		if running "$pid"; then
			kill -9 "$pid" 2>/dev/null || true
			for (( i = 0; i < 500; i++ )); do
				running "$pid" || break
				sleep 0.01
			done
			running "$pid" && echo "lab: the relay ($pid) still runs 5 s after SIGKILL" >&2
		fi
	fi
	rm -f "$(relay_dir)/pid"
}

# The relay's namespace and link: a veth into the flat bridge, or into the
# bridge of its own uplink to the core.
relay_net_up() {
	local ns veth br
	ns=$(relay_ns)
	veth=$(relay_veth)
	if wan_on; then br=$(site_bridge_of r); else br=$(bridge_of); fi
	[ -e "/run/netns/$ns" ] || ip netns add "$ns"
	if ! ip -n "$ns" link show eth0 >/dev/null 2>&1 ||
	    ! ip link show "$veth" >/dev/null 2>&1; then
		ip -n "$ns" link del eth0 2>/dev/null || true
		ip link del "$veth" 2>/dev/null || true
		ip link add "$veth" type veth peer name eth0 netns "$ns" address "$(relay_mac)"
	fi
	ip link set "$veth" master "$br" up
	echo 1 >"/proc/sys/net/ipv6/conf/$veth/disable_ipv6" 2>/dev/null || true
	ip netns exec "$ns" sh -c '
		echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
		echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6'
	ip -n "$ns" link set lo up
	ip -n "$ns" addr replace "$(relay_addr)/24" dev eth0
	ip -n "$ns" link set eth0 up
}

# Run $@ as the lab user in the relay's namespace, with the relay's home
# and nothing of this environment but PATH (an OF_* variable would change
# the node's configuration).
relay_run() {
	ip netns exec "$(relay_ns)" setpriv --reuid "$LAB_USER" --regid "$LAB_USER" \
	    --init-groups env -i PATH="$PATH" HOME="$(relay_dir)/home" "$@"
}

# Does the relay answer GET /v1/health with 200?
relay_healthy() {
	local head
	head=$(ip netns exec "$(relay_ns)" bash -c 'exec 3<>/dev/tcp/127.0.0.1/19090 &&
	    printf "GET /v1/health HTTP/1.0\r\nHost: relay\r\n\r\n" >&3 && head -c 12 <&3' \
	    2>/dev/null) || return 1
	[[ $head == *" 200"* ]]
}

# Start the relay, or keep it when it runs with this configuration.
relay_up() {
	local d otela peer want pid i env
	d=$(relay_dir)
	otela=$(relay_otela)
	[ -x "$otela" ] || die "--relay: no otela at $otela (give one with --relay-otela PATH; the stand-in needs tests/otela-node/install.sh)"
	relay_net_up
	want="$otela limited=$RELAY_LIMITED"
	if [ -n "$(relay_pid)" ] && [ "$(cat "$d/spec" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	relay_stop
	# whatever else runs there (a relay whose pid file was lost)
	host_kill_all "$(relay_ns)"
	rm -rf "$d"
	mkdir -p "$d/home" "$d/node"
	chown -R "$LAB_USER:" "$d"
	relay_run "$otela" init --config-dir "$d/node" >"$d/init.log" 2>&1 ||
	    die "--relay: otela init failed: $(tail -n 3 "$d/init.log")"
	peer=$(relay_run "$otela" peer-id --config-dir "$d/node" 2>>"$d/init.log") && [ -n "$peer" ] ||
	    die "--relay: otela peer-id failed: $(tail -n 3 "$d/init.log")"
	cat >"$d/node/cfg.yaml" <<EOF
# the lab's public relay (written by lab.sh up)
port: "19090"
tcpport: "$RELAY_PORT"
udpport: "$(( RELAY_PORT + 1 ))"
public-addr: "$(relay_addr)"
reachability: public
role: relay
cleanslate: true
bootstrap:
  static: []
security: { require_signed_binary: false }
scalability: { swim_enabled: false, crdt_tuned: false, weighted_routing: false }
billing: { enabled: false }
EOF
	chown "$LAB_USER:" "$d/node/cfg.yaml"
	# the stand-in's short waits (the real node ignores them)
	env=(OTELA_FAKE_API_DELAY_MS=100 OTELA_FAKE_STOP_MS=300)
	[ "$RELAY_LIMITED" = 1 ] && env+=(OTELA_FAKE_RELAY_LIMITED=1)
	# A simple command, not relay_run: $! is then the node itself (each
	# of ip, setpriv and env execs the next). fd 9 holds the machine-wide
	# lock: the node must not keep it.
	ip netns exec "$(relay_ns)" setpriv --reuid "$LAB_USER" --regid "$LAB_USER" \
	    --init-groups env -i PATH="$PATH" HOME="$d/home" "${env[@]}" "$otela" start \
	    --config "$d/node/cfg.yaml" --config-dir "$d/node" >>"$d/log" 2>&1 </dev/null 9<&- &
	pid=$!
	echo "$pid" >"$d/pid"
	for (( i = 0; i < 300; i++ )); do
		relay_healthy && break
		running "$pid" || die "--relay: the relay exited: $(tail -n 5 "$d/log")"
		sleep 0.2
	done
	relay_healthy && running "$pid" || die "--relay: its API did not come up in 60 s (log: $d/log)"
	if [ "$RELAY_LIMITED" = 1 ] && ! grep -q 'relay service: limited' "$d/log"; then
		relay_stop
		die "--relay $RELAY_SPEC: $otela does not limit its relay (OTELA_FAKE_RELAY_LIMITED is the stand-in's; the real node's relay is always unlimited)"
	fi
	echo "$want" >"$d/spec"
	echo "$peer" >"$d/peer"
	echo "/ip4/$(relay_addr)/tcp/$RELAY_PORT/p2p/$peer" >"$d/multiaddr"
}

# Stop every WAN process of the lab in DIR: by their pid files, then any
# wirefilter or vde_switch whose command line names DIR/wan (a pid file
# lost with a crash).
wan_down() {
	local w pf pid exe
	w=$(wan_dir)
	for pf in "$w"/wf*.pid; do
		[ -f "$pf" ] && wan_stop "$pf" wirefilter
	done
	for pf in "$w"/sw*.pid "$w"/core.pid; do
		[ -f "$pf" ] && wan_stop "$pf" vde_switch
	done
	[ -d "$w" ] || return 0
	for pid in $(ls /proc | grep -E '^[0-9]+$'); do
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
		case ${exe##*/} in wirefilter|vde_switch) ;; *) continue ;; esac
		# read whole, then matched (a pipe into grep -q may fail by
		# SIGPIPE under pipefail and leave the process running)
		grep -qF "$w/" <<<"$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || continue
		running "$pid" || continue
		kill "$pid" 2>/dev/null || true
	done
}

# The round trip `up` configured between sites $1 and $2 (ms): each
# crossing of a wirefilter adds its delay, both ways; a pair of its own
# crosses only its wirefilter.
site_rtt() {
	local a=$1 b=$2 da db p
	[ "$a" = "$b" ] && { echo 0; return; }
	if p=$(pair_of "$a" "$b"); then
		read -r da _ <<<"${PAIR_LINK[$p]}"
		awk -v a="$da" 'BEGIN { printf "%g\n", 2 * a }'
		return
	fi
	read -r da _ <<<"${SITE_LINK[$a]}"
	read -r db _ <<<"${SITE_LINK[$b]}"
	awk -v a="$da" -v b="$db" 'BEGIN { printf "%g\n", 2 * (a + b) }'
}

# DIR/topology.json: the sites, their links and hosts, and the configured
# round trip of every pair (home included), for tests and people.
write_topology() {
	local i j h first tmp delay jitter loss rate hs
	tmp=$(mktemp "$DIR/.topology.XXXXXX")
	{
		printf '{\n  "sites": [\n'
		for (( i = 0; i < ${#SITES[@]}; i++ )); do
			read -r delay jitter loss rate <<<"${SITE_LINK[$i]}"
			hs=""
			for h in $(host_list); do
				[ "${SITE_OF[${h#h}]}" = "$i" ] && hs="$hs${hs:+, }\"$h\""
			done
			printf '    {"name": "%s", "delay_ms": %s, "jitter_ms": %s, "loss_pct": %s, "rate_bytes_per_s": %s, "hosts": [%s], "edge": "%s"%s}%s\n' \
			    "${SITES[$i]}" "$delay" "$jitter" "$loss" "$rate" "$hs" "$(edge_text "$i")" \
			    "$(site_nat "$i" && printf ', "gateway": "%s"' "$(gw_addr_of "$i")")" \
			    "$( (( i + 1 < ${#SITES[@]} )) && echo ,)"
		done
		printf '  ],\n  "pairs": ['
		for (( i = 1; i <= ${#PAIR_A[@]}; i++ )); do
			read -r delay jitter loss rate <<<"${PAIR_LINK[$i]}"
			printf '%s\n    {"sites": ["%s", "%s"], "delay_ms": %s, "jitter_ms": %s, "loss_pct": %s, "rate_bytes_per_s": %s}' \
			    "$( (( i > 1 )) && echo ,)" "${SITES[${PAIR_A[$i]}]}" "${SITES[${PAIR_B[$i]}]}" \
			    "$delay" "$jitter" "$loss" "$rate"
		done
		(( ${#PAIR_A[@]} > 0 )) && printf '\n  '
		printf '],\n'
		if relay_on; then
			read -r delay jitter loss rate <<<"$RELAY_LINK"
			printf '  "relay": {"name": "%s", "address": "%s", "peer_id": "%s", "multiaddr": "%s", "limited": %s, "delay_ms": %s, "jitter_ms": %s, "loss_pct": %s, "rate_bytes_per_s": %s},\n' \
			    "$RELAY_NAME" "$(relay_addr)" "$(cat "$(relay_dir)/peer")" "$(cat "$(relay_dir)/multiaddr")" \
			    "$( [ "$RELAY_LIMITED" = 1 ] && echo true || echo false)" "$delay" "$jitter" "$loss" "$rate"
		fi
		printf '  "rtt_ms": {\n'
		first=1
		for h in home $(host_list); do
			[ $first = 1 ] || printf ',\n'
			first=0
			if [ "$h" = home ]; then i=0; else i=${SITE_OF[${h#h}]}; fi
			printf '    "%s": {' "$h"
			local f2=1 o
			for o in home $(host_list); do
				[ "$o" = "$h" ] && continue
				if [ "$o" = home ]; then j=0; else j=${SITE_OF[${o#h}]}; fi
				[ $f2 = 1 ] || printf ', '
				f2=0
				printf '"%s": %s' "$o" "$(site_rtt "$i" "$j")"
			done
			printf '}'
		done
		printf '\n  }\n}\n'
	} >"$tmp"
	chmod 0644 "$tmp"
	mv "$tmp" "$DIR/topology.json"
}

# The topology and the expected round trips, for the person who ran `up`.
print_topology() {
	local i j delay jitter loss rate hs h line
	echo "sites (each joined to the core by a wirefilter; values each way):"
	for (( i = 0; i < ${#SITES[@]}; i++ )); do
		read -r delay jitter loss rate <<<"${SITE_LINK[$i]}"
		if [ "$i" = 0 ]; then
			hs="this machine ($PREFIX.$SUBNET.1)"
		else
			hs=""
			for h in $(host_list); do
				[ "${SITE_OF[${h#h}]}" = "$i" ] && hs="$hs${hs:+ }$h"
			done
		fi
		if site_nat "$i"; then
			hs="$hs; behind nat=${SITE_EDGE[$i]} at $(gw_addr_of "$i")"
		elif [ "$i" != 0 ] && [ "${SITE_EDGE[$i]}" = firewall ]; then
			hs="$hs; firewalled"
		fi
		printf '  %-8s delay %s ms  jitter %s ms  loss %s%%  rate %s: %s\n' \
		    "${SITES[$i]}" "$delay" "$jitter" "$loss" "$(rate_text "$rate")" "$hs"
	done
	if relay_on; then
		read -r delay jitter loss rate <<<"$RELAY_LINK"
		printf '  %-8s delay %s ms  jitter %s ms  loss %s%%  rate %s: the public relay (%s)\n' \
		    "$RELAY_NAME" "$delay" "$jitter" "$loss" "$(rate_text "$rate")" "$(relay_addr)"
	fi
	for (( i = 1; i <= ${#PAIR_A[@]}; i++ )); do
		read -r delay jitter loss rate <<<"${PAIR_LINK[$i]}"
		(( i == 1 )) && echo "pairs with a path of their own (one wirefilter, in place of both sites' links; values each way):"
		printf '  %-17s delay %s ms  jitter %s ms  loss %s%%  rate %s\n' \
		    "${SITES[${PAIR_A[$i]}]}-${SITES[${PAIR_B[$i]}]}" "$delay" "$jitter" "$loss" "$(rate_text "$rate")"
	done
	echo "expected RTT between sites, ms (configured; each crossing of the emulator adds a little):"
	line=$(printf '  %-8s' "")
	for (( j = 0; j < ${#SITES[@]}; j++ )); do
		line="$line$(printf ' %8s' "${SITES[$j]}")"
	done
	echo "$line"
	for (( i = 0; i < ${#SITES[@]}; i++ )); do
		line=$(printf '  %-8s' "${SITES[$i]}")
		for (( j = 0; j < ${#SITES[@]}; j++ )); do
			line="$line$(printf ' %8s' "$(site_rtt "$i" "$j")")"
		done
		echo "$line"
	done
}

# Every host's key, kept across ups; the missing ones made side by side.
hosts_keys() {
	local i k dirs=() pids=()
	for (( i = 1; i <= HOSTS; i++ )); do
		dirs+=("$DIR/hosts/h$i")
	done
	mkdir -p "${dirs[@]}"
	for (( i = 1; i <= HOSTS; i++ )); do
		k=$DIR/hosts/h$i/ssh_host_ed25519_key
		[ -f "$k" ] && continue
		ssh-keygen -q -t ed25519 -N '' -C "netprof-lab-$NAME-h$i" -f "$k" 9<&- &
		pids[i]=$!
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}" || die "h$i: ssh-keygen failed"
	done
}

# Write host $1's sshd_config. Returns 0 when it changed.
host_files() {
	local h=$1 hd=$DIR/hosts/$1 new old=''
	IFS= read -r -d '' new <<EOF || true
# sshd of lab '$NAME', host $h (written by lab.sh up; rewritten on every up)
ListenAddress ${ADDR[${h#h}]}
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
	if [ -f "$hd/sshd_config" ]; then
		IFS= read -r -d '' old <"$hd/sshd_config" || true
	fi
	[ "$old" != "$new" ] || return 1
	printf '%s' "$new" >"$hd/sshd_config"
	return 0
}

# Host $1's listening sshd's pid in PID, or nothing (without a subshell:
# `up` and `down` ask it of every host).
sshd_pid() {
	local pf=$DIR/hosts/$1/sshd.pid
	PID=''
	[ -f "$pf" ] || return 0
	read -r PID 2>/dev/null <"$pf" || true
	[[ $PID =~ ^[0-9]+$ ]] && [ "/proc/$PID/exe" -ef "$SSHD" ] || PID=''
	return 0
}

# False when host $1's sshd runs in another namespace than the host's
# (its namespace was deleted and made again under it).
sshd_in_netns() {
	sshd_pid "$1"
	[ -n "$PID" ] || return 0
	[ "$(readlink "/proc/$PID/ns/net")" = \
	    "net:[$(stat -L -c %i "/run/netns/$(netns_of "$1")")]" ]
}

# Start the sshd of every host in $@ that has none running, side by side,
# and wait until each has started (not yet accepting: sshd_wait).
sshd_start() {
	local h hd pids=() i
	for h; do
		hd=$DIR/hosts/$h
		sshd_pid "$h"
		[ -z "$PID" ] || continue
		[ ! -e "$hd/sshd.pid" ] || rm -f "$hd/sshd.pid"
		# in netns_of's namespace
		ip netns exec "np-$NAME-$h" "$SSHD" -f "$hd/sshd_config" \
		    -E "$hd/sshd.log" &
		pids[${h#h}]=$!
	done
	for i in "${!pids[@]}"; do
		wait "${pids[i]}" && continue
		tail -n 5 "$DIR/hosts/h$i/sshd.log" >&2 2>/dev/null || true
		die "h$i: sshd did not start (log: $DIR/hosts/h$i/sshd.log)"
	done
}

# True while process $1 runs (a zombie, which only waits for its parent to
# reap it, does not count).
running() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# Stop the sshd of every host in $@, all at once.
sshd_stop() {
	local h pids=() pid left i files=()
	for h; do
		sshd_pid "$h"
		[ -n "$PID" ] || continue
		kill "$PID" 2>/dev/null || true
		pids+=("$PID") files+=("$DIR/hosts/$h/sshd.pid")
	done
	for (( i = 0; i < 200; i++ )); do
		left=()
		for pid in "${pids[@]}"; do
			running "$pid" && left+=("$pid")
		done
		pids=("${left[@]}")
		[ ${#pids[@]} -gt 0 ] || break
		sleep 0.01
	done
	for pid in "${pids[@]}"; do
		kill -9 "$pid" 2>/dev/null || true
	done
	[ ${#files[@]} -eq 0 ] || rm -f "${files[@]}"
}

# Wait until every host in $@ accepts TCP on port 22 (5 s, and 0.1 s more
# per host: 64 sshd starting at once on a small machine take a while).
sshd_wait() {
	local h i pending=("$@") left tries=$(( 250 + 5 * $# ))
	for (( i = 0; i < tries; i++ )); do
		left=()
		for h in "${pending[@]}"; do
			# the connection is open for the null command only
			if ! { : 3<>"/dev/tcp/${ADDR[${h#h}]}/22"; } 2>/dev/null; then
				left+=("$h")
			fi
		done
		[ ${#left[@]} -eq 0 ] && return 0
		pending=("${left[@]}")
		sleep 0.02
	done
	die "sshd of ${pending[*]} does not accept connections (see $DIR/hosts/<host>/sshd.log)"
}

# Pids of the processes in the namespaces named $@, in one pass over /proc
# (where `ip netns pids` makes one per namespace).
netns_pids() {
	local ns paths=() want
	for ns; do
		[ -e "/run/netns/$ns" ] && paths+=("/run/netns/$ns")
	done
	[ ${#paths[@]} -gt 0 ] || return 0
	want=$(stat -L -c %d:%i -- "${paths[@]}" 2>/dev/null) || true
	[ -n "$want" ] || return 0
	{ stat -L -c '%d:%i %n' /proc/[0-9]*/ns/net 2>/dev/null || true; } |
	    awk -v want="$want" 'BEGIN { n = split(want, w, "\n"); for (i = 1; i <= n; i++) ns[w[i]] = 1 }
		$1 in ns { split($2, p, "/"); print p[3] }'
}

# Kill every process in the namespaces named $@, sshd included.
host_kill_all() {
	local pids i ns
	pids=$(netns_pids "$@")
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null || true
	for (( i = 0; i < 100; i++ )); do
		pids=$(netns_pids "$@")
		[ -n "$pids" ] || return 0
		sleep 0.02
	done
	# shellcheck disable=SC2086
	kill -9 $pids 2>/dev/null || true
	for (( i = 0; i < 100; i++ )); do
		[ -n "$(netns_pids "$@")" ] || return 0
		sleep 0.02
	done
	for ns; do
		pids=$(netns_pids "$ns")
		[ -z "$pids" ] || warn "processes left in namespace $ns: $(tr '\n' ' ' <<<"$pids")"
	done
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
	local i first=1 tmp type key
	tmp=$(mktemp "$DIR/.machines.XXXXXX")
	{
		printf '{\n  "user": "%s",\n' "$LAB_USER"
		printf '  "identity_file": "%s",\n' "$DIR/id_ed25519"
		printf '  "known_hosts_file": "%s",\n' "$DIR/known_hosts"
		printf '  "ssh_config_file": "%s",\n' "$DIR/ssh_config"
		printf '  "connect_timeout_seconds": 5,\n'
		printf '  "machines": [\n'
		for (( i = 1; i <= HOSTS; i++ )); do
			[ $first = 1 ] || printf ',\n'
			first=0
			printf '    {"name": "h%s", "address": "%s", "ssh_host": "%s"' \
			    "$i" "${ADDR[i]}" "${ADDR[i]}"
			wan_on && printf ', "site": "%s"' "${SITES[${SITE_OF[i]}]}"
			printf '}'
		done
		printf '\n  ]\n}\n'
	} >"$tmp"
	chmod 0644 "$tmp"
	mv "$tmp" "$DIR/machines.json"

	: >"$DIR/known_hosts.new"
	for (( i = 1; i <= HOSTS; i++ )); do
		read -r type key _ <"$DIR/hosts/h$i/ssh_host_ed25519_key.pub"
		printf '%s %s %s\n' "${ADDR[i]}" "$type" "$key"
	done >"$DIR/known_hosts.new"
	mv "$DIR/known_hosts.new" "$DIR/known_hosts"

	: >"$DIR/ssh_config"
	{
		echo "# OpenSSH client config for lab '$NAME': ssh -F $DIR/ssh_config.openssh h1"
		for (( i = 1; i <= HOSTS; i++ )); do
			echo "Host h$i ${ADDR[i]}"
			echo "  HostName ${ADDR[i]}"
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

	local names="" addrs="" host_sites="" sites="" edges="" s relay_addr="" relay_peer=""
	for (( i = 1; i <= HOSTS; i++ )); do
		names="$names${names:+ }h$i"
		addrs="$addrs${addrs:+ }${ADDR[i]}"
		wan_on && host_sites="$host_sites${host_sites:+ }h$i=${SITES[${SITE_OF[i]}]}"
	done
	wan_on && sites=${SITES[*]}
	for (( s = 1; s < ${#SITES[@]}; s++ )); do
		edges="$edges${edges:+ }${SITES[$s]}=$(edge_text "$s")"
	done
	if relay_on; then
		relay_addr=$(cat "$(relay_dir)/multiaddr")
		relay_peer=$(cat "$(relay_dir)/peer")
	fi
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
LAB_SITE_SPECS='$SITE_SPECS'
LAB_HOME_SPEC='$HOME_SPEC'
LAB_PAIR_SPECS='$PAIR_SPECS'
LAB_SITES='$sites'
LAB_HOST_SITES='$host_sites'
LAB_TOPOLOGY='$(wan_on && echo "$DIR/topology.json")'
LAB_SITE_EDGES='$edges'
LAB_RELAY_SPEC='$RELAY_SPEC'
LAB_RELAY_OTELA='$RELAY_OTELA'
LAB_RELAY='$RELAY_NAME'
LAB_RELAY_ADDR='$relay_addr'
LAB_RELAY_PEER='$relay_peer'
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
	local from=h1 to='' h nf=/proc/sys/net/bridge/bridge-nf-call-iptables
	[ "$HOSTS" -ge 2 ] || return 0
	# h1 opens to the last host anyone may open a connection to (behind a
	# firewall or a NAT, one cannot).
	for (( h = HOSTS; h > 1; h-- )); do
		host_natted "h$h" || host_firewalled "h$h" || { to=h$h; break; }
	done
	if [ -z "$to" ]; then
		host_ping "$from" "$PREFIX.$SUBNET.1" ||
		    die "$from cannot ping this machine ($PREFIX.$SUBNET.1); see: ip netns exec $(netns_of "$from") ip addr"
		return 0
	fi
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
	local h v arg hosts_given=0 slurm=0 proctrack=linuxproc
	HOSTS=4 SUBNET=0 DIR= SITE_SPECS= HOME_SPEC= PAIR_SPECS= RELAY_SPEC= RELAY_OTELA=
	while [ $# -gt 0 ]; do
		case $1 in
		--name) NAME=${2:?--name needs a value}; shift 2 ;;
		--hosts) HOSTS=${2:?--hosts needs a value}; hosts_given=1; shift 2 ;;
		--subnet) SUBNET=${2:?--subnet needs a value}; shift 2 ;;
		--dir) DIR=${2:?--dir needs a value}; shift 2 ;;
		--site)
			[[ ${2:-} =~ ^[^[:space:]]+$ ]] || usage_error "--site needs NAME=N[,KEY=VALUE...]"
			SITE_SPECS="$SITE_SPECS${SITE_SPECS:+ }$2"; shift 2 ;;
		--home)
			[[ ${2:-} =~ ^[^[:space:]]+$ ]] || usage_error "--home needs KEY=VALUE[,...] (like delay=10)"
			HOME_SPEC=$2; shift 2 ;;
		--pair)
			[[ ${2:-} =~ ^[^[:space:]]+$ ]] || usage_error "--pair needs A-B[,KEY=VALUE...] (like a-c,delay=40)"
			PAIR_SPECS="$PAIR_SPECS${PAIR_SPECS:+ }$2"; shift 2 ;;
		--relay)
			[[ ${2:-} =~ ^[^[:space:]]+$ ]] || usage_error "--relay needs NAME[,limited][,delay=MS,...] (like relay)"
			RELAY_SPEC=$2; shift 2 ;;
		--relay-otela)
			[ -n "${2:-}" ] || usage_error "--relay-otela needs the path of an otela binary"
			RELAY_OTELA=$(realpath -m "$2"); shift 2 ;;
		--slurm) slurm=1; shift ;;
		--slurm-proctrack)
			proctrack=${2:-}
			[[ $proctrack =~ ^(linuxproc|cgroup)$ ]] ||
			    usage_error "--slurm-proctrack: '$proctrack' is not linuxproc or cgroup"
			slurm=1; shift 2 ;;
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
	[ -z "$HOME_SPEC" ] || wan_on || usage_error "--home: give the sites too (--site NAME=N,...)"
	[ -z "$PAIR_SPECS" ] || wan_on || usage_error "--pair: give the sites too (--site NAME=N,...)"
	[ -z "$RELAY_OTELA" ] || [ -n "$RELAY_SPEC" ] || usage_error "--relay-otela: give --relay NAME too"
	parse_sites
	parse_relay
	if wan_on && [ $hosts_given = 0 ]; then
		HOSTS=$SITE_HOSTS_TOTAL
	fi
	[[ $HOSTS =~ ^[0-9]{1,3}$ ]] && (( 10#$HOSTS >= 1 && 10#$HOSTS <= 200 )) ||
	    usage_error "--hosts: '$HOSTS' must be a number from 1 to 200"
	if wan_on && (( 10#$HOSTS != SITE_HOSTS_TOTAL )); then
		usage_error "--hosts $HOSTS: the sites hold $SITE_HOSTS_TOTAL hosts"
	fi
	[[ $SUBNET =~ ^[0-9]{1,3}$ ]] && (( 10#$SUBNET <= 255 )) ||
	    usage_error "--subnet: '$SUBNET' must be a number from 0 to 255"
	HOSTS=$(( 10#$HOSTS )) SUBNET=$(( 10#$SUBNET ))
	for h in "${!rate[@]}" "${!delay[@]}"; do
		(( ${h#h} >= 1 && ${h#h} <= HOSTS )) ||
		    usage_error "--rate/--delay: no host '$h' (hosts are h1..h$HOSTS)"
	done
	# a NAT site's gateway takes 198.18.K.(254-S), the relay .254
	local s
	for (( s = 1; s < ${#SITES[@]}; s++ )); do
		if site_nat "$s" && (( 254 - s <= HOSTS + 1 )); then
			usage_error "--site ${SITES[$s]}: its gateway's address 198.18.K.$(( 254 - s )) is a host's (h$(( 253 - s ))): give the NAT sites first or use fewer hosts"
		fi
	done
	[ -n "$DIR" ] || DIR=/tmp/netprof-lab-$NAME
	[ ! -L "$DIR" ] ||
	    die "$DIR is a link: refusing to use it; pick another --dir"
	DIR=$(realpath -m "$DIR")
	require_root
	local d
	local edge_tools=''
	for (( s = 1; s < ${#SITES[@]}; s++ )); do
		[ "${SITE_EDGE[$s]}" = open ] || edge_tools=nft
	done
	for d in ssh-keygen ip tc "$SSHD" $(wan_on && echo vde_switch wirefilter unixcmd) $edge_tools \
	    $(relay_on && echo setpriv); do
		command -v "$d" >/dev/null ||
		    die "$d not found; install the lab's packages: tests/install-deps.sh lab"
	done
	take_lock
	mkdir -p "$STATE"
	chmod 0755 "$STATE"

	local want_dir=$DIR want_subnet=$SUBNET want_hosts=$HOSTS
	local want_sites=$SITE_SPECS want_home=$HOME_SPEC want_pairs=$PAIR_SPECS
	local want_relay=$RELAY_SPEC want_otela=$RELAY_OTELA
	if registry_load; then
		[ "$DIR" = "$want_dir" ] && [ "$SUBNET" = "$want_subnet" ] ||
		    die "lab '$NAME' is already up with --subnet $SUBNET --dir $DIR;" \
		    "take it down first: $PROG down --name $NAME"
		[ "$SITE_SPECS" = "$want_sites" ] ||
		    die "lab '$NAME' is already up with other sites (${SITE_SPECS:-none, a flat bridge});" \
		    "change a link with: $PROG link --name $NAME SITE ..., or take it down first"
		HOSTS=$want_hosts HOME_SPEC=$want_home PAIR_SPECS=$want_pairs
		RELAY_SPEC=$want_relay RELAY_OTELA=$want_otela
		parse_sites
		parse_relay
	fi
	index_hosts
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
	    -v tap="$(site_tap_of 0)" 'index($4, a) == 1 && $2 != br && $2 != tap { print $2; exit }')
	[ -z "$other" ] ||
	    die "198.18.$SUBNET.0/24 is already on interface $other; pick another --subnet"

	if [ ! -e "$DIR" ] && [ ! -L "$DIR" ]; then
		# made here, or refused if another user made it meanwhile
		mkdir -p "$(dirname "$DIR")"
		mkdir -m 0755 "$DIR" || die "$DIR: could not make it; pick another --dir"
	fi
	dir_ours "$DIR" ||
	    die "$DIR is not root's directory (nor the sudo user's): a link, made by another user, or its .netprof-lab a link or another user's; refusing to use it; pick another --dir"
	if [ ! -f "$DIR/.netprof-lab" ] && [ -n "$(ls -A "$DIR")" ]; then
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

	if wan_on; then
		wan_up
	else
		bridge_up
	fi
	edges_up
	hosts_keys
	hosts_net_up
	local i hosts=() stale=()
	for (( i = 1; i <= HOSTS; i++ )); do
		h=h$i
		hosts+=("$h")
		wan_on && host_pairs_up "$h"
		host_qdisc "$h" "${rate[$h]:-}" "${delay[$h]:-}"
		host_edge "$h"
		if host_files "$h" || ! sshd_in_netns "$h"; then
			stale+=("$h")
		fi
	done
	sshd_stop "${stale[@]}"
	sshd_start "${hosts[@]}"
	# Hosts a previous, larger up made.
	local ns
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^np-$NAME-h[0-9]+\$" || true); do
		h=${ns#np-"$NAME"-}
		(( ${h#h} > HOSTS )) || continue
		host_remove "$ns" "$(veth_of "$h")"
		rm -rf "$(hostdir_of "$h")"
	done
	touch "$STATE/$NAME.starting"
	drop_lock
	if relay_on; then
		relay_up
	else
		relay_stop
		ip netns del "$(relay_ns)" 2>/dev/null || true
		rm -rf "$(relay_dir)"
	fi
	sshd_wait "${hosts[@]}"
	write_client_files
	wan_on && write_topology
	take_lock
	rm -f "$STATE/$NAME.starting"
	check_forwarding
	drop_lock
	wan_on && print_topology
	relay_on && echo "relay $RELAY_NAME ($(relay_addr), pid $(relay_pid)$( [ "$RELAY_LIMITED" = 1 ] && echo ', limited')): $(cat "$(relay_dir)/multiaddr")"
	[ $slurm = 0 ] || "$(dirname "$0")/slurm.sh" up --name "$NAME" --proctrack "$proctrack"
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
	local was_up=1
	if ! registry_load; then
		was_up=0
		DIR=
	fi
	# a link is left as it is given: dir_ours refuses it below
	if [ -n "$dir_arg" ]; then
		DIR=$dir_arg
		[ -L "$DIR" ] || DIR=$(realpath -m "$DIR")
	fi
	[ -n "$DIR" ] || DIR=/tmp/netprof-lab-$NAME

	# Every sshd, namespace and link of this lab, whatever the registry
	# says.
	local ns link pf ours=0
	if dir_ours "$DIR"; then
		ours=1
	elif [ -e "$DIR" ] || [ -L "$DIR" ]; then
		warn "$DIR is not root's directory (nor the sudo user's); left alone"
	fi
	if [ $ours = 1 ] && [ $was_up = 1 ] && [ -d "$DIR/slurm" ]; then
		"$(dirname "$0")/slurm.sh" down --name "$NAME" || true
	fi
	local hosts=() nss=() links=()
	for pf in "$DIR"/hosts/h*/sshd.pid; do
		[ $ours = 1 ] || break
		[ -f "$pf" ] || continue
		pf=${pf%/sshd.pid}
		hosts+=("${pf##*/}")
	done
	sshd_stop "${hosts[@]}"
	[ $ours = 0 ] || relay_stop
	# every process in them killed at once, then the namespaces removed
	# and the links in one `ip -batch` each
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^np-$NAME-(h[0-9]+|g[0-9]+|relay)\$" || true); do
		nss+=("$ns")
	done
	host_kill_all "${nss[@]}"
	[ ${#nss[@]} -eq 0 ] || printf 'netns del %s\n' "${nss[@]}" | ip -batch -
	[ $ours = 0 ] || wan_down
	for link in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' |
	    grep -E "^(np-$NAME-[0-9]+|npbr-$NAME|np[bw]-$NAME-([0-9]+|r)|np[uv]-$NAME-[1-9][ab]|q[1-9]-$NAME-[0-9]+|npi-$NAME-[0-9]+|n[gi]-$NAME-[0-9]+|nr-$NAME)\$" || true); do
		links+=("$link")
	done
	[ ${#links[@]} -eq 0 ] || printf 'link del %s\n' "${links[@]}" | ip -force -batch - >/dev/null 2>&1 || true
	if [ $ours = 1 ] && [ -f "$DIR/.netprof-lab" ]; then
		rm -rf "$DIR"
	elif [ $ours = 1 ] && [ -d "$DIR" ]; then
		warn "$DIR is not a lab directory (no .netprof-lab); left alone"
	fi
	take_lock
	rm -f "$(registry_of)" "$STATE/$NAME.authorized_keys" "$STATE/$NAME.starting"
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
	compgen -G "$STATE/*.starting" >/dev/null && return 0
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
		sshd_pid "$h"
		pid=$PID
		if [ -n "$pid" ]; then state="sshd running (pid $pid)"; else state="sshd stopped"; fi
		q=$(tc -n "$ns" qdisc show dev eth0 2>/dev/null | awk 'NR==1 {print $2}')
		echo "  $h $(addr_of "$h")  $state  qdisc ${q:-none}${SITE_OF[${h#h}]:+  site ${SITES[${SITE_OF[${h#h}]:-0}]}}"
	done
	if wan_on; then
		local i info
		echo "site links (wirefilter, left = site, right = core):"
		for (( i = 0; i < ${#SITES[@]}; i++ )); do
			if [ -z "$(wan_pid "$(wan_dir)/wf$i.pid" wirefilter)" ]; then
				echo "  ${SITES[$i]}: wirefilter not running"
				bad=1
				continue
			fi
			info=$(wf_show "$i" | { grep -aE '^(Loss|Delay|Bandw) ' || true; } | tr -s ' ' | paste -sd';' -)
			echo "  ${SITES[$i]}:${info}  edge $(edge_text "$i")"
		done
		for (( i = 1; i < ${#SITES[@]}; i++ )); do
			site_nat "$i" || continue
			if [ -e "/run/netns/$(gw_ns_of "$i")" ]; then
				echo "  gw-${SITES[$i]}: gateway $(gw_addr_of "$i"), nat=${SITE_EDGE[$i]}"
			else
				echo "  gw-${SITES[$i]}: gateway's namespace $(gw_ns_of "$i") missing"
				bad=1
			fi
		done
		(( ${#PAIR_A[@]} == 0 )) || echo "pair paths (wirefilter, left = first site):"
		for (( i = 1; i <= ${#PAIR_A[@]}; i++ )); do
			if [ -z "$(wan_pid "$(wan_dir)/wfq$i.pid" wirefilter)" ]; then
				echo "  $(wf_label "q$i"): wirefilter not running"
				bad=1
				continue
			fi
			info=$(wf_show "q$i" | { grep -aE '^(Loss|Delay|Bandw) ' || true; } | tr -s ' ' | paste -sd';' -)
			echo "  ${SITES[${PAIR_A[$i]}]}-${SITES[${PAIR_B[$i]}]}:${info}"
		done
	fi
	if relay_on; then
		pid=$(relay_pid)
		if [ -n "$pid" ]; then
			echo "relay $RELAY_NAME: running (pid $pid)$( [ "$RELAY_LIMITED" = 1 ] && echo ', limited'): $(cat "$(relay_dir)/multiaddr")"
		else
			echo "relay $RELAY_NAME: not running (log: $(relay_dir)/log)"
			bad=1
		fi
	fi
	return $bad
}

# lab.sh link SITE|A-B [delay MS] [jitter MS] [loss PCT] [rate RATE]:
# change a site's link, or a pair's path, now; what is not named keeps its
# value.
cmd_link() {
	parse_small "$@"
	require_lab
	wan_on || die "lab '$NAME' has no sites (bring it up with --site)"
	[ ${#ARGS[@]} -ge 1 ] || usage_error "link: expected SITE or A-B, then [delay MS] [jitter MS] [loss PCT] [rate RATE]"
	local site=${ARGS[0]} i k v spec="" delay jitter loss rate a b p key pid
	if [[ $site =~ ^([a-z0-9]{1,8})-([a-z0-9]{1,8})$ ]]; then
		a=$(site_index "${BASH_REMATCH[1]}") && b=$(site_index "${BASH_REMATCH[2]}") && p=$(pair_of "$a" "$b") ||
		    usage_error "link: no pair '$site' in lab '$NAME' (pairs: $(for (( i = 1; i <= ${#PAIR_A[@]}; i++ )); do printf '%s ' "${SITES[${PAIR_A[$i]}]}-${SITES[${PAIR_B[$i]}]}"; done)(give one with up --pair A-B,...))"
		key=q$p pid=wfq$p
	elif relay_on && [ "$site" = "$RELAY_NAME" ]; then
		key=r pid=wfr
	else
		i=$(site_index "$site") ||
		    usage_error "link: no site '$site' in lab '$NAME' (sites: ${SITES[*]}${RELAY_NAME:+; relay: $RELAY_NAME})"
		key=$i pid=wf$i
	fi
	# The current values: what the last change wrote, else what up set.
	read -r delay jitter loss rate <<<"$(link_of "$key")"
	[ -f "$(wan_dir)/$(wf_key "$key").link" ] && read -r delay jitter loss rate <"$(wan_dir)/$(wf_key "$key").link"
	set -- "${ARGS[@]:1}"
	[ $# -ge 2 ] || usage_error "link $site: expected KEY VALUE pairs (delay, jitter, loss, rate)"
	while [ $# -gt 0 ]; do
		k=$1 v=${2:-}
		[ -n "$v" ] || usage_error "link $site: $k needs a value"
		[ "$k" = rate ] && [ "$v" = 0 ] && v=0bit
		spec="$spec${spec:+,}$k=$v"
		shift 2
	done
	# The named keys over the current ones.
	local cur="$delay $jitter $loss $rate" new nd nj nl nr
	case $key in
	q*) parse_link_spec "$p" "$spec" "link $site" pair; new=${PAIR_LINK[$p]} ;;
	r) parse_link_spec r "$spec" "link $site" relay; new=$RELAY_LINK ;;
	*) parse_link_spec "$i" "$spec" "link $site"; new=${SITE_LINK[$i]} ;;
	esac
	read -r nd nj nl nr <<<"$new"
	read -r delay jitter loss rate <<<"$cur"
	[[ $spec == *delay=* ]] && delay=$nd
	[[ $spec == *jitter=* ]] && jitter=$nj
	[[ $spec == *loss=* ]] && loss=$nl
	[[ $spec == *rate=* ]] && rate=$nr
	case $key in
	q*) PAIR_LINK[$p]="$delay $jitter $loss $rate" ;;
	r) RELAY_LINK="$delay $jitter $loss $rate" ;;
	*) SITE_LINK[$i]="$delay $jitter $loss $rate" ;;
	esac
	# No machine-wide lock: only this lab's wirefilter is touched, and a
	# cut must land mid-sweep, not after other labs' ups and downs.
	[ -n "$(wan_pid "$(wan_dir)/$pid.pid" wirefilter)" ] ||
	    die "$(wf_label "$key"): its wirefilter is not running (repair with: $PROG up ...)"
	wf_apply "$key"
	echo "link $site: delay $delay ms, jitter $jitter ms, loss $loss%, rate $(rate_text "$rate")"
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
	local h=${ARGS[0]} i
	if relay_on && [ "$h" = "$RELAY_NAME" ]; then
		exec ip netns exec "$(relay_ns)" "${ARGS[@]:2}"
	fi
	if [[ $h == gw-* ]]; then
		i=$(site_index "${h#gw-}") && site_nat "$i" ||
		    usage_error "run: no NAT site '${h#gw-}' in lab '$NAME' (gw-SITE is a NAT site's gateway)"
		exec ip netns exec "$(gw_ns_of "$i")" "${ARGS[@]:2}"
	fi
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
link) cmd_link "$@" ;;
-h|--help|help) usage ;;
"") usage >&2; exit 2 ;;
*) usage_error "unknown command '$COMMAND'" ;;
esac
