/*
 * Record files read back, for the heatmap and the metrics: one JSONL line
 * written by `collect` or `bench` (or by the tool netprof replaces) becomes
 * a struct record (record.h), and a bench run.json becomes a struct
 * run_info. The reader keeps only what the page shows: pair, kind,
 * outcome, time, numeric metrics, the error text and class, and the sample
 * count. Unknown fields are ignored.
 */
#ifndef NETPROF_RECORDS_READ_H
#define NETPROF_RECORDS_READ_H

#include <stddef.h>
#include <stdio.h>

#include "record.h"

/*
 * Bounds on what hostile or broken input can make the reader hold: a line
 * (no record comes near it), a run.json, the records kept when they are
 * kept (without a sink; the rest are counted in left_out), the metrics of
 * one record, and the times kept (JavaScript's Date range, so the page can
 * show every time). The heatmap keeps no record: it folds each into its
 * cell as it is read (a sink), within a memory budget of its own.
 */
#define RECORDS_LINE_MAX (1 << 20)
#define RUN_JSON_MAX (16 << 20)
/* Malformed lines of a file warned of one by one; the rest are counted
 * in one line at the file's end. */
#define RECORDS_WARN_MAX 5
#define RECORDS_MAX 500000
#define RECORD_METRICS_MAX 64
#define RECORD_TIME_MAX 8.64e12
#define RECORD_ROUND_MAX 1000000
#define RECORD_SAMPLE_MAX 1000000	/* a record's "sample": K pairs a host */

struct convergence {
	char *host;
	int complete;
	double elapsed_s;
};

/* One bar of the timeline: a phase of the run, or one host's step. */
struct phase_span {
	char *phase;		/* "init", "sweep", ... */
	double start, end;	/* seconds since the run's start; end NAN: running */
	int failed;		/* the host's status for it is "failed" */
};

/* One reach check of run.json: "A->B" and whether its TCP connect got
 * through. */
struct run_reach {
	char *pair;
	int tcp;
};

struct run_info {
	char *run_id;
	double started_at;	/* Unix time, NAN if not given */
	double ended_at;
	/*
	 * The phases: netprof's phase_times, or (upstream, older netprof)
	 * the phases' durations laid end to end, from_durations set.
	 */
	struct phase_span *phases;
	size_t nphases;
	int from_durations;
	struct phase_span **host_phases;	/* per machine */
	size_t *nhost_phases;
	char *file;
	char **machines;	/* machine names, in inventory order */
	int *libp2p_ports;	/* each machine's libp2p_port; 0 if not given */
	char **sites;		/* each machine's site; NULL if not given */
	char **addresses;	/* each machine's address; NULL if not given */
	char **peer_ids;	/* each machine's PeerID; NULL if not given */
	size_t nmachines;
	struct run_reach *reach;	/* the path phase's reach checks */
	size_t nreach;
	char **relay_names;	/* the --bootstrap relays: name, multiaddr */
	char **relay_addrs;
	size_t nrelays;
	struct convergence *convergence;
	size_t nconvergence;
};

/*
 * Takes each record as it is read (r->file, r->line and r->seq set); the
 * record is the reader's again when the sink returns, so a sink copies
 * what it keeps. Returns 0, or an error (reported by the sink) that stops
 * the reading.
 */
typedef int (*record_sink)(void *arg, struct record *r);

/*
 * What the input files held: the records (only without a sink), the
 * run.json summaries and the lines skipped.
 */
struct record_input {
	record_sink sink;	/* NULL: keep the records */
	void *sink_arg;
	struct record **records;
	size_t nrecords, records_alloc;
	struct run_info **runs;
	size_t nruns;
	size_t malformed;	/* lines skipped */
	size_t file_malformed;	/* of them, in the file being read */
	int unsaid_first;	/* its first line not warned of */
	size_t left_out;	/* records past RECORDS_MAX, not kept */
	long next_seq;
	/*
	 * --resume's reading (record_done_load()): JSONL records only, no
	 * run.json; a torn last line (no newline, begun as an object: the
	 * writer drops it) skipped; any other line that is no record, an
	 * over-long one or a read error ends the reading unlogged: the
	 * line's number in bad_line, the error's errno in bad_errno.
	 */
	int resume;
	int bad_line, bad_errno;
};

/*
 * Parse one JSONL line into *out. Returns 0, or NP_ERR_PARSE with *cause
 * (allocated) saying what is wrong; a blank line is not passed here.
 */
int record_parse(const char *line, size_t len, struct record **out,
    char **cause);
void record_free(struct record *r);

/*
 * Time of an ISO-8601 timestamp, or NAN: upstream's and netprof's
 * "2026-05-03T11:37:42+00:00", with milliseconds, with "Z", any offset.
 */
double record_parse_time(const char *s);

/*
 * A record just written (record_writer_write()) as a reader of its line
 * reads it, set in it: its time (to the millisecond), port and round; its
 * metrics as numbers and sample count are record_set_metrics()'s (each
 * exactly as the line holds it: json_write.h), or none. Its started_at
 * and ended_at stay as measured: the line holds them to the millisecond.
 */
void record_as_read(struct record *r);

/* "unreachable", "auth", "tool_missing", "timeout", "parse" or "tool_failed". */
const char *record_classify_error(const char *error);

/*
 * Read one input file ("-": standard input): JSONL records, or a bench
 * run.json; an inventory given instead is refused (NP_ERR_USAGE), saying
 * what to give. A malformed line
 * is reported as "file:line: what" and skipped, unless strict, when it is
 * an error (NP_ERR_PARSE). NP_ERR_IO if the file cannot be read; a line
 * longer than RECORDS_LINE_MAX (not a records file: /dev/zero, a binary)
 * stops the reading with NP_ERR_PARSE. Errors are logged.
 */
int records_read_file(struct record_input *in, const char *path, int strict);

/* The same from an open stream; path names it in messages. */
int records_read_stream(struct record_input *in, FILE *f, const char *path,
    int strict);
/* Frees what in holds (records, runs); its sink stays. */
void record_input_free(struct record_input *in);

/* The (source, target, kind) triples an earlier output recorded ok. */
struct record_done_set;

/*
 * --resume: path read by the reader above (missing file: an empty set). A
 * torn last line (no newline) is skipped; any other line that is not a
 * record is NP_ERR_PARSE with *cause naming FILE:LINE (the file is not
 * collect's: appending to it, or cutting it, would damage someone's file).
 */
int record_done_load(const char *path, struct record_done_set **out,
    char **cause);

int record_done_has(const struct record_done_set *set, const char *source,
    const char *target, const char *kind);

size_t record_done_count(const struct record_done_set *set);

void record_done_free(struct record_done_set *set);

#endif
