/*
 * Two runs compared (--compare): for every pair and measured kind of the
 * new run that the old run measured too, how many times worse the kind's
 * default metric got (new over old for latencies, old over new for
 * throughput), as the derived kind "change"; and the pairs that got worse
 * beyond the floors, or that failed where they had worked.
 */
#ifndef NETPROF_HEATMAP_COMPARE_H
#define NETPROF_HEATMAP_COMPARE_H

#include "heatmap.h"

#define HEATMAP_CHANGE_KIND "change"
/*
 * A pair got worse when its metric is this many times worse and worse by
 * at least the metric's span_min (1 ms for latencies; for throughput the
 * ratio alone), so run-to-run noise is no finding.
 */
#define HEATMAP_WORSE_RATIO 1.25

/*
 * Compare hm (built) with old (built): adds the "change" kind to hm and
 * fills hm->worse, worst first. Before matrix_sites_group().
 */
int heatmap_compare(struct matrix *hm, const struct matrix *old);

#endif
