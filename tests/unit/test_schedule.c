/*
 * The scheduler's properties for every N from 1 to 17: each ordered pair
 * appears exactly once per kind, no self pairs, iperf3 rounds are
 * exclusive, duplex iperf3 rounds give each host one client and one
 * server test, ping rounds keep each host to `width` probes sent, and the
 * round counts are the promised ones.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "schedule.h"

/* Every ordered pair of n hosts exactly once. */
static void
assert_all_pairs_once(const struct schedule *s, size_t n)
{
	unsigned *seen = calloc(n * n + 1, sizeof *seen);
	size_t k, i;

	assert_non_null(seen);
	for (k = 0; k < s->n_rounds; k++) {
		for (i = 0; i < s->rounds[k].n_pairs; i++) {
			const struct pair *p = &s->rounds[k].pairs[i];

			assert_true(p->source < n);
			assert_true(p->target < n);
			assert_int_not_equal(p->source, p->target);
			seen[p->source * n + p->target]++;
		}
	}
	for (i = 0; i < n * n; i++) {
		if (i / n == i % n)
			assert_int_equal(seen[i], 0);
		else if (seen[i] != 1)
			fail_msg("pair %zu->%zu seen %u times", i / n, i % n,
			    seen[i]);
	}
	assert_int_equal(schedule_n_pairs(s), n < 2 ? 0 : n * (n - 1));
	free(seen);
}

/* At most width probes sent by, and width answered by, each host per round. */
static void
assert_ping_width(const struct schedule *s, size_t n, size_t width)
{
	size_t k, i, *sent = calloc(n, sizeof *sent),
	    *answered = calloc(n, sizeof *answered);

	for (k = 0; k < s->n_rounds; k++) {
		memset(sent, 0, n * sizeof *sent);
		memset(answered, 0, n * sizeof *answered);
		for (i = 0; i < s->rounds[k].n_pairs; i++) {
			sent[s->rounds[k].pairs[i].source]++;
			answered[s->rounds[k].pairs[i].target]++;
		}
		for (i = 0; i < n; i++) {
			assert_true(sent[i] <= width);
			assert_true(answered[i] <= width);
		}
	}
	free(sent);
	free(answered);
}

static void
iperf3_rounds_are_exclusive_and_complete(void **state)
{
	struct schedule *s;
	size_t n;

	for (n = 1; n <= 17; n++) {
		assert_int_equal(schedule_exclusive(n, &s), 0);
		assert_all_pairs_once(s, n);
		assert_true(schedule_is_exclusive(s));
		if (n >= 2)
			assert_int_equal(s->n_rounds,
			    n % 2 == 0 ? 2 * (n - 1) : 2 * n);
		schedule_free(s);
	}
}

static void
ping_shift_rounds_one_probe_per_host(void **state)
{
	struct schedule *s;
	size_t n;

	for (n = 1; n <= 17; n++) {
		assert_int_equal(schedule_overlap(n, 1, &s), 0);
		assert_all_pairs_once(s, n);
		assert_ping_width(s, n, 1);
		assert_int_equal(s->n_rounds, n < 2 ? 0 : n - 1);
		schedule_free(s);
	}
}

static void
ping_wide_rounds_respect_the_channel_cap(void **state)
{
	struct schedule *s;
	size_t n, width;

	for (width = 2; width <= 9; width++) {
		for (n = 1; n <= 17; n++) {
			assert_int_equal(schedule_overlap(n, width, &s), 0);
			assert_all_pairs_once(s, n);
			assert_ping_width(s, n, width);
			assert_int_equal(s->n_rounds,
			    n < 2 ? 0 : (n - 1 + width - 1) / width);
			schedule_free(s);
		}
	}
}

static void
iperf3_duplex_rounds_one_client_one_server_per_host(void **state)
{
	struct schedule *s;
	size_t n, k, i;

	for (n = 1; n <= 17; n++) {
		assert_int_equal(schedule_duplex(n, &s), 0);
		assert_all_pairs_once(s, n);
		assert_true(schedule_is_duplex(s));
		assert_int_equal(s->n_rounds, n < 2 ? 0 : n - 1);
		/* round k (1-based shift) is i -> (i + k) mod n */
		for (k = 0; k < s->n_rounds; k++) {
			assert_int_equal(s->rounds[k].n_pairs, n);
			for (i = 0; i < n; i++)
				assert_int_equal(s->rounds[k].pairs[i].target,
				    (s->rounds[k].pairs[i].source + k + 1) % n);
		}
		schedule_free(s);
	}
}

static void
duplex_check_catches_a_second_client_or_server(void **state)
{
	struct schedule *s;

	/* two shifts in a round: every host is the client of two pairs */
	assert_int_equal(schedule_overlap(5, 2, &s), 0);
	assert_false(schedule_is_duplex(s));
	schedule_free(s);
	/* one shift: legal duplex, but not exclusive */
	assert_int_equal(schedule_overlap(5, 1, &s), 0);
	assert_true(schedule_is_duplex(s));
	assert_false(schedule_is_exclusive(s));
	schedule_free(s);
	/* a server twice in a round (0->2, 1->2) is refused */
	assert_int_equal(schedule_duplex(3, &s), 0);
	s->rounds[0].pairs[1].target = 2;
	s->rounds[0].pairs[0].target = 2;
	assert_false(schedule_is_duplex(s));
	schedule_free(s);
}

static void
serial_is_one_pair_per_round_source_major(void **state)
{
	struct schedule *s;

	assert_int_equal(schedule_serial(4, &s), 0);
	assert_all_pairs_once(s, 4);
	assert_int_equal(s->n_rounds, 12);
	assert_int_equal(s->rounds[0].pairs[0].source, 0);
	assert_int_equal(s->rounds[0].pairs[0].target, 1);
	assert_int_equal(s->rounds[3].pairs[0].source, 1);
	assert_int_equal(s->rounds[3].pairs[0].target, 0);
	schedule_free(s);
}

static void
exclusivity_check_catches_a_shared_host(void **state)
{
	struct schedule *s;

	/* ping shift rounds with width 1 share hosts: i sends, i answers */
	assert_int_equal(schedule_overlap(4, 1, &s), 0);
	assert_false(schedule_is_exclusive(s));
	schedule_free(s);
	schedule_free(NULL);
}

/* A sample's sweeps: sites of sizes sizes[0..ns-1], K per host. */
static void
check_sample(const size_t *sizes, size_t ns, size_t k)
{
	size_t n = 0, g, i, j, *group, cycle, m, np, q, most = 0;
	unsigned *seen, *targeted;
	struct pair *p;
	long sweep;

	for (g = 0; g < ns; g++)
		n += sizes[g];
	group = calloc(n + 1, sizeof *group);
	seen = calloc(n * n + 1, sizeof *seen);
	targeted = calloc(n + 1, sizeof *targeted);
	assert_non_null(group);
	assert_non_null(seen);
	assert_non_null(targeted);
	for (g = 0, i = 0; g < ns; g++)
		for (j = 0; j < sizes[g]; j++)
			group[i++] = g * 7 + 3;		/* any numbers */
	for (i = 0; i < n; i++) {
		m = 0;
		for (j = 0; j < n; j++)
			m += group[j] != group[i];
		if ((m + k - 1) / k > most)
			most = (m + k - 1) / k;
	}
	cycle = schedule_sample_cycle(n, group, k);
	assert_int_equal(cycle, most > 0 ? most : 1);
	/* from any first sweep, `cycle` sweeps cover every pair */
	for (sweep = 5; sweep < 5 + (long)cycle; sweep++) {
		assert_int_equal(schedule_sample(n, group, k, sweep, &p, &np),
		    0);
		memset(targeted, 0, n * sizeof *targeted);
		for (i = 0; i < n; i++) {
			size_t inside = 0, across = 0;

			for (q = 0; q < np; q++) {
				if (p[q].source != i)
					continue;
				assert_int_not_equal(p[q].source, p[q].target);
				if (group[p[q].target] == group[i])
					inside++;
				else {
					across++;
					targeted[p[q].target]++;
				}
				seen[p[q].source * n + p[q].target]++;
			}
			m = 0;
			for (j = 0; j < n; j++)
				m += group[j] != group[i];
			/* the whole site, and K (or all) across */
			for (g = 0; g < ns && group[i] != g * 7 + 3; g++)
				;
			assert_int_equal(inside, sizes[g] - 1);
			assert_int_equal(across, k < m ? k : m);
		}
		/* each host the target of about K across (equal sites) */
		for (i = 0; i < n && ns > 1 && sizes[0] == sizes[ns - 1]; i++)
			assert_int_equal(targeted[i], k < n - sizes[0] ? k :
			    n - sizes[0]);
		free(p);
	}
	for (i = 0; i < n * n; i++)
		if (i / n != i % n && seen[i] == 0)
			fail_msg("%zu sites, K %zu: pair %zu->%zu not measured "
			    "in %zu sweeps", ns, k, i / n, i % n, cycle);
	free(group);
	free(seen);
	free(targeted);
}

static void
sample_covers_every_pair_within_its_cycle(void **state)
{
	static const size_t equal[] = { 4, 4, 4 }, unequal[] = { 1, 5, 3, 2 },
	    one[] = { 6 }, singles[] = { 1, 1, 1, 1, 1 };
	size_t k;

	for (k = 1; k <= 9; k++) {
		check_sample(equal, 3, k);
		check_sample(unequal, 4, k);
		check_sample(one, 1, k);
		check_sample(singles, 5, k);
	}
}

static void
sample_pairs_in_rounds_by_their_shape(void **state)
{
	static const size_t group[] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3 };
	const size_t n = sizeof group / sizeof *group;
	struct schedule *s;
	struct pair *p;
	size_t np, k;

	assert_int_equal(schedule_sample(n, group, 2, 1, &p, &np), 0);
	assert_int_equal(np, 3 * 3 * 2 + 2 * 1 + n * 2);
	assert_int_equal(schedule_pairs(n, p, np, SCHEDULE_EXCLUSIVE, 1, &s),
	    0);
	assert_int_equal(schedule_n_pairs(s), np);
	assert_true(schedule_is_exclusive(s));
	schedule_free(s);
	assert_int_equal(schedule_pairs(n, p, np, SCHEDULE_DUPLEX, 1, &s), 0);
	assert_int_equal(schedule_n_pairs(s), np);
	assert_true(schedule_is_duplex(s));
	schedule_free(s);
	assert_int_equal(schedule_pairs(n, p, np, SCHEDULE_OVERLAP, 256, &s),
	    0);
	assert_int_equal(s->n_rounds, 1);	/* a source's pairs at once */
	schedule_free(s);
	assert_int_equal(schedule_pairs(n, p, np, SCHEDULE_SERIAL, 1, &s), 0);
	assert_int_equal(s->n_rounds, np);
	for (k = 0; k < np; k++)
		assert_int_equal(s->rounds[k].pairs[0].source, p[k].source);
	schedule_free(s);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iperf3_rounds_are_exclusive_and_complete),
		cmocka_unit_test(ping_shift_rounds_one_probe_per_host),
		cmocka_unit_test(ping_wide_rounds_respect_the_channel_cap),
		cmocka_unit_test(iperf3_duplex_rounds_one_client_one_server_per_host),
		cmocka_unit_test(duplex_check_catches_a_second_client_or_server),
		cmocka_unit_test(serial_is_one_pair_per_round_source_major),
		cmocka_unit_test(exclusivity_check_catches_a_shared_host),
		cmocka_unit_test(sample_covers_every_pair_within_its_cycle),
		cmocka_unit_test(sample_pairs_in_rounds_by_their_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
