/*
 * The heatmap: the colour scale of the pair matrix's cells
 * (heatmap_scale.c). The page (heatmap_html.c), the terminal table
 * (heatmap_text.c), the comparison and the timeline read the matrix
 * (matrix.h, built with its derived kinds by matrix_overlay_build()).
 */
#ifndef NETPROF_HEATMAP_H
#define NETPROF_HEATMAP_H

#include <stddef.h>

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

#endif
