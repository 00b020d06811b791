/*
 * netprof bench: the state of one run of the libp2p mesh sweep, shared by
 * the bench modules. A run goes through phases (enum bench_phase); each
 * per-host phase runs on every live host at once through the engine (one at
 * a time with --serial), each pair phase (punch, sweep, baseline) runs the
 * ordered pairs under per-node limits. A host that fails a phase is marked
 * failed with the reason and skipped by the later phases (teardown
 * excepted); its pairs are recorded failed with that reason.
 *
 * Files: cmd_bench.c (options), bench_run.c (the run: loop, engine,
 * signals, phase order, exit status), bench_plan.c (run id, per-host
 * directories and ports), bench_cfg.c (cfg.yaml), bench_host.c (the
 * per-host phases), bench_sweep.c (punch, sweep, baseline), bench_record.c
 * (records, run.json), bench_teardown.c (teardown by PID, --teardown),
 * bench_deploy.c (--otela-bin), bench_report.c (progress, summary).
 */
#ifndef NETPROF_BENCH_H
#define NETPROF_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include <uv.h>
#include <cjson/cJSON.h>

#include "inventory.h"
#include "record.h"
#include "runner.h"

enum bench_phase {
	BENCH_DEPLOY = 0,	/* --otela-bin only */
	BENCH_INIT,
	BENCH_DISCOVER,
	BENCH_CONFIGURE,
	BENCH_PUSH,
	BENCH_START,
	BENCH_CONVERGE,
	BENCH_PUNCH,
	BENCH_SWEEP,
	BENCH_BASELINE,		/* --baseline only */
	BENCH_TEARDOWN,
	BENCH_N_PHASES
};

enum bench_kind {
	BENCH_KIND_PING = 0,	/* libp2p_ping */
	BENCH_KIND_LATENCY,
	BENCH_KIND_THROUGHPUT,
	BENCH_N_KINDS
};

/* Per host and phase. */
enum bench_status {
	BENCH_ST_NONE = 0,	/* not run (yet) */
	BENCH_ST_OK,
	BENCH_ST_FAILED,
	BENCH_ST_SKIPPED,	/* the host had failed earlier */
	BENCH_ST_INTERRUPTED	/* stopped by SIGINT/SIGTERM */
};

/* Defaults (the upstream profiler's). */
#define BENCH_DEFAULT_LATENCY_COUNT 20
#define BENCH_DEFAULT_THROUGHPUT_COUNT 3
#define BENCH_DEFAULT_THROUGHPUT_BYTES 10485760L
#define BENCH_DEFAULT_HEALTH_WAIT 30.0
#define BENCH_DEFAULT_CONVERGE_WAIT 60.0
#define BENCH_DEFAULT_PROBE_TIMEOUT 60.0
#define BENCH_DEFAULT_MAX_PROBES 2
/* Seconds from TERM to KILL: the real node's cleanup takes about 10. */
#define BENCH_DEFAULT_STOP_GRACE 15.0
#define BENCH_MAX_PROBES_MAX 64
/*
 * Open files per host while bench runs: its session, and per node API
 * call in flight (the probes, and a poll or punch) a socket pair, the
 * bridge's listener and its two ends of libcurl's connection.
 */
#define BENCH_FDS_PER_CALL 5
#define BENCH_FDS_PER_HOST(max_probes) \
	(1 + BENCH_FDS_PER_CALL * ((size_t)(max_probes) + 1))
#define BENCH_LOG_TAIL_MAX 4096	/* bytes of a failed node's log kept */

struct bench_options {
	struct runner_options common;	/* --config --hosts ... */
	const char *output, *run_id;
	const char *teardown;	/* --teardown RUN_ID | DIR/run.json */
	const char *otela_bin;	/* --otela-bin DIR */
	const char *metrics_file;	/* --metrics-file: the run as metrics */
	int http_port, libp2p_port;	/* 0: the machine's */
	int latency_count, throughput_count;
	long throughput_bytes;
	double health_wait, converge_wait, probe_timeout, stop_grace;
	unsigned kinds;		/* bit (1 << enum bench_kind) */
	const char **bootstrap;	/* --bootstrap, in order */
	size_t n_bootstrap;
	int max_probes;		/* light probes per node at once */
	int keep, serial, baseline, no_punch, quiet;
	int force;		/* --force: write over an earlier run's output */
};

struct bench;
struct bench_binary;
struct engine_job;
struct node_call;

struct bench_host {
	struct bench *b;
	const struct machine *m;
	char *dir;		/* /tmp/otela-bench-RUN-NAME on the host */
	char *otela;		/* how to run otela there (shell words) */
	char *peer_id;
	char *cfg;		/* the rendered cfg.yaml */
	long pid;		/* of the node; 0 before start */
	long long pid_start;	/* its start time (/proc/PID/stat field 22,
				   clock ticks since boot); 0: unknown */
	int http_port, libp2p_port;
	enum bench_status status[BENCH_N_PHASES];
	double phase_s[BENCH_N_PHASES];	/* this host's part of a phase */
	double step_at[BENCH_N_PHASES], step_end[BENCH_N_PHASES]; /* wall; 0: not run */
	int failed;		/* a phase failed: later phases skip it */
	enum bench_phase failed_phase;
	enum error_class error_class;
	char *error;		/* why, with the host's name */
	char *log_tail;		/* end of the node's log, when it failed */
	int touched;		/* init was sent: teardown must visit */
	int torn_down;
	/* converge */
	int converged;
	double converge_s;
	char **missing;		/* peers not (yet) in its table, by name */
	size_t n_missing;
	/* work in flight for this host's current step */
	double step_t0;		/* monotonic seconds */
	struct engine_job *job;
	struct node_call *call;
	uv_timer_t timer;
	int timer_active;
	int attempts;
	/*
	 * The slurm transport (without --keep): the node runs in a job step
	 * of its own that netprof holds open for the run (srun's process),
	 * so a site that ends a step's leftovers with the step
	 * (proctrack/cgroup) does not end the node. Torn down by PID like
	 * every node; the step is cancelled if it outlives that.
	 */
	struct engine_job *node_job;	/* the node's step; NULL once it ended */
	char node_out[64];	/* its first output: PID and start time */
	size_t node_out_len;
	int node_wait;		/* start: waiting for the node step's PID */
	int node_end_wait;	/* teardown: waiting for the node step to end */
	struct bench_binary *deploy_bin;	/* --otela-bin: its binary */
	int busy;		/* pair tasks using this node now */
	int exclusive;		/* in a throughput probe now */
	/* summary */
	size_t ok, fail;
};

/* One pair task of the punch, sweep or baseline phase. */
struct bench_task {
	struct bench *b;
	enum bench_phase phase;	/* BENCH_PUNCH, _SWEEP, _BASELINE */
	enum bench_kind kind;	/* for the sweep */
	size_t src, dst;	/* host indexes */
	int round;		/* 1-based */
	int state;		/* 0 waiting, 1 running, 2 done */
	double started_at, ended_at;	/* wall clock */
	struct node_call *call;
	struct engine_job *job;
	char *command;		/* baseline: the ping command */
	/* outcome */
	int ok;
	char *error;
	enum error_class error_class;
	cJSON *metrics;
	double value;		/* p50 ms or Mbps, for the summary */
	char *connectedness;	/* punch */
	int attempts;
};

struct bench_pairs {
	struct bench_task *tasks;
	size_t n, next, running, left;
};

struct bench {
	const struct bench_options *o;
	struct inventory *inv;
	char run_id[64];
	char *outdir, *records_path, *run_json_path;
	uv_loop_t *loop;
	struct engine *engine;
	struct node_api *api;
	struct bench_host *hosts;
	size_t n;
	enum bench_phase phase;
	int phase_ran[BENCH_N_PHASES];
	double phase_s[BENCH_N_PHASES];
	double phase_t0;	/* monotonic seconds */
	double phase_at[BENCH_N_PHASES], phase_end[BENCH_N_PHASES]; /* wall; 0: not run */
	size_t outstanding;	/* per-host steps in flight */
	size_t next_host;	/* the next host to start in this phase */
	int launching;		/* inside the host launcher */
	int dispatching;	/* inside the pair dispatcher */
	struct bench_pairs pairs;	/* of the current pair phase */
	/* every pair phase's tasks, kept for run.json and the summary */
	struct bench_task *task_sets[BENCH_N_PHASES];
	size_t n_task_sets[BENCH_N_PHASES];
	struct record_writer *writer;
	size_t ok, failed;	/* sweep records */
	size_t baseline_ok, baseline_failed;
	double started_at, ended_at;	/* wall clock */
	int interrupted, write_failed, closing;
	int teardown_only;	/* --teardown: no run.json, no records */
	struct runner *runner;
	struct bench_deploy *deploy;	/* --otela-bin */
	int progress_live;	/* a live line on a terminal */
	int progress_open;	/* the live line needs a newline */
	size_t prog_ok, prog_failed, prog_total;
	double prog_drawn;
};

/* "init", "discover", ... */
const char *bench_phase_name(enum bench_phase p);
/* "libp2p_ping", "latency", "throughput" */
const char *bench_kind_name(enum bench_kind k);
/* The kind named s, or -1. */
int bench_kind_parse(const char *s);

/* Monotonic seconds. */
double bench_now(void);

/* Mark h failed in phase p (the first reason wins); takes error. */
void bench_host_fail(struct bench_host *h, enum bench_phase p,
    enum error_class cls, char *error);

/*
 * The PeerID in `otela peer-id` output (its last non-empty line, trimmed)
 * into *id. NP_ERR_PARSE if it is not a valid PeerID; *id is then what was
 * printed (for the message), or NULL if nothing was.
 */
int bench_peer_id_from_output(const char *out, char **id);

/* bench_plan.c: a run id like upstream's, 2026-05-03T11-37-42-a1b2c3. */
void bench_run_id_new(char *buf, size_t size);
/* Directories, ports and otela command of every host. */
int bench_plan_hosts(struct bench *b);
/* The host's dir for run_id: /tmp/otela-bench-RUN-NAME (new string). */
char *bench_host_dir(const char *run_id, const char *name);
/*
 * Shell text to put before an otela command on the host: OF_* and AXIOM_*
 * removed (NETPROF_OF_X passed as OF_X), then "HOME=DIR", an assignment
 * for the command that follows it (new string).
 */
char *bench_otela_env(const char *dir);

/* bench_run.c: the phase that ended; starts the next. */
void bench_phase_done(struct bench *b);
/* Rewrite run.json now (after a node started: its PID is in it). */
void bench_run_json_checkpoint(struct bench *b);

/* bench_host.c: start per-host phase p on every live host. */
void bench_host_phase_start(struct bench *b, enum bench_phase p);
/* The host's step of the current phase ended (ok unless marked). */
void bench_host_step_done(struct bench_host *h);
/* It failed: mark the host (takes error), then end the step. */
void bench_host_step_fail(struct bench_host *h, enum error_class cls,
    char *error);
/* Stop what a host is doing (interrupt): its step ends cancelled. */
void bench_host_cancel(struct bench_host *h);
/* Set up the hosts' timers on b->loop. */
void bench_hosts_init(struct bench *b);
/* Close the hosts' timers (before the loop ends). */
void bench_hosts_close(struct bench *b);

/* bench_sweep.c: start pair phase p (punch, sweep, baseline). */
int bench_pairs_start(struct bench *b, enum bench_phase p);
void bench_pairs_cancel(struct bench *b);
/* A probe's timeout_ms: whole milliseconds (the node wants an integer). */
long long bench_timeout_ms(double seconds);
/*
 * Seconds a holepunch request may take on the node: its deadline is
 * checked only before an attempt (a DCUtR round of up to dcutr_s, then
 * wait_ms), so the answer may come an attempt after timeout_ms, and no
 * later than attempts whole attempts.
 */
double bench_punch_limit(int attempts, int wait_ms, int timeout_ms,
    double dcutr_s);
/* Free the pair tasks, the punch results too (at the end of the run). */
void bench_pairs_free(struct bench *b);

/* bench_deploy.c (--otela-bin): read the binaries; deploy to one host. */
int bench_deploy_load(struct bench *b, char **cause);
int bench_deploy_host(struct bench_host *h);
void bench_deploy_free(struct bench *b);

/* bench_report.c: progress on stderr, and the final summary. */
void bench_report_open(struct bench *b);
void bench_report_close(struct bench *b);
void bench_report_interrupt(struct bench *b);
void bench_report_phase(struct bench *b);
void bench_report_host(struct bench *b, const struct bench_host *h);
void bench_report_task(struct bench *b, const struct bench_task *t);
void bench_report_phase_end(struct bench *b);
void bench_report_summary(const struct bench *b, FILE *f);

#endif
