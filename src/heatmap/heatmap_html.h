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
#include "heatmap_html_data.h"
#include "diagnose.h"

int heatmap_write_html(const struct matrix *hm, const struct diagnosis *dx,
    const struct html_options *opt, FILE *f);

#endif
