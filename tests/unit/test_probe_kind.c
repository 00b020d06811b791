/*
 * The kinds' table and its kinds' parsers: every row is whole for how it
 * runs (a shell kind has a command, a limit, a duration and a parser, a
 * server kind its server, a node kind its parser), its default and
 * summary metrics are among its metrics, every gauge is named once, an
 * overlay has a base; and each kind's parser turns real outputs (the
 * fixtures) into the record's metrics or one of the one set of error
 * texts, the same for a ping on its own channel, the fan-out's and bench
 * --baseline's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "fixture.h"
#include "probe.h"
#include "probe_kind.h"
#include "record.h"
#include "probe_node.h"
#include "probe_ping.h"

static void
rows_are_whole(void **state)
{
	const struct probe_kind *k, *j;
	const struct probe_metric *m, *n;
	size_t kinds = 0;

	(void)state;
	for (k = probe_kinds; k->name != NULL; k++, kinds++) {
		assert_ptr_equal(probe_kind_find(k->name), k);
		assert_int_equal(probe_kind_index(k), kinds);
		assert_non_null(k->tool);
		assert_non_null(k->parse);
		if (k->via == PROBE_VIA_SHELL) {
			assert_non_null(k->command);
			assert_non_null(k->timeout);
			assert_non_null(k->duration);
			assert_non_null(k->plan_name);
		} else
			assert_null(k->command);
		if (k->flags & PROBE_SERVER) {
			assert_non_null(k->server_command);
			assert_non_null(k->server_bound);
			assert_non_null(k->server_ready);
		}
		assert_non_null(probe_kind_metric(k, k->default_metric));
		assert_non_null(probe_kind_metric(k, k->summary.metric));
		if (k->over != NULL) {
			assert_non_null(probe_kind_find(k->over));
			assert_non_null(k->over_metric);
		}
		for (j = probe_kinds; j < k; j++)
			assert_string_not_equal(j->name, k->name);
		for (m = k->metrics; m->name != NULL; m++) {
			assert_non_null(m->unit);
			if (m->prom == NULL)
				continue;
			assert_memory_equal(m->prom, "netprof_", 8);
			assert_non_null(m->help);
			for (j = probe_kinds; j <= k; j++)
				for (n = j->metrics; n->name != NULL && n != m;
				    n++)
					if (n->prom != NULL)
						assert_string_not_equal(n->prom,
						    m->prom);
		}
	}
	assert_true(kinds >= 5);
	assert_true(kinds <= PROBE_KINDS_MAX);	/* a slot of values each */
	assert_null(probe_kind_find("no_such_kind"));
	assert_null(probe_kind_find(NULL));
}

static void
names_listed_for_an_error(void **state)
{
	char buf[256];

	(void)state;
	probe_kind_names(buf, sizeof buf, 1u << PROBE_VIA_NODE);
	assert_string_equal(buf, "libp2p_ping, latency, throughput or connect");
	probe_kind_names(buf, sizeof buf, 1u << PROBE_VIA_SHELL |
	    1u << PROBE_VIA_NODE);
	/* every row, in the table's order: "ping, ... or connect" */
	assert_memory_equal(buf, "ping, ", 6);
	assert_true(strlen(buf) > 23);
	assert_string_equal(buf + strlen(buf) - 23, ", throughput or connect");
	{
		const struct probe_kind *k;
		const char *at = buf;

		for (k = probe_kinds; k->name != NULL; k++) {
			assert_non_null(at = strstr(at, k->name));
			at += strlen(k->name);
		}
	}
}

/* kind's parser on text (stdout), err, exit status, as host h1's. */
static void
parse(const char *kind, const char *out, const char *err, int status,
    struct record *res)
{
	const struct probe_kind *k = probe_kind_find(kind);
	struct probe_output o = { .out = out, .len = strlen(out), .err = err,
	    .exit_status = status, .kind = k, .host = "h1", .who = "" };

	memset(res, 0, sizeof *res);
	assert_int_equal(k->parse(&o, res), 0);
}

/* Member name of res's metrics as its line holds them: 1 if there, its
   number (or NAN) in *v. */
static int
member(const struct record *res, const char *name, double *v)
{
	cJSON *o = cJSON_Parse(res->metrics_text);
	const cJSON *m = cJSON_GetObjectItem(o, name);
	int there = m != NULL;

	if (v != NULL)
		*v = cJSON_IsNumber(m) ? m->valuedouble : NAN;
	cJSON_Delete(o);
	return there;
}

static void
ping_outputs_classified_once(void **state)
{
	struct record res;
	char *text = fixture_read("ping", "iputils_ok.txt");

	(void)state;
	parse("ping", text, "", 0, &res);
	assert_true(res.ok);
	assert_true(probe_kind_value(probe_kind_find("ping"), &res) > 0);
	assert_true(member(&res, "samples_ms", NULL));
	record_outcome_clear(&res);
	free(text);
	text = fixture_read("ping", "iputils_loss100.txt");
	parse("ping", text, "", 1, &res);
	assert_false(res.ok);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error,
	    "100% packet loss: 3 sent, none answered");
	assert_non_null(res.metrics_text);	/* its figures still */
	record_outcome_clear(&res);
	free(text);
	parse("ping", "", "sh: 1: ping: not found\n", 127, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_MISSING);
	assert_string_equal(res.error, "h1: ping is not installed or not on "
	    "PATH there (exit 127)");
	record_outcome_clear(&res);
	parse("ping", "", "ping: connect: Network is unreachable\n", 2, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error, "ping exited 2: ping: connect: Network "
	    "is unreachable");
	record_outcome_clear(&res);
	parse("ping", "garbage\n", "", 0, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_PARSE);
	record_outcome_clear(&res);
}

static void
iperf3_report_or_its_error(void **state)
{
	struct record res;
	double v;
	char *text = fixture_read("iperf3", "client_ok.json");

	(void)state;
	parse("iperf3", text, "", 0, &res);
	assert_true(res.ok);
	assert_true(member(&res, "mbps", &v));
	assert_true(probe_kind_value(probe_kind_find("iperf3"), &res) == v);
	assert_true(member(&res, "retransmits", NULL));
	record_outcome_clear(&res);
	free(text);
	text = fixture_read("iperf3", "client_refused.json");
	parse("iperf3", text, "", 1, &res);
	assert_false(res.ok);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_non_null(strstr(res.error, "Connection refused"));
	record_outcome_clear(&res);
	free(text);
	parse("iperf3", "", "timeout: not found\n", 127, &res);
	assert_string_equal(res.error, "h1: timeout (GNU coreutils) is not "
	    "installed or not on PATH there (exit 127)");
	record_outcome_clear(&res);
}

static void
node_answers_read(void **state)
{
	struct record res;
	double v = 0, w = 0;
	char *text = fixture_read("node", "probe_throughput_ok.json");
	char *body;

	(void)state;
	parse("throughput", text, "", 0, &res);
	assert_true(res.ok);
	assert_true(fabs(probe_kind_value(probe_kind_find("throughput"),
	    &res) - 26.567994981166553) < 1e-9);
	record_outcome_clear(&res);
	free(text);
	text = fixture_read("node", "probe_latency_failed.json");
	parse("latency", text, "", 0, &res);
	assert_false(res.ok);
	assert_string_equal(res.error, "no successful samples: stream reset: "
	    "The stream has been reset");
	assert_true(member(&res, "failed_samples", NULL));
	record_outcome_clear(&res);
	free(text);
	parse("latency", "{", "", 0, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_PARSE);
	assert_memory_equal(res.error, "h1: probe: ", 11);
	record_outcome_clear(&res);
	/* connect: a new connection and its first ping, its median the
	   figure; the real node's 400 for it is unsupported, no failure */
	text = fixture_read("node", "probe_connect_ok.json");
	parse("connect", text, "", 0, &res);
	assert_true(res.ok);
	assert_true(fabs(probe_kind_value(probe_kind_find("connect"), &res) - 276.380349) < 1e-9);
	assert_true(member(&res, "dial_ms", &v) &&
	    member(&res, "first_rtt_ms", &w));
	assert_true(fabs(v + w -
	    probe_kind_value(probe_kind_find("connect"), &res)) < 1e-6);
	record_outcome_clear(&res);
	free(text);
	assert_int_equal(error_class_of_text("unknown kind: connect"),
	    ERROR_CLASS_UNSUPPORTED);
	assert_string_equal(error_class_name(ERROR_CLASS_UNSUPPORTED),
	    "unsupported");
	assert_true(probe_kind_find("connect")->flags & PROBE_ASKED);
	assert_string_equal(probe_kind_find("connect")->over, "ping");
	body = probe_node_request(probe_kind_find("throughput"), "PEER", 3,
	    1048576, 60000);
	assert_string_equal(body, "{\"target\":\"PEER\",\"kind\":\"throughput\","
	    "\"count\":3,\"bytes\":1048576,\"timeout_ms\":60000}");
	cJSON_free(body);
}

/* The fan-out's fping samples judged as a ping's figures are. */
static void
judged_as_ping_is(void **state)
{
	double samples[] = { 0.4, 0.2 };
	struct ping_result *p = NULL;
	struct record res = { 0 };

	(void)state;
	assert_int_equal(ping_result_from_samples(3, samples, 2, &p), 0);
	assert_int_equal(probe_ping_judge(p, &res), 0);
	assert_true(res.ok);
	assert_true(probe_kind_value(probe_kind_find("ping"), &res) ==
	    p->p50_ms);
	record_outcome_clear(&res);
	ping_result_free(p);
	assert_int_equal(ping_result_from_samples(3, samples, 0, &p), 0);
	memset(&res, 0, sizeof res);
	assert_int_equal(probe_ping_judge(p, &res), 0);
	assert_string_equal(res.error, "100% packet loss: 3 sent, none "
	    "answered");
	record_outcome_clear(&res);
	ping_result_free(p);
}

/* The port a record's command names, read from its kind's row: only a
   kind whose target answers on a port has one, and only the tool's -p
   counts, not ssh's in front of it. */
static void
command_port_of_its_kind(void **state)
{
	const struct probe_kind *iperf = probe_kind_find("iperf3");
	const char *cmd = "ssh -p 2222 h2 'iperf3 -c 198.18.0.2 -p 5298 -J'";

	(void)state;
	assert_int_equal(probe_kind_command_port(iperf, cmd), 5298);
	assert_int_equal(probe_kind_command_port(iperf,
	    "iperf3 -c 198.18.0.2 -p5301 -J"), 5301);
	assert_int_equal(probe_kind_command_port(iperf,
	    "ssh -p 2222 h2 'iperf3 -c 198.18.0.2 -J'"), 0);
	assert_int_equal(probe_kind_command_port(iperf,
	    "iperf3 -c x -p 70000"), 0);
	assert_int_equal(probe_kind_command_port(probe_kind_find("ping"),
	    "ping -c 3 198.18.0.2 # iperf3 -p 5298"), 0);
	assert_int_equal(probe_kind_command_port(NULL, cmd), 0);
	assert_int_equal(probe_kind_command_port(iperf, NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_are_whole),
		cmocka_unit_test(names_listed_for_an_error),
		cmocka_unit_test(ping_outputs_classified_once),
		cmocka_unit_test(iperf3_report_or_its_error),
		cmocka_unit_test(node_answers_read),
		cmocka_unit_test(judged_as_ping_is),
		cmocka_unit_test(command_port_of_its_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
