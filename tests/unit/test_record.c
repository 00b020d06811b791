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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "record.h"

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
		.error = ok ? NULL : "ssh: connection refused",
		.error_class = ok ? ERROR_CLASS_NONE : ERROR_CLASS_UNREACHABLE,
	};
	cJSON *o;

	rec.metrics = cJSON_CreateObject();
	cJSON_AddNumberToObject(rec.metrics, "avg", 0.5);
	o = record_to_json(&rec);
	assert_non_null(o);
	assert_null(rec.metrics);
	assert_int_equal(record_writer_put(w, o), 0);
	cJSON_Delete(o);
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
	assert_string_equal(cJSON_GetObjectItem(o, "timestamp")->valuestring,
	    "2026-11-30T08:55:11.417Z");
	assert_string_equal(cJSON_GetObjectItem(o, "kind")->valuestring, "ping");
	assert_string_equal(cJSON_GetObjectItem(o, "target_address")->valuestring,
	    "198.18.0.2");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
	assert_string_equal(cJSON_GetObjectItem(o, "error_class")->valuestring,
	    "unreachable");
	assert_float_equal(cJSON_GetObjectItem(o, "started_at")->valuedouble,
	    1796028911.417, 1e-6);
	assert_int_equal(cJSON_GetObjectItem(o, "round")->valueint, 3);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"),
	    "avg"));
	assert_non_null(cJSON_GetObjectItem(o, "command"));
	cJSON_Delete(o);
	free(text);
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
	fputs("{\"kind\":\"ping\",\"source\":\"h3\",\"tar", f);
	fclose(f);

	assert_int_equal(record_done_load(path, &set, &cause), 0);
	assert_int_equal(record_done_count(set), 2);
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
		assert_int_equal(lines, 4);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    record_has_upstream_and_added_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(ok_record_has_null_error,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    resume_drops_torn_line_and_knows_ok_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    missing_file_is_an_empty_done_set, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    unwritable_output_names_the_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
