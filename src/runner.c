/*
 * The command runner (runner.h): the loop, the engine, the signal
 * watchers, the one order they close in and the one Ctrl-C behaviour of
 * every host command, and the options those commands share. It also turns
 * the open-file limit into the number of hosts in flight at once (the
 * engine queues the rest), and refuses up front the commands that need
 * every host at once when the limit cannot hold them.
 */
#include <dirent.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bounds.h"
#include "error.h"
#include "inventory_slurm.h"
#include "log.h"
#include "runner.h"
#include "trace_session.h"

struct runner {
	uv_loop_t loop;
	int loop_open;
	struct engine *engine;
	struct trace *trace;		/* --otlp; NULL: none */
	struct trace_sessions *sessions;	/* its SSH sessions' spans */
	int trace_closing;
	struct runner_hooks hooks;
	uv_signal_t sigint, sigterm, sighup;
	int signals_open;
	int signals;		/* received so far */
	int interrupted;	/* the first one's number */
	int finishing;		/* runner_finish() called */
	int extra_open;		/* close_extra called, not yet done */
	int engine_closing;
};

/* --transport's choices, in enum runner_transport's order */
static const char *const runner_transports[] = { "", "slurm", "ssh", NULL };
/* --slurm-steps' */
static const char *const runner_slurm_steps[] = { "", "batch", "each",
    NULL };

/* One more --hosts or --exclude list. */
static int
names_add(const char *arg, void *field)
{
	struct runner_names *names = field;

	if (names->n == RUNNER_HOST_LISTS)
		return NP_ERR_USAGE;
	names->list[names->n++] = arg;
	return 0;
}

const struct option_spec runner_inventory_specs[] = {
	{ .name = "config", .letter = 'c', .type = OPTION_STRING,
	  .offset = offsetof(struct runner_options, config), .arg = "FILE",
	  .help = "the inventory (default ./machines.json if\n"
	  "there is one)" },
	{ .name = "strict-config", .type = OPTION_FLAG,
	  .offset = offsetof(struct runner_options, strict_config),
	  .help = "an unknown key in the inventory is an error,\n"
	  "not a warning" },
	{ .name = "hosts", .letter = 'H', .also = 'w', .type = OPTION_CUSTOM,
	  .offset = offsetof(struct runner_options, hosts), .arg = "HOSTS",
	  .parse = names_add, .repeat = 1,
	  .what = "taken: at most 32 lists (put the names in one, a,b,c)",
	  .help = "only these machines (repeatable): names a,b,\n"
	  "ranges n[1-8,10] (pdsh's), @SITE for a site's" },
	{ .name = "exclude", .letter = 'x', .type = OPTION_CUSTOM,
	  .offset = offsetof(struct runner_options, exclude), .arg = "HOSTS",
	  .parse = names_add, .repeat = 1,
	  .what = "taken: at most 32 lists (put the names in one, a,b,c)",
	  .help = "not these machines (repeatable; as --hosts)" },
	{ .name = NULL }
};

/* After a command's own options: the less common ones come last. */
const struct option_spec runner_slurm_specs[] = {
	{ .name = "slurm", .type = OPTION_OPTIONAL,
	  .offset = offsetof(struct runner_options, slurm), .arg = "JOBID",
	  .next_word = inventory_slurm_job_id_valid,
	  .help = "the nodes of a running Slurm job (default\n"
	  "$SLURM_JOB_ID; --slurm 42 or --slurm=42)\n"
	  "as the machines; --config then gives\n"
	  "only defaults" },
	{ .name = "transport", .type = OPTION_ENUM,
	  .offset = offsetof(struct runner_options, transport), .arg = "T",
	  .choices = runner_transports, .what = "one of slurm, ssh",
	  .help = "with --slurm: commands as job steps\n"
	  "(slurm, the default) or over SSH (ssh)" },
	{ .name = "slurm-steps", .type = OPTION_ENUM,
	  .offset = offsetof(struct runner_options, slurm_steps), .arg = "M",
	  .choices = runner_slurm_steps, .what = "one of batch, each",
	  .help = "the slurm transport's steps: batch (default:\n"
	  "commands started together on several nodes\n"
	  "as one step, a task per node) or each (a\n"
	  "step per command)" },
	{ .name = NULL }
};

const struct option_spec runner_session_specs[] = {
	{ .name = "accept-new-host-keys", .letter = 'A', .type = OPTION_FLAG,
	  .offset = offsetof(struct runner_options, accept_new_host_keys),
	  .help = "record the keys of hosts not yet in\n"
	  "known_hosts (never a changed key)" },
	{ .name = "max-channels", .type = OPTION_INT,
	  .offset = offsetof(struct runner_options, max_channels), .arg = "N",
	  .bounds = &bounds_max_channels,
	  .help = "commands at once per SSH session (1-64,\n"
	  "default 8; OpenSSH allows 10)" },
	{ .name = NULL }
};

int
runner_need_inventory(const struct cmd_entry *self, int n_operands,
    char **operands, struct runner_options *o)
{
	if (n_operands > 0)
		return option_unexpected(self, operands[0]);
	if (o->slurm == NULL)
		o->config = cmd_default_config(o->config);
	if (o->config == NULL && o->slurm == NULL)
		return option_usage_error(self, "--config FILE or --slurm is "
		    "required");
	if (o->transport != 0 && o->slurm == NULL)
		return option_usage_error(self, "--transport %s is for --slurm's "
		    "nodes; machines.json sets each machine's transport",
		    runner_transports[o->transport]);
	if (o->slurm_steps != 0 && o->slurm == NULL)
		return option_usage_error(self, "--slurm-steps %s is for "
		    "--slurm's nodes", runner_slurm_steps[o->slurm_steps]);
	return NP_EXIT_OK;
}

/* --otlp and the OTEL_* variables: usable? (runner_new reads them again) */
static int
otlp_settings_check(const struct runner_options *o)
{
	struct trace_config cfg;
	char *cause = NULL;
	int enabled, r;

	if ((r = trace_config_load(&o->trace, &cfg, &enabled, &cause)) != 0) {
		log_error("%s", cause != NULL ? cause : error_string(r));
		free(cause);
		return NP_EXIT_USAGE;
	}
	if (enabled)
		trace_config_free(&cfg);
	return NP_EXIT_OK;
}

int
runner_load_inventory(const struct runner_options *o, struct inventory **out)
{
	struct inventory *inv = NULL;
	char *cause = NULL;
	int r;

	*out = NULL;
	if (otlp_settings_check(o) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	if (o->slurm == NULL)
		r = inventory_load(o->config, &inv, &cause);
	else
		r = inventory_slurm_load(o->slurm, o->config, o->transport ==
		    2 ? TRANSPORT_SSH : TRANSPORT_SLURM, &inv, &cause);
	if (r == 0 && cmd_inventory_warnings(inv, o->strict_config) !=
	    NP_EXIT_OK) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	if (r == 0)
		r = inventory_select(inv, o->hosts.list, o->hosts.n,
		    o->exclude.list, o->exclude.n, &cause);
	return cmd_inventory_loaded(r, inv, cause, out);
}

int
runner_need_pairs(const struct inventory *inv, const struct runner_options *o,
    const char *command)
{
	if (inv->n_machines >= 2)
		return NP_EXIT_OK;
	if (o->hosts.n > 0 || o->exclude.n > 0)
		log_error("%s: nothing to measure: %s leave%s one machine of %s "
		    "(%s), and a pair needs two; name two or more (--hosts "
		    "%s,OTHER)", command, o->hosts.n > 0 && o->exclude.n > 0 ?
		    "--hosts and --exclude" : o->hosts.n > 0 ? "--hosts" :
		    "--exclude", o->hosts.n > 0 && o->exclude.n > 0 ? "" : "s",
		    inv->path, inv->machines[0].name, inv->machines[0].name);
	else
		log_error("%s: nothing to measure: %s has one machine (%s), and "
		    "a pair needs two; add another to \"machines\"", command,
		    inv->path, inv->machines[0].name);
	return NP_EXIT_USAGE;
}

/* Descriptors open now (inherited ones too); 3 if it cannot tell. */
static size_t
fds_open_now(void)
{
	DIR *d;
	size_t n = 0;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return 3;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	/* ".", ".." and the directory's own descriptor */
	return n > 3 ? n - 3 : 0;
}

static size_t
fd_hosts(unsigned long long *limit, size_t per_host)
{
	struct rlimit rl;
	size_t used;

	*limit = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	*limit = (unsigned long long)rl.rlim_cur;
	used = fds_open_now() + RUNNER_FDS_RESERVE;
	if (rl.rlim_cur <= used + per_host)
		return 1;	/* one at a time: the best there is */
	return (size_t)((rl.rlim_cur - used) / per_host);
}

size_t
runner_fd_hosts(unsigned long long *limit)
{
	return fd_hosts(limit, RUNNER_FDS_PER_HOST);
}

int
runner_fd_room(const struct inventory *inv, const char *command,
    struct runner_options *ro)
{
	return runner_fd_room_for(inv, command, ro, RUNNER_FDS_PER_HOST);
}

int
runner_fd_room_for(const struct inventory *inv, const char *command,
    struct runner_options *ro, size_t per_host)
{
	unsigned long long limit;
	size_t max = fd_hosts(&limit, per_host);

	if (max == 0 || inv->n_machines <= max) {
		ro->all_hosts_at_once = 1;
		return 0;
	}
	log_error("%s: %zu hosts need about %llu open files at once, but the "
	    "open-file limit is %llu (hard limit; %s keeps every host's "
	    "session open at once and cannot queue them); raise it with "
	    "`ulimit -n %llu` (as root for the hard limit, or LimitNOFILE= "
	    "in a unit), or run on at most %zu hosts with --hosts", command,
	    inv->n_machines, (unsigned long long)(inv->n_machines *
	    per_host + RUNNER_FDS_RESERVE), limit, command,
	    (unsigned long long)((inv->n_machines * per_host +
	    RUNNER_FDS_RESERVE) * 2), max);
	return NP_ERR_USAGE;
}

static void
signals_close(struct runner *rn)
{
	if (!rn->signals_open)
		return;
	rn->signals_open = 0;
	uv_close((uv_handle_t *)&rn->sigint, NULL);
	uv_close((uv_handle_t *)&rn->sigterm, NULL);
	uv_close((uv_handle_t *)&rn->sighup, NULL);
}

static void
trace_closed_cb(void *arg)
{
	signals_close(arg);
}

/* The engine is closed: the tracer sends what it holds, then the end. */
static void
engine_closed_cb(struct engine *e, void *arg)
{
	struct runner *rn = arg;

	if (rn->trace == NULL) {
		signals_close(rn);
		return;
	}
	rn->trace_closing = 1;
	trace_sessions_end(rn->sessions);
	trace_close(rn->trace, trace_closed_cb, rn);
}

static void
engine_close_now(struct runner *rn)
{
	if (rn->engine_closing)
		return;
	rn->engine_closing = 1;
	engine_close(rn->engine, engine_closed_cb, rn);
}

void
runner_finish(struct runner *rn)
{
	if (rn->finishing)
		return;
	rn->finishing = 1;
	if (rn->hooks.close_extra != NULL) {
		rn->extra_open = 1;
		rn->hooks.close_extra(rn, rn->hooks.arg);
		return;
	}
	engine_close_now(rn);
}

void
runner_extra_closed(struct runner *rn)
{
	if (!rn->extra_open)
		return;
	rn->extra_open = 0;
	engine_close_now(rn);
}

/* A second signal: say what the cleanup waits for. */
static void
say_waiting(struct runner *rn)
{
	const char *extra = NULL;
	size_t jobs = engine_pending(rn->engine);

	if (rn->hooks.waiting_for != NULL)
		extra = rn->hooks.waiting_for(rn, rn->hooks.arg);
	if (rn->extra_open && extra != NULL)
		log_error("still stopping: waiting for %s; interrupt again "
		    "to quit at once", extra);
	else if (rn->trace_closing)
		log_error("still stopping: waiting for the trace's last spans "
		    "to be sent (--otlp); interrupt again to quit at once");
	else if (jobs > 0)
		log_error("still stopping: waiting for %zu remote command%s "
		    "to be killed and the SSH sessions to close; interrupt "
		    "again to quit at once", jobs, jobs == 1 ? "" : "s");
	else
		log_error("still stopping: waiting for the SSH sessions to "
		    "close; interrupt again to quit at once");
}

static void
signal_cb(uv_signal_t *s, int signum)
{
	struct runner *rn = s->data;

	if (++rn->signals >= 3) {
		/* the watchers off, the signal's own action: the end */
		uv_signal_stop(&rn->sigint);
		uv_signal_stop(&rn->sigterm);
		uv_signal_stop(&rn->sighup);
		signal(signum, SIG_DFL);
		raise(signum);
		return;
	}
	if (rn->signals == 2) {
		say_waiting(rn);
		return;
	}
	rn->interrupted = signum;
	log_error("interrupted (signal %d); closing sessions", signum);
	if (rn->hooks.interrupt != NULL && !rn->finishing)
		rn->hooks.interrupt(rn, rn->hooks.arg);
	else
		runner_finish(rn);
}

int
runner_new(const struct inventory *inv, const struct runner_options *ro,
    const struct runner_hooks *hooks, struct runner **out)
{
	struct engine_options eo = { 0 };
	struct trace_config tc;
	unsigned long long limit = 0;
	static char why[64];
	struct sigaction old_hup;
	struct runner *rn;
	char *cause = NULL;
	int r, tracing = 0;

	*out = NULL;
	if ((rn = calloc(1, sizeof *rn)) == NULL) {
		log_error("%s", error_string(NP_ERR_NOMEM));
		return NP_ERR_NOMEM;
	}
	if (hooks != NULL)
		rn->hooks = *hooks;
	if ((r = uv_loop_init(&rn->loop)) != 0) {
		log_error("cannot start the event loop: %s", uv_strerror(r));
		free(rn);
		return NP_ERR_SYSTEM;
	}
	rn->loop_open = 1;
	if (ro != NULL) {
		eo.max_channels = ro->max_channels;
		eo.accept_new_host_keys = ro->accept_new_host_keys;
		eo.no_batch = ro->slurm_steps == 2;
		if ((r = trace_config_load(&ro->trace, &tc, &tracing,
		    &cause)) == 0 && tracing) {
			r = trace_new(&rn->loop, &tc, &rn->trace, &cause);
			trace_config_free(&tc);
		}
		if (r != 0) {
			log_error("%s", cause != NULL ? cause :
			    error_string(r));
			free(cause);
			runner_free(rn);
			return r;
		}
		if (rn->trace != NULL && (rn->sessions = trace_sessions_new(
		    rn->trace, inv->n_machines)) != NULL) {
			eo.on_session = trace_sessions_step;
			eo.session_arg = rn->sessions;
		}
	}
	eo.max_hosts = ro != NULL && ro->all_hosts_at_once ? 0 :
	    runner_fd_hosts(&limit);
	snprintf(why, sizeof why, "the open-file limit (%llu)", limit);
	eo.max_hosts_why = why;
	if (eo.max_hosts > 0)
		log_debug(NULL, "open-file limit %llu: at most %zu hosts in "
		    "flight at once", limit, eo.max_hosts);
	if ((r = engine_new(&rn->loop, inv, &eo, &rn->engine)) != 0) {
		log_error("cannot start the engine: %s", error_string(r));
		runner_free(rn);
		return r;
	}
	uv_signal_init(&rn->loop, &rn->sigint);
	uv_signal_init(&rn->loop, &rn->sigterm);
	uv_signal_init(&rn->loop, &rn->sighup);
	rn->sigint.data = rn->sigterm.data = rn->sighup.data = rn;
	uv_signal_start(&rn->sigint, signal_cb, SIGINT);
	uv_signal_start(&rn->sigterm, signal_cb, SIGTERM);
	/* A lost terminal (SIGHUP) cleans up as SIGTERM does, unless the
	 * user asked for it to be ignored (nohup). */
	if (sigaction(SIGHUP, NULL, &old_hup) != 0 ||
	    old_hup.sa_handler != SIG_IGN)
		uv_signal_start(&rn->sighup, signal_cb, SIGHUP);
	rn->signals_open = 1;
	*out = rn;
	return 0;
}

uv_loop_t *
runner_loop(struct runner *rn)
{
	return &rn->loop;
}

struct engine *
runner_engine(struct runner *rn)
{
	return rn->engine;
}

struct trace *
runner_trace(struct runner *rn)
{
	return rn->trace;
}

void
runner_run(struct runner *rn)
{
	uv_run(&rn->loop, UV_RUN_DEFAULT);
}

int
runner_interrupted(const struct runner *rn)
{
	return rn->interrupted;
}

int
runner_exit(const struct runner *rn, int rc)
{
	return rn != NULL && rn->interrupted ? NP_EXIT_INTERRUPTED : rc;
}

void
runner_free(struct runner *rn)
{
	if (rn == NULL)
		return;
	if (rn->engine != NULL && !rn->engine_closing) {
		/* never run: close what the engine opened */
		engine_close_now(rn);
		uv_run(&rn->loop, UV_RUN_DEFAULT);
	}
	if (rn->trace != NULL && !rn->trace_closing) {
		/* no engine was made: close the tracer all the same */
		rn->trace_closing = 1;
		trace_sessions_end(rn->sessions);
		trace_close(rn->trace, NULL, NULL);
	}
	signals_close(rn);
	if (rn->loop_open) {
		uv_run(&rn->loop, UV_RUN_DEFAULT);
		if (uv_loop_close(&rn->loop) != 0)
			log_debug(NULL, "loop closed with handles left");
	}
	engine_free(rn->engine);
	trace_sessions_free(rn->sessions);
	trace_free(rn->trace);
	free(rn);
}
