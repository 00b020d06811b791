/*
 * The model the diagnosis's files share (diagnose_model.h): a finding
 * made at its place, a cell explained by it (marked, and kept as its
 * evidence with its figures), and its times worse than the old run.
 * Below diagnose.c, diagnose_cover.c and diagnose_pair.c, which call it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose_model.h"

struct finding *
diagnose_finding(struct model *m, unsigned cause, unsigned scope, size_t a,
    size_t b, unsigned dir, unsigned protos)
{
	struct diagnosis *dx = m->dx;
	struct finding *f;

	f = realloc(dx->findings, (dx->nfindings + 1) * sizeof *f);
	if (f == NULL)
		return NULL;
	dx->findings = f;
	f = &dx->findings[dx->nfindings++];
	memset(f, 0, sizeof *f);
	f->cause = cause;
	f->scope = (enum dx_scope)scope;
	f->place[0] = a;
	f->place[1] = b;
	f->dir = (enum dx_dir)dir;
	f->protos = protos;
	f->ref_rate = NAN;
	f->elapsed_s = NAN;
	return f;
}

static unsigned
what_of(uint16_t f)
{
	unsigned w = 0;

	if (f & EV_FAIL)
		w |= DX_W_FAIL;
	if (f & (EV_ACCESS | EV_SETUP))
		w |= DX_W_SETUP;
	if (f & EV_LOSS)
		w |= DX_W_LOSS;
	if (f & EV_SLOW)
		w |= DX_W_SLOW;
	if (f & EV_NARROW)
		w |= DX_W_NARROW;
	if (f & EV_WORSE)
		w |= DX_W_WORSE;
	if (f & EV_DETOUR)
		w |= DX_W_DETOUR;
	if (f & EV_GAP)
		w |= DX_W_GAP;
	return w;
}

/* Cell s -> t of kind ki explained by f: marked, and kept as evidence. */
int
diagnose_explain(struct model *m, struct finding *f, size_t ki, size_t s, size_t t)
{
	uint16_t *fl = diagnose_flag(m, ki, s, t);
	const struct ev_kind *ek = &m->ev.kinds[ki];
	struct dx_cell *c;

	*fl |= EV_DONE;
	f->nbad++;
	if (ek->nsent != NULL) {
		m->dlost[ki] += ek->nlost[s * m->ev.n + t];
		m->dsent[ki] += ek->nsent[s * m->ev.n + t];
	}
	f->what |= what_of(*fl);
	if (*fl & EV_SINCE)
		f->worse = INFINITY;
	if (f->ncells >= DIAGNOSE_CELLS_MAX) {
		f->cells_more++;
		return 0;
	}
	if (f->ncells % 64 == 0) {
		c = realloc(f->cells, (f->ncells + 64) * sizeof *c);
		if (c == NULL)
			return NP_ERR_NOMEM;
		f->cells = c;
	}
	c = &f->cells[f->ncells++];
	memset(c, 0, sizeof *c);
	c->kind = ek->k;
	c->src = s;
	c->tgt = t;
	c->what = what_of(*fl);
	c->value = c->typical = c->old = c->base = NAN;
	if (ek->lat >= 0 || ek->rate >= 0) {
		int mi = ek->lat >= 0 ? ek->lat : ek->rate;

		c->metric = ek->kind->metrics[mi].name;
		c->unit = ek->kind->metrics[mi].unit;
		c->value = ek->lat >= 0 ? diagnose_evidence_latency(&m->ev, ek,
		    s, t) : diagnose_evidence_rate(&m->ev, ek, s, t);
		c->typical = diagnose_evidence_typical(&m->ev, ek, s, t);
		c->old = diagnose_evidence_old(&m->ev, ek, s, t);
	}
	if (*fl & (EV_DETOUR | EV_GAP))
		c->base = diagnose_evidence_base(&m->ev, ek, s, t);
	diagnose_evidence_samples(&m->ev, ek, s, t, &c->lost, &c->sent);
	c->error = diagnose_evidence_error(&m->ev, ek, s, t);
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median times worse of a finding's cells that got worse. */
void
diagnose_worse(const struct model *m, struct finding *f)
{
	double *v;
	size_t i, nv = 0;

	if (isinf(f->worse) || f->ncells == 0)
		return;
	if ((v = malloc(f->ncells * sizeof *v)) == NULL)
		return;
	for (i = 0; i < f->ncells; i++) {
		const struct dx_cell *c = &f->cells[i];
		size_t ki;

		if (!(c->what & DX_W_WORSE))
			continue;
		for (ki = 0; ki < m->ev.nkinds && m->ev.kinds[ki].k != c->kind;
		    ki++)
			;
		if (ki < m->ev.nkinds)
			v[nv++] = diagnose_evidence_factor(&m->ev,
			    &m->ev.kinds[ki], c->src, c->tgt);
	}
	if (nv > 0) {
		qsort(v, nv, sizeof *v, cmp_double);
		f->worse = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
	}
	free(v);
}
