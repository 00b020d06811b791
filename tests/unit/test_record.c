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
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "json_sort.h"
#include "record.h"
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
	struct record_out rec = {
		.kind = kind, .source = src, .target = dst,
		.target_address = "198.18.0.2", .ok = ok,
		.started_at = 1796028911.4171, .ended_at = 1796028912.5,
		.round = 3, .command = "LC_ALL=C ping -c 5 198.18.0.2",
		.mode = strcmp(kind, "iperf3") == 0 ? "duplex" : NULL,
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
		cmocka_unit_test_setup_teardown(
		    resume_drops_torn_line_and_knows_ok_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    missing_file_is_an_empty_done_set, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    unwritable_output_names_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    resume_refuses_a_file_that_is_not_jsonl, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
