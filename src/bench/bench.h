/*
 * netprof bench: the state of one run of the libp2p mesh sweep, shared by
 * the bench modules. A run goes through phases (enum bench_phase), each
 * described once, in bench_phases[] (bench_phase.c): a host phase runs on
 * every live host at once through the engine (one at a time with
 * --serial), a pair phase (punch, sweep, baseline) runs the ordered pairs
 * under per-node limits. A host that fails a phase is marked failed with
 * the reason and skipped by the later phases (teardown excepted); its
 * pairs are recorded failed with that reason.
 *
 * Files, in the order a run meets them: cmd_bench.c (options),
 * bench_run.c (the run: loop, engine, signals, the walk through the
 * phase table, exit status), bench_plan.c (run id, per-host directories
 * and ports, the sweep's kinds, a pair phase's task list), bench_phase.c
 * (the phase table), bench_deploy.c (--otela-bin), bench_host.c (the host
 * phases' launcher; init, discover, configure, push, start, converge),
 * bench_cfg.c (cfg.yaml),
 * bench_sweep.c (punch, sweep, baseline), bench_throughput.c (the
 * sweep's throughput rounds), bench_teardown.c (teardown by
 * PID, --teardown), bench_record.c (records, run.json), bench_report.c
 * (progress, summary). The phases' files tell the run that a phase has
 * ended through struct bench_hooks, never by calling into bench_run.c.
 */
#ifndef NETPROF_BENCH_H
#define NETPROF_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include <uv.h>
#include <cjson/cJSON.h>

#include "bench_counters.h"
#include "engine.h"
#include "dispatch.h"
#include "diagnose_gate.h"
#include "inventory.h"
#include "probe_kind.h"
#include "record.h"
#include "runner.h"
#include "trace.h"

/* In the order a run goes through them; what each is: bench_phases[]. */
enum bench_phase {
	BENCH_DEPLOY = 0,
	BENCH_INIT,
	BENCH_DISCOVER,
	BENCH_CONFIGURE,
	BENCH_PUSH,
	BENCH_START,
	BENCH_CONVERGE,
	BENCH_PUNCH,
	BENCH_PATH,
	BENCH_SWEEP,
	BENCH_BASELINE,
	BENCH_TEARDOWN,
	BENCH_N_PHASES
};

/* Per host and phase. */
enum bench_status {
	BENCH_ST_NONE = 0,	/* not run (yet) */
	BENCH_ST_OK,
	BENCH_ST_FAILED,
	BENCH_ST_SKIPPED,	/* the host had failed earlier */
	BENCH_ST_INTERRUPTED	/* stopped by SIGINT/SIGTERM */
};

struct bench;
struct bench_host;
struct bench_task;

/* Whom a phase's work is for. */
enum bench_scope {
	BENCH_SCOPE_HOST = 0,	/* every live host: a step each */
	BENCH_SCOPE_PAIR	/* every ordered pair: a task each */
};

/* run.json's "phases" has NAME_s even when it did not run (upstream's) */
#define BENCH_PHASE_UPSTREAM 0x1
/* no remote work: a host's step ends as it starts (configure) */
#define BENCH_PHASE_LOCAL 0x2
/*
 * visits every host that init reached, failed ones too, and goes on
 * through an interrupt, which skips every other phase (teardown)
 */
#define BENCH_PHASE_CLEANUP 0x4
/*
 * needs the running node (start to the sweep): once no phase ahead of the
 * run has this flag, the nodes are told to stop (bench_teardown_begin())
 * while the rest of the run goes on
 */
#define BENCH_PHASE_NODE 0x8
/*
 * needs no node (the baseline's ICMP): without --serial it runs beside
 * the nodes' start and convergence, from the first BENCH_PHASE_NODE
 * phase's beginning, its own start and end recorded; a later pair phase
 * (or the run's end) waits for it
 */
#define BENCH_PHASE_BESIDE 0x10

/*
 * One phase, as bench_phases[] lists it (OpenSSH's channel_pre[]): run
 * when runs() says so (NULL: always), in the order of enum bench_phase.
 * A host phase starts each host's step with host_start(), a pair phase
 * each pair's task with pair_start(). 0: the step or task is under way
 * and ends later (bench_host_step_done(), the task's reply), or, in a
 * BENCH_PHASE_LOCAL phase, is done; 1 (host_start): the step had nothing
 * left to do and is done; a negative code: it could not start (the host
 * or the task fails with it).
 */
struct bench_phase_spec {
	const char *name;	/* "init", "discover", ... */
	enum bench_scope scope;
	int (*runs)(const struct bench *b);
	int (*host_start)(struct bench_host *h);
	int (*pair_start)(struct bench *b, struct bench_task *t);
	unsigned flags;		/* BENCH_PHASE_* */
};

extern const struct bench_phase_spec bench_phases[BENCH_N_PHASES];

/*
 * What the phases' files tell the run (bench_run.c sets them, as a
 * command sets its runner_hooks): bench_host.c and bench_sweep.c call
 * these, and never into bench_run.c.
 */
struct bench_hooks {
	/* Every host or pair of phase p (the current one, or the one beside
	   it) is done. */
	void (*phase_ended)(struct bench *b, enum bench_phase p);
	/* h's node has started and its PID is known (run.json wants it). */
	void (*node_started)(struct bench_host *h);
};

/* --throughput-mode's words, in bench_throughput_modes' order */
enum bench_tp_mode {
	BENCH_TP_AUTO = 0,	/* a pair both ways at once where valid */
	BENCH_TP_EXCLUSIVE,
	BENCH_TP_DUPLEX
};
extern const char *const bench_throughput_modes[];
/*
 * auto: two hosts of no site whose TCP handshake (the path phase's reach
 * check, the faster way) takes at most this many µs share one switched
 * network, so a pair of them runs both ways at once.
 */
#define BENCH_LAN_US 1000L

/* Defaults (the upstream profiler's). */
#define BENCH_DEFAULT_LATENCY_COUNT 20
#define BENCH_DEFAULT_THROUGHPUT_COUNT 3
#define BENCH_DEFAULT_THROUGHPUT_BYTES 10485760L
#define BENCH_DEFAULT_HEALTH_WAIT 30.0
#define BENCH_DEFAULT_CONVERGE_WAIT 60.0
#define BENCH_DEFAULT_PROBE_TIMEOUT 60.0
#define BENCH_DEFAULT_MAX_PROBES 2
/*
 * Seconds from TERM to KILL. The real node's cleanup (about 10 s: its
 * leave announced to peers that are stopping too, a 5 s sleep, its
 * database deleted from the run directory that the teardown removes)
 * leaves nothing that outlives the run: not waited for (docs/bench.md).
 */
#define BENCH_DEFAULT_STOP_GRACE 0.5
/* Seconds a lifecycle command (init, peer-id, push, start) may take. */
#define BENCH_STEP_TIMEOUT 30.0
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
/* A holepunch answer's last_error from a node that cannot punch (the real
   node at e0591341: its hole punch service is never made). */
#define BENCH_PUNCH_DISABLED "hole punch service not initialized"

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
	unsigned kinds;		/* the sweep's node kinds: bit
				   (1 << probe_kind_index()) */
	const char **bootstrap;	/* --bootstrap, in order */
	size_t n_bootstrap;
	int max_probes;		/* light probes per node at once */
	int throughput_mode;	/* --throughput-mode: BENCH_TP_* */
	int keep, serial, baseline, no_punch;
	int force;		/* --force: write over an earlier run's output */
	struct diagnose_gate_options gate;	/* --fail-on */
	int reachability;	/* --reachability: index in
				   bench_reachability_names */
	int relay_circuits;	/* --relay-circuits */
};

/* --reachability's words, cfg.yaml's reachability values ("auto" first:
   upstream's) */
extern const char *const bench_reachability_names[];

/*
 * A --bootstrap peer given as /ip4|ip6|dns|dns4|dns6/ADDR/tcp/PORT/p2p/ID
 * (NAME=MULTIADDR names it): every OpenTela node is a relay, so each is a
 * relay a pair may take, and the sweep measures every host's legs to it
 * (bench_relay.c).
 */
struct bench_relay {
	char *name;		/* NAME=, else its address */
	const char *multiaddr;	/* as given, NAME= left out */
	char *address;
	int port;		/* libp2p TCP */
	char *peer_id;
};

struct bench_binary;
struct bench_path_host;
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
	/*
	 * The stop (bench_teardown.c), begun once no phase ahead needs the
	 * node, on a job and a timer of its own: the teardown's step only
	 * waits for it.
	 */
	struct engine_job *stop_job;
	int stop_state;		/* 0 not begun, 1 under way, 2 done */
	int stop_awaited;	/* the teardown's step waits for its end */
	const char *stop_signal;	/* what ended the node: "TERM", "KILL";
					   NULL: none ran */
	uv_timer_t stop_timer;	/* the held node's step, after the stop */
	/* the held node's step ended (set by the stop; NULL: unexpected) */
	void (*node_ended)(struct bench_host *h);
	/* converge */
	int converged;
	double converge_s;
	char **missing;		/* peers not (yet) in its table, by name */
	size_t n_missing;
	/* work in flight for this host's current step */
	double step_t0;		/* monotonic seconds */
	struct engine_job *job;
	struct node_call *call;
	uv_timer_t timer;	/* the step's one wait (bench_host_wait()) */
	int timer_active;
	void (*wait_fn)(struct bench_host *h);	/* what it calls then */
	int attempts;
	double alive_at;	/* start: the last check that the node runs */
	/*
	 * The slurm transport (without --keep): the node runs in a job step
	 * of its own that netprof holds open for the run (srun's process),
	 * so a site that ends a step's leftovers with the step
	 * (proctrack/cgroup) does not end the node. Torn down by PID like
	 * every node; the step is cancelled if it outlives that.
	 */
	struct engine_job *node_job;	/* the node's step; NULL once it ended */
	char node_out[64];	/* its first output: PID, start time,
				   "listening" */
	size_t node_out_len;
	int node_wait;		/* start: waiting for the node step's PID */
	struct bench_binary *deploy_bin;	/* --otela-bin: its binary */
	struct trace_span *span;	/* its step of the current phase */
	struct trace_span *health;	/* start: the health wait, in it */
	/* what the path phase learned (bench_path.h): a TCP connect to
	   every target's libp2p port, and the node's views */
	struct bench_path_host *path;
	/* the node's own counters (bench_counters.h): read in the path
	   phase's first view, and at the sweep's end */
	struct bench_counters counters[2];
	int punch_unable;	/* its node answered BENCH_PUNCH_DISABLED */
	int busy;		/* pair tasks using this node now */
	int exclusive;		/* in a throughput probe now */
	/* summary */
	size_t ok, fail;
};

/* A record's path (bench_path.c concludes it). */
enum bench_path_class {
	BENCH_PATH_UNKNOWN = 0,
	BENCH_PATH_DIRECT,
	BENCH_PATH_PUNCHED,	/* direct after DCUtR */
	BENCH_PATH_RELAYED
};

/* One pair task of the punch, sweep or baseline phase. */
struct bench_task {
	struct bench *b;
	enum bench_phase phase;	/* BENCH_PUNCH, _SWEEP, _BASELINE */
	const struct probe_kind *kind;	/* the sweep's, baseline's; punch:
					   NULL */
	struct dispatch_task *dt;	/* its place in the dispatcher */
	size_t src, dst;	/* host indexes; a dst from b->n on is the
				   relay b->relays[dst - b->n] (its legs) */
	int view;		/* the node views it started under */
	int round;		/* 1-based */
	int state;		/* 0 waiting, 1 running, 2 done */
	double started_at, ended_at;	/* wall clock */
	struct node_call *call;
	struct engine_job *job;
	struct trace_span *span;	/* while it runs (--otlp) */
	char *command;		/* baseline: the ping command */
	/* its record (the one form): the outcome its kind's parser or
	   task_fail() fills (ok, metrics, error, class), the rest when it
	   is written; a punch's ok and error for run.json */
	struct record rec;
	enum error_class cls;	/* the class of its failure */
	double value;		/* p50 ms or Mbps, for the summary */
	double fastest_ms;	/* its fastest round trip (min_ms), kept
				   for the pair's path; 0 none */
	char *connectedness;	/* punch */
	int attempts;		/* punch: the node's, its look's and after */
	int looked;		/* punch: the look tried, the rest asked */
	int late;		/* sweep: the punch left its pair apart */
	unsigned char path;	/* the record's: BENCH_PATH_* */
	/* throughput both ways at once (auto): the pair's other way, and
	   whether this one holds the pair's room in the dispatcher */
	struct bench_task *with;
	int lead;
	long relay;		/* its relay: a host's index, b->n + a
				   relay's, or -1 */
};

struct bench_pairs {
	struct bench_task *tasks;
	size_t n;
	struct dispatch *d;	/* the phase's pair dispatcher */
};

struct bench {
	const struct bench_options *o;
	struct bench_hooks hooks;	/* the run's */
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
	/* the host whose node's start is in flight: the start phase
	   launches the next host once it listens (bench_start.c) */
	struct bench_host *starting;
	int dispatching;	/* inside the pair dispatcher */
	struct bench_pairs pairs;	/* of the pair phase pair_phase */
	enum bench_phase pair_phase;
	/* the BENCH_PHASE_BESIDE phase under way beside b->phase
	   (BENCH_N_PHASES: none), its clock and span; the phase that waits
	   for its end (BENCH_N_PHASES: none; the run's end: held_end) */
	enum bench_phase beside, held;
	int held_end;
	double beside_t0;
	struct trace_span *beside_span;
	/* every pair phase's tasks, kept for run.json and the summary */
	struct bench_task *task_sets[BENCH_N_PHASES];
	size_t n_task_sets[BENCH_N_PHASES];
	const char **bootstrap;	/* --bootstrap's multiaddrs, NAME= left out */
	struct bench_relay *relays;	/* the --bootstrap peers that are
					   relays */
	size_t n_relays;
	int view;		/* the node views the sweep's tasks start
				   under (bench_path.h) */
	size_t views_pending;	/* hosts whose view (or, at the sweep's
				   end, counters) is being read */
	void (*views_done)(struct bench *b);
	struct record_writer *writer;
	size_t ok, failed;	/* sweep records */
	size_t unsupported;	/* of a kind the node does not know: neither */
	size_t baseline_ok, baseline_failed;
	double started_at, ended_at;	/* wall clock */
	int interrupted, write_failed, closing;
	int teardown_only;	/* --teardown: no run.json, no records */
	struct runner *runner;
	struct trace *trace;	/* --otlp: the runner's; NULL: none */
	struct trace_span *span;	/* the run's, the trace's root */
	struct trace_span *phase_span;	/* the current phase's */
	struct bench_deploy *deploy;	/* --otela-bin */
	int progress_live;	/* a live line on a terminal */
	int progress_open;	/* the live line needs a newline */
	size_t prog_ok, prog_failed, prog_total;
	double prog_drawn;
};

/* bench_phase.c: "init", "discover", ... (bench_phases[p].name). */
const char *bench_phase_name(enum bench_phase p);
/* Does this run have phase p (its runs() predicate)? */
int bench_phase_runs(const struct bench *b, enum bench_phase p);
/* Does a phase after p that this run has need the nodes running? */
int bench_phase_nodes_needed(const struct bench *b, enum bench_phase p);
/*
 * Does phase p visit host h? A cleanup phase the hosts that init reached,
 * every other phase the hosts that have not failed.
 */
int bench_phase_visits(enum bench_phase p, const struct bench_host *h);

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
/* Is k one of this run's sweep kinds (--kinds)? */
int bench_plan_has(const struct bench *b, const struct probe_kind *k);
/*
 * The next task of the pair phase's list (bench_sweep.c's, and
 * bench_throughput.c's rounds): what it is, all else zero.
 */
void bench_pairs_add(struct bench *b, enum bench_phase p,
    const struct probe_kind *k, size_t src, size_t dst, int round);

/* bench_deploy.c (--otela-bin): read the binaries; deploy to one host. */
int bench_deploy_load(struct bench *b, char **cause);
int bench_deploy_host(struct bench_host *h);
void bench_deploy_free(struct bench *b);

/*
 * bench_host.c: start the host phase b->phase on every host it visits
 * (one at a time with --serial); it ends through b->hooks.phase_ended.
 */
void bench_hosts_start(struct bench *b);
/* Launch the phase's next hosts, if they may start now. */
void bench_hosts_launch(struct bench *b);
/* The host's step of the current phase ended (ok unless marked). */
void bench_host_step_done(struct bench_host *h);
/* A node call's reply came: h's call is over; 1 when the run was
   interrupted meanwhile (the step then ended here), else 0. */
int bench_host_reply_taken(struct bench_host *h);
/* It failed: mark the host (takes error), then end the step. */
void bench_host_step_fail(struct bench_host *h, enum error_class cls,
    char *error);
/*
 * The step's one wait, before its next poll (health, convergence): fn(h)
 * after a backoff by h->attempts (50 ms doubling to 200 ms), or the step
 * ends then if the run was interrupted meanwhile.
 */
void bench_host_poll(struct bench_host *h, void (*fn)(struct bench_host *h));
/* A remote command of h's step (engine_submit, logged with -v). */
int bench_host_submit(struct bench_host *h, const char *command,
    const char *input, double timeout, engine_done_cb cb);
/*
 * GET path from h's node for its step (under span), the answer to cb
 * with h; one that cannot be sent fails the step ("HOST: what: why").
 */
struct node_reply;
void bench_host_get(struct bench_host *h, const char *path, double timeout,
    const struct trace_span *span, void (*cb)(const struct machine *m,
    const struct node_reply *r, void *arg), const char *what);
/* The host steps, in their phases' order (bench_phases[]'s host_start). */
int bench_host_init(struct bench_host *h);
int bench_host_discover(struct bench_host *h);
int bench_host_configure(struct bench_host *h);
int bench_host_push(struct bench_host *h);
int bench_host_converge(struct bench_host *h);
/* Stop what a host is doing (interrupt): its step ends cancelled. */
void bench_host_cancel(struct bench_host *h);
/*
 * A failed remote command of h's step (not a clean exit 0): the step
 * fails saying why (or ends, when interrupted) and 1; else 0.
 */
int bench_host_check_job(struct bench_host *h,
    const struct engine_result *res, const char *what);
/* bench_start.c: the start phase's step (the node, then its health). */
int bench_host_start_node(struct bench_host *h);
/*
 * A PID at the start of s: a positive decimal (no sign, no leading zero)
 * up to 2^31-1. 1 and *pid set (*end after it, if end is not NULL), or 0.
 */
int bench_pid_parse(const char *s, long *pid, char **end);
/* Set up the hosts' timers on b->loop. */
void bench_hosts_open(struct bench *b);
/* Close the hosts' timers (before the loop ends). */
void bench_hosts_close(struct bench *b);

/*
 * bench_sweep.c: start the pair phase p (punch, sweep, baseline; b->phase,
 * or b->beside): its tasks, then as many as may run; it ends through
 * b->hooks.phase_ended (at once after an error, which it reports and
 * which stops the run).
 */
void bench_pairs_start(struct bench *b, enum bench_phase p);
/* The tasks' starters (bench_phases[]'s pair_start). */
int bench_sweep_punch(struct bench *b, struct bench_task *t);
int bench_sweep_probe(struct bench *b, struct bench_task *t);
int bench_sweep_ping(struct bench *b, struct bench_task *t);
void bench_pairs_cancel(struct bench *b);

/*
 * bench_throughput.c: an exclusive kind's tasks in the sweep's list, by
 * --throughput-mode (auto: a pair both ways at once where valid); whether
 * they run in duplex rounds (--throughput-mode duplex, every such kind
 * may, not --serial); run.json's config: throughput_mode, and with auto
 * the pairs run both ways at once ("throughput_both_ways": [[A, B]]).
 */
int bench_throughput_add(struct bench *b, const struct probe_kind *kind);
int bench_throughput_duplex(const struct bench *b);
void bench_throughput_json(cJSON *cfg, const struct bench *b);
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

/* bench_relay.c: b->bootstrap and b->relays from --bootstrap; NP_ERR_USAGE
   with *cause naming the entry and the fix. */
int bench_relays_parse(struct bench *b, char **cause);
void bench_relays_free(struct bench *b);
/* A target's name, PeerID, address and libp2p port: a host's, or from b->n
   on a relay's. */
const char *bench_target_name(const struct bench *b, size_t i);
const char *bench_target_peer_id(const struct bench *b, size_t i);
const char *bench_target_address(const struct bench *b, size_t i);
int bench_target_port(const struct bench *b, size_t i);

/*
 * bench_path.c: the path phase's step on a host (a TCP connect to every
 * target's libp2p port, then the node's view: GET /metrics,
 * /v1/dnt/peers_status, /v1/dnt/table); the views again on every live host
 * (before the sweep's exclusive stage), then done(b) on a later turn;
 * a sweep record's path (rec's path fields; *evidence is the record's new
 * string, the caller's to free); the path phase's part of run.json.
 */
int bench_path_host(struct bench_host *h);
int bench_path_views(struct bench *b, void (*done)(struct bench *b));
void bench_path_record(struct bench *b, struct bench_task *t,
    struct record *rec, char **evidence);
void bench_path_json(cJSON *root, const struct bench *b);
cJSON *bench_path_machine_json(const struct bench *b,
    const struct bench_host *h);
void bench_path_free(struct bench *b);

/* bench_report.c: progress on stderr, and the final summary. */
void bench_report_open(struct bench *b);
void bench_report_close(struct bench *b);
void bench_report_interrupt(struct bench *b);
void bench_report_phase(struct bench *b);
void bench_report_host(struct bench *b, const struct bench_host *h);
void bench_report_task(struct bench *b, const struct bench_task *t);
void bench_report_phase_end(struct bench *b, enum bench_phase p);
void bench_report_summary(const struct bench *b, FILE *f);

#endif
