/*
 * The text view for real clusters: the diagnosis before the matrices;
 * microseconds as microseconds (12µs, not 0.01); columns numbered with
 * a key, so hosts whose names share their first ten characters stay
 * apart; a matrix wider than the terminal in blocks of columns, no line
 * wider than it; the marks' legend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "heatmap.h"
#include "heatmap_cell.h"
#include "diagnose.h"
#include "matrix_sites.h"
#include "heatmap_text.h"

/* The text view of the records in path (or in text), width columns. */
static char *
view(const char *path, const char *text, int width)
{
	struct matrix *hm = matrix_new();
	struct diagnosis dx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (text != NULL)
		path = temp_jsonl(text);
	assert_int_equal(matrix_read(hm, path, 0), 0);
	if (text != NULL)
		unlink(path);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(matrix_sites_group(hm, MATRIX_GROUP_AUTO, 5.0), 0);
	assert_int_equal(diagnose(hm, NULL, &dx), 0);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(heatmap_write_text(hm, &dx, -1, 0, 0, width, f), 0);
	fclose(f);
	diagnose_free(&dx);
	matrix_free(hm);
	return buf;
}

/* Columns of a line on a terminal (UTF-8). */
static size_t
columns(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

static void
test_microseconds_as_microseconds(void **state)
{
	char *text = view(fixture_path("heatmap", "microsecond-lab.jsonl"),
	    NULL, 0);

	(void)state;
	/* h1 -> h2 at 0.022 ms, h1 -> h3 at 0.012 */
	assert_non_null(strstr(text, "\n1 h1         - 22\xc2\xb5s 12\xc2\xb5s "
	    "22\xc2\xb5s\n"));
	assert_null(strstr(text, " 0.01 "));
	assert_null(strstr(text, " 0.02 "));
	free(text);
}

/* Names alike in their first ten characters: numbered columns, and the
 * key and the rows say which is which. */
static void
test_columns_numbered_with_a_key(void **state)
{
	char *text = view(NULL,
	    "{\"kind\":\"ping\",\"source\":\"clariden-ln001\",\"target\":"
	    "\"clariden-ln002\",\"ok\":true,\"metrics\":{\"avg\":0.02}}\n"
	    "{\"kind\":\"ping\",\"source\":\"clariden-ln002\",\"target\":"
	    "\"clariden-ln001\",\"ok\":true,\"metrics\":{\"avg\":0.03}}\n", 0);

	(void)state;
	assert_non_null(strstr(text, "  1 clariden-ln001  2 clariden-ln002\n"));
	assert_non_null(strstr(text, "src \\ dst           1    2\n"));
	assert_non_null(strstr(text, "\n1 clariden-ln001    - 20\xc2\xb5s\n"));
	assert_non_null(strstr(text, "\n2 clariden-ln002 30\xc2\xb5s    -\n"));
	assert_null(strstr(text, "clariden-l clariden-l"));
	free(text);
}

/* 40 hosts on an 80-column terminal: blocks of columns, every line of
 * the matrices within 80 columns, every host's row in each block. */
static void
test_wide_matrix_in_blocks(void **state)
{
	char *records = NULL, *text, *line, *nl, *matrix;
	size_t len = 0, s, t, blocks = 0;
	FILE *f = open_memstream(&records, &len);

	(void)state;
	for (s = 1; s <= 40; s++)
		for (t = 1; t <= 40; t++)
			if (s != t)
				fprintf(f, "{\"kind\":\"ping\",\"source\":"
				    "\"node%02zu\",\"target\":\"node%02zu\","
				    "\"ok\":true,\"metrics\":{\"avg\":%zu.5}}\n",
				    s, t, 10 + (s * t) % 50);
	fclose(f);
	text = view(NULL, records, 80);
	matrix = strstr(text, "\nping: avg");
	assert_non_null(matrix);
	for (line = matrix + 1; (nl = strchr(line, '\n')) != NULL;
	    line = nl + 1) {
		if (strncmp(line, "Failures", 8) == 0)
			break;
		if (strncmp(line, "columns ", 8) == 0)
			blocks++;
		if (columns(line, (size_t)(nl - line)) > 80)
			fail_msg("a line of %zu columns: %.*s",
			    columns(line, (size_t)(nl - line)),
			    (int)(nl - line), line);
	}
	assert_int_equal(blocks, 3);	/* 14 + 14 + 12 columns */
	assert_non_null(strstr(matrix, "columns 1-"));
	assert_non_null(strstr(matrix, " of 40:\n"));
	/* without a width: one block, one line per row */
	free(text);
	text = view(NULL, records, 0);
	assert_null(strstr(text, "columns 1-"));
	free(text);
	free(records);
}

/* The marks' legend, and the findings before the first matrix. */
static void
test_legend_and_findings_first(void **state)
{
	char *text = view(fixture_path("heatmap", "collect.jsonl"), NULL, 0);
	char *diag = strstr(text, "Diagnosis:"), *matrix = strstr(text,
	    "\nping: ");

	(void)state;
	assert_non_null(diag);
	assert_non_null(matrix);
	assert_true(diag < matrix);
	assert_non_null(strstr(text, "Cells: "));
	assert_non_null(strstr(text, "x failed"));
	assert_non_null(strstr(text, "? missing"));
	assert_non_null(strstr(text, "- a host against itself"));
	/* a finding: rank, severity, title, rule, evidence, try */
	assert_non_null(strstr(text, " 1. [error] "));
	assert_non_null(strstr(text, "    try: "));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_microseconds_as_microseconds),
		cmocka_unit_test(test_columns_numbered_with_a_key),
		cmocka_unit_test(test_wide_matrix_in_blocks),
		cmocka_unit_test(test_legend_and_findings_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
