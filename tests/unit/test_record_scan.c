/*
 * The record reader's fast path (record_scan.c) and the thread that reads
 * a sink's records (records_pipe.c). The fast path takes the records tools
 * write and gives record_parse()'s record for each; it declines what it
 * does not read the same way (escapes, keys given twice, non-string
 * errors, numbers strict JSON refuses or cJSON reads otherwise); its
 * numbers are strtod's to the bit; a batch's records stay valid while it
 * fills. Through the pipe, records reach the sink in order with their line
 * numbers, a malformed line is reported in its turn, --strict and a sink's
 * error stop the reading, and an over-long line stops it after every
 * record before it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "records_read.h"
#include "log.h"
#include "record_scan.h"
#include "../fuzz/record_same.h"

/* The fast path took line, and gave record_parse()'s record. */
static void
assert_taken(struct record_scan *s, const char *line)
{
	struct record fast, *ref;
	const char *diff;
	char *cause;

	assert_int_equal(record_scan_room(s, strlen(line)), 1);
	if (record_scan(s, line, strlen(line), &fast) != 1)
		fail_msg("declined: %s", line);
	assert_int_equal(record_parse(line, strlen(line), &ref, &cause), 0);
	if ((diff = record_same(&fast, ref)) != NULL)
		fail_msg("%s differs: %s", diff, line);
	record_free(ref);
}

static void
assert_declined(struct record_scan *s, const char *line)
{
	struct record r;

	assert_int_equal(record_scan_room(s, strlen(line)), 1);
	if (record_scan(s, line, strlen(line), &r) != 0)
		fail_msg("taken: %s", line);
}

static void
test_takes_records(void **state)
{
	static const char *const lines[] = {
		/* collect's ping, iperf3 and a failure */
		"{\"run_id\":\"c1\",\"kind\":\"ping\",\"source\":\"h1\","
		"\"target\":\"h2\",\"target_address\":\"198.18.0.2\","
		"\"ok\":true,\"started_at\":\"2026-05-03T11:37:40.125Z\","
		"\"ended_at\":\"2026-05-03T11:37:42.250Z\",\"metrics\":{"
		"\"rtt_min_ms\":0.041,\"rtt_avg_ms\":0.052,\"rtt_max_ms\":"
		"0.07,\"loss_pct\":0,\"samples_ms\":[0.041,0.05,0.07]},"
		"\"error\":null,\"command\":\"ping -c 3 198.18.0.2\"}",
		"{\"kind\":\"iperf3\",\"source\":\"h1\",\"target\":\"h2\","
		"\"ok\":true,\"timestamp\":\"2026-05-03T11:37:42+00:00\","
		"\"metrics\":{\"sender\":{\"mbps\":941.2,\"bytes\":1176502272,"
		"\"retransmits\":3,\"elapsed_ns\":10000000},\"receiver\":{"
		"\"mbps\":940.1}},\"command\":\"iperf3 -c 198.18.0.2 -p 5299 "
		"-t 10 -J\",\"round\":2}",
		"{\"kind\":\"ping\",\"source\":\"h1\",\"target\":\"h3\","
		"\"ok\":false,\"error\":\"ssh: connect to host h3: "
		"Connection refused\\n\\tretried\",\"metrics\":{}}",
		/* bench's latency, with _ns twins and an _ns without one */
		"{\"kind\":\"latency\",\"source\":\"a\",\"target\":\"b\","
		"\"ok\":true,\"metrics\":{\"min_ns\":981369,\"min_ms\":0.981,"
		"\"elapsed_ns\":31457280,\"samples_ns\":[981369,1036880],"
		"\"iterations\":[{\"mbps\":1},{\"mbps\":2},{\"mbps\":3}],"
		"\"failed_samples\":0},\"config\":{\"count\":20,\"bytes\":null},"
		"\"error\":null}",
		/* bench's path: relayed through a relay, and unknown */
		"{\"kind\":\"libp2p_ping\",\"source\":\"h1\",\"target\":\"h3\","
		"\"ok\":true,\"metrics\":{\"p50_ms\":62.4},\"path\":\"relayed\","
		"\"path_known\":\"inferred\",\"path_evidence\":\"h1 \u2192 x\","
		"\"relay\":\"relay\",\"relay_peer_id\":\"QmRelay\"}",
		"{\"kind\":\"latency\",\"source\":\"h1\",\"target\":\"h2\","
		"\"ok\":false,\"path\":null,\"path_known\":null,\"relay\":null,"
		"\"relay_peer_id\":null,\"error\":\"failed to dial\"}",
		/* the same name twice by two routes: the later's value */
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"metrics\":"
		"{\"s_mbps\":1,\"s\":{\"mbps\":2},\"t_ns\":5000000}}",
		/* no ok: the error decides; an error without its text */
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\","
		"\"error\":\"timed out\"}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"ok\":false,"
		"\"error_class\":\"auth\"}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"ok\":\"yes\","
		"\"error\":\"\"}",
		/* times as numbers, out of range, and of another form */
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\","
		"\"started_at\":1714736262.5,\"ended_at\":1e300,"
		"\"timestamp\":\"2026-05-03 11:37:42-0130\",\"round\":0.5}",
		" \t{ \"kind\" : \"x\" , \"source\":\"a\",\"target\":\"b\" } \r",
		/* unknown fields of every type, skipped */
		"{\"a\":[1,{\"b\":[true,false,null]},\"s\"],\"kind\":\"x\","
		"\"source\":\"a\",\"target\":\"b\",\"kind2\":{},\"e\":[]}",
	};
	struct record_scan s;
	size_t i;

	(void)state;
	memset(&s, 0, sizeof s);
	for (i = 0; i < sizeof lines / sizeof *lines; i++)
		assert_taken(&s, lines[i]);
	record_scan_free(&s);
}

static void
test_declines(void **state)
{
	static const char *const lines[] = {
		"{\"kind\":\"x\",\"source\":\"a\\u0062\",\"target\":\"b\"}",
		"{\"kind\":\"x\",\"kind\":\"y\",\"source\":\"a\",\"target\":\"b\"}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"metrics\":"
		"{\"m\":1,\"m\":2}}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"metrics\":"
		"{\"s\":{\"m\":1,\"m\":2}}}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\","
		"\"error\":{\"code\":1}}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"error\":7}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"error\":true}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"m\":01}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"m\":1.}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"m\":+1}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"m\":"
		"1234567890123456789012345678901234567890123456789012345678901234}",
		"{\"kind\":\"x\",\"source\":\"a\tb\",\"target\":\"b\"}",
		"\xef\xbb\xbf{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\"}",
		"{\"kind\":\"\",\"source\":\"a\",\"target\":\"b\"}",
		"{\"source\":\"a\",\"target\":\"b\"}",
		"{\"kind\":1,\"source\":\"a\",\"target\":\"b\"}",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\"} x",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\"",
		"[{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\"}]",
		"{}",
		"",
		"   ",
		"{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"k\\\"\":1}",
	};
	char deep[400];
	struct record_scan s;
	size_t i;

	(void)state;
	memset(&s, 0, sizeof s);
	for (i = 0; i < sizeof lines / sizeof *lines; i++)
		assert_declined(&s, lines[i]);
	/* Nesting past the fast path's depth: record_parse() reads it. */
	strcpy(deep, "{\"kind\":\"x\",\"source\":\"a\",\"target\":\"b\",\"d\":");
	for (i = 0; i < 80; i++)
		strcat(deep, "[");
	for (i = 0; i < 80; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	assert_declined(&s, deep);
	record_scan_free(&s);
}

/* Each number as strtod reads it, to the bit. */
static void
test_numbers(void **state)
{
	static const char *const numbers[] = {
		"0", "-0", "0.1", "0.30000000000000004", "1e22", "1e23",
		"9007199254740993", "123456789012345678901", "5e-324",
		"1.7976931348623157e308", "1e309", "-1e-400", "2.5E+3",
		"0.000001234", "981369", "31457280", "1.5e-7", "100000000000000000000000",
		"3.141592653589793238462643383279",
	};
	struct record_scan s;
	struct record r;
	char line[256];
	size_t i;

	(void)state;
	memset(&s, 0, sizeof s);
	for (i = 0; i < sizeof numbers / sizeof *numbers; i++) {
		double want = strtod(numbers[i], NULL);

		snprintf(line, sizeof line, "{\"kind\":\"x\",\"source\":\"a\","
		    "\"target\":\"b\",\"metrics\":{\"m\":%s}}", numbers[i]);
		assert_int_equal(record_scan_room(&s, strlen(line)), 1);
		assert_int_equal(record_scan(&s, line, strlen(line), &r), 1);
		assert_int_equal(r.nmetrics, 1);
		if (memcmp(&r.metrics[0].value, &want, sizeof want) != 0)
			fail_msg("%s: %.17g, strtod %.17g", numbers[i],
			    r.metrics[0].value, want);
		assert_taken(&s, line);
	}
	record_scan_free(&s);
}

/* A batch's records keep their strings while arenas fill and new ones
 * start, until it is cleared. */
static void
test_batch(void **state)
{
	static const char pad[] = "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789";
	struct record_scan s;
	struct record *r;
	char line[512], want[512];
	size_t n = 20000, i;

	(void)state;
	memset(&s, 0, sizeof s);
	r = calloc(n, sizeof *r);
	assert_non_null(r);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof line, "{\"kind\":\"x\",\"source\":"
		    "\"h%zu%s\",\"target\":\"b\",\"metrics\":{\"m\":%zu,"
		    "\"p_ns\":1}}", i, pad, i);
		assert_int_equal(record_scan_room(&s, strlen(line)), 1);
		assert_int_equal(record_scan(&s, line, strlen(line), &r[i]), 1);
	}
	/* 20000 x 2 metrics and 2 MB of text: arenas of each filled. */
	assert_true(s.nretired >= 3);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof want, "h%zu%s", i, pad);
		assert_string_equal(r[i].source, want);
		assert_int_equal(r[i].nmetrics, 2);
		assert_true(r[i].metrics[0].value == (double)i);
		assert_string_equal(r[i].metrics[1].name, "p_ms");
	}
	record_scan_clear(&s);
	assert_int_equal(s.nretired, 0);
	assert_int_equal(record_scan_room(&s, strlen(line)), 1);
	record_scan_free(&s);
	free(r);
}

/* What a sink saw: each record's source and line, and when to stop. */
struct seen {
	size_t n;
	long last_seq;
	int stop_at;		/* return an error at this record (1-based) */
	int lines[8192];
};

static int
see(void *arg, struct record *r)
{
	struct seen *s = arg;
	char want[32];

	snprintf(want, sizeof want, "h%d", r->line);
	assert_string_equal(r->source, want);
	assert_true(r->seq == s->last_seq + 1);
	s->last_seq = r->seq;
	assert_true(s->n < sizeof s->lines / sizeof *s->lines);
	s->lines[s->n++] = r->line;
	return s->stop_at > 0 && (int)s->n == s->stop_at ? NP_ERR_BUDGET : 0;
}

/* lines lines, h<line> each; line bad malformed (0: none). */
static FILE *
records_file(int lines, int bad)
{
	FILE *f = tmpfile();
	int i;

	assert_non_null(f);
	for (i = 1; i <= lines; i++)
		if (i == bad)
			fputs("{\"kind\": not json\n", f);
		else if (i % 7 == 0) {	/* record_parse()'s: an escape */
			char num[16];

			snprintf(num, sizeof num, "%d", i);
			fprintf(f, "{\"kind\":\"x\",\"source\":\"h\\u003%c%s\","
			    "\"target\":\"b\"}\n", num[0], num + 1);
		} else
			fprintf(f, "{\"kind\":\"x\",\"source\":\"h%d\","
			    "\"target\":\"b\"}\n", i);
	rewind(f);
	return f;
}

static int
read_all(FILE *f, struct seen *seen, int strict, size_t *malformed)
{
	struct record_input in = { .sink = see, .sink_arg = seen };
	int rc;

	seen->last_seq = -1;
	rc = records_read_stream(&in, f, "test.jsonl", strict);
	*malformed = in.malformed;
	record_input_free(&in);
	fclose(f);
	return rc;
}

static void
test_pipe(void **state)
{
	struct seen *seen = calloc(1, sizeof *seen);
	size_t malformed, i, j;

	(void)state;
	assert_non_null(seen);
	log_set_level(LOG_QUIET);
	/* Every seventh line is record_parse()'s: all in order. */
	assert_int_equal(read_all(records_file(6000, 4500), seen, 0,
	    &malformed), 0);
	assert_int_equal(malformed, 1);
	assert_int_equal(seen->n, 5999);
	for (i = 0, j = 1; i < seen->n; i++, j++) {
		if (j == 4500)
			j++;
		assert_int_equal(seen->lines[i], (int)j);
	}
	/* --strict: stopped at the malformed line. */
	memset(seen, 0, sizeof *seen);
	assert_int_equal(read_all(records_file(6000, 4500), seen, 1,
	    &malformed), NP_ERR_PARSE);
	assert_int_equal(seen->n, 4499);
	/* The sink's error stops it, once. */
	memset(seen, 0, sizeof *seen);
	seen->stop_at = 2500;
	assert_int_equal(read_all(records_file(6000, 0), seen, 0, &malformed),
	    NP_ERR_BUDGET);
	assert_int_equal(seen->n, 2500);
	free(seen);
}

/* An over-long line ends the reading after every record before it. */
static void
test_pipe_long_line(void **state)
{
	struct seen *seen = calloc(1, sizeof *seen);
	struct record_input in = { .sink = see };
	FILE *f = tmpfile();
	int i;

	(void)state;
	assert_non_null(seen);
	assert_non_null(f);
	in.sink_arg = seen;
	seen->last_seq = -1;
	for (i = 1; i <= 3000; i++)
		fprintf(f, "{\"kind\":\"x\",\"source\":\"h%d\",\"target\":"
		    "\"b\"}\n", i);
	for (i = 0; i < RECORDS_LINE_MAX + 10; i++)
		fputc('x', f);
	fputs("\n{\"kind\":\"x\",\"source\":\"late\",\"target\":\"b\"}\n", f);
	rewind(f);
	log_set_level(LOG_QUIET);
	assert_int_equal(records_read_stream(&in, f, "long.jsonl", 0),
	    NP_ERR_PARSE);
	assert_int_equal(seen->n, 3000);
	assert_int_equal(seen->lines[2999], 3000);
	record_input_free(&in);
	fclose(f);
	free(seen);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_takes_records),
		cmocka_unit_test(test_declines),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_pipe_long_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
