/*
 * The heatmap page: one self-contained HTML file (inline CSS, script and
 * SVG; nothing fetched) whose default matrix is rendered here, so it reads
 * without JavaScript; the embedded JSON lets the script switch kind, metric
 * and scale and show tooltips. Also the escaping every input string goes
 * through on its way into the page.
 */
#ifndef NETPROF_HEATMAP_HTML_H
#define NETPROF_HEATMAP_HTML_H

#include <stdio.h>

#include "heatmap.h"
#include "heatmap_diagnose.h"

struct html_options {
	const char *title;
	size_t kind;		/* the view rendered without script */
	size_t metric;
	double generated;	/* Unix time of writing */
};

int heatmap_write_html(const struct matrix *hm, const struct diagnosis *dx,
    const struct html_options *opt, FILE *f);

/* s as HTML text or attribute value: & < > " ' and / as references. */
void heatmap_html_escape(FILE *f, const char *s);
/*
 * s as a JSON string, quotes included, safe inside <script>: "/" is
 * written "\/" (so "</" becomes "<\/"), any other "<" as "\u003c" (no
 * "<!--", no tag), and control characters as \u00XX.
 */
void heatmap_json_escape(FILE *f, const char *s);

/* A number for JSON: short, exact for integers; null for NaN and inf. */
void heatmap_html_number(FILE *f, double v);

/* A cell's value as the page shows it: 3 significant digits or so. */
void heatmap_format_value(double v, char *buf, size_t size);

#endif
