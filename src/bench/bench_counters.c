/*
 * The nodes' own counters as the path's witness. go-libp2p counts what a
 * node did at GET /metrics: the connections it opened and closed by
 * transport (p2p-circuit: a circuit through a relay that it dialled), the
 * circuits its relay service carried, its hole punches' outcomes (only
 * where the service runs). bench reads them twice on every node: in the path phase's view
 * (before the sweep, bench_path.c) and at the sweep's end, before the
 * stop is sent (at once on every node, each call bounded by
 * AFTER_TIMEOUT). run.json keeps each machine's deltas; a record whose
 * path they contradict (relayed where neither end had a circuit through
 * the whole sweep, hole-punched by the punch step where no end counted a
 * punch) gets it said in its path_evidence: the records are written as
 * their probes end, before the second read, so measurements.jsonl is
 * rewritten once at the run's end when there is such a record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_counters.h"
#include "error.h"
#include "file.h"
#include "json_write.h"
#include "log.h"
#include "node_api.h"
#include "node_json.h"
#include "util.h"

/* Seconds the read at the sweep's end may take on a node. */
#define AFTER_TIMEOUT 3.0

/* ---- a read --------------------------------------------------------- */

static double
sum(const char *text, size_t len, const char *name, const char *label,
    const char *value, int *found)
{
	double v = 0;

	if (node_metric_sum(text, len, name, label, value, &v) && found != NULL)
		*found = 1;
	return v;
}

int
bench_counters_read(const char *text, size_t len, struct bench_counters *c)
{
	static const char *const punch_words[] = { "success", "failed",
		"no_suitable_address" };
	int found = 0;
	size_t i;

	memset(c, 0, sizeof *c);
	/* a counter that has not counted is not there yet: 0 */
	(void)sum(text, len, "libp2p_swarm_connections_opened_total", NULL,
	    NULL, &found);
	if (!found)
		return 0;
	c->taken = 1;
	c->circuits_opened = sum(text, len,
	    "libp2p_swarm_connections_opened_total", "transport",
	    "p2p-circuit", NULL);
	c->circuits_closed = sum(text, len,
	    "libp2p_swarm_connections_closed_total", "transport",
	    "p2p-circuit", NULL);
	/* the relay service's counters are registered with its status
	   gauge; a series of theirs is there once it has counted */
	found = 0;
	(void)sum(text, len, "libp2p_relaysvc_status", NULL, NULL, &found);
	(void)sum(text, len, "libp2p_relaysvc_connections_total", NULL, NULL,
	    &found);
	c->relay = (unsigned char)found;
	c->relay_opened = sum(text, len, "libp2p_relaysvc_connections_total",
	    "type", "opened", NULL);
	c->relay_closed = sum(text, len, "libp2p_relaysvc_connections_total",
	    "type", "closed", NULL);
	c->relay_bytes = sum(text, len,
	    "libp2p_relaysvc_data_transferred_bytes_total", NULL, NULL, NULL);
	c->relay_reservations = sum(text, len,
	    "libp2p_relaysvc_reservations_total", "type", "opened", NULL);
	found = 0;
	for (i = 0; i < 3; i++)
		c->punch[BENCH_HP_SUCCESS + i] = sum(text, len,
		    "libp2p_holepunch_outcomes_total", "outcome",
		    punch_words[i], &found);
	c->holepunch = (unsigned char)found;
	for (i = 0; i < 2; i++)
		c->punch[BENCH_HP_DIAL_SUCCESS + i] = sum(text, len,
		    "libp2p_holepunch_direct_dials_total", "outcome",
		    punch_words[i], NULL);
	return 1;
}

double
bench_counters_open(const struct bench_counters *c)
{
	return c->circuits_opened > c->circuits_closed ?
	    c->circuits_opened - c->circuits_closed : 0;
}

/* a counter's growth from a to b (a node's counters never go back) */
static double
grew(double a, double b)
{
	return b > a ? b - a : 0;
}

cJSON *
bench_counters_json(const struct bench_counters *a,
    const struct bench_counters *z)
{
	static const char *const punch_keys[BENCH_HP_N] = { "success",
		"failed", "no_suitable_address", "direct_dial_success",
		"direct_dial_failed" };
	cJSON *o, *hp;
	size_t i;

	if (!a->taken || !z->taken || (o = cJSON_CreateObject()) == NULL)
		return NULL;
	cJSON_AddNumberToObject(o, "circuits_open_before",
	    bench_counters_open(a));
	cJSON_AddNumberToObject(o, "circuits_opened", grew(a->circuits_opened,
	    z->circuits_opened));
	cJSON_AddNumberToObject(o, "circuits_closed", grew(a->circuits_closed,
	    z->circuits_closed));
	if (a->relay && z->relay) {
		cJSON_AddNumberToObject(o, "relay_circuits_served",
		    grew(a->relay_opened, z->relay_opened));
		cJSON_AddNumberToObject(o, "relay_bytes", grew(a->relay_bytes,
		    z->relay_bytes));
		cJSON_AddNumberToObject(o, "relay_reservations",
		    grew(a->relay_reservations, z->relay_reservations));
	}
	/* the punch phase comes before the first read: the node's own
	   totals, since it started in this run */
	if (z->holepunch &&
	    (hp = cJSON_AddObjectToObject(o, "holepunch_since_start")) != NULL)
		for (i = 0; i < BENCH_HP_N; i++)
			cJSON_AddNumberToObject(hp, punch_keys[i],
			    z->punch[i]);
	return o;
}

/* ---- the check ------------------------------------------------------ */

static int
known(const struct bench_counters_end *e)
{
	return e != NULL && e->before != NULL && e->after != NULL &&
	    e->before->taken && e->after->taken;
}

static double
opened_during(const struct bench_counters_end *e)
{
	return grew(e->before->circuits_opened, e->after->circuits_opened);
}

/* A circuit open at the end at some time of the sweep. */
static int
had_circuit(const struct bench_counters_end *e)
{
	return bench_counters_open(e->before) > 0 || opened_during(e) > 0;
}

static double
punches(const struct bench_counters_end *e)
{
	return e->after->punch[BENCH_HP_SUCCESS] +
	    e->after->punch[BENCH_HP_DIAL_SUCCESS];
}

/* the next reason: the first after the words that say what it is */
static struct buf *
reason(struct buf *e)
{
	buf_printf(e, "%s", e->len == 0 ? "counters disagree: " : "; ");
	return e;
}

char *
bench_counters_disagree(const char *path,
    const struct bench_counters_end *s, const struct bench_counters_end *t,
    const struct bench_counters_end *relay, int punched)
{
	const struct bench_counters_end *end[2] = { s, t }, *x, *y;
	struct buf e = { 0 };
	int k;

	if (strcmp(path, RECORD_PATH_RELAYED) == 0) {
		/* go-libp2p counts a circuit at the end that dialled it
		   only (bench_path_no_circuit()) */
		if (known(s) && known(t) && !had_circuit(s) &&
		    !had_circuit(t))
			buf_printf(reason(&e), "neither %s nor %s had a "
			    "circuit open at the sweep's start or opened one "
			    "during it", s->name, t->name);
		if (known(relay) && relay->before->relay &&
		    relay->after->relay && relay->before->relay_opened <=
		    relay->before->relay_closed && relay->after->relay_opened <=
		    relay->before->relay_opened)
			buf_printf(reason(&e), "%s, named its relay, relayed "
			    "no circuit at the sweep's start or during it",
			    relay->name);
		return e.data;
	}
	if (strcmp(path, RECORD_PATH_PUNCHED) != 0 || !known(s) || !known(t))
		return NULL;
	if (punched && s->after->holepunch && t->after->holepunch &&
	    punches(s) + punches(t) == 0)
		buf_printf(reason(&e), "the punch step joined them, yet "
		    "neither %s nor %s counted a hole punch or direct dial "
		    "that succeeded", s->name, t->name);
	/* an end with none open at the start that opened some, and a
	   circuit at the other end: the pair may have taken one */
	for (k = 0; k < 2; k++) {
		x = end[k];
		y = end[1 - k];
		if (bench_counters_open(x->before) == 0 &&
		    opened_during(x) > 0 && had_circuit(y)) {
			buf_printf(reason(&e), "%s opened circuits during the "
			    "sweep with none open at its start, and %s had "
			    "one: the pair may have run over one", x->name,
			    y->name);
			break;
		}
	}
	return e.data;
}

/* ---- the read at the sweep's end ------------------------------------ */

static void
after_cb(const struct machine *m, const struct node_reply *r, void *arg)
{
	struct bench_host *h = arg;
	struct bench *b = h->b;
	void (*done)(struct bench *b);

	h->call = NULL;
	if (r->error == NP_OK && r->status == 200)
		(void)bench_counters_read(r->body, r->body_len,
		    &h->counters[1]);
	else
		log_debug(m->name, "counters: GET /metrics: %s", r->error !=
		    NP_OK ? (r->error_text != NULL ? r->error_text :
		    error_string(r->error)) : "not 200");
	if (b->views_pending > 0 && --b->views_pending == 0 &&
	    (done = b->views_done) != NULL) {
		b->views_done = NULL;
		done(b);
	}
}

int
bench_counters_after(struct bench *b, void (*done)(struct bench *b))
{
	size_t i, asked = 0;

	if (b->interrupted)
		return 0;
	for (i = 0; i < b->n; i++) {
		struct bench_host *h = &b->hosts[i];

		/* a node whose first read said nothing says nothing now */
		if (h->failed || h->path == NULL || h->call != NULL ||
		    !h->counters[0].taken)
			continue;
		if (node_api_call(b->api, h->m, h->http_port, "GET", "/metrics",
		    NULL, AFTER_TIMEOUT, NULL, after_cb, h, &h->call) == 0)
			asked++;
	}
	if (asked == 0)
		return 0;
	b->views_pending = asked;
	b->views_done = done;
	return 1;
}

/* ---- the records ---------------------------------------------------- */

/* The host named name: its index, or -1 (a --bootstrap relay, unknown). */
static long
host_of(const struct bench *b, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < b->n; i++)
		if (strcmp(b->hosts[i].m->name, name) == 0)
			return (long)i;
	return -1;
}

static const struct bench_counters_end *
end_of(const struct bench *b, long i, struct bench_counters_end *e)
{
	if (i < 0 || b->hosts[i].path == NULL)
		return NULL;
	e->name = b->hosts[i].m->name;
	e->before = &b->hosts[i].counters[0];
	e->after = &b->hosts[i].counters[1];
	return e;
}

/* What the counters say against the path of the pair src -> dst. */
static char *
pair_note(const struct bench *b, bench_punched_fn punched, long src,
    long dst, const char *path, long relay)
{
	struct bench_counters_end es, et, er;

	return bench_counters_disagree(path, end_of(b, src, &es),
	    end_of(b, dst, &et), end_of(b, relay, &er), src >= 0 && dst >= 0 &&
	    punched(b, (size_t)src, (size_t)dst));
}

/* Does any sweep record say a path the counters contradict? */
static int
any_disagrees(const struct bench *b, bench_punched_fn punched)
{
	static const char *const words[] = { NULL, NULL, RECORD_PATH_PUNCHED,
		RECORD_PATH_RELAYED };
	size_t i;
	char *note;

	for (i = 0; i < b->n_task_sets[BENCH_SWEEP]; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_SWEEP][i];

		if (t->path != BENCH_PATH_PUNCHED &&
		    t->path != BENCH_PATH_RELAYED)
			continue;
		note = pair_note(b, punched, (long)t->src, t->dst < b->n ?
		    (long)t->dst : -1, words[t->path], t->relay >= 0 &&
		    (size_t)t->relay < b->n ? t->relay : -1);
		free(note);
		if (note != NULL)
			return 1;
	}
	return 0;
}

static const char *
str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * The line, its path_evidence with the counters' note at its end, as a
 * new string; NULL: the line stays (or no memory: it stays too). Only
 * the evidence's text changes: the rest is the line's own bytes.
 */
static char *
amend_line(const struct bench *b, bench_punched_fn punched, const char *line)
{
	static const char key[] = "\"path_evidence\": ";
	cJSON *o = NULL, *ev, *now = NULL;
	const char *path, *old, *at;
	char *note = NULL, *was = NULL, *text = NULL, *out = NULL;
	size_t wl;

	if ((strstr(line, "\"path\": \"" RECORD_PATH_RELAYED "\"") == NULL &&
	    strstr(line, "\"path\": \"" RECORD_PATH_PUNCHED "\"") == NULL) ||
	    (o = cJSON_Parse(line)) == NULL ||
	    (path = str_of(o, RECORD_F_PATH)) == NULL ||
	    (note = pair_note(b, punched, host_of(b, str_of(o,
	    RECORD_F_SOURCE)),
	    host_of(b, str_of(o, RECORD_F_TARGET)), path, host_of(b, str_of(o,
	    RECORD_F_RELAY)))) == NULL)
		goto out;
	ev = cJSON_GetObjectItemCaseSensitive(o, RECORD_F_PATH_EVIDENCE);
	old = cJSON_IsString(ev) ? ev->valuestring : NULL;
	if (ev == NULL || (was = json_print(ev, 0)) == NULL ||
	    (text = old != NULL ? str_printf("%s; %s", old, note) :
	    strdup(note)) == NULL || (now = cJSON_CreateString(text)) ==
	    NULL)
		goto out;
	free(text);
	if ((text = json_print(now, 0)) == NULL ||
	    (at = strstr(line, key)) == NULL ||
	    strncmp(at + sizeof key - 1, was, wl = strlen(was)) != 0)
		goto out;
	at += sizeof key - 1;
	out = str_printf("%.*s%s%s", (int)(at - line), line, text, at + wl);
out:
	cJSON_Delete(o);
	cJSON_Delete(now);
	free(note);
	free(was);
	free(text);
	return out;
}

int
bench_counters_amend(struct bench *b, bench_punched_fn punched, char **cause)
{
	struct file_atomic fa = { 0 };
	FILE *in;
	char *line = NULL, *fixed;
	size_t cap = 0, n = 0;
	int r;

	*cause = NULL;
	if (b->records_path == NULL || !any_disagrees(b, punched))
		return 0;
	if ((in = fopen(b->records_path, "r")) == NULL) {
		*cause = str_printf("%s: %s", b->records_path,
		    strerror(errno));
		return NP_ERR_IO;
	}
	if ((r = file_atomic_open(&fa, b->records_path, cause)) != 0) {
		fclose(in);
		return r;
	}
	while (getline(&line, &cap, in) != -1) {
		fixed = amend_line(b, punched, line);
		n += fixed != NULL;
		fputs(fixed != NULL ? fixed : line, fa.f);
		free(fixed);
	}
	free(line);
	if (ferror(in)) {
		*cause = str_printf("%s: %s", b->records_path,
		    strerror(errno));
		fclose(in);
		file_atomic_abort(&fa);
		return NP_ERR_IO;
	}
	fclose(in);
	if ((r = file_atomic_commit(&fa, file_new_mode() & 0644, cause)) == 0)
		log_info("%s: %zu record%s whose path the nodes' counters "
		    "disagree with, said in path_evidence", b->records_path, n,
		    n == 1 ? "" : "s");
	return r;
}
