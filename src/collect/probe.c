/*
 * Building probe commands. The words are joined with shell_join(), which
 * quotes any word that is not plainly safe, so an inventory address can
 * never become shell syntax on the remote side.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "inventory.h"
#include "probe.h"
#include "record_schema.h"
#include "shell.h"

static char *
join(char **argv, int argc)
{
	return shell_join(argv, (size_t)argc);
}

const char *
probe_kind_name(enum probe_kind kind)
{
	return kind == PROBE_IPERF3 ? RECORD_KIND_IPERF3 : RECORD_KIND_PING;
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
	char port[16], bound[16];
	char *argv[] = { "LC_ALL=C", "timeout", "--foreground", "-k", "5",
	    bound, "iperf3", "-s", "-p", port, "-i", "0", "--forceflush" };

	char *one_off[] = { "LC_ALL=C", "iperf3", "-s", "-1", "-p", port,
	    "--forceflush", "--idle-timeout", bound };

	snprintf(port, sizeof port, "%d", ps->iperf_port);
	snprintf(bound, sizeof bound, "%d", (int)(ps->iperf_server_bound +
	    0.999));
	if (!ps->iperf_server_keep)
		return join(one_off, ps->iperf_server_bound > 0 ? 9 : 7);
	if (ps->iperf_server_bound > 0)
		return join(argv, 13);
	return join(argv + 6, 7);
}

/* The longest a server lives: a killed run's servers stay at most this. */
#define SERVER_LIFE_MAX_S 300.0

double
probe_iperf3_server_bound(const struct probe_settings *ps,
    double connect_timeout, size_t n_rounds)
{
	double phase = (double)n_rounds * (ps->iperf_seconds + 2) +
	    connect_timeout + 10;
	double two = 2 * probe_iperf3_timeout(ps, connect_timeout);

	if (!ps->iperf_server_keep)
		return connect_timeout + 10;
	if (phase > SERVER_LIFE_MAX_S)
		phase = SERVER_LIFE_MAX_S;
	return phase > two ? phase : two;
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

const struct option_spec probe_option_specs[] = {
	{ .name = "ping-count", .type = OPTION_INT,
	  .offset = offsetof(struct probe_options, ping_count), .arg = "N",
	  .bounds = &bounds_ping_count,
	  .help = "override the inventory's ping_count" },
	{ .name = "ping-interval", .type = OPTION_SECONDS,
	  .offset = offsetof(struct probe_options, ping_interval), .arg = "S",
	  .bounds = &bounds_ping_interval,
	  .help = "override ping_interval (seconds)" },
	{ .name = "iperf-seconds", .type = OPTION_INT,
	  .offset = offsetof(struct probe_options, iperf_seconds), .arg = "N",
	  .bounds = &bounds_iperf_seconds,
	  .help = "override iperf_seconds" },
	{ .name = "iperf-port", .type = OPTION_INT,
	  .offset = offsetof(struct probe_options, iperf_port), .arg = "P",
	  .bounds = &bounds_port, .what = "a TCP port",
	  .help = "override iperf_port" },
	{ .name = NULL }
};

void
probe_settings_init(struct probe_settings *ps, const struct probe_options *o,
    const struct inventory *inv)
{
	memset(ps, 0, sizeof *ps);
	ps->ping_count = o->ping_count > 0 ? o->ping_count : inv->ping_count;
	ps->ping_interval = o->ping_interval > 0 ? o->ping_interval :
	    inv->ping_interval;
	ps->iperf_seconds = o->iperf_seconds > 0 ? o->iperf_seconds :
	    inv->iperf_seconds;
	ps->iperf_port = o->iperf_port > 0 ? o->iperf_port : inv->iperf_port;
}
