/*
 * Sites: which hosts of the heatmap stand together, and the order of rows
 * and columns that shows it. A host's site comes from machines.json (hints
 * given with --config) or from a bench run.json's machines; without them
 * the sites are found in the measurements: average-linkage clustering of
 * the round trips (ICMP ping avg, else libp2p_ping p50), merging while two
 * clusters are on average at most a threshold apart. Average linkage,
 * because one slowed or relayed link inside a site must not split it, and
 * one short link between two sites must not join them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "matrix_sites.h"
#include "probe_kind.h"
#include "stats.h"

/*
 * Row i's nearest cluster among those after it: the first j > i (both
 * representatives, with pairs measured) at the smallest average distance,
 * or n if none.
 */
static void
row_nearest(const double *sum, const double *cnt, const size_t *root,
    size_t n, size_t i, size_t *near, double *dist)
{
	double best = INFINITY;
	size_t j;

	near[i] = n;
	for (j = i + 1; j < n; j++) {
		double c = cnt[i * n + j];

		if (root[j] != j || c == 0)
			continue;
		if (sum[i * n + j] / c < best) {
			best = sum[i * n + j] / c;
			near[i] = j;
		}
	}
	dist[i] = best;
}

int
matrix_sites_cluster(const double *dist, size_t n, double threshold,
    size_t *group, size_t *ngroups)
{
	double *sum = NULL, *cnt = NULL, *ndist = NULL;
	size_t *root = NULL, *near = NULL, i, j, x, a, b, next;
	int rc = NP_ERR_NOMEM;

	*ngroups = 0;
	if (n == 0)
		return 0;
	if ((sum = calloc(n * n, sizeof *sum)) == NULL ||
	    (cnt = calloc(n * n, sizeof *cnt)) == NULL ||
	    (root = malloc(n * sizeof *root)) == NULL ||
	    (near = malloc(n * sizeof *near)) == NULL ||
	    (ndist = malloc(n * sizeof *ndist)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		root[i] = i;
		for (j = 0; j < n; j++) {
			double d = dist[i * n + j], e = dist[j * n + i];

			if (i == j)
				continue;
			if (isnan(d))
				d = e;
			else if (!isnan(e))
				d = (d + e) / 2;
			if (isnan(d))
				continue;
			sum[i * n + j] = d;
			cnt[i * n + j] = 1;
		}
	}
	/*
	 * root[i] == i: i is a cluster's representative; rows of merged
	 * clusters are folded into their representative's. Each merge joins
	 * the closest pair, the first (by row, then column) of equals: each
	 * representative's nearest later cluster is kept (near, ndist), so
	 * that finding the pair is a pass over the rows, not over every pair
	 * (a thousand hosts would take a billion steps). A merge of b into a
	 * changes only row and column a and retires b: the other rows keep
	 * their nearest unless it was a or b, or a became nearer.
	 */
	for (i = 0; i < n; i++)
		row_nearest(sum, cnt, root, n, i, near, ndist);
	for (;;) {
		double best = INFINITY;

		a = b = n;
		for (i = 0; i < n; i++)
			if (root[i] == i && near[i] < n && ndist[i] < best) {
				best = ndist[i];
				a = i;
				b = near[i];
			}
		if (a == n || best > threshold)
			break;
		for (x = 0; x < n; x++) {
			sum[a * n + x] += sum[b * n + x];
			cnt[a * n + x] += cnt[b * n + x];
			sum[x * n + a] = sum[a * n + x];
			cnt[x * n + a] = cnt[a * n + x];
		}
		for (x = 0; x < n; x++)
			if (root[x] == b)
				root[x] = a;
		for (i = 0; i < b; i++) {
			double c, d;

			if (root[i] != i)
				continue;
			if (i == a || near[i] == a || near[i] == b) {
				row_nearest(sum, cnt, root, n, i, near, ndist);
				continue;
			}
			if (i > a || (c = cnt[i * n + a]) == 0)
				continue;
			d = sum[i * n + a] / c;
			if (d < ndist[i] || (d == ndist[i] && a < near[i])) {
				ndist[i] = d;
				near[i] = a;
			}
		}
	}
	/* Number the clusters by their first member. */
	for (i = 0; i < n; i++)
		group[i] = n;
	next = 0;
	for (i = 0; i < n; i++) {
		if (group[i] != n)
			continue;
		for (j = i; j < n; j++)
			if (root[j] == root[i])
				group[j] = next;
		next++;
	}
	*ngroups = next;
	rc = 0;
out:
	free(sum);
	free(cnt);
	free(root);
	free(near);
	free(ndist);
	return rc;
}

int
matrix_sites_hint(struct matrix *hm, const char *host, const char *site)
{
	struct matrix_site_hint *h;
	size_t i;

	for (i = 0; i < hm->nsite_hints; i++)
		if (strcmp(hm->site_hints[i].host, host) == 0)
			return 0;
	h = realloc(hm->site_hints, (hm->nsite_hints + 1) * sizeof *h);
	if (h == NULL)
		return NP_ERR_NOMEM;
	hm->site_hints = h;
	h = &hm->site_hints[hm->nsite_hints];
	h->host = strdup(host);
	h->site = strdup(site);
	if (h->host == NULL || h->site == NULL) {
		free(h->host);
		free(h->site);
		return NP_ERR_NOMEM;
	}
	hm->nsite_hints++;
	return 0;
}

/* The site of host: --config's, else the first run.json's that has one. */
static const char *
site_of(const struct matrix *hm, const char *host)
{
	size_t i, j;

	for (i = 0; i < hm->nsite_hints; i++)
		if (strcmp(hm->site_hints[i].host, host) == 0)
			return hm->site_hints[i].site;
	for (i = 0; i < hm->input.nruns; i++) {
		const struct run_info *run = hm->input.runs[i];

		for (j = 0; j < run->nmachines; j++)
			if (run->sites[j] != NULL &&
			    strcmp(run->machines[j], host) == 0)
				return run->sites[j];
	}
	return NULL;
}

static int
group_add(struct matrix *hm, const char *name, size_t *index)
{
	char **g;
	size_t i;

	for (i = 0; i < hm->ngroups; i++)
		if (strcmp(hm->groups[i], name) == 0) {
			*index = i;
			return 0;
		}
	if ((g = realloc(hm->groups, (hm->ngroups + 1) * sizeof *g)) == NULL)
		return NP_ERR_NOMEM;
	hm->groups = g;
	if ((g[hm->ngroups] = strdup(name)) == NULL)
		return NP_ERR_NOMEM;
	*index = hm->ngroups++;
	return 0;
}

/*
 * The round trips to cluster, per pair: the default metric of the first
 * kind in the table that is the network's round trip (PROBE_NET_RTT: ping
 * avg), else of the next (libp2p_ping p50_ms), so hosts only one of them
 * measured are placed too.
 */
static double *
rtt_matrix(struct matrix *hm)
{
	const struct probe_kind *pk, *used[8];
	size_t n = hm->nhosts, i, nused = 0, len = 0;
	char *basis = hm->basis_text;
	double *d;

	if ((d = malloc((n ? n * n : 1) * sizeof *d)) == NULL)
		return NULL;
	for (i = 0; i < n * n; i++)
		d[i] = NAN;
	for (pk = probe_kinds; pk->name != NULL; pk++) {
		const struct matrix_kind *k;
		size_t have = 0;
		int m;

		if (!(pk->flags & PROBE_NET_RTT) ||
		    (k = matrix_find_kind(hm, pk->name)) == NULL ||
		    (m = matrix_find_metric(k, pk->default_metric)) < 0)
			continue;
		for (i = 0; i < n * n; i++)
			if (isnan(d[i]) && k->cells[i].state == CELL_VALUE &&
			    !isnan(k->cells[i].values[m])) {
				d[i] = k->cells[i].values[m];
				have++;
			}
		if (have > 0 && nused < sizeof used / sizeof *used)
			used[nused++] = pk;
	}
	/* "ping avg (else libp2p_ping p50_ms)" */
	for (i = 0; i < nused && len < sizeof hm->basis_text; i++)
		len += (size_t)snprintf(basis + len, sizeof hm->basis_text -
		    len, "%s%s %s%s", i == 0 ? "" : i == 1 ? " (else " :
		    ", else ", used[i]->name, used[i]->default_metric,
		    i > 0 && i + 1 == nused ? ")" : "");
	if (nused > 0)
		hm->group_basis = basis;
	return d;
}

static const struct matrix *sort_hm;

static int
cmp_grouped(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	if (sort_hm->host_group[a] != sort_hm->host_group[b])
		return sort_hm->host_group[a] < sort_hm->host_group[b] ? -1 : 1;
	return a < b ? -1 : a > b;	/* hosts are in natural order */
}

static int
cmp_name(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	/* a host without a site comes last */
	if ((strcmp(x, MATRIX_NO_SITE) == 0) != (strcmp(y, MATRIX_NO_SITE) == 0))
		return strcmp(x, MATRIX_NO_SITE) == 0 ? 1 : -1;
	return matrix_host_compare(x, y);
}

/*
 * One kind's cells in the new order, in place: each row's columns through
 * a row's copy, then the rows along perm's cycles. A fresh grid per kind
 * would be written to new pages (the first touch of each faults), and
 * gathered a cell at a time from rows all over the old one.
 */
static void
permute_cells(struct matrix_cell *cells, const size_t *perm, size_t n,
    struct matrix_cell *tmp, unsigned char *done)
{
	size_t a, b, j;

	for (a = 0; a < n; a++) {
		struct matrix_cell *row = cells + a * n;

		memcpy(tmp, row, n * sizeof *tmp);
		for (b = 0; b < n; b++)
			row[b] = tmp[perm[b]];
	}
	memset(done, 0, n);
	for (a = 0; a < n; a++) {
		if (done[a] || perm[a] == a)
			continue;
		memcpy(tmp, cells + a * n, n * sizeof *tmp);
		for (j = a; perm[j] != a; j = perm[j]) {
			memcpy(cells + j * n, cells + perm[j] * n,
			    n * sizeof *cells);
			done[j] = 1;
		}
		memcpy(cells + j * n, tmp, n * sizeof *tmp);
		done[j] = 1;
	}
}

/* Reorder hosts, groups' members together: perm[new] = old. */
static int
apply_order(struct matrix *hm, const size_t *perm)
{
	size_t n = hm->nhosts, i, *inv = NULL, *grp = NULL;
	struct matrix_cell *tmp = NULL;
	unsigned char *done = NULL;
	char **hosts = NULL;
	int rc = NP_ERR_NOMEM;

	if ((inv = malloc(n * sizeof *inv)) == NULL ||
	    (hosts = malloc(n * sizeof *hosts)) == NULL ||
	    (grp = malloc(n * sizeof *grp)) == NULL ||
	    (tmp = malloc(n * sizeof *tmp)) == NULL ||
	    (done = malloc(n)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		inv[perm[i]] = i;
		hosts[i] = hm->hosts[perm[i]];
		grp[i] = hm->host_group[perm[i]];
	}
	for (i = 0; i < hm->nkinds; i++)
		permute_cells(hm->kinds[i].cells, perm, n, tmp, done);
	for (i = 0; i < hm->nworse; i++) {
		hm->worse[i].src = inv[hm->worse[i].src];
		hm->worse[i].tgt = inv[hm->worse[i].tgt];
	}
	free(hm->hosts);
	hm->hosts = hosts;
	hosts = NULL;
	hm->hosts_alloc = n;
	free(hm->host_group);
	hm->host_group = grp;
	grp = NULL;
	rc = matrix_rehash(hm, hm->nslots ? hm->nslots : 64);
out:
	free(inv);
	free(hosts);
	free(grp);
	free(tmp);
	free(done);
	return rc;
}

/* Groups from sites; 0 if some host has none and by is AUTO (*found = 0). */
static int
group_by_site(struct matrix *hm, enum matrix_sites_group_by by, int *found)
{
	size_t i, j, *remap;
	char **sorted;
	int rc;

	*found = 0;
	for (i = 0; i < hm->nhosts; i++)
		if (site_of(hm, hm->hosts[i]) == NULL && by == MATRIX_GROUP_AUTO)
			return 0;
	for (i = 0; i < hm->nhosts; i++) {
		const char *site = site_of(hm, hm->hosts[i]);

		if ((rc = group_add(hm, site != NULL ? site : MATRIX_NO_SITE,
		    &hm->host_group[i])) != 0)
			return rc;
	}
	/* Groups in natural order of their names. */
	if ((sorted = malloc(hm->ngroups * sizeof *sorted)) == NULL ||
	    (remap = malloc(hm->ngroups * sizeof *remap)) == NULL) {
		free(sorted);
		return NP_ERR_NOMEM;
	}
	memcpy(sorted, hm->groups, hm->ngroups * sizeof *sorted);
	qsort(sorted, hm->ngroups, sizeof *sorted, cmp_name);
	for (i = 0; i < hm->ngroups; i++)
		for (j = 0; j < hm->ngroups; j++)
			if (sorted[j] == hm->groups[i])
				remap[i] = j;
	for (i = 0; i < hm->nhosts; i++)
		hm->host_group[i] = remap[hm->host_group[i]];
	memcpy(hm->groups, sorted, hm->ngroups * sizeof *sorted);
	free(sorted);
	free(remap);
	hm->group_by = "site";
	*found = 1;
	return 0;
}

static int
group_by_rtt(struct matrix *hm, double threshold)
{
	double *d;
	size_t i, n;
	char name[32];
	int rc;

	if ((d = rtt_matrix(hm)) == NULL)
		return NP_ERR_NOMEM;
	if (hm->group_basis == NULL) {
		free(d);
		return 0;	/* nothing to cluster: no groups */
	}
	rc = matrix_sites_cluster(d, hm->nhosts, threshold, hm->host_group, &n);
	free(d);
	if (rc != 0)
		return rc;
	for (i = 0; i < n; i++) {
		size_t idx;

		snprintf(name, sizeof name, "cluster %zu", i + 1);
		if ((rc = group_add(hm, name, &idx)) != 0)
			return rc;
	}
	hm->group_by = "rtt";
	return 0;
}

int
matrix_sites_group(struct matrix *hm, enum matrix_sites_group_by by, double threshold)
{
	size_t *perm = NULL, i;
	int rc = NP_ERR_NOMEM, found = 0;

	hm->group_by = "none";
	if (hm->nhosts == 0 || by == MATRIX_GROUP_NONE)
		return 0;
	if ((hm->host_group = calloc(hm->nhosts, sizeof *hm->host_group)) ==
	    NULL)
		return NP_ERR_NOMEM;
	if (by != MATRIX_GROUP_RTT &&
	    (rc = group_by_site(hm, by, &found)) != 0)
		goto out;
	if (!found && (rc = group_by_rtt(hm, threshold)) != 0)
		goto out;
	/* Found, not asked for: one cluster of all, every host alone, or
	 * more clusters than a summary can show (a run.json's machines
	 * without records are each alone) says nothing about sites. */
	if (by == MATRIX_GROUP_AUTO && !found && (hm->ngroups == 1 ||
	    hm->ngroups == hm->nhosts || hm->ngroups > MATRIX_SITES_MAX)) {
		for (i = 0; i < hm->ngroups; i++)
			free(hm->groups[i]);
		free(hm->groups);
		hm->groups = NULL;
		hm->ngroups = 0;
	}
	if (hm->ngroups == 0) {
		hm->group_by = "none";
		free(hm->host_group);
		hm->host_group = NULL;
		rc = 0;
		goto out;
	}
	if ((perm = malloc(hm->nhosts * sizeof *perm)) == NULL) {
		rc = NP_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < hm->nhosts; i++)
		perm[i] = i;
	sort_hm = hm;
	qsort(perm, hm->nhosts, sizeof *perm, cmp_grouped);
	sort_hm = NULL;
	/* Groups that already stand together (hosts named by site, as
	 * usual) need no copy of every kind's cells. */
	for (i = 0; i < hm->nhosts && perm[i] == i; i++)
		;
	rc = i < hm->nhosts ? apply_order(hm, perm) : 0;
out:
	free(perm);
	return rc;
}

int
matrix_sites_summary(const struct matrix *hm, const struct matrix_kind *k,
    size_t metric, struct site_cell **out)
{
	size_t g = hm->ngroups, n = hm->nhosts, a, b, i, *fill = NULL;
	struct site_cell *sc;
	double **vals = NULL;
	int rc = NP_ERR_NOMEM, hb;

	*out = NULL;
	if (g == 0 || hm->host_group == NULL)
		return 0;
	hb = metric < k->nmetrics ? k->metrics[metric].higher_better : 0;
	if ((sc = calloc(g * g, sizeof *sc)) == NULL ||
	    (vals = calloc(g * g, sizeof *vals)) == NULL ||
	    (fill = calloc(g * g, sizeof *fill)) == NULL)
		goto out;
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			if (a != b)
				sc[hm->host_group[a] * g +
				    hm->host_group[b]].npairs++;
	for (i = 0; i < g * g; i++) {
		sc[i].median = sc[i].worst = NAN;
		if ((vals[i] = malloc((sc[i].npairs + 1) *
		    sizeof **vals)) == NULL)
			goto out;
	}
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			const struct matrix_cell *c = matrix_cell_at(hm, k, a, b);
			size_t j = hm->host_group[a] * g + hm->host_group[b];
			double v;

			if (c->state == CELL_FAILED)
				sc[j].nfailed++;
			if (c->state != CELL_VALUE || metric >= k->nmetrics ||
			    isnan(v = c->values[metric]))
				continue;
			vals[j][fill[j]++] = v;
			if (isnan(sc[j].worst) || (hb ? v < sc[j].worst :
			    v > sc[j].worst)) {
				sc[j].worst = v;
				sc[j].worst_src = a;
				sc[j].worst_tgt = b;
			}
		}
	for (i = 0; i < g * g; i++) {
		sc[i].nvalues = fill[i];
		if (fill[i] > 0)
			sc[i].median = stats_median_select(vals[i],
			    fill[i]);
	}
	*out = sc;
	sc = NULL;
	rc = 0;
out:
	for (i = 0; vals != NULL && i < g * g; i++)
		free(vals[i]);
	free(vals);
	free(fill);
	free(sc);
	return rc;
}
