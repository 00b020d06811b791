#!/usr/bin/env bash
# A real Slurm cluster on a netprof lab: one munged and one slurmctld on the
# lab's bridge address, one slurmd per lab host inside the host's network
# namespace (its own NodeName hI and NodeAddr, the host's address), so job
# steps run where the host's sshd runs. Debian's slurmd runs several per
# machine with -N NODE; its spool, pid and log files are per node (%n). It
# is brought up on a lab that is up (lab.sh up --slurm calls it) and taken
# down by PID (lab.sh down calls it). Run `slurm.sh --help` for the commands.
set -euo pipefail

PROG=slurm.sh
STATE=/run/netprof-lab
# Debian installs the daemons as *-wlm behind alternatives' links; PIDs are
# checked against the real files.
SLURMD=$(readlink -f /usr/sbin/slurmd)
SLURMCTLD=$(readlink -f /usr/sbin/slurmctld)
SLURMSTEPD=$(readlink -f /usr/sbin/slurmstepd)
MUNGED=$(readlink -f /usr/sbin/munged)

usage() {
	cat <<EOF
usage: $PROG COMMAND [--name NAME] [--proctrack linuxproc|cgroup]

A Slurm cluster on lab NAME (default: lab), which must be up: munged and
slurmctld on the bridge (198.18.K.1, port 17000+K), a slurmd per lab host in
its namespace (NodeName hI, NodeAddr its address, partition "lab").
Needs root. Files go to the lab's DIR/slurm; DIR/slurm/slurm.env sets
SLURM_CONF for sinfo, salloc, srun and netprof.

--proctrack (up): how slurmd tracks a step's processes: linuxproc (the
default: by parent PID, what a step leaves behind lives on) or cgroup (a
freezer cgroup per step, all of it ended with the step, as on most
production clusters; needs the machine's cgroup v1 freezer hierarchy).

commands:
  up       start (or verify) the cluster and wait until every node is idle
  down     cancel every job, stop every slurmd, slurmstepd, slurmctld and
           munged of the lab by PID, remove DIR/slurm
  status   sinfo of the cluster, and its daemons' PIDs
  drain HOST REASON   drain node HOST with REASON (scontrol update)
  resume HOST         make HOST usable again
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

# Load the lab's registry (lab.sh writes it): LAB_DIR, LAB_SUBNET, ...
lab_load() {
	[[ $NAME =~ ^[a-z0-9]{1,8}$ ]] ||
	    usage_error "--name: '$NAME' must be 1-8 lower-case letters or digits"
	[ "$(id -u)" -eq 0 ] || die "must be run as root"
	[ -f "$STATE/$NAME.env" ] ||
	    die "lab '$NAME' is not up (start it with: lab.sh up --name $NAME --slurm)"
	# shellcheck disable=SC1090
	. "$STATE/$NAME.env"
	SD=$LAB_DIR/slurm
	# munged wants every directory above its socket open to all, which
	# a lab directory under a private one (mktemp -d) is not.
	MS=$STATE/$LAB_NAME.munge
	export SLURM_CONF=$SD/slurm.conf
}

# Pid in file $1 if it is a running $2, else nothing.
pid_of() {
	local pid
	[ -f "$1" ] || return 0
	pid=$(cat "$1" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$2" ] || return 0
	echo "$pid"
}

# Stop the processes $@: TERM, up to 5 s, then KILL.
stop_pids() {
	local i p left
	[ $# -gt 0 ] || return 0
	kill "$@" 2>/dev/null || true
	for (( i = 0; i < 250; i++ )); do
		left=()
		for p in "$@"; do
			[ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] &&
			    left+=("$p")
		done
		[ ${#left[@]} -eq 0 ] && return 0
		sleep 0.02
	done
	kill -9 "${left[@]}" 2>/dev/null || true
}

conf_text() {
	local h i=0 cpus
	cpus=$(nproc)
	cat <<EOF
# Slurm of lab '$LAB_NAME' (written by slurm.sh up)
ClusterName=np$LAB_NAME
SlurmctldHost=np-$LAB_NAME-ctl(198.18.$LAB_SUBNET.1)
SlurmctldPort=$(( 17000 + LAB_SUBNET ))
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MS/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SD/ctld/state
SlurmctldPidFile=$SD/ctld/slurmctld.pid
SlurmctldLogFile=$SD/ctld/slurmctld.log
SlurmdSpoolDir=$SD/nodes/%n/spool
SlurmdPidFile=$SD/nodes/%n/slurmd.pid
SlurmdLogFile=$SD/nodes/%n/slurmd.log
ProctrackType=proctrack/$PROCTRACK
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=30
EOF
	for h in $LAB_HOSTS; do
		i=$(( i + 1 ))
		echo "NodeName=$h NodeAddr=$(echo "$LAB_ADDRS" | cut -d' ' -f$i) CPUs=$cpus State=UNKNOWN"
	done
	echo "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
}

munged_up() {
	[ -n "$(pid_of "$SD/munge/munged.pid" "$MUNGED")" ] && return 0
	# munged checks permissions: the key's directory private, the
	# socket's open to all.
	mkdir -p "$SD/munge" "$SD/munge-key" "$MS"
	chmod 0755 "$MS"
	chmod 0700 "$SD/munge-key"
	if [ ! -f "$SD/munge-key/munge.key" ]; then
		dd if=/dev/urandom of="$SD/munge-key/munge.key" bs=1024 count=1 2>/dev/null
		chmod 0400 "$SD/munge-key/munge.key"
	fi
	"$MUNGED" --socket="$MS/munge.sock" \
	    --key-file="$SD/munge-key/munge.key" \
	    --pid-file="$SD/munge/munged.pid" --log-file="$SD/munge/munged.log" \
	    --seed-file="$SD/munge-key/munged.seed" ||
	    die "munged did not start (log: $SD/munge/munged.log)"
}

# slurmctld checks that the machine's name is its SlurmctldHost, and slurmd
# its node's: each runs in a UTS namespace of its own under that name.
ctld_up() {
	[ -n "$(pid_of "$SD/ctld/slurmctld.pid" "$SLURMCTLD")" ] && return 0
	mkdir -p "$SD/ctld/state"
	unshare --uts sh -c 'hostname "$1" && exec "$2" -f "$3"' sh \
	    "np-$LAB_NAME-ctl" "$SLURMCTLD" "$SLURM_CONF" ||
	    die "slurmctld did not start (log: $SD/ctld/slurmctld.log)"
}

# ip netns exec gives the node a mount namespace with a sysfs of its own,
# which has no cgroup hierarchies: proctrack/cgroup's slurmd gets the
# machine's freezer hierarchy mounted there again (the same hierarchy: the
# steps' cgroups are the machine's).
slurmd_up() {
	local h=$1 mounts=:
	[ -n "$(pid_of "$SD/nodes/$h/slurmd.pid" "$SLURMD")" ] && return 0
	mkdir -p "$SD/nodes/$h/spool"
	[ "$PROCTRACK" = cgroup ] &&
	    mounts='mount -t tmpfs -o mode=0755 cgroup /sys/fs/cgroup && mkdir /sys/fs/cgroup/freezer && mount -t cgroup -o freezer freezer /sys/fs/cgroup/freezer'
	ip netns exec "np-$LAB_NAME-$h" unshare --uts sh -c \
	    "$mounts"' && hostname "$1" && exec "$2" -f "$3" -N "$1"' sh "$h" "$SLURMD" "$SLURM_CONF" ||
	    die "$h: slurmd did not start (log: $SD/nodes/$h/slurmd.log)"
}

# Until sinfo shows every node idle (or mixed/allocated: up and usable).
wait_idle() {
	local i out want
	want=$(echo "$LAB_HOSTS" | wc -w)
	for (( i = 0; i < 300; i++ )); do
		out=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 ~ /^(idle|mix|alloc)$/' | wc -l) || true
		[ "$out" = "$want" ] && return 0
		sleep 0.1
	done
	sinfo -N >&2 || true
	die "not every node became idle in 30 s (logs: $SD/nodes/<host>/slurmd.log, $SD/ctld/slurmctld.log)"
}

cmd_up() {
	local d h new
	for d in "$SLURMD" "$SLURMCTLD" "$MUNGED" /usr/bin/sinfo /usr/bin/srun; do
		[ -x "$d" ] || die "$d not found; install the lab's packages: tests/install-deps.sh lab"
	done
	[ "$PROCTRACK" = linuxproc ] || [ -w /sys/fs/cgroup/freezer/cgroup.procs ] ||
	    die "--proctrack cgroup needs the cgroup v1 freezer hierarchy at /sys/fs/cgroup/freezer, writable (not there)" 
	mkdir -p "$SD"
	chmod 0755 "$SD"
	new=$(conf_text)
	if [ ! -f "$SLURM_CONF" ] || [ "$(cat "$SLURM_CONF")" != "$new" ]; then
		printf '%s\n' "$new" >"$SLURM_CONF"
		# The machine's cgroup v1 hierarchies are mounted under a tmpfs,
		# which slurmd's autodetection does not take for cgroups.
		printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\nCgroupAutomount=no\n' \
		    >"$SD/cgroup.conf"
	fi
	cat >"$SD/slurm.env" <<EOF
# Slurm of lab '$LAB_NAME' (written by slurm.sh up); source it from a shell
export SLURM_CONF='$SLURM_CONF'
EOF
	munged_up
	ctld_up
	for h in $LAB_HOSTS; do
		slurmd_up "$h"
	done
	wait_idle
	echo "slurm of lab '$LAB_NAME' is up: nodes $LAB_HOSTS in partition lab"
	echo "  . $SD/slurm.env; salloc -N 2"
}

cmd_down() {
	local h ns p pids=()
	[ -d "$SD" ] || { rm -rf "$MS"; return 0; }
	if [ -n "$(pid_of "$SD/ctld/slurmctld.pid" "$SLURMCTLD")" ]; then
		squeue -h -o %i 2>/dev/null | xargs -r scancel --quiet 2>/dev/null || true
	fi
	for h in $LAB_HOSTS; do
		p=$(pid_of "$SD/nodes/$h/slurmd.pid" "$SLURMD")
		[ -n "$p" ] && pids+=("$p")
		ns=np-$LAB_NAME-$h
		[ -e "/run/netns/$ns" ] || continue
		# The steps' slurmstepd (and under them the steps) of this node.
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$SLURMSTEPD" ] && pids+=("$p")
		done
	done
	stop_pids "${pids[@]}"
	p=$(pid_of "$SD/ctld/slurmctld.pid" "$SLURMCTLD")
	[ -n "$p" ] && stop_pids "$p"
	p=$(pid_of "$SD/munge/munged.pid" "$MUNGED")
	[ -n "$p" ] && stop_pids "$p"
	# proctrack/cgroup: the nodes' freezer cgroups, empty once the
	# steps are gone, leaves first
	if grep -q '^ProctrackType=proctrack/cgroup' "$SLURM_CONF" 2>/dev/null; then
		for h in $LAB_HOSTS; do
			[ -d "/sys/fs/cgroup/freezer/slurm_$h" ] &&
			    find "/sys/fs/cgroup/freezer/slurm_$h" -depth -type d -exec rmdir {} \; 2>/dev/null
		done
	fi
	rm -rf "$SD" "$MS"
	echo "slurm of lab '$LAB_NAME' is down"
}

cmd_status() {
	local h
	echo "slurmctld: $(pid_of "$SD/ctld/slurmctld.pid" "$SLURMCTLD") munged: $(pid_of "$SD/munge/munged.pid" "$MUNGED")"
	for h in $LAB_HOSTS; do
		echo "$h slurmd: $(pid_of "$SD/nodes/$h/slurmd.pid" "$SLURMD")"
	done
	sinfo -N
}

# The daemons must not inherit what our caller holds open: lab.sh's lock on
# fd 9 would be held by munged for as long as the lab runs. (Descriptors 10
# and up are bash's own; a shell script's are 3-9.)
for fd in 3 4 5 6 7 8 9; do
	eval "exec $fd>&-"
done

NAME=lab
PROCTRACK=linuxproc
COMMAND=${1:-}
[ $# -gt 0 ] && shift
ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--name) NAME=${2:?--name needs a value}; shift 2 ;;
	--proctrack)
		PROCTRACK=${2:-}
		[[ $PROCTRACK =~ ^(linuxproc|cgroup)$ ]] ||
		    usage_error "--proctrack: '$PROCTRACK' is not linuxproc or cgroup"
		shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) ARGS+=("$1"); shift ;;
	esac
done
case $COMMAND in
up|down|status)
	[ ${#ARGS[@]} -eq 0 ] || usage_error "$COMMAND: unexpected argument '${ARGS[0]}'"
	lab_load
	"cmd_$COMMAND" ;;
drain)
	[ ${#ARGS[@]} -eq 2 ] || usage_error "drain: expected HOST REASON"
	lab_load
	scontrol update "NodeName=${ARGS[0]}" State=DRAIN "Reason=${ARGS[1]}" ;;
resume)
	[ ${#ARGS[@]} -eq 1 ] || usage_error "resume: expected HOST"
	lab_load
	scontrol update "NodeName=${ARGS[0]}" State=RESUME ;;
-h|--help|help) usage ;;
"") usage >&2; exit 2 ;;
*) usage_error "unknown command '$COMMAND'" ;;
esac
