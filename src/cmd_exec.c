/*
 * netprof exec: run one command on every host at once, like pdsh, through
 * the dispatch engine. Output lines are prefixed with the host's name
 * ("h1: line"), a partial line is held until its newline or the end;
 * errors go to stderr, one per host. The exit status is the worst remote
 * status (255 for a host that could not run the command, as ssh does).
 * With --repeat N each host runs the command N times, one after another,
 * all hosts in parallel, and the command rate and latency percentiles are
 * printed: a measurement of the SSH path itself.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "cmd.h"
#include "engine.h"
#include "error.h"
#include "file.h"
#include "inventory.h"
#include "log.h"
#include "option.h"
#include "runner.h"
#include "stats.h"
#include "timeutil.h"
#include "trace.h"
#include "util.h"

struct exec_host {
	struct exec_run *run;
	const struct machine *machine;
	struct buf out, err;
	int runs_left;
	struct engine_job *job;
	struct trace_span *span;	/* the command running (--otlp) */
};

struct exec_run {
	struct runner *runner;
	struct engine *engine;
	struct exec_host *hosts;
	size_t n_hosts, hosts_running;
	struct trace *trace;
	struct trace_span *span;	/* the run's, the trace's root */
	struct engine_request req;
	int repeat;
	int worst;
	double *latency_ms;
	size_t n_latency, n_failed;
	double started, ended;
};

/* Print buf's complete lines with the host prefix; keep the rest. */
static void
emit_lines(const char *name, struct buf *lb, FILE *f, int flush)
{
	size_t start = 0, i;

	if (lb->len == 0)
		return;
	for (i = 0; i < lb->len; i++) {
		if (lb->data[i] != '\n')
			continue;
		fprintf(f, "%s: %.*s\n", name, (int)(i - start),
		    lb->data + start);
		start = i + 1;
	}
	if (flush && start < lb->len) {
		fprintf(f, "%s: %.*s\n", name, (int)(lb->len - start),
		    lb->data + start);
		start = lb->len;
	}
	memmove(lb->data, lb->data + start, lb->len - start);
	lb->len -= start;
}

static void
on_output(const struct machine *m, int stream, const char *buf, size_t len,
    void *arg)
{
	struct exec_host *h = arg;
	struct buf *lb = stream == 2 ? &h->err : &h->out;

	if (h->run->repeat > 1)
		return;
	if (buf_append(lb, buf, len) != 0)
		return;
	emit_lines(m->name, lb, stream == 2 ? stderr : stdout, 0);
}

static void
run_finished(struct exec_run *run)
{
	run->ended = time_wall();
	trace_span_int(run->span, "netprof.exit_status", run->worst);
	trace_span_end(&run->span);
	runner_finish(run->runner);
}

/* A command's end in its span: the exit status, or why it did not run. */
static void
span_done(struct exec_host *h, const struct engine_result *res)
{
	char why[32];

	if (h->span == NULL)
		return;
	if (res->started_at > 0)
		trace_span_double(h->span, "netprof.queued_s",
		    res->started_at - res->queued_at);
	if (res->error != 0)
		trace_span_error(h->span, res->error_text != NULL ?
		    res->error_text : error_string(res->error));
	else {
		trace_span_int(h->span, "netprof.exit_status",
		    res->exit_status);
		snprintf(why, sizeof why, "exit status %d", res->exit_status);
		if (res->exit_status != 0)
			trace_span_error(h->span, why);
	}
	trace_span_end(&h->span);
}

static int submit(struct exec_host *h);

static void
on_done(const struct machine *m, const struct engine_result *res, void *arg)
{
	struct exec_host *h = arg;
	struct exec_run *run = h->run;
	int status, interrupted = runner_interrupted(run->runner);

	h->job = NULL;
	span_done(h, res);
	emit_lines(m->name, &h->out, stdout, 1);
	emit_lines(m->name, &h->err, stderr, 1);
	fflush(stdout);
	if (res->error != 0) {
		if (!(interrupted && res->error == NP_ERR_CANCELLED)) {
			/* it may quote the host: escaped */
			log_fputs_safe(res->error_text, stderr);
			fputc('\n', stderr);
		}
		status = 255;
		run->n_failed++;
	} else {
		status = res->exit_status < 0 ? 255 : res->exit_status;
		run->latency_ms[run->n_latency++] =
		    (res->ended_at - res->queued_at) * 1000;
	}
	if (status > run->worst)
		run->worst = status;
	if (res->error == 0 && --h->runs_left > 0 && !interrupted &&
	    submit(h) == 0)
		return;
	if (--run->hosts_running == 0 && !interrupted)
		run_finished(run);
}

static int
submit(struct exec_host *h)
{
	struct exec_run *run = h->run;
	struct engine_request req = run->req;
	int r;

	req.arg = h;
	h->span = trace_span_start(run->trace, run->span, "command");
	trace_span_str(h->span, "netprof.host", h->machine->name);
	trace_span_int(h->span, "netprof.run", run->repeat -
	    h->runs_left + 1);
	if ((r = engine_submit(run->engine, h->machine, &req, &h->job)) != 0) {
		fprintf(stderr, "%s: %s\n", h->machine->name, error_string(r));
		trace_span_error(h->span, error_string(r));
		trace_span_end(&h->span);
	}
	return r;
}

static void
print_stats(struct exec_run *run)
{
	struct stats_summary s;
	double secs = run->ended - run->started;
	size_t n = run->n_latency;

	stats_summarize(run->latency_ms, n, &s);
	printf("%zu commands on %zu hosts in %.3f s: %.1f commands/s; "
	    "latency ms: p50 %.2f, p95 %.2f, max %.2f", n, run->n_hosts, secs,
	    secs > 0 ? n / secs : 0.0, s.p50, s.p95, s.max);
	if (run->n_failed > 0)
		printf("; %zu failed", run->n_failed);
	printf("\n");
}

/* The command words joined with spaces, as ssh does. */
static char *
join_command(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if ((s = calloc(1, len)) == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

struct exec_options {
	struct runner_options common;
	double timeout;		/* seconds; 0: none */
	int repeat;
	const char *input;
};

static const struct option_spec exec_specs[] = {
	{ .name = "timeout", .type = OPTION_SECONDS,
	  .offset = offsetof(struct exec_options, timeout), .arg = "S",
	  .bounds = &bounds_timeout,
	  .help = "kill the command after S seconds" },
	{ .name = "repeat", .type = OPTION_INT,
	  .offset = offsetof(struct exec_options, repeat), .arg = "N",
	  .bounds = &bounds_repeat,
	  .help = "run it N times on each host, one after\n"
	  "another (hosts in parallel), then print\n"
	  "commands/s and latency percentiles;\n"
	  "output is not shown, errors are" },
	{ .name = "input", .letter = 'i', .type = OPTION_STRING,
	  .offset = offsetof(struct exec_options, input), .arg = "FILE",
	  .help = "send FILE ('-': this stdin) to each\n"
	  "command's stdin (default: none)" },
	{ .name = NULL }
};

static const struct option_block exec_options_table[] = {
	{ runner_inventory_specs, offsetof(struct exec_options, common) },
	{ exec_specs, 0 },
	{ runner_session_specs, offsetof(struct exec_options, common) },
	{ runner_slurm_specs, offsetof(struct exec_options, common) },
	{ trace_option_specs, offsetof(struct exec_options, common.trace) },
	{ NULL, 0 }
};

static int
cmd_exec_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct exec_options o = { .repeat = 1 };
	struct runner_options *ro = &o.common;
	struct exec_run run;
	struct inventory *inv = NULL;
	const char *input_path;
	char *command = NULL, *input = NULL, *cause = NULL;
	size_t i, input_len = 0;
	int operand, r, rc = NP_EXIT_USAGE;

	memset(&run, 0, sizeof run);
	if ((r = option_parse(self, argc, argv, &o, &operand)) != 0)
		return option_exit(r);
	run.repeat = o.repeat;
	run.req.timeout_s = o.timeout;
	input_path = o.input;
	if (ro->slurm == NULL)
		ro->config = cmd_default_config(ro->config);
	if (ro->config == NULL && ro->slurm == NULL)
		return option_usage_error(self, "--config FILE or --slurm is "
		    "required");
	if (ro->transport != 0 && ro->slurm == NULL)
		return option_usage_error(self, "--transport is for --slurm's nodes");
	if (ro->slurm_steps != 0 && ro->slurm == NULL)
		return option_usage_error(self, "--slurm-steps is for --slurm's "
		    "nodes");
	if (operand >= argc)
		return option_usage_error(self, "no command given (after --)");
	if ((command = join_command(argc - operand, argv + operand)) == NULL)
		return NP_EXIT_FAILED;
	if (input_path != NULL &&
	    file_read(input_path, &input, &input_len, &cause) != 0) {
		log_error("--input %s", cause != NULL ? cause :
		    error_string(NP_ERR_NOMEM));
		free(cause);
		goto out;
	}
	if (runner_load_inventory(ro, &inv) != 0)
		goto out;
	rc = NP_EXIT_FAILED;
	if (inv->n_machines == 0) {
		log_error("%s: no machines to run on", inv->path);
		goto out;
	}
	if (runner_new(inv, ro, NULL, &run.runner) != 0)
		goto out;
	run.engine = runner_engine(run.runner);
	run.n_hosts = inv->n_machines;
	run.hosts = calloc(run.n_hosts, sizeof *run.hosts);
	run.latency_ms = calloc(run.n_hosts * (size_t)run.repeat,
	    sizeof *run.latency_ms);
	if (run.hosts == NULL || run.latency_ms == NULL) {
		log_error("%s", error_string(NP_ERR_NOMEM));
		goto out;
	}
	run.req.command = command;
	run.req.input = input;
	run.req.input_len = input_len;
	run.req.on_output = on_output;
	run.req.on_done = on_done;
	/* on every host at once: one step on Slurm's nodes; --repeat
	   measures a command each, one after another */
	if (run.repeat == 1)
		run.req.batch = &run;
	run.trace = runner_trace(run.runner);
	run.span = trace_span_start(run.trace, NULL, "netprof exec");
	trace_span_str(run.span, "netprof.command", command);
	trace_span_int(run.span, "netprof.hosts", (long long)run.n_hosts);
	trace_span_int(run.span, "netprof.repeat", run.repeat);
	trace_root_set(run.trace, run.span);
	run.started = time_wall();
	for (i = 0; i < run.n_hosts; i++) {
		run.hosts[i].run = &run;
		run.hosts[i].machine = &inv->machines[i];
		run.hosts[i].runs_left = run.repeat;
		if (submit(&run.hosts[i]) == 0)
			run.hosts_running++;
		else
			run.worst = 255;
	}
	if (run.hosts_running == 0)
		run_finished(&run);
	runner_run(run.runner);
	if (run.repeat > 1 && !runner_interrupted(run.runner))
		print_stats(&run);
	rc = runner_exit(run.runner, run.worst);
out:
	fflush(stdout);
	runner_free(run.runner);
	if (run.hosts != NULL) {
		for (i = 0; i < run.n_hosts; i++) {
			free(run.hosts[i].out.data);
			free(run.hosts[i].err.data);
		}
	}
	free(run.hosts);
	free(run.latency_ms);
	free(command);
	free(input);
	inventory_free(inv);
	return rc;
}

const struct cmd_entry cmd_exec_entry = {
	.name = "exec",
	.summary = "run a command on every host at once",
	.usage = "--config FILE [--hosts HOSTS] [--exclude HOSTS]\n"
	    "       [--timeout S] [--repeat N] [--input FILE] -- COMMAND [ARG...]",
	.about =
	    "The command words are joined with spaces and run by the remote\n"
	    "shell, as ssh does. Output lines are prefixed with the host's\n"
	    "name; the exit status is the worst of the hosts' (255 for a host\n"
	    "that could not run it).\n",
	.options = exec_options_table,
	.options_first = 1,
	.notes =
	    "exit status: the worst remote status; 2 for usage or inventory\n"
	    "errors; 130 when interrupted (every command is killed first).\n",
	.examples =
	    "# the kernel of every host\n"
	    "netprof exec --config machines.json -- uname -r\n"
	    "# a local script run by bash on four hosts\n"
	    "netprof exec --config machines.json -w 'n[1-4]' -i setup.sh -- bash -s\n"
	    "# every host but one: is iperf3 installed?\n"
	    "netprof exec --config machines.json -x n3 -- command -v iperf3\n",
	.exec = cmd_exec_exec,
};
