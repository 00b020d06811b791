/*
 * The pair matrix: the hosts, the kinds of probe found in the records, and
 * per kind an N x N grid of cells (row = source, column = target) holding
 * what is known of that pair: its counts, the latest record's outcome,
 * time and values, the latest failure. No record is kept: matrix_read()
 * (or matrix_fold(), a record at a time) folds each record into its cell
 * as it is read (matrix_fold.c), within a memory budget in bytes;
 * matrix_build() then lays the cells out with hosts and kinds in the
 * model's order (matrix_model.c). The latest
 * record wins (by time, else by reading order), or with MATRIX_MEDIAN (set
 * before reading) each metric is the median over the ok records. The
 * heatmap (heatmap.h) and the metrics (metrics.h) both read it; what a
 * metric means (unit, direction) comes from the kinds' table.
 */
#ifndef NETPROF_MATRIX_H
#define NETPROF_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "records_read.h"

struct probe_kind;

enum cell_state {
	CELL_MISSING = 0,	/* no record for the pair */
	CELL_VALUE,		/* a measurement */
	CELL_FAILED,		/* the record that counts failed */
	CELL_SELF		/* source == target */
};

enum matrix_aggregate { MATRIX_LATEST = 0, MATRIX_MEDIAN };

struct matrix_metric {
	char *name;
	const char *unit;	/* "ms", "Mbit/s", "%", "x RTT", ... */
	int higher_better;
	const char *label;	/* words for the legend */
	double span_min;	/* the smallest difference worth a colour */
};

/* The latest failed record of a pair: its error, class and port. */
struct matrix_failure {
	const char *error;	/* the heatmap's one copy (its string pool) */
	const char *error_class;
	double time;		/* NAN if none */
	int port;		/* iperf3: the port its command names; else 0 */
};

/*
 * What the page and the diagnosis need of a pair's records, folded as they
 * are read (about 40 bytes, and 8 per metric for a pair with values).
 */
struct matrix_cell {
	union {
		double *values;	/* one per metric of the kind; NAN if none */
		size_t row;	/* while folding: 1 + its row of values, or 0 */
	};
	double time;		/* the latest record's; NAN if none */
	const struct matrix_failure *last_failed;	/* NULL if none failed */
	int count, nfail;	/* records for the pair, failed ones */
	int nsamples;		/* the latest record's sample count, or -1 */
	unsigned short port;	/* the latest record's (iperf3) port, or 0 */
	unsigned char state;	/* enum cell_state */
	unsigned char path;	/* the latest record's path: MATRIX_PATH_*,
				   | MATRIX_PATH_REPORTED, its relay's slot
				   (1 + index into the matrix's relays) <<
				   MATRIX_PATH_RELAY_SHIFT; 0: unknown */
};

/* A cell's path, as its latest record gives it (a bench record's). */
#define MATRIX_PATH_UNKNOWN 0
#define MATRIX_PATH_DIRECT 1
#define MATRIX_PATH_PUNCHED 2	/* direct after DCUtR */
#define MATRIX_PATH_RELAYED 3
#define MATRIX_PATH_CLASS 3	/* the bits of the class */
#define MATRIX_PATH_REPORTED 4	/* the node said so; else inferred */
#define MATRIX_PATH_RELAY_SHIFT 3
#define MATRIX_MAX_RELAYS 31	/* relays named; more: the last slot */

/* A relay the records name (a path's), by name and PeerID. */
struct matrix_relay {
	const char *name;	/* the pool's copy; its PeerID if unnamed */
	const char *peer_id;	/* the pool's copy, or NULL */
};

/* A round of a bench run's sweep, from its records' times. */
struct matrix_round {
	const char *run_id;	/* the pool's copy; NULL if the records name none */
	int round;		/* from 1 */
	double start, end;	/* Unix time: the earliest start, latest end */
	int count, nfail;	/* records, failed ones */
};

/* --aggregate median: one metric value of an ok record, kept to the end. */
struct matrix_sample {
	double value;
	uint16_t src, tgt, metric;
};

struct matrix_kind {
	char *name;
	struct matrix_metric *metrics;
	size_t nmetrics;
	size_t default_metric;
	struct matrix_cell *cells;	/* nhosts * nhosts, row-major by source
				 * (while folding: fold_cap * fold_cap) */
	double *values_base;	/* the one allocation cells' values point in */
	size_t values_mapped;	/* its bytes if mem_map()ed (the fold's), or 0 */
	double *nan_row;	/* the values of a cell without any */
	size_t stride;		/* values per row of values_base */
	size_t nrows, rows_alloc;
	struct matrix_sample *samples;	/* --aggregate median, while folding */
	size_t nsamples, samples_alloc;
	const struct probe_kind *row;	/* its row of the kinds' table, or
					   NULL (another's kind, derived) */
	int derived;		/* computed from other kinds (the heatmap's
				   overlay, a comparison) */
	size_t nrecords, nfailed;
};

struct matrix {
	char **hosts;
	size_t nhosts, hosts_alloc;
	struct matrix_kind *kinds;
	size_t nkinds;
	struct record_input input;	/* run.json summaries; no records */
	enum matrix_aggregate aggregate;
	size_t *host_slots;	/* open-addressing index into hosts, +1 */
	size_t nslots;
	size_t left_out;	/* records past the bounds below, not shown */
	size_t machines_left_out;	/* run.json machines past them */

	/* Folding (matrix_fold.c). */
	size_t fold_cap;	/* rows and columns of each kind's grid */
	int built;		/* matrix_build() ran: cells are nhosts^2 */
	size_t nread;		/* records folded or left out */
	int sample;		/* the largest "sample" (K) of the records:
				   a sampled sweep's, 0 if none */
	double time_lo, time_hi;	/* of every record read; NAN if none */
	size_t budget, used;	/* memory budget and use, in bytes */
	struct matrix_failure **fail_blocks;
	size_t nfail_blocks, fail_used;	/* used of the last block */
	char **pool;		/* one copy of each error text and class */
	size_t pool_slots, pool_n;
	struct matrix_round *rounds;	/* in order met; MATRIX_MAX_ROUNDS */
	size_t nrounds, last_round;
	struct matrix_relay relays[MATRIX_MAX_RELAYS];	/* in order met */
	size_t nrelays;

	/*
	 * What readers add to the matrix. The hosts' groups (sites:
	 * matrix_sites.c): hints by name, then one group per host.
	 */
	struct matrix_site_hint *site_hints;
	size_t nsite_hints;
	char **groups;		/* group names, in display order */
	size_t ngroups;
	size_t *host_group;	/* per host: index into groups */
	const char *group_by;	/* "site", "rtt" or "none": what was used */
	const char *group_basis; /* the RTT clustered: "ping avg", ...
				    (in basis_text), NULL if none */
	char basis_text[128];

	/* A comparison (heatmap_compare.c): the pairs that got worse. */
	int compared;
	struct matrix_worse *worse;
	size_t nworse;
};

struct matrix_worse {
	size_t kind;		/* index into kinds (a measured kind) */
	size_t src, tgt;
	double before, after;	/* the default metric; NAN if failed */
	double factor;		/* how many times worse; INFINITY if failed */
};

struct matrix_site_hint {
	char *host, *site;
};

/*
 * What one page can show: a hostile or mistaken input (thousands of
 * distinct host or kind names) would otherwise need N x N cells per kind
 * per metric. Records beyond these bounds are counted in left_out, and
 * the page and the terminal say so.
 */
#define MATRIX_MAX_HOSTS 1024
#define MATRIX_MAX_KINDS 16
#define MATRIX_MAX_METRICS 64
#define MATRIX_MAX_ROUNDS 4096
/*
 * What the folded records may take, in bytes (the cells, their values,
 * the failures and their texts, the median's values): a 1,000-host bench
 * run (three kinds, three million records) takes about 400 MB.
 */
#define MATRIX_BUDGET_DEFAULT ((size_t)1 << 30)

struct matrix *matrix_new(void);
void matrix_free(struct matrix *hm);

/* The aggregate folded: call before the first matrix_read(). */
void matrix_set_aggregate(struct matrix *hm, enum matrix_aggregate agg);
/* The memory budget in bytes: call before the first matrix_read(). */
void matrix_set_budget(struct matrix *hm, size_t bytes);

/*
 * Read one input file (JSONL or run.json) into the heatmap, each record
 * folded into its cell. NP_ERR_BUDGET (reported: file, line, the budget,
 * the fix) when the cells would need more than the budget.
 */
int matrix_read(struct matrix *hm, const char *path, int strict);

/*
 * Fold one record into its cell (record_sink; r is the reader's): the first
 * MATRIX_MAX_HOSTS hosts and MATRIX_MAX_KINDS kinds met have cells, the
 * records of others are counted in left_out. A later record (by time, else
 * by reading order) replaces the latest's outcome and values.
 */
int matrix_fold(void *hm, struct record *r);

/*
 * Decide hosts, kinds and cells from what was folded: hosts in natural
 * order, kinds in the table's order. only_kind (NULL for all) keeps one
 * kind; aggregate must be the one folded. Returns NP_ERR_NOT_FOUND if
 * only_kind has no records. Call once.
 */
int matrix_build(struct matrix *hm, enum matrix_aggregate aggregate,
    const char *only_kind);
/*
 * matrix_build(), and (without only_kind) the derived overlay kind where
 * both a libp2p kind and its raw-IP base were read (matrix_overlay.c).
 */
int matrix_overlay_build(struct matrix *hm, enum matrix_aggregate aggregate,
    const char *only_kind);

struct matrix_cell *matrix_cell_at(const struct matrix *hm,
    const struct matrix_kind *kind, size_t src, size_t tgt);
struct matrix_kind *matrix_find_kind(const struct matrix *hm, const char *name);
/* Index of metric name in kind, or -1. */
int matrix_find_metric(const struct matrix_kind *kind, const char *name);
long matrix_host_index(const struct matrix *hm, const char *name);
/*
 * Add a derived kind with these metrics (every cell missing but the
 * diagonal) for a caller to fill. Returns it, or NULL without memory.
 */
struct matrix_kind *matrix_add_derived(struct matrix *hm, const char *name,
    const char *const *metrics, size_t nmetrics);
/* Rebuild the name index after the hosts were reordered. */
int matrix_rehash(struct matrix *hm, size_t nslots);

/*
 * For the model's files: add a host (*index -1 past MATRIX_MAX_HOSTS) or
 * a kind (found or added; the caller keeps to MATRIX_MAX_KINDS), 0 or
 * NP_ERR_NOMEM; add a metric: its index, or NP_ERR_NOMEM.
 */
int matrix_host_add(struct matrix *hm, const char *name, long *index);
int matrix_kind_add(struct matrix *hm, const char *name, int derived,
    size_t *index);
int matrix_metric_add(struct matrix_kind *k, const char *name);
/*
 * The model's part of matrix_free(), and of matrix_build(): only_kind
 * kept (NULL: all; NP_ERR_NOT_FOUND if it has no records), kinds in the
 * table's order with their default metric, hosts in natural order, *order
 * (the caller frees it) mapping each host's place to the index it was met
 * at. The fold lays its grids out in that order.
 */
void matrix_model_free(struct matrix *hm);
int matrix_model_order(struct matrix *hm, const char *only_kind,
    size_t **order);

/* The default metric of a kind (its row's: upstream's), or "". */
const char *matrix_default_metric(const char *kind);
/*
 * Unit, direction and colour floor of a kind's metric: its row's in the
 * kinds' table; a metric no row lists (another tool's, a derived kind's
 * ratio) from its name.
 */
void matrix_metric_describe(const char *kind, const char *name,
    struct matrix_metric *m);

/* Smallest and largest value of a metric over the kind's cells; -1 if none. */
int matrix_metric_range(const struct matrix *hm, const struct matrix_kind *kind,
    size_t metric, double *lo, double *hi);

/* A cell's path class (MATRIX_PATH_DIRECT ...), 0 if unknown. */
int matrix_cell_path(const struct matrix_cell *c);
/* Whether the node reported it (1) or netprof inferred it (0). */
int matrix_cell_path_reported(const struct matrix_cell *c);
/* The relay of a relayed cell, or NULL. */
const struct matrix_relay *matrix_cell_relay(const struct matrix *hm,
    const struct matrix_cell *c);
/* "direct", "hole-punched", "relayed", or NULL for unknown. */
const char *matrix_path_name(int path);

/* Records and failed records counted over every kind read. */
void matrix_totals(const struct matrix *hm, size_t *records,
    size_t *failed);

/* Natural order of host names ("n2" before "n10"). */
int matrix_host_compare(const char *a, const char *b);

#endif
