/*
 * Fuzz target: the record reader's fast path against its reference. Each
 * line of the input is read by record_scan() and by record_parse(); when
 * the fast path takes a line, record_parse() must read it too and give the
 * same record. A line the fast path declines is record_parse()'s alone.
 */
#include <stdio.h>

#include "fuzz.h"

#include "error.h"
#include "records_read.h"
#include "record_same.h"
#include "record_scan.h"

static void
check_line(struct record_scan *s, const char *line, size_t len)
{
	struct record fast, *ref;
	const char *diff;
	char *cause;

	if (record_scan_room(s, len) != 1 ||
	    record_scan(s, line, len, &fast) != 1)
		return;
	if (record_parse(line, len, &ref, &cause) != 0) {
		fprintf(stderr, "the fast path took a line record_parse() "
		    "refuses (%s): %.*s\n", cause, (int)len, line);
		abort();
	}
	if ((diff = record_same(&fast, ref)) != NULL) {
		fprintf(stderr, "the fast path's %s differs: %.*s\n", diff,
		    (int)len, line);
		abort();
	}
	record_free(ref);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_scan s;
	const char *p = (const char *)data, *end = p + size, *nl;
	char *copy = fuzz_string(data, size);

	if (copy == NULL)
		return 0;
	memset(&s, 0, sizeof s);
	/* The copy, so that a read past a line's end is one past the data. */
	for (p = copy, end = copy + size; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		check_line(&s, p, (size_t)(nl - p));
	}
	record_scan_free(&s);
	free(copy);
	return 0;
}
