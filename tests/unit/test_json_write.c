/*
 * The JSON writer (json_write.h) against Python's json.dumps(): floats as
 * repr() writes them, strings with ensure_ascii's escapes, the indent=2
 * layout; and upstream's own files byte for byte: every record of
 * tests/fixtures/upstream (collect's ping and iperf3, bench's three node
 * kinds), made the way collect and bench make theirs (the kinds' parsers
 * on the tools' output or the node's answer, record_to_json(), the
 * writer) from the same values, is upstream's line once netprof's extra
 * keys are left out, and those extras are the ones docs/collect.md
 * lists; run.json's layout is upstream's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "fixture.h"
#include "json_write.h"
#include "probe_kind.h"
#include "record.h"
#include "util.h"

/* Python 3.11's repr() of each value (json.dumps writes the same). */
static void
floats_as_python_repr(void **state)
{
	static const struct {
		double v;
		const char *repr;
	} cases[] = {
		{ 0.0, "0.0" }, { -0.0, "-0.0" }, { 1.0, "1.0" },
		{ 123.0, "123.0" }, { 0.1 + 0.2, "0.30000000000000004" },
		{ 1e16, "1e+16" }, { 1234567890123456.0, "1234567890123456.0" },
		{ 0.0001, "0.0001" }, { 0.00001, "1e-05" }, { 1.5e300, "1.5e+300" },
		{ 1e22, "1e+22" }, { 2.5e-7, "2.5e-07" }, { 5e-324, "5e-324" },
		{ 2890006528.0, "2890006528.0" }, { 23094.18673485696,
		    "23094.18673485696" }, { 0.031, "0.031" }, { -7.25, "-7.25" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 123456789.125, "123456789.125" }, { 1e-4 * 3, "0.00030000000000000003" },
	};
	char buf[JSON_FLOAT_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_format_float(cases[i].v, buf);
		assert_string_equal(cases[i].repr, buf);
	}
	json_format_float(NAN, buf);
	assert_string_equal("null", buf);
	/* any double: reads back the same, and one digit less would not */
	for (i = 0; i < 200000; i++) {
		uint64_t bits = (uint64_t)i * 0x9e3779b97f4a7c15ull;
		double v, back;
		char *e;
		int digits = 0;

		memcpy(&v, &bits, sizeof v);
		if (!isfinite(v))
			continue;
		json_format_float(v, buf);
		back = strtod(buf, &e);
		assert_int_equal(*e, '\0');
		assert_memory_equal(&v, &back, sizeof v);
		/* its significant digits: leading and trailing zeros not */
		{
			char sig[40];
			size_t n = 0;

			for (e = buf; *e != '\0' && *e != 'e'; e++)
				if (*e >= '0' && *e <= '9' && (n > 0 || *e != '0'))
					sig[n++] = *e;
			while (n > 0 && sig[n - 1] == '0')
				n--;
			digits = (int)n;
		}
		if (digits > 1) {
			char fewer[40];

			snprintf(fewer, sizeof fewer, "%.*e", digits - 2, v);
			if (strtod(fewer, NULL) == v)
				fail_msg("%s: %s has fewer digits", buf, fewer);
		}
	}
}

/* json.dumps({"a": "é\x7f\x01\n😀/\"\\"}, sort_keys=True) and numbers:
   whole ones as integers unless marked, -0.0 as a float */
static void
text_as_json_dumps(void **state)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char *s;

	(void)state;
	cJSON_AddStringToObject(o, "a", "\xc3\xa9\x7f\x01\n\xf0\x9f\x98\x80/\"\\\t");
	cJSON_AddStringToObject(o, "bad", "x\xff\xc3y");
	cJSON_AddNumberToObject(o, "i", 31457280);
	json_add_float(o, "f", 31457280);
	cJSON_AddNumberToObject(o, "z", -0.0);
	cJSON_AddNumberToObject(o, "n", NAN);
	cJSON_AddBoolToObject(o, "t", 0);
	cJSON_AddNullToObject(o, "u");
	a = cJSON_AddArrayToObject(o, "v");
	cJSON_AddItemToArray(a, cJSON_CreateNumber(1));
	cJSON_AddItemToArray(a, cJSON_CreateObject());
	cJSON_AddArrayToObject(o, "w");
	s = json_print(o, 0);
	assert_string_equal("{\"a\": \"\\u00e9\\u007f\\u0001\\n\\ud83d\\ude00/"
	    "\\\"\\\\\\t\", \"bad\": \"x\\ufffd\\ufffdy\", \"i\": 31457280, "
	    "\"f\": 31457280.0, \"z\": -0.0, \"n\": null, \"t\": false, "
	    "\"u\": null, \"v\": [1, {}], \"w\": []}", s);
	free(s);
	/* json.dumps(..., indent=2) */
	s = json_print(a, 2);
	assert_string_equal("[\n  1,\n  {}\n]", s);
	free(s);
	cJSON_Delete(o);
	o = cJSON_Parse("{\"b\": [1, {}], \"a\": [], \"c\": {\"x\": [1, 2]}}");
	json_sort_keys(o);
	s = json_print(o, 2);
	assert_string_equal("{\n  \"a\": [],\n  \"b\": [\n    1,\n    {}\n  ],\n"
	    "  \"c\": {\n    \"x\": [\n      1,\n      2\n    ]\n  }\n}", s);
	free(s);
	cJSON_Delete(o);
}

/* The end of the member of a JSON object's text at p: its ',' or the
   object's closing '}'. */
static const char *
member_end(const char *p)
{
	int depth = 0, in_string = 0;

	for (; *p != '\0'; p++) {
		if (in_string) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_string = 0;
		} else if (*p == '"')
			in_string = 1;
		else if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && depth-- == 0)
			break;
		else if (*p == ',' && depth == 0)
			break;
	}
	return p;
}

/* A record's metrics as its line holds them (raw text, json_write()'s
   form, keys without escapes) without the members up has not, each noted
   as PATH.KEY in *extras; its bytes otherwise as they were. */
static void
drop_raw_extras(cJSON *ours, cJSON *raw, const cJSON *up, const char *path,
    char *extras, size_t size)
{
	const char *p = raw->valuestring + 1, *end;
	char *kept = calloc(1, strlen(raw->valuestring) + 1), key[128];
	size_t klen;

	assert_non_null(kept);
	strcpy(kept, "{");
	while (*p == '"') {
		end = member_end(p);
		klen = strcspn(p + 1, "\"");
		assert_true(klen < sizeof key);
		memcpy(key, p + 1, klen);
		key[klen] = '\0';
		if (cJSON_GetObjectItemCaseSensitive(up, key) == NULL)
			snprintf(extras + strlen(extras), size - strlen(extras),
			    " %s.%s", path, key);
		else {
			if (kept[1] != '\0')
				strcat(kept, ", ");
			strncat(kept, p, (size_t)(end - p));
		}
		p = *end == ',' ? end + 2 : end;
	}
	strcat(kept, "}");
	assert_true(cJSON_ReplaceItemInObjectCaseSensitive(ours, raw->string,
	    cJSON_CreateRaw(kept)));
	free(kept);
}

/* The keys of ours that upstream's object has not, removed, each noted
   as PATH in *extras (" a b.c"). */
static void
drop_extras(cJSON *ours, const cJSON *up, const char *prefix, char *extras,
    size_t size)
{
	cJSON *c, *next;
	const cJSON *u;
	char path[128];

	for (c = ours->child; c != NULL; c = next) {
		next = c->next;
		snprintf(path, sizeof path, "%s%s", prefix, c->string);
		u = cJSON_GetObjectItemCaseSensitive(up, c->string);
		if (u == NULL) {
			snprintf(extras + strlen(extras), size - strlen(extras),
			    " %s", path);
			cJSON_DeleteItemFromObjectCaseSensitive(ours, c->string);
		} else if (cJSON_IsObject(c) && cJSON_IsObject(u)) {
			strcat(path, ".");
			drop_extras(c, u, path, extras, size);
		} else if (cJSON_IsRaw(c) && cJSON_IsObject(u))
			drop_raw_extras(ours, c, u, path, extras, size);
	}
}

static char *
number_text(const cJSON *metrics, const char *name)
{
	static char buf[8][JSON_FLOAT_SIZE];
	static int next;
	char *b = buf[next++ % 8];

	json_format_float(cJSON_GetObjectItemCaseSensitive(metrics,
	    name)->valuedouble, b);
	return b;
}

/* What ping printed for a record of upstream's figures (iputils). */
static char *
ping_output(const cJSON *up)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(up, "metrics");
	const char *addr = cJSON_GetObjectItemCaseSensitive(up,
	    "target_address")->valuestring;
	char *s = NULL;

	assert_true(asprintf(&s, "PING %s (%s) 56(84) bytes of data.\n"
	    "64 bytes from %s: icmp_seq=1 ttl=64 time=%s ms\n"
	    "64 bytes from %s: icmp_seq=2 ttl=64 time=%s ms\n\n"
	    "--- %s ping statistics ---\n"
	    "2 packets transmitted, 2 received, 0%% packet loss, time 1001ms\n"
	    "rtt min/avg/max/mdev = %s/%s/%s/%s ms\n", addr, addr, addr,
	    number_text(m, "min"), addr, number_text(m, "max"), addr,
	    number_text(m, "min"), number_text(m, "avg"),
	    number_text(m, "max"), number_text(m, "jitter")) > 0);
	return s;
}

/* iperf3 -J's report of upstream's figures: the receiver's bits per
   second that give its mbps (bits_per_second / 1e6, as both compute it) */
static char *
iperf3_output(const cJSON *up)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(up, "metrics");
	double mbps = cJSON_GetObjectItemCaseSensitive(m, "mbps")->valuedouble;
	double bps = mbps * 1e6;
	char *s = NULL;
	int i;

	for (i = 0; i < 64 && bps / 1e6 != mbps; i++)
		bps = nextafter(bps, bps / 1e6 < mbps ? INFINITY : 0);
	assert_true(bps / 1e6 == mbps);
	assert_true(asprintf(&s, "{\"start\": {}, \"end\": {"
	    "\"sum_sent\": {\"bytes\": %s, \"seconds\": %s, "
	    "\"bits_per_second\": %.17g, \"retransmits\": 0}, "
	    "\"sum_received\": {\"bytes\": %s, \"seconds\": %s, "
	    "\"bits_per_second\": %.17g}}}", number_text(m, "bytes"),
	    number_text(m, "seconds"), bps, number_text(m, "bytes"),
	    number_text(m, "seconds"), bps) > 0);
	return s;
}

/* The otela node's answer to /v1/probe/run that gave upstream's record. */
static char *
node_answer(const cJSON *up)
{
	cJSON *a = cJSON_CreateObject();
	char *s;

	cJSON_AddBoolToObject(a, "ok", 1);
	cJSON_AddStringToObject(a, "kind", cJSON_GetObjectItemCaseSensitive(up,
	    "kind")->valuestring);
	cJSON_AddStringToObject(a, "target", cJSON_GetObjectItemCaseSensitive(
	    up, "target_peer_id")->valuestring);
	cJSON_AddItemToObject(a, "config", cJSON_Duplicate(
	    cJSON_GetObjectItemCaseSensitive(up, "config"), 1));
	cJSON_AddItemToObject(a, "metrics", cJSON_Duplicate(
	    cJSON_GetObjectItemCaseSensitive(up, "metrics"), 1));
	s = json_print(a, 0);
	cJSON_Delete(a);
	return s;
}

/* obj as the record writer writes it (record_writer_write()'s
   json_write(), then the line's end), one line. */
static char *
written_line(const cJSON *obj)
{
	struct buf line = { 0 };

	assert_int_equal(json_write(obj, 0, &line), 0);
	assert_int_equal(buf_append(&line, "", 1), 0);
	return line.data;
}

static const char *
str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * The line netprof writes for upstream's record line up, its values made
 * as collect or bench makes them; its extra keys in *extras.
 */
static char *
netprof_line(const char *line, char *extras, size_t size)
{
	cJSON *up = cJSON_Parse(line), *o;
	const cJSON *cfg, *v;
	const struct probe_kind *k;
	struct probe_output out = { .err = "", .host = "h1", .who = "" };
	struct record res;
	struct record w;
	char *text = NULL, *s;

	assert_non_null(up);
	memset(&w, 0, sizeof w);
	memset(&res, 0, sizeof res);
	w.kind = str_of(up, "kind");
	w.source = str_of(up, "source");
	w.target = str_of(up, "target");
	w.command = str_of(up, "command");
	w.ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(up, "ok"));
	w.started_at = w.ended_at = fixture_upstream_time(str_of(up,
	    "timestamp"));
	assert_non_null(k = probe_kind_find(w.kind));
	out.kind = k;
	if (k->via == PROBE_VIA_NODE) {
		text = node_answer(up);
		w.run_id = str_of(up, "run_id");
		w.source_peer_id = str_of(up, "source_peer_id");
		w.target_peer_id = str_of(up, "target_peer_id");
		cfg = cJSON_GetObjectItemCaseSensitive(up, "config");
		w.count = cJSON_GetObjectItemCaseSensitive(cfg, "count")->valueint;
		v = cJSON_GetObjectItemCaseSensitive(cfg, "bytes");
		w.bytes = cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
	} else if (w.ok) {
		w.target_address = str_of(up, "target_address");
		text = strcmp(w.kind, "ping") == 0 ? ping_output(up) :
		    iperf3_output(up);
	} else {
		/* a failed ping: netprof's error text says more by design;
		   the line's form is what is compared */
		w.target_address = str_of(up, "target_address");
		text = strdup("");
		out.exit_status = 2;
		out.err = str_of(up, "error");
	}
	out.out = text;
	out.len = strlen(text);
	assert_int_equal(k->parse(&out, &res), 0);
	assert_int_equal(res.ok, w.ok);
	record_take_metrics(&w, &res);
	if (!w.ok) {
		w.error = str_of(up, "error");
		w.error_class = "tool_failed";
	}
	assert_non_null(o = record_to_json(&w));
	extras[0] = '\0';
	drop_extras(o, up, "", extras, size);
	s = written_line(o);
	cJSON_Delete(o);
	record_finish_free(&w);
	free((char *)res.error);
	free(text);
	cJSON_Delete(up);
	return s;
}

/* Each line of fixture upstream/NAME, as netprof writes it; the extras of
   its first record of each kind and outcome are want[]'s. */
static void
each_line_equal(const char *name, const char *const *want)
{
	char *text = fixture_read("upstream", name), *line, *save = NULL;
	char extras[512], *ours, seen[1024] = "", key[64];
	size_t n = 0, i;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		ours = netprof_line(line, extras, sizeof extras);
		if (strcmp(ours, line) != 0)
			fail_msg("%s:%zu differs:\n  upstream: %s\n  netprof:  %s",
			    name, n + 1, line, ours);
		free(ours);
		n++;
		/* the first record of each kind and outcome: its extras */
		{
			cJSON *r = cJSON_Parse(line);

			snprintf(key, sizeof key, "\"%s\" %s", str_of(r, "kind"),
			    cJSON_IsTrue(cJSON_GetObjectItem(r, "ok")) ? "ok" :
			    "failed");
			cJSON_Delete(r);
		}
		if (strstr(seen, key) != NULL)
			continue;
		snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s;",
		    key);
		for (i = 0; want[i] != NULL; i += 2)
			if (strstr(key, want[i]) != NULL)
				break;
		if (want[i] == NULL)
			fail_msg("%s: no extras listed for %s", name, key);
		assert_string_equal(want[i + 1], extras);
	}
	assert_true(n >= 5);
	free(text);
}

static void
collect_lines_are_upstreams(void **state)
{
	/* "\"kind\": \"K\" ok|failed" -> netprof's keys beyond upstream's */
	static const char *const want[] = {
		"\"iperf3\" ok", " ended_at error_class metrics.receiver_mbps "
		    "metrics.retransmits metrics.sender_mbps round started_at",
		"\"ping\" ok", " ended_at error_class metrics.loss_pct "
		    "metrics.p50 metrics.p95 metrics.received "
		    "metrics.samples_ms metrics.transmitted round started_at",
		"\"ping\" failed", " ended_at error_class round started_at",
		NULL
	};

	(void)state;
	each_line_equal("collect.jsonl", want);
}

#define PATH_EXTRAS " ended_at error_class path path_evidence path_known " \
	"relay relay_peer_id round started_at"

static void
bench_lines_are_upstreams(void **state)
{
	static const char *const want[] = {
		/* the path a probe ran over, null where unknown (as here) */
		"\"libp2p_ping\" ok", PATH_EXTRAS,
		"\"latency\" ok", PATH_EXTRAS,
		"\"throughput\" ok", PATH_EXTRAS,
		NULL
	};

	(void)state;
	each_line_equal("bench-4/measurements.jsonl", want);
}

/* Upstream's run.json read and written again, its floats marked where
   bench marks them (elapsed_s, the phases' seconds): the same bytes. */
static void
run_json_layout_is_upstreams(void **state)
{
	char *text = fixture_read("upstream", "bench-4/run.json"), *s;
	cJSON *o = cJSON_Parse(text), *c;

	(void)state;
	assert_non_null(o);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(o, "convergence"))
		json_float(cJSON_GetObjectItem(c, "elapsed_s"));
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(o, "phases"))
		json_float(c);
	s = json_print(o, 2);
	assert_string_equal(text, s);
	free(s);
	cJSON_Delete(o);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(floats_as_python_repr),
		cmocka_unit_test(text_as_json_dumps),
		cmocka_unit_test(collect_lines_are_upstreams),
		cmocka_unit_test(bench_lines_are_upstreams),
		cmocka_unit_test(run_json_layout_is_upstreams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
