/*
 * The pair dispatcher: how each way of sharing the hosts bounds what runs
 * at once (each way, both ways, exclusive, duplex in round order), that a
 * stage waits for the one before it, serial runs one task in order, a
 * requeued task runs again, a skipped one never, a task that ends while it
 * starts lets the pass go on, observers see every start and end, a stopped
 * dispatcher ends once nothing runs, and the end is said once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "dispatch.h"
#include "schedule.h"

#define MAX_HOSTS 12
#define MAX_TASKS 512

struct sim {
	struct dispatch *d;
	size_t as_src[MAX_HOSTS], as_dst[MAX_HOSTS];
	size_t peak_src, peak_dst, peak_both, peak_running, running;
	int shared;		/* a host in two tasks at once */
	size_t started[MAX_TASKS], n_started;
	size_t ended;		/* ended() calls */
	size_t began[4], stage_ends[4];
	int end_at_start;	/* start ends the task at once (fails) */
	int hold_stage;		/* stage_ended says wait, once */
	size_t observed_starts, observed_ends;
	size_t last_stage_started;
};

static size_t
index_of(struct sim *s, struct dispatch_task *t)
{
	return (size_t)(t - dispatch_task_at(s->d, 0));
}

static void
start_cb(struct dispatch *d, struct dispatch_task *t)
{
	struct sim *s = dispatch_arg(d);

	if (s->as_src[t->src] + s->as_dst[t->src] > 0 ||
	    s->as_src[t->dst] + s->as_dst[t->dst] > 0)
		s->shared = 1;
	s->as_src[t->src]++;
	s->as_dst[t->dst]++;
	s->running++;
	if (s->as_src[t->src] > s->peak_src)
		s->peak_src = s->as_src[t->src];
	if (s->as_dst[t->dst] > s->peak_dst)
		s->peak_dst = s->as_dst[t->dst];
	if (s->as_src[t->src] + s->as_dst[t->src] > s->peak_both)
		s->peak_both = s->as_src[t->src] + s->as_dst[t->src];
	if (s->running > s->peak_running)
		s->peak_running = s->running;
	s->started[s->n_started++] = index_of(s, t);
	s->last_stage_started = t->stage;
	if (s->end_at_start) {
		s->as_src[t->src]--;
		s->as_dst[t->dst]--;
		s->running--;
		dispatch_task_end(d, t);
		dispatch_run(d);	/* from inside: the pass goes round */
	}
}

static void
stage_began_cb(struct dispatch *d, size_t stage)
{
	struct sim *s = dispatch_arg(d);

	s->began[stage]++;
}

static int
stage_ended_cb(struct dispatch *d, size_t stage)
{
	struct sim *s = dispatch_arg(d);

	s->stage_ends[stage]++;
	if (s->hold_stage) {
		s->hold_stage = 0;
		return 0;
	}
	return 1;
}

static void
ended_cb(struct dispatch *d)
{
	struct sim *s = dispatch_arg(d);

	s->ended++;
}

static void
observed_start(void *arg, const struct dispatch_task *t)
{
	((struct sim *)arg)->observed_starts++;
}

static void
observed_end(void *arg, const struct dispatch_task *t)
{
	((struct sim *)arg)->observed_ends++;
}

/* End the running task i, then let the dispatcher go on. */
static void
end_task(struct sim *s, size_t i)
{
	struct dispatch_task *t = dispatch_task_at(s->d, i);

	assert_int_equal(t->state, DISPATCH_RUNNING);
	s->as_src[t->src]--;
	s->as_dst[t->dst]--;
	s->running--;
	dispatch_task_end(s->d, t);
	dispatch_run(s->d);
}

/* End running tasks, oldest first, until nothing runs or is left. */
static void
drain(struct sim *s)
{
	size_t k = 0, i, n = dispatch_n_tasks(s->d);

	while (s->ended == 0 && k < 100000) {
		for (i = 0; i < n; i++)
			if (dispatch_task_at(s->d, i)->state ==
			    DISPATCH_RUNNING) {
				end_task(s, i);
				break;
			}
		assert_true(i < n || s->ended > 0);
		k++;
	}
}

/* A dispatcher over sched's pairs, one stage sharing the hosts so. */
static void
sim_new(struct sim *s, size_t n_hosts, const struct schedule *sched,
    const struct dispatch_stage *stages, size_t n_stages)
{
	static const struct dispatch_hooks hooks = { .start = start_cb,
	    .stage_began = stage_began_cb, .stage_ended = stage_ended_cb,
	    .ended = ended_cb };
	struct dispatch_hooks h = hooks;
	struct dispatch_observer obs = { observed_start, observed_end, s };
	size_t k, p, st;

	memset(s, 0, sizeof *s);
	h.arg = s;
	assert_int_equal(dispatch_new(n_hosts, schedule_n_pairs(sched) *
	    n_stages, stages, n_stages, &h, &s->d), 0);
	dispatch_observe(s->d, &obs);
	for (st = 0; st < n_stages; st++)
		for (k = 0; k < sched->n_rounds; k++)
			for (p = 0; p < sched->rounds[k].n_pairs; p++)
				assert_non_null(dispatch_add(s->d,
				    sched->rounds[k].pairs[p].source,
				    sched->rounds[k].pairs[p].target, st, k,
				    NULL));
}

static void
each_way_keeps_the_budget(void **state)
{
	struct dispatch_stage st = { DISPATCH_EACH_WAY, 3 };
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_overlap(9, 8, &sched), 0);
	sim_new(&s, 9, sched, &st, 1);
	dispatch_run(s.d);
	assert_int_equal(s.peak_src, 3);
	assert_int_equal(s.peak_dst, 3);
	drain(&s);
	assert_int_equal(s.n_started, 72);
	assert_int_equal(s.ended, 1);
	assert_int_equal(s.began[0], 1);
	assert_int_equal(s.stage_ends[0], 1);
	assert_int_equal(s.observed_starts, 72);
	assert_int_equal(s.observed_ends, 72);
	dispatch_free(s.d);
	schedule_free(sched);
}

static void
both_ways_counts_source_and_target_together(void **state)
{
	struct dispatch_stage st = { DISPATCH_BOTH_WAYS, 2 };
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_overlap(6, 5, &sched), 0);
	sim_new(&s, 6, sched, &st, 1);
	dispatch_run(s.d);
	assert_int_equal(s.peak_both, 2);
	drain(&s);
	assert_int_equal(s.n_started, 30);
	assert_int_equal(s.ended, 1);
	dispatch_free(s.d);
	schedule_free(sched);
}

static void
exclusive_never_shares_a_host(void **state)
{
	struct dispatch_stage st = { DISPATCH_EXCLUSIVE, 0 };
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_exclusive(7, &sched), 0);
	sim_new(&s, 7, sched, &st, 1);
	dispatch_run(s.d);
	assert_int_equal(s.peak_running, 3);	/* a matching of 7: 3 pairs */
	drain(&s);
	assert_false(s.shared);
	assert_int_equal(s.n_started, 42);
	dispatch_free(s.d);
	schedule_free(sched);
}

/* Duplex: one client and one server per host, each side in round order. */
static void
duplex_takes_rounds_in_order(void **state)
{
	struct dispatch_stage st = { DISPATCH_DUPLEX, 0 };
	size_t last_src[5] = { 0 }, last_dst[5] = { 0 }, i;
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_duplex(5, &sched), 0);
	sim_new(&s, 5, sched, &st, 1);
	dispatch_run(s.d);
	assert_int_equal(s.n_started, 5);	/* all of round 1 */
	end_task(&s, 0);	/* 0->1 ends: 0->2 of round 2 waits for 1->2
				   (2 serves one test at a time) */
	assert_int_equal(s.n_started, 5);
	end_task(&s, 4);	/* 4->0 ends: 4->1 of round 2, both free */
	assert_int_equal(s.n_started, 6);
	assert_int_equal(s.started[5], 9);
	drain(&s);
	assert_int_equal(s.peak_src, 1);
	assert_int_equal(s.peak_dst, 1);
	for (i = 0; i < s.n_started; i++) {	/* each host's in order */
		const struct dispatch_task *t = dispatch_task_at(s.d,
		    s.started[i]);

		assert_true(t->round >= last_src[t->src]);
		assert_true(t->round >= last_dst[t->dst]);
		last_src[t->src] = t->round;
		last_dst[t->dst] = t->round;
	}
	dispatch_free(s.d);
	schedule_free(sched);
}

static void
a_stage_waits_for_the_one_before(void **state)
{
	struct dispatch_stage st[2] = { { DISPATCH_EACH_WAY, 8 },
	    { DISPATCH_EXCLUSIVE, 0 } };
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_overlap(4, 3, &sched), 0);
	sim_new(&s, 4, sched, st, 2);
	s.hold_stage = 1;
	dispatch_run(s.d);
	assert_int_equal(s.n_started, 12);	/* stage 0 only */
	assert_int_equal(s.began[1], 0);
	while (dispatch_running(s.d) > 0)
		end_task(&s, s.started[12 - dispatch_running(s.d)]);
	/* stage 0 over, but its end held (servers to stop) */
	assert_int_equal(s.stage_ends[0], 1);
	assert_int_equal(s.began[1], 0);
	assert_int_equal(s.n_started, 12);
	dispatch_run(s.d);	/* the client is ready */
	assert_int_equal(s.began[1], 1);
	assert_int_equal(s.last_stage_started, 1);
	drain(&s);
	assert_int_equal(s.n_started, 24);
	assert_int_equal(s.ended, 1);
	dispatch_free(s.d);
	schedule_free(sched);
}

static void
serial_runs_one_in_order(void **state)
{
	struct dispatch_stage st = { DISPATCH_EACH_WAY, 8 };
	struct schedule *sched;
	struct sim s;
	size_t i;

	(void)state;
	assert_int_equal(schedule_serial(4, &sched), 0);
	sim_new(&s, 4, sched, &st, 1);
	dispatch_set_serial(s.d, 1);
	dispatch_run(s.d);
	drain(&s);
	assert_int_equal(s.peak_running, 1);
	for (i = 0; i < s.n_started; i++)
		assert_int_equal(s.started[i], i);
	dispatch_free(s.d);
	schedule_free(sched);
}

static void
requeued_runs_again_skipped_never(void **state)
{
	struct dispatch_stage st = { DISPATCH_EXCLUSIVE, 0 };
	struct schedule *sched;
	struct dispatch_task *t;
	struct sim s;
	size_t i, again = 0;

	(void)state;
	assert_int_equal(schedule_exclusive(4, &sched), 0);
	sim_new(&s, 4, sched, &st, 1);
	dispatch_skip(s.d, dispatch_task_at(s.d, 3));
	dispatch_run(s.d);
	t = dispatch_task_at(s.d, s.started[0]);
	s.as_src[t->src]--;
	s.as_dst[t->dst]--;
	s.running--;
	dispatch_task_requeue(s.d, t);
	assert_int_equal(t->state, DISPATCH_WAITING);
	dispatch_run(s.d);
	drain(&s);
	for (i = 0; i < s.n_started; i++) {
		assert_int_not_equal(s.started[i], 3);
		again += s.started[i] == s.started[0];
	}
	assert_int_equal(again, 2);
	assert_int_equal(s.n_started, 12);	/* 11 tasks, one twice */
	dispatch_free(s.d);
	schedule_free(sched);
}

/* A task that fails as it starts ends inside the pass: the rest go on. */
static void
ended_while_starting_goes_on(void **state)
{
	struct dispatch_stage st = { DISPATCH_EXCLUSIVE, 0 };
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_exclusive(6, &sched), 0);
	sim_new(&s, 6, sched, &st, 1);
	s.end_at_start = 1;
	dispatch_run(s.d);
	assert_int_equal(s.n_started, 30);
	assert_int_equal(s.ended, 1);
	dispatch_free(s.d);
	schedule_free(sched);
}

static void
stopped_ends_when_nothing_runs(void **state)
{
	struct dispatch_stage st = { DISPATCH_EACH_WAY, 2 };
	struct schedule *sched;
	struct sim s;

	(void)state;
	assert_int_equal(schedule_overlap(5, 4, &sched), 0);
	sim_new(&s, 5, sched, &st, 1);
	dispatch_run(s.d);
	assert_int_equal(s.n_started, 10);
	dispatch_stop(s.d);
	dispatch_run(s.d);
	assert_int_equal(s.ended, 0);	/* ten still run */
	drain(&s);
	assert_int_equal(s.n_started, 10);	/* none started after */
	assert_int_equal(s.ended, 1);
	dispatch_run(s.d);
	assert_int_equal(s.ended, 1);	/* said once */
	dispatch_free(s.d);
	schedule_free(sched);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_way_keeps_the_budget),
		cmocka_unit_test(both_ways_counts_source_and_target_together),
		cmocka_unit_test(exclusive_never_shares_a_host),
		cmocka_unit_test(duplex_takes_rounds_in_order),
		cmocka_unit_test(a_stage_waits_for_the_one_before),
		cmocka_unit_test(serial_runs_one_in_order),
		cmocka_unit_test(requeued_runs_again_skipped_never),
		cmocka_unit_test(ended_while_starting_goes_on),
		cmocka_unit_test(stopped_ends_when_nothing_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
