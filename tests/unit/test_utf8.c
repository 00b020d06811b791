/*
 * utf8_char_len: the valid characters of each length, and what RFC 3629
 * refuses (stray continuation bytes, overlong forms, surrogates, code
 * points past U+10FFFF, characters cut by the end); utf8_shown: what
 * may reach a terminal (not C0 but tab, DEL, C1, bytes that are not
 * UTF-8), and each character's length either way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "utf8.h"

static size_t
len_of(const char *s)
{
	return utf8_char_len((const unsigned char *)s, strlen(s));
}

static void
test_valid_characters(void **state)
{
	(void)state;
	assert_int_equal(1, len_of("a"));
	assert_int_equal(1, len_of("\x7f"));
	assert_int_equal(2, len_of("\xc3\xa9"));		/* é */
	assert_int_equal(2, len_of("\xc2\x9b"));		/* U+009B, a C1 control */
	assert_int_equal(3, len_of("\xe2\x82\xac"));	/* € */
	assert_int_equal(3, len_of("\xef\xbf\xbd"));	/* U+FFFD */
	assert_int_equal(4, len_of("\xf0\x9f\x98\x80"));	/* U+1F600 */
	assert_int_equal(4, len_of("\xf4\x8f\xbf\xbf"));	/* U+10FFFF */
}

static void
test_invalid_bytes(void **state)
{
	(void)state;
	assert_int_equal(0, len_of("\x80"));		/* a continuation */
	assert_int_equal(0, len_of("\xff"));
	assert_int_equal(0, len_of("\xfe"));
	assert_int_equal(0, len_of("\xc0\xaf"));		/* overlong '/' */
	assert_int_equal(0, len_of("\xc1\xbf"));
	assert_int_equal(0, len_of("\xe0\x80\xaf"));	/* overlong */
	assert_int_equal(0, len_of("\xf0\x80\x80\xaf"));	/* overlong */
	assert_int_equal(0, len_of("\xed\xa0\x80"));	/* U+D800 */
	assert_int_equal(0, len_of("\xf4\x90\x80\x80"));	/* U+110000 */
	assert_int_equal(0, len_of("\xc3"));		/* cut by the end */
	assert_int_equal(0, len_of("\xe2\x82"));
	assert_int_equal(0, len_of("\xc3" "a"));		/* not a continuation */
	assert_int_equal(0, utf8_char_len((const unsigned char *)"", 0));
}

/* utf8_shown of s: 1 or 0, its length in *len */
static int
shown(const char *s, size_t *len)
{
	return utf8_shown((const unsigned char *)s, strlen(s), len);
}

static void
test_shown_on_a_terminal(void **state)
{
	size_t n;

	(void)state;
	assert_int_equal(1, shown("a", &n));
	assert_int_equal(1, n);
	assert_int_equal(1, shown("\t", &n));
	assert_int_equal(1, shown("\xc2\xa0", &n));		/* U+00A0 */
	assert_int_equal(2, n);
	assert_int_equal(1, shown("\xe2\x82\xac", &n));
	assert_int_equal(3, n);
	assert_int_equal(0, shown("\x1b]0;x\x07", &n));	/* ESC */
	assert_int_equal(1, n);
	assert_int_equal(0, shown("\n", &n));
	assert_int_equal(0, shown("\x07", &n));
	assert_int_equal(0, shown("\x7f", &n));
	assert_int_equal(0, shown("\xc2\x9b" "31m", &n));	/* U+009B, CSI */
	assert_int_equal(2, n);
	assert_int_equal(0, shown("\xc2\x80", &n));		/* U+0080 */
	assert_int_equal(2, n);
	assert_int_equal(0, shown("\xc2\x9f", &n));		/* U+009F */
	assert_int_equal(0, shown("\x9b" "31m", &n));	/* 0x9B alone */
	assert_int_equal(1, n);
	assert_int_equal(0, shown("\xc3", &n));
	assert_int_equal(1, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_characters),
		cmocka_unit_test(test_invalid_bytes),
		cmocka_unit_test(test_shown_on_a_terminal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
