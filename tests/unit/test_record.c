/*
 * Records: the upstream field names and netprof's additions, whole lines
 * appended, a torn last line dropped on --resume, and the done set that
 * --resume skips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "json_write.h"
#include "record.h"
#include "records_read.h"
#include "timeutil.h"
#include "fixture.h"

static char path[4096];

static int
setup(void **state)
{
	const char *tmp = getenv("NETPROF_TEST_TMP");

	snprintf(path, sizeof path, "%s/test_record.%ld.jsonl",
	    tmp != NULL ? tmp : "/tmp", (long)getpid());
	if (tmp != NULL) {
		char cmd[4200];

		snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmp);
		if (system(cmd) != 0)
			return -1;
	}
	unlink(path);
	return 0;
}

static int
teardown(void **state)
{
	unlink(path);
	return 0;
}

static char *
slurp(void)
{
	FILE *f = fopen(path, "rb");
	char *text = calloc(1, 65536);

	assert_non_null(f);
	assert_true(fread(text, 1, 65535, f) < 65535);
	fclose(f);
	return text;
}

static void
put(struct record_writer *w, const char *src, const char *dst,
    const char *kind, int ok)
{
	struct record rec = {
		.kind = kind, .source = src, .target = dst,
		.target_address = "198.18.0.2", .ok = ok,
		.started_at = 1796028911.4171, .ended_at = 1796028912.5,
		.round = 3, .command = "LC_ALL=C ping -c 5 198.18.0.2",
		.mode = strcmp(kind, "iperf3") == 0 ? "duplex" : NULL,
		.error = ok ? NULL : "ssh: connection refused",
		.error_class = ok ? NULL :
		    error_class_name(ERROR_CLASS_UNREACHABLE),
	};
	cJSON *m;

	assert_non_null(m = cJSON_CreateObject());
	cJSON_AddNumberToObject(m, "avg", 0.5);
	assert_int_equal(record_set_metrics(&rec, m), 0);
	assert_int_equal(record_writer_write(w, &rec), 0);
	record_finish_free(&rec);
}

static void
record_has_upstream_and_added_fields(void **state)
{
	struct record_writer *w;
	char *cause = NULL, *text;
	cJSON *o;

	assert_int_equal(record_writer_open(path, 0, &w, &cause), 0);
	put(w, "h1", "h2", "ping", 0);
	assert_int_equal(record_writer_close(w, -1), 0);
	text = slurp();
	assert_non_null(strchr(text, '\n'));
	assert_int_equal(strchr(text, '\n')[1], '\0');
	o = cJSON_Parse(text);
	assert_non_null(o);
	/* upstream's form, taken when the probe ended */
	assert_string_equal(cJSON_GetObjectItem(o, "timestamp")->valuestring,
	    "2026-11-30T08:55:12+00:00");
	assert_string_equal(cJSON_GetObjectItem(o, "kind")->valuestring, "ping");
	assert_string_equal(cJSON_GetObjectItem(o, "target_address")->valuestring,
	    "198.18.0.2");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
	assert_string_equal(cJSON_GetObjectItem(o, "error_class")->valuestring,
	    "unreachable");
	assert_string_equal(cJSON_GetObjectItem(o, "started_at")->valuestring,
	    "2026-11-30T08:55:11.417+00:00");
	assert_string_equal(cJSON_GetObjectItem(o, "ended_at")->valuestring,
	    "2026-11-30T08:55:12.500+00:00");
	assert_int_equal(cJSON_GetObjectItem(o, "round")->valueint, 3);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"),
	    "avg"));
	assert_non_null(cJSON_GetObjectItem(o, "command"));
	assert_null(cJSON_GetObjectItem(o, "mode"));
	cJSON_Delete(o);
	free(text);
}

/* One record as record_to_json makes it, parsed back from its line. */
static cJSON *
written(const char *kind, int ok)
{
	struct record_writer *w;
	char *cause = NULL, *text;
	cJSON *o;

	assert_int_equal(record_writer_open(path, 0, &w, &cause), 0);
	put(w, "a", "b", kind, ok);
	assert_int_equal(record_writer_close(w, -1), 0);
	text = slurp();
	o = cJSON_Parse(text);
	assert_non_null(o);
	free(text);
	return o;
}

/*
 * Every field of a real upstream collect record (ok ping, ok iperf3,
 * failed ping) is in netprof's record of the same kind and outcome, with
 * the same JSON type, and in the same order (both sort their keys).
 */
static void
record_has_every_upstream_field_with_its_type(void **state)
{
	char *text = fixture_read("upstream", "collect.jsonl"), *line, *nl;
	int checked = 0;

	for (line = text; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		cJSON *up, *ours, *f, *g;
		const cJSON *prev = NULL;

		*nl = '\0';
		up = cJSON_Parse(line);
		assert_non_null(up);
		ours = written(cJSON_GetObjectItem(up, "kind")->valuestring,
		    cJSON_IsTrue(cJSON_GetObjectItem(up, "ok")));
		cJSON_ArrayForEach(f, up) {
			g = cJSON_GetObjectItemCaseSensitive(ours, f->string);
			if (g == NULL)
				fail_msg("netprof's record has no \"%s\"",
				    f->string);
			if ((g->type & 0xff) != (f->type & 0xff))
				fail_msg("\"%s\": upstream type %d, netprof %d",
				    f->string, f->type & 0xff, g->type & 0xff);
			if (prev != NULL && strcmp(prev->string, g->string) >= 0)
				fail_msg("\"%s\" after \"%s\"", g->string,
				    prev->string);
			prev = g;
			checked++;
		}
		cJSON_Delete(up);
		cJSON_Delete(ours);
	}
	assert_true(checked >= 6 * 9);
	free(text);
}

/* A script's strptime(ts, "%Y-%m-%dT%H:%M:%S%z") reads our timestamp. */
static void
timestamp_parses_with_upstream_format(void **state)
{
	cJSON *o = written("ping", 1);
	const char *ts = cJSON_GetObjectItem(o, "timestamp")->valuestring;

	/* UTC, and the second the probe ended (ended_at 1796028912.5) */
	assert_string_equal(ts + strlen(ts) - 6, "+00:00");
	assert_int_equal((long long)fixture_upstream_time(ts), 1796028912LL);
	cJSON_Delete(o);
}

static void
keys_are_sorted_at_every_depth(void **state)
{
	cJSON *o = cJSON_Parse("{\"b\":1,\"a\":{\"z\":[{\"y\":1,\"x\":2}],"
	    "\"c\":0},\"ab\":null}");
	char *text;

	json_sort_keys(o);
	text = cJSON_PrintUnformatted(o);
	assert_string_equal(text,
	    "{\"a\":{\"c\":0,\"z\":[{\"x\":2,\"y\":1}]},\"ab\":null,\"b\":1}");
	/* the list stays usable: lookups and appends after sorting */
	assert_int_equal(cJSON_GetObjectItem(o, "b")->valueint, 1);
	cJSON_AddNumberToObject(o, "0", 0);
	free(text);
	text = cJSON_PrintUnformatted(o);
	assert_non_null(strstr(text, "\"b\":1,\"0\":0}"));
	free(text);
	cJSON_Delete(o);
	json_sort_keys(NULL);
}

static void
ok_record_has_null_error(void **state)
{
	struct record_writer *w;
	char *cause = NULL, *text;
	cJSON *o;

	assert_int_equal(record_writer_open(path, 0, &w, &cause), 0);
	put(w, "h1", "h2", "iperf3", 1);
	assert_int_equal(record_writer_close(w, -1), 0);
	text = slurp();
	o = cJSON_Parse(text);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "error")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "error_class")));
	/* the mode that measured it, when given */
	assert_string_equal(cJSON_GetObjectItem(o, "mode")->valuestring,
	    "duplex");
	cJSON_Delete(o);
	free(text);
}

static void
resume_drops_torn_line_and_knows_ok_pairs(void **state)
{
	struct record_writer *w;
	struct record_done_set *set;
	char *cause = NULL, *text;
	FILE *f;

	assert_int_equal(record_writer_open(path, 0, &w, &cause), 0);
	put(w, "h1", "h2", "ping", 1);
	put(w, "h2", "h1", "ping", 0);
	put(w, "h1", "h2", "iperf3", 1);
	assert_int_equal(record_writer_close(w, -1), 0);
	f = fopen(path, "a");
	/* a line of an older netprof, in cJSON's compact form */
	fputs("{\"kind\":\"ping\",\"metrics\":{},\"ok\":true,"
	    "\"source\":\"h4\",\"target\":\"h1\"}\n", f);
	fputs("{\"kind\":\"ping\",\"source\":\"h3\",\"tar", f);
	fclose(f);

	assert_int_equal(record_done_load(path, &set, &cause), 0);
	assert_int_equal(record_done_count(set), 3);
	assert_true(record_done_has(set, "h4", "h1", "ping"));
	assert_true(record_done_has(set, "h1", "h2", "ping"));
	assert_true(record_done_has(set, "h1", "h2", "iperf3"));
	assert_false(record_done_has(set, "h2", "h1", "ping"));
	assert_false(record_done_has(set, "h3", "h1", "ping"));
	record_done_free(set);

	assert_int_equal(record_writer_open(path, 1, &w, &cause), 0);
	put(w, "h2", "h1", "ping", 1);
	assert_int_equal(record_writer_close(w, -1), 0);
	text = slurp();
	assert_null(strstr(text, "\"tar\n"));
	assert_null(strstr(text, "h3"));
	{
		char *line = text, *nl;
		int lines = 0;

		while ((nl = strchr(line, '\n')) != NULL) {
			cJSON *o;

			*nl = '\0';
			o = cJSON_Parse(line);
			if (o == NULL)
				fail_msg("line %d is not JSON: %s", lines, line);
			cJSON_Delete(o);
			lines++;
			line = nl + 1;
		}
		assert_int_equal(lines, 5);
		assert_string_equal(line, "");
	}
	free(text);
}

static void
missing_file_is_an_empty_done_set(void **state)
{
	struct record_done_set *set;
	char *cause = NULL;

	assert_int_equal(record_done_load(path, &set, &cause), 0);
	assert_int_equal(record_done_count(set), 0);
	assert_false(record_done_has(set, "a", "b", "ping"));
	record_done_free(set);
	record_done_free(NULL);
}

static void
unwritable_output_names_the_file(void **state)
{
	struct record_writer *w;
	char *cause = NULL;

	assert_int_equal(record_writer_open("/nonexistent-dir/x.jsonl", 0, &w,
	    &cause), NP_ERR_IO);
	assert_non_null(strstr(cause, "/nonexistent-dir/x.jsonl"));
	free(cause);
}

/* --resume on a file that is not collect's refuses, and leaves it as it was. */
static void
resume_refuses_a_file_that_is_not_jsonl(void **state)
{
	static const char *const texts[] = {
		"{\"machines\": [\n  {\"name\": \"a\"}\n]}\n",
		"hello\n",
		("\x7f" "ELF binary without a newline"),
	};
	struct record_done_set *set;
	char *cause, *after;
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		f = fopen(path, "wb");
		assert_non_null(f);
		fputs(texts[i], f);
		fclose(f);
		cause = NULL;
		assert_int_equal(record_done_load(path, &set, &cause),
		    NP_ERR_PARSE);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "is not a JSON record"));
		free(cause);
		after = slurp();
		assert_string_equal(after, texts[i]);
		free(after);
	}
}

/*
 * --resume reads the output as the heatmap does: a JSON object that is no
 * record (a run.json's, on a line of its own) is refused at its line, after
 * a record that was read.
 */
static void
resume_refuses_a_line_that_is_no_record(void **state)
{
	static const char text[] = "{\"kind\": \"ping\", \"ok\": true, "
	    "\"source\": \"a\", \"target\": \"b\"}\n"
	    "{\"run_id\": \"r1\", \"machines\": []}\n";
	struct record_done_set *set = NULL;
	char *cause = NULL, *after, where[4200];
	FILE *f;

	f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(record_done_load(path, &set, &cause), NP_ERR_PARSE);
	assert_null(set);
	snprintf(where, sizeof where, "%s:2 is not a JSON record", path);
	assert_non_null(cause);
	assert_non_null(strstr(cause, where));
	free(cause);
	after = slurp();
	assert_string_equal(after, text);
	free(after);
}

/* A link planted at the output's name is not written through. */
static void
symlinked_output_refused(void **state)
{
	struct record_writer *w = NULL;
	char target[4200], *cause = NULL;
	FILE *f;

	(void)state;
	snprintf(target, sizeof target, "%s.target", path);
	assert_non_null(f = fopen(target, "w"));
	fputs("the user's file\n", f);
	fclose(f);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(record_writer_open(path, 0, &w, &cause), NP_ERR_IO);
	assert_null(w);
	assert_non_null(strstr(cause, "is a symbolic link"));
	free(cause);
	assert_int_equal(record_writer_open(path, 1, &w, &cause), NP_ERR_IO);
	free(cause);
	assert_non_null(f = fopen(target, "r"));
	assert_non_null(fgets(target, sizeof target, f));
	fclose(f);
	assert_string_equal(target, "the user's file\n");
	snprintf(target, sizeof target, "%s.target", path);
	unlink(target);
}

/* A number that prints in cJSON's 15 digits but is not them exactly. */
static double
awkward(unsigned i)
{
	static const double fixed[] = { 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 1e-320,
	    -0.0, 123456789012345678.0, 1e300, -7.25, 0.3, 5e-324, 1e15 + 0.3,
	    2147483647.0, 2147483648.5, -2147483649.0, 1234.5678901234567 };

	if (i < sizeof fixed / sizeof *fixed)
		return fixed[i];
	/* a spread of magnitudes and digits, the same each run */
	return ((double)(i * 2654435761u % 1000003) / 997.0 - 500) *
	    pow(10, (int)(i % 37) - 18);
}

/*
 * A record written (record_writer_write(), after which collect --every
 * folds it as it is: no parsing) is what a reader makes of
 * its line: the metrics (each number as the line holds it, _ns as _ms,
 * nested ones joined, none for NaN or infinity), the sample count, the
 * time to the millisecond, the port, the error and its class, the round;
 * its start as measured, which the line holds to the millisecond; for both
 * forms and for thousands of numbers.
 */
static void
finished_equals_the_line_read(void **state)
{
	static const char *const kinds[] = { "ping", "iperf3", "latency",
	    "throughput", "someone_elses" };
	unsigned i, j, n = 0;
	const char *given;

	(void)state;
	for (i = 0; i < 600; i++) {
		struct record w = {
			.kind = kinds[i % 5], .source = "h1", .target = "h2",
			.target_address = "198.18.0.2", .ok = i % 4 != 0,
			.started_at = 1796028911.4171 + i * 0.0007,
			.ended_at = 1796028912.9999 + i * 0.0013,
			.round = (int)(i % 7),
			/* bench's form for the node kinds */
			.run_id = i % 5 == 2 || i % 5 == 3 ? "r1" : NULL,
			.command = i % 3 == 0 ? "ssh h1 'iperf3 -c a -p 5301'" :
			    "ping -c 1 a",
			.error = i % 4 != 0 || i % 8 == 0 ? NULL : "timed out",
			.error_class = i % 16 == 4 ? "auth" : NULL,
			.bytes = -1,
		};
		struct record *r = NULL;
		struct record_writer *wr;
		cJSON *m = cJSON_CreateObject(), *a;
		char *line, *cause = NULL, when[TIME_RECORD_SIZE];

		for (j = 0; j < 12; j++) {
			char name[16];

			snprintf(name, sizeof name, "m%02u", j);
			cJSON_AddNumberToObject(m, name, awkward(i * 12 + j));
		}
		cJSON_AddNumberToObject(m, "nan", NAN);
		cJSON_AddNumberToObject(m, "inf", i % 2 ? INFINITY : -INFINITY);
		cJSON_AddNumberToObject(m, "elapsed_ns", awkward(i + 7) * 1e9);
		cJSON_AddNumberToObject(m, "p50_ns", 1500000);
		cJSON_AddNumberToObject(m, "p50_ms", awkward(i + 3));
		a = cJSON_AddObjectToObject(m, "sender");
		cJSON_AddNumberToObject(a, "mbps", awkward(i + 11));
		a = cJSON_AddArrayToObject(m, "samples_ms");
		for (j = 0; j < i % 5; j++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(j * 0.1));
		assert_int_equal(record_set_metrics(&w, m), 0);
		assert_int_equal(record_writer_open(path, 0, &wr, &cause), 0);
		given = w.error;
		assert_int_equal(record_writer_write(wr, &w), 0);
		assert_int_equal(record_writer_close(wr, -1), 0);
		/* its owner frees it: never a literal of the writer's */
		assert_ptr_equal(given, w.error);
		line = slurp();
		/* the metrics printed once, the line holds them as they are */
		assert_non_null(strstr(line, w.metrics_text));
		assert_int_equal(record_parse(line, strlen(line), &r, &cause),
		    0);
		assert_string_equal(w.kind, r->kind);
		assert_int_equal(w.ok, r->ok);
		/* a failure written without its text reads as the reader's
		   words; the writer leaves the record's own pointer alone */
		if (r->error != NULL)
			assert_string_equal(w.error != NULL ? w.error :
			    RECORD_NO_ERROR_TEXT, r->error);
		else
			assert_null(w.error);
		if (r->error_class != NULL)
			assert_string_equal(w.error_class, r->error_class);
		else
			assert_null(w.error_class);
		assert_true(w.time == r->time);
		assert_true(record_parse_time(time_record_precise(w.started_at,
		    when, sizeof when)) == r->started_at);
		assert_int_equal(w.round, r->round);
		assert_int_equal(w.nsamples, r->nsamples);
		assert_int_equal(w.run_id == NULL, r->run_id == NULL);
		assert_int_equal(w.nmetrics, r->nmetrics);
		for (j = 0; j < r->nmetrics; j++) {
			assert_string_equal(w.metrics[j].name,
			    r->metrics[j].name);
			/* the same double, bit for bit */
			assert_memory_equal(&w.metrics[j].value,
			    &r->metrics[j].value, sizeof(double));
			n++;
		}
		record_finish_free(&w);
		record_free(r);
		free(line);
	}
	assert_true(n > 6000);
}

/*
 * A parser's metrics are printed once, as the line holds them (keys
 * sorted at every depth, a float marked, NaN null), and read into the
 * numbers every reader reads; the object is taken, also when there is
 * none (out of memory: the record has no metrics).
 */
static void
metrics_set_once_as_the_line_holds_them(void **state)
{
	struct record r = { .nsamples = 7 };
	cJSON *m = cJSON_CreateObject(), *a;
	double v = 0;

	(void)state;
	cJSON_AddNumberToObject(m, "p50_ns", 1500000);
	json_add_float(m, "avg_ms", 2);
	cJSON_AddNumberToObject(m, "nan", NAN);
	a = cJSON_AddObjectToObject(m, "sender");
	cJSON_AddNumberToObject(a, "mbps", 9.5);
	cJSON_AddNumberToObject(a, "bytes", 4);
	a = cJSON_AddArrayToObject(m, "samples_ms");
	cJSON_AddItemToArray(a, json_create_float(1));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(2.25));
	assert_int_equal(record_set_metrics(&r, m), 0);
	assert_string_equal(r.metrics_text, "{\"avg_ms\": 2.0, \"nan\": null, "
	    "\"p50_ns\": 1500000, \"samples_ms\": [1.0, 2.25], "
	    "\"sender\": {\"bytes\": 4, \"mbps\": 9.5}}");
	assert_int_equal(r.nmetrics, 4);
	assert_int_equal(r.nsamples, 2);
	assert_true(record_metric_value(&r, "avg_ms", &v) && v == 2);
	assert_true(record_metric_value(&r, "p50_ms", &v) && v == 1.5);
	assert_true(record_metric_value(&r, "sender_mbps", &v) && v == 9.5);
	assert_true(record_metric_value(&r, "sender_bytes", &v) && v == 4);
	assert_false(record_metric_value(&r, "nan", &v));
	assert_false(record_metric_value(&r, "p50_ns", &v));
	record_finish_free(&r);
	assert_null(r.metrics_text);
	assert_int_equal(r.nmetrics, 0);
	assert_int_equal(record_set_metrics(&r, NULL), NP_ERR_NOMEM);
	assert_null(r.metrics_text);
	assert_null(r.metrics);
	assert_int_equal(r.nsamples, -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    record_has_upstream_and_added_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(symlinked_output_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(ok_record_has_null_error,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    record_has_every_upstream_field_with_its_type, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    timestamp_parses_with_upstream_format, setup, teardown),
		cmocka_unit_test(keys_are_sorted_at_every_depth),
		cmocka_unit_test(metrics_set_once_as_the_line_holds_them),
		cmocka_unit_test_setup_teardown(finished_equals_the_line_read,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    resume_drops_torn_line_and_knows_ok_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    missing_file_is_an_empty_done_set, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    unwritable_output_names_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    resume_refuses_a_file_that_is_not_jsonl, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    resume_refuses_a_line_that_is_no_record, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
