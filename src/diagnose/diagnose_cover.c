/*
 * The diagnosis's causes of more than a pair: each candidate cause at a
 * place predicts a set of cells bad and the others not; a walk over its
 * cells tallies them, and a candidate is valid when the cells it predicts
 * are bad enough of the time (a share, or for lost samples a pooled test
 * that no single peer carries). A greedy cover takes the valid candidate
 * of the largest gain, marks its cells explained and goes on (lazily:
 * gains only fall).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose_model.h"
#include "probe_kind.h"

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

/* --- walking a candidate's cells --------------------------------------- */

static int
in_site(const struct model *m, size_t h, size_t site)
{
	return m->ev.group[h] == site;
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

/* Whether a cell counts for a failure cause: 1 bad, -1 against, 0 not. */
static int
judge_fail(struct model *m, const struct hyp *h, size_t ki, size_t s,
    size_t t, int side)
{
	uint16_t f = *diagnose_flag(m, ki, s, t);
	size_t own = diagnose_owner(f, s, t);
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

		if ((ek->role.row->judge.as & PROBE_AS_STREAM) ||
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
	uint16_t *f = diagnose_flag(m, ki, s, t);
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
	if (*diagnose_flag(m, ki, s, t) & EV_OK)
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
	uint16_t f = *diagnose_flag(m, ki, s, t);
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
	diagnose_evidence_samples(&m->ev, ek, s, t, &lost, &sent);
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
	    N * diagnose_evidence_kl(q, pr) < LOSS_NATS)
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
	if (N2 <= 0 || N2 * diagnose_evidence_kl(L2 / N2, pr) < LOSS_NATS_LOO)
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
	uint16_t f = *diagnose_flag(m, ki, s, t);
	int bad;

	(void)ta;
	if ((f & EV_DONE) || ma->rc != 0 || side == 1)
		return;
	if (degrades(h))
		bad = side == 0 && (f & (degrade_bad(h) | ma->extra));
	else
		bad = judge_fail(m, h, ki, s, t, side) > 0;
	if (bad)
		ma->rc = diagnose_explain(m, ma->f, ki, s, t);
}

/* Take candidate h: a finding of its cause, its cells explained. */
static int
accept(struct model *m, const struct hyp *h, const struct tally *ta)
{
	struct mark_arg ma;
	struct tally scratch;
	unsigned cause = h->cause;
	struct finding *f;

	if ((f = diagnose_finding(m, cause, h->scope, h->a, h->b, h->dir,
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
	diagnose_worse(m, f);
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

int
diagnose_candidates(struct model *m)
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
int
diagnose_cover(struct model *m)
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
