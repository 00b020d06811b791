/*
 * The udp kind: its row (exclusive like iperf3, duplex where allowed, the
 * iperf3 server on the target, loss its default metric and its role), its
 * command at the default and at --udp-rate's rate (K/M/G, its range), the
 * rate in its records' config; and its parser on real iperf3 -u reports:
 * loss as lost over the receiver's count, its resolution one datagram of
 * those sent, jitter, the out-of-order datagrams of the server's own
 * summary (none without it: null), several streams' sums, iperf3's own
 * error.
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
udp(void)
{
	const struct probe_kind *k = probe_kind_find("udp");

	assert_non_null(k);
	return k;
}

static void
row_is_the_kinds(void **state)
{
	const struct probe_kind *k = udp();

	(void)state;
	assert_int_equal(k->via, PROBE_VIA_SHELL);
	assert_int_equal(k->shape, PROBE_EXCLUSIVE);
	assert_true(k->flags & PROBE_DUPLEX);
	assert_true(k->flags & PROBE_SERVER);
	assert_ptr_equal(k->server_command,
	    probe_kind_find("iperf3")->server_command);
	assert_string_equal(k->default_metric, "loss_pct");
	/* its mbps is the set rate: no narrow pair of the diagnosis' */
	assert_true(k->judge.slow_ratio == 0 && k->judge.narrow_ratio == 0);
	assert_string_equal(probe_kind_metric(k, "jitter_ms")->prom,
	    "netprof_udp_jitter_seconds");
}

/* The command and the config for argv's settings. */
static void
check(char **argv, const char *command, const char *config)
{
	kind_check(udp(), argv, command, config);
}

static void
rate_reaches_command_and_config(void **state)
{
	char *none[] = { "collect", NULL };
	char *mega[] = { "collect", "--udp-rate", "2.5M", NULL };
	char *giga[] = { "collect", "--udp-rate", "1g", "--iperf-seconds", "3",
	    NULL };
	char *plain[] = { "collect", "--udp-rate", "64000", NULL };
	struct probe_settings ps;
	char *low[] = { "collect", "--udp-rate", "999", NULL };
	char *junk[] = { "collect", "--udp-rate", "10Mb", NULL };

	(void)state;
	check(none, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -u -b 10000000 "
	    "-l 1200 -t 5 -J --get-server-output",
	    "{\"rate_mbps\":10,\"datagram_bytes\":1200}");
	check(mega, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -u -b 2500000 "
	    "-l 1200 -t 5 -J --get-server-output",
	    "{\"rate_mbps\":2.5,\"datagram_bytes\":1200}");
	check(giga, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -u -b 1000000000 "
	    "-l 1200 -t 3 -J --get-server-output",
	    "{\"rate_mbps\":1000,\"datagram_bytes\":1200}");
	check(plain, "LC_ALL=C iperf3 -c 198.18.0.3 -p 5201 -u -b 64000 "
	    "-l 1200 -t 5 -J --get-server-output",
	    "{\"rate_mbps\":0.064,\"datagram_bytes\":1200}");
	assert_int_equal(kind_settings(&ps, low), NP_ERR_USAGE);
	assert_int_equal(kind_settings(&ps, junk), NP_ERR_USAGE);
}

/* f parsed, as host h1's; its metric name as a number (NAN: null). */
static void
parse_file(const char *file, struct record *res)
{
	char *text = fixture_read("udp", file);
	struct probe_output o = { .out = text, .len = strlen(text), .err = "",
	    .kind = udp(), .host = "h1", .who = "" };

	memset(res, 0, sizeof *res);
	assert_int_equal(udp()->parse(&o, res), 0);
	free(text);
}

static double
metric(const struct record *res, const char *name)
{
	cJSON *o = cJSON_Parse(res->metrics_text);
	const cJSON *v = cJSON_GetObjectItem(o, name);
	double d;

	assert_non_null(v);
	d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	cJSON_Delete(o);
	return d;
}

static void
loss_jitter_order_read(void **state)
{
	struct record res;

	(void)state;
	/* 5 % loss, reordered: 159 of 3123 lost, 3125 sent */
	parse_file("client_loss_reorder.json", &res);
	assert_true(res.ok);
	assert_true(fabs(metric(&res, "loss_pct") - 100.0 * 159 / 3123) <
	    1e-9);
	assert_true(fabs(probe_kind_value(probe_kind_find("udp"), &res) - metric(&res, "loss_pct")) < 1e-12);
	assert_true(fabs(metric(&res, "loss_resolution_pct") - 100.0 / 3125)
	    < 1e-9);
	assert_true(fabs(metric(&res, "jitter_ms") - 1.17071186201916) <
	    1e-9);
	assert_true(metric(&res, "out_of_order") == 852);
	assert_true(metric(&res, "lost") == 159);
	assert_true(metric(&res, "sent") == 3125);
	assert_true(fabs(metric(&res, "mbps") - 9.447915338518424) < 1e-9);
	record_outcome_clear(&res);
	/* in order, no loss: the summary has no out-of-order line */
	parse_file("client_ok.json", &res);
	assert_true(res.ok);
	assert_true(metric(&res, "loss_pct") == 0);
	assert_true(metric(&res, "out_of_order") == 0);
	assert_true(fabs(metric(&res, "loss_resolution_pct") - 100.0 / 521) <
	    1e-9);
	record_outcome_clear(&res);
	/* two streams: their sums */
	parse_file("client_p2.json", &res);
	assert_true(res.ok);
	assert_true(metric(&res, "packets") == 1042);
	assert_true(fabs(metric(&res, "mbps") - 9.85806950080909) < 1e-9);
	record_outcome_clear(&res);
	/* no server's output: out of order unknown, null */
	parse_file("client_no_server_output.json", &res);
	assert_true(res.ok);
	assert_true(isnan(metric(&res, "out_of_order")));
	assert_true(metric(&res, "packets") == 39);
	record_outcome_clear(&res);
}

static void
errors_said(void **state)
{
	struct record res;
	struct probe_output o = { .out = "", .len = 0,
	    .err = "sh: 1: iperf3: not found\n", .exit_status = 127,
	    .kind = NULL, .host = "h1", .who = "" };

	(void)state;
	parse_file("client_refused.json", &res);
	assert_false(res.ok);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error, "iperf3: unable to connect to server: "
	    "Connection refused");
	record_outcome_clear(&res);
	o.kind = udp();
	memset(&res, 0, sizeof res);
	assert_int_equal(udp()->parse(&o, &res), 0);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_MISSING);
	record_outcome_clear(&res);
	o.out = "{\"start\":{}";
	o.err = "";
	o.exit_status = 0;
	assert_int_equal(udp()->parse(&o, &res), 0);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_PARSE);
	record_outcome_clear(&res);
	/* a TCP report is not a UDP one */
	o.out = "{\"end\":{\"sum_received\":{\"bytes\":1}}}";
	assert_int_equal(udp()->parse(&o, &res), 0);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_PARSE);
	record_outcome_clear(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(row_is_the_kinds),
		cmocka_unit_test(rate_reaches_command_and_config),
		cmocka_unit_test(loss_jitter_order_read),
		cmocka_unit_test(errors_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
