/*
 * collect's spans (--otlp): a sweep is a trace ("netprof collect", its
 * sweep number under --every), each stage of the dispatcher a span in it
 * named by its kind ("phase ping", "phase iperf3"), each round of the
 * stage one in that (from its first probe's start to its last's end:
 * rounds overlap, dispatch being greedy),
 * and each probe one in its round, made when its record is written, with
 * the record's own start and end, the pair, the kind, the result and its
 * figures, the error as status. A probe redone by --resume or cut short by
 * Ctrl-C (not recorded) has no span either. The run's files call in at
 * three points: the sweep's start and end, a stage's start, a probe's
 * record; the SSH sessions' spans are the runner's (trace_session.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "collect.h"
#include "dispatch.h"
#include "plan.h"
#include "probe_kind.h"
#include "runner.h"
#include "trace.h"

static void probe_span_cb(struct collector *c, const struct record *rec,
    int round_done);

void
collect_trace_sweep_begin(struct collector *c)
{
	long sweep = c->sweep;

	if ((c->trace = runner_trace(c->runner)) == NULL)
		return;
	trace_span_end(&c->span);
	c->span = trace_span_start(c->trace, NULL, "netprof collect");
	trace_span_int(c->span, "netprof.hosts", (long long)c->inv->n_machines);
	if (sweep > 0)
		trace_span_int(c->span, "netprof.sweep", sweep);
	trace_root_set(c->trace, c->span);
	c->hooks.record_traced = probe_span_cb;
}

void
collect_trace_sweep_end(struct collector *c)
{
	collect_trace_stage_end(c);
	if (c->span == NULL)
		return;
	if (c->interrupted)
		trace_span_error(c->span, "interrupted");
	trace_span_end(&c->span);
}

void
collect_trace_stage_begin(struct collector *c, size_t stage)
{
	const struct plan_stage *st = &c->stages[stage];
	const char *kind = st->kind->name;
	char name[48];
	size_t k;

	collect_trace_stage_end(c);
	if (c->span == NULL)
		return;
	snprintf(name, sizeof name, "phase %s", kind);
	c->phase_span = trace_span_start(c->trace, c->span, name);
	trace_span_str(c->phase_span, "netprof.kind", kind);
	trace_span_int(c->phase_span, "netprof.rounds",
	    (long long)st->sched->n_rounds);
	trace_span_int(c->phase_span, "netprof.probes",
	    (long long)dispatch_left(c->d, stage));
	if ((c->round_spans = calloc(st->sched->n_rounds + 1,
	    sizeof *c->round_spans)) == NULL ||
	    (c->round_t0 = calloc(st->sched->n_rounds + 1,
	    sizeof *c->round_t0)) == NULL)
		return;		/* the probes hang from the stage then */
	c->n_round_spans = st->sched->n_rounds;
	for (k = 0; k < c->n_round_spans; k++) {
		size_t left = dispatch_round_left(c->d, stage, k);

		if (left == 0)
			continue;	/* all recorded by an earlier run */
		c->round_spans[k] = trace_span_start(c->trace, c->phase_span,
		    "round");
		trace_span_int(c->round_spans[k], "netprof.round",
		    (long long)k + 1);
		trace_span_int(c->round_spans[k], "netprof.probes",
		    (long long)left);
	}
}

void
collect_trace_stage_end(struct collector *c)
{
	size_t k;

	for (k = 0; k < c->n_round_spans; k++)
		trace_span_end(&c->round_spans[k]);	/* cut short */
	free(c->round_spans);
	free(c->round_t0);
	c->round_spans = NULL;
	c->round_t0 = NULL;
	c->n_round_spans = 0;
	trace_span_end(&c->phase_span);
}

/* The record_traced hook: a span for the probe rec records. */
static void
probe_span_cb(struct collector *c, const struct record *rec, int round_done)
{
	struct trace_span *s, *parent;
	char name[48];
	size_t k = rec->round > 0 ? (size_t)rec->round - 1 : 0;

	if (c->phase_span == NULL)
		return;
	parent = k < c->n_round_spans && c->round_spans[k] != NULL ?
	    c->round_spans[k] : c->phase_span;
	snprintf(name, sizeof name, "probe %s", rec->kind);
	s = trace_span_start(c->trace, parent, name);
	trace_span_times(s, rec->started_at, rec->ended_at);
	trace_span_str(s, "netprof.kind", rec->kind);
	trace_span_str(s, "netprof.source", rec->source);
	trace_span_str(s, "netprof.target", rec->target);
	trace_span_str(s, "netprof.target_address", rec->target_address);
	trace_span_int(s, "netprof.round", (long long)k + 1);
	if (rec->mode != NULL)
		trace_span_str(s, "netprof.mode", rec->mode);
	trace_span_bool(s, "netprof.ok", rec->ok);
	trace_span_metrics(s, rec->metrics_text);
	if (!rec->ok) {
		trace_span_str(s, "netprof.error_class", rec->error_class);
		trace_span_error(s, rec->error);
	}
	trace_span_end(&s);
	if (parent == c->phase_span)
		return;
	if (c->round_t0[k] == 0 || (rec->started_at > 0 &&
	    rec->started_at < c->round_t0[k]))
		c->round_t0[k] = rec->started_at;
	if (round_done) {
		trace_span_times(c->round_spans[k], c->round_t0[k], 0);
		trace_span_end(&c->round_spans[k]);
	}
}
