/*
 * One bench run: the loop, the engine and the node API client, SIGINT and
 * SIGTERM, the walk through the phase table (bench_phases[]) and the exit
 * status. A phase is started by its scope, bench_hosts_start() or
 * bench_pairs_start(), and tells its end through the run's hooks
 * (phase_ended_cb), which time it, rewrite run.json (so that a killed
 * netprof leaves enough behind for --teardown) and start the next phase
 * the run has; once no phase ahead needs the nodes they are told to stop
 * (bench_teardown_begin()), and the teardown phase waits for them; an
 * interrupt skips to the cleanup phase (the teardown). A phase that needs
 * no node (BENCH_PHASE_BESIDE: the baseline) runs beside the nodes' start
 * and convergence; the next pair phase, or the run's end, waits for it.
 * Nothing here talks to a host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "bench_counters.h"
#include "bench_path.h"
#include "bench_record.h"
#include "bench_run.h"
#include "bench_teardown.h"
#include "engine.h"
#include "error.h"
#include "file.h"
#include "log.h"
#include "metrics.h"
#include "node_api.h"
#include "runner.h"
#include "timeutil.h"
#include "util.h"

/* Rewrite run.json now (after each phase, and once a node's PID is known). */
static void
checkpoint(struct bench *b)
{
	char *cause = NULL;

	if (b->teardown_only)
		return;
	if (bench_run_json_write(b, &cause) != 0) {
		if (!b->write_failed)
			log_error("run.json: %s", cause != NULL ? cause :
			    "cannot write it");
		b->write_failed = 1;
	}
	free(cause);
}

static void
run_close(struct bench *b)
{
	if (b->closing)
		return;
	b->closing = 1;
	b->ended_at = time_wall();
	checkpoint(b);
	trace_span_int(b->span, "netprof.probes_ok", (long long)b->ok);
	trace_span_int(b->span, "netprof.probes_failed", (long long)b->failed);
	if (b->interrupted)
		trace_span_error(b->span, "interrupted");
	trace_span_end(&b->span);
	runner_finish(b->runner);
}

static void
api_closed_cb(void *arg)
{
	struct bench *b = arg;

	runner_extra_closed(b->runner);
}

/* The runner closes our handles first: the HTTP client (its sockets are
   the engine's tunnels) and the hosts' timers; then the engine. */
static void
close_extra_cb(struct runner *rn, void *arg)
{
	struct bench *b = arg;

	(void)rn;
	bench_hosts_close(b);
	node_api_close(b->api, api_closed_cb, b);
}

static const char *
waiting_for_cb(struct runner *rn, void *arg)
{
	(void)rn;
	(void)arg;
	return "the node API's connections to close";
}

static struct trace_span *
phase_span_start(struct bench *b, enum bench_phase p)
{
	char name[64];

	if (b->trace == NULL)
		return NULL;
	snprintf(name, sizeof name, "phase %s", bench_phase_name(p));
	return trace_span_start(b->trace, b->span, name);
}

/*
 * The phase that needs no node (BENCH_PHASE_BESIDE) begun beside the
 * nodes' start: one at a time, as the pairs' dispatcher is one; never
 * with --serial (upstream's order, every phase after the other).
 */
static void
beside_begin(struct bench *b)
{
	int q;

	if (b->o->serial || b->interrupted || b->beside != BENCH_N_PHASES)
		return;
	for (q = 0; q < BENCH_N_PHASES; q++)
		if ((bench_phases[q].flags & BENCH_PHASE_BESIDE) &&
		    bench_phases[q].scope == BENCH_SCOPE_PAIR &&
		    !b->phase_ran[q] && bench_phase_runs(b, q))
			break;
	if (q == BENCH_N_PHASES)
		return;
	b->beside = q;
	b->phase_ran[q] = 1;
	/* it begins with the phase it runs beside: one start in run.json */
	b->beside_t0 = b->phase_t0;
	b->phase_at[q] = b->phase_at[b->phase];
	log_debug(NULL, "phase %s, beside %s", bench_phase_name(q),
	    bench_phase_name(b->phase));
	b->beside_span = phase_span_start(b, q);
	bench_pairs_start(b, q);
}

static void
phase_begin(struct bench *b, enum bench_phase p)
{
	b->phase = p;
	b->phase_ran[p] = 1;
	b->phase_t0 = bench_now();
	b->phase_at[p] = time_wall();
	log_debug(NULL, "phase %s", bench_phase_name(p));
	b->phase_span = phase_span_start(b, p);
	if (bench_phases[p].flags & BENCH_PHASE_NODE)
		beside_begin(b);
	/* a pair phase reports itself, once it knows its total */
	if (bench_phases[p].scope == BENCH_SCOPE_PAIR)
		bench_pairs_start(b, p);
	else
		bench_hosts_start(b);
}

/*
 * The first phase after p that this run has and has not run (beside
 * another), BENCH_N_PHASES after the last; after an interrupt, only a
 * cleanup phase. --teardown RUN has nothing but the cleanup.
 */
static enum bench_phase
phase_next(const struct bench *b, int p)
{
	int only_cleanup = b->interrupted || b->teardown_only;

	for (p++; p < BENCH_N_PHASES; p++)
		if (!b->phase_ran[p] && bench_phase_runs(b, p) &&
		    (!only_cleanup ||
		    (bench_phases[p].flags & BENCH_PHASE_CLEANUP)))
			break;
	return p;
}

/*
 * Go on to phase next (BENCH_N_PHASES: the run's end), unless the phase
 * beside still runs and next is a pair phase (the pairs' dispatcher is
 * the one beside's) or the end: then once that one has ended.
 */
static void
phase_go(struct bench *b, enum bench_phase next)
{
	if (b->beside != BENCH_N_PHASES && (next >= BENCH_N_PHASES ||
	    bench_phases[next].scope == BENCH_SCOPE_PAIR)) {
		b->held = next;
		b->held_end = next >= BENCH_N_PHASES;
		return;
	}
	if (next >= BENCH_N_PHASES)
		run_close(b);
	else
		phase_begin(b, next);
}

/* The phase beside the others has ended: what waited for it goes on (an
   interrupt meanwhile: the cleanup instead). */
static void
beside_ended(struct bench *b, enum bench_phase p)
{
	enum bench_phase held = b->held;

	b->phase_s[p] = bench_now() - b->beside_t0;
	b->phase_end[p] = time_wall();
	b->beside = BENCH_N_PHASES;
	trace_span_end(&b->beside_span);
	bench_report_phase_end(b, p);
	checkpoint(b);
	if (!b->held_end && held == BENCH_N_PHASES)
		return;		/* nothing waits: the walk goes on */
	b->held = BENCH_N_PHASES;
	b->held_end = 0;
	phase_go(b, held >= BENCH_N_PHASES ? held : phase_next(b, held - 1));
}

/* The hook: every host or pair of phase p is done; start the next. */
static void
phase_ended_cb(struct bench *b, enum bench_phase p)
{
	if (p != b->phase) {
		beside_ended(b, p);
		return;
	}
	b->phase_s[p] = bench_now() - b->phase_t0;
	b->phase_end[p] = time_wall();
	/* the last probe that needs the nodes has ended: they stop while
	   the rest of the run goes on (the teardown waits for them) */
	if (p != BENCH_TEARDOWN && !b->interrupted && !b->teardown_only &&
	    bench_phase_runs(b, BENCH_TEARDOWN) &&
	    !bench_phase_nodes_needed(b, p))
		bench_teardown_begin(b);
	/* every node listens: the path phase's reach checks can begin */
	if (p == BENCH_START && !b->interrupted && !b->o->serial)
		bench_path_reach_begin(b);
	trace_span_end(&b->phase_span);
	bench_report_phase_end(b, p);
	checkpoint(b);
	phase_go(b, phase_next(b, p));
}

/* The hook: a node's PID is known; run.json has it from now on. */
static void
node_started_cb(struct bench_host *h)
{
	checkpoint(h->b);
}

/*
 * The first SIGINT/SIGTERM (the runner has said so): stop what runs, go
 * to the teardown; the runner is finished after it. A second signal is
 * the runner's (it says what is awaited); a third ends netprof at once.
 */
static void
interrupt_cb(struct runner *rn, void *arg)
{
	struct bench *b = arg;
	size_t i;

	(void)rn;
	if (b->interrupted)
		return;
	b->interrupted = 1;
	bench_report_interrupt(b);
	if (bench_phases[b->phase].flags & BENCH_PHASE_CLEANUP) {
		log_warn("the %s is running; it is left to finish",
		    bench_phase_name(b->phase));
		return;
	}
	log_warn("stopping: the probes running are cancelled (not "
	    "recorded) and the mesh is torn down");
	for (i = 0; i < b->n; i++) {
		bench_host_cancel(&b->hosts[i]);
		if (b->hosts[i].path != NULL &&
		    b->hosts[i].path->reach_job != NULL)
			engine_cancel(b->hosts[i].path->reach_job);
	}
	bench_pairs_cancel(b);
}

/*
 * An earlier run's output in dir (a reused --run-id, or the same --output):
 * opening it would truncate its records, so it is refused unless --force.
 */
static int
refuse_earlier_run(const struct bench *b, char **cause)
{
	struct stat st;

	if (b->o->force || (lstat(b->records_path, &st) != 0 &&
	    lstat(b->run_json_path, &st) != 0))
		return 0;
	*cause = str_printf("%s holds an earlier run's measurements.jsonl or "
	    "run.json: refusing to write over them; choose another %s, move "
	    "them away, or add --force to replace them", b->outdir,
	    b->o->output != NULL ? "--output DIR" : "--run-id");
	return NP_ERR_USAGE;
}

static int
open_output(struct bench *b, char **cause)
{
	int r;

	if (b->o->output != NULL)
		b->outdir = strdup(b->o->output);
	else
		b->outdir = str_printf("results/%s", b->run_id);
	if (b->outdir == NULL ||
	    (b->records_path = str_printf("%s/measurements.jsonl",
	    b->outdir)) == NULL ||
	    (b->run_json_path = str_printf("%s/run.json", b->outdir)) ==
	    NULL)
		return NP_ERR_NOMEM;
	if ((r = refuse_earlier_run(b, cause)) != 0 ||
	    (r = file_make_dirs(b->outdir, 0755, cause)) != 0)
		return r;
	return record_writer_open(b->records_path, 0, &b->writer, cause);
}

static void
print_keep_hint(const struct bench *b)
{
	/* the inventory as it was given: a file, or a Slurm job */
	const char *opt = b->o->common.slurm == NULL ? "--config " :
	    "--slurm=";
	const char *from = b->o->common.slurm == NULL ? b->o->common.config :
	    b->inv->slurm_job;

	log_info("the mesh is left running (--keep); tear it down with: "
	    "netprof bench %s%s --teardown %s", opt, from,
	    b->o->output == NULL ? b->run_id : b->run_json_path);
}

static int
exit_status(const struct bench *b)
{
	size_t i;

	if (b->interrupted)
		return NP_EXIT_INTERRUPTED;
	if (b->failed > 0 || b->baseline_failed > 0 || b->write_failed)
		return NP_EXIT_FAILED;
	for (i = 0; i < b->n; i++)
		if (b->hosts[i].failed ||
		    b->hosts[i].status[BENCH_TEARDOWN] == BENCH_ST_FAILED)
			return NP_EXIT_FAILED;
	return NP_EXIT_OK;
}

static void
hosts_free(struct bench *b)
{
	size_t i, k;

	for (i = 0; b->hosts != NULL && i < b->n; i++) {
		struct bench_host *h = &b->hosts[i];

		free(h->dir);
		free(h->otela);
		free(h->peer_id);
		free(h->cfg);
		free(h->error);
		free(h->log_tail);
		for (k = 0; k < h->n_missing; k++)
			free(h->missing[k]);
		free(h->missing);
	}
	free(b->hosts);
}

static int
setup(struct bench *b, char **cause)
{
	int r;

	if (b->o->teardown != NULL) {
		b->teardown_only = 1;
		return bench_teardown_load(b, b->o->teardown, "results",
		    cause);
	}
	if ((r = bench_relays_parse(b, cause)) != 0 ||
	    (r = bench_deploy_load(b, cause)) != 0)
		return r;
	return open_output(b, cause);
}

static void
loop_run(struct bench *b)
{
	struct runner_hooks hooks = {
		.interrupt = interrupt_cb,
		.close_extra = close_extra_cb,
		.waiting_for = waiting_for_cb,
		.arg = b,
	};
	int r;

	if (runner_new(b->inv, &b->o->common, &hooks, &b->runner) != 0) {
		b->write_failed = 1;	/* reported by the runner */
		return;
	}
	b->loop = runner_loop(b->runner);
	b->engine = runner_engine(b->runner);
	if ((r = node_api_new(b->loop, b->engine, &b->api)) != 0) {
		log_error("bench: cannot start: %s", error_string(r));
		b->write_failed = 1;
		runner_free(b->runner);
		b->runner = NULL;
		return;
	}
	bench_hosts_open(b);
	b->trace = runner_trace(b->runner);
	b->span = trace_span_start(b->trace, NULL, b->teardown_only ?
	    "netprof bench teardown" : "netprof bench");
	trace_span_str(b->span, "netprof.run_id", b->run_id);
	trace_span_int(b->span, "netprof.hosts", (long long)b->n);
	trace_root_set(b->trace, b->span);
	b->started_at = time_wall();
	checkpoint(b);
	phase_begin(b, phase_next(b, -1));
	runner_run(b->runner);
	node_api_free(b->api);
	runner_free(b->runner);
	b->runner = NULL;
	b->loop = NULL;
}

int
bench_run(const struct bench_options *o, struct inventory *inv)
{
	struct bench b;
	char *cause = NULL;
	int r = 0, status = NP_EXIT_USAGE;

	memset(&b, 0, sizeof b);
	b.o = o;
	b.hooks.phase_ended = phase_ended_cb;
	b.beside = b.held = BENCH_N_PHASES;
	b.hooks.node_started = node_started_cb;
	b.inv = inv;
	b.n = inv->n_machines;
	if (o->run_id != NULL)
		snprintf(b.run_id, sizeof b.run_id, "%s", o->run_id);
	else
		bench_run_id_new(b.run_id, sizeof b.run_id);
	if ((b.hosts = calloc(b.n + 1, sizeof *b.hosts)) == NULL ||
	    (r = bench_plan_hosts(&b)) != 0 || (r = setup(&b, &cause)) != 0) {
		log_error("bench: %s", cause != NULL ? cause :
		    error_string(NP_ERR_NOMEM));
		goto out;
	}
	if (!b.teardown_only)
		log_info("bench %s: measurements.jsonl and run.json in %s/",
		    b.run_id, b.outdir);
	bench_report_open(&b);
	loop_run(&b);
	bench_report_close(&b);
	if (!log_quiet())
		bench_report_summary(&b, stderr);
	if (o->keep && !b.interrupted && !b.teardown_only)
		print_keep_hint(&b);
	status = exit_status(&b);
out:
	if (b.writer != NULL && record_writer_close(b.writer, -1) != 0) {
		log_error("%s: records could not all be written",
		    b.records_path);
		if (status == NP_EXIT_OK)
			status = NP_EXIT_FAILED;
	}
	if (!b.teardown_only) {
		/* the records whose path the nodes' counters contradict */
		char *acause = NULL;

		if (bench_counters_amend(&b, bench_path_punched, &acause) != 0) {
			log_error("%s", acause != NULL ? acause :
			    error_string(NP_ERR_NOMEM));
			if (status == NP_EXIT_OK)
				status = NP_EXIT_FAILED;
		}
		free(acause);
	}
	if (o->metrics_file != NULL && b.records_path != NULL &&
	    !b.teardown_only) {
		char *mcause = NULL;

		if (metrics_write_from_records(b.records_path,
		    o->metrics_file, &mcause) != 0) {
			log_error("--metrics-file %s", mcause != NULL ? mcause :
			    error_string(NP_ERR_NOMEM));
			if (status == NP_EXIT_OK)
				status = NP_EXIT_FAILED;
		}
		free(mcause);
	}
	if (o->gate.fail_on != DX_SEV_NONE && b.records_path != NULL &&
	    !b.teardown_only && (status == NP_EXIT_OK ||
	    status == NP_EXIT_FAILED)) {
		/* the run judged as heatmap would judge its files */
		const char *files[] = { b.records_path, b.run_json_path };
		int failed;

		if (diagnose_gate_files(files, 2, inv, (enum dx_severity)
		    o->gate.fail_on, &failed) != 0)
			status = NP_EXIT_FAILED;
		else if (failed)
			status = NP_EXIT_FINDINGS;
	}
	free(cause);
	bench_pairs_free(&b);
	bench_path_free(&b);
	bench_relays_free(&b);
	bench_deploy_free(&b);
	hosts_free(&b);
	free(b.outdir);
	free(b.records_path);
	free(b.run_json_path);
	return status;
}
