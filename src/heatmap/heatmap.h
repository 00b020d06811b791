/*
 * The heatmap's matrix model: hosts, the kinds of measurement found in the
 * inputs, and per kind an N x N grid of cells (row = source, column =
 * target) holding what the page shows for that pair. Records are read with
 * heatmap_read(), then heatmap_build() decides each cell: the latest record
 * wins (by time, else by reading order), or the median of the ok records
 * with HEATMAP_MEDIAN. When both collect and bench records cover a pair, a
 * derived "overlay" kind holds libp2p/ICMP ratios.
 */
#ifndef NETPROF_HEATMAP_H
#define NETPROF_HEATMAP_H

#include <stddef.h>

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

struct hm_cell {
	enum cell_state state;
	int count, nfail;	/* records for the pair, failed ones */
	struct record *latest;	/* the latest record; NULL if none */
	struct record *last_failed;
	struct record *first;	/* every record of the pair, reading order */
	struct record *last;
	double *values;		/* one per metric of the kind; NAN if none */
};

struct hm_kind {
	char *name;
	struct hm_metric *metrics;
	size_t nmetrics;
	size_t default_metric;
	struct hm_cell *cells;	/* nhosts * nhosts, row-major by source */
	double *values_base;	/* the one allocation cells' values point in */
	int derived;		/* computed from other kinds (the overlay) */
	size_t nrecords, nfailed;
};

struct heatmap {
	char **hosts;
	size_t nhosts, hosts_alloc;
	struct hm_kind *kinds;
	size_t nkinds;
	struct record_input input;
	enum heatmap_aggregate aggregate;
	size_t *host_slots;	/* open-addressing index into hosts, +1 */
	size_t nslots;
	size_t left_out;	/* records past the bounds below, not shown */

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
#define HEATMAP_MAX_HOSTS 512
#define HEATMAP_MAX_KINDS 16
#define HEATMAP_MAX_METRICS 64

struct heatmap *heatmap_new(void);
void heatmap_free(struct heatmap *hm);

/* Read one input file (JSONL or run.json) into the heatmap. */
int heatmap_read(struct heatmap *hm, const char *path, int strict);

/*
 * Decide hosts, kinds and cells. only_kind (NULL for all) keeps one kind.
 * Returns NP_ERR_NOT_FOUND if only_kind has no records.
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
