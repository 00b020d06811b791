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
#include "heatmap_diagnose.h"
#include "heatmap_evidence.h"
#include "log.h"
#include "probe_kind.h"
#include "timeutil.h"

/* A failure cause holds when this share of the cells it predicts fail. */
#define FAIL_SHARE 0.8
/* A degradation when this share of the cells with a value are bad. */
#define DEGRADE_SHARE 0.6
/* The fewest bad cells for a host's cause, a site's. */
#define MIN_BAD_HOST 2
#define MIN_BAD_SITE 3
/* Lost samples, pooled over a cause's cells: evidence in nats against
 * the rate elsewhere (9.2: 1 in 10,000), still 6.9 without the peer
 * that lost most, lost by at least this share of the peers. */
#define LOSS_NATS 9.2
#define LOSS_NATS_LOO 6.9
#define LOSS_MIN_LOST 3
#define LOSS_MIN_RATE 0.01
#define LOSS_UNIT_SHARE 0.4
/* Against a candidate: each cell that contradicts it costs this much of
 * a bad cell it explains. */
#define CONTRA_WEIGHT 0.5
/* A pair's degradation is a finding when its cells are, together, this
 * far past their thresholds, in nats (4.6: a hundred times less likely
 * than the threshold's): one cell 4.3 sigmas off, or a few a little (a
 * failure always is). */
#define PAIR_EVIDENCE 4.6
/* the test of a cell's lost samples (heatmap_evidence.c's), for a pair's */
#define LOSS_PAIR_NATS 6.9
/* Bad cells left after the causes of more than a pair are one finding,
 * scattered, when at least this many, this share of the cells measured,
 * and no host in more than this share of them. */
#define SCATTER_MIN 20
#define SCATTER_SHARE 0.005
#define SCATTER_HOST_SHARE 0.2

enum hyp_family { FAMILY_FAIL, FAMILY_DEGRADE };

struct hyp {
	unsigned char cause;	/* enum dx_cause */
	unsigned char scope;	/* enum dx_scope */
	unsigned char dir;	/* enum dx_dir */
	unsigned char protos;	/* DX_PROTO_*: the kinds it concerns */
	unsigned char taken;	/* a finding already */
	size_t a, b;		/* host, site or sites */
	double gain, score;	/* last evaluated; gain < 0: not valid */
};

/* What a walk over a candidate's cells counts. */
struct tally {
	size_t bad, fresh, contra;
	size_t opp_ok, opp_fail;	/* a block: the other way */
	size_t other_ok;	/* a block: its host's other protocols' */
	/* degradations, per evidence kind: cells bad and measured per
	 * dimension (slow, narrow, worse, detour), samples */
	size_t dbad[MATRIX_MAX_KINDS][4], dmeas[MATRIX_MAX_KINDS][4];
	size_t lost[MATRIX_MAX_KINDS], sent[MATRIX_MAX_KINDS];
	size_t lossy[MATRIX_MAX_KINDS], lcells[MATRIX_MAX_KINDS];
	/* of those, in cells another finding explains */
	size_t dlost[MATRIX_MAX_KINDS], dsent[MATRIX_MAX_KINDS];
	double best_share;
	int loss_kind;			/* the kind whose loss is valid, -1 */
	double ref_rate;
};

struct model {
	const struct matrix *hm;
	struct evidence ev;
	struct diagnosis *dx;
	size_t *site_first, *site_hosts;	/* hosts by site */
	/* per evidence kind, per host: lost and sent samples and lossy
	 * cells of the cells walked that involve the host (leave one
	 * out) */
	size_t *ulost, *usent, *ulossy, *ucells;
	/* per evidence kind: samples of the cells findings explain */
	size_t dlost[MATRIX_MAX_KINDS], dsent[MATRIX_MAX_KINDS];
	struct hyp *cands;
	size_t ncands, cands_alloc;
};

/* --- walking a candidate's cells --------------------------------------- */

static int
in_site(const struct model *m, size_t h, size_t site)
{
	return m->ev.group[h] == site;
}

/* The host a failure of SSH or setup belongs to. */
static size_t
owner_of(uint16_t f, size_t s, size_t t)
{
	return (f & EV_BYTGT) ? t : s;
}

typedef void (*cell_fn)(struct model *m, const struct hyp *h,
    struct tally *ta, size_t ki, size_t s, size_t t, int side, void *arg);

/* side: 0 the cause's own cells; 1 the other way of a host's block;
 * 2 a site's intra-site cells (only its unreachable sources count). */
static void
walk(struct model *m, const struct hyp *h, struct tally *ta, cell_fn fn,
    void *arg)
{
	size_t n = m->ev.n, ki, x, y, i, j;

	for (ki = 0; ki < m->ev.nkinds; ki++) {
		if (!(m->ev.kinds[ki].role.proto & h->protos))
			continue;
		switch (h->scope) {
		case DX_SCOPE_HOST:
			for (x = 0; x < n; x++) {
				if (x == h->a)
					continue;
				if (h->dir != DX_DIR_IN)
					fn(m, h, ta, ki, h->a, x, 0, arg);
				else
					fn(m, h, ta, ki, h->a, x, 1, arg);
				if (h->dir != DX_DIR_OUT)
					fn(m, h, ta, ki, x, h->a, 0, arg);
				else
					fn(m, h, ta, ki, x, h->a, 1, arg);
			}
			break;
		case DX_SCOPE_SITE:
			for (i = m->site_first[h->a]; i < m->site_first[h->a +
			    1]; i++) {
				x = m->site_hosts[i];
				for (y = 0; y < n; y++) {
					int side = in_site(m, y, h->a) ? 2 : 0;

					if (x == y)
						continue;
					fn(m, h, ta, ki, x, y, side, arg);
					if (side == 0)
						fn(m, h, ta, ki, y, x, 0, arg);
				}
			}
			break;
		case DX_SCOPE_SITE_PAIR:
			for (i = m->site_first[h->a]; i < m->site_first[h->a +
			    1]; i++)
				for (j = m->site_first[h->b]; j <
				    m->site_first[h->b + 1]; j++) {
					x = m->site_hosts[i];
					y = m->site_hosts[j];
					fn(m, h, ta, ki, x, y, 0, arg);
					fn(m, h, ta, ki, y, x, 0, arg);
				}
			break;
		case DX_SCOPE_MESH:
			for (x = 0; x < n; x++)
				for (y = 0; y < n; y++)
					if (x != y)
						fn(m, h, ta, ki, x, y, 0, arg);
			break;
		default:
			break;
		}
	}
}

static uint16_t *
flag_at(struct model *m, size_t ki, size_t s, size_t t)
{
	return &m->ev.kinds[ki].flag[s * m->ev.n + t];
}

/* Whether a cell counts for a failure cause: 1 bad, -1 against, 0 not. */
static int
judge_fail(struct model *m, const struct hyp *h, size_t ki, size_t s,
    size_t t, int side)
{
	uint16_t f = *flag_at(m, ki, s, t);
	size_t own = owner_of(f, s, t);
	const struct ev_kind *ek = &m->ev.kinds[ki];

	switch (h->cause) {
	case DX_HOST_DOWN:
		if ((f & EV_FAIL) || ((f & EV_ACCESS) && own == h->a))
			return 1;
		return (f & EV_OK) ? -1 : 0;
	case DX_HOST_UNREACHABLE:
		if ((f & EV_ACCESS) && own == h->a)
			return 1;
		return (f & EV_OK) && s == h->a ? -1 : 0;
	case DX_SITE_DOWN:
	case DX_SITE_PAIR_DOWN:
		if ((f & EV_ACCESS) && (in_site(m, own, h->a) ||
		    (h->cause == DX_SITE_PAIR_DOWN && in_site(m, own, h->b))))
			return 1;
		if (side == 2)
			return 0;
		if (f & EV_FAIL)
			return 1;
		return (f & EV_OK) ? -1 : 0;
	case DX_HOST_RELAY_RESERVATION: {
		const struct ev_kind *p2p;

		if (ek->role.row->role == PROBE_ROLE_LIBP2P_RTT ||
		    m->ev.p2p < 0)
			return 0;
		p2p = &m->ev.kinds[m->ev.p2p];
		if (!(p2p->flag[s * m->ev.n + t] & EV_OK))
			return 0;
		if (f & EV_FAIL)
			return 1;
		return (f & EV_OK) ? -1 : 0;
	}
	default:	/* blocks */
		if (f & EV_FAIL)
			return 1;
		return (f & EV_OK) ? -1 : 0;
	}
}

static void
tally_fail(struct model *m, const struct hyp *h, struct tally *ta,
    size_t ki, size_t s, size_t t, int side, void *arg)
{
	uint16_t *f = flag_at(m, ki, s, t);
	int j;

	(void)arg;
	if (side == 1) {	/* a block's other way */
		if (*f & EV_OK)
			ta->opp_ok++;
		else if (*f & EV_FAIL)
			ta->opp_fail++;
		return;
	}
	if ((j = judge_fail(m, h, ki, s, t, side)) > 0) {
		ta->bad++;
		if (!(*f & EV_DONE))
			ta->fresh++;
	} else if (j < 0)
		ta->contra++;
}

/* A host's block of some protocols, both ways: its other protocols must
 * work (else it is down). */
static void
tally_other(struct model *m, const struct hyp *h, struct tally *ta,
    size_t ki, size_t s, size_t t, int side, void *arg)
{
	(void)h;
	(void)side;
	(void)arg;
	if (*flag_at(m, ki, s, t) & EV_OK)
		ta->other_ok++;
}

/* The dimensions of a degradation: slow, narrow, worse, detour. */
enum { DIM_SLOW, DIM_NARROW, DIM_WORSE, DIM_DETOUR };

/* The host a walked cell brings in besides the cause's own place: the
 * peer of a host, the host of a site or site pair (both ends). */
static void
unit_add(struct model *m, const struct hyp *h, size_t ki, size_t s, size_t t,
    int lost, int sent, int lossy)
{
	size_t n = m->ev.n, u[2], nu = 0, i;

	if (h->scope == DX_SCOPE_HOST)
		u[nu++] = s == h->a ? t : s;
	else {
		u[nu++] = s;
		u[nu++] = t;
	}
	for (i = 0; i < nu; i++) {
		m->ulost[ki * n + u[i]] += (size_t)lost;
		m->usent[ki * n + u[i]] += (size_t)sent;
		m->ulossy[ki * n + u[i]] += (size_t)lossy;
		m->ucells[ki * n + u[i]]++;
	}
}


/* The flags a degradation explains. */
static uint16_t
degrade_bad(const struct hyp *h)
{
	return h->cause == DX_HOST_RELAYED ? EV_DETOUR | EV_GAP | EV_DEGRADED :
	    EV_DEGRADED;
}

static void
tally_degrade(struct model *m, const struct hyp *h, struct tally *ta,
    size_t ki, size_t s, size_t t, int side, void *arg)
{
	uint16_t f = *flag_at(m, ki, s, t);
	const struct ev_kind *ek = &m->ev.kinds[ki];
	int lost, sent;

	(void)arg;
	if (side != 0)
		return;
	if (f & degrade_bad(h)) {
		ta->bad++;
		if (!(f & EV_DONE))
			ta->fresh++;
	}
	if (!(f & EV_OK))
		return;
	if (h->cause == DX_HOST_RELAYED) {
		/* libp2p_ping's detour where ICMP gives a baseline */
		if (ki == (size_t)m->ev.p2p && m->ev.icmp >= 0 &&
		    (m->ev.kinds[m->ev.icmp].flag[s * m->ev.n + t] &
		    EV_VALUE)) {
			ta->dmeas[ki][DIM_DETOUR]++;
			if (f & EV_DETOUR)
				ta->dbad[ki][DIM_DETOUR]++;
		}
		return;
	}
	if ((f & EV_VALUE) && ek->lat >= 0) {
		ta->dmeas[ki][DIM_SLOW]++;
		if (f & EV_SLOW)
			ta->dbad[ki][DIM_SLOW]++;
	} else if (f & EV_VALUE) {
		ta->dmeas[ki][DIM_NARROW]++;
		if (f & EV_NARROW)
			ta->dbad[ki][DIM_NARROW]++;
	}
	if (f & EV_OLD) {
		ta->dmeas[ki][DIM_WORSE]++;
		if (f & EV_WORSE)
			ta->dbad[ki][DIM_WORSE]++;
	}
	heatmap_evidence_samples(&m->ev, ek, s, t, &lost, &sent);
	if (sent > 0) {
		ta->lost[ki] += (size_t)lost;
		ta->sent[ki] += (size_t)sent;
		ta->lcells[ki]++;
		ta->lossy[ki] += lost > 0;
		if (f & EV_DONE) {
			ta->dlost[ki] += (size_t)lost;
			ta->dsent[ki] += (size_t)sent;
		}
		unit_add(m, h, ki, s, t, lost, sent, lost > 0);
	}
}

/*
 * Lost samples of kind ki, pooled over the candidate's cells, against the
 * rate on every other cell no finding explains (a lossy host found first
 * does not raise what a lossy uplink is held against): significant, not
 * carried by one peer (the test holds without the one that lost most),
 * and lost by a good share of the peers. *ref: the rate elsewhere.
 */
static int
loss_valid(struct model *m, struct tally *ta, size_t ki, double *ref)
{
	const struct ev_kind *ek = &m->ev.kinds[ki];
	size_t n = m->ev.n, u, units = 0, lossy = 0, worst = n;
	double L = (double)ta->lost[ki], N = (double)ta->sent[ki], rL, rN;
	double pr, q, L2, N2;

	if (N <= 0 || L < LOSS_MIN_LOST)
		return 0;
	rL = (double)ek->lost - (double)m->dlost[ki] - (L -
	    (double)ta->dlost[ki]);
	rN = (double)ek->sent - (double)m->dsent[ki] - (N -
	    (double)ta->dsent[ki]);
	pr = rN > 0 ? rL / rN : 0;
	if (pr < ek->p0)
		pr = ek->p0;
	q = L / N;
	if (q < LOSS_MIN_RATE || q < 2 * pr ||
	    N * heatmap_evidence_kl(q, pr) < LOSS_NATS)
		return 0;
	for (u = 0; u < n; u++) {
		if (m->ucells[ki * n + u] == 0)
			continue;
		units++;
		lossy += m->ulossy[ki * n + u] > 0;
		if (worst == n || m->ulost[ki * n + u] >
		    m->ulost[ki * n + worst])
			worst = u;
	}
	if (lossy < 2 || (double)lossy < LOSS_UNIT_SHARE * (double)units)
		return 0;
	L2 = L - (double)m->ulost[ki * n + worst];
	N2 = N - (double)m->usent[ki * n + worst];
	if (N2 <= 0 || N2 * heatmap_evidence_kl(L2 / N2, pr) < LOSS_NATS_LOO)
		return 0;
	*ref = pr;
	return 1;
}

static size_t
min_bad(const struct hyp *h)
{
	return h->scope == DX_SCOPE_HOST ? MIN_BAD_HOST : MIN_BAD_SITE;
}

/* A cause of degradation (its validity may hang on lost samples). */
static int
degrades(const struct hyp *h)
{
	return h->cause == DX_HOST_LINK || h->cause == DX_SITE_UPLINK ||
	    h->cause == DX_SITE_PAIR_PATH || h->cause == DX_HOST_RELAYED;
}

/* Evaluate h: its gain (negative when not valid) and score; ta filled. */
static void
evaluate(struct model *m, struct hyp *h, struct tally *ta)
{
	size_t n = m->ev.n, ki, d;
	double contra = 0, share;
	int valid = 0;

	memset(ta, 0, sizeof *ta);
	ta->loss_kind = -1;
	ta->ref_rate = NAN;
	h->gain = -1;
	h->score = 0;
	if (degrades(h)) {
		size_t bytes = m->ev.nkinds * n * sizeof *m->ulost;

		memset(m->ulost, 0, bytes);
		memset(m->usent, 0, bytes);
		memset(m->ulossy, 0, bytes);
		memset(m->ucells, 0, bytes);
		walk(m, h, ta, tally_degrade, NULL);
		for (ki = 0; ki < m->ev.nkinds; ki++) {
			double ref;

			for (d = 0; d < 4; d++) {
				if (ta->dbad[ki][d] < min_bad(h) ||
				    (double)ta->dbad[ki][d] < DEGRADE_SHARE *
				    (double)ta->dmeas[ki][d])
					continue;
				valid = 1;
				share = (double)ta->dbad[ki][d] /
				    (double)ta->dmeas[ki][d];
				if (share > ta->best_share)
					ta->best_share = share;
				contra += (double)(ta->dmeas[ki][d] -
				    ta->dbad[ki][d]);
			}
			if (h->cause != DX_HOST_RELAYED &&
			    loss_valid(m, ta, ki, &ref)) {
				valid = 1;
				share = (double)ta->lossy[ki] /
				    (double)ta->lcells[ki];
				if (share > ta->best_share)
					ta->best_share = share;
				contra += (double)(ta->lcells[ki] -
				    ta->lossy[ki]);
				if (ta->loss_kind < 0 || ta->lost[ki] >
				    ta->lost[ta->loss_kind]) {
					ta->loss_kind = (int)ki;
					ta->ref_rate = ref;
				}
			}
		}
		if (!valid || ta->fresh < min_bad(h))
			return;
		h->gain = (double)ta->fresh - CONTRA_WEIGHT * contra;
		h->score = ta->best_share * (double)ta->fresh /
		    (double)(ta->fresh + 1);
		return;
	}
	walk(m, h, ta, tally_fail, NULL);
	if (ta->bad < min_bad(h) || ta->fresh < min_bad(h))
		return;
	share = (double)ta->bad / (double)(ta->bad + ta->contra);
	if (share < FAIL_SHARE)
		return;
	if (h->cause == DX_HOST_BLOCKED && h->dir != DX_DIR_BOTH &&
	    (ta->opp_ok == 0 || ta->opp_ok < ta->opp_fail))
		return;
	if (h->cause == DX_HOST_BLOCKED && h->dir == DX_DIR_BOTH) {
		struct hyp other = *h;

		other.protos = (unsigned char)(~h->protos & 7u);
		if (other.protos == 0)
			return;
		walk(m, &other, ta, tally_other, NULL);
		if (ta->other_ok == 0)
			return;
	}
	ta->best_share = share;
	h->gain = (double)ta->fresh - CONTRA_WEIGHT * (double)ta->contra;
	h->score = share * (double)ta->fresh / (double)(ta->fresh + 1);
}

/* --- findings ----------------------------------------------------------- */

static struct finding *
finding_new(struct model *m, unsigned cause, unsigned scope, size_t a,
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
static int
explain(struct model *m, struct finding *f, size_t ki, size_t s, size_t t)
{
	uint16_t *fl = flag_at(m, ki, s, t);
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
		c->value = ek->lat >= 0 ? heatmap_evidence_latency(&m->ev, ek,
		    s, t) : heatmap_evidence_rate(&m->ev, ek, s, t);
		c->typical = heatmap_evidence_typical(&m->ev, ek, s, t);
		c->old = heatmap_evidence_old(&m->ev, ek, s, t);
	}
	if (*fl & (EV_DETOUR | EV_GAP))
		c->base = heatmap_evidence_base(&m->ev, ek, s, t);
	heatmap_evidence_samples(&m->ev, ek, s, t, &c->lost, &c->sent);
	c->error = heatmap_evidence_error(&m->ev, ek, s, t);
	return 0;
}

struct mark_arg {
	struct finding *f;
	uint16_t extra;		/* also explained: a lossy link's failures */
	int rc;
};

static void
mark_cell(struct model *m, const struct hyp *h, struct tally *ta, size_t ki,
    size_t s, size_t t, int side, void *arg)
{
	struct mark_arg *ma = arg;
	uint16_t f = *flag_at(m, ki, s, t);
	int bad;

	(void)ta;
	if ((f & EV_DONE) || ma->rc != 0 || side == 1)
		return;
	if (degrades(h))
		bad = side == 0 && (f & (degrade_bad(h) | ma->extra));
	else
		bad = judge_fail(m, h, ki, s, t, side) > 0;
	if (bad)
		ma->rc = explain(m, ma->f, ki, s, t);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median times worse of a finding's cells that got worse. */
static void
finding_worse(const struct model *m, struct finding *f)
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
			v[nv++] = heatmap_evidence_factor(&m->ev,
			    &m->ev.kinds[ki], c->src, c->tgt);
	}
	if (nv > 0) {
		qsort(v, nv, sizeof *v, cmp_double);
		f->worse = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
	}
	free(v);
}

/* Take candidate h: a finding of its cause, its cells explained. */
static int
accept(struct model *m, const struct hyp *h, const struct tally *ta)
{
	struct mark_arg ma;
	struct tally scratch;
	unsigned cause = h->cause;
	struct finding *f;

	if ((f = finding_new(m, cause, h->scope, h->a, h->b, h->dir,
	    h->protos)) == NULL)
		return NP_ERR_NOMEM;
	f->score = h->score;
	f->nexpected = ta->bad + ta->contra;
	if (ta->loss_kind >= 0) {
		f->lost = ta->lost[ta->loss_kind];
		f->sent = ta->sent[ta->loss_kind];
		f->ref_rate = ta->ref_rate;
		f->loss_kind = m->ev.kinds[ta->loss_kind].kind->name;
	}
	memset(&ma, 0, sizeof ma);
	ma.f = f;
	if (ta->loss_kind >= 0)
		ma.extra = EV_FAIL;
	walk(m, h, &scratch, mark_cell, &ma);
	if (ma.rc != 0)
		return ma.rc;
	if (cause == DX_MESH_DOWN && (h->protos & DX_PROTO_LIBP2P)) {
		/* the spec's "every probe fails with dial backoff" */
		size_t i, backoff = 0;

		for (i = 0; i < f->ncells; i++)
			backoff += f->cells[i].error != NULL &&
			    strstr(f->cells[i].error, "dial backoff") != NULL;
		if (backoff * 2 >= f->ncells)
			f->cause = DX_NO_DIRECT_DIAL;
	}
	finding_worse(m, f);
	return 0;
}

/* --- candidates ---------------------------------------------------------- */

static int
cand_add(struct model *m, unsigned cause, unsigned scope, size_t a, size_t b,
    unsigned dir, unsigned protos)
{
	struct hyp *h;

	if (m->ncands == m->cands_alloc) {
		size_t na = m->cands_alloc ? m->cands_alloc * 2 : 256;

		if ((h = realloc(m->cands, na * sizeof *h)) == NULL)
			return NP_ERR_NOMEM;
		m->cands = h;
		m->cands_alloc = na;
	}
	h = &m->cands[m->ncands++];
	memset(h, 0, sizeof *h);
	h->cause = (unsigned char)cause;
	h->scope = (unsigned char)scope;
	h->a = a;
	h->b = b;
	h->dir = (unsigned char)dir;
	h->protos = (unsigned char)protos;
	h->gain = -1;
	return 0;
}

/*
 * The candidates worth evaluating: a host's where at least a tenth of
 * its row and column is bad in that way (failed; degraded) — a host down
 * elsewhere gives every host two failed cells, no cause of theirs; a
 * site's or a pair of sites' where a tenth of their crossing cells is,
 * every protocol's over the mesh.
 */
enum { BAD_FAIL, BAD_DEGRADE, NBAD };

static uint16_t
bad_of(uint16_t f, int which)
{
	return which == BAD_FAIL ? f & (EV_FAIL | EV_ACCESS) :
	    f & (EV_DEGRADED | EV_DETOUR | EV_GAP);
}

/* count of all reaches a tenth and the minimum */
static int
worth(size_t count, size_t all, size_t min)
{
	return count >= min && count * 10 >= all;
}

/* dirs: the ways a host's link may be degraded (bits of 1 << dx_dir) */
static int
host_candidates(struct model *m, size_t h, uint16_t fail, uint16_t degrade,
    unsigned dirs, unsigned protos)
{
	unsigned p, d;
	int rc = 0;

	if (fail) {
		rc = cand_add(m, DX_HOST_DOWN, DX_SCOPE_HOST, h, 0,
		    DX_DIR_BOTH, 7);
		if (rc == 0)
			rc = cand_add(m, DX_HOST_UNREACHABLE, DX_SCOPE_HOST, h,
			    0, DX_DIR_OUT, 7);
	}
	/* each protocol, and (one way) all of them: a firewall that takes
	 * in nothing but what its host asked for is one cause */
	for (p = 1; p <= 8 && rc == 0; p <<= 1) {
		unsigned which = p == 8 ? protos : p;

		if (!(protos & which) || !(fail & EV_FAIL) || (p == 8 &&
		    (protos & (protos - 1)) == 0))
			continue;
		for (d = p == 8 ? DX_DIR_OUT : DX_DIR_BOTH; d <= DX_DIR_IN &&
		    rc == 0; d++)
			rc = cand_add(m, DX_HOST_BLOCKED, DX_SCOPE_HOST, h, 0,
			    d, which);
	}
	if (rc == 0 && (fail & EV_FAIL) && m->ev.p2p >= 0 &&
	    (protos & DX_PROTO_LIBP2P))
		rc = cand_add(m, DX_HOST_RELAY_RESERVATION, DX_SCOPE_HOST, h,
		    0, DX_DIR_IN, DX_PROTO_LIBP2P);
	if (degrade & EV_DEGRADED)
		for (d = DX_DIR_BOTH; d <= DX_DIR_IN && rc == 0; d++)
			if (dirs & (1u << d))
				rc = cand_add(m, DX_HOST_LINK, DX_SCOPE_HOST,
				    h, 0, d, 7);
	if (rc == 0 && (degrade & EV_DETOUR))
		rc = cand_add(m, DX_HOST_RELAYED, DX_SCOPE_HOST, h, 0,
		    DX_DIR_BOTH, DX_PROTO_LIBP2P);
	return rc;
}

static int
candidates(struct model *m)
{
	size_t n = m->ev.n, g = m->ev.g, h, x, ki, a, b, i, w;
	unsigned protos = 0;
	uint16_t *hor = NULL, *gor = NULL;
	size_t *hbad = NULL, *hall = NULL, *gbad = NULL, *gall = NULL;
	size_t *hrow = NULL;	/* degraded cells in a host's row */
	int rc = NP_ERR_NOMEM;

	/* per host and per site pair (g * g): bad cells of each sort, the
	 * flags they show, and all cells */
	if ((hor = calloc(NBAD * n + 1, sizeof *hor)) == NULL ||
	    (hbad = calloc(NBAD * n + 1, sizeof *hbad)) == NULL ||
	    (hall = calloc(n + 1, sizeof *hall)) == NULL ||
	    (hrow = calloc(n + 1, sizeof *hrow)) == NULL ||
	    (gor = calloc(NBAD * g * g + 1, sizeof *gor)) == NULL ||
	    (gbad = calloc(NBAD * g * g + 1, sizeof *gbad)) == NULL ||
	    (gall = calloc(g * g + 1, sizeof *gall)) == NULL)
		goto out;
	for (ki = 0; ki < m->ev.nkinds; ki++) {
		const struct ev_kind *ek = &m->ev.kinds[ki];

		protos |= ek->role.proto;
		for (h = 0; h < n; h++)
			for (x = 0; x < n; x++) {
				uint16_t f = ek->flag[h * n + x];
				size_t sp = m->ev.group[h] * g + m->ev.group[x];

				if (h == x)
					continue;
				hall[h]++;
				hall[x]++;
				gall[sp]++;
				for (w = 0; w < NBAD; w++) {
					uint16_t bf = bad_of(f, (int)w);

					if (bf == 0)
						continue;
					hbad[w * n + h]++;
					hbad[w * n + x]++;
					if (w == BAD_DEGRADE)
						hrow[h]++;
					hor[w * n + h] |= bf;
					hor[w * n + x] |= bf;
					gbad[w * g * g + sp]++;
					gor[w * g * g + sp] |= bf;
				}
			}
	}
	rc = 0;
	for (h = 0; h < n && rc == 0; h++) {
		/* one way too where its row and column differ (a rate on
		 * what it sends); a round trip's degradation shows both */
		size_t row = hrow[h], col = hbad[n + h] - hrow[h];
		unsigned dirs = 1u << DX_DIR_BOTH;

		if (row > 2 * col)
			dirs |= 1u << DX_DIR_OUT;
		if (col > 2 * row)
			dirs |= 1u << DX_DIR_IN;
		rc = host_candidates(m, h, worth(hbad[h], hall[h],
		    MIN_BAD_HOST) ? hor[h] : 0, worth(hbad[n + h], hall[h],
		    MIN_BAD_HOST) ? hor[n + h] : 0, dirs, protos);
	}
	/* Sites of two hosts or more: with one, its host's cause is the
	 * same cells and says more. With two sites, a site's uplink and
	 * the path between the two are the same cells: the path it is. */
	for (a = 0; a < g && rc == 0 && g >= 2; a++) {
		size_t cnt[NBAD] = { 0, 0 }, all = 0;
		uint16_t fl[NBAD] = { 0, 0 };

		if (m->ev.gsize[a] < 2)
			continue;
		for (b = 0; b < g; b++) {
			if (b == a)
				continue;
			all += gall[a * g + b] + gall[b * g + a];
			for (w = 0; w < NBAD; w++) {
				cnt[w] += gbad[w * g * g + a * g + b] +
				    gbad[w * g * g + b * g + a];
				fl[w] |= gor[w * g * g + a * g + b] |
				    gor[w * g * g + b * g + a];
			}
		}
		if (worth(cnt[BAD_FAIL], all, MIN_BAD_SITE))
			rc = cand_add(m, DX_SITE_DOWN, DX_SCOPE_SITE, a, 0,
			    DX_DIR_BOTH, 7);
		if (rc == 0 && g >= 3 && (fl[BAD_DEGRADE] & EV_DEGRADED) &&
		    worth(cnt[BAD_DEGRADE], all, MIN_BAD_SITE))
			rc = cand_add(m, DX_SITE_UPLINK, DX_SCOPE_SITE, a, 0,
			    DX_DIR_BOTH, 7);
	}
	for (a = 0; a < g && rc == 0 && g >= 2; a++)
		for (b = a + 1; b < g && rc == 0; b++) {
			size_t all = gall[a * g + b] + gall[b * g + a], c;
			uint16_t fl;

			if (m->ev.gsize[a] + m->ev.gsize[b] < 3)
				continue;
			c = gbad[a * g + b] + gbad[b * g + a];
			if (worth(c, all, MIN_BAD_SITE))
				rc = cand_add(m, DX_SITE_PAIR_DOWN,
				    DX_SCOPE_SITE_PAIR, a, b, DX_DIR_BOTH, 7);
			c = gbad[g * g + a * g + b] + gbad[g * g + b * g + a];
			fl = gor[g * g + a * g + b] | gor[g * g + b * g + a];
			if (rc == 0 && (fl & EV_DEGRADED) &&
			    worth(c, all, MIN_BAD_SITE))
				rc = cand_add(m, DX_SITE_PAIR_PATH,
				    DX_SCOPE_SITE_PAIR, a, b, DX_DIR_BOTH, 7);
		}
	for (i = 1; i <= 4 && rc == 0 && n >= 3; i <<= 1)
		if (protos & i)
			rc = cand_add(m, DX_MESH_DOWN, DX_SCOPE_MESH, 0, 0,
			    DX_DIR_BOTH, (unsigned)i);
out:
	free(hor);
	free(hbad);
	free(hall);
	free(hrow);
	free(gor);
	free(gbad);
	free(gall);
	return rc;
}

/*
 * The greedy cover, lazily: as cells are explained a candidate's gain
 * falls, so one still ahead of every other's last gain after a fresh look
 * is the best. One thing can raise a candidate: lost samples are held
 * against the cells no finding explains, so a lossy host taken out lowers
 * the rate a lossy uplink is held against. After a pass that took
 * anything, every candidate left is looked at afresh.
 */
static int
cover(struct model *m)
{
	struct tally *ta;
	size_t i, best, second;
	int rc = 0, took = 0;

	if ((ta = malloc(sizeof *ta)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < m->ncands; i++)
		evaluate(m, &m->cands[i], ta);
	do {
		/* again: what lost samples did not make valid (the others'
		 * last gains still bound them from above) */
		for (i = 0; took && i < m->ncands; i++)
			if (!m->cands[i].taken && m->cands[i].gain <= 0 &&
			    degrades(&m->cands[i]))
				evaluate(m, &m->cands[i], ta);
		took = 0;
		for (;;) {
			best = second = m->ncands;
			for (i = 0; i < m->ncands; i++) {
				const struct hyp *h = &m->cands[i];

				if (h->taken || h->gain <= 0)
					continue;
				if (best == m->ncands ||
				    h->gain > m->cands[best].gain ||
				    (h->gain == m->cands[best].gain &&
				    h->score > m->cands[best].score)) {
					second = best;
					best = i;
				} else if (second == m->ncands ||
				    h->gain > m->cands[second].gain)
					second = i;
			}
			if (best == m->ncands)
				break;
			evaluate(m, &m->cands[best], ta);
			if (m->cands[best].gain <= 0)
				continue;
			if (second < m->ncands &&
			    m->cands[best].gain < m->cands[second].gain)
				continue;
			if ((rc = accept(m, &m->cands[best], ta)) != 0)
				goto out;
			m->cands[best].taken = 1;
			took = 1;
		}
	} while (took);
out:
	free(ta);
	return rc;
}

/* --- what is left: pair by pair ------------------------------------------ */

struct pair_view {
	unsigned fail[2];	/* protocols failed each way */
	unsigned failkinds[2];	/* as bits of kinds' indexes */
	uint16_t net[2];	/* ICMP and iperf3 flags, each way */
	uint16_t p2p[2];	/* libp2p kinds' */
	uint16_t p2pping[2];	/* libp2p_ping's */
	int p2p_ok[2];		/* libp2p_ping worked */
};

static const uint16_t pair_bad = EV_FAIL | EV_DEGRADED | EV_DETOUR | EV_GAP;

/* libp2p_ping's: a libp2p stream's round trip (the kinds' table) */
static int
is_p2p_rtt(const struct ev_kind *ek)
{
	return ek->role.row->role == PROBE_ROLE_LIBP2P_RTT;
}

/* Read pair s, t (both ways) for what no finding explains yet. */
static int
pair_read(struct model *m, size_t s, size_t t, struct pair_view *pv)
{
	size_t ki, d, n = m->ev.n;
	int any = 0;

	memset(pv, 0, sizeof *pv);
	for (ki = 0; ki < m->ev.nkinds; ki++) {
		const struct ev_kind *ek = &m->ev.kinds[ki];

		for (d = 0; d < 2; d++) {
			size_t a = d ? t : s, b = d ? s : t;
			uint16_t f = ek->flag[a * n + b];

			if (is_p2p_rtt(ek) && (f & EV_OK))
				pv->p2p_ok[d] = 1;
			if ((f & EV_DONE) || !(f & pair_bad))
				continue;
			any = 1;
			if (f & EV_FAIL) {
				pv->fail[d] |= ek->role.proto;
				pv->failkinds[d] |= 1u << ki;
			}
			if (ek->role.proto & (DX_PROTO_ICMP | DX_PROTO_IPERF3))
				pv->net[d] |= f;
			else
				pv->p2p[d] |= f;
			if (is_p2p_rtt(ek))
				pv->p2pping[d] |= f;
		}
	}
	return any;
}

/* HTTP over libp2p (latency, throughput) failed while libp2p_ping
 * worked, that way. */
static int
reservation_way(const struct model *m, const struct pair_view *pv, size_t d)
{
	size_t ki;

	if (pv->fail[d] == 0 || !pv->p2p_ok[d] || pv->fail[d] !=
	    DX_PROTO_LIBP2P)
		return 0;
	for (ki = 0; ki < m->ev.nkinds; ki++)
		if ((pv->failkinds[d] & (1u << ki)) &&
		    is_p2p_rtt(&m->ev.kinds[ki]))
			return 0;
	return 1;
}

static int
pair_finding(struct model *m, size_t s, size_t t, const struct pair_view *pv)
{
	unsigned cause, protos = 0, dir = DX_DIR_BOTH;
	uint16_t any[2];
	size_t a = s, b = t, ki, d, n = m->ev.n, meas = 0, bad = 0, ox = 0,
	    oy = 0;
	const struct ev_kind *one = NULL;
	double strength = 0;
	struct finding *f;
	int rc, libp2p;

	for (d = 0; d < 2; d++)
		any[d] = (uint16_t)(pv->net[d] | pv->p2p[d]);
	if (pv->fail[0] | pv->fail[1]) {
		int rr0 = pv->fail[0] == 0 || reservation_way(m, pv, 0);
		int rr1 = pv->fail[1] == 0 || reservation_way(m, pv, 1);

		cause = rr0 && rr1 ? DX_RELAY_RESERVATION :
		    pv->fail[0] && pv->fail[1] ? DX_PAIR_BLOCKED : DX_ONE_WAY;
		protos = pv->fail[0] | pv->fail[1];
		if (!(pv->fail[0] && pv->fail[1]))
			dir = DX_DIR_OUT;
		if (pv->fail[0] == 0) {
			a = t;
			b = s;
		}
	} else {
		if ((pv->net[0] | pv->net[1]) & EV_DEGRADED)
			cause = DX_PAIR_DEGRADED;
		else if ((pv->p2p[0] & EV_DETOUR) && (pv->p2p[1] & EV_DETOUR))
			cause = DX_RELAYED;	/* a relay carries both ways */
		else if ((pv->p2pping[0] | pv->p2pping[1]) & EV_LOSS)
			cause = DX_INTERMITTENT;
		else if (((pv->p2p[0] | pv->p2p[1]) & (EV_GAP | EV_DEGRADED))
		    == EV_GAP || (((pv->p2p[0] | pv->p2p[1]) & EV_GAP) &&
		    !((pv->p2pping[0] | pv->p2pping[1]) & EV_DEGRADED)))
			cause = DX_HTTP_OVERHEAD;
		else
			cause = DX_LIBP2P_DEGRADED;
		if (!(any[0] & pair_bad) || !(any[1] & pair_bad)) {
			dir = DX_DIR_OUT;
			if (!(any[0] & pair_bad)) {
				a = t;
				b = s;
			}
		}
	}
	if (!(pv->fail[0] | pv->fail[1])) {
		/* a degradation: is it beyond its kinds' noise? Figures add
		 * their cells' excess; lost samples pool both ways. */
		double excess = 0;

		for (ki = 0; ki < m->ev.nkinds; ki++) {
			const struct ev_kind *ek = &m->ev.kinds[ki];
			int l, sn, lost = 0, sent = 0, lossy = 0;

			for (d = 0; d < 2; d++) {
				size_t x = d ? t : s, y = d ? s : t;
				uint16_t fl = ek->flag[x * n + y];

				if ((fl & EV_DONE) || !(fl & pair_bad))
					continue;
				excess += heatmap_evidence_excess(&m->ev, ek, x,
				    y, 0);
				lossy |= (fl & EV_LOSS) != 0;
				heatmap_evidence_samples(&m->ev, ek, x, y, &l,
				    &sn);
				lost += l;
				sent += sn;
			}
			if (lossy && sent > 0)
				excess += fmax(0, heatmap_evidence_tail(lost,
				    sent, ek->p0) - LOSS_PAIR_NATS);
		}
		if (excess < PAIR_EVIDENCE)
			return 0;
	}
	if ((f = finding_new(m, cause, DX_SCOPE_PAIR, a, b, dir, protos)) ==
	    NULL)
		return NP_ERR_NOMEM;
	libp2p = cause == DX_RELAY_RESERVATION || cause == DX_RELAYED ||
	    cause == DX_HTTP_OVERHEAD || cause == DX_INTERMITTENT ||
	    cause == DX_LIBP2P_DEGRADED;
	for (ki = 0; ki < m->ev.nkinds; ki++) {
		const struct ev_kind *ek = &m->ev.kinds[ki];

		for (d = 0; d < 2; d++) {
			size_t x = d ? t : s, y = d ? s : t;
			uint16_t fl = ek->flag[x * n + y];
			int lost, sent;

			/* measured, of the cause's kinds and ways */
			if ((fl & (EV_OK | EV_FAIL)) && (!libp2p ||
			    ek->role.proto == DX_PROTO_LIBP2P) &&
			    (dir == DX_DIR_BOTH || x == a))
				meas++;
			if ((fl & EV_DONE) || !(fl & pair_bad))
				continue;
			bad++;
			one = ek;
			ox = x;
			oy = y;
			strength += heatmap_evidence_strength(&m->ev, ek, x, y);
			f->protos |= ek->role.proto;
			if ((fl & EV_LOSS) && f->loss_kind == NULL)
				f->loss_kind = ek->kind->name;
			if (f->loss_kind == ek->kind->name) {
				heatmap_evidence_samples(&m->ev, ek, x, y,
				    &lost, &sent);
				f->lost += (size_t)lost;
				f->sent += (size_t)sent;
				f->ref_rate = ek->p0;
			}
			if ((rc = explain(m, f, ki, x, y)) != 0)
				return rc;
		}
	}
	if (meas < bad)
		meas = bad;
	f->nexpected = meas;
	/* one throughput test, one way, is to measure again: a short
	 * transfer through a loaded machine (iperf3's TCP, a node's HTTP
	 * over libp2p) now and then collapses */
	if ((cause == DX_PAIR_DEGRADED || cause == DX_LIBP2P_DEGRADED) &&
	    bad == 1 && one != NULL &&
	    f->loss_kind == NULL && one->lat < 0 && one->rate >= 0)
		f->one_test = heatmap_evidence_tests(&m->ev, one, ox, oy) == 1;
	/* A failure is certain, its cause less (the host or the path); a
	 * degradation as sure as it shows in every kind and way it concerns,
	 * and as far beyond its kind's noise as it is. */
	f->score = (double)bad / (double)meas * (double)bad /
	    (double)(bad + 1) * (bad > 0 ? strength / (double)bad : 0);
	if (cause == DX_PAIR_BLOCKED || cause == DX_ONE_WAY ||
	    cause == DX_RELAY_RESERVATION)
		f->score = (double)bad / (double)(bad + 1);
	finding_worse(m, f);
	return 0;
}

/*
 * Bad cells no cause of more than a pair explains, many and spread over
 * the mesh (a 2 % of probes failing here and there, a loaded machine's
 * jitter): one finding, not one per pair, which would bury the others.
 * fail: the failures, else the degradations.
 */
static int
scattered(struct model *m, int fail)
{
	uint16_t want = fail ? EV_FAIL : (uint16_t)(EV_DEGRADED | EV_DETOUR |
	    EV_GAP);
	size_t n = m->ev.n, ki, s, t, count = 0, measured = 0, most = 0;
	size_t *per = calloc(n + 1, sizeof *per);
	unsigned protos = 0;
	struct finding *f;
	int rc = 0;

	if (per == NULL)
		return NP_ERR_NOMEM;
	for (ki = 0; ki < m->ev.nkinds; ki++)
		for (s = 0; s < n; s++)
			for (t = 0; t < n; t++) {
				uint16_t fl = m->ev.kinds[ki].flag[s * n + t];

				measured += (fl & (EV_OK | EV_FAIL)) != 0;
				if ((fl & EV_DONE) || !(fl & want) ||
				    (!fail && (fl & EV_FAIL)))
					continue;
				count++;
				per[s]++;
				per[t]++;
				protos |= m->ev.kinds[ki].role.proto;
			}
	for (s = 0; s < n; s++)
		if (per[s] > most)
			most = per[s];
	free(per);
	if (count < SCATTER_MIN || (double)count < SCATTER_SHARE *
	    (double)measured || (double)most > SCATTER_HOST_SHARE *
	    (double)count)
		return 0;
	if ((f = finding_new(m, DX_SCATTERED, DX_SCOPE_MESH, 0, 0, DX_DIR_BOTH,
	    protos)) == NULL)
		return NP_ERR_NOMEM;
	for (ki = 0; ki < m->ev.nkinds && rc == 0; ki++)
		for (s = 0; s < n && rc == 0; s++)
			for (t = 0; t < n && rc == 0; t++) {
				uint16_t fl = m->ev.kinds[ki].flag[s * n + t];

				if ((fl & EV_DONE) || !(fl & want) ||
				    (!fail && (fl & EV_FAIL)))
					continue;
				rc = explain(m, f, ki, s, t);
			}
	f->nexpected = measured;
	/* as sure as it is spread: no host stands out */
	f->score = 1 - (double)most / (double)count;
	return rc;
}

static int
pairs(struct model *m)
{
	struct pair_view pv;
	size_t s, t, n = m->ev.n;
	int rc;

	if ((rc = scattered(m, 1)) != 0 || (rc = scattered(m, 0)) != 0)
		return rc;

	for (s = 0; s < n; s++)
		for (t = s + 1; t < n; t++)
			if (pair_read(m, s, t, &pv) &&
			    (rc = pair_finding(m, s, t, &pv)) != 0)
				return rc;
	return 0;
}

/* Tool, setup and SSH failures no cause explained, by the host they
 * belong to: one finding per host and sort. */
static int
setups(struct model *m)
{
	size_t n = m->ev.n, ki, s, t;
	struct finding **by = NULL;
	int rc = 0;

	if ((by = calloc(2 * n + 1, sizeof *by)) == NULL)
		return NP_ERR_NOMEM;
	for (ki = 0; ki < m->ev.nkinds && rc == 0; ki++)
		for (s = 0; s < n && rc == 0; s++)
			for (t = 0; t < n && rc == 0; t++) {
				uint16_t f = m->ev.kinds[ki].flag[s * n + t];
				size_t own, slot;

				if ((f & EV_DONE) || !(f & (EV_SETUP |
				    EV_ACCESS)))
					continue;
				own = owner_of(f, s, t);
				slot = own * 2 + ((f & EV_ACCESS) != 0);
				if (by[slot] == NULL) {
					size_t idx = m->dx->nfindings;

					if (finding_new(m, (f & EV_ACCESS) ?
					    DX_ACCESS : DX_SETUP,
					    DX_SCOPE_HOST, own, 0, DX_DIR_BOTH,
					    0) == NULL) {
						rc = NP_ERR_NOMEM;
						break;
					}
					/* by[] holds indexes + 1: findings
					 * move as the array grows */
					by[slot] = (struct finding *)(idx + 1);
				}
				rc = explain(m, &m->dx->findings[(size_t)
				    by[slot] - 1], ki, s, t);
			}
	for (s = 0; s < 2 * n; s++)
		if (by[s] != NULL) {
			struct finding *f = &m->dx->findings[(size_t)by[s] - 1];

			/* the tool's own words: as sure as can be */
			f->score = 1;
			f->nexpected = f->nbad;
		}
	free(by);
	return rc;
}

/*
 * run.json: hosts whose node did not see the whole mesh in time. A host
 * whose libp2p nobody reaches (down, blocked, its node not started)
 * leaves every other node's table short of it too: those are its
 * finding's, not a cause each.
 */
static int
convergence(struct model *m)
{
	const struct record_input *in = &m->hm->input;
	size_t i, j;

	for (i = 0; i < m->dx->nfindings; i++) {
		const struct finding *f = &m->dx->findings[i];

		if (f->scope == DX_SCOPE_HOST && (f->cause == DX_HOST_DOWN ||
		    f->cause == DX_SETUP || f->cause == DX_ACCESS ||
		    (f->cause == DX_HOST_BLOCKED && (f->protos &
		    DX_PROTO_LIBP2P))))
			return 0;
	}
	for (i = 0; i < in->nruns; i++)
		for (j = 0; j < in->runs[i]->nconvergence; j++) {
			const struct convergence *c =
			    &in->runs[i]->convergence[j];
			long h = matrix_host_index(m->hm, c->host);
			struct finding *f;

			if (c->complete || h < 0)
				continue;
			if ((f = finding_new(m, DX_CONVERGENCE, DX_SCOPE_HOST,
			    (size_t)h, 0, DX_DIR_BOTH, DX_PROTO_LIBP2P)) ==
			    NULL)
				return NP_ERR_NOMEM;
			f->score = 1;
			f->nexpected = 1;
			f->elapsed_s = c->elapsed_s;
		}
	return 0;
}

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
heatmap_diagnose(const struct matrix *hm, const struct matrix *old,
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
	if ((rc = heatmap_evidence_build(&m.ev, hm, old)) != 0)
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
	if ((rc = candidates(&m)) != 0 || (rc = cover(&m)) != 0)
		goto out;
	t2 = time_mono_ns();
	if ((rc = pairs(&m)) != 0 || (rc = setups(&m)) != 0 ||
	    (rc = convergence(&m)) != 0)
		goto out;
	/* -v: where a large run's diagnosis takes its time */
	log_debug(NULL, "diagnosis: cells read in %.2f s, %zu candidate "
	    "causes in %.2f s, pairs in %.2f s; %zu findings",
	    (t1 - t0) / 1e9, m.ncands, (t2 - t1) / 1e9,
	    (time_mono_ns() - t2) / 1e9, dx->nfindings);
	for (i = 0; i < dx->nfindings; i++)
		if ((rc = heatmap_findings_words(&m.ev, &dx->findings[i])) != 0)
			goto out;
	if (dx->nfindings > 1)
		qsort(dx->findings, dx->nfindings, sizeof *dx->findings,
		    cmp_finding);
	rc = 0;
out:
	heatmap_evidence_free(&m.ev);
	free(m.site_first);
	free(m.site_hosts);
	free(m.ulost);
	free(m.usent);
	free(m.ulossy);
	free(m.ucells);
	free(m.cands);
	if (rc != 0)
		heatmap_diagnosis_free(dx);
	return rc;
}

void
heatmap_diagnosis_free(struct diagnosis *dx)
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
heatmap_diagnosis_find(const struct diagnosis *dx, const char *rule)
{
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (dx->findings[i].rule != NULL &&
		    strcmp(dx->findings[i].rule, rule) == 0)
			return &dx->findings[i];
	return NULL;
}

enum dx_severity
heatmap_diagnosis_worst(const struct diagnosis *dx)
{
	enum dx_severity w = DX_SEV_NONE;
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (dx->findings[i].severity > w)
			w = dx->findings[i].severity;
	return w;
}

double
heatmap_diagnosis_most_worse(const struct diagnosis *dx)
{
	double w = 0;
	size_t i;

	for (i = 0; i < dx->nfindings; i++)
		if (dx->findings[i].worse > w)
			w = dx->findings[i].worse;
	return w;
}

int
heatmap_failures(const struct matrix *hm, struct failure_row **rows,
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
