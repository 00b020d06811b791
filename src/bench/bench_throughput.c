/*
 * The sweep's throughput rounds (an exclusive kind's tasks, bench_sweep.c
 * runs them): exclusive rounds from the circle method, no node in two
 * transfers at once, as collect's iperf3, because two transfers through
 * one node would measure each other. By default (--throughput-mode auto)
 * a pair for which duplex is valid (collect.md: full-duplex links, no
 * bottleneck shared with another pair), decided per pair, runs both ways
 * at once in the round of its first way: its two hosts of one site
 * (machines.json's site: one switched network), or neither given a site
 * and one LAN apart by the path phase's reach checks. The pair's two
 * tasks are one in the dispatcher: the first holds both hosts' room, the
 * other is taken with it (bench_sweep.c), so where every pair may an even
 * N takes N-1 rounds, not 2(N-1), and a pair that may not still has its
 * nodes to itself. --throughput-mode duplex: collect's duplex rounds
 * (each node the source of one transfer and the target of another).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_path.h"
#include "error.h"
#include "schedule.h"

const char *const bench_throughput_modes[] = { "auto", "exclusive", "duplex",
	NULL };

int
bench_throughput_duplex(const struct bench *b)
{
	const struct probe_kind *k;

	if (b->o->throughput_mode != BENCH_TP_DUPLEX || b->o->serial)
		return 0;
	for (k = probe_kinds; k->name != NULL; k++)
		if (bench_plan_has(b, k) && k->shape == PROBE_EXCLUSIVE &&
		    !(k->flags & PROBE_DUPLEX))
			return 0;
	return 1;
}

/*
 * May the pair's throughput run both ways at once (auto)? Its hosts of one
 * site; or, neither of them given a site, one LAN apart: a TCP handshake
 * between them (their reach checks, the faster way) within BENCH_LAN_US.
 */
static int
both_ways(const struct bench *b, size_t s, size_t t)
{
	const struct machine *ms = b->hosts[s].m, *mt = b->hosts[t].m;
	const struct bench_path_host *ps = b->hosts[s].path,
	    *pt = b->hosts[t].path;
	long us = 0, v;

	if (ms->site != NULL || mt->site != NULL)
		return ms->site != NULL && mt->site != NULL &&
		    strcmp(ms->site, mt->site) == 0;
	if (ps != NULL && ps->reach[t].tcp == 1 && ps->reach[t].connect_us > 0)
		us = ps->reach[t].connect_us;
	if (pt != NULL && pt->reach[s].tcp == 1 &&
	    (v = pt->reach[s].connect_us) > 0 && (us == 0 || v < us))
		us = v;
	return us > 0 && us <= BENCH_LAN_US;
}

/*
 * auto: the exclusive rounds, a pair that may run both ways at once with
 * its other way beside it in the round of its first (t->with, the first
 * the lead), where its kind may (PROBE_DUPLEX); rounds left empty dropped.
 */
static int
add_auto(struct bench *b, const struct probe_kind *kind,
    const struct schedule *s)
{
	unsigned char *done;
	size_t r, q, n = b->n, a;
	int round = 1, added;

	if ((done = calloc(n * n + 1, 1)) == NULL)
		return NP_ERR_NOMEM;
	for (r = 0; r < s->n_rounds; r++) {
		added = 0;
		for (q = 0; q < s->rounds[r].n_pairs; q++) {
			size_t i = s->rounds[r].pairs[q].source;
			size_t k = s->rounds[r].pairs[q].target;

			if (done[i * n + k])
				continue;
			done[i * n + k] = added = 1;
			bench_pairs_add(b, BENCH_SWEEP, kind, i, k, round);
			/* a kind that may not run duplex (connect hangs up
			   the pair's connections) runs each way alone */
			if (!(kind->flags & PROBE_DUPLEX) || !both_ways(b, i, k))
				continue;
			done[k * n + i] = 1;
			a = b->pairs.n - 1;
			bench_pairs_add(b, BENCH_SWEEP, kind, k, i, round);
			b->pairs.tasks[a].with = &b->pairs.tasks[a + 1];
			b->pairs.tasks[a + 1].with = &b->pairs.tasks[a];
			b->pairs.tasks[a].lead = 1;
		}
		round += added;
	}
	free(done);
	return 0;
}

int
bench_throughput_add(struct bench *b, const struct probe_kind *kind)
{
	struct schedule *s = NULL;
	size_t r, q, i, k;
	int e, duplex = bench_throughput_duplex(b);

	if (b->o->serial) {
		for (i = 0; i < b->n; i++)
			for (k = 0; k < b->n; k++)
				if (i != k)
					bench_pairs_add(b, BENCH_SWEEP, kind, i, k,
					    (int)b->pairs.n + 1);
		return 0;
	}
	if ((duplex ? schedule_duplex(b->n, &s) : schedule_exclusive(b->n,
	    &s)) != 0)
		return NP_ERR_NOMEM;
	if (!duplex && b->o->throughput_mode == BENCH_TP_AUTO) {
		e = add_auto(b, kind, s);
		schedule_free(s);
		return e;
	}
	for (r = 0; r < s->n_rounds; r++)
		for (q = 0; q < s->rounds[r].n_pairs; q++)
			bench_pairs_add(b, BENCH_SWEEP, kind,
			    s->rounds[r].pairs[q].source,
			    s->rounds[r].pairs[q].target, (int)r + 1);
	schedule_free(s);
	return 0;
}

void
bench_throughput_json(cJSON *cfg, const struct bench *b)
{
	const struct bench_task *t = b->task_sets[BENCH_SWEEP];
	size_t i, n = b->n_task_sets[BENCH_SWEEP];
	cJSON *both, *pair;

	cJSON_AddStringToObject(cfg, "throughput_mode",
	    bench_throughput_modes[b->o->throughput_mode]);
	if (b->o->throughput_mode != BENCH_TP_AUTO ||
	    (both = cJSON_AddArrayToObject(cfg, "throughput_both_ways")) ==
	    NULL)
		return;
	for (i = 0; t != NULL && i < n; i++)
		if (t[i].lead && (pair = cJSON_CreateArray()) != NULL) {
			cJSON_AddItemToArray(pair, cJSON_CreateString(
			    b->hosts[t[i].src].m->name));
			cJSON_AddItemToArray(pair, cJSON_CreateString(
			    b->hosts[t[i].dst].m->name));
			cJSON_AddItemToArray(both, pair);
		}
}
