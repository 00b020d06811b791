/*
 * What a bench run writes: a record in the upstream profiler's shape
 * (sorted keys, config.bytes null unless throughput, timestamp at the
 * probe's end in upstream's form, netprof's four fields), the `otela
 * probe` line of a record, run.json (upstream's fields, the eight phase
 * keys always, netprof's per-host status), and the PeerID taken from
 * `otela peer-id` output (validated: anything else is refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "bench.h"
#include "bench_record.h"
#include "record.h"
#include "probe_node.h"
#include "error.h"
#include "inventory.h"

#define PID_A "12D3KooWCTeZvhJRonmtCXRDCdyE8ujtPqGGvdCpGR17Lc83MvgY"
#define PID_B "12D3KooWBCLTB6SFr212byheTq23EoHVnyVDAqx9E42HdsXEgSW3"

/* 2026-11-30T19:20:51.250Z and .750Z */
#define T0 1796066451.25
#define T1 1796066451.75

static char *
keys_of(const cJSON *o)
{
	static char buf[512];
	const cJSON *c;

	buf[0] = '\0';
	cJSON_ArrayForEach(c, o) {
		if (buf[0] != '\0')
			strcat(buf, " ");
		strcat(buf, c->string);
	}
	return buf;
}

static void
test_record_upstream_shape_sorted(void **state)
{
	cJSON *m = cJSON_Parse("{\"p50_ms\":1.5,\"avg_ms\":2,"
	    "\"failed_samples\":0}");
	struct record rec = {
		.run_id = "r1", .kind = "latency", .source = "h1",
		.target = "h2", .source_peer_id = PID_A, .target_peer_id = PID_B,
		.ok = 1, .count = 20, .bytes = -1,
		.command = "otela probe ...", .started_at = T0, .ended_at = T1,
		.round = 3,
	};
	cJSON *o;
	char *text;

	assert_int_equal(record_set_metrics(&rec, m), 0);
	text = rec.metrics_text;
	assert_non_null(o = record_to_json(&rec));
	assert_ptr_equal(rec.metrics_text, text);	/* the record's still */
	/* upstream's, then netprof's: the times, the round, the path */
	assert_string_equal(keys_of(o), "command config ended_at error "
	    "error_class kind metrics ok path path_evidence path_known relay "
	    "relay_peer_id round run_id source source_peer_id started_at "
	    "target target_peer_id timestamp");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "path")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "relay")));
	/* the metrics as printed once, sorted */
	assert_string_equal(cJSON_GetObjectItem(o, "metrics")->valuestring,
	    "{\"avg_ms\": 2, \"failed_samples\": 0, \"p50_ms\": 1.5}");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "timestamp")), "2026-11-30T19:20:51+00:00");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "started_at")), "2026-11-30T19:20:51.250+00:00");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "ended_at")), "2026-11-30T19:20:51.750+00:00");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(o,
	    "config"), "bytes")));
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "config"),
	    "count")->valueint, 20);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "error")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "error_class")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "ok")));
	cJSON_Delete(o);
	/* a reference: the record's metrics outlive the object */
	assert_string_equal(rec.metrics_text, "{\"avg_ms\": 2, "
	    "\"failed_samples\": 0, \"p50_ms\": 1.5}");
	record_finish_free(&rec);
}

/* A relayed record says its path, how it was known and its relay. */
static void
test_record_path_fields(void **state)
{
	struct record rec = {
		.run_id = "r1", .kind = "libp2p_ping", .source = "h1",
		.target = "h3", .source_peer_id = PID_A, .target_peer_id = PID_B,
		.ok = 1, .count = 5, .bytes = -1, .command = "otela probe ...",
		.started_at = T0, .ended_at = T1, .round = 1,
		.path = "relayed", .path_known = "inferred",
		.path_evidence = "no TCP either way", .relay = "relay",
		.relay_peer_id = PID_A,
	};
	cJSON *o = record_to_json(&rec);

	(void)state;
	assert_non_null(o);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "path")), "relayed");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "path_known")), "inferred");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "path_evidence")), "no TCP either way");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "relay")), "relay");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "relay_peer_id")), PID_A);
	cJSON_Delete(o);
}

static void
test_record_failed_without_metrics(void **state)
{
	struct record rec = {
		.run_id = "r1", .kind = "throughput", .source = "h1",
		.target = "h3", .source_peer_id = PID_A, .ok = 0, .count = 3,
		.bytes = 10485760, .error = "h3 failed at start: never healthy",
		.error_class = "timeout", .started_at = T0,
		.ended_at = T0, .round = 1,
	};
	cJSON *o = record_to_json(&rec);

	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "error")), "h3 failed at start: never healthy");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "error_class")), "timeout");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "target_peer_id")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "metrics")),
	    0);
	assert_int_equal((long)cJSON_GetObjectItem(cJSON_GetObjectItem(o,
	    "config"), "bytes")->valuedouble, 10485760);
	cJSON_Delete(o);
}

static void
test_probe_command_reproduces_probe(void **state)
{
	char *s = probe_node_command("otela", PID_B, probe_kind_find("throughput"), 3,
	    10485760, "/tmp/otela-bench-r1-h1", 60);

	assert_string_equal(s, "otela probe --target " PID_B " --kind "
	    "throughput --count 3 --bytes 10485760 --config "
	    "/tmp/otela-bench-r1-h1/cfg.yaml --timeout 60s");
	free(s);
	/* a deployed binary is shell text; a path with a blank is quoted */
	s = probe_node_command("\"$HOME\"/.cache/netprof/otela-ab", PID_B,
	    probe_kind_find("libp2p_ping"), 20, 0, "/tmp/a b", 1.5);
	assert_string_equal(s, "\"$HOME\"/.cache/netprof/otela-ab probe "
	    "--target " PID_B " --kind libp2p_ping --count 20 --bytes 0 "
	    "--config '/tmp/a b/cfg.yaml' --timeout 1.5s");
	free(s);
}

static void
check_peer_id(const char *out, int want, const char *want_id)
{
	char *id = NULL;

	assert_int_equal(bench_peer_id_from_output(out, &id), want);
	if (want_id == NULL)
		assert_null(id);
	else
		assert_string_equal(id, want_id);
	free(id);
}

static void
test_peer_id_from_output_validated(void **state)
{
	check_peer_id(PID_A "\n", 0, PID_A);
	check_peer_id("  " PID_A " \r\n\n", 0, PID_A);
	check_peer_id("warning: something\n" PID_B "\n", 0, PID_B);
	check_peer_id("QmVpKnDXrwd5XDBgLRt5k5cGFM9x43BYbHMQWzTJcPtpkC\n", 0,
	    "QmVpKnDXrwd5XDBgLRt5k5cGFM9x43BYbHMQWzTJcPtpkC");
	check_peer_id("", NP_ERR_PARSE, NULL);
	check_peer_id(" \n\n", NP_ERR_PARSE, NULL);
	check_peer_id("Error: no identity in /tmp/x\n", NP_ERR_PARSE,
	    "Error: no identity in /tmp/x");
	/* one character short, and a 0 (not base58) */
	check_peer_id("12D3KooWCTeZvhJRonmtCXRDCdyE8ujtPqGGvdCpGR17Lc83Mvg\n",
	    NP_ERR_PARSE, "12D3KooWCTeZvhJRonmtCXRDCdyE8ujtPqGGvdCpGR17Lc83Mvg");
	check_peer_id("12D3KooWCTeZvhJRonmtCXRDCdyE8ujtPqGGvdCpGR17Lc83Mvg0\n",
	    NP_ERR_PARSE, "12D3KooWCTeZvhJRonmtCXRDCdyE8ujtPqGGvdCpGR17Lc83Mvg0");
}

/* A two-host run after its sweep, one host failed at start. */
/* b over two hosts, h1 and h2 of inv, with options o; the rest cleared */
static void
two_hosts(struct bench *b, struct bench_host hosts[2],
    const struct bench_options *o, struct inventory *inv)
{
	memset(b, 0, sizeof *b);
	memset(hosts, 0, 2 * sizeof *hosts);
	b->o = o;
	b->inv = inv;
	b->n = 2;
	b->hosts = hosts;
	hosts[0].m = &inv->machines[0];
	hosts[1].m = &inv->machines[1];
}

static void
test_run_json_fields(void **state)
{
	struct inventory *inv = NULL;
	char *cause = NULL;
	struct bench_options o = { .latency_count = 20, .throughput_count = 3,
		.throughput_bytes = 10485760, .kinds = 7 };
	struct bench_host hosts[2];
	struct bench b;
	cJSON *j, *m;

	assert_int_equal(inventory_parse("{\"machines\": [{\"name\": \"h1\","
	    " \"address\": \"198.18.0.2\"}, {\"name\": \"h2\", \"address\":"
	    " \"198.18.0.3\", \"site\": \"zrh\"}]}", "m.json", &inv, &cause), 0);
	two_hosts(&b, hosts, &o, inv);
	strcpy(b.run_id, "r1");
	b.started_at = T0;
	b.ok = 5;
	b.failed = 7;
	b.phase_ran[BENCH_INIT] = b.phase_ran[BENCH_START] = 1;
	b.phase_s[BENCH_START] = 1.234;
	hosts[0].dir = "/tmp/otela-bench-r1-h1";
	hosts[1].dir = "/tmp/otela-bench-r1-h2";
	hosts[0].peer_id = PID_A;
	hosts[0].http_port = hosts[1].http_port = 19090;
	hosts[0].pid = 4242;
	hosts[1].failed = 1;
	hosts[1].failed_phase = BENCH_START;
	hosts[1].error_class = ERROR_CLASS_TIMEOUT;
	hosts[1].error = "h2: never healthy";
	hosts[0].status[BENCH_INIT] = hosts[1].status[BENCH_INIT] = BENCH_ST_OK;
	hosts[0].status[BENCH_START] = BENCH_ST_OK;
	hosts[1].status[BENCH_START] = BENCH_ST_FAILED;
	/* the timeline's times: seconds since started_at; running: no end */
	hosts[0].step_at[BENCH_INIT] = T0 + 1;
	hosts[0].step_end[BENCH_INIT] = T0 + 2.5;
	hosts[1].step_at[BENCH_START] = T0 + 3;
	b.phase_at[BENCH_INIT] = T0 + 0.5;
	b.phase_end[BENCH_INIT] = T0 + 2.75;
	j = bench_run_json(&b);
	assert_string_equal(keys_of(j), "config convergence ended_at "
	    "interrupted kept machines phase_times phases punch run_id "
	    "started_at totals");
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    j, "phase_times"), "init"), 1)->valuedouble == 2.75);
	assert_string_equal(keys_of(cJSON_GetObjectItem(j, "phases")),
	    "configure_s converge_s discover_s init_s punch_s start_s sweep_s "
	    "teardown_s");
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "phases"),
	    "start_s")->valuedouble == 1.23);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "ended_at")));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "started_at")), "2026-11-30T19:20:51+00:00");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "totals"),
	    "failed")->valueint, 7);
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "machines"), 0);
	assert_string_equal(keys_of(m), "address dir error error_class "
	    "failed_phase http_port libp2p_port log_tail name peer_id "
	    "phase_times phases pid pid_start status");
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    m, "phase_times"), "init"), 0)->valuedouble == 1);
	assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    m, "phase_times"), "init"), 1)->valuedouble == 2.5);
	assert_int_equal(cJSON_GetObjectItem(m, "pid")->valueint, 4242);
	assert_string_equal(keys_of(cJSON_GetObjectItem(m, "phases")),
	    "init start");
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "machines"), 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(m,
	    "site")), "zrh");
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(
	    j, "machines"), 0), "site"));
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(m, "phase_times"), "start"), 1)));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(m,
	    "status")), "failed");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(m,
	    "failed_phase")), "start");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(m,
	    "error_class")), "timeout");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(m, "peer_id")));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(m, "phases"), "start")), "failed");
	cJSON_Delete(j);
	inventory_free(inv);
}

/* A punch no node answered, in upstream's form; one that was direct. */
static void
test_run_json_punch_upstream_form(void **state)
{
	struct inventory *inv = NULL;
	char *cause = NULL;
	struct bench_options o = { .kinds = 7 };
	struct bench_host hosts[2];
	struct bench_task tasks[2];
	struct bench b;
	cJSON *j, *p;

	assert_int_equal(inventory_parse("{\"machines\": [{\"name\": \"h1\","
	    " \"address\": \"198.18.0.2\"}, {\"name\": \"h2\", \"address\":"
	    " \"198.18.0.3\"}]}", "m.json", &inv, &cause), 0);
	two_hosts(&b, hosts, &o, inv);
	memset(tasks, 0, sizeof tasks);
	strcpy(b.run_id, "r1");
	tasks[0] = (struct bench_task){ .src = 0, .dst = 1, .state = 2,
		.rec.error = "h1: holepunch: no answer within 60 s" };
	tasks[1] = (struct bench_task){ .src = 1, .dst = 0, .state = 2,
		.rec.ok = 1, .connectedness = "Connected" };
	b.task_sets[BENCH_PUNCH] = tasks;
	b.n_task_sets[BENCH_PUNCH] = 2;
	j = bench_run_json(&b);
	p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "punch"), "h1->h2");
	assert_string_equal(keys_of(p), "attempts connectedness error "
	    "last_error ok");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(p,
	    "connectedness")), "Unknown");
	assert_int_equal(cJSON_GetObjectItem(p, "attempts")->valueint, 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(p,
	    "error")), tasks[0].rec.error);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(p, "ok")));
	p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "punch"), "h2->h1");
	assert_string_equal(keys_of(p), "attempts connectedness ok");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(p,
	    "connectedness")), "Connected");
	cJSON_Delete(j);
	inventory_free(inv);
}

/* A punch's outcome in punchr's words, where one applies. */
static void
test_run_json_punch_outcome(void **state)
{
	static const struct {
		int ok, attempts;
		const char *conn, *error, *want;
	} cases[] = {
		{ 1, 1, "Connected", NULL, "success" },
		{ 0, 5, "Limited", "all retries for hole punch with peer X "
		    "failed", "failed" },
		{ 0, 5, "NotConnected", "failed to open hole-punching stream: "
		    "no usable connection to peer", "no connection" },
		{ 0, 5, "Limited", "failed to open hole-punching stream: "
		    "protocols not supported", "no stream" },
		{ 0, 5, "NotConnected", NULL, "failed" },
		/* none applies: no attempt, no answer, no punch service */
		{ 1, 0, "Connected", NULL, NULL },
		{ 0, 0, NULL, "h1: holepunch: no answer within 60 s", NULL },
		{ 0, 1, "NotConnected", BENCH_PUNCH_DISABLED, NULL },
	};
	struct inventory *inv = NULL;
	char *cause = NULL;
	struct bench_options o = { .kinds = 7 };
	struct bench_host hosts[2];
	struct bench_task t;
	struct bench b;
	const cJSON *v;
	cJSON *j;
	size_t i;

	(void)state;
	assert_int_equal(inventory_parse("{\"machines\": [{\"name\": \"h1\","
	    " \"address\": \"198.18.0.2\"}, {\"name\": \"h2\", \"address\":"
	    " \"198.18.0.3\"}]}", "m.json", &inv, &cause), 0);
	two_hosts(&b, hosts, &o, inv);
	b.task_sets[BENCH_PUNCH] = &t;
	b.n_task_sets[BENCH_PUNCH] = 1;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		t = (struct bench_task){ .src = 0, .dst = 1, .state = 2,
			.rec.ok = cases[i].ok, .attempts = cases[i].attempts,
			.connectedness = (char *)cases[i].conn,
			.rec.error = cases[i].error };
		j = bench_run_json(&b);
		v = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		    j, "punch"), "h1->h2"), "outcome");
		if (cases[i].want == NULL)
			assert_null(v);
		else
			assert_string_equal(cJSON_GetStringValue(v),
			    cases[i].want);
		cJSON_Delete(j);
	}
	inventory_free(inv);
}

/* What the node is asked: whole milliseconds, and the punch's limit. */
static void
test_probe_timeout_ms_and_punch_limit(void **state)
{
	assert_true(bench_timeout_ms(1.2345) == 1235);
	assert_true(bench_timeout_ms(60) == 60000);
	assert_true(bench_timeout_ms(0.0001) == 1);
	/* 5 attempts of 20 s + 2 s: the deadline (30 s) plus one attempt */
	assert_true(bench_punch_limit(5, 2000, 30000, 20) == 52.0);
	/* 1 attempt: that attempt, however late the deadline */
	assert_true(bench_punch_limit(1, 2000, 300000, 20) == 22.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_upstream_shape_sorted),
		cmocka_unit_test(test_record_path_fields),
		cmocka_unit_test(test_record_failed_without_metrics),
		cmocka_unit_test(test_probe_command_reproduces_probe),
		cmocka_unit_test(test_peer_id_from_output_validated),
		cmocka_unit_test(test_run_json_fields),
		cmocka_unit_test(test_run_json_punch_upstream_form),
		cmocka_unit_test(test_run_json_punch_outcome),
		cmocka_unit_test(test_probe_timeout_ms_and_punch_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
