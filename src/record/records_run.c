/*
 * Reading a bench run.json back (records_run.h): the run's hosts and
 * sites, its phases' spans (their start times, else their durations laid
 * end to end in the phases' order), each host's steps, and the mesh's
 * convergence; a machines.json given as records is refused with what to
 * give instead.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "json_strict.h"
#include "log.h"
#include "record_schema.h"
#include "records_line.h"
#include "records_run.h"

static void
spans_free(struct phase_span *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(s[i].phase);
	free(s);
}

/* The phase order of a bench run, for durations laid end to end (phase
 * names, not fields: the "sweep" phase is not the record's sweep field). */
static const char *const phase_order[] = {
	"deploy", "init", "discover", "configure", "push", "start", "converge",
	"punch",
	"sweep", "baseline", "teardown", NULL
};

static int
span_add(struct phase_span **v, size_t *n, const char *phase, double start,
    double end, int failed)
{
	struct phase_span *p;

	if (*n >= 64)	/* more is not a bench run.json */
		return 0;
	if ((p = realloc(*v, (*n + 1) * sizeof *p)) == NULL)
		return NP_ERR_NOMEM;
	*v = p;
	p += *n;
	if ((p->phase = strdup(phase)) == NULL)
		return NP_ERR_NOMEM;
	p->start = start;
	p->end = end;
	p->failed = failed;
	(*n)++;
	return 0;
}

/* A finite time in seconds, as the timeline can draw it. */
static double
span_time(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    fabs(v->valuedouble) > 1e9)
		return NAN;
	return v->valuedouble;
}

/* The order in which a bench run begins its phases (the baseline's ICMP
 * beside the nodes' start): two that begin in the same hundredth of a
 * second (run.json's precision; a phase with nothing to do takes none)
 * are drawn in it, whatever order run.json's keys have. Phase names, not
 * fields, as phase_order's. */
static const char *const begun_order[] = {
	"deploy", "init", "discover", "configure", "push", "baseline",
	"start", "converge", "punch",
	"path",
	"sweep", "teardown", NULL
};

static size_t
begun_rank(const char *phase)
{
	size_t i;

	for (i = 0; begun_order[i] != NULL; i++)
		if (strcmp(begun_order[i], phase) == 0)
			break;
	return i;
}

static int
cmp_span(const void *a, const void *b)
{
	const struct phase_span *x = a, *y = b;
	size_t rx, ry;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	rx = begun_rank(x->phase);
	ry = begun_rank(y->phase);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x->phase, y->phase);
}

/*
 * phase_times {"init": [start, end], ...}, in order of start; statuses (a machine's phases
 * {"init": "ok", ...}) mark the failed ones.
 */
static int
spans_from_times(const cJSON *times, const cJSON *statuses,
    struct phase_span **v, size_t *n)
{
	const cJSON *t;
	int rc;

	cJSON_ArrayForEach(t, times) {
		const cJSON *st;
		double a;

		if (t->string == NULL || !cJSON_IsArray(t) ||
		    isnan(a = span_time(cJSON_GetArrayItem(t, 0))))
			continue;
		st = cJSON_GetObjectItemCaseSensitive(statuses, t->string);
		if ((rc = span_add(v, n, t->string, a,
		    span_time(cJSON_GetArrayItem(t, 1)), cJSON_IsString(st) &&
		    strcmp(st->valuestring, "failed") == 0)) != 0)
			return rc;
	}
	if (*n > 1)
		qsort(*v, *n, sizeof **v, cmp_span);
	return 0;
}

/* Upstream's phases {"init_s": 1.2, ...}: laid end to end, in order. */
static int
spans_from_durations(const cJSON *phases, struct phase_span **v, size_t *n)
{
	char key[32];
	double t = 0, d;
	size_t i;
	int rc;

	for (i = 0; phase_order[i] != NULL; i++) {
		snprintf(key, sizeof key, "%s_s", phase_order[i]);
		d = span_time(cJSON_GetObjectItemCaseSensitive(phases, key));
		if (isnan(d) || d < 0)
			continue;
		if ((rc = span_add(v, n, phase_order[i], t, t + d, 0)) != 0)
			return rc;
		t += d;
	}
	return 0;
}

void
records_run_free(struct run_info *run)
{
	size_t i;

	if (run == NULL)
		return;
	free(run->run_id);
	free(run->file);
	for (i = 0; i < run->nmachines; i++) {
		free(run->machines[i]);
		free(run->sites[i]);
		free(run->addresses[i]);
		free(run->peer_ids[i]);
		if (run->host_phases != NULL)
			spans_free(run->host_phases[i], run->nhost_phases[i]);
	}
	free(run->host_phases);
	free(run->nhost_phases);
	spans_free(run->phases, run->nphases);
	free(run->machines);
	free(run->sites);
	free(run->addresses);
	free(run->peer_ids);
	free(run->libp2p_ports);
	for (i = 0; i < run->nreach; i++)
		free(run->reach[i].pair);
	free(run->reach);
	for (i = 0; i < run->nrelays; i++) {
		free(run->relay_names[i]);
		free(run->relay_addrs[i]);
	}
	free(run->relay_names);
	free(run->relay_addrs);
	for (i = 0; i < run->nconvergence; i++)
		free(run->convergence[i].host);
	free(run->convergence);
	free(run);
}

/* The reach checks {"A->B": {"tcp": true, ...}} and the --bootstrap
 * relays {name: multiaddr}, as heatmap --advise reads them. */
static int
reach_and_relays(const cJSON *obj, struct run_info *run)
{
	const cJSON *reach, *relays, *e, *tcp;
	size_t n;

	reach = cJSON_GetObjectItemCaseSensitive(obj, RECORD_RUN_F_REACH);
	relays = cJSON_GetObjectItemCaseSensitive(obj, RECORD_RUN_F_RELAYS);
	n = (size_t)cJSON_GetArraySize(reach);
	if (n > 0 && (run->reach = calloc(n, sizeof *run->reach)) == NULL)
		return NP_ERR_NOMEM;
	cJSON_ArrayForEach(e, reach) {
		tcp = cJSON_GetObjectItemCaseSensitive(e, RECORD_RUN_F_TCP);
		if (e->string == NULL || !cJSON_IsBool(tcp))
			continue;
		if ((run->reach[run->nreach].pair = strdup(e->string)) == NULL)
			return NP_ERR_NOMEM;
		run->reach[run->nreach++].tcp = cJSON_IsTrue(tcp);
	}
	n = (size_t)cJSON_GetArraySize(relays);
	if (n > 0 && ((run->relay_names = calloc(n,
	    sizeof *run->relay_names)) == NULL || (run->relay_addrs =
	    calloc(n, sizeof *run->relay_addrs)) == NULL))
		return NP_ERR_NOMEM;
	cJSON_ArrayForEach(e, relays) {
		if (e->string == NULL || !cJSON_IsString(e))
			continue;
		if ((run->relay_names[run->nrelays] = strdup(e->string)) ==
		    NULL || (run->relay_addrs[run->nrelays++] =
		    strdup(e->valuestring)) == NULL)
			return NP_ERR_NOMEM;
	}
	return 0;
}

static int
run_info_from_json(const cJSON *obj, const char *path, struct run_info **out)
{
	const cJSON *machines, *conv, *m, *v;
	struct run_info *run;
	size_t n;
	int rc = NP_ERR_NOMEM;

	if ((run = calloc(1, sizeof *run)) == NULL)
		return NP_ERR_NOMEM;
	run->run_id = record_field_string(obj, RECORD_RUN_F_RUN_ID);
	run->started_at = record_field_time(obj, RECORD_RUN_F_STARTED_AT);
	run->ended_at = record_field_time(obj, RECORD_RUN_F_ENDED_AT);
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_RUN_F_PHASE_TIMES);
	if (cJSON_IsObject(v))
		rc = spans_from_times(v, NULL, &run->phases, &run->nphases);
	else {
		run->from_durations = 1;
		rc = spans_from_durations(cJSON_GetObjectItemCaseSensitive(obj,
		    RECORD_RUN_F_PHASES), &run->phases, &run->nphases);
	}
	if (rc != 0)
		goto out;
	rc = NP_ERR_NOMEM;
	if ((run->file = strdup(path)) == NULL)
		goto out;
	machines = cJSON_GetObjectItemCaseSensitive(obj,
	    RECORD_RUN_F_MACHINES);
	n = (size_t)cJSON_GetArraySize(machines);
	if (n > 0 && ((run->machines = calloc(n, sizeof *run->machines)) ==
	    NULL || (run->libp2p_ports = calloc(n,
	    sizeof *run->libp2p_ports)) == NULL ||
	    (run->sites = calloc(n, sizeof *run->sites)) == NULL ||
	    (run->addresses = calloc(n, sizeof *run->addresses)) == NULL ||
	    (run->peer_ids = calloc(n, sizeof *run->peer_ids)) == NULL ||
	    (run->host_phases = calloc(n, sizeof *run->host_phases)) == NULL ||
	    (run->nhost_phases = calloc(n, sizeof *run->nhost_phases)) ==
	    NULL))
		goto out;
	cJSON_ArrayForEach(m, machines) {
		char *name = cJSON_IsString(m) ? strdup(m->valuestring) :
		    record_field_string(m, RECORD_RUN_F_NAME);

		if (name == NULL)
			continue;
		v = cJSON_GetObjectItemCaseSensitive(m,
		    RECORD_RUN_F_LIBP2P_PORT);
		run->libp2p_ports[run->nmachines] = cJSON_IsNumber(v) ?
		    v->valueint : 0;
		/* netprof's run.json keeps machines.json's site (a string;
		 * anything else is no site). */
		run->sites[run->nmachines] = cJSON_IsObject(m) ?
		    record_field_string(m, RECORD_RUN_F_SITE) : NULL;
		run->addresses[run->nmachines] = cJSON_IsObject(m) ?
		    record_field_string(m, RECORD_RUN_F_ADDRESS) : NULL;
		run->peer_ids[run->nmachines] = cJSON_IsObject(m) ?
		    record_field_string(m, RECORD_RUN_F_PEER_ID) : NULL;
		run->machines[run->nmachines++] = name;
		if (cJSON_IsObject(m) && (rc = spans_from_times(
		    cJSON_GetObjectItemCaseSensitive(m, RECORD_RUN_F_PHASE_TIMES),
		    cJSON_GetObjectItemCaseSensitive(m, RECORD_RUN_F_PHASES),
		    &run->host_phases[run->nmachines - 1],
		    &run->nhost_phases[run->nmachines - 1])) != 0)
			goto out;
		rc = NP_ERR_NOMEM;
	}
	conv = cJSON_GetObjectItemCaseSensitive(obj,
	    RECORD_RUN_F_CONVERGENCE);
	n = (size_t)cJSON_GetArraySize(conv);
	if (n > 0 && (run->convergence = calloc(n,
	    sizeof *run->convergence)) == NULL)
		goto out;
	cJSON_ArrayForEach(m, conv) {
		struct convergence *c;

		if (m->string == NULL || !cJSON_IsObject(m))
			continue;
		c = &run->convergence[run->nconvergence];
		if ((c->host = strdup(m->string)) == NULL)
			goto out;
		run->nconvergence++;
		c->complete = cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(m, RECORD_RUN_F_COMPLETE));
		v = cJSON_GetObjectItemCaseSensitive(m,
		    RECORD_RUN_F_ELAPSED_S);
		c->elapsed_s = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	}
	if ((rc = reach_and_relays(obj, run)) != 0)
		goto out;
	*out = run;
	run = NULL;
	rc = 0;
out:
	records_run_free(run);
	return rc;
}

/* A run.json is one (usually pretty-printed) object with convergence. */
int
records_run_json(struct record_input *in, const char *path, const char *text,
    size_t len, int *taken)
{
	struct run_info *run, **runs;
	cJSON *obj;
	int rc;

	*taken = 0;
	/* text is NUL-terminated; cJSON wants the NUL inside the length. */
	obj = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);
	if (obj == NULL)
		return 0;
	if (cJSON_IsObject(obj) && cJSON_IsArray(cJSON_GetObjectItem(obj,
	    "machines")) && !cJSON_HasObjectItem(obj, RECORD_F_KIND) &&
	    !cJSON_HasObjectItem(obj, RECORD_RUN_F_CONVERGENCE) &&
	    !cJSON_HasObjectItem(obj, RECORD_RUN_F_PHASES)) {
		/* "machines" and no records' fields: a machines.json */
		cJSON_Delete(obj);
		log_error("%s is an inventory (machines.json), not records: "
		    "give it with --config %s (for each machine's site), and "
		    "the records with --input: collect's (%s) or bench's "
		    "(results/RUN_ID/measurements.jsonl)", path, path,
		    "results/network-measurements.jsonl");
		return NP_ERR_USAGE;
	}
	if (!cJSON_IsObject(obj) ||
	    (!cJSON_HasObjectItem(obj, RECORD_RUN_F_CONVERGENCE) &&
	    !cJSON_HasObjectItem(obj, RECORD_RUN_F_PHASES))) {
		cJSON_Delete(obj);
		return 0;
	}
	if (json_find_nul(text, len) >= 0) {
		cJSON_Delete(obj);
		log_error("%s: a \\u0000 (NUL) in a string is not supported",
		    path);
		return NP_ERR_PARSE;
	}
	if ((rc = json_keep_last(obj)) == 0)
		rc = run_info_from_json(obj, path, &run);
	cJSON_Delete(obj);
	if (rc != 0)
		return rc;
	if ((runs = realloc(in->runs, (in->nruns + 1) * sizeof *runs)) ==
	    NULL) {
		records_run_free(run);
		return NP_ERR_NOMEM;
	}
	in->runs = runs;
	in->runs[in->nruns++] = run;
	*taken = 1;
	return 0;
}
