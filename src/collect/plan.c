/*
 * Plans: the stages collect runs for an inventory (a kind of probe each,
 * from the kinds' table, scheduled by the kind's shape), and their text or
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

/* --kinds K,...: shell kinds of the table, a bit (1 << index) each */
static int
kinds_parse(const char *list, void *field)
{
	return probe_kind_parse_list(list, 1u << PROBE_VIA_SHELL, field);
}

static void
kinds_describe(char *buf, size_t size)
{
	probe_kind_describe_list(buf, size, 1u << PROBE_VIA_SHELL);
}

static const char *const iperf_modes[] = { "exclusive", "duplex", NULL };
/* in the order of enum fanout_tool */
static const char *const ping_tools[] = { "auto", "ping", "fping", NULL };

const struct option_spec plan_option_specs[] = {
	{ .name = "kinds", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct plan_options, kinds), .arg = "K,...",
	  .parse = kinds_parse, .describe = kinds_describe,
	  .help = "the kinds of probe to run, in the table's order\n"
	  "(default: ping; docs/collect.md lists them)" },
	{ .name = "iperf", .type = OPTION_FLAG,
	  .offset = offsetof(struct plan_options, iperf),
	  .help = "also measure throughput with iperf3 (--kinds\n"
	  "ping,iperf3 when --kinds is not given)" },
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
	{ .name = "sample", .type = OPTION_INT,
	  .offset = offsetof(struct plan_options, sample), .arg = "K",
	  .bounds = &bounds_sample,
	  .help = "a sample of the pairs a sweep: every pair inside\n"
	  "a site (machines.json's site) and K per host\n"
	  "across sites, rotating so that consecutive\n"
	  "sweeps (--every) measure every pair" },
	{ .name = "explain", .type = OPTION_FLAG,
	  .offset = offsetof(struct plan_options, explain),
	  .help = "the plan's text: also the fan-out command each\n"
	  "source runs in each round (the per-pair lines are\n"
	  "each probe alone, as upstream runs it)" },
	{ .name = NULL }
};

unsigned
plan_kinds(const struct plan_options *o)
{
	const struct probe_kind *k;
	unsigned kinds = o->kinds;

	for (k = probe_kinds; k->name != NULL; k++)
		if ((o->kinds == 0 && (k->flags & PROBE_DEFAULT)) ||
		    (o->iperf && (k->flags & PROBE_IPERF)))
			kinds |= 1u << probe_kind_index(k);
	return kinds;
}

int
plan_sites(const struct inventory *inv, size_t **out)
{
	size_t *g, i, j;

	*out = NULL;
	if ((g = calloc(inv->n_machines + 1, sizeof *g)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < inv->n_machines; i++) {
		g[i] = i;
		if (inv->machines[i].site == NULL)
			continue;
		for (j = 0; j < i; j++)
			if (inv->machines[j].site != NULL && strcmp(
			    inv->machines[j].site, inv->machines[i].site) == 0) {
				g[i] = g[j];
				break;
			}
	}
	*out = g;
	return 0;
}

/* A sampled stage's rounds: the sweep's pairs by the stage's shape. */
static int
stage_sample(const struct inventory *inv, const struct plan_options *o,
    long sweep, size_t width, struct plan_stage *st)
{
	size_t n = inv->n_machines, *sites = NULL, n_pairs = 0;
	struct pair *pairs = NULL;
	enum schedule_rule rule;
	int r;

	st->sample = (size_t)o->sample;
	if ((r = plan_sites(inv, &sites)) != 0 ||
	    (r = schedule_sample(n, sites, st->sample, sweep, &pairs,
	    &n_pairs)) != 0)
		goto out;
	st->cycle = schedule_sample_cycle(n, sites, st->sample);
	rule = o->serial ? SCHEDULE_SERIAL : st->kind->shape == PROBE_OVERLAP ?
	    SCHEDULE_OVERLAP : st->share.share == DISPATCH_DUPLEX ?
	    SCHEDULE_DUPLEX : SCHEDULE_EXCLUSIVE;
	r = schedule_pairs(n, pairs, n_pairs, rule, width, &st->sched);
out:
	free(sites);
	free(pairs);
	return r;
}

/* A kind's stage: its rounds by its shape and the run's options. */
static int
stage_build(const struct inventory *inv, const struct plan_options *o,
    long sweep, const struct probe_kind *k, struct plan_stage *st)
{
	size_t n = inv->n_machines, width;
	int duplex = o->duplex && !o->serial && (k->flags & PROBE_DUPLEX);

	st->kind = k;
	width = o->max_channels > 0 ? (size_t)o->max_channels :
	    ENGINE_DEFAULT_MAX_CHANNELS;
	if (o->rounds)
		width = 1;
	if (k->shape == PROBE_OVERLAP) {
		st->share.share = DISPATCH_EACH_WAY;
		st->share.limit = width;
		st->fanout = (k->flags & PROBE_FANOUT) && plan_fanout(o) > 0;
		st->mode = o->serial ? "serial" : st->fanout ? "fanout" :
		    "channel";
		st->plan_mode = o->serial ? "serial" : st->fanout ? "fanout" :
		    o->rounds ? "rounds" : "channels";
		if (st->fanout)	/* round k: each source's k-th fan-out */
			width = plan_fanout(o);
	} else {
		st->share.share = duplex ? DISPATCH_DUPLEX :
		    DISPATCH_EXCLUSIVE;
		st->mode = st->plan_mode = o->serial ? "serial" : duplex ?
		    "duplex" : "exclusive";
	}
	st->cycle = 1;
	if (o->sample > 0)
		return stage_sample(inv, o, sweep, width, st);
	if (o->serial)
		return schedule_serial(n, &st->sched);
	if (k->shape == PROBE_OVERLAP)
		return schedule_overlap(n, width, &st->sched);
	if (duplex)
		return schedule_duplex(n, &st->sched);
	return schedule_exclusive(n, &st->sched);
}

int
plan_stages(const struct inventory *inv, const struct plan_options *o,
    long sweep, struct plan_stage **out, size_t *n)
{
	unsigned kinds = plan_kinds(o);
	const struct probe_kind *k;
	struct plan_stage *st;
	size_t i = 0;
	int r;

	*out = NULL;
	*n = 0;
	if ((st = calloc(sizeof kinds * 8 + 1, sizeof *st)) == NULL)
		return NP_ERR_NOMEM;
	for (k = probe_kinds; k->name != NULL; k++) {
		if (!((kinds >> probe_kind_index(k)) & 1) ||
		    k->via != PROBE_VIA_SHELL)
			continue;
		if ((r = stage_build(inv, o, sweep, k, &st[i++])) != 0) {
			plan_stages_free(st, i);
			return r;
		}
	}
	*out = st;
	*n = i;
	return 0;
}

void
plan_stages_free(struct plan_stage *stages, size_t n)
{
	size_t i;

	for (i = 0; stages != NULL && i < n; i++) {
		schedule_free(stages[i].sched);
		free(stages[i].config);
	}
	free(stages);
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
    const struct plan_stage *st, const char *what, const char *after)
{
	const struct schedule *s = st->sched;
	size_t k, p;

	fprintf(f, "%s: %zu round%s, %zu probe%s\n", st->kind->name,
	    s->n_rounds, PLURAL(s->n_rounds), schedule_n_pairs(s),
	    PLURAL(schedule_n_pairs(s)));
	if (after != NULL)
		fprintf(f, "  (%s; starts after the %s phase)\n", what, after);
	else
		fprintf(f, "  (%s)\n", what);
	if (st->sample > 0)
		fprintf(f, "  (a sample, the first sweep's: every pair inside a "
		    "site and %zu per host across sites; every pair measured "
		    "within %zu sweep%s)\n", st->sample, st->cycle,
		    PLURAL(st->cycle));
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

/* How a stage's pairs run, in words. */
static const char *
stage_what(const struct plan_options *o, const struct plan_stage *st)
{
	if (o->serial)
		return "one pair at a time";
	if (st->kind->shape == PROBE_EXCLUSIVE)
		return st->share.share == DISPATCH_DUPLEX ? "duplex: each host "
		    "is the client of one test and the server of another at "
		    "once (valid on full-duplex links without a shared "
		    "bottleneck)" : "exclusive: no host in two tests at once";
	if (o->rounds)
		return "shift rounds: each host sends one probe and answers "
		    "one per round";
	if (st->fanout)
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

/* A stage as the plan shows it: its rounds' index, the settings its
   commands are built with (a server bounded as collect runs it). */
struct plan_view {
	const struct plan_stage *st;
	uint32_t *idx;
	struct probe_settings ps;
};

/* Whether the plan shows pair (i, j): every pair, or a sample's. */
static int
shown(const struct plan_view *v, size_t nv, size_t n, size_t i, size_t j)
{
	size_t s;

	for (s = 0; s < nv; s++)
		if (v[s].st->sample == 0 || round_of(v[s].idx, n, i, j) > 0)
			return 1;
	return nv == 0;
}

static int
write_text(FILE *f, const struct inventory *inv,
    const struct plan_options *o, const struct plan_view *v, size_t nv)
{
	size_t n = inv->n_machines, i, j, s;
	int fanout = 0;
	char *cmd;

	for (s = 0; s < nv; s++) {
		write_rounds_text(f, inv, v[s].st, stage_what(o, v[s].st),
		    s > 0 && !o->serial && v[s].st->kind->shape ==
		    PROBE_EXCLUSIVE ? v[s - 1].st->kind->name : NULL);
		fanout |= v[s].st->fanout;
	}
	/* in fan-out, a pair's line is not what runs: say where that is */
	fprintf(f, "\ncommands%s:\n", fanout && !o->explain ? " (each probe "
	    "alone, as upstream runs it; --explain adds the fan-out command "
	    "each source runs)" : "");
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			const struct machine *a = &inv->machines[i];
			const struct machine *b = &inv->machines[j];

			if (i == j || !shown(v, nv, n, i, j))
				continue;
			fprintf(f, "%s -> %s\n", a->name, b->name);
			for (s = 0; s < nv; s++) {
				const struct probe_kind *k = v[s].st->kind;
				size_t round = round_of(v[s].idx, n, i, j);

				if (k->server_command == NULL) {
					if ((cmd = plan_line(inv, a, k->command(
					    &v[s].ps, b->address))) == NULL)
						return NP_ERR_NOMEM;
					fprintf(f, "  %s, on %s, round %zu: %s\n",
					    k->plan_name, a->name, round, cmd);
					free(cmd);
					continue;
				}
				if ((cmd = plan_line(inv, b, k->server_command(
				    &v[s].ps))) == NULL)
					return NP_ERR_NOMEM;
				fprintf(f, "  %s_server, on %s, round %zu: %s\n",
				    k->plan_name, b->name, round, cmd);
				free(cmd);
				if ((cmd = plan_line(inv, a, k->command(&v[s].ps,
				    b->address))) == NULL)
					return NP_ERR_NOMEM;
				fprintf(f, "  %s_client, on %s: %s\n",
				    k->plan_name, a->name, cmd);
				free(cmd);
			}
		}
	}
	return 0;
}

/* The view of kind k, if the plan has it. */
static const struct plan_view *
view_of(const struct plan_view *v, size_t nv, const struct probe_kind *k)
{
	size_t s;

	for (s = 0; s < nv; s++)
		if (v[s].st->kind == k)
			return &v[s];
	return NULL;
}

static void
add_string(cJSON *row, const char *key, char *value)
{
	cJSON_AddStringToObject(row, key, value != NULL ? value : "");
	free(value);
}

/*
 * One row of plan --json: the pair's command lines, then its rounds and
 * modes, under each shell kind's plan names: upstream's kinds always
 * (null when not run), the others when they run.
 */
static cJSON *
json_row(const struct inventory *inv, const struct plan_view *v, size_t nv,
    size_t i, size_t j)
{
	const struct machine *a = &inv->machines[i], *b = &inv->machines[j];
	const struct probe_kind *k;
	const struct plan_view *kv;
	char key[64];
	cJSON *row;

	if ((row = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddStringToObject(row, "source", a->name);
	cJSON_AddStringToObject(row, "target", b->name);
	for (k = probe_kinds; k->name != NULL; k++) {
		kv = view_of(v, nv, k);
		if (k->plan_name == NULL || (kv == NULL &&
		    !(k->flags & PROBE_UPSTREAM)))
			continue;
		if (k->server_command != NULL) {
			snprintf(key, sizeof key, "%s_server", k->plan_name);
			if (kv != NULL)
				add_string(row, key, plan_line(inv, b,
				    k->server_command(&kv->ps)));
			else
				cJSON_AddNullToObject(row, key);
			snprintf(key, sizeof key, "%s_client", k->plan_name);
		} else
			snprintf(key, sizeof key, "%s", k->plan_name);
		if (kv != NULL)
			add_string(row, key, plan_line(inv, a, k->command(
			    &kv->ps, b->address)));
		else
			cJSON_AddNullToObject(row, key);
	}
	for (k = probe_kinds; k->name != NULL; k++) {
		kv = view_of(v, nv, k);
		if (k->plan_name == NULL || (kv == NULL &&
		    !(k->flags & PROBE_UPSTREAM)))
			continue;
		snprintf(key, sizeof key, "%s_round", k->plan_name);
		if (kv != NULL)
			cJSON_AddNumberToObject(row, key, (double)round_of(
			    kv->idx, inv->n_machines, i, j));
		else
			cJSON_AddNullToObject(row, key);
		snprintf(key, sizeof key, "%s_mode", k->plan_name);
		if (kv != NULL)
			cJSON_AddStringToObject(row, key, kv->st->plan_mode);
		else
			cJSON_AddNullToObject(row, key);
	}
	return row;
}

/*
 * The rows as one JSON array, written a row at a time: N² rows never sit
 * in memory as one tree (1,000 machines are a million rows).
 */
static int
write_json(FILE *f, const struct inventory *inv, const struct plan_view *v,
    size_t nv)
{
	size_t n = inv->n_machines, i, j;
	const char *sep = "\n";
	cJSON *row;
	char *text;

	fputs("[", f);
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j || !shown(v, nv, n, i, j))
				continue;
			row = json_row(inv, v, nv, i, j);
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
	struct plan_stage *stages = NULL;
	struct plan_view *v = NULL;
	size_t n = 0, s;
	int r, nomem = 0;

	if ((r = plan_stages(inv, o, 0, &stages, &n)) != 0)
		return r;
	if ((v = calloc(n + 1, sizeof *v)) == NULL) {
		plan_stages_free(stages, n);
		return NP_ERR_NOMEM;
	}
	for (s = 0; s < n; s++) {
		const struct probe_kind *k = stages[s].kind;

		v[s].st = &stages[s];
		v[s].ps = *ps;
		if (k->server_command != NULL) {	/* as collect runs it */
			v[s].ps.server_keep = stages[s].share.share ==
			    DISPATCH_DUPLEX;
			v[s].ps.server_bound = k->server_bound(&v[s].ps,
			    inv->connect_timeout_seconds,
			    stages[s].sched->n_rounds);
		}
		v[s].idx = round_index(stages[s].sched, inv->n_machines,
		    &nomem);
	}
	if (nomem)
		r = NP_ERR_NOMEM;
	else if (o->json)
		r = write_json(f, inv, v, n);
	else if ((r = write_text(f, inv, o, v, n)) == 0 && o->explain)
		r = plan_write_explain(f, inv, stages, n, ps, o);
	for (s = 0; s < n; s++)
		free(v[s].idx);
	free(v);
	plan_stages_free(stages, n);
	return r;
}
