/*
 * The heatmap: the colour scale of the pair matrix's cells
 * (heatmap_scale.c) and what its outputs write alike (heatmap_write.c).
 * The page (heatmap_html.c), the terminal table (heatmap_text.c), the
 * comparison and the timeline read the matrix (matrix.h, built with its
 * derived kinds by matrix_overlay_build()).
 */
#ifndef NETPROF_HEATMAP_H
#define NETPROF_HEATMAP_H

#include <stddef.h>
#include <stdio.h>

#include "matrix.h"

/*
 * Badness of value in [lo, hi] as 0 (best) .. 1 (worst): lower values are
 * better unless higher_better; logarithmic if use_log (and lo > 0).
 */
double heatmap_badness(double value, double lo, double hi, int higher_better,
    int use_log);
/*
 * The range the colours spread over: [lo, hi] widened, away from the best
 * end, to at least HEATMAP_SPAN_REL of the larger value and the metric's
 * span_min, so that differences below what the measurement resolves
 * (0.01 against 0.04 ms on one switch) stay one colour instead of going
 * from green to red.
 */
#define HEATMAP_SPAN_REL 0.10
void heatmap_scale_span(const struct matrix_metric *m, double *lo, double *hi);

/* The colour of a badness: green (0) through yellow to red (1). */
void heatmap_color(double badness, unsigned char rgb[3]);

/* heatmap_write.c: what the outputs write alike */
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

/*
 * A name from the input (host, kind, metric) fit for a terminal: what may
 * not reach one (utf8_shown(): control characters, escape sequences) and
 * tabs as '?', a '?' a character, cut at a whole character to size - 1
 * bytes.
 */
const char *heatmap_clean_name(const char *s, char *buf, size_t size);

/*
 * How a view writes the failures table: its head (n: the pairs that
 * failed), each row's six cells (source, target, kind, failed of records,
 * class, last error) through put, after sep[0..5] and before sep[6], at
 * most max rows (0: all), then its tail (NULL: none).
 */
struct failure_format {
	void (*head)(FILE *f, size_t n);
	void (*put)(FILE *f, const char *s);
	const char *sep[7];
	const char *of;		/* between the failed and records' counts */
	size_t max;
	void (*tail)(FILE *f, size_t n);
};
/* The failures table of hm (diagnose_failures()) in fmt. */
int heatmap_failures(FILE *f, const struct matrix *hm,
    const struct failure_format *fmt);

#endif
