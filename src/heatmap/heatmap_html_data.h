/*
 * The page's data for its script (heatmap_html_data.c), and what the page
 * (heatmap_html.c) and its data both name: the page's options, its colour
 * classes, the bound of its table, a kind's label. Below the page: the
 * page calls it, never the other way.
 */
#ifndef NETPROF_HEATMAP_HTML_DATA_H
#define NETPROF_HEATMAP_HTML_DATA_H

#include <stdio.h>

#include "matrix.h"

struct heatmap_advice;
struct heatmap_relative;

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

/* The page's data as JSON for its script: its view, hosts, kinds, scale. */
void heatmap_html_data(FILE *f, const struct matrix *hm,
    const struct html_options *opt, const struct heatmap_relative *rel);
/* A kind as the page's title and selector name it. */
const char *heatmap_kind_label(const struct matrix_kind *k);

#endif
