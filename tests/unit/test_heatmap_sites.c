/*
 * Sites on the heatmap: average-linkage clustering on fixed matrices
 * (clear sites, a slowed link inside a site, unknown distances, the
 * threshold), and on the WAN fixtures the groups equal the sites the
 * fixtures model, with machines.json's site field and without it.
 */
#include <math.h>
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
#include "matrix_sites.h"

#define U NAN

static void
expect_groups(const double *d, size_t n, double threshold,
    const size_t *want, size_t want_n)
{
	size_t group[16], ng, i;

	assert_int_equal(matrix_sites_cluster(d, n, threshold, group, &ng), 0);
	assert_int_equal(ng, want_n);
	for (i = 0; i < n; i++)
		if (group[i] != want[i])
			fail_msg("item %zu: group %zu, expected %zu", i,
			    group[i], want[i]);
}

/* Two sites, interleaved: 0 2 4 close together, 1 3 far from them. */
static void
test_two_interleaved_sites(void **state)
{
	static const double d[] = {
		0, 40, 0.3, 41, 0.2,
		40, 0, 39, 0.4, 40,
		0.3, 39, 0, 40, 0.3,
		41, 0.4, 40, 0, 42,
		0.2, 40, 0.3, 42, 0,
	};
	static const size_t want[] = { 0, 1, 0, 1, 0 };

	(void)state;
	expect_groups(d, 5, 5, want, 2);
}

/*
 * One slowed link inside a site (0 -> 2 at 8 ms) does not split it: on
 * average 2 is 4.15 ms from {0, 1}. Single linkage would keep it; complete
 * linkage would split it off.
 */
static void
test_slowed_link_stays_in_its_site(void **state)
{
	static const double d[] = {
		0, 0.3, 8, 50,
		0.3, 0, 0.3, 50,
		8, 0.3, 0, 50,
		50, 50, 50, 0,
	};
	static const size_t want[] = { 0, 0, 0, 1 };

	(void)state;
	expect_groups(d, 4, 5, want, 2);
}

/*
 * Only one direction measured is enough (0 -> 1); both are averaged
 * (2 <-> 3: 4 and 7, 5.5 > 5); clusters with no known distance between
 * them never merge.
 */
static void
test_unknown_and_one_way_distances(void **state)
{
	static const double d[] = {
		0, 1, U, U,
		U, 0, U, U,
		U, U, 0, 4,
		U, U, 7, 0,
	};
	static const size_t want[] = { 0, 0, 1, 2 };
	static const size_t want6[] = { 0, 0, 1, 1 };

	(void)state;
	expect_groups(d, 4, 5, want, 3);
	expect_groups(d, 4, 6, want6, 2);
}

/* The threshold decides: 40 ms apart is one site at 50, two at 5. */
static void
test_threshold(void **state)
{
	static const double d[] = {
		0, 40, 40,
		40, 0, 0.5,
		40, 0.5, 0,
	};
	static const size_t two[] = { 0, 1, 1 }, one[] = { 0, 0, 0 };

	(void)state;
	expect_groups(d, 3, 5, two, 2);
	expect_groups(d, 3, 50, one, 1);
	assert_int_equal(matrix_sites_cluster(d, 0, 5, NULL, (size_t[]){ 7 }), 0);
}

/* The WAN fixture's sites: zrh n1 n5 n9, fra n2 n4 n7, iad n3 n6 n8. */
static const char *const wan_site[] = {
	"n1", "zrh", "n2", "fra", "n3", "iad", "n4", "fra", "n5", "zrh",
	"n6", "iad", "n7", "fra", "n8", "iad", "n9", "zrh", NULL
};

static const char *
site_of(const char *host)
{
	size_t i;

	for (i = 0; wan_site[i] != NULL; i += 2)
		if (strcmp(wan_site[i], host) == 0)
			return wan_site[i + 1];
	return NULL;
}

static struct matrix *
wan_load(const char *run, enum matrix_sites_group_by by)
{
	struct matrix *hm = matrix_new();

	assert_int_equal(matrix_read(hm, fixture_path("wan", "collect.jsonl"),
	    0), 0);
	assert_int_equal(matrix_read(hm, fixture_path("wan",
	    "measurements.jsonl"), 0), 0);
	assert_int_equal(matrix_read(hm, fixture_path("wan", run), 0), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(matrix_sites_group(hm, by, MATRIX_GROUP_RTT_MS), 0);
	return hm;
}

/* Hosts of one group are one site, and each site is one group. */
static void
expect_sites(const struct matrix *hm)
{
	size_t i, j;

	assert_int_equal(hm->ngroups, 3);
	for (i = 0; i < hm->nhosts; i++) {
		if (i > 0)	/* a group's hosts are next to each other */
			assert_true(hm->host_group[i] >= hm->host_group[i - 1]);
		for (j = 0; j < hm->nhosts; j++)
			assert_int_equal(hm->host_group[i] == hm->host_group[j],
			    strcmp(site_of(hm->hosts[i]),
			    site_of(hm->hosts[j])) == 0);
	}
}

static void
test_wan_sites_from_run_json(void **state)
{
	struct matrix *hm = wan_load("run-sites.json", MATRIX_GROUP_AUTO);
	size_t i;

	(void)state;
	assert_string_equal(hm->group_by, "site");
	expect_sites(hm);
	assert_string_equal(hm->groups[0], "fra");
	assert_string_equal(hm->groups[2], "zrh");
	for (i = 0; i < hm->nhosts; i++)
		assert_string_equal(hm->groups[hm->host_group[i]],
		    site_of(hm->hosts[i]));
	matrix_free(hm);
}

static void
test_wan_sites_found_without_the_field(void **state)
{
	struct matrix *hm = wan_load("run.json", MATRIX_GROUP_AUTO);

	(void)state;
	assert_string_equal(hm->group_by, "rtt");
	assert_string_equal(hm->group_basis, "ping avg");
	expect_sites(hm);
	matrix_free(hm);
	/* the sites are there, but rtt is asked for: clusters, the same */
	hm = wan_load("run-sites.json", MATRIX_GROUP_RTT);
	assert_string_equal(hm->group_by, "rtt");
	expect_sites(hm);
	matrix_free(hm);
}

/* The slowed link n4 <-> n8 is the worst pair of fra -> iad. */
static void
test_site_summary_worst_pair(void **state)
{
	struct matrix *hm = wan_load("run-sites.json", MATRIX_GROUP_SITE);
	const struct matrix_kind *k = matrix_find_kind(hm, "ping");
	struct site_cell *sc;
	const struct site_cell *c;

	(void)state;
	assert_int_equal(matrix_sites_summary(hm, k, k->default_metric, &sc),
	    0);
	c = &sc[0 * 3 + 1];	/* fra -> iad */
	assert_string_equal(hm->hosts[c->worst_src], "n4");
	assert_string_equal(hm->hosts[c->worst_tgt], "n8");
	assert_int_equal(c->npairs, 9);
	assert_int_equal(c->nvalues, 9);
	assert_true(c->median > 85 && c->median < 95);
	assert_true(c->worst > 140);
	assert_int_equal(sc[0].npairs, 6);	/* fra -> fra, no self pair */
	free(sc);
	matrix_free(hm);
}

/* None keeps the natural order and no groups. */
static void
test_group_none(void **state)
{
	struct matrix *hm = wan_load("run-sites.json", MATRIX_GROUP_NONE);

	(void)state;
	assert_string_equal(hm->group_by, "none");
	assert_int_equal(hm->ngroups, 0);
	assert_string_equal(hm->hosts[1], "n2");
	matrix_free(hm);
}

/*
 * One switch: every host in one cluster says nothing, and is not shown as
 * a site unless asked for.
 */
static void
test_one_cluster_is_no_grouping_unless_asked(void **state)
{
	struct matrix *hm;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		hm = matrix_new();
		assert_int_equal(matrix_read(hm, fixture_path("heatmap",
		    "microsecond-lab.jsonl"), 0), 0);
		assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
		assert_int_equal(matrix_sites_group(hm, i ? MATRIX_GROUP_RTT :
		    MATRIX_GROUP_AUTO, MATRIX_GROUP_RTT_MS), 0);
		assert_string_equal(hm->group_by, i ? "rtt" : "none");
		assert_int_equal(hm->ngroups, i ? 1 : 0);
		matrix_free(hm);
	}
}

/*
 * Upstream's files: collect's hosts (a, b, bc) have ping, bench's (h1..h4)
 * libp2p_ping only; each pair's RTT is the one it has.
 */
static void
test_upstream_files_ping_else_libp2p_ping(void **state)
{
	static const char *const files[][2] = {
		{ "upstream", "collect.jsonl" },
		{ "upstream", "bench-4/measurements.jsonl" },
		{ "upstream", "bench-4/run.json" },
	};
	struct matrix *hm = matrix_new();
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(matrix_read(hm, fixture_path(files[i][0],
		    files[i][1]), 0), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(matrix_sites_group(hm, MATRIX_GROUP_AUTO,
	    MATRIX_GROUP_RTT_MS), 0);
	assert_string_equal(hm->group_basis,
	    "ping avg (else libp2p_ping p50_ms)");
	assert_int_equal(hm->ngroups, 2);
	for (i = 0; i < hm->nhosts; i++)
		assert_int_equal(hm->host_group[i], hm->hosts[i][0] == 'h');
	matrix_free(hm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_interleaved_sites),
		cmocka_unit_test(test_slowed_link_stays_in_its_site),
		cmocka_unit_test(test_unknown_and_one_way_distances),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_wan_sites_from_run_json),
		cmocka_unit_test(test_wan_sites_found_without_the_field),
		cmocka_unit_test(test_site_summary_worst_pair),
		cmocka_unit_test(test_group_none),
		cmocka_unit_test(test_one_cluster_is_no_grouping_unless_asked),
		cmocka_unit_test(test_upstream_files_ping_else_libp2p_ping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
