/*
 * The command runner: what every command that touches hosts shares. It
 * owns the loop, the engine and the SIGINT/SIGTERM watchers, closes them
 * in one order and turns an interruption into the exit status; it also
 * declares the options those commands share (--config, --hosts,
 * --accept-new-host-keys, --max-channels), once.
 *
 * A command's life with it:
 *
 *	struct runner *rn;
 *	runner_new(inv, &ro, &hooks, cmd, &rn);	   loop, engine, signals
 *	... submit work on runner_engine(rn), handles on runner_loop(rn) ...
 *	runner_run(rn);		   returns once everything is closed
 *	rc = runner_exit(rn, rc);  NP_EXIT_INTERRUPTED after a signal
 *	runner_free(rn);
 *
 * and, from a callback, once its work is done: runner_finish(rn).
 *
 * Closing, in this order: (1) hooks.close_extra, if set, closes the
 * command's own handles (bench: its HTTP client, whose sockets are the
 * engine's tunnels) and calls runner_extra_closed() when the last is
 * closed; (2) the engine is closed (jobs killed, tunnels ended, sessions
 * closed); (3) with --otlp, the tracer sends what it holds and closes;
 * (4) the signal watchers are closed, so the loop ends.
 *
 * Ctrl-C, the same in every command: the first SIGINT or SIGTERM logs
 * "interrupted (signal N); closing sessions", then calls hooks.interrupt
 * if set (the command stops starting work, cancels what runs and calls
 * runner_finish() once nothing is left) or else runner_finish() at once.
 * A second signal during the cleanup says what it waits for (commands
 * being killed, sessions closing, hooks.waiting_for's words); a third
 * ends the process at once.
 */
#ifndef NETPROF_RUNNER_H
#define NETPROF_RUNNER_H

#include <getopt.h>
#include <uv.h>

#include "cmd.h"
#include "engine.h"
#include "inventory.h"
#include "option.h"
#include "trace.h"
#include "trace_config.h"

struct runner;

/* --hosts and --exclude, each as given (repeatable): host lists as
   hostlist.h reads them, and @SITE */
#define RUNNER_HOST_LISTS 32
struct runner_names {
	const char *list[RUNNER_HOST_LISTS];
	size_t n;
};

/* The options every host command takes (runner_*_specs). */
struct runner_options {
	const char *config;
	struct runner_names hosts;	/* -H, -w: only these machines */
	struct runner_names exclude;	/* -x: not these */
	int strict_config;	/* an unknown key in --config is an error */
	int accept_new_host_keys;
	int max_channels;		/* 0: the engine's default */
	int all_hosts_at_once;		/* no host waits for a slot: set by
					   runner_fd_room() */
	const char *slurm;		/* --slurm: a job id, "" for
					   $SLURM_JOB_ID; NULL: not given */
	int transport;			/* --transport: 0 not given, 1 slurm,
					   2 ssh */
	int slurm_steps;		/* --slurm-steps: 0 not given, 1 batch,
					   2 each (a step per command) */
	struct trace_options trace;	/* --otlp (trace_option_specs) */
};

/*
 * The shared options' blocks for a command's table (option.h), fields of
 * struct runner_options: --config, --strict-config, --hosts and
 * --exclude (the inventory), and --accept-new-host-keys and
 * --max-channels (the sessions).
 */
extern const struct option_spec runner_inventory_specs[];
extern const struct option_spec runner_slurm_specs[];
extern const struct option_spec runner_session_specs[];

/*
 * After getopt: no operand may remain, and --config or --slurm must have
 * been given, --config defaulting to ./machines.json (cmd.h) without
 * --slurm (--transport only with --slurm). NP_EXIT_OK or NP_EXIT_USAGE
 * (reported).
 */
int runner_need_inventory(const struct cmd_entry *self, int argc,
    char **argv, struct runner_options *o);

/*
 * The inventory of --config, or of --slurm's job with --config's defaults,
 * kept to --hosts less --exclude; its warnings said (an unknown key, the
 * environment's template), or with --strict-config an unknown key
 * refused; and --otlp's settings from the environment checked
 * (trace_config.h), so that a bad one stops the command before anything
 * runs. NP_EXIT_OK, or NP_EXIT_USAGE with the error reported.
 */
int runner_load_inventory(const struct runner_options *o,
    struct inventory **out);

/*
 * For a command that measures pairs (plan, collect, bench): inv has two
 * machines at least, else "nothing to measure" is said, with what left
 * one (the inventory, or --hosts and --exclude) and the fix, and
 * NP_EXIT_USAGE returned. NP_EXIT_OK otherwise.
 */
int runner_need_pairs(const struct inventory *inv,
    const struct runner_options *o, const char *command);

struct runner_hooks {
	/* first signal; NULL: runner_finish() at once */
	void (*interrupt)(struct runner *rn, void *arg);
	/* close the command's own handles, then runner_extra_closed() */
	void (*close_extra)(struct runner *rn, void *arg);
	/* a second signal: what the command's cleanup waits for, or NULL */
	const char *(*waiting_for)(struct runner *rn, void *arg);
	void *arg;
};

/*
 * Hosts in flight and the open-file limit: each host connected or running
 * a command holds descriptors (its SSH socket, and the agent's or a proxy
 * command's; a spawned command's three pipes and the error pipe libuv
 * keeps while it forks), and the rest of the run some more (stdio, the
 * loop's epoll, wakeup and signal descriptors, the output file, a
 * known_hosts or ssh config being read, libcurl's, a spawn's pipes being
 * made). The engine lets (limit - open now - RESERVE) / PER_HOST hosts be
 * in flight at once and queues the others.
 */
#define RUNNER_FDS_PER_HOST 4
#define RUNNER_FDS_RESERVE 20

/* Hosts in flight the open-file limit allows (>= 1; 0: no bound); *limit
   is the limit (0: none). */
size_t runner_fd_hosts(unsigned long long *limit);

/*
 * For a command that keeps every host's session at once (collect, bench):
 * 0 if the open-file limit holds inv's hosts at once, and then ro's engine
 * will not queue any (descriptors the command opens later must not make a
 * host wait for a pair that waits for it); else says so (the limit, the
 * host count, the fix: `ulimit -n`, --hosts) and returns NP_ERR_USAGE,
 * before anything runs.
 */
int runner_fd_room(const struct inventory *inv, const char *command,
    struct runner_options *ro);
/* The same with per_host descriptors per host, not RUNNER_FDS_PER_HOST. */
int runner_fd_room_for(const struct inventory *inv, const char *command,
    struct runner_options *ro, size_t per_host);

/*
 * A loop, an engine for inv with ro's options (inv must outlive it) and the
 * signal watchers. hooks may be NULL. Errors are reported here (with what
 * failed); returns 0 or a negative error.h code.
 */
int runner_new(const struct inventory *inv, const struct runner_options *ro,
    const struct runner_hooks *hooks, struct runner **out);

uv_loop_t *runner_loop(struct runner *rn);
struct engine *runner_engine(struct runner *rn);
/*
 * The run's tracer (--otlp), or NULL: the command starts its root span
 * and sets it with trace_root_set() (the SSH sessions' spans hang from
 * it) before it submits work. The tracer closes after the engine, its
 * open spans ended, its queue sent.
 */
struct trace *runner_trace(struct runner *rn);

/* Run the loop until everything is closed (after runner_finish()). */
void runner_run(struct runner *rn);

/* The work is done (or stopped): close in order. Idempotent. */
void runner_finish(struct runner *rn);

/* close_extra's handles are all closed: the engine is closed next. */
void runner_extra_closed(struct runner *rn);

/* The signal that interrupted the run, or 0. */
int runner_interrupted(const struct runner *rn);

/* The exit status: NP_EXIT_INTERRUPTED after a signal, else rc. */
int runner_exit(const struct runner *rn, int rc);

/* Free the engine and close the loop; NULL is a no-op. */
void runner_free(struct runner *rn);

#endif
