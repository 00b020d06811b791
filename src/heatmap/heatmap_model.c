/*
 * The heatmap's matrix model: turns what was folded from every input
 * (heatmap_fold.c) into hosts (natural order), kinds (collect kinds, then
 * bench kinds) and one N x N grid of cells per kind. The derived "overlay"
 * kind puts libp2p results over the raw-IP baseline of the same pair.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heatmap.h"
#include "record_schema.h"
#include "util.h"

#define OVERLAY_KIND "overlay"
/* The smallest ICMP round trip a ratio is taken over (ms). */
#define OVERLAY_RTT_MIN_MS 1.0

struct heatmap *
heatmap_new(void)
{
	struct heatmap *hm = calloc(1, sizeof(struct heatmap));

	if (hm == NULL)
		return NULL;
	hm->time_lo = hm->time_hi = NAN;
	hm->budget = HEATMAP_BUDGET_DEFAULT;
	hm->input.sink = heatmap_fold;
	hm->input.sink_arg = hm;
	return hm;
}

static void
kind_clear(struct hm_kind *k)
{
	size_t i;

	free(k->name);
	for (i = 0; i < k->nmetrics; i++)
		free(k->metrics[i].name);
	free(k->metrics);
	if (k->values_mapped > 0)
		mem_map_free(k->values_base, k->values_mapped);
	else
		free(k->values_base);
	free(k->nan_row);
	free(k->samples);
	free(k->cells);
}

void
heatmap_free(struct heatmap *hm)
{
	size_t i;

	if (hm == NULL)
		return;
	for (i = 0; i < hm->nkinds; i++)
		kind_clear(&hm->kinds[i]);
	free(hm->kinds);
	for (i = 0; i < hm->nhosts; i++)
		free(hm->hosts[i]);
	free(hm->hosts);
	free(hm->host_slots);
	for (i = 0; i < hm->nsite_hints; i++) {
		free(hm->site_hints[i].host);
		free(hm->site_hints[i].site);
	}
	free(hm->site_hints);
	for (i = 0; i < hm->ngroups; i++)
		free(hm->groups[i]);
	free(hm->groups);
	free(hm->host_group);
	free(hm->worse);
	heatmap_fold_free(hm);
	record_input_free(&hm->input);
	free(hm);
}

int
heatmap_read(struct heatmap *hm, const char *path, int strict)
{
	return records_read_file(&hm->input, path, strict);
}

/* Natural order: runs of digits compare by value. */
int
heatmap_host_compare(const char *a, const char *b)
{
	while (*a != '\0' && *b != '\0') {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			if ((c = strncmp(a, b, la)) != 0)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (*a != '\0') - (*b != '\0');
}

int
heatmap_rehash(struct heatmap *hm, size_t nslots)
{
	size_t *slots, i, j;

	if ((slots = calloc(nslots, sizeof *slots)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < hm->nhosts; i++) {
		j = str_hash(hm->hosts[i]) & (nslots - 1);
		while (slots[j] != 0)
			j = (j + 1) & (nslots - 1);
		slots[j] = i + 1;
	}
	free(hm->host_slots);
	hm->host_slots = slots;
	hm->nslots = nslots;
	return 0;
}

long
heatmap_host_index(const struct heatmap *hm, const char *name)
{
	size_t j;

	if (hm->nslots == 0)
		return -1;
	j = str_hash(name) & (hm->nslots - 1);
	while (hm->host_slots[j] != 0) {
		if (strcmp(hm->hosts[hm->host_slots[j] - 1], name) == 0)
			return (long)hm->host_slots[j] - 1;
		j = (j + 1) & (hm->nslots - 1);
	}
	return -1;
}

int
heatmap_host_add(struct heatmap *hm, const char *name, long *index)
{
	char **hosts;
	size_t j;

	if ((*index = heatmap_host_index(hm, name)) >= 0)
		return 0;
	if (hm->nhosts >= HEATMAP_MAX_HOSTS)
		return 0;
	*index = (long)hm->nhosts;
	if (hm->nhosts == hm->hosts_alloc) {
		size_t n = hm->hosts_alloc ? hm->hosts_alloc * 2 : 16;

		if ((hosts = realloc(hm->hosts, n * sizeof *hosts)) == NULL)
			return NP_ERR_NOMEM;
		hm->hosts = hosts;
		hm->hosts_alloc = n;
	}
	if ((hm->hosts[hm->nhosts] = strdup(name)) == NULL)
		return NP_ERR_NOMEM;
	hm->nhosts++;
	if (hm->nhosts * 2 > hm->nslots)
		return heatmap_rehash(hm, hm->nslots ? hm->nslots * 2 : 64);
	j = str_hash(name) & (hm->nslots - 1);
	while (hm->host_slots[j] != 0)
		j = (j + 1) & (hm->nslots - 1);
	hm->host_slots[j] = hm->nhosts;
	return 0;
}

struct host_order {
	const char *name;
	size_t index;		/* where it was met */
};

static int
cmp_host_order(const void *a, const void *b)
{
	return heatmap_host_compare(((const struct host_order *)a)->name,
	    ((const struct host_order *)b)->name);
}

/*
 * Every host of every record and run is a row and a column, whatever kind
 * is shown: a host with no record of that kind is a row of missing cells,
 * not absent from the matrix (as upstream shows it). The hosts of records
 * were met while folding (the first HEATMAP_MAX_HOSTS); a run.json's
 * machines without records come after them. *order maps each host's place
 * in natural order to the index it was met at.
 */
static int
collect_hosts(struct heatmap *hm, size_t **order)
{
	struct record_input *in = &hm->input;
	struct host_order *sorted;
	char **hosts;
	size_t i, j;
	long idx;
	int rc;

	for (i = 0; i < in->nruns; i++)
		for (j = 0; j < in->runs[i]->nmachines; j++)
			if ((rc = heatmap_host_add(hm,
			    in->runs[i]->machines[j], &idx)) != 0)
				return rc;
	if ((*order = malloc((hm->nhosts + 1) * sizeof **order)) == NULL ||
	    (hosts = malloc((hm->nhosts + 1) * sizeof *hosts)) == NULL)
		return NP_ERR_NOMEM;
	if ((sorted = malloc((hm->nhosts + 1) * sizeof *sorted)) == NULL) {
		free(hosts);
		return NP_ERR_NOMEM;
	}
	for (i = 0; i < hm->nhosts; i++) {
		sorted[i].name = hm->hosts[i];
		sorted[i].index = i;
	}
	if (hm->nhosts > 1)
		qsort(sorted, hm->nhosts, sizeof *sorted, cmp_host_order);
	for (i = 0; i < hm->nhosts; i++) {
		(*order)[i] = sorted[i].index;
		hosts[i] = hm->hosts[sorted[i].index];
	}
	free(sorted);
	free(hm->hosts);
	hm->hosts = hosts;
	hm->hosts_alloc = hm->nhosts + 1;
	return heatmap_rehash(hm, hm->nslots ? hm->nslots : 64);
}

struct hm_kind *
heatmap_find_kind(const struct heatmap *hm, const char *name)
{
	size_t i;

	for (i = 0; i < hm->nkinds; i++)
		if (strcmp(hm->kinds[i].name, name) == 0)
			return &hm->kinds[i];
	return NULL;
}

int
heatmap_find_metric(const struct hm_kind *kind, const char *name)
{
	size_t i;

	for (i = 0; i < kind->nmetrics; i++)
		if (strcmp(kind->metrics[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int
kind_rank(const char *name)
{
	int i;

	for (i = 0; record_kinds[i] != NULL; i++)
		if (strcmp(record_kinds[i], name) == 0)
			return i;
	return i;
}

static int
cmp_kind(const void *a, const void *b)
{
	const struct hm_kind *x = a, *y = b;
	int rx = kind_rank(x->name), ry = kind_rank(y->name);

	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

int
heatmap_kind_add(struct heatmap *hm, const char *name, int derived,
    size_t *index)
{
	struct hm_kind *kinds, *k;

	if ((k = heatmap_find_kind(hm, name)) != NULL) {
		*index = (size_t)(k - hm->kinds);
		return 0;
	}
	kinds = realloc(hm->kinds, (hm->nkinds + 1) * sizeof *kinds);
	if (kinds == NULL)
		return NP_ERR_NOMEM;
	hm->kinds = kinds;
	k = &hm->kinds[hm->nkinds];
	memset(k, 0, sizeof *k);
	if ((k->name = strdup(name)) == NULL)
		return NP_ERR_NOMEM;
	k->derived = derived;
	*index = hm->nkinds++;
	return 0;
}

int
heatmap_metric_add(struct hm_kind *k, const char *name)
{
	struct hm_metric *m;
	int i;

	if ((i = heatmap_find_metric(k, name)) >= 0)
		return i;
	if ((m = realloc(k->metrics, (k->nmetrics + 1) * sizeof *m)) == NULL)
		return NP_ERR_NOMEM;
	k->metrics = m;
	m = &k->metrics[k->nmetrics];
	memset(m, 0, sizeof *m);
	heatmap_metric_describe(name, m);
	if ((m->name = strdup(name)) == NULL)
		return NP_ERR_NOMEM;
	return (int)k->nmetrics++;
}

/* Only only_kind's grid stays (--kind). */
static int
keep_kind(struct heatmap *hm, const char *only_kind)
{
	size_t i, n = 0;

	for (i = 0; i < hm->nkinds; i++) {
		if (strcmp(hm->kinds[i].name, only_kind) != 0) {
			kind_clear(&hm->kinds[i]);
			continue;
		}
		hm->kinds[n++] = hm->kinds[i];
	}
	hm->nkinds = n;
	return n == 0 ? NP_ERR_NOT_FOUND : 0;
}

static int
kind_alloc_cells(struct heatmap *hm, struct hm_kind *k)
{
	size_t n = hm->nhosts * hm->nhosts, i, nm = k->nmetrics ? k->nmetrics : 1;
	double *values;

	if ((k->cells = calloc(n ? n : 1, sizeof *k->cells)) == NULL)
		return NP_ERR_NOMEM;
	if ((values = malloc((n ? n : 1) * nm * sizeof *values)) == NULL)
		return NP_ERR_NOMEM;
	k->values_base = values;
	for (i = 0; i < n * nm; i++)
		values[i] = NAN;
	for (i = 0; i < n; i++) {
		k->cells[i].values = values + i * nm;
		k->cells[i].state = i / hm->nhosts == i % hm->nhosts ?
		    CELL_SELF : CELL_MISSING;
	}
	if (n == 0)
		k->cells[0].values = values;
	return 0;
}

struct hm_cell *
heatmap_cell(const struct heatmap *hm, const struct hm_kind *kind,
    size_t src, size_t tgt)
{
	return &kind->cells[src * hm->nhosts + tgt];
}

/* The default-metric value of kind (NULL if not read) for a pair, or NAN. */
static double
pair_value(const struct hm_kind *k, size_t i)
{
	const struct hm_cell *c;

	if (k == NULL || k->nmetrics == 0)
		return NAN;
	c = &k->cells[i];
	if (c->state != CELL_VALUE)
		return NAN;
	return c->values[k->default_metric];
}

static const struct overlay_ratio {
	const char *metric, *over, *under;
} overlay_ratios[] = {
	{ "libp2p_ping_x_rtt", "libp2p_ping", "ping" },
	{ "latency_x_rtt", "latency", "ping" },
	{ "throughput_x_iperf3", "throughput", "iperf3" },
};

#define NRATIOS (sizeof overlay_ratios / sizeof overlay_ratios[0])

static int
build_overlay(struct heatmap *hm)
{
	size_t n = hm->nhosts * hm->nhosts, i, m, have[NRATIOS] = { 0 };
	const struct hm_kind *over_kind[NRATIOS], *under_kind[NRATIOS];
	int metric[NRATIOS];
	struct hm_kind *k;
	double *ratios;
	int rc, idx;

	/* Looked up once: the loops below visit every pair. */
	for (m = 0, i = 0; m < NRATIOS; m++) {
		over_kind[m] = heatmap_find_kind(hm, overlay_ratios[m].over);
		under_kind[m] = heatmap_find_kind(hm, overlay_ratios[m].under);
		i += over_kind[m] != NULL && under_kind[m] != NULL;
	}
	if (i == 0)
		return 0;	/* no pair of kinds: no overlay */
	if ((ratios = malloc((n ? n : 1) * NRATIOS * sizeof *ratios)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		for (m = 0; m < NRATIOS; m++) {
			double over, under;

			ratios[i * NRATIOS + m] = NAN;
			/* A ratio without both kinds has no value anywhere. */
			if (over_kind[m] == NULL || under_kind[m] == NULL)
				continue;
			over = pair_value(over_kind[m], i);
			under = pair_value(under_kind[m], i);

			if (isnan(over) || isnan(under) || under <= 0)
				continue;
			/* Below a millisecond a round trip is timer and
			 * stack noise: 0.7 ms over 0.3 ms is no "2.3x". */
			if (m < 2 && under < OVERLAY_RTT_MIN_MS)
				under = OVERLAY_RTT_MIN_MS;
			ratios[i * NRATIOS + m] = over / under;
			have[m]++;
		}
	}
	rc = 0;
	for (m = 0; m < NRATIOS && have[m] == 0; m++)
		;
	if (m == NRATIOS)
		goto out;
	if ((rc = heatmap_kind_add(hm, OVERLAY_KIND, 1, &m)) != 0)
		goto out;
	k = &hm->kinds[m];
	for (m = 0; m < NRATIOS; m++)
		if (have[m] > 0 && (idx = heatmap_metric_add(k,
		    overlay_ratios[m].metric)) < 0) {
			rc = idx;
			goto out;
		}
	k->default_metric = 0;
	if ((rc = kind_alloc_cells(hm, k)) != 0)
		goto out;
	for (m = 0; m < NRATIOS; m++)
		metric[m] = heatmap_find_metric(k, overlay_ratios[m].metric);
	for (i = 0; i < n; i++) {
		if (k->cells[i].state == CELL_SELF)
			continue;
		for (m = 0; m < NRATIOS; m++) {
			double v = ratios[i * NRATIOS + m];

			if (isnan(v))
				continue;
			k->cells[i].values[metric[m]] = v;
			k->cells[i].state = CELL_VALUE;
		}
	}
out:
	free(ratios);
	return rc;
}

struct hm_kind *
heatmap_add_derived(struct heatmap *hm, const char *name,
    const char *const *metrics, size_t nmetrics)
{
	struct hm_kind *k;
	size_t i;

	if (heatmap_kind_add(hm, name, 1, &i) != 0)
		return NULL;
	k = &hm->kinds[i];
	for (i = 0; i < nmetrics; i++)
		if (heatmap_metric_add(k, metrics[i]) < 0)
			return NULL;
	if (kind_alloc_cells(hm, k) != 0)
		return NULL;
	return k;
}

int
heatmap_build(struct heatmap *hm, enum heatmap_aggregate aggregate,
    const char *only_kind)
{
	size_t i, *order = NULL;
	int rc, idx;

	/* The aggregate decides what was folded: it is set before reading. */
	if (hm->built || aggregate != hm->aggregate)
		return NP_ERR_USAGE;
	if (only_kind != NULL && (rc = keep_kind(hm, only_kind)) != 0)
		return rc;
	if (hm->nkinds > 1)
		qsort(hm->kinds, hm->nkinds, sizeof *hm->kinds, cmp_kind);
	for (i = 0; i < hm->nkinds; i++) {
		struct hm_kind *k = &hm->kinds[i];

		idx = heatmap_find_metric(k, heatmap_default_metric(k->name));
		k->default_metric = idx >= 0 ? (size_t)idx : 0;
	}
	if ((rc = collect_hosts(hm, &order)) != 0 ||
	    (rc = heatmap_fold_finish(hm, order)) != 0)
		goto out;
	if (only_kind == NULL)
		rc = build_overlay(hm);
out:
	free(order);
	return rc;
}

int
heatmap_metric_range(const struct heatmap *hm, const struct hm_kind *kind,
    size_t metric, double *lo, double *hi)
{
	size_t i, n = hm->nhosts * hm->nhosts;
	int found = 0;

	*lo = *hi = NAN;
	if (metric >= kind->nmetrics)
		return -1;
	for (i = 0; i < n; i++) {
		const struct hm_cell *c = &kind->cells[i];
		double v = c->values[metric];

		if (c->state != CELL_VALUE || isnan(v))
			continue;
		if (!found || v < *lo)
			*lo = v;
		if (!found || v > *hi)
			*hi = v;
		found = 1;
	}
	return found ? 0 : -1;
}

void
heatmap_totals(const struct heatmap *hm, size_t *records, size_t *failed)
{
	size_t i;

	*records = *failed = 0;
	for (i = 0; i < hm->nkinds; i++) {
		*records += hm->kinds[i].nrecords;
		*failed += hm->kinds[i].nfailed;
	}
}
