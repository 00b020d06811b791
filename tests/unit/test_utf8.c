/*
 * utf8_char_len: the valid characters of each length, and what RFC 3629
 * refuses (stray continuation bytes, overlong forms, surrogates, code
 * points past U+10FFFF, characters cut by the end).
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_characters),
		cmocka_unit_test(test_invalid_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
