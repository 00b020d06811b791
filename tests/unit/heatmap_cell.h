/*
 * For the heatmap's unit tests (the model's and the fold's): a temporary
 * JSONL file, and a cell and one of its values by kind, source and target
 * names. Include after <cmocka.h> and "heatmap.h".
 */
#ifndef NETPROF_TEST_HEATMAP_CELL_H
#define NETPROF_TEST_HEATMAP_CELL_H

#include <stdio.h>
#include <stdlib.h>

/* A new temporary file holding text; its path, valid until the next call. */
static inline const char *
temp_jsonl(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof path, "/tmp/netprof-heatmap-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static inline const struct matrix_cell *
cell(const struct matrix *hm, const char *kind, const char *src,
    const char *tgt)
{
	const struct matrix_kind *k = matrix_find_kind(hm, kind);
	long s = matrix_host_index(hm, src), t = matrix_host_index(hm, tgt);

	assert_non_null(k);
	assert_true(s >= 0 && t >= 0);
	return matrix_cell_at(hm, k, (size_t)s, (size_t)t);
}

static inline double
value(const struct matrix *hm, const char *kind, const char *src,
    const char *tgt, const char *metric)
{
	const struct matrix_kind *k = matrix_find_kind(hm, kind);
	int m = matrix_find_metric(k, metric);

	assert_true(m >= 0);
	return cell(hm, kind, src, tgt)->values[m];
}

#endif
