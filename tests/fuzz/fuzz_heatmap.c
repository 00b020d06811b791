/*
 * Fuzz target: the heatmap's whole path from a file someone else wrote to
 * the page: records_read_stream (JSONL records, or a run.json), the model
 * (hosts, kinds, metrics, cells, the overlay), the diagnosis, and both
 * renderings (terminal text and HTML, written to /dev/null). The first
 * byte's low bit picks the aggregate (latest or median).
 */
#include <stdio.h>

#include "fuzz.h"

#include "heatmap.h"
#include "heatmap_diagnose.h"
#include "heatmap_html.h"
#include "heatmap_sites.h"
#include "heatmap_text.h"
#include "log.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct html_options opt = { "fuzz", 0, 0, 0 };
	struct diagnosis dx;
	struct matrix *hm;
	FILE *in;

	if (sink == NULL) {
		log_set_level(LOG_QUIET);	/* a warning per line is noise */
		if ((sink = fopen("/dev/null", "w")) == NULL)
			abort();
	}
	if (size == 0 || (hm = matrix_new()) == NULL)
		return 0;
	memset(&dx, 0, sizeof dx);
	if ((in = fmemopen((void *)data, size, "rb")) == NULL) {
		matrix_free(hm);
		return 0;
	}
	matrix_set_aggregate(hm, data[0] & 1 ? MATRIX_MEDIAN : MATRIX_LATEST);
	if (records_read_stream(&hm->input, in, "fuzz.jsonl", 0) == 0 &&
	    heatmap_build(hm, data[0] & 1 ? MATRIX_MEDIAN : MATRIX_LATEST,
	    NULL) == 0 && heatmap_group(hm, (enum heatmap_group_by)(data[0] >> 1 &
	    3), 5.0) == 0 && heatmap_diagnose(hm, &dx) == 0) {
		if (hm->nkinds > 0) {
			opt.metric = hm->kinds[0].default_metric;
			(void)heatmap_write_text(hm, &dx, -1, 0, 1, sink);
		}
		(void)heatmap_write_html(hm, &dx, &opt, sink);
	}
	fclose(in);
	heatmap_diagnosis_free(&dx);
	matrix_free(hm);
	return 0;
}
