/*
 * Fuzz target: ping's output as ping_parse() reads it (iputils, busybox,
 * BSD and macOS forms), which comes from a remote host and may be anything.
 */
#include <math.h>

#include "fuzz.h"

#include "ping_parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ping_result *r = NULL;
	char *text, *cause = NULL;

	if ((text = fuzz_string(data, size)) == NULL)
		return 0;
	if (ping_parse(text, &r, &cause) == 0) {
		/* What the records are built from must be a consistent count. */
		if (r->n_samples > 0 && r->samples_ms == NULL)
			abort();
		if (r->transmitted < 0)
			abort();
	}
	free(cause);
	ping_result_free(r);
	free(text);
	return 0;
}
