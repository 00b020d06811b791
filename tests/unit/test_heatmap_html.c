/*
 * The heatmap page's escaping and structure: HTML text and attribute
 * escaping, JSON strings safe inside <script>, a hostile input file whose
 * names and errors must stay text, the N x N server-rendered matrix, and
 * the absence of any URL in the page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "heatmap.h"
#include "diagnose.h"
#include "heatmap_html.h"
#include "heatmap_text.h"


static char *
escaped(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, s);
	fclose(f);
	return buf;
}

/* The page (or with text set, the text view) for the given fixtures. */
static char *
render(const char *const *names, int text)
{
	struct html_options opt = { "t", 0, 0, 0, NULL };
	struct matrix *hm = matrix_new();
	struct diagnosis dx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (; *names != NULL; names++)
		assert_int_equal(matrix_read(hm, fixture_path("heatmap", *names), 0), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(diagnose(hm, NULL, &dx), 0);
	opt.metric = hm->kinds[0].default_metric;
	assert_non_null(f = open_memstream(&buf, &len));
	if (text)
		assert_int_equal(heatmap_write_text(hm, &dx, -1, 0, 0, 0, f), 0);
	else
		assert_int_equal(heatmap_write_html(hm, &dx, &opt, f), 0);
	fclose(f);
	diagnose_free(&dx);
	matrix_free(hm);
	return buf;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

static void
test_html_escape(void **state)
{
	char *s = escaped(heatmap_html_escape, "<script>alert(1)</script> & \"'");

	(void)state;
	assert_string_equal(s, "&lt;script&gt;alert(1)&lt;&#47;script&gt; "
	    "&amp; &quot;&#39;");
	free(s);
}

static void
test_json_escape_is_safe_in_script(void **state)
{
	char *s = escaped(heatmap_json_escape, "</script><!--\n\"\\<b>");

	(void)state;
	assert_string_equal(s, "\"<\\/script>\\u003c!--\\u000a\\\"\\\\"
	    "\\u003cb>\"");
	free(s);
}

static void
test_hostile_input_stays_text(void **state)
{
	static const char *const names[] = { "hostile.jsonl", NULL };
	char *page = render(names, 0);

	(void)state;
	/* Two script elements: the data and the page's own code. */
	assert_int_equal(count(page, "<script"), 2);
	assert_int_equal(count(page, "</script>"), 2);
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<!--"));
	assert_non_null(strstr(page,
	    "<th scope=col>&lt;script&gt;alert(1)&lt;&#47;script&gt;</th>"));
	assert_non_null(strstr(page,
	    "\"\\u003cscript>alert(1)<\\/script>\""));
	free(page);
}

static void
test_matrix_is_n_by_n_with_marks(void **state)
{
	static const char *const names[] = { "collect.jsonl",
	    "measurements.jsonl", "run.json", NULL };
	char *page = render(names, 0), *tbody, *end;
	size_t cells;

	(void)state;
	tbody = strstr(page, "<tbody>");
	assert_non_null(tbody);
	end = strstr(tbody, "</tbody>");
	*end = '\0';
	cells = count(tbody, "<td ");
	assert_int_equal(cells, 16);
	assert_int_equal(count(tbody, "<td class=s>"), 4);
	assert_int_equal(count(tbody, "<td class=f>"), 1);	/* delta->alpha */
	assert_int_equal(count(tbody, "<td class=\"v q"), 11);
	assert_non_null(strstr(page, ".q0{background:#1a9850}"));
	assert_non_null(strstr(page, ".q20{background:#d73027}"));
	*end = '<';
	assert_non_null(strstr(page, "data-rule=relay_reservation"));
	assert_non_null(strstr(page, "<table class=list id=failures-table>"));
	free(page);
}

static void
test_page_has_no_url(void **state)
{
	static const char *const names[] = { "collect.jsonl",
	    "measurements.jsonl", "run.json", "hostile.jsonl", NULL };
	char *page = render(names, 0);

	(void)state;
	assert_null(strstr(page, "//"));
	assert_null(strstr(page, "http:"));
	assert_null(strstr(page, "https:"));
	assert_null(strstr(page, "@import"));
	assert_int_equal(count(page, "url("), count(page, "url(#"));
	free(page);
}

static void
test_text_view_marks(void **state)
{
	static const char *const names[] = { "upstream-form-collect.jsonl", NULL };
	char *text = render(names, 1);

	(void)state;
	assert_non_null(strstr(text, "ping: avg (ms), lower is better"));
	assert_non_null(strstr(text, "3 n10         x 800\xc2\xb5s     -\n"));
	assert_null(strstr(text, "\033["));	/* no colour asked for */
	assert_non_null(strstr(text, "n10 -> n1  ping  1/1  timeout:"));
	free(text);
}

static void
test_format_value(void **state)
{
	char buf[32];

	(void)state;
	heatmap_format_value(0.123456, buf, sizeof buf);
	assert_string_equal(buf, "0.12");
	heatmap_format_value(12.345, buf, sizeof buf);
	assert_string_equal(buf, "12.3");
	heatmap_format_value(940.4, buf, sizeof buf);
	assert_string_equal(buf, "940");
	heatmap_format_value(3, buf, sizeof buf);
	assert_string_equal(buf, "3");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_json_escape_is_safe_in_script),
		cmocka_unit_test(test_hostile_input_stays_text),
		cmocka_unit_test(test_matrix_is_n_by_n_with_marks),
		cmocka_unit_test(test_page_has_no_url),
		cmocka_unit_test(test_text_view_marks),
		cmocka_unit_test(test_format_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
