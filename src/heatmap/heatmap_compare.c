/*
 * Two runs compared. Each measured kind's default metric of a pair in the
 * new run is set against the same pair and kind in the old run (hosts
 * matched by name), as a factor where above 1 is worse whichever way the
 * metric goes. A pair is listed as worse when the factor and the
 * difference both pass a floor, or when it failed now and worked before:
 * a script alerting on the list must not fire on noise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heatmap_compare.h"

/* The default-metric value of a cell, NAN if none; *failed if it failed. */
static double
cell_value(const struct matrix_kind *k, const struct matrix_cell *c, int *failed)
{
	*failed = c->state == CELL_FAILED;
	if (c->state != CELL_VALUE || k->default_metric >= k->nmetrics)
		return NAN;
	return c->values[k->default_metric];
}

static int
cmp_worse(const void *a, const void *b)
{
	const struct matrix_worse *x = a, *y = b;

	if (x->factor != y->factor)
		return x->factor > y->factor ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->tgt < y->tgt ? -1 : x->tgt > y->tgt;
}

static int
worse_add(struct matrix *hm, size_t *alloc, const struct matrix_worse *w)
{
	struct matrix_worse *p;

	if (hm->nworse == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 64;
		if ((p = realloc(hm->worse, *alloc * sizeof *p)) == NULL)
			return NP_ERR_NOMEM;
		hm->worse = p;
	}
	hm->worse[hm->nworse++] = *w;
	return 0;
}

int
heatmap_compare(struct matrix *hm, const struct matrix *old)
{
	const char *names[MATRIX_MAX_KINDS];
	size_t n = hm->nhosts, nk = 0, k, a, b, alloc = 0, measured;
	long *map = NULL;
	struct matrix_kind *change = NULL;
	int rc = NP_ERR_NOMEM;

	hm->compared = 1;
	measured = hm->nkinds;
	for (k = 0; k < measured && nk < MATRIX_MAX_KINDS; k++)
		if (!hm->kinds[k].derived &&
		    matrix_find_kind(old, hm->kinds[k].name) != NULL)
			names[nk++] = hm->kinds[k].name;
	if ((map = malloc((n ? n : 1) * sizeof *map)) == NULL)
		return NP_ERR_NOMEM;
	for (a = 0; a < n; a++)
		map[a] = matrix_host_index(old, hm->hosts[a]);
	/* The view's metrics are named after the kinds: "ping_x_worse". */
	if (nk > 0 && matrix_find_kind(hm, HEATMAP_CHANGE_KIND) == NULL) {
		char buf[MATRIX_MAX_KINDS][80];
		const char *metric_names[MATRIX_MAX_KINDS];

		for (k = 0; k < nk; k++) {
			snprintf(buf[k], sizeof buf[k], "%.60s_x_worse",
			    names[k]);
			metric_names[k] = buf[k];
		}
		if ((change = matrix_add_derived(hm, HEATMAP_CHANGE_KIND,
		    metric_names, nk)) == NULL)
			goto out;
	}
	for (k = 0; k < measured; k++) {
		const struct matrix_kind *nkind = &hm->kinds[k], *okind;
		const struct matrix_metric *m;
		int ci = -1;

		if (nkind->derived || (okind = matrix_find_kind(old,
		    nkind->name)) == NULL ||
		    nkind->default_metric >= nkind->nmetrics)
			continue;
		m = &nkind->metrics[nkind->default_metric];
		if (change != NULL) {
			char name[80];

			snprintf(name, sizeof name, "%.60s_x_worse",
			    nkind->name);
			ci = matrix_find_metric(change, name);
		}
		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++) {
				struct matrix_worse w;
				const struct matrix_cell *oc;
				int nf, of;
				double nv, ov;

				if (a == b || map[a] < 0 || map[b] < 0)
					continue;
				oc = matrix_cell_at(old, okind, (size_t)map[a],
				    (size_t)map[b]);
				nv = cell_value(nkind, matrix_cell_at(hm, nkind,
				    a, b), &nf);
				ov = cell_value(okind, oc, &of);
				memset(&w, 0, sizeof w);
				w.kind = k;
				w.src = a;
				w.tgt = b;
				w.before = ov;
				w.after = nv;
				if (nf && !isnan(ov)) {
					w.factor = INFINITY;
					if ((rc = worse_add(hm, &alloc, &w)) != 0)
						goto out;
					continue;
				}
				if (isnan(nv) || isnan(ov) || nv <= 0 || ov <= 0)
					continue;
				w.factor = m->higher_better ? ov / nv : nv / ov;
				if (ci >= 0) {
					struct matrix_cell *cc = matrix_cell_at(hm,
					    change, a, b);

					cc->state = CELL_VALUE;
					cc->values[ci] = w.factor;
				}
				if (w.factor >= HEATMAP_WORSE_RATIO &&
				    fabs(nv - ov) >= m->span_min &&
				    (rc = worse_add(hm, &alloc, &w)) != 0)
					goto out;
			}
	}
	if (hm->nworse > 1)
		qsort(hm->worse, hm->nworse, sizeof *hm->worse, cmp_worse);
	rc = 0;
out:
	free(map);
	return rc;
}
