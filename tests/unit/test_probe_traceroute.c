/*
 * The traceroute kind: its row (a light kind on ping, ICMP, the target's
 * round trip its default metric, its path's jump what a finding names),
 * its command (the hop script, the address its first word, quoted when it
 * must be), its parser, and the diagnosis of its records.
 *
 * tests/fixtures/traceroute/silent_hop_30ms.txt is what the script printed
 * between network namespaces: source, two routers, target; the routers
 * joined by vde2's wirefilter at 15 ms each way; the first router's
 * "time to live exceeded" dropped by nft (a silent hop). The failures'
 * texts below are the same script's on that path to an address the first
 * router has no route to (it says "Net Unreachable") and to a name that
 * does not resolve.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "heatmap.h"
#include "diagnose.h"
#include "matrix_sites.h"
#include "kind_settings.h"
#include "matrix.h"
#include "probe_kind.h"
#include "record.h"

static const struct probe_kind *
traceroute(void)
{
	const struct probe_kind *k = probe_kind_find("traceroute");

	assert_non_null(k);
	return k;
}

static void
row_is_the_kinds(void **state)
{
	const struct probe_kind *k = traceroute();
	struct probe_settings ps;
	char *argv[] = { "collect", NULL };
	char *cmd;

	(void)state;
	assert_int_equal(k->via, PROBE_VIA_SHELL);
	assert_int_equal(k->shape, PROBE_OVERLAP);
	assert_string_equal(k->tool, "ping");
	assert_string_equal(k->default_metric, "rtt_ms");
	assert_int_equal(k->inbound, PROBE_INBOUND_ICMP);
	assert_string_equal(k->judge.jump_at, "jump_hop");
	assert_non_null(probe_kind_metric(k, k->judge.jump_by));
	assert_int_equal(kind_settings(&ps, argv), 0);
	cmd = k->command(&ps, "198.18.0.3");
	assert_memory_equal(cmd, "LC_ALL=C; export LC_ALL; a=198.18.0.3; ",
	    39);
	assert_non_null(strstr(cmd, "-t $n"));
	free(cmd);
	cmd = k->command(&ps, "a b;reboot");
	assert_memory_equal(cmd, "LC_ALL=C; export LC_ALL; a='a b;reboot'; ",
	    41);
	free(cmd);
	assert_true(k->timeout(&ps, 10) > 30 + 10);
}

/* out (and err, exit status) parsed as host h1's */
static void
parse(const char *out, const char *err, int status, struct record *res)
{
	struct probe_output o = { .out = out, .len = strlen(out), .err = err,
	    .exit_status = status, .kind = traceroute(), .host = "h1",
	    .who = "" };

	memset(res, 0, sizeof *res);
	assert_int_equal(traceroute()->parse(&o, res), 0);
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

static void
path_read(void **state)
{
	char *text = fixture_read("traceroute", "silent_hop_30ms.txt");
	struct record res;
	const cJSON *addr, *ms;
	cJSON *o;

	(void)state;
	parse(text, "", 0, &res);
	free(text);
	assert_true(res.ok);
	assert_true(probe_kind_value(probe_kind_find("traceroute"), &res) == 30.761);
	assert_true(metric(&res, "rtt_ms") == 30.761);
	assert_true(metric(&res, "hops") == 3);
	/* the silent first hop is no figure: the rise is from the source */
	assert_true(metric(&res, "jump_hop") == 2);
	assert_true(metric(&res, "jump_ms") == 30.925);
	assert_non_null(o = cJSON_Parse(res.metrics_text));
	addr = cJSON_GetObjectItem(o, "hop_address");
	ms = cJSON_GetObjectItem(o, "hop_ms");
	assert_int_equal(cJSON_GetArraySize(addr), 3);
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(addr, 0)));
	assert_string_equal(cJSON_GetArrayItem(addr, 1)->valuestring,
	    "198.18.72.2");
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(ms, 0)));
	assert_true(cJSON_GetArrayItem(ms, 2)->valuedouble == 30.761);
	cJSON_Delete(o);
	record_outcome_clear(&res);
}

static void
failures_said(void **state)
{
	struct record res;

	(void)state;
	parse("np-hop 1 198.18.71.1 0.031\n", "", 0, &res);
	assert_false(res.ok);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error, "the target did not answer (100% "
	    "packet loss): 1 hop, the last 198.18.71.1");
	assert_true(metric(&res, "hops") == 1);
	record_outcome_clear(&res);
	parse("", "ping: no.such.host.invalid: Temporary failure in name "
	    "resolution\n", 2, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(res.error, "ping exited 2: ping: "
	    "no.such.host.invalid: Temporary failure in name resolution");
	record_outcome_clear(&res);
	parse("", "sh: 1: ping: not found\n", 127, &res);
	assert_int_equal(error_class_of_name(res.error_class), ERROR_CLASS_TOOL_MISSING);
	record_outcome_clear(&res);
}

/* A record of the kind s -> t: its round trip, the hop where it rose. */
static void
fold(struct matrix *hm, const char *s, const char *t, double rtt,
    double at, double by)
{
	struct record_metric m[] = { { "rtt_ms", rtt, 0 }, { "hops", 3, 0 },
	    { "jump_hop", at, 0 }, { "jump_ms", by, 0 } };
	struct record rec;

	memset(&rec, 0, sizeof rec);
	rec.kind = "traceroute";
	rec.source = s;
	rec.target = t;
	rec.time = rec.started_at = rec.ended_at = NAN;
	rec.bytes = -1;
	rec.nsamples = -1;
	rec.file = "test";
	rec.ok = 1;
	rec.metrics = m;
	rec.nmetrics = sizeof m / sizeof m[0];
	assert_int_equal(matrix_fold(hm, &rec), 0);
}

/*
 * Five hosts a hop apart, 0.40-0.58 ms; h2 -> h4 takes the fixture's
 * path, 30 ms from its second hop on: its finding names that hop.
 */
static void
diagnosis_names_the_hop(void **state)
{
	static const char *const h[] = { "h1", "h2", "h3", "h4", "h5" };
	struct matrix *hm = matrix_new();
	struct diagnosis dx;
	size_t s, t, i, named = 0;

	(void)state;
	assert_non_null(hm);
	for (s = 0; s < 5; s++)
		for (t = 0; t < 5; t++)
			if (s == 1 && t == 3)
				fold(hm, h[s], h[t], 30.761, 2, 30.925);
			else if (s != t)
				fold(hm, h[s], h[t], 0.4 + 0.01 * (double)(
				    (s * 5 + t) % 19), 1, 0.3);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(matrix_sites_group(hm, MATRIX_GROUP_AUTO, 5.0), 0);
	assert_int_equal(diagnose(hm, NULL, &dx), 0);
	assert_true(dx.nfindings >= 1);
	for (i = 0; i < dx.nfindings; i++) {
		if (strstr(dx.findings[i].title, "h2") == NULL ||
		    strstr(dx.findings[i].title, "h4") == NULL)
			continue;
		assert_true(dx.findings[i].what & DX_W_SLOW);
		assert_non_null(strstr(dx.findings[i].evidence,
		    "the round trip rises most at hop 2 (by 30.9 ms)"));
		named++;
	}
	assert_int_equal(named, 1);
	diagnose_free(&dx);
	matrix_free(hm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(row_is_the_kinds),
		cmocka_unit_test(path_read),
		cmocka_unit_test(failures_said),
		cmocka_unit_test(diagnosis_names_the_hop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
