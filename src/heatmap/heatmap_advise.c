/*
 * Where to put the relay, from one run's records. A host that cannot be
 * dialled (a reach check into it failed: run.json's "reach"; without
 * one, a record into it ran relayed) reaches a peer that cannot dial it
 * either only through a circuit, and the circuit goes through the relay
 * the target reserved on: the dialler's leg to it plus the target's. So
 * for each such host X and each candidate relay R (a host of the run no
 * reach check failed into, or a --bootstrap relay whose legs were
 * measured) the figure is the median, over X's pairs with no direct way
 * either way, of leg(peer, R) + leg(X, R), libp2p_ping's default metric
 * taken either way it was measured (matrix_path.c's legs). Hosts are
 * placed the most constrained first (fewest usable relays); a relay takes
 * at most cap hosts, and among the relays within `within` % of the best
 * one is drawn at random, seeded, so that every host does not pile onto
 * the one best-placed relay and a run's advice can be reproduced.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "heatmap_advise.h"
#include "matrix_path.h"
#include "heatmap_text.h"
#include "json_write.h"
#include "log.h"
#include "stats.h"
#include "util.h"

#define OTHERS_SHOWN 3		/* the other relays a host's line names */

/* The run's reach checks, n x n: -1 not checked, 0 failed, 1 connected. */
static signed char *
reach_of(const struct matrix *hm, const struct run_info *run)
{
	size_t n = hm->nhosts, i;
	signed char *r = malloc(n * n + 1);
	const char *arrow, *pair;
	char *from;
	long a, b;

	if (r == NULL)
		return NULL;
	memset(r, -1, n * n + 1);
	for (i = 0; run != NULL && i < run->nreach; i++) {
		/* "A->B": a name holds no '>', so the first "->" whose
		   both sides are hosts splits it */
		pair = run->reach[i].pair;
		for (arrow = strstr(pair, "->"); arrow != NULL;
		    arrow = strstr(arrow + 1, "->")) {
			if ((from = strndup(pair, (size_t)(arrow - pair))) ==
			    NULL) {
				free(r);
				return NULL;
			}
			a = matrix_host_index(hm, from);
			b = matrix_host_index(hm, arrow + 2);
			free(from);
			if (a >= 0 && b >= 0) {
				r[(size_t)a * n + (size_t)b] =
				    (signed char)run->reach[i].tcp;
				break;
			}
		}
	}
	return r;
}

/* "/ip4/ADDR/tcp/PORT/p2p/ID" of machine i of run.json into *out (NULL:
   not all of it there); 0 or NP_ERR_NOMEM. */
static int
machine_multiaddr(const struct run_info *run, size_t i, char **out)
{
	const char *a = run->addresses[i], *proto;

	*out = NULL;
	if (a == NULL || run->libp2p_ports[i] <= 0 || run->peer_ids[i] == NULL)
		return 0;
	proto = strchr(a, ':') != NULL ? "ip6" : strspn(a, "0123456789.") ==
	    strlen(a) ? "ip4" : "dns";
	*out = str_printf("/%s/%s/tcp/%d/p2p/%s", proto, a,
	    run->libp2p_ports[i], run->peer_ids[i]);
	return *out != NULL ? 0 : NP_ERR_NOMEM;
}

/*
 * Which hosts are the run's machines (member[i]), and the multiaddr of
 * each (a machine's from run.json's machines, a --bootstrap relay's from
 * its "relays"). Without run.json, a host that is the source of a record
 * is a machine.
 */
static int
members_of(const struct matrix *hm, const struct run_info *run,
    const struct matrix_kind *ping, unsigned char *member, char **ma)
{
	size_t n = hm->nhosts, i, j;
	long h;

	if (run == NULL) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n && !member[i]; j++)
				member[i] = matrix_cell_at(hm, ping, i,
				    j)->state == CELL_VALUE ||
				    matrix_cell_at(hm, ping, i, j)->state ==
				    CELL_FAILED;
		return 0;
	}
	for (i = 0; i < run->nmachines; i++) {
		if ((h = matrix_host_index(hm, run->machines[i])) < 0)
			continue;
		member[h] = 1;
		if (ma[h] == NULL && machine_multiaddr(run, i, &ma[h]) != 0)
			return NP_ERR_NOMEM;
	}
	for (i = 0; i < run->nrelays; i++)
		if ((h = matrix_host_index(hm, run->relay_names[i])) >= 0 &&
		    !member[h] && ma[h] == NULL &&
		    (ma[h] = strdup(run->relay_addrs[i])) == NULL)
			return NP_ERR_NOMEM;
	return 0;
}

/* Does any record into or out of the pair say it ran relayed? */
static int
ran_relayed(const struct matrix *hm, size_t a, size_t b)
{
	size_t k;

	for (k = 0; k < hm->nkinds; k++)
		if (!hm->kinds[k].derived && (matrix_cell_path(matrix_cell_at(
		    hm, &hm->kinds[k], a, b)) == MATRIX_PATH_RELAYED ||
		    matrix_cell_path(matrix_cell_at(hm, &hm->kinds[k], b, a)) ==
		    MATRIX_PATH_RELAYED))
			return 1;
	return 0;
}

/* Has a and b no direct way either way? Both reach checks failed; where
   either was not made, a record of the pair ran relayed. */
static int
needs_relay(const struct matrix *hm, const signed char *reach, size_t a,
    size_t b)
{
	size_t n = hm->nhosts;
	int ab = reach[a * n + b], ba = reach[b * n + a];

	if (ab >= 0 && ba >= 0)
		return ab == 0 && ba == 0;
	return ab != 1 && ba != 1 && ran_relayed(hm, a, b);
}

/* Did some machine's reach check into h fail (none checked: a record
   into it ran relayed)? */
static int
undialable(const struct matrix *hm, const signed char *reach,
    const unsigned char *member, size_t h)
{
	size_t n = hm->nhosts, a, checked = 0;

	for (a = 0; a < n; a++) {
		if (a == h || !member[a] || reach[a * n + h] < 0)
			continue;
		if (reach[a * n + h] == 0)
			return 1;
		checked++;
	}
	for (a = 0; checked == 0 && a < n; a++)
		if (a != h && member[a] && ran_relayed(hm, a, h))
			return 1;
	return 0;
}

/* The figures of one host: its pairs, today's median, each candidate's. */
static int
host_figures(const struct matrix *hm, const struct matrix_kind *ping,
    const signed char *reach, const unsigned char *member,
    struct heatmap_advice *a, struct heatmap_advised *x)
{
	size_t n = hm->nhosts, y, c, np = 0, nt = 0;
	double *pair = malloc((n + 1) * sizeof *pair), *vals, v;
	size_t *peers = malloc((n + 1) * sizeof *peers);
	int rc = NP_ERR_NOMEM;

	vals = malloc((n + 1) * sizeof *vals);
	if (pair == NULL || peers == NULL || vals == NULL ||
	    (x->via_ms = calloc(a->ncands + 1, sizeof *x->via_ms)) == NULL)
		goto out;
	for (y = 0; y < n; y++) {
		if (y == x->host || !member[y] ||
		    !needs_relay(hm, reach, x->host, y))
			continue;
		peers[np++] = y;
		/* today: the pair's round trip, into x else out of it */
		v = matrix_path_value(hm, ping, y, x->host);
		if (isnan(v))
			v = matrix_path_value(hm, ping, x->host, y);
		if (isnan(v))
			x->nfailed++;
		else
			vals[nt++] = v;
	}
	x->npairs = np;
	x->today_ms = stats_median(vals, nt);
	for (c = 0; c < a->ncands; c++) {
		size_t r = a->cands[c], i;

		x->via_ms[c] = NAN;
		if (r == x->host || np == 0)
			continue;
		for (i = 0; i < np; i++) {
			pair[i] = matrix_path_leg(hm, ping, peers[i], r) +
			    matrix_path_leg(hm, ping, x->host, r);
			if (isnan(pair[i]) || peers[i] == r)
				break;
		}
		if (i < np)
			continue;	/* a leg not measured: no figure */
		x->via_ms[c] = stats_median(pair, np);
		x->usable++;
	}
	rc = 0;
out:
	free(pair);
	free(peers);
	free(vals);
	return rc;
}

/* splitmix64: the draw among the relays close to the best */
static uint64_t
next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int
most_constrained(const void *p, const void *q)
{
	const struct heatmap_advised *x = p, *y = q;

	if (x->usable != y->usable)
		return x->usable < y->usable ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

/* Each host its relay: the most constrained first, within the cap. */
static int
place(struct heatmap_advice *a)
{
	size_t *load = calloc(a->ncands + 1, sizeof *load);
	size_t *pool = calloc(a->ncands + 1, sizeof *pool);
	uint64_t seed = (uint64_t)(unsigned)a->opt.seed;
	size_t i, c, np;
	double best;

	if (load == NULL || pool == NULL) {
		free(load);
		free(pool);
		return NP_ERR_NOMEM;
	}
	qsort(a->hosts, a->nhosts, sizeof *a->hosts, most_constrained);
	for (i = 0; i < a->nhosts; i++) {
		struct heatmap_advised *x = &a->hosts[i];

		best = NAN;
		for (c = 0; c < a->ncands; c++)
			if (!isnan(x->via_ms[c]) && (a->opt.cap == 0 ||
			    load[c] < (size_t)a->opt.cap) &&
			    (isnan(best) || x->via_ms[c] < best))
				best = x->via_ms[c];
		if (isnan(best))
			continue;	/* no relay left for it */
		for (c = 0, np = 0; c < a->ncands; c++)
			if (!isnan(x->via_ms[c]) && (a->opt.cap == 0 ||
			    load[c] < (size_t)a->opt.cap) && x->via_ms[c] <=
			    best * (1 + a->opt.within / 100) + 1e-9)
				pool[np++] = c;
		c = pool[np > 1 ? next_random(&seed) % np : 0];
		x->relay = (long)c;
		load[c]++;
	}
	free(load);
	free(pool);
	return 0;
}

static int
by_host(const void *p, const void *q)
{
	const struct heatmap_advised *x = p, *y = q;

	return x->host < y->host ? -1 : x->host > y->host;
}

int
heatmap_advise(const struct matrix *hm, const struct run_info *run,
    const struct heatmap_advise_options *opt, struct heatmap_advice *out)
{
	const struct matrix_kind *ping = matrix_path_ping(hm);
	size_t n = hm->nhosts, h;
	unsigned char *member, *cant = NULL;
	signed char *reach = NULL;
	int rc = NP_ERR_NOMEM;

	memset(out, 0, sizeof *out);
	out->opt = *opt;
	if (ping == NULL || ping->nmetrics == 0)
		return NP_ERR_NOT_FOUND;
	out->kind = ping->name;
	out->metric = ping->metrics[ping->default_metric].name;
	out->nmultiaddr = n;
	if ((member = out->member = calloc(n + 1, 1)) == NULL ||
	    (cant = calloc(n + 1, 1)) == NULL ||
	    (out->multiaddr = calloc(n + 1, sizeof *out->multiaddr)) == NULL ||
	    (out->cands = calloc(n + 1, sizeof *out->cands)) == NULL ||
	    (out->hosts = calloc(n + 1, sizeof *out->hosts)) == NULL ||
	    (reach = reach_of(hm, run)) == NULL ||
	    members_of(hm, run, ping, member, out->multiaddr) != 0)
		goto out;
	for (h = 0; h < n; h++) {
		if (member[h])
			cant[h] = (unsigned char)undialable(hm, reach, member,
			    h);
		/* a machine every check reached, or a --bootstrap relay */
		if (!cant[h])
			out->cands[out->ncands++] = h;
	}
	for (h = 0; h < n; h++) {
		struct heatmap_advised *x = &out->hosts[out->nhosts];

		if (!cant[h])
			continue;
		x->host = h;
		x->relay = -1;
		if (host_figures(hm, ping, reach, member, out, x) != 0)
			goto out;
		if (x->npairs == 0) {
			free(x->via_ms);
			memset(x, 0, sizeof *x);
			continue;	/* it reaches every peer some way */
		}
		out->nhosts++;
	}
	if (place(out) != 0)
		goto out;
	qsort(out->hosts, out->nhosts, sizeof *out->hosts, by_host);
	rc = 0;
out:
	free(cant);
	free(reach);
	if (rc != 0)
		heatmap_advice_free(out);
	return rc;
}

void
heatmap_advice_free(struct heatmap_advice *a)
{
	size_t i;

	for (i = 0; a->hosts != NULL && i < a->nhosts; i++)
		free(a->hosts[i].via_ms);
	for (i = 0; a->multiaddr != NULL && i < a->nmultiaddr; i++)
		free(a->multiaddr[i]);
	free(a->multiaddr);
	free(a->member);
	free(a->hosts);
	free(a->cands);
	memset(a, 0, sizeof *a);
}

/* ---- the advice written ---------------------------------------------- */

static const char *
relay_name(const struct matrix *hm, const struct heatmap_advice *a, long c)
{
	return hm->hosts[a->cands[c]];
}

/* The relays chosen, each once, in candidate order: 1 if c is one. */
static int
chosen(const struct heatmap_advice *a, size_t c)
{
	size_t i;

	for (i = 0; i < a->nhosts; i++)
		if (a->hosts[i].relay == (long)c)
			return 1;
	return 0;
}

/* The relays chosen that are machines of the run (member 1) or not. */
static size_t
chosen_relays(const struct heatmap_advice *a, int member)
{
	size_t c, n = 0;

	for (c = 0; c < a->ncands; c++)
		n += chosen(a, c) && !a->member[a->cands[c]] == !member;
	return n;
}

/* How the figures were made, as the text's first line and the page say. */
static void
write_how(const struct heatmap_advice *a, FILE *f)
{
	char cap[48];

	snprintf(cap, sizeof cap, "at most %d host%s a relay", a->opt.cap,
	    PLURAL(a->opt.cap));
	fprintf(f, "%s %s, a relayed pair's round trip as its two legs; %s; "
	    "drawn among the relays within %g %% of the best, seed %d",
	    a->kind, a->metric, a->opt.cap > 0 ? cap :
	    "no cap of hosts a relay", a->opt.within, a->opt.seed);
}

/* The patch: a --bootstrap relay's bootstrap_extra and line, a machine's
   public line. */
static void
write_patch(const struct matrix *hm, const struct heatmap_advice *a, FILE *f)
{
	char n1[128], n2[128];
	size_t i, c;

	/* a --bootstrap relay: each host's bootstrap_extra, the line */
	if (chosen_relays(a, 0) > 0)
		fprintf(f, "machines.json, each machine's bootstrap_extra:\n");
	for (i = 0; i < a->nhosts; i++) {
		const struct heatmap_advised *x = &a->hosts[i];
		const char *ma;

		if (x->relay < 0 || a->member[a->cands[x->relay]])
			continue;
		ma = a->multiaddr[a->cands[x->relay]];
		heatmap_clean_name(hm->hosts[x->host], n1, sizeof n1);
		heatmap_clean_name(ma != NULL ? ma : "", n2, sizeof n2);
		fprintf(f, "  \"%s\": {\"bootstrap_extra\": [\"%s\"]}\n", n1,
		    ma != NULL ? n2 : "(its multiaddr: not in run.json)");
	}
	if (chosen_relays(a, 0) > 0) {
		fprintf(f, "bench:");
		for (c = 0; c < a->ncands; c++) {
			const char *ma = a->multiaddr[a->cands[c]];

			if (!chosen(a, c) || a->member[a->cands[c]])
				continue;
			heatmap_clean_name(relay_name(hm, a, (long)c), n1,
			    sizeof n1);
			heatmap_clean_name(ma != NULL ? ma : "MULTIADDR", n2,
			    sizeof n2);
			fprintf(f, " --bootstrap %s=%s", n1, n2);
		}
		fprintf(f, "\n");
	}
	/* a machine of the run: public, the one way bench has to make it
	   relay (its PeerID is new every run, and bench already gives every
	   node every other machine's address) */
	if (chosen_relays(a, 1) > 0)
		fprintf(f, "machines.json, each relay of the run's machines "
		    "public (a node relays only then), in its remote_setup:\n");
	for (c = 0; c < a->ncands; c++) {
		if (!chosen(a, c) || !a->member[a->cands[c]])
			continue;
		heatmap_clean_name(relay_name(hm, a, (long)c), n1, sizeof n1);
		fprintf(f, "  \"%s\": %s\n", n1, HEATMAP_ADVISE_PUBLIC);
	}
}

int
heatmap_advice_text(const struct matrix *hm, const struct heatmap_advice *a,
    FILE *f)
{
	char n1[128], n2[128];
	size_t i, c, shown;
	double last;
	long lastc;

	fputs("Relay advice (", f);
	write_how(a, f);
	fputs("):\n", f);
	if (a->nhosts == 0)
		fprintf(f, "  no host needs a relay: every pair has a direct "
		    "way one way or the other\n");
	for (i = 0; i < a->nhosts; i++) {
		const struct heatmap_advised *x = &a->hosts[i];

		heatmap_clean_name(hm->hosts[x->host], n1, sizeof n1);
		if (x->relay < 0) {
			fprintf(f, "  %s: no relay: %s\n", n1, x->usable == 0 ?
			    "no candidate has both legs of its pairs measured" :
			    "every candidate with figures is at its cap");
			continue;
		}
		heatmap_clean_name(relay_name(hm, a, x->relay), n2, sizeof n2);
		fprintf(f, "  %s: relay %s, %zu pair%s through it at a median of "
		    "%.1f ms", n1, n2, x->npairs, PLURAL(x->npairs),
		    x->via_ms[x->relay]);
		if (!isnan(x->today_ms))
			fprintf(f, " (today %.1f ms: %.1f ms %s)", x->today_ms,
			    fabs(x->today_ms - x->via_ms[x->relay]),
			    x->today_ms >= x->via_ms[x->relay] ? "better" :
			    "worse");
		if (x->nfailed > 0)
			fprintf(f, "; %zu not connected today", x->nfailed);
		/* the others, best first, OTHERS_SHOWN of them */
		for (shown = 0, last = -INFINITY, lastc = -1;
		    shown < OTHERS_SHOWN; shown++) {
			long next = -1;

			for (c = 0; c < a->ncands; c++)
				if ((long)c != x->relay && !isnan(x->via_ms[c]) &&
				    (x->via_ms[c] > last || (x->via_ms[c] ==
				    last && (long)c > lastc)) && (next < 0 ||
				    x->via_ms[c] < x->via_ms[next]))
					next = (long)c;
			if (next < 0)
				break;
			heatmap_clean_name(relay_name(hm, a, next), n2,
			    sizeof n2);
			fprintf(f, "%s%s %.1f", shown ? ", " : "; others: ", n2,
			    x->via_ms[next]);
			last = x->via_ms[next];
			lastc = next;
		}
		fprintf(f, "\n");
	}
	if (a->nhosts == 0)
		return ferror(f) ? NP_ERR_IO : 0;
	write_patch(hm, a, f);
	return ferror(f) ? NP_ERR_IO : 0;
}

/* One figure of the panel: ms to a tenth, or a dash. */
static void
put_ms(FILE *f, double v)
{
	if (isnan(v))
		fputs("<td>\xe2\x80\x94</td>", f);
	else
		fprintf(f, "<td>%.1f</td>", v);
}

/* What w wrote into a string, HTML-escaped into f. */
static int
put_escaped(FILE *f, const struct matrix *hm, const struct heatmap_advice *a,
    void (*w)(const struct matrix *, const struct heatmap_advice *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return NP_ERR_NOMEM;
	w(hm, a, m);
	if (fclose(m) != 0 || text == NULL) {
		free(text);
		return NP_ERR_NOMEM;
	}
	heatmap_html_escape(f, text);
	free(text);
	return 0;
}

static void
how_of(const struct matrix *hm, const struct heatmap_advice *a, FILE *f)
{
	(void)hm;
	write_how(a, f);
}

int
heatmap_advice_html(const struct matrix *hm, const struct heatmap_advice *a,
    int shown, FILE *f)
{
	size_t i;
	int rc;

	if (a == NULL || a->nhosts == 0)
		return 0;
	fprintf(f, "<aside id=advice%s>\n<h3>Where to put the relay</h3>\n"
	    "<p class=summary>", shown ? "" : " hidden");
	if ((rc = put_escaped(f, hm, a, how_of)) != 0)
		return rc;
	fputs("</p>\n<table class=list><thead><tr><th>host</th><th>relay</th>"
	    "<th>pairs</th><th>predicted (ms)</th><th>today (ms)</th>"
	    "<th>gain (ms)</th></tr></thead>\n<tbody>\n", f);
	for (i = 0; i < a->nhosts; i++) {
		const struct heatmap_advised *x = &a->hosts[i];

		fputs("<tr data-host=\"", f);
		heatmap_html_escape(f, hm->hosts[x->host]);
		fputs("\"><td>", f);
		heatmap_html_escape(f, hm->hosts[x->host]);
		fputs("</td><td>", f);
		if (x->relay >= 0)
			heatmap_html_escape(f, relay_name(hm, a, x->relay));
		else
			fputs(x->usable == 0 ? "none: no candidate has both "
			    "legs measured" : "none: every candidate is at its "
			    "cap", f);
		fprintf(f, "</td><td>%zu", x->npairs);
		if (x->nfailed > 0)
			fprintf(f, " (%zu not connected today)", x->nfailed);
		fputs("</td>", f);
		put_ms(f, x->relay >= 0 ? x->via_ms[x->relay] : NAN);
		put_ms(f, x->today_ms);
		put_ms(f, x->relay >= 0 ? x->today_ms - x->via_ms[x->relay] :
		    NAN);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<p>The patch for the next bench run:</p>\n"
	    "<pre id=advice-patch>", f);
	if ((rc = put_escaped(f, hm, a, write_patch)) != 0)
		return rc;
	fputs("</pre>\n</aside>\n", f);
	return ferror(f) ? NP_ERR_IO : 0;
}

/* v in ms to the µs, or null */
static double
to_us(double v)
{
	return round(v * 1000) / 1000;
}

static cJSON *
number_or_null(double v)
{
	return isnan(v) ? cJSON_CreateNull() : json_create_float(to_us(v));
}

int
heatmap_advice_json(const struct matrix *hm, const struct heatmap_advice *a,
    FILE *f)
{
	cJSON *root = cJSON_CreateObject(), *hosts, *o, *via, *extra, *boot;
	cJSON *pub;
	struct buf out = { 0 };
	size_t i, c;
	int rc = NP_ERR_NOMEM;

	if (root == NULL)
		return NP_ERR_NOMEM;
	cJSON_AddStringToObject(root, "kind", a->kind);
	cJSON_AddStringToObject(root, "metric", a->metric);
	if (a->opt.cap > 0)
		cJSON_AddNumberToObject(root, "cap", a->opt.cap);
	else
		cJSON_AddNullToObject(root, "cap");
	json_add_float(root, "within_pct", a->opt.within);
	cJSON_AddNumberToObject(root, "seed", a->opt.seed);
	hosts = cJSON_AddArrayToObject(root, "hosts");
	extra = cJSON_AddObjectToObject(root, "bootstrap_extra");
	boot = cJSON_AddArrayToObject(root, "bootstrap");
	pub = cJSON_AddArrayToObject(root, "public");
	for (i = 0; i < a->nhosts; i++) {
		const struct heatmap_advised *x = &a->hosts[i];
		const char *ma;

		o = cJSON_CreateObject();
		cJSON_AddItemToArray(hosts, o);
		cJSON_AddStringToObject(o, "host", hm->hosts[x->host]);
		cJSON_AddNumberToObject(o, "pairs", (double)x->npairs);
		cJSON_AddNumberToObject(o, "not_connected_today",
		    (double)x->nfailed);
		cJSON_AddItemToObject(o, "today_ms", number_or_null(
		    x->today_ms));
		json_add_string_or_null(o, "relay", x->relay >= 0 ?
		    relay_name(hm, a, x->relay) : NULL);
		cJSON_AddItemToObject(o, "predicted_ms", number_or_null(
		    x->relay >= 0 ? x->via_ms[x->relay] : NAN));
		cJSON_AddItemToObject(o, "gain_ms", number_or_null(
		    x->relay >= 0 ? x->today_ms - x->via_ms[x->relay] : NAN));
		via = cJSON_AddObjectToObject(o, "via_ms");
		for (c = 0; c < a->ncands; c++)
			if (!isnan(x->via_ms[c]))
				json_add_float(via, relay_name(hm, a, (long)c),
				    to_us(x->via_ms[c]));
		if (x->relay >= 0 && !a->member[a->cands[x->relay]] &&
		    (ma = a->multiaddr[a->cands[x->relay]]) != NULL)
			cJSON_AddItemToArray(cJSON_AddArrayToObject(extra,
			    hm->hosts[x->host]), cJSON_CreateString(ma));
	}
	for (c = 0; c < a->ncands; c++) {
		const char *ma = a->multiaddr[a->cands[c]];
		char *line;

		if (chosen(a, c) && a->member[a->cands[c]])
			cJSON_AddItemToArray(pub, cJSON_CreateString(
			    relay_name(hm, a, (long)c)));
		if (!chosen(a, c) || a->member[a->cands[c]] || ma == NULL)
			continue;
		if ((line = str_printf("%s=%s", relay_name(hm, a, (long)c),
		    ma)) == NULL)
			goto out;
		cJSON_AddItemToArray(boot, cJSON_CreateString(line));
		free(line);
	}
	json_sort_keys(root);
	if (json_write(root, 2, &out) != 0 || buf_printf(&out, "\n") != 0)
		goto out;
	rc = fwrite(out.data, 1, out.len, f) == out.len ? 0 : NP_ERR_IO;
out:
	cJSON_Delete(root);
	buf_free(&out);
	return rc;
}
