/*
 * The shell commands a probe runs on the hosts. Each forces LC_ALL=C so
 * that the parsers see the same words and decimal points on every host,
 * and every interpolated value is shell-quoted (shell.h).
 */
#ifndef NETPROF_PROBE_H
#define NETPROF_PROBE_H

#include <stdio.h>

#include "option.h"
#include "schedule.h"

/* What the iperf3 server prints (with --forceflush) once it listens. */
#define PROBE_IPERF3_READY "Server listening on"

struct probe_settings {
	int ping_count;
	double ping_interval;	/* seconds */
	int iperf_seconds;
	int iperf_port;
	int iperf_server_keep;		/* one server per host for the phase
					   (duplex), not one per test */
	double iperf_server_bound;	/* seconds: the iperf3 server ends by
					   itself within it; 0: not bounded */
};

/*
 * What the command line may set of a probe's settings (0: the
 * inventory's), and their block of a command's table (option.h):
 * --ping-count, --ping-interval, --iperf-seconds, --iperf-port.
 */
struct probe_options {
	int ping_count;
	double ping_interval;
	int iperf_seconds;
	int iperf_port;
};
extern const struct option_spec probe_option_specs[];

struct inventory;
/* The settings of a run: o's where given, else inv's; the rest cleared. */
void probe_settings_init(struct probe_settings *ps,
    const struct probe_options *o, const struct inventory *inv);

/* "ping" or "iperf3", as in records. */
const char *probe_kind_name(enum probe_kind kind);

/* "LC_ALL=C ping -c COUNT -i INTERVAL ADDRESS" (new string; NULL: ENOMEM) */
char *probe_ping_command(const struct probe_settings *ps, const char *address);

/*
 * The iperf3 server; --forceflush so that each PROBE_IPERF3_READY reaches
 * us as soon as it listens.
 * One-off (-1), one per test: ps->iperf_server_bound is its
 * --idle-timeout, so one no client comes to exits by itself.
 * Kept (ps->iperf_server_keep), one per host for a phase's tests, one test
 * at a time, -i 0 so that it says little beyond its ready lines: GNU
 * timeout ends it within ps->iperf_server_bound (TERM, KILL 5 s later).
 * --foreground keeps timeout in the command's process group, which is
 * what a cancelled command's KILL reaches.
 * Either way a server whose netprof died does not stay.
 */
char *probe_iperf3_server_command(const struct probe_settings *ps);

/*
 * The bound for a phase of n_rounds iperf3 rounds. One-off: the client's
 * connect slack. Kept: about the phase's length (a round is a test and its
 * start), at most 300 s, and at least two tests with their connect slack;
 * a server near its bound is replaced (collect), so the bound caps how
 * long a killed run's server stays, not how long a phase may take.
 */
double probe_iperf3_server_bound(const struct probe_settings *ps,
    double connect_timeout, size_t n_rounds);

/* The iperf3 client towards address, JSON report on stdout. */
char *probe_iperf3_client_command(const struct probe_settings *ps,
    const char *address);

/* Seconds a probe may take before it is killed (its own run time plus
   connect_timeout as slack). */
double probe_ping_timeout(const struct probe_settings *ps,
    double connect_timeout);
double probe_iperf3_timeout(const struct probe_settings *ps,
    double connect_timeout);

#endif
