/*
 * Private to src/bench/: the nodes' own counters (go-libp2p's, at GET
 * /metrics) as the path's witness (bench_counters.c): read before the
 * sweep (the path phase's view) and at its end, their deltas in run.json,
 * and the records whose path they contradict.
 */
#ifndef NETPROF_BENCH_COUNTERS_H
#define NETPROF_BENCH_COUNTERS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* libp2p_holepunch_*'s outcomes, in run.json's order. */
enum bench_punch_count {
	BENCH_HP_SUCCESS = 0,	/* outcomes_total{outcome="success"} */
	BENCH_HP_FAILED,	/* {outcome="failed"} */
	BENCH_HP_NO_ADDRESS,	/* {outcome="no_suitable_address"} */
	BENCH_HP_DIAL_SUCCESS,	/* direct_dials_total{outcome="success"} */
	BENCH_HP_DIAL_FAILED,	/* {outcome="failed"} */
	BENCH_HP_N
};

/* What a node's counters said at one read; a family absent is 0 there. */
struct bench_counters {
	unsigned char taken;	/* the swarm's connection counters were there */
	unsigned char relay;	/* the relay service's (libp2p_relaysvc_*) */
	unsigned char holepunch;	/* the hole punch tracer's */
	double circuits_opened, circuits_closed;	/* transport p2p-circuit */
	double relay_opened, relay_closed;	/* circuits it relayed */
	double relay_bytes, relay_reservations;
	double punch[BENCH_HP_N];
};

/*
 * A GET /metrics answer (Prometheus text) into *c: 1 when the swarm's
 * counters were there (c->taken), else 0 (another node: nothing known).
 */
int bench_counters_read(const char *text, size_t len,
    struct bench_counters *c);

/* Circuits open at that read (opened less closed). */
double bench_counters_open(const struct bench_counters *c);

/*
 * A machine's "counters" in run.json: the deltas from before to after, the
 * circuits open before, the hole punch counts since the node's start; NULL
 * unless both reads were taken.
 */
cJSON *bench_counters_json(const struct bench_counters *before,
    const struct bench_counters *after);

/* One end of a pair (or its relay), as the check reads it. */
struct bench_counters_end {
	const char *name;
	const struct bench_counters *before, *after;	/* NULL: not read */
};

/*
 * What the counters say against a record's path ("relayed",
 * "hole-punched"): "counters disagree: ..." (a new string), or NULL when
 * they agree or cannot tell. s and t are the pair's ends (t NULL: not a
 * host of the run), relay the host named its relay (NULL: none),
 * punched whether the evidence is the punch step's DCUtR.
 */
char *bench_counters_disagree(const char *path,
    const struct bench_counters_end *s, const struct bench_counters_end *t,
    const struct bench_counters_end *relay, int punched);

struct bench;

/*
 * Every live node's counters again, at the sweep's end (before the stop):
 * at once, each call bounded by a short timeout; done(b) on a later turn
 * when all have answered. 0: nothing was asked (go on at once).
 */
int bench_counters_after(struct bench *b, void (*done)(struct bench *b));

/*
 * Did the punch step's DCUtR join src and dst? The path phase's answer
 * (bench_path_punched()), handed down by the run.
 */
typedef int (*bench_punched_fn)(const struct bench *b, size_t src,
    size_t dst);

/*
 * The written records whose path the counters contradict get it said at
 * the end of their path_evidence: measurements.jsonl rewritten whole
 * (atomically), only when there is one. Call once its writer is closed.
 * 0, or a negative code with *cause.
 */
int bench_counters_amend(struct bench *b, bench_punched_fn punched,
    char **cause);

#endif
