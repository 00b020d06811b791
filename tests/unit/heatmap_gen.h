/*
 * Generated matrices for the diagnosis's tests: a mesh of hosts in sites
 * at a distance (a star: a pair's round trip is the sum of its two
 * sites' delays, microseconds inside a site), with a little jitter of a
 * fixed seed, and faults laid over it by the test: each record is made
 * by gen_pair(), which a test's hook may change before it is folded into
 * the matrix (matrix_fold(), no file). Include after <cmocka.h>.
 */
#ifndef NETPROF_TEST_HEATMAP_GEN_H
#define NETPROF_TEST_HEATMAP_GEN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"
#include "matrix_sites.h"
#include "matrix.h"
#include "record.h"

/* One generated record: what a hook may change. */
struct gen_rec {
	const char *kind;
	size_t src, tgt;
	int ok;
	const char *error, *error_class;
	double latency;		/* ms: ping p50 and avg, libp2p p50_ms */
	double mbps;
	int sent, lost;		/* ping echoes, libp2p samples */
	int skip;		/* not measured (a sampled sweep's) */
};

struct gen {
	size_t n;
	size_t nsites;
	const double *site_delay;	/* one way, ms, per site */
	size_t *site;			/* per host */
	char **names;
	int iperf, libp2p;		/* kinds besides ping */
	const char *run_json;		/* a bench run.json read too, or NULL */
	int sample;			/* the records' "sample" (K); 0: none */
	unsigned seed;
	/* a fault: changes r (or leaves it) */
	void (*hook)(const struct gen *g, struct gen_rec *r, void *arg);
	void *arg;
};

static inline double
gen_jitter(unsigned *seed, double rel)
{
	*seed = *seed * 1103515245u + 12345u;
	return 1 + rel * ((double)((*seed >> 8) % 2001) / 1000 - 1);
}

/* Hosts h1.. in sites of the sizes given (0-terminated). */
static inline void
gen_init(struct gen *g, const size_t *sizes, const double *delays)
{
	size_t i, s, h = 0;
	char name[16];

	memset(g, 0, sizeof *g);
	for (s = 0; sizes[s] != 0; s++)
		g->n += sizes[s];
	g->nsites = s;
	g->site_delay = delays;
	g->site = calloc(g->n, sizeof *g->site);
	g->names = calloc(g->n, sizeof *g->names);
	for (s = 0; sizes[s] != 0; s++)
		for (i = 0; i < sizes[s]; i++) {
			snprintf(name, sizeof name, "h%zu", h + 1);
			g->site[h] = s;
			g->names[h++] = strdup(name);
		}
	g->seed = 7;
}

static inline void
gen_free(struct gen *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->names[i]);
	free(g->names);
	free(g->site);
}

/* The healthy figures of a pair. */
static inline double
gen_rtt(const struct gen *g, size_t s, size_t t)
{
	return g->site[s] == g->site[t] ? 0.05 : 2 * (g->site_delay[g->site[s]] +
	    g->site_delay[g->site[t]]);
}

static inline void
gen_fold(struct matrix *hm, const struct gen *g, struct gen_rec *r,
    unsigned *seed)
{
	struct record rec;
	struct record_metric m[8];
	size_t nm = 0;
	char err[200];
	double loss = r->sent > 0 ? 100.0 * r->lost / r->sent : 0;

	memset(&rec, 0, sizeof rec);
	rec.kind = r->kind;
	rec.source = g->names[r->src];
	rec.target = g->names[r->tgt];
	rec.time = NAN;
	rec.started_at = rec.ended_at = NAN;
	rec.bytes = -1;
	rec.nsamples = -1;
	rec.file = "gen";
	rec.sample = g->sample;
	rec.ok = r->ok && !(r->sent > 0 && r->lost >= r->sent);
	if (!rec.ok) {
		snprintf(err, sizeof err, "%s", r->error != NULL ? r->error :
		    "100% packet loss: 10 sent, none answered");
		rec.error = err;
		rec.error_class = r->error_class != NULL ? r->error_class :
		    "tool_failed";
	} else if (strcmp(r->kind, "ping") == 0) {
		double v = r->latency * gen_jitter(seed, 0.02);

		m[nm++] = (struct record_metric){ "p50", v, 0 };
		m[nm++] = (struct record_metric){ "avg", v, 0 };
		m[nm++] = (struct record_metric){ "loss_pct", loss, 0 };
		rec.nsamples = r->sent - r->lost;
	} else if (strcmp(r->kind, "iperf3") == 0 ||
	    strcmp(r->kind, "throughput") == 0) {
		m[nm++] = (struct record_metric){ "mbps", r->mbps *
		    gen_jitter(seed, 0.05), 0 };
		if (strcmp(r->kind, "throughput") == 0) {
			m[nm++] = (struct record_metric){ "failed_samples", 0,
			    0 };
			rec.nsamples = 3;
		}
	} else {
		double v = r->latency * gen_jitter(seed, 0.05);

		m[nm++] = (struct record_metric){ "p50_ms", v, 0 };
		m[nm++] = (struct record_metric){ "failed_samples", r->lost,
		    0 };
		rec.nsamples = r->sent - r->lost;
	}
	rec.metrics = m;
	rec.nmetrics = nm;
	assert_int_equal(matrix_fold(hm, &rec), 0);
}

/*
 * The heatmap of g: ping (and iperf3, the libp2p kinds) for every
 * ordered pair, each through g->hook; built and grouped by site (hosts
 * given their site by name), or by none when nsites is 1.
 */
static inline struct matrix *
gen_heatmap(const struct gen *g)
{
	static const char *const sites[] = { "a", "b", "c", "d", "e", "f",
	    "g", "h" };
	static const char *const kinds[] = { "ping", "iperf3", "libp2p_ping",
	    "latency", "throughput" };
	struct matrix *hm = matrix_new();
	unsigned seed = g->seed;
	size_t s, t, k;

	assert_non_null(hm);
	for (s = 0; s < g->n; s++)
		for (t = 0; t < g->n; t++)
			for (k = 0; k < 5; k++) {
				struct gen_rec r;
				double rtt = gen_rtt(g, s, t);

				if (s == t || (k == 1 && !g->iperf) ||
				    (k >= 2 && !g->libp2p))
					continue;
				memset(&r, 0, sizeof r);
				r.kind = kinds[k];
				r.src = s;
				r.tgt = t;
				r.ok = 1;
				r.latency = k == 0 ? rtt : k == 2 ? rtt + 0.4 :
				    2 * rtt + 2;
				r.mbps = (k == 1 ? 1 : 0.8) * (rtt < 1 ? 940 :
				    fmin(940, 12000 / rtt));
				r.sent = k == 0 ? 10 : k == 4 ? 0 : 20;
				if (g->hook != NULL)
					g->hook(g, &r, g->arg);
				if (!r.skip)
					gen_fold(hm, g, &r, &seed);
			}
	if (g->run_json != NULL)
		assert_int_equal(matrix_read(hm, g->run_json, 1), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	if (g->nsites > 1)
		for (s = 0; s < g->n; s++)
			assert_int_equal(matrix_sites_hint(hm, g->names[s],
			    sites[g->site[s] % 8]), 0);
	assert_int_equal(matrix_sites_group(hm, g->nsites > 1 ? MATRIX_GROUP_SITE :
	    MATRIX_GROUP_NONE, 5.0), 0);
	return hm;
}

#endif
