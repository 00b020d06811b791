/*
 * Fuzz target: the JSON error positioner (json_find_error and
 * json_line_column), which reads broken files by design. On arbitrary bytes
 * it must return, and a position it reports must lie inside the text.
 */
#include "fuzz.h"

#include "json_pos.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *what = NULL;
	size_t off = 0;
	int line, column;

	/* Not NUL-terminated on purpose: the scanner is given a length. */
	if (json_find_error((const char *)data, size, &off, &what) != 0) {
		if (off > size || what == NULL)
			abort();
		json_line_column((const char *)data, off, &line, &column);
		if (line < 1 || column < 1)
			abort();
	}
	return 0;
}
