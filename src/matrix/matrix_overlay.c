/*
 * The heatmap's model: the pair matrix (matrix.h) built, and the derived
 * "overlay" kind that puts what a libp2p kind measured over the raw-IP
 * baseline of the same pair, a ratio per kind whose row names one (its
 * .over kind and .over_metric): libp2p_ping and latency over the ICMP
 * round trip, throughput over iperf3's.
 */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "matrix.h"
#include "matrix_path.h"
#include "probe_kind.h"

#define OVERLAY_KIND "overlay"
/* The smallest ICMP round trip a ratio is taken over (ms). */
#define OVERLAY_RTT_MIN_MS 1.0
#define OVERLAY_MAX_RATIOS 16

/* The default-metric value of kind (NULL if not read) for a pair, or NAN. */
static double
pair_value(const struct matrix_kind *k, size_t i)
{
	const struct matrix_cell *c;

	if (k == NULL || k->nmetrics == 0)
		return NAN;
	c = &k->cells[i];
	if (c->state != CELL_VALUE)
		return NAN;
	return c->values[k->default_metric];
}

/* One ratio of the overlay: a kind's default metric over its base's. */
struct ratio {
	const char *metric;
	const struct matrix_kind *over, *under;
	int rtt;		/* over a round trip: floored */
	size_t have;		/* pairs with a value */
};

static int
build_overlay(struct matrix *hm)
{
	const struct probe_kind *pk, *base;
	struct ratio r[OVERLAY_MAX_RATIOS];
	const char *names[OVERLAY_MAX_RATIOS];
	size_t n = hm->nhosts * hm->nhosts, nr = 0, i, m, nnames = 0;
	struct matrix_kind *k;
	double *ratios;
	int metric[OVERLAY_MAX_RATIOS], rc = 0;

	/* Looked up once: the loops below visit every pair. */
	for (pk = probe_kinds; pk->name != NULL && nr < OVERLAY_MAX_RATIOS;
	    pk++) {
		if ((base = probe_kind_find(pk->over)) == NULL)
			continue;
		r[nr].metric = pk->over_metric;
		r[nr].over = matrix_find_kind(hm, pk->name);
		r[nr].under = matrix_find_kind(hm, base->name);
		r[nr].rtt = (base->flags & PROBE_NET_RTT) != 0;
		r[nr].have = 0;
		nnames += r[nr].over != NULL && r[nr].under != NULL;
		nr++;
	}
	if (nnames == 0)
		return 0;	/* no pair of kinds: no overlay */
	if ((ratios = malloc((n ? n : 1) * nr * sizeof *ratios)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		for (m = 0; m < nr; m++) {
			double over, under;

			ratios[i * nr + m] = NAN;
			/* A ratio without both kinds has no value anywhere. */
			if (r[m].over == NULL || r[m].under == NULL)
				continue;
			over = pair_value(r[m].over, i);
			under = pair_value(r[m].under, i);
			if (isnan(over) || isnan(under) || under <= 0)
				continue;
			/* Below a millisecond a round trip is timer and
			 * stack noise: 0.7 ms over 0.3 ms is no "2.3x". */
			if (r[m].rtt && under < OVERLAY_RTT_MIN_MS)
				under = OVERLAY_RTT_MIN_MS;
			ratios[i * nr + m] = over / under;
			r[m].have++;
		}
	}
	for (m = nnames = 0; m < nr; m++)
		if (r[m].have > 0)
			names[nnames++] = r[m].metric;
	if (nnames == 0)
		goto out;
	if ((k = matrix_add_derived(hm, OVERLAY_KIND, names, nnames)) ==
	    NULL) {
		rc = NP_ERR_NOMEM;
		goto out;
	}
	k->default_metric = 0;
	for (m = 0; m < nr; m++)
		metric[m] = matrix_find_metric(k, r[m].metric);
	for (i = 0; i < n; i++) {
		if (k->cells[i].state == CELL_SELF)
			continue;
		for (m = 0; m < nr; m++) {
			double v = ratios[i * nr + m];

			if (isnan(v) || metric[m] < 0)
				continue;
			k->cells[i].values[metric[m]] = v;
			k->cells[i].state = CELL_VALUE;
		}
	}
out:
	free(ratios);
	return rc;
}

int
matrix_overlay_build(struct matrix *hm, enum matrix_aggregate aggregate,
    const char *only_kind)
{
	int rc;

	if ((rc = matrix_build(hm, aggregate, only_kind)) != 0 ||
	    only_kind != NULL || (rc = build_overlay(hm)) != 0)
		return rc;
	return matrix_path_build(hm);
}
