/*
 * The shell commands a probe runs on the hosts. Each forces LC_ALL=C so
 * that the parsers see the same words and decimal points on every host,
 * and every interpolated value is shell-quoted (shell.h).
 */
#ifndef NETPROF_PROBE_H
#define NETPROF_PROBE_H

#include <stdio.h>

#include "schedule.h"

/* What the iperf3 server prints (with --forceflush) once it listens. */
#define PROBE_IPERF3_READY "Server listening on"

struct probe_settings {
	int ping_count;
	double ping_interval;	/* seconds */
	int iperf_seconds;
	int iperf_port;
};

/* "LC_ALL=C ping -c COUNT -i INTERVAL ADDRESS" (new string; NULL: ENOMEM) */
char *probe_ping_command(const struct probe_settings *ps, const char *address);

/*
 * The one-off iperf3 server: serves one test and exits; --forceflush so
 * that PROBE_IPERF3_READY reaches us as soon as it listens.
 */
char *probe_iperf3_server_command(const struct probe_settings *ps);

/* The iperf3 client towards address, JSON report on stdout. */
char *probe_iperf3_client_command(const struct probe_settings *ps,
    const char *address);

/* Seconds a probe may take before it is killed (its own run time plus
   connect_timeout as slack). */
double probe_ping_timeout(const struct probe_settings *ps,
    double connect_timeout);
double probe_iperf3_timeout(const struct probe_settings *ps,
    double connect_timeout);

/* Plans: what collect would run, for plan and collect --dry-run. */
struct inventory;

/*
 * Targets of one fan-out command by default: a host never runs more than
 * this many pings at once, and with N-1 above it a sweep takes
 * ceil((N-1)/fanout) ping durations.
 */
#define PLAN_DEFAULT_FANOUT 256

struct plan_options {
	int iperf;		/* include the iperf3 phase */
	int rounds;		/* ping in shift rounds, one probe per host */
	int serial;		/* one pair at a time, as upstream */
	int max_channels;	/* per-host cap; 0: the engine's default */
	int json;		/* JSON rows instead of text */
	int fanout;		/* targets per fan-out command; 0: default;
				   -1: off (one channel per probe) */
	int duplex;		/* iperf3 in duplex shift rounds */
	int ping_tool;		/* enum fanout_tool */
};

/* Targets per fan-out command, or 0 when pings run one per channel. */
size_t plan_fanout(const struct plan_options *o);

/* getopt codes of the options plan and collect share. */
#define PLAN_OPT_FANOUT 0x101
#define PLAN_OPT_IPERF_MODE 0x102
#define PLAN_OPT_PING_TOOL 0x103

/* Parse --fanout, --iperf-mode, --ping-tool, --max-channels ('m') into o;
   a usage error is reported (and NP_EXIT_USAGE returned). */
struct cmd_entry;
int plan_parse_option(const struct cmd_entry *self, int ch, const char *arg,
    struct plan_options *o);

/* "exclusive" or "duplex", as records name the iperf3 mode. */
const char *plan_iperf_mode(const struct plan_options *o);

/* Build the ping (and iperf3) schedules collect runs for inv. */
int plan_schedules(const struct inventory *inv, const struct plan_options *o,
    struct schedule **ping, struct schedule **iperf3);

/* Print the plan: rounds and per-pair commands (text or JSON). */
int plan_write(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o);

#endif
