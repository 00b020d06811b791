/*
 * Building run.json. Upstream writes it with Python's json.dump(run,
 * indent=2, sort_keys=True), and so does this (json_write.h): a diff of
 * the two tools' files then shows values, not layout. It is rewritten
 * after every phase through a temporary file and rename(2), so a reader
 * (or --teardown after a killed run) never sees half of one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_path.h"
#include "bench_record.h"
#include "error.h"
#include "file.h"
#include "json_write.h"
#include "shell.h"
#include "timeutil.h"
#include "util.h"

static void
add_time(cJSON *o, const char *key, double t, int precise)
{
	char buf[TIME_RECORD_SIZE];

	if (precise)
		time_record_precise(t, buf, sizeof buf);
	else
		time_record_timestamp(t, buf, sizeof buf);
	cJSON_AddStringToObject(o, key, buf);
}

static double
round2(double s)
{
	return (double)(long long)(s * 100.0 + (s < 0 ? -0.5 : 0.5)) / 100.0;
}

/*
 * netprof's "phase_times": {"init": [start, end], ...}, seconds since the
 * run's started_at, for the heatmap's timeline (upstream's "phases" keep
 * their form). A step still running has no end: [start, null].
 */
static void
add_phase_times(cJSON *o, const struct bench *b, const double *at,
    const double *end)
{
	cJSON *pt = cJSON_AddObjectToObject(o, "phase_times"), *span;
	int p;

	for (p = 0; p < BENCH_N_PHASES; p++) {
		if (at[p] <= 0)
			continue;
		span = cJSON_AddArrayToObject(pt, bench_phase_name(p));
		cJSON_AddItemToArray(span, json_create_float(round2(at[p] -
		    b->started_at)));
		cJSON_AddItemToArray(span, end[p] > 0 ? json_create_float(
		    round2(end[p] - b->started_at)) : cJSON_CreateNull());
	}
}

static const char *
status_name(enum bench_status s)
{
	static const char *const names[] = { "not_run", "ok", "failed",
		"skipped", "interrupted" };

	return names[s];
}

static cJSON *
machine_json(const struct bench *b, const struct bench_host *h)
{
	cJSON *o = cJSON_CreateObject(), *ph;
	int p;

	if (o == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "name", h->m->name);
	cJSON_AddStringToObject(o, "address", h->m->address);
	json_add_string_or_null(o, "peer_id", h->peer_id);
	cJSON_AddNumberToObject(o, "http_port", h->http_port);
	cJSON_AddNumberToObject(o, "libp2p_port", h->libp2p_port);
	/* netprof's: the machine's site (the heatmap groups by it), where
	 * the node lives, and how each phase went */
	if (h->m->site != NULL)
		cJSON_AddStringToObject(o, "site", h->m->site);
	cJSON_AddStringToObject(o, "dir", h->dir);
	if (h->pid > 0)
		cJSON_AddNumberToObject(o, "pid", (double)h->pid);
	else
		cJSON_AddNullToObject(o, "pid");
	if (h->pid > 0 && h->pid_start > 0)
		cJSON_AddNumberToObject(o, "pid_start", (double)h->pid_start);
	else
		cJSON_AddNullToObject(o, "pid_start");
	cJSON_AddStringToObject(o, "status", h->failed ? "failed" : "ok");
	json_add_string_or_null(o, "failed_phase", h->failed ?
	    bench_phase_name(h->failed_phase) : NULL);
	json_add_string_or_null(o, "error", h->error);
	json_add_string_or_null(o, "error_class", h->failed ?
	    error_class_name(h->error_class) : NULL);
	json_add_string_or_null(o, "log_tail", h->log_tail);
	if ((ph = bench_path_machine_json(b, h)) != NULL)
		cJSON_AddItemToObject(o, "circuits", ph);
	if (h->path != NULL && (ph = bench_counters_json(&h->counters[0],
	    &h->counters[1])) != NULL)
		cJSON_AddItemToObject(o, "counters", ph);
	ph = cJSON_AddObjectToObject(o, "phases");
	for (p = 0; p < BENCH_N_PHASES; p++)
		if (b->phase_ran[p])
			cJSON_AddStringToObject(ph, bench_phase_name(p),
			    status_name(h->status[p]));
	add_phase_times(o, b, h->step_at, h->step_end);
	/* what ended the node: TERM, KILL after --stop-grace, null: none ran */
	if (h->stop_state == 2 && h->torn_down)
		json_add_string_or_null(o, "stop_signal", h->stop_signal);
	return o;
}

static void
add_convergence(cJSON *root, const struct bench *b)
{
	cJSON *conv = cJSON_AddObjectToObject(root, "convergence"), *c, *miss;
	size_t i, k;

	if (!b->phase_ran[BENCH_CONVERGE])
		return;
	for (i = 0; i < b->n; i++) {
		const struct bench_host *h = &b->hosts[i];

		if (h->status[BENCH_CONVERGE] == BENCH_ST_NONE ||
		    h->status[BENCH_CONVERGE] == BENCH_ST_SKIPPED)
			continue;
		c = cJSON_AddObjectToObject(conv, h->m->name);
		cJSON_AddBoolToObject(c, "complete", h->converged);
		json_add_float(c, "elapsed_s", round2(h->converge_s));
		miss = cJSON_AddArrayToObject(c, "missing");
		for (k = 0; k < h->n_missing; k++)
			cJSON_AddItemToArray(miss,
			    cJSON_CreateString(h->missing[k]));
	}
}

/*
 * A punch's outcome in the words of punchr, the hole punching measurement
 * campaign's: success (connected after the node's DCUtR attempts), no
 * connection (none to the peer to coordinate over), no stream (no DCUtR
 * stream over it), failed (its attempts ran and failed); NULL where none
 * applies (no answer; no attempt, the pair was connected already; a node
 * that cannot punch). The node's answer cannot tell punchr's "connection
 * reversed".
 */
static const char *
punch_outcome(const struct bench_task *t)
{
	const char *e = t->rec.error != NULL ? t->rec.error : "";

	if (t->connectedness == NULL || t->attempts == 0 ||
	    strstr(e, BENCH_PUNCH_DISABLED) != NULL)
		return NULL;
	if (t->rec.ok)
		return "success";
	if (strstr(e, "no usable connection") != NULL)
		return "no connection";
	if (strstr(e, "failed to open hole-punching stream") != NULL)
		return "no stream";
	return "failed";
}

static void
add_punch(cJSON *root, const struct bench *b)
{
	cJSON *punch = cJSON_AddObjectToObject(root, "punch"), *p;
	char key[512];
	size_t i;

	for (i = 0; i < b->n_task_sets[BENCH_PUNCH]; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_PUNCH][i];

		if (t->state != 2)
			continue;
		snprintf(key, sizeof key, "%s->%s", b->hosts[t->src].m->name,
		    b->hosts[t->dst].m->name);
		/*
		 * upstream's form, {connectedness, attempts, error}, with
		 * "Unknown" where no node answered; ok and last_error are
		 * netprof's, kept for its readers
		 */
		p = cJSON_AddObjectToObject(punch, key);
		cJSON_AddNumberToObject(p, "attempts", t->attempts);
		cJSON_AddStringToObject(p, "connectedness",
		    t->connectedness != NULL ? t->connectedness : "Unknown");
		cJSON_AddBoolToObject(p, "ok", t->rec.ok);
		if (punch_outcome(t) != NULL)
			cJSON_AddStringToObject(p, "outcome", punch_outcome(t));
		if (t->rec.error != NULL) {
			cJSON_AddStringToObject(p, "error", t->rec.error);
			cJSON_AddStringToObject(p, "last_error", t->rec.error);
		}
	}
}

static void
add_phases(cJSON *root, const struct bench *b)
{
	cJSON *ph = cJSON_AddObjectToObject(root, "phases");
	char key[32];
	int p;

	for (p = 0; p < BENCH_N_PHASES; p++) {
		/* upstream's eight keys are always there; netprof's when run */
		if (!b->phase_ran[p] &&
		    !(bench_phases[p].flags & BENCH_PHASE_UPSTREAM))
			continue;
		snprintf(key, sizeof key, "%s_s", bench_phase_name(p));
		json_add_float(ph, key, round2(b->phase_s[p]));
	}
	add_phase_times(root, b, b->phase_at, b->phase_end);
}

cJSON *
bench_run_json(const struct bench *b)
{
	cJSON *root = cJSON_CreateObject(), *machines, *tot, *cfg, *kinds;
	size_t i;
	const struct probe_kind *k;

	if (root == NULL)
		return NULL;
	cJSON_AddStringToObject(root, "run_id", b->run_id);
	add_time(root, "started_at", b->started_at, 0);
	if (b->ended_at > 0)
		add_time(root, "ended_at", b->ended_at, 0);
	else
		cJSON_AddNullToObject(root, "ended_at");
	machines = cJSON_AddArrayToObject(root, "machines");
	for (i = 0; i < b->n; i++)
		cJSON_AddItemToArray(machines, machine_json(b, &b->hosts[i]));
	add_convergence(root, b);
	add_punch(root, b);
	bench_path_json(root, b);
	add_phases(root, b);
	tot = cJSON_AddObjectToObject(root, "totals");
	cJSON_AddNumberToObject(tot, "ok", (double)b->ok);
	cJSON_AddNumberToObject(tot, "failed", (double)b->failed);
	if (b->unsupported > 0)
		cJSON_AddNumberToObject(tot, "unsupported",
		    (double)b->unsupported);
	/* netprof's: what was asked, and how the run ended */
	cfg = cJSON_AddObjectToObject(root, "config");
	cJSON_AddNumberToObject(cfg, "latency_count", b->o->latency_count);
	cJSON_AddNumberToObject(cfg, "throughput_count",
	    b->o->throughput_count);
	cJSON_AddNumberToObject(cfg, "throughput_bytes",
	    (double)b->o->throughput_bytes);
	kinds = cJSON_AddArrayToObject(cfg, "kinds");
	for (k = probe_kinds; k->name != NULL; k++)
		if (k->via == PROBE_VIA_NODE &&
		    ((b->o->kinds >> probe_kind_index(k)) & 1))
			cJSON_AddItemToArray(kinds,
			    cJSON_CreateString(k->name));
	cJSON_AddBoolToObject(cfg, "serial", b->o->serial);
	if (b->o->throughput_mode != BENCH_TP_EXCLUSIVE && !b->o->serial)
		bench_throughput_json(cfg, b);	/* absent: exclusive */
	cJSON_AddBoolToObject(cfg, "baseline", b->o->baseline);
	cJSON_AddBoolToObject(root, "interrupted", b->interrupted);
	cJSON_AddBoolToObject(root, "kept", b->o->keep &&
	    !b->phase_ran[BENCH_TEARDOWN]);
	if (b->o->baseline) {
		tot = cJSON_AddObjectToObject(root, "baseline_totals");
		cJSON_AddNumberToObject(tot, "ok", (double)b->baseline_ok);
		cJSON_AddNumberToObject(tot, "failed",
		    (double)b->baseline_failed);
	}
	json_sort_keys(root);
	return root;
}

int
bench_run_json_write(const struct bench *b, char **cause)
{
	cJSON *root;
	char *text = NULL;
	int r = NP_ERR_NOMEM;

	*cause = NULL;
	/* json.dump(run, f, indent=2, sort_keys=True): no newline at the end */
	if ((root = bench_run_json(b)) == NULL ||
	    (text = json_print(root, 2)) == NULL)
		goto out;
	r = file_write_atomic(b->run_json_path, text, strlen(text),
	    file_new_mode() & 0644, cause);
out:
	free(text);
	cJSON_Delete(root);
	return r;
}
