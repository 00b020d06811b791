/*
 * --diagnosis-json: the diagnosis' findings as JSON, one of the
 * diagnosis' readers (heatmap_diagnosis_json.c).
 */
#ifndef NETPROF_HEATMAP_DIAGNOSIS_JSON_H
#define NETPROF_HEATMAP_DIAGNOSIS_JSON_H

#include <stdio.h>

#include "diagnose.h"

/*
 * The findings as JSON (the schema is in docs/heatmap.md): an object
 * with "findings", one object per finding. 0, or NP_ERR_IO.
 */
int heatmap_diagnosis_json(const struct matrix *hm,
    const struct diagnosis *dx, FILE *f);

#endif
