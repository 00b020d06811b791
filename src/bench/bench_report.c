/*
 * What a bench run tells its user on stderr: per phase, hosts done and
 * failed (or probes ok and failed), as a live line on a terminal redrawn
 * at most ten times a second, or one line per phase otherwise; and at the
 * end a summary: phase times, failed hosts with their reasons, per-pair
 * connectedness from the punch step, and the slowest pairs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "log.h"

/* Pairs that are not direct, listed in the summary at most. */
#define SUMMARY_PAIRS 10

static int
quiet(const struct bench *b)
{
	return b->o->quiet || log_get_level() == LOG_QUIET;
}

static int
is_pair_phase(enum bench_phase p)
{
	return bench_phases[p].scope == BENCH_SCOPE_PAIR;
}

static void
draw(struct bench *b, int force)
{
	double now = bench_now();

	if (!b->progress_live || (!force && now - b->prog_drawn < 0.1))
		return;
	b->prog_drawn = now;
	fprintf(stderr, "\r\033[Kbench %s: %zu/%zu %s, ok %zu failed %zu, "
	    "%.1f s", bench_phase_name(b->phase), b->prog_ok + b->prog_failed,
	    b->prog_total, is_pair_phase(b->phase) ? "probes" : "hosts",
	    b->prog_ok, b->prog_failed, now - b->phase_t0);
	fflush(stderr);
	b->progress_open = 1;
}

void
bench_report_open(struct bench *b)
{
	b->progress_live = !quiet(b) && isatty(STDERR_FILENO);
}

void
bench_report_close(struct bench *b)
{
	if (b->progress_open) {
		fputc('\n', stderr);
		b->progress_open = 0;
	}
}

void
bench_report_interrupt(struct bench *b)
{
	bench_report_close(b);
}

void
bench_report_phase(struct bench *b)
{
	size_t i;

	b->prog_ok = b->prog_failed = 0;
	if (!is_pair_phase(b->phase)) {
		b->prog_total = 0;
		for (i = 0; i < b->n; i++)
			if (bench_phase_visits(b->phase, &b->hosts[i]))
				b->prog_total++;
	}
	draw(b, 1);
}

void
bench_report_host(struct bench *b, const struct bench_host *h)
{
	if (h->status[b->phase] != BENCH_ST_OK)
		b->prog_failed++;
	else
		b->prog_ok++;
	draw(b, 0);
}

void
bench_report_task(struct bench *b, const struct bench_task *t)
{
	if (t->ok)
		b->prog_ok++;
	else
		b->prog_failed++;
	draw(b, 0);
}

void
bench_report_phase_end(struct bench *b)
{
	if (quiet(b))
		return;
	if (b->progress_live) {
		draw(b, 1);
		bench_report_close(b);
		return;
	}
	fprintf(stderr, "netprof: bench %s: %zu %s ok, %zu failed (%.2f s)\n",
	    bench_phase_name(b->phase), b->prog_ok, is_pair_phase(b->phase) ?
	    "probes" : "hosts", b->prog_failed, b->phase_s[b->phase]);
}

static const char *
connectedness_word(const struct bench_task *t)
{
	if (t->connectedness == NULL)
		return "not connected";
	if (strcmp(t->connectedness, "Connected") == 0)
		return "direct";
	if (strcmp(t->connectedness, "Limited") == 0)
		return "relayed";
	return "not connected";
}

static void
summary_punch(const struct bench *b, FILE *f)
{
	size_t i, direct = 0, relayed = 0, shown;

	for (i = 0; i < b->n_task_sets[BENCH_PUNCH]; i++) {
		const char *w = connectedness_word(&b->task_sets[BENCH_PUNCH][i]);

		if (strcmp(w, "direct") == 0)
			direct++;
		else if (strcmp(w, "relayed") == 0)
			relayed++;
	}
	if (b->n_task_sets[BENCH_PUNCH] == 0)
		return;
	fprintf(f, "  pairs: %zu direct, %zu relayed, %zu not connected\n",
	    direct, relayed, b->n_task_sets[BENCH_PUNCH] - direct - relayed);
	for (i = 0, shown = 0; i < b->n_task_sets[BENCH_PUNCH]; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_PUNCH][i];

		if (strcmp(connectedness_word(t), "direct") == 0 ||
		    t->state != 2)
			continue;
		if (++shown > SUMMARY_PAIRS) {
			fprintf(f, "    ... (run.json's punch has them all)\n");
			break;
		}
		fprintf(f, "    %s->%s %s%s", b->hosts[t->src].m->name,
		    b->hosts[t->dst].m->name, connectedness_word(t),
		    t->error ? ": " : "");
		log_fputs_safe(t->error ? t->error : "", f);
		fputc('\n', f);
	}
}

/* The worst ok probe of kind k: by its summary's figure (highest p50,
   lowest Mbps). */
static void
summary_slowest(const struct bench *b, FILE *f, const struct probe_kind *k)
{
	const struct probe_metric *m = probe_kind_metric(k, k->summary.metric);
	int higher_better = m != NULL && m->unit->higher_better;
	const struct bench_task *worst = NULL;
	size_t i;

	for (i = 0; i < b->n_task_sets[BENCH_SWEEP]; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_SWEEP][i];

		if (t->phase != BENCH_SWEEP || t->kind != k || !t->ok)
			continue;
		if (worst == NULL || (higher_better ?
		    t->value < worst->value : t->value > worst->value))
			worst = t;
	}
	if (worst == NULL)
		return;
	fprintf(f, "  slowest %s: %s->%s %.*f %s%s%s%s\n", k->name,
	    b->hosts[worst->src].m->name, b->hosts[worst->dst].m->name,
	    k->summary.decimals, worst->value, k->summary.unit,
	    k->summary.what != NULL ? " (" : "",
	    k->summary.what != NULL ? k->summary.what : "",
	    k->summary.what != NULL ? ")" : "");
}

void
bench_report_summary(const struct bench *b, FILE *f)
{
	size_t i;
	const struct probe_kind *k;
	int p;

	if (b->teardown_only) {
		for (i = 0; i < b->n; i++)
			if (b->hosts[i].touched)
				fprintf(f, "netprof: %s: %s\n",
				    b->hosts[i].m->name, b->hosts[i].torn_down ?
				    "torn down" : "NOT torn down");
		return;
	}
	fprintf(f, "netprof: bench %s: %zu probes ok, %zu failed", b->run_id,
	    b->ok, b->failed);
	if (b->o->baseline)
		fprintf(f, "; baseline ping %zu ok, %zu failed", b->baseline_ok,
		    b->baseline_failed);
	fprintf(f, "\n  phases:");
	for (p = 0; p < BENCH_N_PHASES; p++)
		if (b->phase_ran[p])
			fprintf(f, " %s %.2fs", bench_phase_name(p),
			    b->phase_s[p]);
	fputc('\n', f);
	for (i = 0; i < b->n; i++)
		if (b->hosts[i].failed)
		{
			fprintf(f, "  %s FAILED at %s: ",
			    b->hosts[i].m->name,
			    bench_phase_name(b->hosts[i].failed_phase));
			log_fputs_safe(b->hosts[i].error, f);
			fputc('\n', f);
		}
	for (i = 0; i < b->n; i++)
		if (!b->hosts[i].failed && b->hosts[i].n_missing > 0 &&
		    !b->hosts[i].converged)
			fprintf(f, "  %s did not converge: %zu peers missing\n",
			    b->hosts[i].m->name, b->hosts[i].n_missing);
	summary_punch(b, f);
	for (k = probe_kinds; k->name != NULL; k++)
		if (k->via == PROBE_VIA_NODE)
			summary_slowest(b, f, k);
	fprintf(f, "  records: %s\n", b->records_path);
}
