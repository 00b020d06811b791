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
	double iperf_server_bound;	/* seconds: the iperf3 server ends by
					   itself within it; 0: not bounded */
};

/* "LC_ALL=C ping -c COUNT -i INTERVAL ADDRESS" (new string; NULL: ENOMEM) */
char *probe_ping_command(const struct probe_settings *ps, const char *address);

/*
 * The one-off iperf3 server: serves one test and exits; --forceflush so
 * that PROBE_IPERF3_READY reaches us as soon as it listens. With
 * ps->iperf_server_bound it also exits if no client has come within it
 * (--idle-timeout), so a server whose netprof died never waits forever.
 */
char *probe_iperf3_server_command(const struct probe_settings *ps);

/* The bound for ps->iperf_server_bound: the client's connect slack. */
double probe_iperf3_server_bound(const struct probe_settings *ps,
    double connect_timeout);

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
