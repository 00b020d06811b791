/*
 * collect's report: the summary printed when a run ends (per source: probes
 * ok and failed, median RTT, why a host was down; then each kind's extreme
 * pairs, by the figure its row names).
 */
#include <stdio.h>

#include "collect.h"
#include "inventory.h"
#include "log.h"
#include "stats.h"

/*
 * "  KIND: worst A->B V UNIT, best C->D V UNIT (WHAT)": by its summary
 * metric's direction (a round trip, a loss, a path MTU alike).
 */
static void
print_extremes(FILE *f, const struct collector *c,
    const struct probe_kind *k, const struct task *slow,
    const struct task *fast)
{
	const struct probe_summary *sum = &k->summary;

	fprintf(f, "  %s: worst %s->%s %.*f %s, best %s->%s %.*f %s%s%s%s\n",
	    k->name, slow->src->name,
	    slow->dst->name, sum->decimals,
	    slow->value, sum->unit, fast->src->name,
	    fast->dst->name, sum->decimals,
	    fast->value, sum->unit, sum->what != NULL ? " (" : "",
	    sum->what != NULL ? sum->what : "", sum->what != NULL ? ")" : "");
}

/* Per source: ok, failed, median RTT; then each kind's extreme pairs. */
void
collect_report_summary(const struct collector *c, FILE *f)
{
	size_t i, s;

	fprintf(f, "netprof: %zu probe%s ok, %zu failed\n", c->ok,
	    PLURAL(c->ok), c->failed);
	for (i = 0; i < c->inv->n_machines; i++) {
		const struct host_state *h = &c->hosts[i];

		fprintf(f, "  %-16s ok %-4zu failed %-4zu", h->m->name,
		    h->ok, h->failed);
		if (h->n_rtts > 0)
			fprintf(f, " median RTT %.3f ms", stats_median(h->rtts,
			    h->n_rtts));
		if (h->down != NULL) {	/* a host's words: escaped */
			fputs("  (", f);
			log_fputs_safe(h->down, f);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	for (s = 0; s < c->n_stages; s++) {
		const struct probe_kind *k = c->stages[s].kind;
		const struct probe_metric *m = probe_kind_metric(k,
		    k->summary.metric);
		int higher_better = m != NULL && m->unit->higher_better;
		const struct task *slow = NULL, *fast = NULL;

		for (i = 0; i < c->n_tasks; i++) {
			const struct task *t = &c->tasks[i];
			double v = t->value;

			if (t->stage != &c->stages[s] ||
			    t->dt->state != DISPATCH_DONE || !t->rec.ok)
				continue;
			if (slow == NULL || (higher_better ?
			    v < slow->value : v > slow->value))
				slow = t;
			if (fast == NULL || (higher_better ?
			    v > fast->value : v < fast->value))
				fast = t;
		}
		if (slow != NULL)
			print_extremes(f, c, k, slow, fast);
	}
}
