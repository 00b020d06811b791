/*
 * Progress lines: rounds that finish out of order are reported in round
 * order (the lines count up), round numbers appear only where rounds are
 * real, a fan-out sweep reports probes done/total and failed instead, and
 * the ETA comes from the schedule (rounds left times a round's duration).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

/* What p wrote to f so far (a new string). */
static char *
written(FILE *f)
{
	long n = ftell(f);
	char *s = calloc((size_t)n + 1, 1);

	assert_non_null(s);
	rewind(f);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	return s;
}

static void
rounds_are_reported_in_order(void **state)
{
	FILE *f = tmpfile();
	struct progress *p = progress_new(f, 0);
	char *out, *r1, *r2, *r3;

	progress_phase(p, "iperf3", 3, 3);
	progress_schedule(p, 2.0, 1);
	progress_probe(p, 1);
	progress_round(p, 3);		/* the last round ends first */
	out = written(f);
	assert_null(strstr(out, "round 3/3"));
	free(out);
	progress_probe(p, 0);
	progress_round(p, 1);
	progress_probe(p, 1);
	progress_round(p, 2);
	out = written(f);
	r1 = strstr(out, "round 1/3 done");
	r2 = strstr(out, "round 2/3 done");
	r3 = strstr(out, "round 3/3 done");
	assert_non_null(r1);
	assert_non_null(r2);
	assert_non_null(r3);
	assert_true(r1 < r2 && r2 < r3);
	assert_non_null(strstr(r3, "probes 3/3, failed 1"));
	free(out);
	progress_free(p);
	fclose(f);
}

static void
fanout_sweep_shows_probes_not_rounds(void **state)
{
	FILE *f = tmpfile();
	struct progress *p = progress_new(f, 0);
	char *out;
	int i;

	progress_phase(p, "ping", 1, 20);
	progress_schedule(p, 4.0, 0);
	for (i = 0; i < 20; i++)
		progress_probe(p, i != 7);
	progress_round(p, 1);
	out = written(f);
	assert_null(strstr(out, "round"));
	assert_non_null(strstr(out, "ping: probes 2/20, failed 0"));
	assert_non_null(strstr(out, "ping: probes 20/20, failed 1"));
	free(out);
	progress_free(p);
	fclose(f);
}

static void
eta_comes_from_the_schedule(void **state)
{
	FILE *f = tmpfile();
	struct progress *p = progress_new(f, 1);
	double eta;

	progress_phase(p, "iperf3", 3, 30);
	progress_schedule(p, 4.0, 1);
	eta = progress_eta(p);
	assert_true(eta > 11.5 && eta <= 12.0);
	progress_round(p, 2);		/* out of order: nothing gained yet */
	assert_true(progress_eta(p) > 11.5);
	progress_round(p, 1);		/* two rounds behind us */
	eta = progress_eta(p);
	assert_true(eta > 3.5 && eta <= 4.0);
	progress_free(p);
	progress_free(NULL);
	fclose(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rounds_are_reported_in_order),
		cmocka_unit_test(fanout_sweep_shows_probes_not_rounds),
		cmocka_unit_test(eta_comes_from_the_schedule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
