/*
 * What every fuzz target shares: the parsers take NUL-terminated text, and
 * libFuzzer's data is not, so each target copies it into a string first
 * (the copy also lets ASan see a read one byte past the end).
 */
#ifndef NETPROF_FUZZ_H
#define NETPROF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a new NUL-terminated string, or NULL when out of memory. */
static inline char *
fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s != NULL) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
