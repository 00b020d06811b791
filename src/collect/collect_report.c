/*
 * collect's report: the summary printed when a run ends (per source: probes
 * ok and failed, median RTT, why a host was down; then the extreme pairs).
 */
#include <stdio.h>

#include "collect.h"
#include "inventory.h"
#include "log.h"
#include "stats.h"

/* "  KIND: slowest A->B V UNIT, fastest C->D V UNIT SUFFIX" */
static void
print_extremes(FILE *f, const struct collector *c, const char *kind,
    const struct task *slow, const struct task *fast, double slow_v,
    double fast_v, int decimals, const char *unit, const char *suffix)
{
	fprintf(f, "  %s: slowest %s->%s %.*f %s, fastest %s->%s %.*f %s%s\n",
	    kind, machine_at(c, slow->pair.source)->name,
	    machine_at(c, slow->pair.target)->name, decimals, slow_v, unit,
	    machine_at(c, fast->pair.source)->name,
	    machine_at(c, fast->pair.target)->name, decimals, fast_v, unit,
	    suffix);
}

/* Per source: ok, failed, median RTT; then the extreme pairs. */
void
collect_report_summary(const struct collector *c, FILE *f)
{
	const struct task *slow = NULL, *fast = NULL, *lo = NULL, *hi = NULL;
	size_t i, p;

	fprintf(f, "netprof: %zu probe%s ok, %zu failed\n", c->ok,
	    PLURAL(c->ok), c->failed);
	for (i = 0; i < c->inv->n_machines; i++) {
		const struct host_state *h = &c->hosts[i];

		fprintf(f, "  %-16s ok %-4zu failed %-4zu", machine_at(c, i)->name,
		    h->ok, h->failed);
		if (h->n_rtts > 0)
			fprintf(f, " median RTT %.3f ms", stats_median(h->rtts,
			    h->n_rtts));
		if (h->down != NULL)
			fprintf(f, "  (%s)", h->down);
		fputc('\n', f);
	}
	for (p = 0; p < c->n_phases; p++) {
		const struct phase *ph = &c->phases[p];

		for (i = 0; i < ph->n_tasks; i++) {
			const struct task *t = &ph->tasks[i];

			if (t->state != TASK_DONE || !t->ok)
				continue;
			if (t->kind == PROBE_PING) {
				if (slow == NULL || t->rtt_ms > slow->rtt_ms)
					slow = t;
				if (fast == NULL || t->rtt_ms < fast->rtt_ms)
					fast = t;
			} else {
				if (lo == NULL || t->mbps < lo->mbps)
					lo = t;
				if (hi == NULL || t->mbps > hi->mbps)
					hi = t;
			}
		}
	}
	if (slow != NULL)
		print_extremes(f, c, "ping", slow, fast, slow->rtt_ms,
		    fast->rtt_ms, 3, "ms", " (median RTT)");
	if (lo != NULL)
		print_extremes(f, c, "iperf3", lo, hi, lo->mbps, hi->mbps,
		    1, "Mbps", "");
}
