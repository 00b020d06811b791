/*
 * The heatmap's path view (matrix_path.c): each pair's class from its
 * libp2p_ping record (else another kind's), what it got, and a relayed
 * pair's two legs through its relay summed, a leg taken either way it
 * was measured; no view where no record says its path.
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

#include "heatmap.h"
#include "heatmap_cell.h"

#define REC(kind, src, tgt, ms, rest) \
	"{\"kind\":\"" kind "\",\"source\":\"" src "\",\"target\":\"" tgt \
	"\",\"ok\":true,\"metrics\":{\"p50_ms\":" ms ",\"mbps\":" ms "}" \
	rest "}\n"
#define DIRECT ",\"path\":\"direct\""
#define RELAYED(r) ",\"path\":\"relayed\",\"relay\":\"" r "\""

static struct matrix *
build(const char *text)
{
	struct matrix *hm = matrix_new();
	const char *path;

	assert_non_null(hm);
	path = temp_jsonl(text);
	assert_int_equal(matrix_read(hm, path, 0), 0);
	unlink(path);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	return hm;
}

static double
path_value(struct matrix *hm, const char *src, const char *tgt, const char *m)
{
	const struct matrix_kind *k = matrix_find_kind(hm, "path");
	size_t i, s = 0, t = 0;
	int mi;

	assert_non_null(k);
	assert_true(k->derived);
	for (i = 0; i < hm->nhosts; i++) {
		if (strcmp(hm->hosts[i], src) == 0)
			s = i;
		if (strcmp(hm->hosts[i], tgt) == 0)
			t = i;
	}
	assert_true((mi = matrix_find_metric(k, m)) >= 0);
	if (matrix_cell_at(hm, k, s, t)->state != CELL_VALUE)
		return -1;
	return matrix_cell_at(hm, k, s, t)->values[mi];
}

static void
test_classes_and_legs(void **state)
{
	struct matrix *hm = build(
	    REC("libp2p_ping", "a", "b", "80", RELAYED("relay"))
	    REC("libp2p_ping", "a", "relay", "30", DIRECT)
	    /* b's leg measured the other way: relay -> b */
	    REC("libp2p_ping", "relay", "b", "45", DIRECT)
	    REC("libp2p_ping", "b", "a", "5", DIRECT)
	    /* a relayed pair whose relay has no leg measured */
	    REC("libp2p_ping", "a", "c", "90", RELAYED("elsewhere"))
	    /* no libp2p_ping: the class from another kind */
	    REC("throughput", "c", "a", "7", ",\"path\":\"hole-punched\""));

	(void)state;
	assert_true(path_value(hm, "a", "b", "class") == 3);
	assert_true(path_value(hm, "a", "b", "got_ms") == 80);
	assert_true(path_value(hm, "a", "b", "two_legs_ms") == 75);
	assert_true(path_value(hm, "b", "a", "class") == 1);
	assert_true(isnan(path_value(hm, "b", "a", "two_legs_ms")));
	assert_true(path_value(hm, "a", "c", "class") == 3);
	assert_true(isnan(path_value(hm, "a", "c", "two_legs_ms")));
	assert_true(path_value(hm, "c", "a", "class") == 2);
	assert_true(isnan(path_value(hm, "c", "a", "got_ms")));
	assert_true(path_value(hm, "b", "c", "class") == -1);	/* no record */
	matrix_free(hm);
}

static void
test_no_view_without_paths(void **state)
{
	struct matrix *hm = build(REC("libp2p_ping", "a", "b", "1", "")
	    REC("libp2p_ping", "b", "a", "1", ""));

	(void)state;
	assert_null(matrix_find_kind(hm, "path"));
	matrix_free(hm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_and_legs),
		cmocka_unit_test(test_no_view_without_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
