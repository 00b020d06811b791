/*
 * The heatmap in a terminal: the diagnosis, then each kind's matrix as a
 * table (ANSI colours when asked for, blocks of columns as wide as the
 * terminal) and every failure, for login nodes where no browser is at
 * hand.
 */
#ifndef NETPROF_HEATMAP_TEXT_H
#define NETPROF_HEATMAP_TEXT_H

#include <stdio.h>

#include "heatmap.h"
#include "diagnose.h"

/*
 * Print the findings, then the matrix of one kind (kind >= 0, with metric
 * index metric) or of every kind with its default metric (kind < 0), the
 * sites, the comparison, the timeline and the failures. color: use ANSI
 * escape sequences; width: the terminal's columns (a wider matrix is
 * printed in blocks of columns), 0 for no limit.
 */
int heatmap_write_text(const struct matrix *hm, const struct diagnosis *dx,
    long kind, long metric, int color, int width, FILE *f);

#endif
