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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
