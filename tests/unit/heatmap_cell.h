/*
 * A heatmap cell and one of its values by kind, source and target names,
 * for the heatmap's unit tests (the model's and the fold's). Include after
 * <cmocka.h> and "heatmap.h".
 */
#ifndef NETPROF_TEST_HEATMAP_CELL_H
#define NETPROF_TEST_HEATMAP_CELL_H

static inline const struct hm_cell *
cell(const struct heatmap *hm, const char *kind, const char *src,
    const char *tgt)
{
	const struct hm_kind *k = heatmap_find_kind(hm, kind);
	long s = heatmap_host_index(hm, src), t = heatmap_host_index(hm, tgt);

	assert_non_null(k);
	assert_true(s >= 0 && t >= 0);
	return heatmap_cell(hm, k, (size_t)s, (size_t)t);
}

static inline double
value(const struct heatmap *hm, const char *kind, const char *src,
    const char *tgt, const char *metric)
{
	const struct hm_kind *k = heatmap_find_kind(hm, kind);
	int m = heatmap_find_metric(k, metric);

	assert_true(m >= 0);
	return cell(hm, kind, src, tgt)->values[m];
}

#endif
