/*
 * The run's timeline on the heatmap: from a bench run.json, one row for
 * the run's phases, one for the sweep's rounds (from the records' round
 * and times) and one per host with a bar per step (failed steps marked),
 * and a tick per pair the host measured, so that "why did this run take
 * 25 minutes?" is answered by looking.
 */
#ifndef NETPROF_HEATMAP_TIMELINE_H
#define NETPROF_HEATMAP_TIMELINE_H

#include <stdio.h>

#include "heatmap.h"

/* Rows drawn: more hosts get only the run's row and the text summary. */
#define TIMELINE_MAX_ROWS 256
/* Record ticks drawn, over every row. */
#define TIMELINE_MAX_TICKS 20000

/* A <section id=timeline> per run.json with phases; nothing without. */
void heatmap_write_timeline_html(FILE *f, const struct matrix *hm);
/* Each run's length, its phases by share of it, each slowest host. */
void heatmap_write_timeline_text(FILE *f, const struct matrix *hm);

#endif
