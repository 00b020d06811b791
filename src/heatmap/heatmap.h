/*
 * The heatmap's matrix model: hosts, the kinds of measurement found in the
 * inputs, and per kind an N x N grid of cells (row = source, column =
 * target) holding what the page shows for that pair. No record is kept:
 * heatmap_read() folds each record into its cell as it is read
 * (heatmap_fold.c: counts, the latest record's outcome and values, the
 * latest failure), within a memory budget in bytes; heatmap_build() then
 * orders hosts and kinds. The latest record wins (by time, else by reading
 * order), or with HEATMAP_MEDIAN (set before reading) each metric is the
 * median over the ok records. When both collect and bench records cover a
 * pair, a derived "overlay" kind holds libp2p/ICMP ratios.
 */
#ifndef NETPROF_HEATMAP_H
#define NETPROF_HEATMAP_H

#include <stddef.h>
#include <stdint.h>

#include "heatmap_records.h"

enum cell_state {
	CELL_MISSING = 0,	/* no record for the pair */
	CELL_VALUE,		/* a measurement */
	CELL_FAILED,		/* the record that counts failed */
	CELL_SELF		/* source == target */
};

enum heatmap_aggregate { HEATMAP_LATEST = 0, HEATMAP_MEDIAN };

struct hm_metric {
	char *name;
	const char *unit;	/* "ms", "Mbit/s", "%", "x RTT", ... */
	int higher_better;
	const char *label;	/* words for the legend */
	double span_min;	/* the smallest difference worth a colour */
};

/* The latest failed record of a pair: its error, class and port. */
struct hm_failure {
	const char *error;	/* the heatmap's one copy (its string pool) */
	const char *error_class;
	double time;		/* NAN if none */
	int port;		/* iperf3: the port its command names; else 0 */
};

/*
 * What the page and the diagnosis need of a pair's records, folded as they
 * are read (about 40 bytes, and 8 per metric for a pair with values).
 */
struct hm_cell {
	union {
		double *values;	/* one per metric of the kind; NAN if none */
		size_t row;	/* while folding: 1 + its row of values, or 0 */
	};
	double time;		/* the latest record's; NAN if none */
	const struct hm_failure *last_failed;	/* NULL if none failed */
	int count, nfail;	/* records for the pair, failed ones */
	int nsamples;		/* the latest record's sample count, or -1 */
	unsigned short port;	/* the latest record's (iperf3) port, or 0 */
	unsigned char state;	/* enum cell_state */
};

/* A round of a bench run's sweep, from its records' times. */
struct hm_round {
	const char *run_id;	/* the pool's copy; NULL if the records name none */
	int round;		/* from 1 */
	double start, end;	/* Unix time: the earliest start, latest end */
	int count, nfail;	/* records, failed ones */
};

/* --aggregate median: one metric value of an ok record, kept to the end. */
struct hm_sample {
	double value;
	uint16_t src, tgt, metric;
};

struct hm_kind {
	char *name;
	struct hm_metric *metrics;
	size_t nmetrics;
	size_t default_metric;
	struct hm_cell *cells;	/* nhosts * nhosts, row-major by source
				 * (while folding: fold_cap * fold_cap) */
	double *values_base;	/* the one allocation cells' values point in */
	size_t values_mapped;	/* its bytes if mem_map()ed (the fold's), or 0 */
	double *nan_row;	/* the values of a cell without any */
	size_t stride;		/* values per row of values_base */
	size_t nrows, rows_alloc;
	struct hm_sample *samples;	/* --aggregate median, while folding */
	size_t nsamples, samples_alloc;
	int derived;		/* computed from other kinds (the overlay) */
	size_t nrecords, nfailed;
};

struct heatmap {
	char **hosts;
	size_t nhosts, hosts_alloc;
	struct hm_kind *kinds;
	size_t nkinds;
	struct record_input input;	/* run.json summaries; no records */
	enum heatmap_aggregate aggregate;
	size_t *host_slots;	/* open-addressing index into hosts, +1 */
	size_t nslots;
	size_t left_out;	/* records past the bounds below, not shown */

	/* Folding (heatmap_fold.c). */
	size_t fold_cap;	/* rows and columns of each kind's grid */
	int built;		/* heatmap_build() ran: cells are nhosts^2 */
	size_t nread;		/* records folded or left out */
	double time_lo, time_hi;	/* of every record read; NAN if none */
	size_t budget, used;	/* memory budget and use, in bytes */
	struct hm_failure **fail_blocks;
	size_t nfail_blocks, fail_used;	/* used of the last block */
	char **pool;		/* one copy of each error text and class */
	size_t pool_slots, pool_n;
	struct hm_round *rounds;	/* in order met; HEATMAP_MAX_ROUNDS */
	size_t nrounds, last_round;

	/* Sites (heatmap_sites.c): hints by name, then one group per host. */
	struct hm_site_hint *site_hints;
	size_t nsite_hints;
	char **groups;		/* group names, in display order */
	size_t ngroups;
	size_t *host_group;	/* per host: index into groups */
	const char *group_by;	/* "site", "rtt" or "none": what was used */
	const char *group_basis; /* the RTT clustered: "ping avg", ... */

	/* --compare (heatmap_compare.c): the pairs that got worse. */
	int compared;
	struct hm_worse *worse;
	size_t nworse;
};

struct hm_worse {
	size_t kind;		/* index into kinds (a measured kind) */
	size_t src, tgt;
	double before, after;	/* the default metric; NAN if failed */
	double factor;		/* how many times worse; INFINITY if failed */
};

struct hm_site_hint {
	char *host, *site;
};

/*
 * What one page can show: a hostile or mistaken input (thousands of
 * distinct host or kind names) would otherwise need N x N cells per kind
 * per metric. Records beyond these bounds are counted in left_out, and
 * the page and the terminal say so.
 */
#define HEATMAP_MAX_HOSTS 1024
#define HEATMAP_MAX_KINDS 16
#define HEATMAP_MAX_METRICS 64
#define HEATMAP_MAX_ROUNDS 4096
/*
 * What the folded records may take, in bytes (the cells, their values,
 * the failures and their texts, the median's values): a 1,000-host bench
 * run (three kinds, three million records) takes about 400 MB.
 */
#define HEATMAP_BUDGET_DEFAULT ((size_t)1 << 30)

struct heatmap *heatmap_new(void);
void heatmap_free(struct heatmap *hm);

/* The aggregate folded: call before the first heatmap_read(). */
void heatmap_set_aggregate(struct heatmap *hm, enum heatmap_aggregate agg);
/* The memory budget in bytes: call before the first heatmap_read(). */
void heatmap_set_budget(struct heatmap *hm, size_t bytes);

/*
 * Read one input file (JSONL or run.json) into the heatmap, each record
 * folded into its cell. NP_ERR_BUDGET (reported: file, line, the budget,
 * the fix) when the cells would need more than the budget.
 */
int heatmap_read(struct heatmap *hm, const char *path, int strict);

/*
 * Fold one record into its cell (record_sink; r is the reader's): the first
 * HEATMAP_MAX_HOSTS hosts and HEATMAP_MAX_KINDS kinds met have cells, the
 * records of others are counted in left_out. A later record (by time, else
 * by reading order) replaces the latest's outcome and values.
 */
int heatmap_fold(void *hm, struct record *r);

/*
 * Decide hosts, kinds and cells from what was folded. only_kind (NULL for
 * all) keeps one kind; aggregate must be the one folded. Returns
 * NP_ERR_NOT_FOUND if only_kind has no records. Call once.
 */
int heatmap_build(struct heatmap *hm, enum heatmap_aggregate aggregate,
    const char *only_kind);

struct hm_cell *heatmap_cell(const struct heatmap *hm,
    const struct hm_kind *kind, size_t src, size_t tgt);
struct hm_kind *heatmap_find_kind(const struct heatmap *hm, const char *name);
/* Index of metric name in kind, or -1. */
int heatmap_find_metric(const struct hm_kind *kind, const char *name);
long heatmap_host_index(const struct heatmap *hm, const char *name);
/*
 * Add a derived kind with these metrics (every cell missing but the
 * diagonal) for a caller to fill. Returns it, or NULL without memory.
 */
struct hm_kind *heatmap_add_derived(struct heatmap *hm, const char *name,
    const char *const *metrics, size_t nmetrics);
/* Rebuild the name index after the hosts were reordered. */
int heatmap_rehash(struct heatmap *hm, size_t nslots);

/*
 * For the model's files: add a host (*index -1 past HEATMAP_MAX_HOSTS) or
 * a kind (found or added; the caller keeps to HEATMAP_MAX_KINDS), 0 or
 * NP_ERR_NOMEM; add a metric: its index, or NP_ERR_NOMEM.
 */
int heatmap_host_add(struct heatmap *hm, const char *name, long *index);
int heatmap_kind_add(struct heatmap *hm, const char *name, int derived,
    size_t *index);
int heatmap_metric_add(struct hm_kind *k, const char *name);
/* The folding's part of heatmap_free() and of heatmap_build(). */
void heatmap_fold_free(struct heatmap *hm);
int heatmap_fold_finish(struct heatmap *hm, const size_t *order);

/* The upstream default metric of a kind ("avg" for ping, ...). */
const char *heatmap_default_metric(const char *kind);
/* Unit and direction of a metric, from its name. */
void heatmap_metric_describe(const char *name, struct hm_metric *m);

/* Smallest and largest value of a metric over the kind's cells; -1 if none. */
int heatmap_metric_range(const struct heatmap *hm, const struct hm_kind *kind,
    size_t metric, double *lo, double *hi);

/* Records and failed records counted over every kind read. */
void heatmap_totals(const struct heatmap *hm, size_t *records,
    size_t *failed);

/*
 * Badness of value in [lo, hi] as 0 (best) .. 1 (worst): lower values are
 * better unless higher_better; logarithmic if use_log (and lo > 0).
 */
double heatmap_badness(double value, double lo, double hi, int higher_better,
    int use_log);
/*
 * The range the colours spread over: [lo, hi] widened, away from the best
 * end, to at least HEATMAP_SPAN_REL of the larger value and the metric's
 * span_min, so that differences below what the measurement resolves
 * (0.01 against 0.04 ms on one switch) stay one colour instead of going
 * from green to red.
 */
#define HEATMAP_SPAN_REL 0.10
void heatmap_scale_span(const struct hm_metric *m, double *lo, double *hi);

/* The colour of a badness: green (0) through yellow to red (1). */
void heatmap_color(double badness, unsigned char rgb[3]);

/* Natural order of host names ("n2" before "n10"). */
int heatmap_host_compare(const char *a, const char *b);

#endif
