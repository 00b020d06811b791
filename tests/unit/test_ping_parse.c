/*
 * ping_parse() on captured outputs of iputils and busybox ping and on
 * BSD/macOS outputs written from their documented format.
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
#include "ping_parse.h"


static struct ping_result *
parse_fixture(const char *name)
{
	struct ping_result *r = NULL;
	char *text = fixture_read("ping", name), *cause = NULL;
	int rc = ping_parse(text, &r, &cause);

	if (rc != 0)
		fail_msg("%s: %s", name, cause != NULL ? cause : "?");
	free(text);
	return r;
}

static void
iputils_ok_gives_every_sample(void **state)
{
	struct ping_result *r = parse_fixture("iputils_ok.txt");

	assert_int_equal(r->transmitted, 5);
	assert_int_equal(r->received, 5);
	assert_int_equal(r->n_samples, 5);
	assert_float_equal(r->samples_ms[0], 0.246, 1e-9);
	assert_float_equal(r->samples_ms[4], 0.032, 1e-9);
	assert_float_equal(r->loss_pct, 0, 1e-9);
	assert_true(r->have_rtt_line);
	assert_float_equal(r->min_ms, 0.032, 1e-9);
	assert_float_equal(r->avg_ms, 0.086, 1e-9);
	assert_float_equal(r->max_ms, 0.246, 1e-9);
	assert_float_equal(r->jitter_ms, 0.080, 1e-9);
	/* sorted 0.032 0.047 0.052 0.056 0.246: p50 index 2, p95 index 4 */
	assert_float_equal(r->p50_ms, 0.052, 1e-9);
	assert_float_equal(r->p95_ms, 0.246, 1e-9);
	ping_result_free(r);
}

static void
iputils_total_loss_has_counts_but_no_samples(void **state)
{
	struct ping_result *r = parse_fixture("iputils_loss100.txt");

	assert_int_equal(r->transmitted, 3);
	assert_int_equal(r->received, 0);
	assert_int_equal(r->n_samples, 0);
	assert_false(r->have_rtt_line);
	assert_float_equal(r->loss_pct, 100, 1e-9);
	ping_result_free(r);
}

static void
iputils_partial_loss_is_computed_from_counts(void **state)
{
	struct ping_result *r = parse_fixture("iputils_loss_partial.txt");

	assert_int_equal(r->transmitted, 8);
	assert_int_equal(r->received, 4);
	assert_int_equal(r->n_samples, 4);
	assert_float_equal(r->loss_pct, 50, 1e-9);
	ping_result_free(r);
}

static void
iputils_second_reply_to_a_seq_is_not_a_sample(void **state)
{
	struct ping_result *r = parse_fixture("iputils_dup.txt");

	assert_int_equal(r->transmitted, 4);
	assert_int_equal(r->received, 4);
	assert_int_equal(r->duplicates, 3);
	assert_int_equal(r->n_samples, 4);
	assert_float_equal(r->samples_ms[1], 0.058, 1e-9);
	ping_result_free(r);
}

static void
busybox_ok_without_stddev(void **state)
{
	struct ping_result *r = parse_fixture("busybox_ok.txt");

	assert_int_equal(r->transmitted, 4);
	assert_int_equal(r->received, 4);
	assert_int_equal(r->n_samples, 4);
	assert_float_equal(r->samples_ms[0], 0.046, 1e-9);
	assert_float_equal(r->max_ms, 0.077, 1e-9);
	assert_float_equal(r->jitter_ms, 0, 1e-9);
	ping_result_free(r);
}

static void
busybox_dup_lines_are_skipped(void **state)
{
	struct ping_result *r = parse_fixture("busybox_dup.txt");

	assert_int_equal(r->received, 3);
	assert_int_equal(r->duplicates, 2);
	assert_int_equal(r->n_samples, 3);
	assert_float_equal(r->samples_ms[1], 0.084, 1e-9);
	ping_result_free(r);
}

static void
busybox_total_loss(void **state)
{
	struct ping_result *r = parse_fixture("busybox_loss100.txt");

	assert_int_equal(r->transmitted, 3);
	assert_int_equal(r->received, 0);
	assert_float_equal(r->loss_pct, 100, 1e-9);
	ping_result_free(r);
}

static void
macos_stddev_dup_and_timeout(void **state)
{
	struct ping_result *r = parse_fixture("macos_ok.txt");

	assert_int_equal(r->transmitted, 5);
	assert_int_equal(r->received, 4);
	assert_int_equal(r->duplicates, 1);
	assert_int_equal(r->n_samples, 4);
	assert_float_equal(r->loss_pct, 20, 1e-9);
	assert_float_equal(r->jitter_ms, 0.043, 1e-9);
	assert_float_equal(r->samples_ms[3], 0.455, 1e-9);
	ping_result_free(r);
}

static void
macos_and_freebsd_other_cases(void **state)
{
	struct ping_result *r = parse_fixture("macos_loss100.txt");

	assert_int_equal(r->transmitted, 3);
	assert_int_equal(r->received, 0);
	assert_float_equal(r->loss_pct, 100, 1e-9);
	ping_result_free(r);
	r = parse_fixture("freebsd_ok.txt");
	assert_int_equal(r->n_samples, 3);
	assert_float_equal(r->avg_ms, 1.234, 1e-9);
	ping_result_free(r);
}

static void
no_statistics_line_is_a_parse_error(void **state)
{
	struct ping_result *r = NULL;
	char *cause = NULL, *text = fixture_read("ping", "iputils_unknown_host.txt");

	assert_int_equal(ping_parse(text, &r, &cause), NP_ERR_PARSE);
	assert_null(r);
	assert_non_null(cause);
	free(cause);
	free(text);
	/* replies, then killed before the summary */
	assert_int_equal(ping_parse("PING a (198.18.1.2) 56(84) bytes of "
	    "data.\n64 bytes from 198.18.1.2: icmp_seq=1 ttl=64 time=0.2 ms\n",
	    &r, &cause), NP_ERR_PARSE);
	assert_non_null(strstr(cause, "stopped early"));
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iputils_ok_gives_every_sample),
		cmocka_unit_test(iputils_total_loss_has_counts_but_no_samples),
		cmocka_unit_test(iputils_partial_loss_is_computed_from_counts),
		cmocka_unit_test(iputils_second_reply_to_a_seq_is_not_a_sample),
		cmocka_unit_test(busybox_ok_without_stddev),
		cmocka_unit_test(busybox_dup_lines_are_skipped),
		cmocka_unit_test(busybox_total_loss),
		cmocka_unit_test(macos_stddev_dup_and_timeout),
		cmocka_unit_test(macos_and_freebsd_other_cases),
		cmocka_unit_test(no_statistics_line_is_a_parse_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
