/*
 * The diagnosis as a model over the matrix: which causes, at which
 * places, explain the bad cells best. Each candidate cause at a place (a
 * host down, refusing a protocol, its own link degraded; a site cut off
 * or its uplink degraded; the path between two sites; every pair of a
 * protocol) predicts a set of cells bad and the others not. A candidate
 * is valid when the cells it predicts are bad enough of the time (a
 * share, or for lost samples a pooled test that no single peer carries);
 * its gain is the bad cells no finding explains yet, less half the cells
 * that contradict it. A greedy cover takes the valid candidate of the
 * largest gain, marks its cells explained and goes on (lazily: gains
 * only fall), so a host down is one finding and not 2(n-1) pairs, and a
 * site's uplink one finding and not its hosts. What is left is explained
 * pair by pair, each pair's cause read from which kinds and ways are bad
 * (a block, one way, degraded, or the libp2p causes of the bench
 * documentation); tool and setup failures are setup findings, never the
 * network's. Every bad cell is in at most one finding; findings are
 * ranked by severity, then score.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose_model.h"
#include "log.h"
#include "probe_kind.h"
#include "timeutil.h"

static int
cmp_finding(const void *pa, const void *pb)
{
	const struct finding *a = pa, *b = pb;

	if (a->severity != b->severity)
		return a->severity > b->severity ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->nbad != b->nbad)
		return a->nbad > b->nbad ? -1 : 1;
	if (a->cause != b->cause)
		return a->cause < b->cause ? -1 : 1;
	if (a->place[0] != b->place[0])
		return a->place[0] < b->place[0] ? -1 : 1;
	return (a->place[1] > b->place[1]) - (a->place[1] < b->place[1]);
}

static int
sites_index(struct model *m)
{
	size_t n = m->ev.n, g = m->ev.g, i, *at;

	if ((m->site_first = calloc(g + 1, sizeof *m->site_first)) == NULL ||
	    (m->site_hosts = malloc((n + 1) * sizeof *m->site_hosts)) ==
	    NULL || (at = malloc((g + 1) * sizeof *at)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < n; i++)
		m->site_first[m->ev.group[i] + 1]++;
	for (i = 0; i < g; i++)
		m->site_first[i + 1] += m->site_first[i];
	memcpy(at, m->site_first, (g + 1) * sizeof *at);
	for (i = 0; i < n; i++)
		m->site_hosts[at[m->ev.group[i]]++] = i;
	free(at);
	return 0;
}

int
diagnose(const struct matrix *hm, const struct matrix *old,
    struct diagnosis *dx)
{
	struct model m;
	size_t i, units;
	uint64_t t0, t1, t2;
	int rc;

	memset(dx, 0, sizeof *dx);
	memset(&m, 0, sizeof m);
	dx->compared = old != NULL;
	m.hm = hm;
	m.dx = dx;
	t0 = time_mono_ns();
	if ((rc = diagnose_evidence_build(&m.ev, hm, old)) != 0)
		return rc;
	t1 = time_mono_ns();
	rc = NP_ERR_NOMEM;
	units = (m.ev.nkinds ? m.ev.nkinds : 1) * (m.ev.n ? m.ev.n : 1);
	if (sites_index(&m) != 0 ||
	    (m.ulost = calloc(units, sizeof *m.ulost)) == NULL ||
	    (m.usent = calloc(units, sizeof *m.usent)) == NULL ||
	    (m.ulossy = calloc(units, sizeof *m.ulossy)) == NULL ||
	    (m.ucells = calloc(units, sizeof *m.ucells)) == NULL)
		goto out;
	if ((rc = diagnose_candidates(&m)) != 0 || (rc = diagnose_cover(&m)) != 0)
		goto out;
	t2 = time_mono_ns();
	if ((rc = diagnose_pairs(&m)) != 0 || (rc = diagnose_setups(&m)) != 0 ||
	    (rc = diagnose_convergence(&m)) != 0)
		goto out;
	/* -v: where a large run's diagnosis takes its time */
	log_debug(NULL, "diagnosis: cells read in %.2f s, %zu candidate "
	    "causes in %.2f s, pairs in %.2f s; %zu findings",
	    (t1 - t0) / 1e9, m.ncands, (t2 - t1) / 1e9,
	    (time_mono_ns() - t2) / 1e9, dx->nfindings);
	for (i = 0; i < dx->nfindings; i++)
		if ((rc = diagnose_findings_words(&m.ev, &dx->findings[i])) != 0)
			goto out;
	if (dx->nfindings > 1)
		qsort(dx->findings, dx->nfindings, sizeof *dx->findings,
		    cmp_finding);
	rc = 0;
out:
	diagnose_evidence_free(&m.ev);
	free(m.site_first);
	free(m.site_hosts);
	free(m.ulost);
	free(m.usent);
	free(m.ulossy);
	free(m.ucells);
	free(m.cands);
	if (rc != 0)
		diagnose_free(dx);
	return rc;
}

void
diagnose_free(struct diagnosis *dx)
{
	size_t i;

	if (dx == NULL)
		return;
	for (i = 0; i < dx->nfindings; i++) {
		free(dx->findings[i].title);
		free(dx->findings[i].evidence);
		free(dx->findings[i].why);
		free(dx->findings[i].advice);
		free(dx->findings[i].cells);
	}
	free(dx->findings);
	memset(dx, 0, sizeof *dx);
}

const struct finding *
diagnose_find(const struct diagnosis *dx, const char *rule)
{
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (dx->findings[i].rule != NULL &&
		    strcmp(dx->findings[i].rule, rule) == 0)
			return &dx->findings[i];
	return NULL;
}

enum dx_severity
diagnose_worst(const struct diagnosis *dx)
{
	enum dx_severity w = DX_SEV_NONE;
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (dx->findings[i].severity > w)
			w = dx->findings[i].severity;
	return w;
}

double
diagnose_most_worse(const struct diagnosis *dx)
{
	double w = 0;
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (dx->findings[i].worse > w)
			w = dx->findings[i].worse;
	return w;
}

int
diagnose_failures(const struct matrix *hm, struct failure_row **rows,
    size_t *nrows)
{
	struct failure_row *out = NULL, *p;
	size_t k, i, n = 0, alloc = 0;

	*rows = NULL;
	*nrows = 0;
	for (k = 0; k < hm->nkinds; k++)
		for (i = 0; i < hm->nhosts * hm->nhosts; i++) {
			const struct matrix_cell *c = &hm->kinds[k].cells[i];

			if (c->nfail == 0)
				continue;
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				if ((p = realloc(out, alloc * sizeof *p)) ==
				    NULL) {
					free(out);
					return NP_ERR_NOMEM;
				}
				out = p;
			}
			out[n].kind = &hm->kinds[k];
			out[n].src = i / hm->nhosts;
			out[n].tgt = i % hm->nhosts;
			out[n].cell = c;
			n++;
		}
	*rows = out;
	*nrows = n;
	return 0;
}
