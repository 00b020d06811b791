/*
 * What each cell says to the diagnosis (diagnose_evidence.h): its
 * failure read as the network's, SSH's or the tool's; its latency, loss
 * and throughput held against its site pair's typical value and against
 * the old run. Thresholds are relative (times the typical value) and
 * absolute (a floor in ms or Mbit/s, a count of lost samples), so a lab
 * of microseconds, or an emulator's jitter, is no finding.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose.h"
#include "diagnose_evidence.h"
#include "log.h"
#include "probe_kind.h"
#include "stats.h"

/* The row's metric that is in unit, the summary's first, else the
 * default's, else any; NULL if none. */
static const char *
metric_in(const struct probe_kind *row, const struct probe_unit *unit)
{
	const struct probe_metric *m;

	if ((m = probe_kind_metric(row, row->summary.metric)) != NULL &&
	    m->unit == unit)
		return m->name;
	if ((m = probe_kind_metric(row, row->default_metric)) != NULL &&
	    m->unit == unit)
		return m->name;
	for (m = row->metrics; m != NULL && m->name != NULL; m++)
		if (m->unit == unit)
			return m->name;
	return NULL;
}

/*
 * libp2p_ping this much (ms) and this many times above ICMP, and this
 * much above its site pair's usual overhead, is a detour (a relay); HTTP
 * over libp2p (latency) as much above libp2p_ping is its overhead.
 */
#define DETOUR_MIN_MS 5.0
/* a libp2p node's probe's fastest and slowest samples */
#define LIBP2P_FLOOR "min_ms"
#define LIBP2P_CEIL "max_ms"
#define DETOUR_RATIO 1.5
#define GAP_MIN_MS 10.0
#define GAP_RATIO 3.0
/* Lost samples: no rate is taken as below this; a cell is lossy when at
 * least LOSS_MIN_LOST are lost and that many or more is this unlikely at
 * the reference rate (nats: e^-6.9 = 1/1000). */
#define LOSS_P0_FLOOR 0.002
#define LOSS_MIN_LOST 2
#define LOSS_CELL_NATS 6.9
/*
 * The quantile of a site pair's cells that is its typical value: the
 * lower quartile of latencies (robust to a slow host's cells, most of a
 * small site's), the median of throughputs (short TCP tests through a
 * loaded emulator are bimodal, half of them at half the rate: an upper
 * quartile would make that half narrow; a capped host is far below
 * either).
 */
#define TYPICAL_LOW 0.25
#define TYPICAL_RATE 0.5
/*
 * Noise: a cell is off its typical value (or the old run's) only beyond
 * this many times its kind's spread (of its cells' logs about their site
 * pair's typical value, or about the old run's), taken apart inside the
 * sites and across them: ICMP of microseconds inside a site varies by
 * half its value and across sites by a percent; short iperf3 tests
 * through a loaded emulator vary by 2x and 3x, which only a larger
 * change says something about. About the site pairs the spread is the
 * median absolute deviation's (0.674 sigma of a normal): one host's or
 * pair's fault is a minority of the cells. Against the old run it is the
 * quarter of the cells that changed least (their 25th percentile is 0.319
 * sigma), so that a site's uplink slower since, on most of a small mesh's
 * cells, does not widen it.
 */
#define SPREAD_K 3.0
/* A cell's strength, 1 - e^(-excess / this): 0.6 at 6.9 sigmas off. */
#define STRENGTH_NATS 20.0
#define SPREAD_P50 0.674
#define SPREAD_P25 0.319

int
diagnose_evidence_role(const char *kind, struct dx_role *r)
{
	const struct probe_kind *row = probe_kind_find(kind);
	const struct probe_judge *j = row != NULL ? &row->judge : NULL;

	memset(r, 0, sizeof *r);
	if (j == NULL || (j->slow_ratio <= 0 && j->narrow_ratio <= 0 &&
	    j->lost == NULL))
		return -1;	/* not judged */
	r->row = row;
	r->proto = row->inbound == PROBE_INBOUND_ICMP ? DX_PROTO_ICMP :
	    row->inbound == PROBE_INBOUND_PORT ? DX_PROTO_IPERF3 :
	    DX_PROTO_LIBP2P;
	r->rtt = j->slow_ratio > 0;
	r->slow_ratio = j->slow_ratio;
	r->slow_floor = j->slow_floor;
	r->narrow_ratio = j->narrow_ratio;
	r->narrow_floor = j->narrow_floor;
	r->worse_ratio = j->worse_ratio;
	return 0;
}

/* Class of cell s -> t: 0 inside a site, 1 across sites. */
static int
class_of(const struct evidence *ev, size_t s, size_t t)
{
	return ev->group[s] != ev->group[t];
}

/* The path a bench record's probe took. */
enum ev_path { EV_PATH_UNKNOWN, EV_PATH_DIRECT, EV_PATH_PUNCHED,
	EV_PATH_RELAYED };

static enum ev_path
path_of(const struct matrix_cell *c)
{
	switch (matrix_cell_path(c)) {
	case MATRIX_PATH_DIRECT: return EV_PATH_DIRECT;
	case MATRIX_PATH_PUNCHED: return EV_PATH_PUNCHED;
	case MATRIX_PATH_RELAYED: return EV_PATH_RELAYED;
	default: return EV_PATH_UNKNOWN;
	}
}

/*
 * The path class of cell s -> t (direct, hole-punched after DCUtR, or
 * through a relay), where the records say it (their "path", the latest
 * record's of the pair): its own kind's, else another kind's of the same
 * pair (a bench run's kinds run over the same connection). A relayed
 * pair is then known, not inferred from its round trips; records
 * without it leave every path unknown and flag_over() infers.
 */
static enum ev_path
cell_path(const struct evidence *ev, const struct ev_kind *ek, size_t s,
    size_t t)
{
	enum ev_path p;
	size_t i;

	if ((p = path_of(matrix_cell_at(ev->hm, ek->kind, s, t))) !=
	    EV_PATH_UNKNOWN)
		return p;
	for (i = 0; i < ev->hm->nkinds; i++)
		if (i != ek->k && (p = path_of(matrix_cell_at(ev->hm,
		    &ev->hm->kinds[i], s, t))) != EV_PATH_UNKNOWN)
			return p;
	return EV_PATH_UNKNOWN;
}

double
diagnose_evidence_excess(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t, int loss)
{
	uint16_t f = ek->flag[s * ev->n + t];
	double z = 0, x, v, ty, fac, sp;
	int lost, sent, c = class_of(ev, s, t);

	if (f & (EV_FAIL | EV_ACCESS | EV_SETUP))
		return INFINITY;
	/* a relay the records name is no guess */
	if ((f & EV_DETOUR) && cell_path(ev, ek, s, t) == EV_PATH_RELAYED)
		return INFINITY;
	if (f & (EV_SLOW | EV_NARROW)) {
		v = ek->lat >= 0 ? diagnose_evidence_latency(ev, ek, s, t) :
		    diagnose_evidence_rate(ev, ek, s, t);
		ty = diagnose_evidence_typical(ev, ek, s, t);
		sp = ek->spread[c];
		if (v > 0 && ty > 0) {
			x = sp > 0 ? fabs(log(v / ty)) / sp : INFINITY;
			/* a latency is beyond both noises, the factor's
			 * and the node's ms: the nearer one says how far */
			if (ek->lat >= 0 && ek->spread_ms[c] > 0)
				x = fmin(x, (v - ty) / ek->spread_ms[c]);
			z = fmax(z, x);
		}
	}
	if (f & EV_WORSE) {
		fac = diagnose_evidence_factor(ev, ek, s, t);
		sp = ek->spread_old[c];
		if (fac > 0)
			z = fmax(z, sp > 0 ? log(fac) / sp : INFINITY);
	}
	if (f & (EV_DETOUR | EV_GAP)) {
		v = diagnose_evidence_latency(ev, ek, s, t) -
		    diagnose_evidence_base(ev, ek, s, t) - fmax(0, ek->typ_over[
		    ev->group[s] * ev->g + ev->group[t]]);
		sp = ek->spread_over[c];
		if (!isnan(v))
			z = fmax(z, sp > 0 ? v / sp : INFINITY);
	}
	/* in nats past the threshold: a normal's tail beyond z sigmas is
	 * about e^(-z^2 / 2) */
	x = z > SPREAD_K ? (z * z - SPREAD_K * SPREAD_K) / 2 : 0;
	if ((f & EV_LOSS) && loss) {
		diagnose_evidence_samples(ev, ek, s, t, &lost, &sent);
		if (sent > 0)
			x = fmax(x, diagnose_evidence_tail(lost, sent, ek->p0) -
			    LOSS_CELL_NATS);
	}
	return x;
}

double
diagnose_evidence_strength(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	double x = diagnose_evidence_excess(ev, ek, s, t, 1);

	return isinf(x) ? 1 : 1 - exp(-x / STRENGTH_NATS);
}

double
diagnose_evidence_tail(int k, int n, double p)
{
	double lse = -INFINITY, lp = log(p), lq = log1p(-p), term;
	int i;

	if (k <= 0)
		return 0;
	if (k > n || p <= 0)
		return INFINITY;
	/* -ln sum_{i >= k} C(n, i) p^i (1-p)^(n-i), in logs; the terms
	 * fall fast past k when p is small, the first dozens decide */
	for (i = k; i <= n && i < k + 200; i++) {
		term = lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) +
		    i * lp + (n - i) * lq;
		if (isinf(lse))
			lse = term;
		else if (term > lse)
			lse = term + log1p(exp(lse - term));
		else
			lse += log1p(exp(term - lse));
	}
	return lse < 0 ? -lse : 0;
}

double
diagnose_evidence_kl(double q, double p)
{
	double d = 0;

	if (q <= p)
		return 0;
	if (q > 0)
		d += q * log(q / p);
	if (q < 1)
		d += (1 - q) * log((1 - q) / (1 - p));
	return d;
}

/* Samples lost and sent, read from the cell's record. */
static void
samples_of(const struct evidence *ev, const struct ev_kind *ek, size_t s,
    size_t t, int *lost, int *sent)
{
	const struct matrix_cell *c = matrix_cell_at(ev->hm, ek->kind, s, t);
	double v;

	*lost = *sent = 0;
	if (c->state == CELL_VALUE && ek->lostm >= 0 && ek->sentm >= 0) {
		/* counted by the record (its row's judge says where) */
		if (!isnan(v = c->values[ek->sentm]) && v >= 0 && v < 1e9 &&
		    !isnan(c->values[ek->lostm]) && c->values[ek->lostm] >= 0) {
			*sent = (int)v;
			*lost = (int)fmin(c->values[ek->lostm], v);
		}
		return;
	}
	if (c->state != CELL_VALUE || c->nsamples < 0)
		return;
	if (ek->loss >= 0 && !isnan(v = c->values[ek->loss]) && v >= 0 &&
	    v < 100) {
		*sent = (int)lround(c->nsamples / (1 - v / 100));
		*lost = *sent - c->nsamples;
	} else if (ek->failed >= 0 && !isnan(v = c->values[ek->failed]) &&
	    v >= 0 && v < 1e6) {
		*lost = (int)v;
		*sent = c->nsamples + *lost;
	}
	if (*lost < 0)
		*lost = 0;
}

/* --- typical values ------------------------------------------------------ */

/*
 * Each site pair's typical value of x (n * n, NAN where none) into typ
 * (g * g): its cells' quantile q (above). A slow host of a site of three
 * is in four of the site's
 * six pairs, and a host of a site of two in both: a median would be its,
 * the quartile is the others'. A quantile of the cells, not a model of
 * each host's effect: a host's milliseconds of jitter across sites
 * would otherwise be taken out of its microseconds inside its site.
 */
static int
typicals(const struct evidence *ev, const double *x, double q, double *typ)
{
	size_t n = ev->n, g = ev->g, s, t, b, m;
	size_t *fill = calloc(g * g + 1, sizeof *fill), *at = NULL;
	double *buf = malloc((n * n + 1) * sizeof *buf);
	int rc = NP_ERR_NOMEM;

	if (fill == NULL || buf == NULL ||
	    (at = malloc((g * g + 1) * sizeof *at)) == NULL)
		goto out;
	/* each site pair's values in turn in buf, by a counting pass */
	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++)
			if (s != t && !isnan(x[s * n + t]))
				fill[ev->group[s] * g + ev->group[t] + 1]++;
	for (b = 0; b < g * g; b++)
		fill[b + 1] += fill[b];
	memcpy(at, fill, (g * g + 1) * sizeof *at);
	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++)
			if (s != t && !isnan(x[s * n + t]))
				buf[at[ev->group[s] * g + ev->group[t]]++] =
				    x[s * n + t];
	for (b = 0; b < g * g; b++) {
		m = fill[b + 1] - fill[b];
		typ[b] = m > 0 ? stats_select(buf + fill[b], m, (size_t)(q *
		    (double)(m - 1) + 0.5)) : NAN;
	}
	rc = 0;
out:
	free(fill);
	free(at);
	free(buf);
	return rc;
}

/* --- building ----------------------------------------------------------- */

/* The matrix's index of the kind's metric in unit (-1 if none). */
static int
metric_index(const struct matrix_kind *k, const struct probe_kind *row,
    const struct probe_unit *unit)
{
	const char *name = metric_in(row, unit);

	return name != NULL ? matrix_find_metric(k, name) : -1;
}

/* The latency metric of old's kind named as the new one's. */
static int
old_metric(const struct matrix_kind *nk, int m, const struct matrix_kind *ok)
{
	return m < 0 || ok == NULL ? -1 : matrix_find_metric(ok,
	    nk->metrics[m].name);
}

/* Failures, values and samples of one kind; the reference loss rate. */
static void
flag_cells(struct evidence *ev, struct ev_kind *ek)
{
	const struct matrix *hm = ev->hm;
	size_t n = ev->n, s, t, nr = 0;
	double *rates = malloc((n * n + 1) * sizeof *rates), q;

	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++) {
			const struct matrix_cell *c = matrix_cell_at(hm, ek->kind, s,
			    t);
			uint16_t *f = &ek->flag[s * n + t];
			int l, d;

			if (s == t)
				continue;
			if (c->state == CELL_FAILED) {
				const struct matrix_failure *r = c->last_failed;

				*f |= (uint16_t)diagnose_evidence_classify(
				    r != NULL ? r->error : NULL,
				    r != NULL ? r->error_class : NULL,
				    hm->hosts[s], hm->hosts[t]);
				continue;
			}
			if (c->state != CELL_VALUE)
				continue;
			*f |= EV_OK;
			samples_of(ev, ek, s, t, &l, &d);
			if (d > 65535) {	/* beyond what is kept: */
				l = (int)((double)l * 65535 / d); /* its rate */
				d = 65535;
			}
			if (l > d)
				l = d = 0;
			if (ek->nsent != NULL) {
				ek->nlost[s * n + t] = (uint16_t)l;
				ek->nsent[s * n + t] = (uint16_t)d;
			}
			if (l > 0)
				*f |= EV_LOSSY;
			if (d > 0) {
				ek->lost += (size_t)l;
				ek->sent += (size_t)d;
				if (rates != NULL)
					rates[nr++] = (double)l / d;
			}
		}
	/*
	 * The reference rate: the lower quartile of the cells' rates, so
	 * that a lossy uplink, lossy on most of a small mesh's cells, does
	 * not raise what its own cells are held against; never below
	 * LOSS_P0_FLOOR (a clean run's quartile is 0).
	 */
	ek->p0 = LOSS_P0_FLOOR;
	if (rates != NULL && nr > 0 && (q = stats_select(rates, nr,
	    nr / 4)) > ek->p0)
		ek->p0 = q;
	free(rates);
	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++) {
			int l, d;

			if (!(ek->flag[s * n + t] & EV_LOSSY))
				continue;
			diagnose_evidence_samples(ev, ek, s, t, &l, &d);
			if (d > 0 && l >= LOSS_MIN_LOST &&
			    diagnose_evidence_tail(l, d, ek->p0) >=
			    LOSS_CELL_NATS)
				ek->flag[s * n + t] |= EV_LOSS;
		}
}

/* How x deviates from typ: on logs (log), as a ratio (ratio), in x's
 * own unit (absolute). */
enum dev_scale { DEV_LOG, DEV_RATIO, DEV_ABSOLUTE };

/*
 * The spread of x (n * n) about its site pairs' typical values (typ, in
 * x's scale), per class (inside sites, across them), as a normal's sigma
 * from the quantile q (rank q of the sorted absolute deviations, over
 * what that rank is of a normal's: 0.5 and SPREAD_P50, 0.25 and
 * SPREAD_P25). A class of fewer than 4 cells takes the other's.
 */
static void
spreads(const struct evidence *ev, const double *x, const double *typ,
    enum dev_scale scale, double q, double norm, double out[2])
{
	size_t n = ev->n, s, t, m[2] = { 0, 0 }, c;
	double *d[2];

	out[0] = out[1] = 0;
	d[0] = malloc((n * n + 1) * sizeof *d[0]);
	d[1] = malloc((n * n + 1) * sizeof *d[1]);
	if (d[0] == NULL || d[1] == NULL) {
		free(d[0]);
		free(d[1]);
		return;
	}
	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++) {
			double y = x[s * n + t], ty = typ != NULL ?
			    typ[ev->group[s] * ev->g + ev->group[t]] : 0;

			c = (size_t)class_of(ev, s, t);
			if (s == t || isnan(y) || isnan(ty))
				continue;
			if (scale == DEV_LOG)
				d[c][m[c]++] = fabs(y - ty);
			else if (scale == DEV_ABSOLUTE)
				d[c][m[c]++] = fabs(y - ty);
			else if (y > 0 && ty > 0)
				d[c][m[c]++] = fabs(log(y / ty));
		}
	for (c = 0; c < 2; c++)
		if (m[c] >= 4)
			out[c] = stats_select(d[c], m[c],
			    (size_t)((double)m[c] * q)) / norm;
	for (c = 0; c < 2; c++)
		if (m[c] < 4)
			out[c] = out[1 - c];
	free(d[0]);
	free(d[1]);
}

/*
 * A libp2p node's own noise, in ms: the span of a probe's samples (its
 * slowest less its fastest), the median over the kind's cells. The
 * node's stalls on a loaded machine (scheduling, its runtime) spread a
 * probe's samples by tens of ms and now and then hold all of them; a
 * path's delay is in every sample and spreads none. A cell's fastest
 * sample is slow only NODE_SPANS spans above its site pair's (the
 * spread in ms is raised to that): on a quiet node the span is a
 * millisecond and the thresholds stay the others'. x: scratch (n * n).
 */
#define NODE_SPANS 2.0
static void
node_noise(const struct evidence *ev, struct ev_kind *ek, double *x)
{
	const struct matrix_kind *k = ek->kind;
	int lo = matrix_find_metric(k, LIBP2P_FLOOR),
	    hi = matrix_find_metric(k, LIBP2P_CEIL);
	size_t n = ev->n, i, m = 0;
	double span, sigma;

	if ((ek->role.row->judge.as & PROBE_AS_BASE) || lo < 0 || hi < 0 ||
	    ek->lat != lo)
		return;
	for (i = 0; i < n * n; i++) {
		const struct matrix_cell *c = matrix_cell_at(ev->hm, k, i / n,
		    i % n);

		if (i / n != i % n && c->state == CELL_VALUE &&
		    !isnan(c->values[lo]) && !isnan(c->values[hi]) &&
		    c->values[hi] >= c->values[lo])
			x[m++] = c->values[hi] - c->values[lo];
	}
	if (m == 0)
		return;
	span = stats_select(x, m, m / 2);
	ek->span_ms = span;
	sigma = NODE_SPANS * span / SPREAD_K;
	for (i = 0; i < 2; i++)
		if (ek->spread_ms[i] < sigma)
			ek->spread_ms[i] = sigma;
}

/* Latencies above, throughputs below their site pair's typical value. */
static int
flag_typical(struct evidence *ev, struct ev_kind *ek, double *x)
{
	size_t n = ev->n, g = ev->g, s, t;
	const struct dx_role *ro = &ek->role;
	double ratio;
	int rc;

	if (ek->lat >= 0) {
		if ((ek->typ_lat = malloc(g * g * sizeof *ek->typ_lat)) == NULL)
			return NP_ERR_NOMEM;
		for (s = 0; s < n * n; s++)
			x[s] = diagnose_evidence_latency(ev, ek, s / n, s % n);
		if ((rc = typicals(ev, x, TYPICAL_LOW, ek->typ_lat)) != 0)
			return rc;
		spreads(ev, x, ek->typ_lat, DEV_RATIO, 0.5, SPREAD_P50,
		    ek->spread);
		spreads(ev, x, ek->typ_lat, DEV_ABSOLUTE, 0.5, SPREAD_P50,
		    ek->spread_ms);
		node_noise(ev, ek, x);
		for (s = 0; s < n; s++)
			for (t = 0; t < n; t++) {
				double v = x[s * n + t], ty = ek->typ_lat[
				    ev->group[s] * g + ev->group[t]], above;
				int c = class_of(ev, s, t);

				ratio = fmax(ro->slow_ratio, exp(SPREAD_K *
				    ek->spread[c]));
				above = fmax(ro->slow_floor, SPREAD_K *
				    ek->spread_ms[c]);
				if (s != t && !isnan(v))
					ek->flag[s * n + t] |= EV_VALUE;
				if (s != t && !isnan(v) && !isnan(ty) &&
				    v - ty >= above && v >= ty * ratio)
					ek->flag[s * n + t] |= EV_SLOW;
			}
	}
	if (ek->rate >= 0) {
		if ((ek->typ_rate = malloc(g * g * sizeof *ek->typ_rate)) ==
		    NULL)
			return NP_ERR_NOMEM;
		/* Throughputs multiply (a cap is a factor): their logs. */
		for (s = 0; s < n * n; s++)
			x[s] = log(diagnose_evidence_rate(ev, ek, s / n, s % n));
		if ((rc = typicals(ev, x, TYPICAL_RATE, ek->typ_rate)) != 0)
			return rc;
		spreads(ev, x, ek->typ_rate, DEV_LOG, 0.5, SPREAD_P50,
		    ek->spread);
		for (s = 0; s < g * g; s++)
			ek->typ_rate[s] = exp(ek->typ_rate[s]);
		for (s = 0; s < n; s++)
			for (t = 0; t < n; t++) {
				double v = diagnose_evidence_rate(ev, ek, s, t);
				double ty = ek->typ_rate[ev->group[s] * g +
				    ev->group[t]];

				ratio = fmax(ro->narrow_ratio, exp(SPREAD_K *
				    ek->spread[class_of(ev, s, t)]));
				if (s != t && !isnan(v) && ek->lat < 0)
					ek->flag[s * n + t] |= EV_VALUE;
				if (s != t && !isnan(v) && !isnan(ty) &&
				    ty - v >= ro->narrow_floor &&
				    v * ratio <= ty)
					ek->flag[s * n + t] |= EV_NARROW;
			}
	}
	return 0;
}

/* Worse than the old run; failed where it worked. */
static void
flag_old(struct evidence *ev, struct ev_kind *ek)
{
	size_t n = ev->n, s, t;
	const struct dx_role *ro = &ek->role;
	double ratio, *d;

	if (ek->okind == NULL)
		return;
	/* Between two runs, what changed least says the noise (a loaded
	 * machine's iperf3 halves inside a site from one run to the next):
	 * the spread of the cells' log factors. */
	if ((d = malloc((n * n + 1) * sizeof *d)) != NULL) {
		for (s = 0; s < n * n; s++) {
			double fac = s / n == s % n ? NAN :
			    diagnose_evidence_factor(ev, ek, s / n, s % n);

			d[s] = fac > 0 ? log(fac) : NAN;
		}
		spreads(ev, d, NULL, DEV_ABSOLUTE, 0.25, SPREAD_P25,
		    ek->spread_old);
		free(d);
	}
	/* ... and never less than this run's spread about its site pairs:
	 * a test that now and then collapses (3 s of TCP through a loaded
	 * emulator) moves a quarter of the cells little and a few a lot,
	 * from one run to the next as between peers. */
	for (s = 0; s < 2; s++)
		if (ek->spread[s] > ek->spread_old[s])
			ek->spread_old[s] = ek->spread[s];
	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++) {
			uint16_t *f = &ek->flag[s * n + t];
			const struct matrix_cell *oc;
			double o, v, fac;

			if (s == t || ev->omap[s] < 0 || ev->omap[t] < 0)
				continue;
			oc = matrix_cell_at(ev->old, ek->okind,
			    (size_t)ev->omap[s], (size_t)ev->omap[t]);
			if ((*f & EV_FAIL) && oc->state == CELL_VALUE)
				*f |= EV_SINCE;
			o = diagnose_evidence_old(ev, ek, s, t);
			if (!(*f & EV_OK) || isnan(o))
				continue;
			*f |= EV_OLD;
			fac = diagnose_evidence_factor(ev, ek, s, t);
			ratio = fmax(ro->worse_ratio, exp(SPREAD_K *
			    ek->spread_old[class_of(ev, s, t)]));
			if (isnan(fac) || fac < ratio)
				continue;
			if (ek->lat >= 0) {
				v = diagnose_evidence_latency(ev, ek, s, t);
				if (v - o >= ro->slow_floor)
					*f |= EV_WORSE;
			} else {
				v = diagnose_evidence_rate(ev, ek, s, t);
				if (o - v >= ro->narrow_floor)
					*f |= EV_WORSE;
			}
		}
}

/*
 * A pair's libp2p over its baseline: libp2p_ping over ICMP (a detour
 * when far above it, and above what its site pair's pairs take), latency
 * over libp2p_ping (else ICMP: HTTP over libp2p's overhead). A path the
 * records call relayed is a detour whatever its figures; one they call
 * direct (or punched) is none.
 */
static int
flag_over(struct evidence *ev, struct ev_kind *ek, const struct ev_kind *base,
    const struct ev_kind *base2, double min_ms, double ratio, uint16_t flag,
    double *x)
{
	size_t n = ev->n, g = ev->g, s, t;
	int rc;

	if ((ek->typ_over = malloc(g * g * sizeof *ek->typ_over)) == NULL)
		return NP_ERR_NOMEM;
	for (s = 0; s < n * n; s++) {
		double v = diagnose_evidence_latency(ev, ek, s / n, s % n), b;

		b = base != NULL ? diagnose_evidence_latency(ev, base, s / n,
		    s % n) : NAN;
		if (isnan(b) && base2 != NULL)
			b = diagnose_evidence_latency(ev, base2, s / n, s % n);
		x[s] = v - b;
	}
	if ((rc = typicals(ev, x, TYPICAL_LOW, ek->typ_over)) != 0)
		return rc;
	/* a node's own jitter (the stand-in's: tens of ms) spreads the
	 * overhead of every pair: a detour stands out of it */
	spreads(ev, x, ek->typ_over, DEV_ABSOLUTE, 0.5, SPREAD_P50,
	    ek->spread_over);
	for (s = 0; s < n; s++)
		for (t = 0; t < n; t++) {
			double o = x[s * n + t], v, to, need;

			to = ek->typ_over[ev->group[s] * g + ev->group[t]];
			v = diagnose_evidence_latency(ev, ek, s, t);
			if (s == t)
				continue;
			if (flag == EV_DETOUR && cell_path(ev, ek, s, t) !=
			    EV_PATH_UNKNOWN) {
				if (cell_path(ev, ek, s, t) == EV_PATH_RELAYED)
					ek->flag[s * n + t] |= flag;
				continue;
			}
			if (isnan(o) || isnan(to))
				continue;
			need = fmax(min_ms, SPREAD_K *
			    ek->spread_over[class_of(ev, s, t)]);
			if (o >= min_ms && v >= (v - o) * ratio &&
			    o - (to > 0 ? to : 0) >= need)
				ek->flag[s * n + t] |= flag;
		}
	return 0;
}

void
diagnose_evidence_free(struct evidence *ev)
{
	size_t i;

	if (ev == NULL)
		return;
	for (i = 0; i < ev->nkinds; i++) {
		free(ev->kinds[i].flag);
		free(ev->kinds[i].nlost);
		free(ev->kinds[i].nsent);
		free(ev->kinds[i].typ_lat);
		free(ev->kinds[i].typ_rate);
		free(ev->kinds[i].typ_over);
	}
	free(ev->kinds);
	free(ev->group);
	free(ev->gsize);
	free(ev->omap);
	memset(ev, 0, sizeof *ev);
}

int
diagnose_evidence_build(struct evidence *ev, const struct matrix *hm,
    const struct matrix *old)
{
	size_t n = hm->nhosts, i, k;
	double *x = NULL;
	int rc = NP_ERR_NOMEM;

	memset(ev, 0, sizeof *ev);
	ev->hm = hm;
	ev->old = old;
	ev->n = n;
	ev->g = hm->host_group != NULL && hm->ngroups > 0 ? hm->ngroups : 1;
	ev->icmp = ev->p2p = ev->http = -1;
	if ((ev->group = calloc(n ? n : 1, sizeof *ev->group)) == NULL ||
	    (ev->gsize = calloc(ev->g, sizeof *ev->gsize)) == NULL ||
	    (ev->omap = malloc((n ? n : 1) * sizeof *ev->omap)) == NULL ||
	    (ev->kinds = calloc(hm->nkinds + 1, sizeof *ev->kinds)) == NULL ||
	    (x = malloc((n * n + 1) * sizeof *x)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if (ev->g > 1)
			ev->group[i] = hm->host_group[i];
		ev->gsize[ev->group[i]]++;
		ev->omap[i] = old != NULL ? matrix_host_index(old,
		    hm->hosts[i]) : -1;
	}
	for (k = 0; k < hm->nkinds; k++) {
		const struct matrix_kind *kind = &hm->kinds[k];
		struct dx_role ro;
		struct ev_kind *ek;

		if (kind->derived ||
		    diagnose_evidence_role(kind->name, &ro) != 0)
			continue;
		ek = &ev->kinds[ev->nkinds++];
		ek->k = k;
		ek->kind = kind;
		ek->role = ro;
		/* the judged latency: the summary's (a median), else the
		 * default (an average: upstream's ping records have no
		 * median); a throughput's Mbit/s */
		ek->lat = -1;
		/* a libp2p node's round trips: their fastest sample. The
		 * node's own stalls (a loaded machine's scheduling, its
		 * runtime) add tens of ms to some samples and leave the
		 * path's time in the others; a slower path or a relay is
		 * in every one of them */
		if (ro.rtt && ro.row->judge.latency != NULL)
			ek->lat = matrix_find_metric(kind,
			    ro.row->judge.latency);
		if (ro.rtt && ek->lat < 0 && (ek->lat = matrix_find_metric(kind,
		    ro.row->summary.metric)) < 0)
			ek->lat = matrix_find_metric(kind,
			    ro.row->default_metric);
		ek->loss = metric_index(kind, ro.row, &probe_unit_pct);
		ek->failed = metric_index(kind, ro.row, &probe_unit_samples);
		ek->lostm = ro.row->judge.lost != NULL ? matrix_find_metric(
		    kind, ro.row->judge.lost) : -1;
		ek->sentm = ro.row->judge.sent != NULL ? matrix_find_metric(
		    kind, ro.row->judge.sent) : -1;
		ek->rate = ro.rtt || ro.narrow_ratio <= 0 ? -1 :
		    ro.row->judge.rate != NULL ? matrix_find_metric(kind,
		    ro.row->judge.rate) : metric_index(kind, ro.row,
		    &probe_unit_mbps);
		ek->okind = old != NULL ? matrix_find_kind(old, kind->name) :
		    NULL;
		ek->olat = old_metric(kind, ek->lat, ek->okind);
		ek->orate = old_metric(kind, ek->rate, ek->okind);
		if ((ek->flag = calloc(n * n + 1, sizeof *ek->flag)) == NULL ||
		    ((ek->loss >= 0 || ek->failed >= 0 || ek->sentm >= 0) &&
		    ((ek->nlost = calloc(n * n + 1, sizeof *ek->nlost)) ==
		    NULL || (ek->nsent = calloc(n * n + 1,
		    sizeof *ek->nsent)) == NULL))) {
			rc = NP_ERR_NOMEM;
			goto out;
		}
		if ((ro.row->judge.as & PROBE_AS_BASE) && ro.rtt)
			ev->icmp = (long)(ev->nkinds - 1);
		else if ((ro.row->judge.as & PROBE_AS_STREAM) && ro.rtt)
			ev->p2p = (long)(ev->nkinds - 1);
		else if ((ro.row->judge.as & PROBE_AS_APP) && ro.rtt)
			ev->http = (long)(ev->nkinds - 1);
		flag_cells(ev, ek);
		if ((rc = flag_typical(ev, ek, x)) != 0)
			goto out;
		flag_old(ev, ek);
		/* -v: what a kind's noise made of its thresholds */
		log_debug(NULL, "diagnosis: %s: noise (sigma of logs) %.3g "
		    "inside sites, %.3g across (in ms %.3g, %.3g); against "
		    "the old run %.3g, %.3g; reference loss %.3g; a probe's "
		    "samples span %.3g ms", kind->name,
		    ek->spread[0], ek->spread[1], ek->spread_ms[0],
		    ek->spread_ms[1], ek->spread_old[0], ek->spread_old[1],
		    ek->p0, ek->span_ms);
	}
	if (ev->p2p >= 0 && ev->icmp >= 0 && (rc = flag_over(ev,
	    &ev->kinds[ev->p2p], &ev->kinds[ev->icmp], NULL, DETOUR_MIN_MS,
	    DETOUR_RATIO, EV_DETOUR, x)) != 0)
		goto out;
	if (ev->http >= 0 && (ev->p2p >= 0 || ev->icmp >= 0) &&
	    (rc = flag_over(ev, &ev->kinds[ev->http], ev->p2p >= 0 ?
	    &ev->kinds[ev->p2p] : NULL, ev->icmp >= 0 ? &ev->kinds[ev->icmp] :
	    NULL, GAP_MIN_MS, GAP_RATIO, EV_GAP, x)) != 0)
		goto out;
	rc = 0;
out:
	free(x);
	if (rc != 0)
		diagnose_evidence_free(ev);
	return rc;
}
