/*
 * The pair matrix's model: the hosts, kinds and metrics that the fold
 * (matrix_fold.c) adds as it meets them, and their order once all is
 * read: hosts in natural order, kinds in the kinds' table's order
 * (collect's, then bench's; kinds it does not know after them), each
 * metric described by its kind's row. The fold calls it, never the
 * other way.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "matrix.h"
#include "probe_kind.h"
#include "util.h"

static void
kind_clear(struct matrix_kind *k)
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
matrix_model_free(struct matrix *hm)
{
	size_t i;

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
}

/* Natural order: runs of digits compare by value. */
int
matrix_host_compare(const char *a, const char *b)
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
matrix_rehash(struct matrix *hm, size_t nslots)
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
matrix_host_index(const struct matrix *hm, const char *name)
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
matrix_host_add(struct matrix *hm, const char *name, long *index)
{
	char **hosts;
	size_t j;

	if ((*index = matrix_host_index(hm, name)) >= 0)
		return 0;
	if (hm->nhosts >= MATRIX_MAX_HOSTS)
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
		return matrix_rehash(hm, hm->nslots ? hm->nslots * 2 : 64);
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
	return matrix_host_compare(((const struct host_order *)a)->name,
	    ((const struct host_order *)b)->name);
}

/*
 * Every host of every record and run is a row and a column, whatever kind
 * is shown: a host with no record of that kind is a row of missing cells,
 * not absent from the matrix (as upstream shows it). The hosts of records
 * were met while folding (the first MATRIX_MAX_HOSTS); a run.json's
 * machines without records come after them, up to the same bound (the
 * others are counted in machines_left_out). *order maps each host's place
 * in natural order to the index it was met at.
 */
static int
collect_hosts(struct matrix *hm, size_t **order)
{
	struct record_input *in = &hm->input;
	struct host_order *sorted;
	char **hosts;
	size_t i, j;
	long idx;
	int rc;

	for (i = 0; i < in->nruns; i++)
		for (j = 0; j < in->runs[i]->nmachines; j++)
			if ((rc = matrix_host_add(hm,
			    in->runs[i]->machines[j], &idx)) != 0)
				return rc;
			else if (idx < 0)
				hm->machines_left_out++;
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
	return matrix_rehash(hm, hm->nslots ? hm->nslots : 64);
}

struct matrix_kind *
matrix_find_kind(const struct matrix *hm, const char *name)
{
	size_t i;

	for (i = 0; i < hm->nkinds; i++)
		if (strcmp(hm->kinds[i].name, name) == 0)
			return &hm->kinds[i];
	return NULL;
}

int
matrix_find_metric(const struct matrix_kind *kind, const char *name)
{
	size_t i;

	for (i = 0; i < kind->nmetrics; i++)
		if (strcmp(kind->metrics[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* A kind's place in the table; the kinds it does not know after them. */
static int
kind_rank(const char *name)
{
	const struct probe_kind *k = probe_kind_find(name);
	int n;

	if (k != NULL)
		return (int)probe_kind_index(k);
	for (n = 0; probe_kinds[n].name != NULL; n++)
		;
	return n;
}

static int
cmp_kind(const void *a, const void *b)
{
	const struct matrix_kind *x = a, *y = b;
	int rx = kind_rank(x->name), ry = kind_rank(y->name);

	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

int
matrix_kind_add(struct matrix *hm, const char *name, int derived,
    size_t *index)
{
	struct matrix_kind *kinds, *k;

	if ((k = matrix_find_kind(hm, name)) != NULL) {
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
	k->row = derived ? NULL : probe_kind_find(name);
	*index = hm->nkinds++;
	return 0;
}

int
matrix_metric_add(struct matrix_kind *k, const char *name)
{
	struct matrix_metric *m;
	int i;

	if ((i = matrix_find_metric(k, name)) >= 0)
		return i;
	if ((m = realloc(k->metrics, (k->nmetrics + 1) * sizeof *m)) == NULL)
		return NP_ERR_NOMEM;
	k->metrics = m;
	m = &k->metrics[k->nmetrics];
	memset(m, 0, sizeof *m);
	matrix_metric_describe(k->name, name, m);
	if ((m->name = strdup(name)) == NULL)
		return NP_ERR_NOMEM;
	return (int)k->nmetrics++;
}

/* Only only_kind's grid stays (--kind). */
static int
keep_kind(struct matrix *hm, const char *only_kind)
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
kind_alloc_cells(struct matrix *hm, struct matrix_kind *k)
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

struct matrix_cell *
matrix_cell_at(const struct matrix *hm, const struct matrix_kind *kind,
    size_t src, size_t tgt)
{
	return &kind->cells[src * hm->nhosts + tgt];
}

struct matrix_kind *
matrix_add_derived(struct matrix *hm, const char *name,
    const char *const *metrics, size_t nmetrics)
{
	struct matrix_kind *k;
	size_t i;

	if (matrix_kind_add(hm, name, 1, &i) != 0)
		return NULL;
	k = &hm->kinds[i];
	for (i = 0; i < nmetrics; i++)
		if (matrix_metric_add(k, metrics[i]) < 0)
			return NULL;
	if (kind_alloc_cells(hm, k) != 0)
		return NULL;
	return k;
}

int
matrix_model_order(struct matrix *hm, const char *only_kind, size_t **order)
{
	size_t i;
	int rc, idx;

	*order = NULL;
	if (only_kind != NULL && (rc = keep_kind(hm, only_kind)) != 0)
		return rc;
	if (hm->nkinds > 1)
		qsort(hm->kinds, hm->nkinds, sizeof *hm->kinds, cmp_kind);
	for (i = 0; i < hm->nkinds; i++) {
		struct matrix_kind *k = &hm->kinds[i];

		idx = matrix_find_metric(k, matrix_default_metric(k->name));
		k->default_metric = idx >= 0 ? (size_t)idx : 0;
	}
	return collect_hosts(hm, order);
}

int
matrix_metric_range(const struct matrix *hm, const struct matrix_kind *kind,
    size_t metric, double *lo, double *hi)
{
	size_t i, n = hm->nhosts * hm->nhosts;
	int found = 0;

	*lo = *hi = NAN;
	if (metric >= kind->nmetrics)
		return -1;
	for (i = 0; i < n; i++) {
		const struct matrix_cell *c = &kind->cells[i];
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
matrix_totals(const struct matrix *hm, size_t *records, size_t *failed)
{
	size_t i;

	*records = *failed = 0;
	for (i = 0; i < hm->nkinds; i++) {
		*records += hm->kinds[i].nrecords;
		*failed += hm->kinds[i].nfailed;
	}
}
