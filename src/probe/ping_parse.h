/*
 * Parsing what ping printed: iputils (Linux), busybox and BSD/macOS ping,
 * run with LC_ALL=C. Per-packet round-trip times come from the reply
 * lines; the counts from the "packets transmitted" summary, which every
 * variant prints, even at 100% loss (when the round-trip line is absent).
 */
#ifndef NETPROF_PING_PARSE_H
#define NETPROF_PING_PARSE_H

#include <stddef.h>

struct ping_result {
	int transmitted;
	int received;		/* distinct replies, duplicates excluded */
	int duplicates;
	int errors;		/* iputils "+N errors" (ICMP errors) */
	double loss_pct;	/* 100 * (transmitted - received) / transmitted */
	double *samples_ms;	/* one per distinct reply, in arrival order */
	size_t n_samples;
	int have_rtt_line;	/* the summary round-trip line was present */
	double min_ms, avg_ms, max_ms, jitter_ms; /* jitter: mdev/stddev */
	double p50_ms, p95_ms;	/* from samples_ms; 0 without samples */
};

/*
 * Parse ping's standard output. Returns 0 and a new result, or NP_ERR_PARSE
 * with *cause saying what was missing (e.g. no summary: ping was killed or
 * did not run). The caller frees *cause.
 */
int ping_parse(const char *text, struct ping_result **out, char **cause);

/*
 * A result from per-packet round-trip times given some other way (fping -C
 * prints one value per packet, "-" for a lost one): transmitted packets,
 * the n replies' times in packet order. Figures as ping_parse() fills them
 * from samples alone.
 */
int ping_result_from_samples(int transmitted, const double *samples_ms,
    size_t n, struct ping_result **out);

void ping_result_free(struct ping_result *r);

/*
 * The metrics of a ping record: min avg max jitter (upstream's, ms), p50
 * p95 loss_pct transmitted received and samples_ms. A new object; NULL when
 * out of memory.
 */
struct cJSON;
struct cJSON *ping_result_metrics(const struct ping_result *p);

#endif
