/*
 * The mtu kind: its row (a light kind on a channel of its own, ICMP, the
 * path MTU its default metric and its role), its command (the search
 * script, the address its first word, quoted when it must be), and its
 * parser on what the script printed on real paths: the largest size that
 * crossed, checked against the smallest that did not; QUIC's 1,200-byte
 * floor flagged (1,228 bytes of IPv4, 1,248 of IPv6); no size crossed, a
 * search that did not end, ping's own failure and a missing ping said as
 * such.
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
mtu(void)
{
	const struct probe_kind *k = probe_kind_find("mtu");

	assert_non_null(k);
	return k;
}

static void
row_is_the_kinds(void **state)
{
	const struct probe_kind *k = mtu();
	struct probe_settings ps;
	char *argv[] = { "collect", NULL };
	char *cmd;

	(void)state;
	assert_int_equal(k->via, PROBE_VIA_SHELL);
	assert_int_equal(k->shape, PROBE_OVERLAP);
	assert_false(k->flags & (PROBE_FANOUT | PROBE_SERVER));
	assert_string_equal(k->tool, "ping");
	assert_string_equal(k->default_metric, "mtu");
	/* the diagnosis judges its size as a rate: narrow below typical */
	assert_string_equal(k->judge.rate, "mtu");
	assert_true(k->judge.narrow_ratio > 0 && k->judge.slow_ratio == 0);
	assert_int_equal(k->inbound, PROBE_INBOUND_ICMP);
	assert_true(probe_kind_metric(k, "mtu")->unit->higher_better);
	assert_string_equal(probe_kind_metric(k, "quic_ok")->prom,
	    "netprof_path_mtu_quic_ok");
	assert_int_equal(kind_settings(&ps, argv), 0);
	cmd = k->command(&ps, "198.18.0.3");
	assert_memory_equal(cmd, "LC_ALL=C; export LC_ALL; a=198.18.0.3; ",
	    39);
	assert_non_null(strstr(cmd, "-M do"));
	free(cmd);
	cmd = k->command(&ps, "a b;reboot");
	assert_memory_equal(cmd, "LC_ALL=C; export LC_ALL; a='a b;reboot'; ",
	    41);
	free(cmd);
	assert_true(k->timeout(&ps, 10) > 20 * 1.0 + 10);
}

/* file's text (and err's, exit status) parsed as host h1's */
static void
parse(const char *out, const char *err, int status, struct record *res)
{
	struct probe_output o = { .out = out, .len = strlen(out), .err = err,
	    .exit_status = status, .kind = mtu(), .host = "h1", .who = "" };

	memset(res, 0, sizeof *res);
	assert_int_equal(mtu()->parse(&o, res), 0);
}

static void
parse_file(const char *file, struct record *res)
{
	char *text = fixture_read("mtu", file);

	parse(text, "", 0, res);
	free(text);
}

static double
metric(const struct record *res, const char *name)
{
	cJSON *o = cJSON_Parse(res->metrics_text);
	const cJSON *v = cJSON_GetObjectItem(o, name);
	double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;

	cJSON_Delete(o);
	return d;
}

/* file: ok with mtu bytes, quic as flagged, in tries */
static void
found(const char *file, double bytes, int quic, int tries)
{
	struct record res;

	parse_file(file, &res);
	assert_true(res.ok);
	assert_true(probe_kind_value(probe_kind_find("mtu"), &res) == bytes);
	assert_true(metric(&res, "mtu") == bytes);
	assert_true(metric(&res, "quic_ok") == quic);
	assert_true(metric(&res, "tries") == tries);
	record_outcome_clear(&res);
}

static void
searches_read(void **state)
{
	(void)state;
	found("search_1500.txt", 1500, 1, 1);
	found("search_1384_lossy.txt", 1384, 1, 11);
	found("search_local_1280.txt", 1280, 1, 1);
	found("search_ipv6_loopback.txt", 1500, 1, 1);
}

static void
quic_floor_flagged(void **state)
{
	struct record res;

	(void)state;
	/* IPv4: 1,200 + 8 (UDP) + 20 (IP) */
	parse("np-mtu local 1500 overhead 28\nnp-mtu try 1500 lost\n"
	    "np-mtu try 576 ok\nnp-mtu try 1228 ok\nnp-mtu try 1229 lost\n",
	    "", 0, &res);
	assert_true(res.ok);
	assert_true(metric(&res, "quic_ok") == 1);
	record_outcome_clear(&res);
	parse("np-mtu local 1500 overhead 28\nnp-mtu try 1500 lost\n"
	    "np-mtu try 576 ok\nnp-mtu try 1227 ok\nnp-mtu try 1228 lost\n",
	    "", 0, &res);
	assert_true(res.ok);
	assert_true(metric(&res, "mtu") == 1227);
	assert_true(metric(&res, "quic_ok") == 0);
	record_outcome_clear(&res);
	/* IPv6: 1,200 + 8 + 40, under IPv6's least MTU (1,280): always */
	parse("np-mtu local 1500 overhead 48\nnp-mtu try 1500 lost\n"
	    "np-mtu try 1280 ok\nnp-mtu try 1390 lost\nnp-mtu try 1335 lost\n"
	    "np-mtu try 1307 lost\nnp-mtu try 1293 lost\nnp-mtu try 1286 lost"
	    "\nnp-mtu try 1283 lost\nnp-mtu try 1281 lost\n", "", 0, &res);
	assert_true(res.ok);
	assert_true(metric(&res, "mtu") == 1280);
	assert_true(metric(&res, "quic_ok") == 1);
	record_outcome_clear(&res);
}

static void
failures_said(void **state)
{
	struct record res;
	char *out = fixture_read("mtu", "unknown_host.txt");
	char *err = fixture_read("mtu", "unknown_host.err");

	(void)state;
	parse_file("search_silent.txt", &res);
	assert_false(res.ok);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error, "no packet crossed with don't-fragment "
	    "set, 68 bytes and smaller, in 3 tries");
	assert_true(isnan(metric(&res, "mtu")));
	record_outcome_clear(&res);
	parse(out, err, 2, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error, "ping exited 2: ping: nohost.invalid: "
	    "Temporary failure in name resolution");
	record_outcome_clear(&res);
	free(out);
	free(err);
	parse("", "sh: 1: ping: not found\n", 127, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_MISSING);
	record_outcome_clear(&res);
	parse("np-mtu local 1500 overhead 28\nnp-mtu try 1500 lost\n"
	    "np-mtu try 576 ok\nnp-mtu try 1038 ok\n", "", 0, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_PARSE);	/* cut short */
	record_outcome_clear(&res);
	parse("garbage\n", "", 0, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_PARSE);
	record_outcome_clear(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(row_is_the_kinds),
		cmocka_unit_test(searches_read),
		cmocka_unit_test(quic_floor_flagged),
		cmocka_unit_test(failures_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
