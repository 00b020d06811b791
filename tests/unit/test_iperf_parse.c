/*
 * iperf_parse() on iperf3 -J reports captured from iperf 3.12.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "iperf_parse.h"


static int
parse_fixture(const char *name, struct iperf_result *res, char **cause)
{
	char *text = fixture_read("iperf3", name);
	int r = iperf_parse(text, res, cause);

	free(text);
	return r;
}

static void
success_gives_both_sides_and_retransmits(void **state)
{
	struct iperf_result res;
	char *cause = NULL;

	assert_int_equal(parse_fixture("client_ok.json", &res, &cause), 0);
	assert_null(cause);
	assert_float_equal(res.sender_mbps, 11909.703432788963, 1e-6);
	assert_float_equal(res.receiver_mbps, 11859.124094446337, 1e-6);
	assert_int_equal(res.retransmits, 4);
	assert_int_equal(res.bytes, 1483735040u);
	assert_float_equal(res.seconds, 1.000907, 1e-9);
}

static void
server_busy_is_reported_with_its_text(void **state)
{
	struct iperf_result res;
	char *cause = NULL;

	assert_int_equal(parse_fixture("client_busy.json", &res, &cause),
	    NP_ERR_PROTOCOL);
	assert_string_equal(cause,
	    "iperf3: the server is busy running a test. try again later");
	free(cause);
}

static void
connection_refused_is_reported_with_its_text(void **state)
{
	struct iperf_result res;
	char *cause = NULL;

	assert_int_equal(parse_fixture("client_refused.json", &res, &cause),
	    NP_ERR_PROTOCOL);
	assert_non_null(strstr(cause, "Connection refused"));
	free(cause);
}

static void
truncated_or_empty_is_a_parse_error(void **state)
{
	struct iperf_result res;
	char *cause = NULL;

	assert_int_equal(parse_fixture("client_truncated.json", &res, &cause),
	    NP_ERR_PARSE);
	assert_non_null(strstr(cause, "truncated"));
	free(cause);
	assert_int_equal(iperf_parse("", &res, &cause), NP_ERR_PARSE);
	free(cause);
	assert_int_equal(iperf_parse("{\"start\":{}}", &res, &cause),
	    NP_ERR_PARSE);
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(success_gives_both_sides_and_retransmits),
		cmocka_unit_test(server_busy_is_reported_with_its_text),
		cmocka_unit_test(connection_refused_is_reported_with_its_text),
		cmocka_unit_test(truncated_or_empty_is_a_parse_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
