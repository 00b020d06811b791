/*
 * What the causes of more than a pair leave, explained pair by pair: each
 * pair's cause read from which kinds and ways are bad (a block, one way,
 * degraded, or the libp2p causes of the bench documentation), or the bad
 * cells left as one scattered finding; tool and setup failures are setup
 * findings by the host they belong to, never the network's; and run.json's
 * hosts whose node did not see the whole mesh in time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose_model.h"
#include "probe_kind.h"

/* A pair's degradation is a finding when its cells are, together, this
 * far past their thresholds, in nats (4.6: a hundred times less likely
 * than the threshold's): one cell 4.3 sigmas off, or a few a little (a
 * failure always is). */
#define PAIR_EVIDENCE 4.6
/* the test of a cell's lost samples (diagnose_evidence.c's), for a pair's */
#define LOSS_PAIR_NATS 6.9
/* Bad cells left after the causes of more than a pair are one finding,
 * scattered, when at least this many, this share of the cells measured,
 * and no host in more than this share of them. */
#define SCATTER_MIN 20
#define SCATTER_SHARE 0.005
#define SCATTER_HOST_SHARE 0.2

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

/* a stream's round trip (its row's judge: libp2p_ping's) */
static int
is_p2p_rtt(const struct ev_kind *ek)
{
	return (ek->role.row->judge.as & PROBE_AS_STREAM) != 0;
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
				excess += diagnose_evidence_excess(&m->ev, ek, x,
				    y, 0);
				lossy |= (fl & EV_LOSS) != 0;
				diagnose_evidence_samples(&m->ev, ek, x, y, &l,
				    &sn);
				lost += l;
				sent += sn;
			}
			if (lossy && sent > 0)
				excess += fmax(0, diagnose_evidence_tail(lost,
				    sent, ek->p0) - LOSS_PAIR_NATS);
		}
		if (excess < PAIR_EVIDENCE)
			return 0;
	}
	if ((f = diagnose_finding(m, cause, DX_SCOPE_PAIR, a, b, dir, protos)) ==
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
			strength += diagnose_evidence_strength(&m->ev, ek, x, y);
			f->protos |= ek->role.proto;
			if ((fl & EV_LOSS) && f->loss_kind == NULL)
				f->loss_kind = ek->kind->name;
			if (f->loss_kind == ek->kind->name) {
				diagnose_evidence_samples(&m->ev, ek, x, y,
				    &lost, &sent);
				f->lost += (size_t)lost;
				f->sent += (size_t)sent;
				f->ref_rate = ek->p0;
			}
			if ((rc = diagnose_explain(m, f, ki, x, y)) != 0)
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
		f->one_test = diagnose_evidence_tests(&m->ev, one, ox, oy) == 1;
	/* A failure is certain, its cause less (the host or the path); a
	 * degradation as sure as it shows in every kind and way it concerns,
	 * and as far beyond its kind's noise as it is. */
	f->score = (double)bad / (double)meas * (double)bad /
	    (double)(bad + 1) * (bad > 0 ? strength / (double)bad : 0);
	if (cause == DX_PAIR_BLOCKED || cause == DX_ONE_WAY ||
	    cause == DX_RELAY_RESERVATION)
		f->score = (double)bad / (double)(bad + 1);
	diagnose_worse(m, f);
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
	if ((f = diagnose_finding(m, DX_SCATTERED, DX_SCOPE_MESH, 0, 0, DX_DIR_BOTH,
	    protos)) == NULL)
		return NP_ERR_NOMEM;
	for (ki = 0; ki < m->ev.nkinds && rc == 0; ki++)
		for (s = 0; s < n && rc == 0; s++)
			for (t = 0; t < n && rc == 0; t++) {
				uint16_t fl = m->ev.kinds[ki].flag[s * n + t];

				if ((fl & EV_DONE) || !(fl & want) ||
				    (!fail && (fl & EV_FAIL)))
					continue;
				rc = diagnose_explain(m, f, ki, s, t);
			}
	f->nexpected = measured;
	/* as sure as it is spread: no host stands out */
	f->score = 1 - (double)most / (double)count;
	return rc;
}

int
diagnose_pairs(struct model *m)
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
int
diagnose_setups(struct model *m)
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
				own = diagnose_owner(f, s, t);
				slot = own * 2 + ((f & EV_ACCESS) != 0);
				if (by[slot] == NULL) {
					size_t idx = m->dx->nfindings;

					if (diagnose_finding(m, (f & EV_ACCESS) ?
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
				rc = diagnose_explain(m, &m->dx->findings[(size_t)
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
int
diagnose_convergence(struct model *m)
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
			if ((f = diagnose_finding(m, DX_CONVERGENCE, DX_SCOPE_HOST,
			    (size_t)h, 0, DX_DIR_BOTH, DX_PROTO_LIBP2P)) ==
			    NULL)
				return NP_ERR_NOMEM;
			f->score = 1;
			f->nexpected = 1;
			f->elapsed_s = c->elapsed_s;
		}
	return 0;
}
