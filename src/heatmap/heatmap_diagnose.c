/*
 * The bench documentation's "Interpreting results", as rules over the
 * heatmap: each rule walks the cells (and run.json's convergence) and
 * lists the pairs or hosts it applies to, with what to try. The rules look
 * at the record that counts for each cell (the latest, or the aggregate),
 * so an old failure that a later run fixed is not reported.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heatmap_diagnose.h"

static const struct rule_text {
	const char *rule, *title, *advice;
} rule_texts[] = {
	{ "relay_reservation",
	  "libp2p_ping succeeds but HTTP-over-libp2p fails",
	  "Relay v2 reservation issue: the relay passes small ping packets "
	  "but does not grant these workers the reservations needed for full "
	  "bidirectional streams. Use a relay that grants v2 reservations, or "
	  "run the worker side on a compute node with port forwarding." },
	{ "dial_backoff",
	  "probes fail with \"dial backoff\"",
	  "The peers know each other but cannot dial each other directly. "
	  "Add a relay node that every peer can reach with --bootstrap." },
	{ "convergence",
	  "convergence incomplete",
	  "These hosts did not see the full mesh in their DHT table in time; "
	  "their outbound firewalls pass fewer discovery exchanges. Try a "
	  "closer-by bootstrap for them (bootstrap_extra in machines.json)." },
	{ "intermittent_peer",
	  "libp2p_ping has failed samples",
	  "The peer is intermittently reachable. Look at samples_ns for the "
	  "surviving samples and repeat the run to see whether it persists." },
	{ "one_way",
	  "a -> b works but b -> a fails",
	  "An inbound firewall on a blocks b: open on a what each line names "
	  "(ICMP for ping, the TCP port the records show for iperf3 and for "
	  "the libp2p bench kinds) or relay the traffic." },
	{ "relayed",
	  "libp2p_ping far above the ICMP round trip",
	  "The libp2p path takes a detour the IP path does not: the pair "
	  "talks through a relay (a circuit address) instead of directly. "
	  "Check that both peers' libp2p ports are reachable from each other "
	  "(hole punching, firewalls), or place the relay closer to them." },
	{ "http_overhead",
	  "large gap between libp2p latency and the baseline RTT",
	  "The difference is HTTP-over-libp2p overhead (TLS, stream "
	  "multiplexing) over raw round trips. Useful when tuning request "
	  "sizes; if libp2p_ping is also far above ICMP, the path is relayed." },
};

#define NRULES (sizeof rule_texts / sizeof rule_texts[0])

void
heatmap_diagnosis_free(struct diagnosis *dx)
{
	size_t i, j;

	if (dx == NULL)
		return;
	for (i = 0; i < dx->nfindings; i++) {
		for (j = 0; j < dx->findings[i].nitems; j++)
			free(dx->findings[i].items[j]);
		free(dx->findings[i].items);
	}
	free(dx->findings);
	memset(dx, 0, sizeof *dx);
}

const struct finding *
heatmap_diagnosis_find(const struct diagnosis *dx, const char *rule)
{
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (strcmp(dx->findings[i].rule, rule) == 0)
			return &dx->findings[i];
	return NULL;
}

static struct finding *
finding_get(struct diagnosis *dx, const char *rule)
{
	struct finding *f;
	size_t i;

	if ((f = (struct finding *)heatmap_diagnosis_find(dx, rule)) != NULL)
		return f;
	f = realloc(dx->findings, (dx->nfindings + 1) * sizeof *f);
	if (f == NULL)
		return NULL;
	dx->findings = f;
	f = &dx->findings[dx->nfindings++];
	memset(f, 0, sizeof *f);
	for (i = 0; i < NRULES; i++)
		if (strcmp(rule_texts[i].rule, rule) == 0) {
			f->rule = rule_texts[i].rule;
			f->title = rule_texts[i].title;
			f->advice = rule_texts[i].advice;
		}
	return f;
}

static int
finding_add(struct diagnosis *dx, const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
finding_add(struct diagnosis *dx, const char *rule, const char *fmt, ...)
{
	struct finding *f;
	char **items, *item;
	va_list ap;
	int n;

	if ((f = finding_get(dx, rule)) == NULL)
		return NP_ERR_NOMEM;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (item = malloc((size_t)n + 1)) == NULL)
		return NP_ERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(item, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if ((items = realloc(f->items, (f->nitems + 1) * sizeof *items)) ==
	    NULL) {
		free(item);
		return NP_ERR_NOMEM;
	}
	f->items = items;
	f->items[f->nitems++] = item;
	return 0;
}

/*
 * The kinds and metrics the rules read, looked up by name once: the rules
 * run for every pair, and a million pairs' lookups by name were most of
 * the diagnosis of a large run.
 */
enum { DX_PING, DX_LIBP2P_PING, DX_LATENCY, DX_THROUGHPUT, DX_NKINDS };

struct dx_view {
	const struct heatmap *hm;
	const struct hm_kind *kind[DX_NKINDS];	/* NULL if not read */
	int ping_avg, p2p_p50, p2p_failed, latency_p50;	/* -1 if none */
	/* Per kind of hm, its cells' states, row-major: the one-way rule
	 * reads each pair's reverse too, a column of cells apart, which at
	 * a thousand hosts misses the cache on every pair; a byte each
	 * stays in it. */
	unsigned char **state;
};

static int
metric_of(const struct hm_kind *k, const char *metric)
{
	return k == NULL ? -1 : heatmap_find_metric(k, metric);
}

static void
dx_view_free(struct dx_view *v)
{
	size_t k;

	for (k = 0; v->state != NULL && k < v->hm->nkinds; k++)
		free(v->state[k]);
	free(v->state);
	v->state = NULL;
}

static int
dx_view_init(struct dx_view *v, const struct heatmap *hm)
{
	size_t n = hm->nhosts * hm->nhosts, k, i;

	v->hm = hm;
	if ((v->state = calloc(hm->nkinds + 1, sizeof *v->state)) == NULL)
		return NP_ERR_NOMEM;
	for (k = 0; k < hm->nkinds; k++) {
		if ((v->state[k] = malloc(n ? n : 1)) == NULL) {
			dx_view_free(v);
			return NP_ERR_NOMEM;
		}
		for (i = 0; i < n; i++)
			v->state[k][i] = hm->kinds[k].cells[i].state;
	}
	v->kind[DX_PING] = heatmap_find_kind(hm, "ping");
	v->kind[DX_LIBP2P_PING] = heatmap_find_kind(hm, "libp2p_ping");
	v->kind[DX_LATENCY] = heatmap_find_kind(hm, "latency");
	v->kind[DX_THROUGHPUT] = heatmap_find_kind(hm, "throughput");
	v->ping_avg = metric_of(v->kind[DX_PING], "avg");
	v->p2p_p50 = metric_of(v->kind[DX_LIBP2P_PING], "p50_ms");
	v->p2p_failed = metric_of(v->kind[DX_LIBP2P_PING], "failed_samples");
	v->latency_p50 = metric_of(v->kind[DX_LATENCY], "p50_ms");
	return 0;
}

static const struct hm_cell *
cell_of(const struct dx_view *v, int kind, size_t src, size_t tgt)
{
	const struct hm_kind *k = v->kind[kind];

	return k == NULL ? NULL : heatmap_cell(v->hm, k, src, tgt);
}

/* metric (-1: the kind has none) of the kind's cell at src, tgt, or NAN. */
static double
cell_metric(const struct dx_view *v, int kind, int metric, size_t src,
    size_t tgt)
{
	const struct hm_cell *c = cell_of(v, kind, src, tgt);

	if (c == NULL || c->state != CELL_VALUE || metric < 0)
		return NAN;
	return c->values[metric];
}

static const char *
short_error(const struct hm_cell *c)
{
	return c->last_failed != NULL ? c->last_failed->error : "";
}

static int
rule_relay(const struct dx_view *v, struct diagnosis *dx, size_t a,
    size_t b)
{
	static const char *const http_kinds[] = { "latency", "throughput" };
	static const int http_index[] = { DX_LATENCY, DX_THROUGHPUT };
	const struct heatmap *hm = v->hm;
	const struct hm_cell *ping = cell_of(v, DX_LIBP2P_PING, a, b), *c;
	size_t i;
	int rc;

	if (ping == NULL || ping->state != CELL_VALUE)
		return 0;
	for (i = 0; i < 2; i++) {
		c = cell_of(v, http_index[i], a, b);
		if (c == NULL || c->state != CELL_FAILED)
			continue;
		if ((rc = finding_add(dx, "relay_reservation",
		    "%s -> %s: %s failed: %s", hm->hosts[a], hm->hosts[b],
		    http_kinds[i], short_error(c))) != 0)
			return rc;
	}
	return 0;
}

static int
rule_backoff(const struct dx_view *v, struct diagnosis *dx, size_t a,
    size_t b)
{
	const struct heatmap *hm = v->hm;
	size_t k;
	int rc;

	for (k = 0; k < hm->nkinds; k++) {
		const struct hm_cell *c;

		if (v->state[k][a * hm->nhosts + b] != CELL_FAILED)
			continue;
		c = heatmap_cell(hm, &hm->kinds[k], a, b);
		if (c->last_failed == NULL ||
		    strstr(c->last_failed->error, "dial backoff") == NULL)
			continue;
		if ((rc = finding_add(dx, "dial_backoff", "%s -> %s (%s)",
		    hm->hosts[a], hm->hosts[b], hm->kinds[k].name)) != 0)
			return rc;
	}
	return 0;
}

static int
rule_intermittent(const struct dx_view *v, struct diagnosis *dx, size_t a,
    size_t b)
{
	const struct heatmap *hm = v->hm;
	const struct hm_cell *c = cell_of(v, DX_LIBP2P_PING, a, b);
	double failed = cell_metric(v, DX_LIBP2P_PING, v->p2p_failed, a, b);

	if (isnan(failed) || failed <= 0)
		return 0;
	if (c->nsamples >= 0)
		return finding_add(dx, "intermittent_peer",
		    "%s -> %s: %.0f of %.0f samples failed", hm->hosts[a],
		    hm->hosts[b], failed, failed + c->nsamples);
	return finding_add(dx, "intermittent_peer",
	    "%s -> %s: %.0f samples failed", hm->hosts[a], hm->hosts[b], failed);
}

/* host's libp2p_port in the run.json files read; the default if none. */
static int
libp2p_port_of(const struct heatmap *hm, const char *host)
{
	size_t i, j;

	for (i = 0; i < hm->input.nruns; i++) {
		const struct run_info *run = hm->input.runs[i];

		for (j = 0; j < run->nmachines; j++)
			if (strcmp(run->machines[j], host) == 0 &&
			    run->libp2p_ports[j] > 0)
				return run->libp2p_ports[j];
	}
	return DIAGNOSE_LIBP2P_PORT;
}

/*
 * What b's probes of kind need open on a: the port the records show
 * (the failed b -> a record's, else the working a -> b one's).
 */
static void
inbound_need(const struct heatmap *hm, const struct hm_kind *kind,
    const struct hm_cell *ab, const struct hm_cell *ba, size_t a, char *buf,
    size_t size)
{
	int port = 0;

	if (strcmp(kind->name, "ping") == 0) {
		snprintf(buf, size, "ICMP echo");
		return;
	}
	if (strcmp(kind->name, "iperf3") != 0) {
		snprintf(buf, size, "TCP port %d, libp2p",
		    libp2p_port_of(hm, hm->hosts[a]));
		return;
	}
	if (ba->last_failed != NULL)
		port = ba->last_failed->port;
	if (port == 0)
		port = ab->port;	/* 0 without a record */
	snprintf(buf, size, "TCP port %d", port > 0 ? port :
	    DIAGNOSE_IPERF3_PORT);
}

static int
rule_one_way(const struct dx_view *v, struct diagnosis *dx, size_t a,
    size_t b)
{
	const struct heatmap *hm = v->hm;
	size_t n = hm->nhosts, k;
	char need[64];
	int rc;

	for (k = 0; k < hm->nkinds; k++) {
		const struct hm_kind *kind = &hm->kinds[k];
		const struct hm_cell *ab, *ba;

		if (kind->derived || v->state[k][a * n + b] != CELL_VALUE ||
		    v->state[k][b * n + a] != CELL_FAILED)
			continue;
		ab = heatmap_cell(hm, kind, a, b);
		ba = heatmap_cell(hm, kind, b, a);
		inbound_need(hm, kind, ab, ba, a, need, sizeof need);
		if ((rc = finding_add(dx, "one_way",
		    "%s: %s -> %s ok, %s -> %s failed (%s): inbound "
		    "firewall on %s (%s)?", kind->name, hm->hosts[a],
		    hm->hosts[b], hm->hosts[b], hm->hosts[a], short_error(ba),
		    hm->hosts[a], need)) != 0)
			return rc;
	}
	return 0;
}

static int
rule_gap(const struct dx_view *v, struct diagnosis *dx, size_t a, size_t b)
{
	const struct heatmap *hm = v->hm;
	const char *base_kind = "ping", *base_metric = "avg";
	double lat, base;

	lat = cell_metric(v, DX_LATENCY, v->latency_p50, a, b);
	base = cell_metric(v, DX_PING, v->ping_avg, a, b);
	if (isnan(base)) {
		base_kind = "libp2p_ping";
		base_metric = "p50_ms";
		base = cell_metric(v, DX_LIBP2P_PING, v->p2p_p50, a, b);
	}
	if (isnan(lat) || isnan(base) || base <= 0 ||
	    lat < base * DIAGNOSE_GAP_RATIO ||
	    lat - base < DIAGNOSE_GAP_MIN_MS)
		return 0;
	return finding_add(dx, "http_overhead",
	    "%s -> %s: latency p50 %.3g ms = %.1fx %s %s (%.3g ms)",
	    hm->hosts[a], hm->hosts[b], lat, lat / base, base_kind,
	    base_metric, base);
}

static int
rule_relayed(const struct dx_view *v, struct diagnosis *dx, size_t a,
    size_t b)
{
	const struct heatmap *hm = v->hm;
	double p2p, icmp;

	p2p = cell_metric(v, DX_LIBP2P_PING, v->p2p_p50, a, b);
	icmp = cell_metric(v, DX_PING, v->ping_avg, a, b);
	if (isnan(p2p) || isnan(icmp) || icmp <= 0 ||
	    p2p < icmp * DIAGNOSE_RELAY_RATIO ||
	    p2p - icmp < DIAGNOSE_RELAY_MIN_MS)
		return 0;
	return finding_add(dx, "relayed",
	    "%s -> %s: libp2p_ping p50 %.3g ms = %.1fx ping avg (%.3g ms)",
	    hm->hosts[a], hm->hosts[b], p2p, p2p / icmp, icmp);
}

static int
rule_convergence(const struct heatmap *hm, struct diagnosis *dx)
{
	const struct record_input *in = &hm->input;
	size_t i, j;
	int rc;

	for (i = 0; i < in->nruns; i++)
		for (j = 0; j < in->runs[i]->nconvergence; j++) {
			const struct convergence *c =
			    &in->runs[i]->convergence[j];

			if (c->complete)
				continue;
			if (isnan(c->elapsed_s))
				rc = finding_add(dx, "convergence",
				    "%s (run %s)", c->host,
				    in->runs[i]->run_id ? in->runs[i]->run_id :
				    in->runs[i]->file);
			else
				rc = finding_add(dx, "convergence",
				    "%s: gave up after %.1f s (run %s)",
				    c->host, c->elapsed_s,
				    in->runs[i]->run_id ? in->runs[i]->run_id :
				    in->runs[i]->file);
			if (rc != 0)
				return rc;
		}
	return 0;
}

static int
rule_rank(const char *rule)
{
	size_t i;

	for (i = 0; i < NRULES && strcmp(rule_texts[i].rule, rule) != 0; i++)
		;
	return (int)i;
}

static int
cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return rule_rank(x->rule) - rule_rank(y->rule);
}

int
heatmap_diagnose(const struct heatmap *hm, struct diagnosis *dx)
{
	struct dx_view v;
	size_t a, b;
	int rc;

	memset(dx, 0, sizeof *dx);
	if ((rc = dx_view_init(&v, hm)) != 0)
		return rc;
	for (a = 0; a < hm->nhosts; a++)
		for (b = 0; b < hm->nhosts; b++) {
			if (a == b)
				continue;
			if ((rc = rule_relay(&v, dx, a, b)) != 0 ||
			    (rc = rule_backoff(&v, dx, a, b)) != 0 ||
			    (rc = rule_intermittent(&v, dx, a, b)) != 0 ||
			    (rc = rule_one_way(&v, dx, a, b)) != 0 ||
			    (rc = rule_relayed(&v, dx, a, b)) != 0 ||
			    (rc = rule_gap(&v, dx, a, b)) != 0)
				goto out;
		}
	if ((rc = rule_convergence(hm, dx)) != 0)
		goto out;
	if (dx->nfindings > 1)
		qsort(dx->findings, dx->nfindings, sizeof *dx->findings,
		    cmp_finding);
out:
	dx_view_free(&v);
	if (rc != 0)
		heatmap_diagnosis_free(dx);
	return rc;
}

int
heatmap_failures(const struct heatmap *hm, struct failure_row **rows,
    size_t *nrows)
{
	struct failure_row *out = NULL, *p;
	size_t k, i, n = 0, alloc = 0;

	*rows = NULL;
	*nrows = 0;
	for (k = 0; k < hm->nkinds; k++)
		for (i = 0; i < hm->nhosts * hm->nhosts; i++) {
			const struct hm_cell *c = &hm->kinds[k].cells[i];

			if (c->nfail == 0)
				continue;
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				if ((p = realloc(out, alloc * sizeof *p)) ==
				    NULL) {
					free(out);
					return NP_ERR_NOMEM;
				}
				out = p;
			}
			out[n].kind = &hm->kinds[k];
			out[n].src = i / hm->nhosts;
			out[n].tgt = i % hm->nhosts;
			out[n].cell = c;
			n++;
		}
	*rows = out;
	*nrows = n;
	return 0;
}
