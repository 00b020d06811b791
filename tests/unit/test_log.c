/*
 * log_fputs_safe(), which every log line and bench's summary go through:
 * remote text with an escape sequence or a carriage return reaches the
 * terminal as \xNN, newline and tab as they are, other bytes (UTF-8)
 * unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"

static void
control_bytes_escaped(void **state)
{
	char out[256] = "";
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	assert_non_null(f);
	log_fputs_safe("node: \x1b]0;owned\x07\x1b[2J\rok\tdone\n\x7f\xc3\xa9", f);
	rewind(f);
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	fclose(f);
	assert_string_equal(out, "node: \\x1b]0;owned\\x07\\x1b[2J\\x0dok\tdone\n"
	    "\\x7f\xc3\xa9");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_bytes_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
