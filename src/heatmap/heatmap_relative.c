/*
 * The colours against what is typical (heatmap_relative.h): each kind's
 * figure and its site pairs' typical values as the diagnosis' evidence
 * holds them, the overlay's typical ratios, and the cells the findings
 * name.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose_evidence.h"
#include "heatmap_relative.h"
#include "stats.h"

/* The overlay's typical ratio of a site pair: the quantile of its cells
 * the evidence takes of a latency (lower is better) or a rate. */
#define REL_TYPICAL_LOW 0.25
#define REL_TYPICAL_RATE 0.5

/* The overlay's typical ratios: per site pair, a quantile of its cells. */
static int
overlay_typicals(const struct matrix *hm, const struct matrix_kind *k,
    struct rel_kind *rk, size_t g)
{
	size_t n = hm->nhosts, a, b, s, t, m;
	double *buf = malloc((n * n + 1) * sizeof *buf);
	double q = rk->higher_better ? REL_TYPICAL_RATE : REL_TYPICAL_LOW;

	if (buf == NULL)
		return NP_ERR_NOMEM;
	for (a = 0; a < g; a++)
		for (b = 0; b < g; b++) {
			for (s = m = 0; s < n; s++)
				for (t = 0; t < n; t++) {
					const struct matrix_cell *c =
					    &k->cells[s * n + t];

					if (s != t && hm->host_group[s] == a &&
					    hm->host_group[t] == b &&
					    c->state == CELL_VALUE &&
					    !isnan(c->values[rk->metric]))
						buf[m++] = c->values[rk->metric];
				}
			rk->typ[a * g + b] = m > 0 ? stats_select(buf, m,
			    (size_t)(q * (double)(m - 1) + 0.5)) : NAN;
		}
	free(buf);
	return 0;
}

/* The cells the findings name, by their worst severity; a detour's
 * libp2p_ping cell names the overlay's too. */
static void
mark_named(struct heatmap_relative *rel, const struct diagnosis *dx,
    long overlay)
{
	size_t n = rel->hm->nhosts, i, j;

	for (i = 0; dx != NULL && i < dx->nfindings; i++) {
		const struct finding *x = &dx->findings[i];

		for (j = 0; j < x->ncells; j++) {
			const struct dx_cell *c = &x->cells[j];
			size_t at = c->src * n + c->tgt;
			unsigned char *p = &rel->kinds[c->kind].named[at];

			if (*p < x->severity)
				*p = (unsigned char)x->severity;
			if (overlay < 0 || !(c->what & DX_W_DETOUR))
				continue;
			p = &rel->kinds[overlay].named[at];
			if (*p < x->severity)
				*p = (unsigned char)x->severity;
		}
	}
}

int
heatmap_relative_build(struct heatmap_relative *rel, const struct matrix *hm,
    const struct diagnosis *dx)
{
	struct evidence ev;
	size_t n = hm->nhosts, g, k, i;
	long overlay = -1;
	int rc;

	memset(rel, 0, sizeof *rel);
	rel->hm = hm;
	if (hm->host_group == NULL || hm->ngroups == 0 || hm->nkinds == 0)
		return 0;
	g = rel->g = hm->ngroups;
	if ((rel->kinds = calloc(hm->nkinds, sizeof *rel->kinds)) == NULL)
		return NP_ERR_NOMEM;
	for (k = 0; k < hm->nkinds; k++) {
		rel->kinds[k].metric = -1;
		if ((rel->kinds[k].named = calloc(n * n + 1, 1)) == NULL ||
		    (rel->kinds[k].typ = malloc(g * g *
		    sizeof *rel->kinds[k].typ)) == NULL) {
			rc = NP_ERR_NOMEM;
			goto out;
		}
	}
	if ((rc = diagnose_evidence_build(&ev, hm, NULL)) != 0)
		goto out;
	for (i = 0; i < ev.nkinds; i++) {
		const struct ev_kind *ek = &ev.kinds[i];
		struct rel_kind *rk = &rel->kinds[ek->k];
		const double *typ = ek->lat >= 0 ? ek->typ_lat : ek->typ_rate;

		if (typ == NULL)
			continue;
		rk->metric = ek->lat >= 0 ? ek->lat : ek->rate;
		rk->higher_better = ek->lat < 0;
		rk->floor = ek->lat >= 0 ? ek->role.slow_floor :
		    ek->role.narrow_floor;
		memcpy(rk->typ, typ, g * g * sizeof *typ);
	}
	diagnose_evidence_free(&ev);
	for (k = 0; k < hm->nkinds; k++) {
		const struct matrix_kind *kind = &hm->kinds[k];
		struct rel_kind *rk = &rel->kinds[k];

		if (!kind->derived || strcmp(kind->name, "overlay") != 0 ||
		    kind->nmetrics == 0)
			continue;
		overlay = (long)k;
		rk->metric = (int)kind->default_metric;
		rk->higher_better = kind->metrics[rk->metric].higher_better;
		if ((rc = overlay_typicals(hm, kind, rk, g)) != 0)
			goto out;
	}
	mark_named(rel, dx, overlay);
	rc = 0;
out:
	if (rc != 0)
		heatmap_relative_free(rel);
	return rc;
}

void
heatmap_relative_free(struct heatmap_relative *rel)
{
	size_t k;

	for (k = 0; rel->kinds != NULL && k < rel->hm->nkinds; k++) {
		free(rel->kinds[k].typ);
		free(rel->kinds[k].named);
	}
	free(rel->kinds);
	rel->kinds = NULL;
}

const char *
heatmap_relative_metric(const struct heatmap_relative *rel, size_t k)
{
	const struct rel_kind *rk;

	if (rel->kinds == NULL || k >= rel->hm->nkinds)
		return NULL;
	rk = &rel->kinds[k];
	return rk->metric >= 0 ? rel->hm->kinds[k].metrics[rk->metric].name :
	    NULL;
}

/* page.js's relBadness() is this, to the digit. */
double
heatmap_relative_badness(const struct heatmap_relative *rel, size_t k,
    size_t s, size_t t)
{
	const struct matrix *hm = rel->hm;
	const struct rel_kind *rk;
	const struct matrix_cell *c;
	double v, ty, x;

	if (heatmap_relative_metric(rel, k) == NULL)
		return NAN;
	rk = &rel->kinds[k];
	c = matrix_cell_at(hm, &hm->kinds[k], s, t);
	if (c->state != CELL_VALUE)
		return NAN;
	if (rk->named[s * hm->nhosts + t] >= DX_SEV_WARNING)
		return 1;
	if (rk->named[s * hm->nhosts + t] == DX_SEV_INFO)
		return HEATMAP_REL_HINT;
	v = c->values[rk->metric];
	ty = rk->typ[hm->host_group[s] * rel->g + hm->host_group[t]];
	if (isnan(v) || isnan(ty) || ty <= 0)
		return 0;
	if (v <= 0)
		return rk->higher_better ? HEATMAP_REL_BELOW : 0;
	x = log(rk->higher_better ? ty / v : v / ty) / log(2);
	if (rk->floor > 0)
		x = fmin(x, (rk->higher_better ? ty - v : v - ty) / rk->floor);
	return HEATMAP_REL_BELOW * fmin(1, fmax(0, x));
}

void
heatmap_relative_json(FILE *f, const struct heatmap_relative *rel, size_t k)
{
	const struct rel_kind *rk;
	size_t i, n = rel->hm->nhosts;
	int first = 1;

	if (heatmap_relative_metric(rel, k) == NULL)
		return;
	rk = &rel->kinds[k];
	fprintf(f, ",\n\"rel\":{\"m\":%d,\"hb\":%d,\"fl\":", rk->metric,
	    rk->higher_better);
	heatmap_html_number(f, rk->floor);
	fputs(",\"typ\":[", f);
	for (i = 0; i < rel->g * rel->g; i++) {
		if (i)
			fputc(',', f);
		heatmap_html_number(f, rk->typ[i]);
	}
	fputs("],\"named\":{", f);
	for (i = 0; i < n * n; i++)
		if (rk->named[i] != 0) {
			fprintf(f, first ? "\"%zu\":%d" : ",\"%zu\":%d", i,
			    rk->named[i]);
			first = 0;
		}
	fputs("}}", f);
}
