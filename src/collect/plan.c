/*
 * Plans: the schedules collect runs for an inventory, and their text or
 * JSON form (as the upstream tool's plan: source, target, ping,
 * iperf_server, iperf_client, each the command line that runs the probe
 * by hand through the machine's transport, with the rounds the scheduler
 * puts them in) for netprof plan and collect --dry-run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "command_line.h"
#include "engine.h"
#include "error.h"
#include "fanout.h"
#include "inventory.h"
#include "log.h"
#include "plan.h"
#include "probe.h"
#include "schedule.h"

size_t
plan_fanout(const struct plan_options *o)
{
	if (o->serial || o->rounds || o->fanout < 0)
		return 0;
	return o->fanout > 0 ? (size_t)o->fanout : PLAN_DEFAULT_FANOUT;
}

const char *
plan_iperf_mode(const struct plan_options *o)
{
	return o->duplex ? "duplex" : "exclusive";
}

/* --fanout N|off: 0 (and off) is -1, one channel per probe */
static int
fanout_parse(const char *arg, void *field)
{
	int *fanout = field;

	if (strcmp(arg, "off") == 0 || strcmp(arg, "0") == 0) {
		*fanout = -1;
		return 0;
	}
	return option_parse_int(arg, (int)bounds_fanout.lo, (int)bounds_fanout.hi,
	    fanout);
}

static const char *const iperf_modes[] = { "exclusive", "duplex", NULL };
/* in the order of enum fanout_tool */
static const char *const ping_tools[] = { "auto", "ping", "fping", NULL };

const struct option_spec plan_option_specs[] = {
	{ .name = "iperf", .type = OPTION_FLAG,
	  .offset = offsetof(struct plan_options, iperf),
	  .help = "also measure throughput with iperf3" },
	{ .name = "iperf-mode", .type = OPTION_ENUM,
	  .offset = offsetof(struct plan_options, duplex), .arg = "M",
	  .choices = iperf_modes,
	  .help = "exclusive (default): no host in two tests at once,\n"
	  "2(N-1) rounds; duplex: each host client and server\n"
	  "at once, N-1 rounds (full-duplex links, no shared\n"
	  "bottleneck)" },
	{ .name = "fanout", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct plan_options, fanout), .arg = "N|off",
	  .parse = fanout_parse,
	  .what = "a number of targets from 1 to 4096, or off",
	  .help = "ping: one command per source runs up to N pings\n"
	  "at once (default 256); off: one channel per probe\n"
	  "(at most --max-channels per host)" },
	{ .name = "ping-tool", .type = OPTION_ENUM,
	  .offset = offsetof(struct plan_options, ping_tool), .arg = "T",
	  .choices = ping_tools,
	  .help = "the fan-out's tool: auto (fping where present),\n"
	  "ping, fping" },
	{ .name = "serial", .type = OPTION_FLAG,
	  .offset = offsetof(struct plan_options, serial),
	  .help = "one pair at a time (the upstream behaviour)" },
	{ .name = "rounds", .type = OPTION_FLAG,
	  .offset = offsetof(struct plan_options, rounds),
	  .help = "ping in shift rounds: one probe per host at a time" },
	{ .name = NULL }
};

int
plan_schedules(const struct inventory *inv, const struct plan_options *o,
    struct schedule **ping, struct schedule **iperf3)
{
	size_t n = inv->n_machines, width;
	int r;

	*ping = *iperf3 = NULL;
	width = o->max_channels > 0 ? (size_t)o->max_channels :
	    ENGINE_DEFAULT_MAX_CHANNELS;
	if (o->rounds)
		width = 1;
	if (plan_fanout(o) > 0)		/* round k: each source's k-th fan-out */
		width = plan_fanout(o);
	if (o->serial)
		r = schedule_serial(n, PROBE_PING, ping);
	else
		r = schedule_ping(n, width, ping);
	if (r != 0 || !o->iperf)
		return r;
	if (o->serial)
		r = schedule_serial(n, PROBE_IPERF3, iperf3);
	else if (o->duplex)
		r = schedule_iperf3_duplex(n, iperf3);
	else
		r = schedule_iperf3(n, iperf3);
	if (r != 0) {
		schedule_free(*ping);
		*ping = NULL;
	}
	return r;
}

/*
 * Round (1-based) of every pair (i, j) of s at [i * n + j], 0 if absent:
 * built once, so writing N² rows is linear in the pairs (looking each pair
 * up in the rounds made the plan O(N⁴)). NULL for s NULL or out of memory
 * (*nomem set then).
 */
static uint32_t *
round_index(const struct schedule *s, size_t n, int *nomem)
{
	const struct pair *pp;
	uint32_t *idx;
	size_t k, p;

	if (s == NULL)
		return NULL;
	if (n > 0 && n > SIZE_MAX / sizeof *idx / n) {
		*nomem = 1;
		return NULL;
	}
	if ((idx = calloc(n * n + 1, sizeof *idx)) == NULL) {
		*nomem = 1;
		return NULL;
	}
	for (k = 0; k < s->n_rounds; k++) {
		for (p = 0; p < s->rounds[k].n_pairs; p++) {
			pp = &s->rounds[k].pairs[p];
			if (pp->source < n && pp->target < n)
				idx[pp->source * n + pp->target] =
				    (uint32_t)(k + 1);
		}
	}
	return idx;
}

/* Round of (i, j) from round_index(); 0 if absent or no schedule. */
static size_t
round_of(const uint32_t *idx, size_t n, size_t i, size_t j)
{
	return idx != NULL ? idx[i * n + j] : 0;
}

/*
 * The line that reproduces command on m (command_line.h), the line users
 * and upstream's plan show; takes command. NULL when out of memory.
 */
static char *
plan_line(const struct inventory *inv, const struct machine *m,
    char *command)
{
	char *line = NULL;

	if (command != NULL && command_line_reproduce(inv, m, command,
	    &line) != 0)
		line = NULL;
	free(command);
	return line;
}

static void
write_rounds_text(FILE *f, const struct inventory *inv,
    const struct schedule *s, const char *what)
{
	size_t k, p;

	fprintf(f, "%s: %zu round%s, %zu probe%s\n", probe_kind_name(s->kind),
	    s->n_rounds, PLURAL(s->n_rounds), schedule_n_pairs(s),
	    PLURAL(schedule_n_pairs(s)));
	fprintf(f, "  (%s)\n", what);
	for (k = 0; k < s->n_rounds; k++) {
		fprintf(f, "  round %zu:", k + 1);
		for (p = 0; p < s->rounds[k].n_pairs; p++) {
			const struct pair *pr = &s->rounds[k].pairs[p];

			fprintf(f, " %s->%s", inv->machines[pr->source].name,
			    inv->machines[pr->target].name);
		}
		fputc('\n', f);
	}
}

static const char *
ping_what(const struct plan_options *o)
{
	if (o->serial)
		return "one pair at a time";
	if (o->rounds)
		return "shift rounds: each host sends one probe and answers "
		    "one per round";
	if (plan_fanout(o) > 0)
		return o->ping_tool == FANOUT_TOOL_PING ? "fan-out: one "
		    "command per source host and round pings all of its "
		    "targets of the round at once (one ping per target)" :
		    o->ping_tool == FANOUT_TOOL_FPING ? "fan-out: one command "
		    "per source host and round pings all of its targets of "
		    "the round at once (fping -C)" :
		    "fan-out: one command per source host and round pings "
		    "all of its targets of the round at once (fping -C when "
		    "the host has it, else one ping per target)";
	return "probes overlap, at most max_channels per host at once";
}

static int
write_text(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o,
    const struct schedule *ping, const struct schedule *iperf3,
    const uint32_t *ping_idx, const uint32_t *iperf3_idx)
{
	size_t n = inv->n_machines;
	char *server, *cmd;
	size_t i, j;
	int r = 0;

	write_rounds_text(f, inv, ping, ping_what(o));
	if (iperf3 != NULL)
		write_rounds_text(f, inv, iperf3, o->serial ?
		    "one pair at a time" : o->duplex ? "duplex: each host is "
		    "the client of one test and the server of another at "
		    "once (valid on full-duplex links without a shared "
		    "bottleneck); starts after the ping phase" :
		    "exclusive: no host in two tests at once; starts after "
		    "the ping phase");
	fprintf(f, "\ncommands:\n");
	for (i = 0; i < inv->n_machines; i++) {
		for (j = 0; j < inv->n_machines; j++) {
			const struct machine *a = &inv->machines[i];
			const struct machine *b = &inv->machines[j];

			if (i == j)
				continue;
			fprintf(f, "%s -> %s\n", a->name, b->name);
			if ((cmd = plan_line(inv, a, probe_ping_command(ps,
			    b->address))) == NULL)
				goto nomem;
			fprintf(f, "  ping, on %s, round %zu: %s\n", a->name,
			    round_of(ping_idx, n, i, j), cmd);
			free(cmd);
			if (iperf3 == NULL)
				continue;
			if ((server = plan_line(inv, b,
			    probe_iperf3_server_command(ps))) == NULL)
				goto nomem;
			fprintf(f, "  iperf_server, on %s, round %zu: %s\n",
			    b->name, round_of(iperf3_idx, n, i, j), server);
			free(server);
			if ((cmd = plan_line(inv, a, probe_iperf3_client_command(
			    ps, b->address))) == NULL)
				goto nomem;
			fprintf(f, "  iperf_client, on %s: %s\n", a->name, cmd);
			free(cmd);
		}
	}
	return r;
nomem:
	return NP_ERR_NOMEM;
}

/* One row of plan --json: the pair's commands and rounds. */
static cJSON *
json_row(const struct inventory *inv, const struct probe_settings *ps,
    const struct plan_options *o, size_t i, size_t j, int iperf,
    size_t ping_round, size_t iperf_round)
{
	const struct machine *a = &inv->machines[i], *b = &inv->machines[j];
	cJSON *row;
	char *cmd;

	if ((row = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(row, "source", a->name);
	cJSON_AddStringToObject(row, "target", b->name);
	cmd = plan_line(inv, a, probe_ping_command(ps, b->address));
	cJSON_AddStringToObject(row, "ping", cmd ? cmd : "");
	free(cmd);
	if (iperf) {
		cmd = plan_line(inv, b, probe_iperf3_server_command(ps));
		cJSON_AddStringToObject(row, "iperf_server", cmd ? cmd : "");
		free(cmd);
		cmd = plan_line(inv, a, probe_iperf3_client_command(ps,
		    b->address));
		cJSON_AddStringToObject(row, "iperf_client", cmd ? cmd : "");
		free(cmd);
	} else {
		cJSON_AddNullToObject(row, "iperf_server");
		cJSON_AddNullToObject(row, "iperf_client");
	}
	cJSON_AddNumberToObject(row, "ping_round", (double)ping_round);
	cJSON_AddStringToObject(row, "ping_mode", o->serial ? "serial" :
	    plan_fanout(o) > 0 ? "fanout" : o->rounds ? "rounds" : "channels");
	if (iperf) {
		cJSON_AddNumberToObject(row, "iperf_round", (double)iperf_round);
		cJSON_AddStringToObject(row, "iperf_mode", o->serial ?
		    "serial" : plan_iperf_mode(o));
	} else {
		cJSON_AddNullToObject(row, "iperf_round");
		cJSON_AddNullToObject(row, "iperf_mode");
	}
	return row;
}

/*
 * The rows as one JSON array, written a row at a time: N² rows never sit
 * in memory as one tree (1,000 machines are a million rows).
 */
static int
write_json(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o,
    const struct schedule *ping, const struct schedule *iperf3,
    const uint32_t *ping_idx, const uint32_t *iperf3_idx)
{
	size_t n = inv->n_machines, i, j;
	const char *sep = "\n";
	cJSON *row;
	char *text;

	fputs("[", f);
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			row = json_row(inv, ps, o, i, j, iperf3 != NULL,
			    round_of(ping_idx, n, i, j),
			    round_of(iperf3_idx, n, i, j));
			text = row != NULL ? cJSON_PrintUnformatted(row) : NULL;
			cJSON_Delete(row);
			if (text == NULL)
				return NP_ERR_NOMEM;
			fprintf(f, "%s  %s", sep, text);
			free(text);
			sep = ",\n";
		}
	}
	fputs("\n]\n", f);
	return 0;
}

int
plan_write(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o)
{
	struct schedule *ping = NULL, *iperf3 = NULL;
	struct probe_settings bounded = *ps;
	int r;

	uint32_t *ping_idx = NULL, *iperf3_idx = NULL;
	int nomem = 0;

	if ((r = plan_schedules(inv, o, &ping, &iperf3)) != 0)
		return r;
	if (iperf3 != NULL) {	/* the servers as collect starts them */
		bounded.iperf_server_keep = o->duplex && !o->serial;
		bounded.iperf_server_bound = probe_iperf3_server_bound(
		    &bounded, inv->connect_timeout_seconds, iperf3->n_rounds);
	}
	ps = &bounded;
	ping_idx = round_index(ping, inv->n_machines, &nomem);
	iperf3_idx = round_index(iperf3, inv->n_machines, &nomem);
	if (nomem)
		r = NP_ERR_NOMEM;
	else if (o->json)
		r = write_json(f, inv, ps, o, ping, iperf3, ping_idx,
		    iperf3_idx);
	else
		r = write_text(f, inv, ps, o, ping, iperf3, ping_idx,
		    iperf3_idx);
	free(ping_idx);
	free(iperf3_idx);
	schedule_free(ping);
	schedule_free(iperf3);
	return r;
}
