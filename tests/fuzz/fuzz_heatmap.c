/*
 * Fuzz target: the heatmap's whole path from a file someone else wrote to
 * the page: records_read_stream (JSONL records, or a run.json), the model
 * (hosts, kinds, metrics, cells, the overlay), the diagnosis, and both
 * renderings (terminal text and HTML, written to /dev/null). The first
 * byte's low bit picks the aggregate (latest or median). The input is
 * split at 0x01 bytes (never in JSON text) into up to MAX_FILES input
 * files read one after the other, as --input given more than once: a
 * run.json with records, its machines past the records' hosts or past
 * the host bound.
 */
#include <stdio.h>

#include "fuzz.h"

#include "heatmap.h"
#include "diagnose.h"
#include "heatmap_html.h"
#include "matrix_sites.h"
#include "heatmap_text.h"
#include "log.h"

#define MAX_FILES 4

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct html_options opt = { "fuzz", 0, 0, 0, NULL };
	struct diagnosis dx;
	struct matrix *hm;
	const uint8_t *part = data, *end = data + size, *cut;
	size_t nfiles = 0;
	int rc = 0;
	FILE *in;

	if (sink == NULL) {
		log_set_level(LOG_QUIET);	/* a warning per line is noise */
		if ((sink = fopen("/dev/null", "w")) == NULL)
			abort();
	}
	if (size == 0 || (hm = matrix_new()) == NULL)
		return 0;
	memset(&dx, 0, sizeof dx);
	matrix_set_aggregate(hm, data[0] & 1 ? MATRIX_MEDIAN : MATRIX_LATEST);
	while (rc == 0 && part < end && nfiles++ < MAX_FILES) {
		cut = nfiles < MAX_FILES ? memchr(part, 0x01,
		    (size_t)(end - part)) : NULL;
		if (cut == NULL)
			cut = end;
		if (cut == part) {	/* fmemopen refuses an empty buffer */
			part = cut + 1;
			continue;
		}
		if ((in = fmemopen((void *)part, (size_t)(cut - part), "rb")) ==
		    NULL) {
			matrix_free(hm);
			return 0;
		}
		rc = records_read_stream(&hm->input, in, "fuzz.jsonl", 0);
		fclose(in);
		part = cut + 1;
	}
	if (rc == 0 &&
	    matrix_overlay_build(hm, data[0] & 1 ? MATRIX_MEDIAN : MATRIX_LATEST,
	    NULL) == 0 && matrix_sites_group(hm, (enum matrix_sites_group_by)(data[0] >> 1 &
	    3), 5.0) == 0 && diagnose(hm, NULL, &dx) == 0) {
		if (hm->nkinds > 0) {
			opt.metric = hm->kinds[0].default_metric;
			(void)heatmap_write_text(hm, &dx, -1, 0, 1, data[0] & 8 ? 40 : 0,
			    sink);
		}
		(void)heatmap_write_html(hm, &dx, &opt, sink);
	}
	diagnose_free(&dx);
	matrix_free(hm);
	return 0;
}
