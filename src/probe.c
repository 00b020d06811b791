/*
 * Building probe commands. The words are joined with shell_join(), which
 * quotes any word that is not plainly safe, so an inventory address can
 * never become shell syntax on the remote side.
 */
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"
#include "shell.h"

static char *
join(char **argv, int argc)
{
	return shell_join(argv, (size_t)argc);
}

char *
probe_ping_command(const struct probe_settings *ps, const char *address)
{
	char count[16], interval[32];
	char *argv[] = { "LC_ALL=C", "ping", "-c", count, "-i", interval,
	    (char *)address };

	snprintf(count, sizeof count, "%d", ps->ping_count);
	snprintf(interval, sizeof interval, "%g", ps->ping_interval);
	return join(argv, 7);
}

char *
probe_iperf3_server_command(const struct probe_settings *ps)
{
	char port[16], idle[16];
	char *argv[] = { "LC_ALL=C", "iperf3", "-s", "-1", "-p", port,
	    "--forceflush", "--idle-timeout", idle };

	snprintf(port, sizeof port, "%d", ps->iperf_port);
	snprintf(idle, sizeof idle, "%d", (int)(ps->iperf_server_bound + 0.999));
	return join(argv, ps->iperf_server_bound > 0 ? 9 : 7);
}

/*
 * The client is started when the server listens; it may first need its
 * host's session (connect_timeout) and a channel: the same slack as a
 * probe's own timeout.
 */
double
probe_iperf3_server_bound(const struct probe_settings *ps,
    double connect_timeout)
{
	(void)ps;
	return connect_timeout + 10.0;
}

char *
probe_iperf3_client_command(const struct probe_settings *ps,
    const char *address)
{
	char port[16], secs[16];
	char *argv[] = { "LC_ALL=C", "iperf3", "-c", (char *)address, "-p",
	    port, "-t", secs, "-J" };

	snprintf(port, sizeof port, "%d", ps->iperf_port);
	snprintf(secs, sizeof secs, "%d", ps->iperf_seconds);
	return join(argv, 9);
}

double
probe_ping_timeout(const struct probe_settings *ps, double connect_timeout)
{
	return ps->ping_count * (ps->ping_interval > 0 ? ps->ping_interval :
	    1.0) + connect_timeout + 5.0;
}

double
probe_iperf3_timeout(const struct probe_settings *ps, double connect_timeout)
{
	return ps->iperf_seconds + connect_timeout + 10.0;
}
