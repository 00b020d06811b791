/*
 * Diagnosis: the "Interpreting results" patterns of the bench
 * documentation, looked for in the heatmap's cells and run.json, each
 * finding with the pairs (or hosts) it affects and what to try. Also the
 * failures table: one row per pair and kind with failed records.
 */
#ifndef NETPROF_HEATMAP_DIAGNOSE_H
#define NETPROF_HEATMAP_DIAGNOSE_H

#include <stddef.h>

#include "heatmap.h"

/*
 * A ratio rule needs a ratio and a difference: on one switch ICMP takes
 * 0.012 ms and an HTTP request over libp2p 7.5 ms, a ratio of 600 that
 * says nothing about the network. A libp2p latency this many times the
 * ICMP RTT is a "large gap"...
 */
#define DIAGNOSE_GAP_RATIO 3.0
/* ...if it is also this much larger in absolute terms (ms). */
#define DIAGNOSE_GAP_MIN_MS 10.0
/*
 * libp2p_ping this many times ICMP, and this much more, is a detour: the
 * pair talks through a relay (or a far tunnel), not directly.
 */
#define DIAGNOSE_RELAY_RATIO 1.5
#define DIAGNOSE_RELAY_MIN_MS 5.0
/* Ports named when the records do not show them (upstream's defaults). */
#define DIAGNOSE_IPERF3_PORT 5201
#define DIAGNOSE_LIBP2P_PORT 19091

struct finding {
	const char *rule;	/* stable id: "relay_reservation", ... */
	const char *title;
	const char *advice;	/* what to try */
	char **items;		/* one per affected pair or host */
	size_t nitems;
};

struct diagnosis {
	struct finding *findings;
	size_t nfindings;
};

/* Apply every rule; findings with no affected pair are left out. */
int heatmap_diagnose(const struct heatmap *hm, struct diagnosis *dx);
void heatmap_diagnosis_free(struct diagnosis *dx);
/* The finding of a rule, or NULL. */
const struct finding *heatmap_diagnosis_find(const struct diagnosis *dx,
    const char *rule);

struct failure_row {
	const struct hm_kind *kind;
	size_t src, tgt;
	const struct hm_cell *cell;	/* count, nfail, last_failed */
};

/* Every (kind, source, target) with a failed record, in matrix order. */
int heatmap_failures(const struct heatmap *hm, struct failure_row **rows,
    size_t *nrows);

#endif
