/*
 * The colours against what is typical: where the run has sites (given or
 * found), a cell's colour says how far its figure is from its site pair's
 * typical value, the diagnosis' own (diagnose_evidence.h: the quantile of
 * the site pair's cells its thresholds are held against), and the cells
 * a finding names stand out. A healthy WAN is green however far its
 * sites are apart; the raw scale (the run's best to its worst) stays a
 * click away on the page. The overlay's ratios (libp2p over its raw-IP
 * baseline) are held against their site pair's typical ratio.
 */
#ifndef NETPROF_HEATMAP_RELATIVE_H
#define NETPROF_HEATMAP_RELATIVE_H

#include <stdio.h>

#include "heatmap.h"
#include "diagnose.h"

/*
 * Badness on this scale: a figure at its site pair's typical value or
 * better is 0, one twice as far off (and past the kind's floor, in ms or
 * Mbit/s) is REL_BELOW; only a cell a finding names goes above: an info
 * finding's REL_HINT, a warning's or an error's 1.
 */
#define HEATMAP_REL_BELOW 0.6
#define HEATMAP_REL_HINT 0.8

struct rel_kind {
	int metric;		/* the figure judged; -1: no relative scale */
	int higher_better;
	double floor;		/* ms above, or Mbit/s below, typical (0: none) */
	double *typ;		/* per site pair (g * g), NAN where none */
	unsigned char *named;	/* per cell (n * n): the worst severity of
				 * the findings naming it (DX_SEV_*) */
};

struct heatmap_relative {
	const struct matrix *hm;
	size_t g;
	struct rel_kind *kinds;	/* per hm->kinds; NULL: no sites, no scale */
};

/* The scale of hm (grouped, diagnosed as dx); 0 or NP_ERR_NOMEM. Without
 * sites every kind is left without one (the raw scale). */
int heatmap_relative_build(struct heatmap_relative *rel,
    const struct matrix *hm, const struct diagnosis *dx);
void heatmap_relative_free(struct heatmap_relative *rel);

/* Kind k has the scale: its metric's name, else NULL. */
const char *heatmap_relative_metric(const struct heatmap_relative *rel,
    size_t k);
/* Badness of cell s -> t of kind k (0 .. 1); NAN: none on this scale. */
double heatmap_relative_badness(const struct heatmap_relative *rel, size_t k,
    size_t s, size_t t);
/* Kind k's scale in the page's data: ,"rel":{"m":..,"hb":..,"fl":..,
 * "typ":[..],"named":{"CELL":SEV,..}}, nothing without one. */
void heatmap_relative_json(FILE *f, const struct heatmap_relative *rel,
    size_t k);

#endif
