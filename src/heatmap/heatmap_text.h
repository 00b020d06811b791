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

/*
 * A name from the input (host, kind, metric) fit for a terminal: control
 * characters (escape sequences, newlines) as '?', cut to size - 1 bytes.
 */
const char *heatmap_clean_name(const char *s, char *buf, size_t size);

#endif
