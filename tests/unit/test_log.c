/*
 * log_fputs_safe(), which every log line and bench's summary go through:
 * remote text with an escape sequence, a carriage return or a newline (a
 * line of its own, as netprof's), a C1 control (CSI as U+009B) or a byte
 * that is not UTF-8 reaches the terminal as \xNN; tab and valid UTF-8
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
	assert_string_equal(out, "node: \\x1b]0;owned\\x07\\x1b[2J\\x0dok\tdone"
	    "\\x0a\\x7f\xc3\xa9");
}

static void
c1_and_bytes_not_utf8_escaped(void **state)
{
	char out[256] = "";
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	assert_non_null(f);
	/* CSI as U+009B, a raw 0x9B, an invalid FF, a cut character; then a
	 * forged line; U+00A0 and the euro sign are text */
	log_fputs_safe("a\xc2\x9b" "31m\x9b" "2J\xff\xe2\x82"
	    "\nnetprof: 0 failed\xc2\xa0\xe2\x82\xac", f);
	rewind(f);
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	fclose(f);
	assert_string_equal(out, "a\\xc2\\x9b" "31m\\x9b" "2J\\xff\\xe2\\x82"
	    "\\x0anetprof: 0 failed\xc2\xa0\xe2\x82\xac");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_bytes_escaped),
		cmocka_unit_test(c1_and_bytes_not_utf8_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
