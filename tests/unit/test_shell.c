/*
 * shell_quote(), shell_join() and shell_is_plain_word(): every remote
 * command line is built with these, so each awkward byte is checked, and
 * the quoted forms are also run through a real /bin/sh to prove they come
 * back as the same word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shell.h"

static void
check_quote(const char *in, const char *want)
{
	char *got = shell_quote(in);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void
test_quote_empty_is_two_quotes(void **state)
{
	check_quote("", "''");
}

static void
test_quote_plain_word_still_quoted(void **state)
{
	check_quote("abc", "'abc'");
}

static void
test_quote_embedded_single_quotes(void **state)
{
	check_quote("it's", "'it'\\''s'");
	check_quote("'", "''\\'''");
	check_quote("''", "''\\'''\\'''");
}

static void
test_quote_specials_kept_literally(void **state)
{
	check_quote("$HOME `id` \\n \"x\" ; & | > *",
	    "'$HOME `id` \\n \"x\" ; & | > *'");
	check_quote("a\nb", "'a\nb'");
	check_quote("caf\xc3\xa9", "'caf\xc3\xa9'");
}

/* sh -c 'printf %s WORD' must print exactly the original bytes. */
static void
check_round_trip(const char *in)
{
	char *q = shell_quote(in), cmd[512], buf[256];
	size_t n;
	FILE *f;

	assert_non_null(q);
	assert_true((size_t)snprintf(cmd, sizeof cmd, "printf %%s %s", q) <
	    sizeof cmd);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	assert_int_equal(pclose(f), 0);
	assert_string_equal(buf, in);
	free(q);
}

static void
test_quote_round_trips_through_sh(void **state)
{
	check_round_trip("");
	check_round_trip("it's");
	check_round_trip("$(echo pwned) `echo pwned` ${HOME}");
	check_round_trip("back\\slash \"double\" 'single' \n newline\ttab");
	check_round_trip("-n");
	check_round_trip("\xe2\x9c\x93 unicode");
}

static void
test_plain_word(void **state)
{
	assert_true(shell_is_plain_word("ping"));
	assert_true(shell_is_plain_word("198.18.0.2"));
	assert_true(shell_is_plain_word("/tmp/otela-bench-x_1/cfg.yaml"));
	assert_true(shell_is_plain_word("a=b,c:d@e%f+g"));
	assert_false(shell_is_plain_word(""));
	assert_false(shell_is_plain_word(NULL));
	assert_false(shell_is_plain_word("a b"));
	assert_false(shell_is_plain_word("$x"));
	assert_false(shell_is_plain_word("a;b"));
	assert_false(shell_is_plain_word("~"));
	assert_false(shell_is_plain_word("*"));
	assert_false(shell_is_plain_word("a'b"));
	assert_false(shell_is_plain_word("caf\xc3\xa9"));
	assert_false(shell_is_plain_word("a\nb"));
}

static void
test_join_quotes_only_what_needs_it(void **state)
{
	char *argv[] = { "ping", "-c", "5", "198.18.0.2" };
	char *odd[] = { "echo", "", "a b", "it's", "$x" };
	char *got;

	got = shell_join(argv, 4);
	assert_string_equal(got, "ping -c 5 198.18.0.2");
	free(got);
	got = shell_join(odd, 5);
	assert_string_equal(got, "echo '' 'a b' 'it'\\''s' '$x'");
	free(got);
	got = shell_join(argv, 0);
	assert_string_equal(got, "");
	free(got);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_empty_is_two_quotes),
		cmocka_unit_test(test_quote_plain_word_still_quoted),
		cmocka_unit_test(test_quote_embedded_single_quotes),
		cmocka_unit_test(test_quote_specials_kept_literally),
		cmocka_unit_test(test_quote_round_trips_through_sh),
		cmocka_unit_test(test_plain_word),
		cmocka_unit_test(test_join_quotes_only_what_needs_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
