/*
 * The iperf3 kind's own settings: --iperf-streams and --iperf-reverse
 * reach its client's command (-P N, -R) and its records' config, and
 * nothing of them is there at their defaults (its records as they were);
 * its parser reads the sums of several streams and a reverse test's
 * receiver (the client) from real reports.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "kind_settings.h"
#include "probe_kind.h"
#include "record.h"

static const struct probe_kind *
iperf3(void)
{
	const struct probe_kind *k = probe_kind_find("iperf3");

	assert_non_null(k);
	return k;
}

/* The command and the config for argv's settings. */
static void
check(char **argv, const char *command, const char *config)
{
	kind_check(iperf3(), argv, command, config);
}

static void
options_reach_command_and_config(void **state)
{
	char *none[] = { "collect", NULL };
	char *streams[] = { "collect", "--iperf-streams", "4", NULL };
	char *reverse[] = { "collect", "--iperf-reverse", NULL };
	char *both[] = { "collect", "--iperf-reverse", "--iperf-streams", "8",
	    "--iperf-port", "5301", NULL };
	char *one[] = { "collect", "--iperf-streams", "1", NULL };

	(void)state;
	check(none, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -t 5 -J", "{}");
	check(one, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -t 5 -J", "{}");
	check(streams, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -t 5 -J -P 4",
	    "{\"streams\":4,\"reverse\":false}");
	check(reverse, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -t 5 -J -R",
	    "{\"streams\":1,\"reverse\":true}");
	check(both, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5301 -t 5 -J -P 8 -R",
	    "{\"streams\":8,\"reverse\":true}");
}

static void
streams_out_of_range_refused(void **state)
{
	struct probe_settings ps;
	char *zero[] = { "collect", "--iperf-streams", "0", NULL };
	char *many[] = { "collect", "--iperf-streams", "129", NULL };

	(void)state;
	assert_int_equal(kind_settings(&ps, zero), NP_ERR_USAGE);
	assert_int_equal(kind_settings(&ps, many), NP_ERR_USAGE);
}

/* f's mbps is the report's receiver sum, as iperf3 -J printed it. */
static void
parsed(const char *file, double receiver_bps)
{
	char *text = fixture_read("iperf3", file);
	struct probe_output o = { .out = text, .len = strlen(text), .err = "",
	    .kind = iperf3(), .host = "h1", .who = "" };
	struct record res;
	double mbps;

	memset(&res, 0, sizeof res);
	assert_int_equal(iperf3()->parse(&o, &res), 0);
	assert_true(res.ok);
	assert_true(fabs(probe_kind_value(iperf3(), &res) - receiver_bps / 1e6) < 1e-6);
	assert_true(record_metric_value(&res, "mbps", &mbps));
	assert_true(fabs(mbps - receiver_bps / 1e6) < 1e-6);
	record_outcome_clear(&res);
	free(text);
}

static void
streams_summed_reverse_received(void **state)
{
	(void)state;
	parsed("client_p4.json", 15531156000.178024);	/* four streams */
	parsed("client_reverse.json", 17560236275.9859);	/* -R */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options_reach_command_and_config),
		cmocka_unit_test(streams_out_of_range_refused),
		cmocka_unit_test(streams_summed_reverse_received),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
