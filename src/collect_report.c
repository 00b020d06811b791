/*
 * collect's report: the summary printed when a run ends (per source: probes
 * ok and failed, median RTT, why a host was down; then the extreme pairs).
 */
#include <stdio.h>

#include "collect.h"
#include "inventory.h"
#include "log.h"
#include "stats.h"

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
		fprintf(f, "  ping: slowest %s->%s %.3f ms, fastest %s->%s "
		    "%.3f ms (median RTT)\n",
		    machine_at(c, slow->pair.source)->name,
		    machine_at(c, slow->pair.target)->name, slow->rtt_ms,
		    machine_at(c, fast->pair.source)->name,
		    machine_at(c, fast->pair.target)->name, fast->rtt_ms);
	if (lo != NULL)
		fprintf(f, "  iperf3: slowest %s->%s %.1f Mbps, fastest "
		    "%s->%s %.1f Mbps\n",
		    machine_at(c, lo->pair.source)->name,
		    machine_at(c, lo->pair.target)->name, lo->mbps,
		    machine_at(c, hi->pair.source)->name,
		    machine_at(c, hi->pair.target)->name, hi->mbps);
}
