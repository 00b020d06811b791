/*
 * The heatmap in a terminal: each kind's matrix as a table (ANSI colours
 * when asked for), then the diagnosis and every failure, for login nodes
 * where no browser is at hand.
 */
#ifndef NETPROF_HEATMAP_TEXT_H
#define NETPROF_HEATMAP_TEXT_H

#include <stdio.h>

#include "heatmap.h"
#include "heatmap_diagnose.h"

/*
 * Print the matrix of one kind (kind >= 0, with metric index metric) or of
 * every kind with its default metric (kind < 0), then the findings and the
 * failures. color: use ANSI escape sequences.
 */
int heatmap_write_text(const struct heatmap *hm, const struct diagnosis *dx,
    long kind, long metric, int color, FILE *f);

#endif
