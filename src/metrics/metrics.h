/*
 * Records as Prometheus metrics: the text exposition format (version
 * 0.0.4, which Prometheus, node_exporter's textfile collector and
 * `promtool check metrics` read) of the latest record of every pair and
 * kind, collect's and bench's alike, with per host reachability, the
 * sweep's number, time and duration, and netprof's build info (and the
 * same in OpenMetrics, metrics_openmetrics(), for a scraper that asks).
 * Names follow Prometheus' rules: base units (seconds, bytes), `_ratio`
 * for fractions, `_total` only for counters. docs/metrics.md lists them.
 */
#ifndef NETPROF_METRICS_H
#define NETPROF_METRICS_H

#include <stddef.h>

#include "util.h"

struct matrix;

/* The site of a host for the site labels, or NULL when not known. */
typedef const char *(*metrics_site_cb)(const char *host, void *arg);

/* What the exposition says about the sweep besides its records. */
struct metrics_info {
	long sweep;		/* its number, from 1; 0: not a sweep series */
	double started_at;	/* Unix seconds; 0: from the records */
	double ended_at;
	long sweeps_total;	/* sweeps done so far (continuous mode) */
	long sweeps_late_total;	/* of those, sweeps longer than the interval */
	double interval;	/* seconds; 0: one-off */
	long sample;		/* collect --sample K: K; 0: every pair */
	long sample_cycle;	/* sweeps in which a sample covers every pair */
	metrics_site_cb site;	/* NULL: no site labels */
	void *site_arg;
};

/*
 * The exposition of a built pair matrix (matrix_build() with
 * MATRIX_LATEST; the heatmap's, with its overlay, too):
 * appended to out. 0 or NP_ERR_NOMEM.
 */
int metrics_render(const struct matrix *hm, const struct metrics_info *info,
    struct buf *out);

/* The records of one sweep, gathered as they are written. */
struct metrics_set;
struct record;

struct metrics_set *metrics_set_new(void);
/* One record, read or written (record_writer_write()); the set borrows it. */
int metrics_set_add(struct metrics_set *set, struct record *r);
/* Records in the set. */
size_t metrics_set_count(const struct metrics_set *set);
/* The exposition of the set's records; the set is spent (free it next). */
int metrics_set_render(struct metrics_set *set,
    const struct metrics_info *info, struct buf *out);
void metrics_set_free(struct metrics_set *set);

/*
 * The exposition of a records file (collect or bench JSONL) written to
 * path atomically. NP_ERR_* with *cause (the file and why).
 */
int metrics_write_from_records(const char *records, const char *path,
    char **cause);

/* What a metrics file is written with (file_write_atomic()): readable by
   node_exporter, whatever the umask. */
#define METRICS_FILE_MODE 0644

/*
 * The same exposition in the OpenMetrics text format (1.0.0), for a
 * scraper that asks for it: a counter's family is named without its
 * `_total` (its sample keeps it) and the text ends in `# EOF`. *out is
 * NUL-terminated, *out_len its length; NP_ERR_NOMEM.
 */
int metrics_openmetrics(const char *text, size_t len, char **out,
    size_t *out_len);

/*
 * The same, read piece by piece from the text without a copy of it (the
 * listener's answers): metrics_om_read() fills buf with up to max bytes
 * and returns how many, 0 at the end. text must stay as it is meanwhile.
 */
struct metrics_om_reader {
	const char *text;
	size_t len, in, line_end;
	size_t cut;		/* where the line's _total starts, or SIZE_MAX */
	char tail[8];		/* a missing last newline, then # EOF */
	size_t tail_len, tail_off;
};

void metrics_om_begin(struct metrics_om_reader *r, const char *text,
    size_t len);
size_t metrics_om_read(struct metrics_om_reader *r, char *buf, size_t max);
/* The length of the OpenMetrics text of an exposition (a pass over it). */
size_t metrics_om_length(const char *text, size_t len);

#endif
