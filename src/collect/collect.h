/*
 * collect's run state, shared by the files of its run: collect_run.c (the
 * sweep's stages on the pair dispatcher, the tasks' starts and ends,
 * records), collect_task.c (a task's failure and command, for all of
 * them), collect_server.c (the servers of the kinds that need one on
 * the target: iperf3), collect_fanout.c (a source host's pings as one
 * command), collect_watch.c (continuous sweeps and their metrics),
 * collect_trace.c (spans) and collect_report.c (the summary). The run
 * owns the state and hands its parts hooks (struct collect_hooks), as
 * bench's phases get theirs: a part ends a task or says its jobs changed
 * through them, never by calling into collect_run.c (the functions set in
 * them are named *_cb: tests/names/hooks.sh). A task carries its two
 * machines, a host's state its own: nothing is looked up through the
 * inventory on the way from a pair's start to its record. Private to them:
 * cmd_collect.c sees only collect_run.h.
 */
#ifndef NETPROF_COLLECT_H
#define NETPROF_COLLECT_H

#include <stddef.h>
#include <stdio.h>

#include <uv.h>
#include <cjson/cJSON.h>

#include "dispatch.h"
#include "engine.h"
#include "error.h"
#include "fanout.h"
#include "inventory.h"
#include "plan.h"
#include "probe.h"
#include "probe_kind.h"
#include "record.h"

struct runner;
struct record_writer;
struct record_done_set;
struct progress;
struct fanout_split;
struct collect_watch;
struct collect_watch_options;
struct plan_options;

struct collector;
struct fanout_run;

/* One probe of the sweep: a pair and a kind, a task of the dispatcher. */
struct task {
	struct collector *c;
	struct dispatch_task *dt;	/* its place in the dispatcher */
	const struct plan_stage *stage;	/* its kind, how it is measured */
	size_t source, target;		/* machine indexes */
	const struct machine *src, *dst;	/* and the machines */
	size_t round;			/* 0-based */
	int single;		/* a fan-out kind's pair on a channel of its
				   own */
	int retried;		/* a PROBE_RETRY kind's: run again once */
	struct fanout_run *fan;		/* the fan-out running it, if any */
	const char *mode;	/* how it is measured, for the record */
	struct engine_job *job;		/* its command (a server kind's
					   client) */
	char *command, *server_command;
	double started_at, ended_at;
	struct record rec;	/* its record: the outcome its kind's parser
				   fills, the rest when it is written */
	enum error_class cls;	/* the class of a failure of collect_task_fail()'s */
	double value;		/* an ok one's summary figure, kept once its
				   metrics are written */
};

/* One source host's fan-out command: the pairs of one round. */
struct fanout_run {
	struct collector *c;
	size_t source;
	struct task **tasks;
	char **addresses;
	size_t n;
	struct fanout_split *split;
	struct engine_job *job;
	char *command;
	double started_at;	/* submitted (before the session is up) */
	double running_at;	/* its first output: the pings started */
};

/*
 * A host's server (a PROBE_SERVER kind's: iperf3): started for the first
 * test the host serves and kept for the next ones (it serves one test at a
 * time, which the rounds guarantee), ended when the host serves no more or
 * the run stops. It ends by itself at its bound (ps.server_bound), so one
 * whose netprof died does not stay; one too near its bound for another
 * test is replaced. Each ready line (the kind's server_ready) is one test
 * it will take.
 */
struct probe_server {
	struct collector *c;
	size_t host;
	const struct machine *m;
	struct engine_job *job;
	const char *ready;	/* what it prints when it listens */
	int listening, cancelled, renewing;
	size_t listens, served;	/* ready lines seen; tests handed to it */
	size_t matched;		/* of the ready line, in the output so far */
	double expires_at;	/* when its bound ends it (our clock: early) */
	struct task *waiter;	/* the test waiting for it to listen */
	struct task *client;	/* the test it serves now */
	struct task *finishing;	/* one-off: the test done, waiting for the
				   server to be gone (the port free) */
	int restarts;		/* for the waiter, after it ended early */
};

struct host_state {
	const struct machine *m;
	struct probe_server srv;
	struct fanout_run *fanout;	/* its running fan-out, if any */
	int no_fanout;		/* its shell could not run the fan-out */
	char *down;		/* why the host cannot be used, once known */
	enum error_class down_class;
	size_t ok, failed;
	double *rtts;		/* the raw-IP RTT of each ok pair from it */
	size_t n_rtts;
};

/*
 * What the run hands its parts (set by collect_run.c before anything
 * runs). libuv's rule holds: a part calls them from its own callbacks.
 */
struct collect_hooks {
	/* t is over (ok, failed, or to run again): record it, count it,
	   let the dispatcher go on */
	void (*task_ended)(struct task *t);
	/* a fan-out or server command is done, or a sweep could not be
	   built: the sweep may be over now */
	void (*jobs_changed)(struct collector *c);
	/* --every: the next sweep's stages built, its hosts' state
	   cleared (nonzero: it could not be built), then started */
	int (*sweep_build)(struct collector *c);
	void (*sweep_start)(struct collector *c);
	/* the readers of each record the run writes, set by the parts
	   that want them (NULL: none): --otlp's span per probe, before the
	   record is written (round_done: the last of its round); --every's
	   metrics, the record as written (the reader may change it) */
	void (*record_traced)(struct collector *c, const struct record *rec,
	    int round_done);
	void (*record_written)(struct collector *c, struct record *rec);
};

struct collector {
	struct collect_hooks hooks;	/* the run's, for its parts */
	long sweep;		/* --every's sweep (from 1); 0: one sweep */
	struct runner *runner;
	uv_loop_t *loop;
	struct engine *engine;
	struct inventory *inv;
	struct probe_settings ps;
	double connect_timeout;
	size_t fanout;		/* targets per fan-out command; 0: off */
	enum fanout_tool tool;
	int serial;
	struct record_writer *writer;
	struct record_done_set *done;
	struct progress *progress;
	struct host_state *hosts;
	/* the sweep: its stages (a kind each) and their tasks */
	struct plan_stage *stages;
	size_t n_stages;
	struct task *tasks;
	size_t n_tasks;
	struct dispatch *d;
	size_t fanouts_up;	/* fan-out commands not yet done */
	size_t servers_up;	/* server commands not yet done */
	int sweep_over;		/* the dispatcher has ended the sweep */
	size_t ok, failed;
	int interrupted, closing, write_failed;
	const char *output;	/* for messages */
	const struct plan_options *plan;	/* to build each sweep's stages */
	struct collect_watch *watch;	/* --every, --metrics-*; NULL: neither */
	/* --otlp (collect_trace.c): NULL without */
	struct trace *trace;
	struct trace_span *span;	/* the sweep's, its trace's root */
	struct trace_span *phase_span;	/* the stage's ("phase ping") */
	struct trace_span **round_spans;	/* the stage's, by round */
	double *round_t0;	/* their first probe's start */
	size_t n_round_spans;
};

/* collect_task.c: a task's outcome and its command */
/* t failed (the first reason is the real one); takes error. */
void collect_task_fail(struct task *t, enum error_class cls, char *error);
/* t is to run again (cut short, or a fan-out's pair on its own). */
void collect_task_requeue(struct task *t);
/*
 * An engine error on a command of host's: its class, the host marked
 * down with text if SSH could not reach it.
 */
enum error_class collect_host_failed(struct collector *c, size_t host,
    const struct engine_result *res, const char *text);
/*
 * An engine result that is not a clean run: t fails with it (who: "" or
 * "iperf3 server: ", before the text), the host marked down if SSH could
 * not reach it. Nonzero if it failed.
 */
int collect_check_result(struct task *t, const struct machine *m,
    const struct engine_result *res, const char *who);
/*
 * t's command submitted on its source (its kind's timeout, on_done with
 * t); one that cannot be fails t, "TOOL[ ROLE] on HOST: why". Nonzero if
 * it was not: the caller ends t.
 */
int collect_task_submit(struct task *t, const char *role,
    engine_done_cb on_done);

/* collect_server.c */
void collect_server_start(struct task *t);
void collect_servers_stop(struct collector *c);

/* collect_fanout.c: start t's source's fan-out if t goes with one (1) */
int collect_fanout_take(struct collector *c, struct task *t);

/*
 * collect_trace.c (--otlp): the sweep's trace, its stages' and rounds'
 * spans, a span per recorded probe (through hooks.record_traced, which
 * the sweep's begin sets when there is a tracer). Nothing without one.
 */
struct trace_span;
void collect_trace_sweep_begin(struct collector *c);
void collect_trace_sweep_end(struct collector *c);
void collect_trace_stage_begin(struct collector *c, size_t stage);
void collect_trace_stage_end(struct collector *c);

/* collect_report.c: the summary of a finished run */
void collect_report_summary(const struct collector *c, FILE *f);

/*
 * collect_watch.c: continuous sweeps (--every, --count, --rotate) and the
 * metrics of each sweep (--metrics-file, --metrics-listen); its options
 * are collect_watch_specs (collect_watch.h).
 */
/* After the runner: the listener and the first sweep's state; the
   records' metrics through hooks.record_written. */
int collect_watch_start(struct collector *c,
    const struct collect_watch_options *o);
/* The sweep's probes are all done: 1 if another sweep is to come. */
int collect_watch_sweep_end(struct collector *c);
/* Close the watch's handles; runner_extra_closed() follows. */
void collect_watch_close(struct collector *c);
void collect_watch_free(struct collector *c);

#endif
