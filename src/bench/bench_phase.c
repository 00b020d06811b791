/*
 * The phases of a bench run, as one table (OpenSSH's channel_pre[] and
 * channel_post[]): per phase its name, whom it is for (every live host,
 * or every ordered pair), whether this run has it, and how one host or
 * one pair starts it. bench_run.c walks the table in its order; the
 * starters name the files that do the work, in the order a host meets
 * them: bench_deploy.c, bench_host.c, bench_sweep.c, bench_teardown.c.
 * The rows look alike on purpose (a copy finder pairs them): they are data,
 * one phase each.
 */
#include "bench.h"
#include "bench_teardown.h"

static int
runs_deploy(const struct bench *b)
{
	return b->o->otela_bin != NULL;
}

static int
runs_punch(const struct bench *b)
{
	return !b->o->no_punch;
}

static int
runs_baseline(const struct bench *b)
{
	return b->o->baseline;
}

/* --keep leaves the mesh running, unless the run was interrupted. */
static int
runs_teardown(const struct bench *b)
{
	return !b->o->keep || b->interrupted;
}

#define HOST BENCH_SCOPE_HOST
#define PAIR BENCH_SCOPE_PAIR
#define UPSTREAM BENCH_PHASE_UPSTREAM
#define LOCAL BENCH_PHASE_LOCAL
#define CLEANUP BENCH_PHASE_CLEANUP
#define NODE BENCH_PHASE_NODE
#define BESIDE BENCH_PHASE_BESIDE

const struct bench_phase_spec bench_phases[BENCH_N_PHASES] = {
	/* name, scope, runs; host_start, pair_start, flags */
	[BENCH_DEPLOY] = { "deploy", HOST, runs_deploy,
	    bench_deploy_host, NULL, 0 },
	[BENCH_INIT] = { "init", HOST, NULL,
	    bench_host_init, NULL, UPSTREAM },
	[BENCH_DISCOVER] = { "discover", HOST, NULL,
	    bench_host_discover, NULL, UPSTREAM },
	[BENCH_CONFIGURE] = { "configure", HOST, NULL,
	    bench_host_configure, NULL, UPSTREAM | LOCAL },
	[BENCH_PUSH] = { "push", HOST, NULL,
	    bench_host_push, NULL, 0 },
	[BENCH_START] = { "start", HOST, NULL,
	    bench_host_start_node, NULL, UPSTREAM | NODE },
	[BENCH_CONVERGE] = { "converge", HOST, NULL,
	    bench_host_converge, NULL, UPSTREAM | NODE },
	[BENCH_PUNCH] = { "punch", PAIR, runs_punch,
	    NULL, bench_sweep_punch, UPSTREAM | NODE },
	[BENCH_PATH] = { "path", HOST, NULL,
	    bench_path_host, NULL, NODE },
	[BENCH_SWEEP] = { "sweep", PAIR, NULL,
	    NULL, bench_sweep_probe, UPSTREAM | NODE },
	[BENCH_BASELINE] = { "baseline", PAIR, runs_baseline,
	    NULL, bench_sweep_ping, BESIDE },
	[BENCH_TEARDOWN] = { "teardown", HOST, runs_teardown,
	    bench_teardown_host, NULL, UPSTREAM | CLEANUP },
};

#undef HOST
#undef PAIR
#undef UPSTREAM
#undef LOCAL
#undef CLEANUP
#undef NODE
#undef BESIDE

const char *
bench_phase_name(enum bench_phase p)
{
	return (unsigned)p < BENCH_N_PHASES ? bench_phases[p].name : "?";
}

int
bench_phase_runs(const struct bench *b, enum bench_phase p)
{
	return bench_phases[p].runs == NULL || bench_phases[p].runs(b);
}

int
bench_phase_nodes_needed(const struct bench *b, enum bench_phase p)
{
	int q;

	for (q = p + 1; q < BENCH_N_PHASES; q++)
		if ((bench_phases[q].flags & BENCH_PHASE_NODE) &&
		    bench_phase_runs(b, q))
			return 1;
	return 0;
}

int
bench_phase_visits(enum bench_phase p, const struct bench_host *h)
{
	if (bench_phases[p].flags & BENCH_PHASE_CLEANUP)
		return h->touched;
	return !h->failed;
}
