/*
 * Host lists as pdsh and Slurm write them (hostlist.h): each list expanded
 * to the names scontrol show hostnames prints for it (Slurm 22.05, taken
 * by hand), pdsh's suffix after a range too, and malformed lists refused
 * with what is wrong; and "did you mean" (suggest.h) picks the slip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "hostlist.h"
#include "suggest.h"

static char *
expanded(const char *list)
{
	static char out[4096];
	char **names = NULL, *cause = NULL;
	size_t n = 0, i;

	assert_int_equal(hostlist_expand(list, &names, &n, &cause), 0);
	assert_null(cause);
	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s",
		    i > 0 ? " " : "", names[i]);
	hostlist_free(names, n);
	return out;
}

static void
lists_as_slurm_expands_them(void **state)
{
	static const char *const cases[][2] = {
		{ "n[01-03,7],rack[1-2]-n[1-2],x",
		    "n01 n02 n03 n7 rack1-n1 rack1-n2 rack2-n1 rack2-n2 x" },
		{ "a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4" },
		{ "n[9-11]", "n9 n10 n11" },
		{ "n[010-012]", "n010 n011 n012" },
		{ "n[08-10]", "n08 n09 n10" },
		{ "n[1-3,2]", "n1 n2 n3 n2" },
		{ "n[5]", "n5" },
		{ "a,a", "a a" },
		/* pdsh's: text after the range, spaces and empty items */
		{ "n[1-2]-ib", "n1-ib n2-ib" },
		{ " a , b ,,", "a b" },
		{ "@zurich,@rack[1-2]", "@zurich @rack1 @rack2" },
		{ "", "" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++)
		assert_string_equal(cases[i][1], expanded(cases[i][0]));
}

static void
malformed_lists_say_what_is_wrong(void **state)
{
	static const char *const cases[][2] = {
		{ "n[3-1]", "\"n[3-1]\": the range 3-1 goes backwards" },
		{ "n[1-2", "\"n[1-2\": a '[' without its ']'" },
		{ "n1-2]", "\"n1-2]\": a ']' without its '['" },
		{ "n[a-b]", "\"n[a-b]\": \"a-b\" is not a number or a range of "
		    "numbers (like 1-8 or 01-16)" },
		{ "n[]", "\"n[]\": an empty range []" },
		{ "n[1-]", "\"n[1-]\": \"1-\" is not a number or a range of "
		    "numbers (like 1-8 or 01-16)" },
		{ "n[1-99999999]", "\"n[1-99999999]\": 1-99999999 is more than "
		    "1000000 names" },
		{ "a[1-2000]b[1-2000]", "\"a[1-2000]b[1-2000]\" is more than "
		    "1000000 names" },
		{ "a[1-5],b[1-500000,1-499996]", "\"b[1-500000,1-499996]\" "
		    "is more than 1000000 names" },
	};
	char **names = NULL, *cause = NULL;
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(hostlist_expand(cases[i][0], &names, &n,
		    &cause), NP_ERR_USAGE);
		assert_null(names);
		assert_non_null(cause);
		assert_string_equal(cases[i][1], cause);
		free(cause);
		cause = NULL;
	}
}

static void
nearest_word_is_the_slip(void **state)
{
	static const char *const keys[] = { "ping_count", "ping_interval",
	    "address", "rcc_host", "iperf_port", "iperf_seconds", NULL };

	(void)state;
	assert_string_equal(suggest_nearest("ping-count", keys, 6),
	    "ping_count");
	assert_string_equal(suggest_nearest("adress", keys, 6), "address");
	assert_string_equal(suggest_nearest("rcc-host", keys, 6), "rcc_host");
	assert_string_equal(suggest_nearest("iperf_prot", keys, 6),
	    "iperf_port");
	assert_null(suggest_nearest("hostname", keys, 6));
	assert_null(suggest_nearest("x", keys, 6));
	assert_int_equal(suggest_distance("ab", "ba"), 1);
	assert_int_equal(suggest_distance("", "abc"), 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_as_slurm_expands_them),
		cmocka_unit_test(malformed_lists_say_what_is_wrong),
		cmocka_unit_test(nearest_word_is_the_slip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
