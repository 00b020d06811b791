/*
 * The path each probe ran over: direct, hole-punched (direct after DCUtR)
 * or relayed, and through which relay. The node does not say (no endpoint
 * lists a connection's addresses; a circuit through an OpenTela relay is
 * as Connected as a direct connection), so netprof gathers what the node
 * and the network do say, in the path phase between the punch and the
 * sweep, on every host at once:
 * - reach: a TCP connect from the host to every other host's and every
 *   relay's libp2p port, one command over the host's SSH session (a
 *   connect that neither answers nor is refused within BENCH_REACH_WAIT_S is
 *   taken as dropped, as a stateful firewall drops it), begun as soon as
 *   every node is up, beside the convergence and the punch (not with
 *   --serial);
 * - the node's view: GET /metrics (its open circuits: go-libp2p's
 *   libp2p_swarm_connections_opened_total minus _closed_total for the
 *   transport p2p-circuit), GET /v1/dnt/peers_status (each peer's
 *   connectedness: Limited is only a limited circuit), GET /v1/dnt/peers
 *   (the relay of each peer's circuit address, the one a dial takes), GET
 *   /v1/dnt/table (each peer's relay_peer); taken again before the
 *   sweep's exclusive stage, so a throughput probe sees what the light
 *   ones opened.
 * A record's path is concluded from these and from the round trips of the
 * records written before it (bench_path_infer.c; how sure each conclusion
 * is: docs/otela-node.md) and written beside upstream's fields; run.json
 * keeps the reach checks and each node's circuits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_path.h"
#include "error.h"
#include "log.h"
#include "node_api.h"
#include "node_json.h"
#include "timeutil.h"
#include "util.h"

/* The reach command as a whole (its connects run at once). */
#define REACH_TIMEOUT (BENCH_REACH_WAIT_S + 25.0)
/* One call of a node view. */
#define VIEW_TIMEOUT 10.0

/* ---- views ---------------------------------------------------------- */

int
bench_view_cmp(const void *a, const void *b)
{
	const struct bench_peer_view *const *x = a, *const *y = b;
	int c = strcmp((*x)->id, (*y)->id);

	/* an id's entries in the order given: the first is kept */
	return c != 0 ? c : (*x > *y) - (*x < *y);
}

static int
peer_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bench_peer_view *)a)->id,
	    ((const struct bench_peer_view *)b)->id);
}

const struct bench_peer_view *
bench_view_peer(const struct bench_view *v, const char *id)
{
	struct bench_peer_view key = { .id = (char *)id };

	if (v == NULL || id == NULL || v->n == 0)
		return NULL;
	return bsearch(&key, v->peers, v->n, sizeof *v->peers, peer_cmp);
}

enum bench_conn
bench_conn_of(const char *c)
{
	if (c == NULL)
		return BENCH_CONN_UNKNOWN;
	if (strcmp(c, "Connected") == 0)
		return BENCH_CONN_CONNECTED;
	if (strcmp(c, "Limited") == 0)
		return BENCH_CONN_LIMITED;
	return BENCH_CONN_NONE;
}

void
bench_view_clear(struct bench_view *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free(v->peers[i].id);
		free(v->peers[i].relay_peer);
	}
	free(v->peers);
	memset(v, 0, sizeof *v);
	v->circuits = -1;
}

int
bench_view_take(struct bench_view *v, struct node_peer *peers, size_t n,
    int (*cmp)(const void *, const void *))
{
	struct bench_peer_view *all, *out, **order, *p, *q;
	size_t total = v->n + n, i, k = 0;

	if (n == 0)
		return 0;
	all = calloc(total, sizeof *all);
	order = calloc(total, sizeof *order);
	out = calloc(total, sizeof *out);
	if (all == NULL || order == NULL || out == NULL) {
		free(all);
		free(order);
		free(out);
		return NP_ERR_NOMEM;
	}
	/* the view's peers first (so they win a tie), then the new ones */
	if (v->n > 0)
		memcpy(all, v->peers, v->n * sizeof *all);
	for (i = 0; i < n; i++) {
		p = &all[v->n + i];
		p->id = peers[i].id;
		p->conn = (unsigned char)bench_conn_of(peers[i].connectedness);
		p->relay_peer = peers[i].relay_peer;
		p->circuit = (unsigned char)(peers[i].circuit &&
		    p->relay_peer != NULL);
		peers[i].id = peers[i].relay_peer = NULL;	/* taken */
	}
	for (i = 0; i < total; i++)
		order[i] = &all[i];
	/* sorted once: n log n comparisons for a table of any order */
	qsort(order, total, sizeof *order, cmp);
	for (i = 0; i < total; i++) {
		p = order[i];
		if (k > 0 && strcmp((q = &out[k - 1])->id, p->id) == 0) {
			/* the same peer again: it fills what is missing */
			if (q->conn == BENCH_CONN_UNKNOWN)
				q->conn = p->conn;
			if (q->relay_peer == NULL) {
				q->relay_peer = p->relay_peer;
				q->circuit = p->circuit;
				p->relay_peer = NULL;
			}
			free(p->id);
			free(p->relay_peer);
			continue;
		}
		out[k++] = *p;
	}
	free(v->peers);
	free(all);
	free(order);
	v->peers = out;
	v->n = k;
	return 0;
}

static void
take_metrics(struct bench_host *h, const struct node_reply *r)
{
	struct bench_path_host *ph = h->path;
	struct bench_counters c;

	/* no swarm counters at all: another node, circuits unknown */
	if (!bench_counters_read(r->body, r->body_len, &c))
		return;
	ph->views[ph->reading].circuits = (long)bench_counters_open(&c);
	if (ph->reading == 0)	/* the sweep's "before" */
		h->counters[0] = c;
}

/* peers_status's connectedness (step 1), the relay of each peer's
   circuit address (2: the one a dial of it takes), the table's
   relay_peer (3: its own reservation); the earlier step's relay wins */
static int (*const peer_parsers[])(const char *, size_t,
    struct node_peer **, size_t *, char **) = { NULL,
	node_parse_peers_status, node_parse_peers_circuits,
	node_parse_table_relays };

static void
take_peers(struct bench_view *v, const struct node_reply *r, int step)
{
	struct node_peer *peers = NULL;
	char *cause = NULL;
	size_t n = 0;

	/* a view without a peer says it is not connected only when read
	   whole */
	if (peer_parsers[step](r->body, r->body_len, &peers, &n, &cause) ==
	    0 && bench_view_take(v, peers, n, bench_view_cmp) == 0 &&
	    step == 1)
		v->status_read = 1;
	node_peers_free(peers, n);
	free(cause);
}

static const char *const view_paths[] = { "/metrics",
	"/v1/dnt/peers_status", "/v1/dnt/peers", "/v1/dnt/table" };
#define VIEW_STEPS (sizeof view_paths / sizeof *view_paths)

static void view_next(struct bench_host *h);

static void
view_reply_cb(const struct machine *m, const struct node_reply *r, void *arg)
{
	struct bench_host *h = arg;
	struct bench_path_host *ph = h->path;
	struct bench_view *v = &ph->views[ph->reading];

	(void)m;
	h->call = NULL;
	if (r->error == NP_OK && r->status == 200) {
		v->taken = 1;
		if (ph->step == 0)
			take_metrics(h, r);
		else
			take_peers(v, r, ph->step);
	} else
		log_debug(m->name, "path: GET %s: %s", view_paths[ph->step],
		    r->error != NP_OK ? (r->error_text != NULL ?
		    r->error_text : error_string(r->error)) : "not 200");
	ph->step = r->error == NP_ERR_CANCELLED ? (int)VIEW_STEPS :
	    ph->step + 1;
	view_next(h);
}

/* The host's view read whole (or given up): tell whoever asked. */
static void
view_end(struct bench_host *h)
{
	struct bench *b = h->b;

	if (h->path->in_phase) {
		h->path->in_phase = 0;
		bench_host_step_done(h);
		return;
	}
	if (b->views_pending > 0 && --b->views_pending == 0 &&
	    b->views_done != NULL)
		b->views_done(b);
}

static void
view_next(struct bench_host *h)
{
	struct bench_path_host *ph = h->path;
	int r;

	while ((size_t)ph->step < VIEW_STEPS && !h->b->interrupted) {
		/* the path phase's step has a span; the views between
		   the sweep's stages belong to none */
		r = node_api_call(h->b->api, h->m, h->http_port, "GET",
		    view_paths[ph->step], NULL, VIEW_TIMEOUT, ph->in_phase ?
		    h->span : NULL, view_reply_cb, h, &h->call);
		if (r == 0)
			return;
		ph->step++;
	}
	view_end(h);
}

static void
view_start(struct bench_host *h, int which)
{
	struct bench_path_host *ph = h->path;

	bench_view_clear(&ph->views[which]);
	ph->reading = which;
	ph->step = 0;
	view_next(h);
}

int
bench_path_views(struct bench *b, void (*done)(struct bench *b))
{
	size_t i, live = 0;

	if (b->view + 1 >= BENCH_N_VIEWS)
		return 0;
	b->view++;
	for (i = 0; i < b->n; i++)
		live += !b->hosts[i].failed && b->hosts[i].path != NULL;
	if (live == 0)
		return 0;
	b->views_pending = live;
	b->views_done = done;
	for (i = 0; i < b->n; i++)
		if (!b->hosts[i].failed && b->hosts[i].path != NULL)
			view_start(&b->hosts[i], b->view);
	return 1;
}

/* ---- the path phase's step: reach, then the first view -------------- */

/* A target is checked from h unless it is h or a failed host. */
static int
checked(const struct bench *b, const struct bench_host *h, size_t i)
{
	return i >= b->n || (&b->hosts[i] != h && !b->hosts[i].failed);
}

/* The targets checked from h, in the command's order, and their
   checks: n, or -1 without memory. */
static long
reach_targets(struct bench_host *h, struct bench_reach_target **t,
    struct bench_reach ***r)
{
	struct bench *b = h->b;
	size_t nt = b->n + b->n_relays, i, n = 0;

	*t = calloc(nt + 1, sizeof **t);
	*r = calloc(nt + 1, sizeof **r);
	if (*t == NULL || *r == NULL) {
		free(*t);
		free(*r);
		return -1;
	}
	for (i = 0; i < nt; i++) {
		if (!h->path->reach[i].asked)
			continue;
		(*t)[n].address = bench_target_address(b, i);
		(*t)[n].port = bench_target_port(b, i);
		(*r)[n++] = &h->path->reach[i];
	}
	return (long)n;
}

static void
take_reach(struct bench_host *h, const char *out)
{
	struct bench_reach_target *t;
	struct bench_reach **r;
	long n = reach_targets(h, &t, &r);

	if (n < 0)
		return;
	bench_path_reach_read(t, r, (size_t)n, BENCH_REACH_WAIT_S, out);
	free(t);
	free(r);
}

static void
reach_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	h->path->reach_job = NULL;
	h->path->reach_state = 2;
	if (res->error == NP_OK)
		take_reach(h, res->out);
	else
		log_debug(m->name, "path: reach checks: %s", res->error_text !=
		    NULL ? res->error_text : error_string(res->error));
	if (!h->path->in_phase)	/* begun early: the step takes it later */
		return;
	if (h->b->interrupted) {
		h->path->in_phase = 0;
		bench_host_step_done(h);
		return;
	}
	view_start(h, 0);
}

static int
path_host_new(struct bench_host *h)
{
	struct bench *b = h->b;
	size_t i;

	if (h->path != NULL)
		return 0;
	if ((h->path = calloc(1, sizeof *h->path)) == NULL ||
	    (h->path->reach = calloc(b->n + b->n_relays + 1,
	    sizeof *h->path->reach)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < b->n + b->n_relays; i++)
		h->path->reach[i].tcp = -1;
	for (i = 0; i < BENCH_N_VIEWS; i++)
		h->path->views[i].circuits = -1;
	return 0;
}

/* The reach checks of h on a job of their own (reach_done_cb). */
static int
reach_submit(struct bench_host *h)
{
	struct bench *b = h->b;
	struct bench_reach_target *t;
	struct bench_reach **r;
	struct engine_request req = { .timeout_s = REACH_TIMEOUT,
	    .on_done = reach_done_cb, .arg = h };
	char *cmd;
	size_t i;
	long n;
	int rc = NP_ERR_NOMEM;

	for (i = 0; i < b->n + b->n_relays; i++)	/* its order */
		h->path->reach[i].asked = (unsigned char)checked(b, h, i);
	if ((n = reach_targets(h, &t, &r)) < 0)
		return NP_ERR_NOMEM;
	if ((req.command = cmd = bench_path_reach_command(t, (size_t)n,
	    BENCH_REACH_WAIT_S)) != NULL) {
		log_debug(h->m->name, "path: %s", cmd);
		if ((rc = engine_submit(b->engine, h->m, &req,
		    &h->path->reach_job)) == 0)
			h->path->reach_state = 1;
	}
	free(cmd);
	free(t);
	free(r);
	return rc;
}

/* Begun beside the convergence and the punch: the step takes them. */
void
bench_path_reach_begin(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (!b->hosts[i].failed && path_host_new(&b->hosts[i]) == 0 &&
		    reach_submit(&b->hosts[i]) == 0)	/* else the step's */
			b->hosts[i].step_at[BENCH_PATH] = time_wall();
}

int
bench_path_host(struct bench_host *h)
{
	int r;

	if ((r = path_host_new(h)) != 0)
		return r;
	h->path->in_phase = 1;
	if (h->path->reach_state == 2)
		view_start(h, 0);
	else if (h->path->reach_state == 0 && (r = reach_submit(h)) != 0)
		h->path->in_phase = 0;
	return r;
}

/* ---- a record's path ---------------------------------------------- */

static const char *const class_names[] = { NULL, RECORD_PATH_DIRECT,
	RECORD_PATH_PUNCHED, RECORD_PATH_RELAYED };

/* "ADDR:PORT" of target i, into buf. */
static const char *
target_at(const struct bench *b, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%d", bench_target_address(b, i),
	    bench_target_port(b, i));
	return buf;
}

const char *
bench_path_relay_peer(const struct bench_path_host *s,
    const struct bench_path_host *d, const char *sid, const char *id,
    int view, enum bench_relay_how *how)
{
	const struct bench_path_host *end[3] = { s, d, d };
	const struct bench_peer_view *p;
	int k, w;

	for (k = 0; k < 3; k++)
		for (w = view; end[k] != NULL && w >= 0; w = w > 0 ? 0 : -1)
			if ((p = bench_view_peer(&end[k]->views[w], k < 2 ? id :
			    sid)) != NULL && p->relay_peer != NULL) {
				if (how != NULL)
					*how = k == 2 ? BENCH_RELAY_SOURCE :
					    p->circuit ? BENCH_RELAY_CIRCUIT :
					    BENCH_RELAY_TABLE;
				return p->relay_peer;
			}
	return NULL;
}

/*
 * Did the punch step's DCUtR join src and dst (ok after attempts, no
 * error)? A node without the punch service (the real one at e0591341,
 * whose answer is ok after attempts with 'hole punch service not
 * initialized') never does, and no circuit missing from its metrics makes
 * up for that.
 */
int
bench_path_punched(const struct bench *b, size_t src, size_t dst)
{
	size_t i;

	for (i = 0; i < b->n_task_sets[BENCH_PUNCH]; i++) {
		const struct bench_task *p = &b->task_sets[BENCH_PUNCH][i];

		if (p->src == src && p->dst == dst)
			return p->state == 2 && p->rec.ok && p->attempts > 0 &&
			    p->rec.error == NULL;
	}
	return 0;
}

/* The host or relay of PeerID id: its index as a target, or -1. */
static long
target_of(const struct bench *b, const char *id)
{
	size_t i;

	for (i = 0; i < b->n + b->n_relays; i++)
		if (bench_target_peer_id(b, i) != NULL &&
		    strcmp(bench_target_peer_id(b, i), id) == 0)
			return (long)i;
	return -1;
}

/* A task's fastest round trip (its metrics' min_ms), or 0. */
static double
task_fastest(const struct bench_task *t)
{
	double v;

	if (!t->rec.ok || !record_metric_value(&t->rec, "min_ms", &v) ||
	    v <= 0)
		return 0;
	return v;
}

/* A direct TCP connect's time between src and dst, ms: src's, else
   dst's; 0 unknown. */
static double
handshake_ms(const struct bench_reach *st, const struct bench_reach *ts)
{
	if (st != NULL && st->tcp == 1 && st->connect_us > 0)
		return (double)st->connect_us / 1000.0;
	if (ts != NULL && ts->tcp == 1 && ts->connect_us > 0)
		return (double)ts->connect_us / 1000.0;
	return 0;
}

static const struct bench_reach *
reach_of(const struct bench *b, size_t from, size_t to)
{
	return from < b->n && b->hosts[from].path != NULL ?
	    &b->hosts[from].path->reach[to] : NULL;
}

/* The fastest round trip through the nodes from host x to host (or
   relay) y, and with both the other way too, of the tasks written so
   far; 0 none. */
static double
fastest_between(const struct bench *b, size_t x, size_t y, int both)
{
	double best = 0;
	size_t i;

	for (i = 0; i < b->pairs.n; i++) {
		const struct bench_task *o = &b->pairs.tasks[i];

		if (((o->src == x && o->dst == y) || (both && o->src == y &&
		    o->dst == x)) && o->fastest_ms > 0 && (best == 0 ||
		    o->fastest_ms < best))
			best = o->fastest_ms;
	}
	return best;
}

/* A written task's round trip over its direct handshake, where nothing
   but a direct connection can have carried it (no circuit open at
   either end); -1 otherwise. */
static double
direct_excess(const struct bench *b, const struct bench_task *o)
{
	const struct bench_path_host *s = b->hosts[o->src].path, *d;
	double hs;

	if (o->fastest_ms <= 0 || o->path != BENCH_PATH_DIRECT ||
	    o->dst >= b->n || s == NULL ||
	    (d = b->hosts[o->dst].path) == NULL ||
	    !bench_path_no_circuit(s->views[o->view].circuits,
	    d->views[o->view].circuits) ||
	    (hs = handshake_ms(&s->reach[o->dst], &d->reach[o->src])) <= 0)
		return -1;
	return o->fastest_ms > hs ? o->fastest_ms - hs : 0;
}

static int
ms_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The samples of the run's inflation taken (the first in task order). */
#define EXCESS_SAMPLES 63

/*
 * What t's round trip is held against (bench_path_infer()): the pair's
 * fastest so far (t's own and the pair's tasks written before it), the
 * run's inflation, and its legs through relay (a target's index, or -1):
 * round trips through the nodes where both were measured, else the TCP
 * handshakes of the reach checks.
 */
static void
timing(const struct bench *b, const struct bench_task *t, long relay,
    struct bench_path_in *in)
{
	double ex[EXCESS_SAMPLES], x;
	size_t i, n = 0, end[2] = { t->src, t->dst }, r = (size_t)relay;
	int k;

	/* t's own among them: a kind slower than another (latency's over
	   libp2p_ping's) or a sample stretched by load does not make the
	   pair slow */
	in->rtt_ms = fastest_between(b, t->src, t->dst, 0);
	for (i = 0; i < b->pairs.n && n < EXCESS_SAMPLES; i++)
		if (&b->pairs.tasks[i] != t &&
		    (x = direct_excess(b, &b->pairs.tasks[i])) >= 0)
			ex[n++] = x;
	if (n > 0) {
		qsort(ex, n, sizeof *ex, ms_cmp);
		in->excess_ms = n % 2 ? ex[n / 2] :
		    (ex[n / 2 - 1] + ex[n / 2]) / 2;
	}
	if (relay < 0 || r == t->src || r == t->dst)
		return;
	in->legs_measured = 1;
	for (k = 0; k < 2; k++)
		if ((in->legs_ms[k] = fastest_between(b, end[k], r, 1)) <= 0)
			in->legs_measured = 0;
	for (k = 0; k < 2 && !in->legs_measured; k++)
		in->legs_ms[k] = handshake_ms(reach_of(b, end[k], r),
		    reach_of(b, r, end[k]));
}

void
bench_path_record(struct bench *b, struct bench_task *t, struct record *rec,
    char **evidence)
{
	const struct bench_host *s = &b->hosts[t->src];
	const struct bench_host *d = t->dst < b->n ? &b->hosts[t->dst] : NULL;
	const char *tid = bench_target_peer_id(b, t->dst), *relay;
	const char *sid = bench_target_peer_id(b, t->src);
	const struct bench_view *vs = NULL, *vd = NULL;
	const struct bench_peer_view *pv;
	struct bench_path_in in = { 0 };
	struct bench_path_out out;
	char sat[300], tat[300];
	struct buf e = { 0 };
	enum bench_relay_how how = BENCH_RELAY_TABLE;
	long ri;

	*evidence = NULL;
	t->path = BENCH_PATH_UNKNOWN;
	t->relay = -1;
	if (s->path != NULL)
		vs = &s->path->views[t->view];
	if (d != NULL && d->path != NULL)
		vd = &d->path->views[t->view];
	in.source = s->m->name;
	in.target = bench_target_name(b, t->dst);
	in.source_at = target_at(b, t->src, sat, sizeof sat);
	in.target_at = target_at(b, t->dst, tat, sizeof tat);
	in.ok = t->rec.ok;
	in.st = s->path != NULL ? &s->path->reach[t->dst] : NULL;
	in.ts = d != NULL && d->path != NULL ? &d->path->reach[t->src] : NULL;
	in.circuits_s = vs != NULL && vs->taken ? vs->circuits : -1;
	in.circuits_t = vd != NULL && vd->taken ? vd->circuits : -1;
	in.punched = bench_path_punched(b, t->src, t->dst);
	in.handshake_ms = handshake_ms(in.st, in.ts);
	t->fastest_ms = task_fastest(t);	/* its metrics go once written */
	/* the other tasks are scanned only where the round trip can tell
	   (bench_path_infer(): a handshake, circuits not ruled out) */
	if (in.handshake_ms > 0 && !bench_path_no_circuit(in.circuits_s,
	    in.circuits_t))
		timing(b, t, tid != NULL && (relay = bench_path_relay_peer(
		    s->path, d != NULL ? d->path : NULL, sid, tid, t->view,
		    NULL)) != NULL ? target_of(b, relay) : -1, &in);
	/* a peer the node does not list has never been connected */
	if (vs != NULL && vs->status_read)
		in.conn = (pv = bench_view_peer(vs, tid)) != NULL ?
		    (enum bench_conn)pv->conn : BENCH_CONN_NONE;
	if (bench_path_infer(&in, &out) != 0)
		return;
	t->path = (unsigned char)out.path;
	rec->path = class_names[out.path];
	rec->path_known = out.path == BENCH_PATH_UNKNOWN ? NULL :
	    out.reported ? RECORD_PATH_REPORTED : RECORD_PATH_INFERRED;
	if (out.evidence != NULL)
		buf_printf(&e, "%s", out.evidence);
	free(out.evidence);
	if (out.path == BENCH_PATH_RELAYED && tid != NULL &&
	    (relay = bench_path_relay_peer(s->path, d != NULL ? d->path :
	    NULL, sid, tid, t->view, &how)) != NULL) {
		ri = target_of(b, relay);
		t->relay = ri;
		rec->relay_peer_id = ri >= 0 ? bench_target_peer_id(b,
		    (size_t)ri) : relay;
		rec->relay = ri >= 0 ? bench_target_name(b, (size_t)ri) : NULL;
		if (how == BENCH_RELAY_SOURCE)
			buf_printf(&e, "; relay: %s's own, in %s's view (%s "
			    "knows no relay of %s's, so their one connection "
			    "is %s's dial of %s's circuit)", in.source,
			    in.target, in.source, in.target, in.target,
			    in.source);
		else
			buf_printf(&e, how == BENCH_RELAY_CIRCUIT ? "; relay: "
			    "the one in %s's circuit address in the node's "
			    "peer store (the address a dial of it takes)" :
			    "; relay: %s's relay_peer in the node table (its "
			    "reservation; likely the circuit's relay)",
			    in.target);
	}
	*evidence = e.data;
	rec->path_evidence = e.data;
}

/* ---- run.json ------------------------------------------------------ */

void
bench_path_json(cJSON *root, const struct bench *b)
{
	cJSON *reach, *o;
	char key[512];
	size_t i, k;

	if (!b->phase_ran[BENCH_PATH])
		return;
	/* the --bootstrap relays, for heatmap --advise's patch */
	o = b->n_relays > 0 ? cJSON_AddObjectToObject(root, "relays") : NULL;
	for (i = 0; i < b->n_relays; i++)
		cJSON_AddStringToObject(o, b->relays[i].name,
		    b->relays[i].multiaddr);
	reach = cJSON_AddObjectToObject(root, "reach");
	for (i = 0; i < b->n; i++) {
		const struct bench_path_host *ph = b->hosts[i].path;

		for (k = 0; ph != NULL && k < b->n + b->n_relays; k++) {
			const struct bench_reach *r = &ph->reach[k];

			if (r->tcp < 0)
				continue;
			snprintf(key, sizeof key, "%s->%s",
			    b->hosts[i].m->name, bench_target_name(b, k));
			o = cJSON_AddObjectToObject(reach, key);
			cJSON_AddBoolToObject(o, "tcp", r->tcp);
			cJSON_AddStringToObject(o, "target", bench_target_address(
			    b, k));
			cJSON_AddNumberToObject(o, "port", bench_target_port(b,
			    k));
			if (r->why != NULL)
				cJSON_AddStringToObject(o, "error", r->why);
			if (r->tcp == 1 && r->connect_us > 0)
				cJSON_AddNumberToObject(o, "connect_ms",
				    (double)r->connect_us / 1000.0);
		}
	}
}

/* A machine's circuits in each view read: [before the sweep, before its
   exclusive stage], null where unknown; NULL when none was read. */
cJSON *
bench_path_machine_json(const struct bench *b, const struct bench_host *h)
{
	cJSON *a;
	int v;

	(void)b;
	if (h->path == NULL || !h->path->views[0].taken)
		return NULL;
	if ((a = cJSON_CreateArray()) == NULL)
		return NULL;
	for (v = 0; v < BENCH_N_VIEWS; v++) {
		const struct bench_view *w = &h->path->views[v];

		cJSON_AddItemToArray(a, w->taken && w->circuits >= 0 ?
		    cJSON_CreateNumber((double)w->circuits) :
		    cJSON_CreateNull());
	}
	return a;
}

void
bench_path_free(struct bench *b)
{
	size_t i, k;
	int v;

	for (i = 0; b->hosts != NULL && i < b->n; i++) {
		struct bench_path_host *ph = b->hosts[i].path;

		if (ph == NULL)
			continue;
		for (k = 0; k < b->n + b->n_relays; k++)
			free(ph->reach[k].why);
		free(ph->reach);
		for (v = 0; v < BENCH_N_VIEWS; v++)
			bench_view_clear(&ph->views[v]);
		free(ph);
		b->hosts[i].path = NULL;
	}
}
