/*
 * plan --explain: what each source host really runs when its pings go in
 * fan-outs: per round, per source, the one command that pings all of its
 * targets of the round at once (fanout.c's script, through the machine's
 * transport, as collect hands it to the engine), beside the plan's
 * per-pair lines, which are each probe alone as upstream runs it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "command_line.h"
#include "error.h"
#include "fanout.h"
#include "inventory.h"
#include "plan.h"

/* The fan-out of source s in round k of st, as the line that runs it. */
static int
write_fanout(FILE *f, const struct inventory *inv, const struct round *rd,
    size_t s, const struct probe_settings *ps, enum fanout_tool tool)
{
	const struct machine *m = &inv->machines[s];
	char **addrs, *script = NULL, *line = NULL;
	size_t p, n = 0;
	int r = NP_ERR_NOMEM;

	if ((addrs = calloc(rd->n_pairs + 1, sizeof *addrs)) == NULL)
		return NP_ERR_NOMEM;
	for (p = 0; p < rd->n_pairs; p++)
		if (rd->pairs[p].source == s)
			addrs[n++] = inv->machines[rd->pairs[p].target].address;
	if (n == 0) {
		free(addrs);
		return 0;
	}
	fprintf(f, "  on %s, %zu target%s:", m->name, n, n == 1 ? "" : "s");
	for (p = 0; p < rd->n_pairs; p++)
		if (rd->pairs[p].source == s)
			fprintf(f, " %s", inv->machines[rd->pairs[p].target].name);
	fputc('\n', f);
	if ((script = fanout_command(ps, addrs, n, tool)) != NULL &&
	    (r = command_line_reproduce(inv, m, script, &line)) == 0)
		fprintf(f, "%s\n", line);
	free(line);
	free(script);
	free(addrs);
	return r;
}

int
plan_write_explain(FILE *f, const struct inventory *inv,
    const struct plan_stage *stages, size_t n_stages,
    const struct probe_settings *ps, const struct plan_options *o)
{
	const struct schedule *sc;
	size_t i, k, s;
	int r;

	for (i = 0; i < n_stages; i++) {
		if (!stages[i].fanout)
			continue;
		sc = stages[i].sched;
		fprintf(f, "\n%s fan-out commands (what each source runs; the "
		    "lines above are each probe alone, as upstream runs it):\n",
		    stages[i].kind->name);
		for (k = 0; k < sc->n_rounds; k++) {
			fprintf(f, "round %zu:\n", k + 1);
			for (s = 0; s < inv->n_machines; s++)
				if ((r = write_fanout(f, inv, &sc->rounds[k], s,
				    ps, (enum fanout_tool)o->ping_tool)) != 0)
					return r;
		}
	}
	return 0;
}
