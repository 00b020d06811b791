/*
 * Private to the diagnosis (diagnose.c, diagnose_findings.c): what
 * each cell says. Per measured kind, a flag per cell: a value, a failure
 * of the network, of SSH or of the tool and setup; lost samples, a
 * latency above or a throughput below its site pair's typical value,
 * worse than the old run; libp2p far above ICMP (a detour) or HTTP over
 * libp2p far above libp2p_ping (its overhead). A site pair's typical
 * value is its cells' lower quartile (the median of a throughput), robust to
 * one host's own effect: a slow host in a site of three is in four of
 * its six pairs, and the quartile is still the others'. Thresholds are
 * ratios, absolute floors and sigmas of each kind's noise, inside sites
 * and across them apart.
 */
#ifndef NETPROF_DIAGNOSE_EVIDENCE_H
#define NETPROF_DIAGNOSE_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "matrix.h"
#include "probe_kind.h"

/* The protocols a kind's cells concern (dx_role's proto), and so a
 * finding's (its protos; bits). */
#define DX_PROTO_ICMP	1u	/* ping */
#define DX_PROTO_IPERF3	2u	/* iperf3's TCP port */
#define DX_PROTO_LIBP2P	4u	/* the libp2p port: libp2p_ping, latency, throughput */

/* A cell's flags. */
#define EV_OK		0x0001u	/* a value */
#define EV_FAIL		0x0002u	/* failed: the network (loss, refused, ...) */
#define EV_ACCESS	0x0004u	/* failed: netprof could not reach a host */
#define EV_SETUP	0x0008u	/* failed: the tool or the setup */
#define EV_BYTGT	0x0010u	/* ACCESS, SETUP: the target's; else the source's */
#define EV_SLOW		0x0020u	/* latency above its site pair's typical */
#define EV_LOSS		0x0040u	/* lost samples beyond the reference rate */
#define EV_NARROW	0x0080u	/* throughput below its site pair's typical */
#define EV_WORSE	0x0100u	/* worse than the old run */
#define EV_SINCE	0x0200u	/* failed, and worked in the old run */
#define EV_DETOUR	0x0400u	/* libp2p_ping far above ICMP: relayed */
#define EV_GAP		0x0800u	/* latency far above libp2p_ping */
#define EV_LOSSY	0x1000u	/* at least one sample lost */
#define EV_OLD		0x2000u	/* the old run has a value to compare */
#define EV_VALUE	0x4000u	/* the figure it is judged by (latency, else
				   throughput) */
#define EV_DONE		0x8000u	/* explained by a finding */

#define EV_FAILED	(EV_FAIL | EV_ACCESS | EV_SETUP)
#define EV_DEGRADED	(EV_SLOW | EV_LOSS | EV_NARROW | EV_WORSE)
#define EV_BAD		(EV_FAILED | EV_DEGRADED | EV_DETOUR | EV_GAP)

/*
 * What a kind means to the diagnosis: its row of the kinds' table
 * (probe_kinds[]: its role, metrics and units, what its inbound needs
 * open), and how far off typical is a finding, by its role and whether
 * it is judged by a latency or a throughput.
 */
struct dx_role {
	const struct probe_kind *row;
	unsigned proto;			/* DX_PROTO_*, from the row's inbound */
	int rtt;			/* judged by a latency, else a rate */
	double slow_ratio, slow_floor;	/* above typical: times and ms */
	double narrow_ratio, narrow_floor; /* below: times and Mbit/s */
	double worse_ratio;		/* than the old run */
};

struct ev_kind {
	size_t k;			/* index into hm->kinds */
	const struct matrix_kind *kind;
	struct dx_role role;
	int lat, loss, failed, rate;	/* metric indexes; -1 if none */
	int lostm, sentm;		/* the samples lost and sent, as the
					   records count them; -1 if not */
	const struct matrix_kind *okind;	/* the old run's; NULL if none */
	int olat, orate;
	uint16_t *flag;			/* n * n */
	double *typ_lat, *typ_rate;	/* per site pair (g * g); NAN if none */
	double *typ_over;		/* libp2p_ping: over ICMP; latency: over
					 * libp2p_ping (the gap); NULL if none */
	/* Noise, robust sigmas inside sites [0] and across them [1]: of
	 * the judged figure's logs about their site pair's, of the log
	 * factors against the old run (0 without one), of the overhead
	 * over the baseline (ms); and of a latency's ms above or below its
	 * site pair's (a node's own jitter adds, whatever the distance) */
	double spread[2], spread_old[2], spread_over[2], spread_ms[2];
	double span_ms;			/* a libp2p probe's samples' span (ms),
					 * the median cell's; 0 if none */
	double p0;			/* reference rate of lost samples */
	size_t lost, sent;		/* over every cell */
	uint16_t *nlost, *nsent;	/* per cell (n * n); NULL: no samples */
};

struct evidence {
	const struct matrix *hm, *old;
	size_t n, g;
	size_t *group;			/* per host: its site (0 if none) */
	size_t *gsize;			/* hosts per site */
	long *omap;			/* per host: its index in old, or -1 */
	struct ev_kind *kinds;
	size_t nkinds;
	long icmp, p2p, http;		/* index into kinds of ping,
					 * libp2p_ping, latency; -1 if none */
};

/* The causes the model tells apart (struct finding's cause). */
enum dx_cause {
	DX_HOST_DOWN, DX_HOST_UNREACHABLE, DX_SITE_DOWN, DX_SITE_PAIR_DOWN,
	DX_MESH_DOWN, DX_NO_DIRECT_DIAL, DX_HOST_BLOCKED,
	DX_HOST_RELAY_RESERVATION, DX_HOST_LINK, DX_SITE_UPLINK,
	DX_SITE_PAIR_PATH, DX_HOST_RELAYED,
	DX_PAIR_BLOCKED, DX_ONE_WAY, DX_PAIR_DEGRADED, DX_RELAY_RESERVATION,
	DX_RELAYED, DX_HTTP_OVERHEAD, DX_INTERMITTENT, DX_LIBP2P_DEGRADED,
	DX_SETUP, DX_ACCESS, DX_CONVERGENCE, DX_SCATTERED,
	DX_NCAUSES
};

/* Cells' evidence of hm (built, grouped) against old (or NULL). */
int diagnose_evidence_build(struct evidence *ev, const struct matrix *hm,
    const struct matrix *old);
void diagnose_evidence_free(struct evidence *ev);

/* What kind (by name) means to the diagnosis, into *r: 0, or -1 for a
 * kind it does not read (derived, unknown, without a figure). */
int diagnose_evidence_role(const char *kind, struct dx_role *r);

/* Figures of cell s -> t of kind ek; NAN if none. */
double diagnose_evidence_latency(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
double diagnose_evidence_rate(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
/* The old run's value of what the kind is judged by (latency, else
 * rate); NAN if none. */
double diagnose_evidence_old(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
/* What a libp2p kind's latency is held against on the same pair:
 * libp2p_ping's ICMP, latency's libp2p_ping (else ICMP); NAN if none. */
double diagnose_evidence_base(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
/* Samples lost of sent (*sent 0 if unknown). */
void diagnose_evidence_samples(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t, int *lost, int *sent);
/* Tests behind cell s -> t's figure: its records read (--aggregate
 * median: every ok one; else the latest) times the samples of each (a
 * bench throughput's transfers); at least 1. */
int diagnose_evidence_tests(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
/* The site pair's typical value of what the kind is judged by. */
double diagnose_evidence_typical(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
/* The error text of a failed cell, or NULL. */
const char *diagnose_evidence_error(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);
/* How many times worse than the old run (above 1 is worse); NAN if not
 * comparable. */
double diagnose_evidence_factor(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);

/*
 * How far beyond noise cell s -> t is bad, in nats (the log of how much
 * less likely than the threshold's it is): for a figure off its typical
 * value, the old run's or its overhead by z sigmas of its kind's noise
 * in its class, (z^2 - K^2) / 2; for lost samples, the binomial tail's
 * nats past the cell's test (unless !loss: a pair pools its cells'
 * samples); the most of what it shows; INFINITY for a failure, 0 if none.
 * Strength: 1 - e^(-excess / 20), 0 to 1 (0.6 at 6.9 sigmas off).
 */
double diagnose_evidence_excess(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t, int loss);
double diagnose_evidence_strength(const struct evidence *ev,
    const struct ev_kind *ek, size_t s, size_t t);

/* -ln P(at least k of n lost | rate p): the binomial tail, in nats. */
double diagnose_evidence_tail(int k, int n, double p);

/*
 * The Kullback-Leibler divergence of a rate q from p, in nats: n times it
 * bounds -ln P(at least q n of n lost | rate p) (Chernoff), the evidence
 * that samples were lost at more than p.
 */
double diagnose_evidence_kl(double q, double p);

/* What a failure says and whose it is: EV_FAIL, EV_ACCESS or EV_SETUP,
 * with EV_BYTGT when the target is to blame. */
unsigned diagnose_evidence_classify(const char *error, const char *error_class,
    const char *source, const char *target);

#endif
