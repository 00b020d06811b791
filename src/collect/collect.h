/*
 * collect's run state, shared by the files of its run: collect_run.c
 * (phases, tasks, dispatch and records), collect_iperf.c (iperf3 servers
 * and clients), collect_fanout.c (a source host's pings as one command)
 * and collect_report.c (the summary). Private to them: cmd_collect.c sees
 * only collect_run.h.
 */
#ifndef NETPROF_COLLECT_H
#define NETPROF_COLLECT_H

#include <stddef.h>
#include <stdio.h>

#include <uv.h>
#include <cjson/cJSON.h>

#include "engine.h"
#include "error.h"
#include "fanout.h"
#include "inventory.h"
#include "probe.h"
#include "schedule.h"

struct runner;
struct record_writer;
struct record_done_set;
struct progress;
struct fanout_split;
struct collect_watch;
struct collect_watch_options;
struct plan_options;

enum task_state {
	TASK_WAITING = 0,
	TASK_RUNNING,
	TASK_DONE,
	TASK_SKIPPED	/* recorded ok by an earlier run (--resume) */
};

struct collector;
struct fanout_run;

struct task {
	struct collector *c;
	enum probe_kind kind;
	struct pair pair;
	size_t round;			/* 0-based */
	size_t src_pos, dst_pos;	/* its place in the phase's host lists */
	enum task_state state;
	int single;			/* ping on a channel of its own */
	struct fanout_run *fan;		/* the fan-out running it, if any */
	const char *mode;		/* how it is measured, for the record */
	struct engine_job *job;		/* ping, or the iperf3 client */
	char *command, *server_command;
	double started_at, ended_at;
	/* the outcome */
	int ok;
	char *error;
	enum error_class error_class;
	cJSON *metrics;
	double rtt_ms;			/* ping p50, for the summary */
	double mbps;
};

/*
 * The tasks of a phase in round order, and per host the indices of its
 * tasks as source (and as target), also in round order. Dispatch starts at
 * first_waiting and each host's cursor: every task before them has left
 * TASK_WAITING, so a sweep does not re-read the tasks already done.
 */
struct phase {
	struct schedule *sched;
	struct task *tasks;
	size_t n_tasks;
	size_t *round_left;		/* tasks not yet done per round */
	size_t n_todo;			/* tasks neither done nor skipped */
	size_t first_waiting;
	size_t *by_src, *by_dst;	/* host h: [off[h], off[h + 1]) */
	size_t *src_off, *dst_off;
	size_t *src_cur, *dst_cur;	/* per host: first maybe waiting */
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
 * A host's iperf3 server: started for the first test the host serves and
 * kept for the next ones (it serves one test at a time, which the rounds
 * guarantee), ended when the host serves no more or the run stops. It
 * ends by itself at its bound (ps.iperf_server_bound), so one whose
 * netprof died does not stay; one too near its bound for another test is
 * replaced. Each "Server listening" line is one test it will take.
 */
struct iperf_server {
	struct collector *c;
	size_t host;
	struct engine_job *job;
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
	size_t sending, answering, testing;	/* probes in flight */
	size_t clients, servers;	/* duplex iperf3 tests in flight */
	struct iperf_server srv;
	struct fanout_run *fanout;	/* its running fan-out, if any */
	int no_fanout;		/* its shell could not run the fan-out */
	char *down;		/* why the host cannot be used, once known */
	enum error_class down_class;
	size_t ok, failed;
	double *rtts;		/* ping p50 of each ok pair from this host */
	size_t n_rtts;
};

struct collector {
	struct runner *runner;
	uv_loop_t *loop;
	struct engine *engine;
	struct inventory *inv;
	struct probe_settings ps;
	double connect_timeout;
	size_t width;
	size_t fanout;		/* targets per fan-out command; 0: off */
	enum fanout_tool tool;
	int duplex;
	const char *iperf_mode;	/* for the records */
	int serial;
	struct record_writer *writer;
	struct record_done_set *done;
	struct progress *progress;
	struct host_state *hosts;
	struct phase phases[2];
	size_t n_phases, cur;
	size_t running;
	size_t servers_up;	/* iperf3 server jobs not yet done */
	char *server_command;
	size_t ok, failed;
	int interrupted, closing, write_failed;
	const char *output;	/* for messages */
	int dispatching, dispatch_again;
	const struct plan_options *plan;	/* to build each sweep's phases */
	struct collect_watch *watch;	/* --every, --metrics-*; NULL: neither */
};

static inline const struct machine *
machine_at(const struct collector *c, size_t i)
{
	return &c->inv->machines[i];
}

/* The class of an engine error; host-level ones take the host down. */
static inline enum error_class
class_of_engine_error(int error, int *host_level)
{
	*host_level = error == NP_ERR_CONNECT || error == NP_ERR_AUTH ||
	    error == NP_ERR_HOSTKEY_UNKNOWN || error == NP_ERR_HOSTKEY_CHANGED;
	return error_class_of_code(error);
}

/* collect_run.c: tasks and dispatch */
void collect_task_fail(struct task *t, enum error_class cls, char *error);
void collect_task_requeue(struct collector *c, struct task *t);
void collect_task_finish(struct task *t);
int collect_check_result(struct task *t, const struct machine *m,
    const struct engine_result *res, const char *who);
int collect_task_submit(struct task *t, const struct machine *m,
    const char *command, double timeout, engine_output_cb on_output,
    engine_done_cb on_done, struct engine_job **jobp);
struct task *collect_host_task(struct phase *ph, size_t h, int as_target,
    size_t k);
struct task *collect_host_next_waiting(struct phase *ph, size_t h,
    int as_target);
char *collect_first_line(const char *text, size_t max);
void collect_dispatch(struct collector *c);

/* collect_iperf.c */
void collect_iperf_start(struct task *t);
void collect_servers_stop(struct collector *c);

/* collect_fanout.c: start t's source's fan-out if t goes with one (1) */
int collect_fanout_take(struct collector *c, struct phase *ph,
    struct task *t);

/* collect_report.c: the summary of a finished run */
void collect_report_summary(const struct collector *c, FILE *f);

/*
 * collect_watch.c: continuous sweeps (--every, --count, --rotate) and the
 * metrics of each sweep (--metrics-file, --metrics-listen); its options
 * are collect_watch_specs (collect_run.h).
 */
/* After the runner: the listener and the first sweep's state. */
int collect_watch_start(struct collector *c,
    const struct collect_watch_options *o);
/* The sweep running (from 1), or 0 when not continuous. */
long collect_watch_sweep(const struct collector *c);
/* A record written: into the sweep's metrics. */
void collect_watch_record(struct collector *c, const cJSON *record);
/* The sweep's probes are all done: 1 if another sweep is to come. */
int collect_watch_sweep_end(struct collector *c);
/* Close the watch's handles; runner_extra_closed() follows. */
void collect_watch_close(struct collector *c);
void collect_watch_free(struct collector *c);

/* collect_run.c: a new sweep's phases and host state, and its start. */
int collect_sweep_restart(struct collector *c);
void collect_sweep_begin(struct collector *c);

#endif
