/*
 * The iperf3 kind: a client on the source (`iperf3 -c ADDRESS -J`, its
 * report read by iperf_parse.c) against a server on the target, one-off
 * (`-s -1`, one per test) or kept for a phase's tests (duplex), each
 * ending by itself within a bound, so a server whose netprof died does
 * not stay. Its own settings (its row's options): parallel streams (-P,
 * the report's sums are theirs) and the reverse direction (-R: the target
 * sends, the source receives), both in its records' config. The words are
 * shell_join()ed, every value quoted where need be; LC_ALL=C as for every
 * probe.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "error.h"
#include "iperf_parse.h"
#include "json_write.h"
#include "option.h"
#include "probe.h"
#include "probe_kind.h"
#include "record.h"
#include "shell.h"

/* Its functions are its row's in the kinds' table (probe_kind.c). */

/* Its own settings; zero is iperf3's default (one stream, forward). */
struct iperf3_values {
	int streams;		/* -P N; 0: one */
	int reverse;		/* -R */
};
_Static_assert(sizeof(struct iperf3_values) <= PROBE_VALUES_MAX,
    "iperf3's values outgrow their slot");

/* iperf3's own limit of -P */
static const struct bounds streams_bounds = { 1, 128 };

const struct option_spec probe_iperf3_option_specs[] = {
	{ .name = "iperf-streams", .type = OPTION_INT,
	  .offset = offsetof(struct iperf3_values, streams), .arg = "N",
	  .bounds = &streams_bounds,
	  .help = "iperf3: N parallel TCP streams (-P), their sum\n"
	  "recorded (default 1)" },
	{ .name = "iperf-reverse", .type = OPTION_FLAG,
	  .offset = offsetof(struct iperf3_values, reverse),
	  .help = "iperf3: the target sends and the source receives\n"
	  "(-R, the reverse direction from the same client)" },
	{ .name = NULL }
};

static const struct iperf3_values *
values(const struct probe_settings *ps)
{
	return probe_values(ps, probe_iperf3_option_specs);
}

/* The records' config: both settings, when either is not the default. */
int
probe_iperf3_config(const struct probe_settings *ps, cJSON *config)
{
	const struct iperf3_values *v = values(ps);

	if (v->streams <= 1 && !v->reverse)
		return 0;
	if (cJSON_AddNumberToObject(config, "streams", v->streams > 1 ?
	    v->streams : 1) == NULL || cJSON_AddBoolToObject(config,
	    "reverse", v->reverse) == NULL)
		return NP_ERR_NOMEM;
	return 0;
}

double
probe_iperf3_timeout(const struct probe_settings *ps, double connect_timeout)
{
	return ps->iperf_seconds + connect_timeout + 10.0;
}

/*
 * The server; --forceflush so that each ready line (the row's
 * server_ready) reaches collect as soon as it listens.
 * One-off (-1), one per test: ps->server_bound is its --idle-timeout, so
 * one no client comes to exits by itself.
 * Kept (ps->server_keep), one per host for a phase's tests, one test at a
 * time, -i 0 so that it says little beyond its ready lines: GNU timeout
 * ends it within ps->server_bound (TERM, KILL 5 s later). --foreground
 * keeps timeout in the command's process group, which is what a cancelled
 * command's KILL reaches.
 */
char *
probe_iperf3_server_command(const struct probe_settings *ps)
{
	char port[16], bound[16];
	char *argv[] = { "LC_ALL=C", "timeout", "--foreground", "-k", "5",
	    bound, "iperf3", "-s", "-p", port, "-i", "0", "--forceflush" };

	char *one_off[] = { "LC_ALL=C", "iperf3", "-s", "-1", "-p", port,
	    "--forceflush", "--idle-timeout", bound };

	snprintf(port, sizeof port, "%d", ps->iperf_port);
	snprintf(bound, sizeof bound, "%d", (int)(ps->server_bound +
	    0.999));
	if (!ps->server_keep)
		return shell_join(one_off, ps->server_bound > 0 ? 9 : 7);
	if (ps->server_bound > 0)
		return shell_join(argv, 13);
	return shell_join(argv + 6, 7);
}

/* The longest a server lives: a killed run's servers stay at most this. */
#define SERVER_LIFE_MAX_S 300.0

/*
 * The bound for a phase of n_rounds rounds. One-off: the client's connect
 * slack. Kept: about the phase's length (a round is a test and its
 * start), at most SERVER_LIFE_MAX_S, and at least two tests with their
 * connect slack; a server near its bound is replaced (collect), so the
 * bound caps how long a killed run's server stays, not how long a phase
 * may take.
 */
double
probe_iperf3_server_bound(const struct probe_settings *ps,
    double connect_timeout, size_t n_rounds)
{
	double phase = (double)n_rounds * (ps->iperf_seconds + 2) +
	    connect_timeout + 10;
	double two = 2 * probe_iperf3_timeout(ps, connect_timeout);

	if (!ps->server_keep)
		return connect_timeout + 10;
	if (phase > SERVER_LIFE_MAX_S)
		phase = SERVER_LIFE_MAX_S;
	return phase > two ? phase : two;
}

char *
probe_iperf3_client_command(const struct probe_settings *ps,
    const char *address)
{
	const struct iperf3_values *v = values(ps);
	char port[16], secs[16], streams[16];
	char *argv[13] = { "LC_ALL=C", "iperf3", "-c", (char *)address, "-p",
	    port, "-t", secs, "-J" };
	int n = 9;

	snprintf(port, sizeof port, "%d", ps->iperf_port);
	snprintf(secs, sizeof secs, "%d", ps->iperf_seconds);
	snprintf(streams, sizeof streams, "%d", v->streams);
	if (v->streams > 1) {
		argv[n++] = "-P";
		argv[n++] = streams;
	}
	if (v->reverse)
		argv[n++] = "-R";
	return shell_join(argv, n);
}

double
probe_iperf3_duration(const struct probe_settings *ps)
{
	return ps->iperf_seconds + 0.5;
}

static cJSON *
iperf_metrics(const struct iperf_result *ir)
{
	cJSON *o = cJSON_CreateObject();

	/* floats, bytes too, as upstream writes them */
	json_add_float(o, "mbps", ir->receiver_mbps);
	json_add_float(o, "seconds", ir->seconds);
	json_add_float(o, "bytes", (double)ir->bytes);
	json_add_float(o, "sender_mbps", ir->sender_mbps);
	json_add_float(o, "receiver_mbps", ir->receiver_mbps);
	if (ir->retransmits >= 0)
		cJSON_AddNumberToObject(o, "retransmits", ir->retransmits);
	else
		cJSON_AddNullToObject(o, "retransmits");
	return o;
}

/* The client's report: the receiver's Mbps, or iperf3's own error. */
int
probe_iperf3_parse(const struct probe_output *o, struct record *rec)
{
	struct iperf_result ir;
	char *cause = NULL;
	int r;

	probe_outcome_start(rec);
	if (probe_tool_missing("iperf3", o, rec))
		return rec->error != NULL ? 0 : NP_ERR_NOMEM;
	if ((r = iperf_parse(o->out, &ir, &cause)) == 0) {
		if (record_set_metrics(rec, iperf_metrics(&ir)) != 0)
			return NP_ERR_NOMEM;
		rec->ok = 1;
		return 0;
	}
	rec->ok = 0;
	rec->error_class = error_class_name(r == NP_ERR_PROTOCOL ?
	    ERROR_CLASS_TOOL_FAILED : ERROR_CLASS_PARSE);
	rec->error = cause;
	return cause != NULL ? 0 : NP_ERR_NOMEM;
}
