/*
 * The heatmap page: one self-contained HTML file (inline CSS, script and
 * SVG; nothing fetched) whose default matrix is rendered here, so it reads
 * without JavaScript; the embedded JSON lets the script switch kind, metric
 * and scale and show tooltips. Every input string goes into it through
 * heatmap_write.c's escapes (heatmap.h).
 */
#ifndef NETPROF_HEATMAP_HTML_H
#define NETPROF_HEATMAP_HTML_H

#include <stdio.h>

#include "heatmap.h"
#include "diagnose.h"

struct heatmap_advice;

struct html_options {
	const char *title;
	size_t kind;		/* the view rendered without script */
	size_t metric;
	double generated;	/* Unix time of writing */
	const struct heatmap_advice *advice;	/* the relay panel's; NULL: none */
};

/*
 * Cells are coloured by class (.q0 best .. .q20 worst), not by inline
 * style: 16k cells sharing 21 styles lay out and paint much faster.
 */
#define COLOR_STEPS 20
/*
 * Above this many hosts the table shows a block of HEATMAP_BLOCK x
 * HEATMAP_BLOCK (a million cells do not lay out in seconds); the
 * overviews pick the block.
 */
#define HEATMAP_TABLE_HOSTS 128
#define HEATMAP_BLOCK 64

struct heatmap_relative;

int heatmap_write_html(const struct matrix *hm, const struct diagnosis *dx,
    const struct html_options *opt, FILE *f);

/* The page's data for its script (heatmap_html_data.c). */
void heatmap_html_data(FILE *f, const struct matrix *hm,
    const struct html_options *opt, const struct heatmap_relative *rel);
/* A kind as the page's title and selector name it. */
const char *heatmap_kind_label(const struct matrix_kind *k);

#endif
